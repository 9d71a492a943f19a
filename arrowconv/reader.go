package arrowconv

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/npyio"
)

// DefaultBatchRows is the number of rows per record batch when a batchRows
// argument is 0 or less.
const DefaultBatchRows = 64 << 10

// RecordReader reads an .npy array as Arrow record batches with the schema
// [Schema] gives. It implements array.RecordReader.
//
// The current record is owned by the reader and valid until the next call
// to Next or Read, or the last Release; Retain it to keep it longer. A
// RecordReader is not safe for concurrent use.
type RecordReader struct {
	refs      atomic.Int64
	schema    *arrow.Schema
	cols      []*node
	b         builder
	batchRows int
	rowSize   int
	rows      int64 // total rows
	next      int64 // next row to read

	src   *npyio.Reader    // streaming source, or
	whole *memory.Buffer   // whole-array source (not owned)
	share bool             // some column can reference the batch buffer
	ahead *ahead[rawBatch] // raw batches read ahead from src, when started
	free  chan []byte      // the read-ahead's buffers to read into

	recycle *recycler // the builder's allocator

	cur arrow.RecordBatch
	err error
}

// NewRecordReader streams the rows of r as record batches of at most
// batchRows rows (DefaultBatchRows if batchRows <= 0), in memory bounded by
// the batch size. name names the column of a non-structured array. Columns
// are built in mem. Plain native numeric arrays are read straight into the
// column buffers; other columns are converted from a reused batch buffer.
// The RecordReader takes r over: it sets r to deliver bool bytes as stored
// (npyio.Reader.KeepBoolBytes), as it bit-packs them itself.
func NewRecordReader(r *npyio.Reader, name string, batchRows int, mem memory.Allocator) (*RecordReader, error) {
	if r == nil {
		return nil, errors.New("arrowconv: nil npyio.Reader")
	}
	rr, err := newRecordReader(r.Header(), name, batchRows, mem)
	if err != nil {
		return nil, err
	}
	r.KeepBoolBytes()
	rr.src = r
	rr.rows = r.Remaining()
	return rr, nil
}

// NewArrayRecordReader returns a RecordReader over a whole array (from
// npyio.ReadFile, ReadArrayAt or Map). Contiguous native fixed-width columns
// reference a.Data without copying: a.Data must stay valid (a MappedArray
// open) until every record is released. A Fortran-order array with two or
// more axes is first copied to C order.
func NewArrayRecordReader(a *npyio.Array, name string, batchRows int, mem memory.Allocator) (*RecordReader, error) {
	if a == nil || a.Header == nil {
		return nil, errors.New("arrowconv: nil npyio.Array")
	}
	rr, err := newRecordReader(a.Header, name, batchRows, mem)
	if err != nil {
		return nil, err
	}
	data := a.CData()
	if int64(len(data)) < a.Header.DataSize() {
		return nil, fmt.Errorf("arrowconv: array data has %d bytes, its header needs %d", len(data), a.Header.DataSize())
	}
	rr.whole = memory.NewBufferBytes(data)
	rr.rows = a.Header.Rows()
	return rr, nil
}

// NewRecordBatch converts a whole array into one record batch, without
// copying where the layout allows (see [NewArrayRecordReader]). The caller
// must Release it.
func NewRecordBatch(a *npyio.Array, name string, mem memory.Allocator) (arrow.RecordBatch, error) {
	if a == nil || a.Header == nil {
		return nil, errors.New("arrowconv: nil npyio.Array")
	}
	rows := a.Header.Rows()
	if rows > math.MaxInt32 {
		rows = math.MaxInt32
	}
	rr, err := NewArrayRecordReader(a, name, int(max(rows, 1)), mem)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	if rr.rows > int64(rr.batchRows) {
		return nil, fmt.Errorf("arrowconv: %d rows do not fit one record batch", rr.rows)
	}
	rec, err := rr.Read()
	if err == io.EOF {
		return array.NewRecordBatch(rr.schema, emptyColumns(rr.schema, mem), 0), nil
	}
	if err != nil {
		return nil, err
	}
	rec.Retain()
	return rec, nil
}

func emptyColumns(s *arrow.Schema, mem memory.Allocator) []arrow.Array {
	cols := make([]arrow.Array, s.NumFields())
	for i, f := range s.Fields() {
		cols[i] = array.MakeArrayOfNull(mem, f.Type, 0)
	}
	return cols
}

func newRecordReader(h *npyio.Header, name string, batchRows int, mem memory.Allocator) (*RecordReader, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if batchRows <= 0 {
		batchRows = DefaultBatchRows
	}
	schema, err := Schema(h, name)
	if err != nil {
		return nil, err
	}
	rc := newRecycler(mem)
	rr := &RecordReader{schema: schema, b: builder{mem: rc}, recycle: rc, batchRows: batchRows, rowSize: int(h.RowSize())}
	rr.refs.Add(1)
	var rowShape []int
	if len(h.Shape) > 1 {
		rowShape = h.Shape[1:]
	}
	if h.DType.Kind == npyio.Struct {
		for i := range h.DType.Fields {
			f := &h.DType.Fields[i]
			nd, err := compileColumn(f.Type, f.Shape, rowShape, f.Offset, h.DType.Size, f.Name)
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", f.Name, err)
			}
			rr.cols = append(rr.cols, nd)
		}
	} else {
		nd, err := compileColumn(h.DType, nil, rowShape, 0, h.DType.Size, name)
		if err != nil {
			return nil, err
		}
		rr.cols = []*node{nd}
	}
	for _, c := range rr.cols {
		if c.sharesRow(rr.rowSize) {
			rr.share = true
		}
	}
	// Bound the batch so that its buffer stays addressable.
	if rr.rowSize > 0 && batchRows > math.MaxInt32/rr.rowSize {
		rr.batchRows = max(1, math.MaxInt32/rr.rowSize)
	}
	return rr, nil
}

