package arrowconv

import (
	"errors"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/npyio"
)

// DefaultBatchRows is the number of rows per record batch when a batchRows
// argument is 0 or less.
const DefaultBatchRows = 64 << 10

var errNotYet = errors.New("arrowconv: not implemented yet")

// RecordReader reads an .npy array as Arrow record batches with the schema
// [Schema] gives. It implements array.RecordReader.
//
// The current record is owned by the reader and valid until the next call
// to Next or Read, or Release; Retain it to keep it longer. A RecordReader
// is not safe for concurrent use.
type RecordReader struct {
	refs   atomic.Int64
	schema *arrow.Schema
	mem    memory.Allocator
	cur    arrow.RecordBatch
	err    error
}

// NewRecordReader streams the rows of r as record batches of at most
// batchRows rows (DefaultBatchRows if batchRows <= 0), in memory bounded by
// the batch size. name names the column of a non-structured array. Columns
// are built in mem.
func NewRecordReader(r *npyio.Reader, name string, batchRows int, mem memory.Allocator) (*RecordReader, error) {
	return nil, errNotYet
}

// NewArrayRecordReader returns a RecordReader over a whole array (from
// npyio.ReadFile, ReadArrayAt or Map). Contiguous native fixed-width columns
// reference a.Data without copying: a.Data must stay valid (a MappedArray
// open) until every record is released.
func NewArrayRecordReader(a *npyio.Array, name string, batchRows int, mem memory.Allocator) (*RecordReader, error) {
	return nil, errNotYet
}

// NewRecordBatch converts a whole array into one record batch, without
// copying where the layout allows (see [NewArrayRecordReader]). The caller
// must Release it.
func NewRecordBatch(a *npyio.Array, name string, mem memory.Allocator) (arrow.RecordBatch, error) {
	return nil, errNotYet
}

// Schema returns the schema of the records.
func (r *RecordReader) Schema() *arrow.Schema { return r.schema }

// Next advances to the next record batch, reporting false at the end or on
// error (see Err).
func (r *RecordReader) Next() bool { return false }

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
	if r.refs.Add(-1) == 0 && r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

var _ array.RecordReader = (*RecordReader)(nil)
