package arrowconv

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
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

// Compressions. Readers of compressed IPC data need Arrow 4.0 or later.
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

// DefaultIPCOptions returns the IPC format and compression the Arrow
// ecosystem uses for a file named path: ".arrow" (and any other name) an
// uncompressed IPC file, as pyarrow.ipc and Polars write it (memory-
// mappable, readable by every Arrow implementation including Arrow JS);
// ".arrows" an uncompressed IPC stream; ".feather" an IPC file (Feather
// v2) with LZ4 frames, as pyarrow.feather.write_feather does. The name "-"
// (standard output) is a stream. Compression on request overrides it (see
// [ParseCompression]).
func DefaultIPCOptions(path string) IPCOptions {
	if path == "-" {
		return IPCOptions{Format: IPCStream}
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".arrows":
		return IPCOptions{Format: IPCStream}
	case ".feather":
		return IPCOptions{Format: IPCFile, Compression: LZ4}
	}
	return IPCOptions{Format: IPCFile}
}

// ParseCompression parses an IPC compression name: "zstd", "lz4"
// ("lz4_frame"), "none" or "uncompressed" (any case).
func ParseCompression(name string) (Compression, error) {
	switch strings.ToLower(name) {
	case "zstd":
		return Zstd, nil
	case "lz4", "lz4_frame":
		return LZ4, nil
	case "none", "uncompressed":
		return NoCompression, nil
	}
	return 0, fmt.Errorf("arrowconv: compression %q is not available for Arrow IPC (zstd, lz4 or none)", name)
}

// IPCWriter writes record batches in an Arrow IPC format. Close finishes
// the format (footer or end-of-stream marker) but does not close the
// underlying io.Writer. It is not safe for concurrent use.
type IPCWriter interface {
	Write(rec arrow.RecordBatch) error
	Close() error
}

// ipcMagic starts (and ends) an IPC file.
var ipcMagic = []byte("ARROW1")