// Schema returns the schema of the records.
func (r *RecordReader) Schema() *arrow.Schema { return r.schema }

// Next advances to the next record batch, reporting false at the end or on
// error (see Err).
func (r *RecordReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.next >= r.rows {
		return false
	}
	n := int(min(int64(r.batchRows), r.rows-r.next))
	var lay layout
	var owned *memory.Buffer
	switch {
	case r.whole != nil:
		lay = layout{data: r.whole.Bytes(), parent: r.whole, base: int(r.next) * r.rowSize}
	case r.share:
		owned = r.b.alloc(n * r.rowSize)
		k, err := r.src.ReadRows(owned.Bytes())
		if err != nil {
			owned.Release()
			r.err = err
			return false
		}
		n = k
		lay = layout{data: owned.Bytes(), parent: owned}
	case r.ahead != nil:
		rb, ok := <-r.ahead.out
		if !ok {
			err := r.ahead.wait()
			switch err {
			case nil:
				err = errors.New("arrowconv: internal error: read-ahead ended early")
			case io.EOF:
				err = io.ErrUnexpectedEOF
			}
			r.err = err
			return false
		}
		n = rb.rows
		lay = layout{data: rb.data}
		defer func() { r.free <- rb.data }() // the columns are built by then
	default:
		bt, err := r.src.Next(n)
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			r.err = err
			return false
		}
		n = bt.Rows
		lay = layout{data: bt.Data}
	}
	if owned != nil {
		defer owned.Release()
	}
	lay.dims = []dim{{n, r.rowSize}}
	r.b.row0, r.b.rows = r.next, n
	cols := make([]arrow.Array, 0, len(r.cols))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for _, nd := range r.cols {
		d, err := r.b.build(nd, lay.sub(nd.off))
		if err != nil {
			r.err = err
			return false
		}
		cols = append(cols, array.MakeFromData(d))
		d.Release()
	}
	r.cur = array.NewRecordBatch(r.schema, cols, int64(n))
	r.next += int64(n)
	return true
}

// RecordBatch returns the current record batch.
func (r *RecordReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record returns the current record batch.
//
// Deprecated: use RecordBatch, as arrow-go does.
func (r *RecordReader) Record() arrow.RecordBatch { return r.cur }

// Read returns the next record batch, or io.EOF at the end. The batch is
// owned by the reader as with Next.
func (r *RecordReader) Read() (arrow.RecordBatch, error) {
	if !r.Next() {
		if r.err != nil {
			return nil, r.err
		}
		return nil, io.EOF
	}
	return r.cur, nil
}

// Err returns the error that stopped Next, if any.
func (r *RecordReader) Err() error { return r.err }

// Retain adds a reference to the reader.
func (r *RecordReader) Retain() { r.refs.Add(1) }

// Release removes a reference; the last one releases the current record.
func (r *RecordReader) Release() {
	if r.refs.Add(-1) == 0 {
		if r.cur != nil {
			r.cur.Release()
			r.cur = nil
		}
		r.recycle.close()
	}
}

var _ array.RecordReader = (*RecordReader)(nil)

// rawBatch is a batch of raw rows read ahead.
type rawBatch struct {
	data []byte
	rows int
}

// aheadBuffers is how many batch buffers circulate: one being read, one
// waiting, one being built.
const aheadBuffers = 3

// errAbandoned is the error of a RecordReader whose read-ahead was stopped
// before its last row: the rows read ahead are gone.
var errAbandoned = errors.New("arrowconv: record reader stopped mid-stream")

// startReadAhead starts reading the source's rows ahead on a goroutine,
// so that reading batch n+1 overlaps building batch n, and returns the
// function that stops it; until then r.src belongs to that goroutine. It does nothing for whole arrays, for sources whose
// columns reference the batch buffer (their buffers cannot be recycled),
// and for zero-size rows.
func (r *RecordReader) startReadAhead() (stop func()) {
	if r.src == nil || r.share || r.rowSize == 0 || r.ahead != nil || r.err != nil || r.next >= r.rows {
		return func() {}
	}
	r.free = make(chan []byte, aheadBuffers)
	for range aheadBuffers {
		r.free <- nil // allocated on first use
	}
	remaining, batch, size, src, free := r.rows-r.next, int64(r.batchRows), r.rowSize, r.src, r.free
	a := startAhead(1, func(send func(rawBatch) bool, stopped <-chan struct{}) error {
		for remaining > 0 {
			var buf []byte
			select {
			case buf = <-free:
			case <-stopped:
				return nil
			}
			n := int(min(batch, remaining))
			if cap(buf) < n*size {
				buf = make([]byte, n*size)
			}
			k, err := src.ReadRows(buf[:n*size])
			if err != nil {
				return err
			}
			if !send(rawBatch{data: buf[:k*size], rows: k}) {
				return nil
			}
			remaining -= int64(k)
		}
		return nil
	})
	r.ahead = a
	return func() {
		a.stop(nil)
		r.ahead = nil
		if r.err == nil && r.next < r.rows {
			r.err = errAbandoned
		}
	}
}
