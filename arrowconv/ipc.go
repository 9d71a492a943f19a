package arrowconv

import (
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// IPCFormat selects an Arrow IPC format.
type IPCFormat int

const (
	// IPCFile is the random-access IPC file format, also Feather v2
	// (.arrow, .feather).
	IPCFile IPCFormat = iota
	// IPCStream is the IPC streaming format (.arrows).
	IPCStream
)

// Compression selects IPC buffer compression.
type Compression int

const (
	NoCompression Compression = iota // uncompressed buffers
	Zstd                             // ZSTD frame per buffer
	LZ4                              // LZ4 frame per buffer
)

// IPCOptions configures [NewIPCWriter]. The zero value writes an
// uncompressed IPC file.
type IPCOptions struct {
	Format      IPCFormat
	Compression Compression
}

// IPCWriter writes record batches in an Arrow IPC format. Close finishes
// the format (footer or end-of-stream marker) but does not close the
// underlying io.Writer.
type IPCWriter interface {
	Write(rec arrow.RecordBatch) error
	Close() error
}

// NewIPCWriter starts an IPC file or stream of records of schema on w.
func NewIPCWriter(w io.Writer, schema *arrow.Schema, opts IPCOptions, mem memory.Allocator) (IPCWriter, error) {
	return nil, errNotYet
}

// WriteIPC copies every record of rr to w and returns the number of rows.
func WriteIPC(w io.Writer, rr array.RecordReader, opts IPCOptions, mem memory.Allocator) (int64, error) {
	return 0, errNotYet
}

// NewIPCReader reads an IPC file or stream from r, recognizing the file
// format by its magic. The caller must Release the reader.
func NewIPCReader(r io.Reader, mem memory.Allocator) (array.RecordReader, error) {
	return nil, errNotYet
}