// NewIPCWriter starts an IPC file or stream of records of schema on w.
// Buffers are allocated from mem (memory.DefaultAllocator if nil).
func NewIPCWriter(w io.Writer, schema *arrow.Schema, opts IPCOptions, mem memory.Allocator) (IPCWriter, error) {
	if schema == nil {
		return nil, errors.New("arrowconv: NewIPCWriter needs a schema")
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	o := []ipc.Option{ipc.WithSchema(schema), ipc.WithAllocator(mem)}
	switch opts.Compression {
	case NoCompression:
	case Zstd:
		o = append(o, ipc.WithZstd())
	case LZ4:
		o = append(o, ipc.WithLZ4())
	default:
		return nil, fmt.Errorf("arrowconv: IPCOptions.Compression %d is not NoCompression, Zstd or LZ4", opts.Compression)
	}
	switch opts.Format {
	case IPCFile:
		fw, err := ipc.NewFileWriter(w, o...)
		if err != nil {
			return nil, fmt.Errorf("arrowconv: starting IPC file: %w", err)
		}
		return fw, nil
	case IPCStream:
		return ipc.NewWriter(w, o...), nil
	}
	return nil, fmt.Errorf("arrowconv: IPCOptions.Format %d is not IPCFile or IPCStream", opts.Format)
}

// WriteIPC copies every record of rr to w and returns the number of rows
// written. It does not release rr.
//
// Records are read one ahead on a second goroutine, so that building the
// next record overlaps writing this one. rr is used by that goroutine
// alone until WriteIPC returns, and each record is retained until it is
// written (as array.RecordReader allows: a retained record outlives the
// next call to Next).
func WriteIPC(w io.Writer, rr array.RecordReader, opts IPCOptions, mem memory.Allocator) (int64, error) {
	iw, err := NewIPCWriter(w, rr.Schema(), opts, mem)
	if err != nil {
		return 0, err
	}
	if r, ok := rr.(*RecordReader); ok {
		// Three stages then: reading rows, building records, writing.
		stopRaw := r.startReadAhead()
		defer stopRaw() // after ra.stop below: the goroutine calling r.Next is done
	}
	ra := readAhead(rr)
	var rows int64
	for rec := range ra.out {
		err := iw.Write(rec)
		if err == nil {
			rows += rec.NumRows()
		}
		rec.Release()
		if err != nil {
			ra.stop(releaseRecord)
			iw.Close()
			return rows, fmt.Errorf("arrowconv: writing IPC record: %w", err)
		}
	}
	if err := ra.wait(); err != nil {
		iw.Close()
		return rows, err
	}
	if err := iw.Close(); err != nil {
		return rows, fmt.Errorf("arrowconv: finishing IPC output: %w", err)
	}
	return rows, nil
}

// readAhead calls Next on rr on its own goroutine and hands over the
// retained records one ahead of the consumer.
func readAhead(rr array.RecordReader) *ahead[arrow.RecordBatch] {
	return startAhead(1, func(send func(arrow.RecordBatch) bool, _ <-chan struct{}) error {
		for rr.Next() {
			rec := rr.RecordBatch()
			rec.Retain()
			if !send(rec) {
				rec.Release()
				return nil
			}
		}
		return rr.Err()
	})
}

func releaseRecord(rec arrow.RecordBatch) { rec.Release() }

// NewIPCReader reads an IPC file or stream from r, recognizing the file
// format by its magic. A file is read through its footer when r is also an
// io.ReaderAt and io.Seeker at offset 0 (an *os.File), otherwise
// sequentially as the stream it contains.
//
// IPC input is untrusted. Every length in it is checked before anything is
// allocated by it: metadata and body lengths against the input's size (for
// a seekable input, whose metadata [ReadIPCInfo] checks first), the
// buffers of each record batch against its body and against the lengths
// the schema implies for its columns, and the uncompressed length of a
// compressed buffer against what its compressed bytes can expand to; no
// buffer may exceed [MaxIPCBuffer]. Each record batch is validated
// (array.ValidateRecordFull) before it is returned. Contradictory data is
// a [*CorruptError].
//
// Records come from mem (memory.DefaultAllocator if nil). The caller must
// Release the reader; records are owned by it and valid until the next
// call to Next.
//
// Compressed record batches are decoded on GOMAXPROCS goroutines
// (see [NewIPCReaderThreads]).
func NewIPCReader(r io.Reader, mem memory.Allocator) (array.RecordReader, error) {
	return NewIPCReaderThreads(r, mem, 0)
}

// NewIPCReaderThreads is [NewIPCReader] decoding compressed record batches
// (LZ4_FRAME, ZSTD) on threads goroutines (0 means runtime.GOMAXPROCS(0),
// 1 decodes on the goroutine calling Next), at most 2 batches per
// goroutine ahead of the consumer (and fewer when batches the size of the
// first would hold over 256 MiB); Next returns them in input order. An
// input whose first record batch is uncompressed (read without copying),
// or whose schema has a dictionary-encoded field, is read on the calling
// goroutine whatever threads says.
func NewIPCReaderThreads(r io.Reader, mem memory.Allocator, threads int) (array.RecordReader, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	mem = limitAllocator{mem}
	if ras, ok := r.(ipc.ReadAtSeeker); ok {
		start, err := ras.Seek(0, io.SeekCurrent)
		if err == nil && start == 0 {
			size, err := ras.Seek(0, io.SeekEnd)
			if err == nil {
				_, err = ras.Seek(0, io.SeekStart)
			}
			if err != nil {
				return nil, fmt.Errorf("arrowconv: reading IPC data: %w", err)
			}
			info, blocks, err := readIPCInfo(ras, size)
			if err != nil {
				return nil, err
			}
			if info.Format == IPCFile {
				return newIPCReaderThreads(newBlockSource(ras, size, blocks), mem, threads)
			}
			return newIPCReaderThreads(&streamSource{r: bufio.NewReaderSize(io.NewSectionReader(ras, 0, size), 1<<16), size: size}, mem, threads)
		}
	}
	br := bufio.NewReaderSize(r, 1<<16)
	var pos int64
	if head, _ := br.Peek(8); bytes.HasPrefix(head, featherV1Magic) {
		return nil, errFeatherV1
	} else if bytes.HasPrefix(head, ipcMagic) {
		// The file format is magic, padding, then a stream.
		if _, err := br.Discard(8); err != nil {
			return nil, fmt.Errorf("arrowconv: reading IPC file: %w", err)
		}
		pos = 8
	}
	return newIPCReaderThreads(&streamSource{r: br, pos: pos, size: -1}, mem, threads)
}

// MaxIPCBuffer bounds one buffer (one column of one record batch,
// decompressed) that [NewIPCReader] allocates. Lengths in IPC data are
// trusted by arrow-go, so a corrupt compressed buffer could otherwise ask
// for terabytes; a larger buffer is an error naming this variable.
var MaxIPCBuffer = 4 << 30

// limitAllocator refuses allocations above MaxIPCBuffer by panicking,
// which arrow-go's readers recover as an error.
type limitAllocator struct{ memory.Allocator }

func (a limitAllocator) check(n int) {
	if n > MaxIPCBuffer || n < 0 {
		panic(fmt.Errorf("an Arrow buffer of %d bytes exceeds arrowconv.MaxIPCBuffer (%d bytes)", n, MaxIPCBuffer))
	}
}

func (a limitAllocator) Allocate(n int) []byte {
	a.check(n)
	return a.Allocator.Allocate(n)
}

func (a limitAllocator) Reallocate(n int, b []byte) []byte {
	a.check(n)
	return a.Allocator.Reallocate(n, b)
}

// newFileReader is ipc.NewFileReader, which also returns the number of
// record batches. arrow-go's file reader panics on some malformed footers
// and schemas (flatbuffer offsets it follows unchecked): such a panic is
// an error about the file.
func newFileReader(r ipc.ReadAtSeeker, mem memory.Allocator) (fr *ipc.FileReader, n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			if fr != nil {
				fr.Close()
			}
			fr, n, err = nil, 0, errors.New("arrow-go panicked reading its footer and schema: "+panicMeaning(p))
		}
	}()
	fr, err = ipc.NewFileReader(r, ipc.WithAllocator(mem))
	if err != nil {
		return nil, 0, err
	}
	return fr, fr.NumRecords(), nil
}
