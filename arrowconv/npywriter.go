package arrowconv

import (
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/npyflow/npyflow/npyio"
)

// WriteOptions configures [NPYWriter]. The zero value (or nil) means the
// defaults.
type WriteOptions struct {
	// StringChars is the width (characters for U, bytes for S) given to
	// string and binary columns that have no numpy.descr metadata. 0 means
	// such columns are refused: a streaming writer cannot know the longest
	// value in advance. A longer value is an error, never truncated.
	StringChars int
}

// DTypeFor returns the numpy dtype and row shape of .npy files written
// from record batches of schema: for one column, its element type and
// shape (a record type, such as a struct, becomes a one-field record
// named for the column, see [MapSchema]); for several, a structured dtype with one field per column.
//
// A field's numpy.descr metadata (see [Schema]) is used when it matches the
// field's Arrow type, so byte order, widths, datetime units, titles and
// padding come back exactly; otherwise the type is [MapSchema]'s, with
// struct<real, imag> of floats as complex. Strings and binaries without
// metadata need [WriteOptions.StringChars]; see [NewRowEncoder] and
// [NewNPYWriter].
func DTypeFor(schema *arrow.Schema) (*npyio.DType, []int, error) {
	e, err := NewRowEncoder(schema, nil)
	if err != nil {
		return nil, nil, err
	}
	return e.DType(), e.RowShape(), nil
}

// NPYWriter writes record batches as rows of one .npy array through
// npyio's streaming writer: one column gives a plain array, several a
// structured one (see [DTypeFor]). Values are converted exactly or
// refused: nulls become NaT in datetime columns and NaN in float columns
// and are an error elsewhere; a time value that is not a whole number of
// the numpy unit, or a string longer than the numpy width, is an error.
// The conversion is a [RowEncoder]'s. Errors are sticky. Close finishes
// the file but does not close w.
type NPYWriter struct {
	w     *npyio.Writer
	m     *Mapping
	zeroD bool // a 0-d array: exactly one row
	rows  int64
	buf   []byte
	err   error
}

// maxWriteRows bounds the rows converted at once.
const maxWriteRows = 64 << 10

// NewNPYWriter starts an .npy file on w for records of schema, converted
// by [NewRowEncoder]'s mapping. The header is rewritten with the row count
// on Close, so w must be seekable. A schema from a 0-d array (numpy.shape
// metadata "[]") gives a 0-d array again and needs exactly one row.
func NewNPYWriter(w io.WriteSeeker, schema *arrow.Schema, opts *WriteOptions) (*NPYWriter, error) {
	enc, err := NewRowEncoder(schema, opts)
	if err != nil {
		return nil, err
	}
	return NewMappedNPYWriter(w, enc.m)
}

// NewMappedNPYWriter starts an .npy file on w for records converted by m
// (see [MapSchema]); if m.NeedsScan(), every record must have been given
// to m.Scan first. The header is rewritten with the row count on Close, so
// w must be seekable.
func NewMappedNPYWriter(w io.WriteSeeker, m *Mapping) (*NPYWriter, error) {
	dt, err := m.DType()
	if err != nil {
		return nil, err
	}
	nw := &NPYWriter{m: m, zeroD: m.zeroD && len(m.shape) == 0}
	if nw.zeroD {
		h, _ := m.Header(1)
		nw.w, err = npyio.NewWriter(w, h)
	} else {
		nw.w, err = npyio.NewStreamWriter(w, dt, m.shape)
	}
	if err != nil {
		return nil, err
	}
	return nw, nil
}

// DType returns the numpy dtype being written.
func (w *NPYWriter) DType() *npyio.DType { return w.m.dt }

// Rows returns the number of rows written so far.
func (w *NPYWriter) Rows() int64 { return w.rows }

// Write appends the rows of rec, whose schema must have the writer's
// column types.
func (w *NPYWriter) Write(rec arrow.RecordBatch) error {
	if w.err != nil {
		return w.err
	}
	if err := w.m.check(rec); err != nil {
		w.err = err
		return err
	}
	n := int(rec.NumRows())
	for start := 0; start < n; start += maxWriteRows {
		end := min(n, start+maxWriteRows)
		if need := (end - start) * w.m.rowSize; cap(w.buf) < need {
			w.buf = alignedBuf(need)
		}
		buf, err := w.m.EncodeRows(rec, start, end, w.buf[:0])
		w.buf = buf
		if err == nil {
			_, err = w.w.Write(buf)
		}
		if err != nil {
			w.err = err
			return err
		}
		w.rows += int64(end - start)
	}
	return nil
}

