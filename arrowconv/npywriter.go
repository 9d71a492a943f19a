package arrowconv

import (
	"io"

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
	// value in advance.
	StringChars int
}

// DTypeFor returns the numpy dtype and row shape of .npy files written
// from record batches of schema: for one column, its element type and
// shape; for several, a structured dtype with one field per column.
//
// A field's numpy.descr metadata (see [Schema]) is used when it matches the
// field's Arrow type, so byte order, widths, datetime units, titles and
// padding come back exactly; otherwise the type is derived from the Arrow
// type (Timestamp(u) -> M8[u], Date32 -> M8[D], Duration(u) -> m8[u],
// struct<real, imag> -> complex, FixedSizeList and fixed_shape_tensor ->
// subarrays, FixedSizeBinary(n) -> V<n>).
func DTypeFor(schema *arrow.Schema) (*npyio.DType, []int, error) {
	return dtypeFor(schema, nil)
}

func dtypeFor(schema *arrow.Schema, opts *WriteOptions) (*npyio.DType, []int, error) {
	return nil, nil, errNotYet
}

// NPYWriter writes record batches as rows of one .npy array through
// npyio's streaming writer: one column gives a plain array, several a
// structured one. Nulls become NaT in datetime columns and NaN in float
// columns, and are refused elsewhere. Errors are sticky. Close finishes
// the file but does not close w.
type NPYWriter struct {
	err error
}

// NewNPYWriter starts an .npy file on w for records of schema.
func NewNPYWriter(w io.WriteSeeker, schema *arrow.Schema, opts *WriteOptions) (*NPYWriter, error) {
	return nil, errNotYet
}

// Write appends the rows of rec.
func (w *NPYWriter) Write(rec arrow.RecordBatch) error { return errNotYet }

// Close writes the final header.
func (w *NPYWriter) Close() error { return errNotYet }

// WriteNPY writes every record of rr to w as one .npy array and returns the
// number of rows written.
func WriteNPY(w io.WriteSeeker, rr array.RecordReader, opts *WriteOptions) (int64, error) {
	return 0, errNotYet
}