// Close finishes the .npy file (for a streaming file, rewrites its header
// with the row count). It does not close the underlying writer.
func (w *NPYWriter) Close() error {
	if w.err != nil {
		w.w.Close()
		return w.err
	}
	if w.zeroD && w.rows != 1 {
		w.err = fmt.Errorf("arrowconv: the schema describes a 0-d array, which needs exactly one row, not %d", w.rows)
		return w.err
	}
	if w.m.rowSize == 0 && !w.zeroD {
		if err := w.w.SetRows(int(w.rows)); err != nil {
			w.err = err
			return err
		}
		return nil
	}
	w.err = w.w.Close()
	return w.err
}

// WriteNPY writes every record of rr to w as one .npy array (see
// [NPYWriter]) and returns the number of rows written. It does not release
// rr.
func WriteNPY(w io.WriteSeeker, rr array.RecordReader, opts *WriteOptions) (int64, error) {
	nw, err := NewNPYWriter(w, rr.Schema(), opts)
	if err != nil {
		return 0, err
	}
	for rr.Next() {
		if err := nw.Write(rr.RecordBatch()); err != nil {
			nw.Close()
			return nw.rows, err
		}
	}
	if err := rr.Err(); err != nil {
		nw.Close()
		return nw.rows, err
	}
	return nw.rows, nw.Close()
}

// WriteMappedNPY writes every record of rr to w as one .npy array converted
// by m (see [MapSchema] and [NewMappedNPYWriter]) and returns the number
// of rows written. It does not release rr. When m.NeedsScan(), scan the
// input first (see [ScanRecords]).
//
// Three stages overlap: records are read one ahead on a goroutine (rr is
// used by it alone until WriteMappedNPY returns), rows are encoded, and
// encoded chunks are written on another goroutine.
func WriteMappedNPY(w io.WriteSeeker, rr array.RecordReader, m *Mapping) (int64, error) {
	nw, err := NewMappedNPYWriter(w, m)
	if err != nil {
		return 0, err
	}
	if nw.zeroD || m.rowSize == 0 {
		for rr.Next() {
			if err := nw.Write(rr.RecordBatch()); err != nil {
				nw.Close()
				return nw.rows, err
			}
		}
		if err := rr.Err(); err != nil {
			nw.Close()
			return nw.rows, err
		}
		return nw.rows, nw.Close()
	}
	rowSize := m.rowSize
	chunkRows := max(1, mappedChunk/rowSize)
	const nbuf = 3
	free := make(chan []byte, nbuf)
	for range nbuf {
		free <- nil
	}
	wq := make(chan []byte, 1)
	var werr error
	var failed atomic.Bool
	wdone := make(chan struct{})
	go func() {
		defer close(wdone)
		for b := range wq {
			if werr == nil {
				if _, werr = nw.w.Write(b); werr != nil {
					failed.Store(true)
				}
			}
			free <- b
		}
	}()
	ra := readAhead(rr)
	for rec := range ra.out {
		n := int(rec.NumRows())
		for start := 0; start < n && err == nil && !failed.Load(); start += chunkRows {
			end := min(n, start+chunkRows)
			b := <-free
			if need := (end - start) * rowSize; cap(b) < need {
				b = alignedBuf(max(need, min(chunkRows, n)*rowSize))
			}
			if b, err = m.EncodeRows(rec, start, end, b[:0]); err != nil {
				free <- b
				break
			}
			nw.rows += int64(end - start)
			wq <- b
		}
		rec.Release()
		if err != nil || failed.Load() {
			break
		}
	}
	close(wq)
	<-wdone
	if err == nil {
		err = werr
	}
	if err != nil {
		ra.stop(releaseRecord)
		nw.err = err
		nw.Close()
		return nw.rows, err
	}
	if err := ra.wait(); err != nil {
		nw.err = err
		nw.Close()
		return nw.rows, err
	}
	return nw.rows, nw.Close()
}

// mappedChunk is the size of the chunks WriteMappedNPY encodes and writes.
const mappedChunk = 4 << 20

// ScanRecords gives every record of rr to m.Scan. It does not release rr.
func ScanRecords(m *Mapping, rr array.RecordReader) error {
	for rr.Next() {
		if err := m.Scan(rr.RecordBatch()); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil {
		return err
	}
	if !m.frozen {
		m.didScan = true
	}
	return nil
}
