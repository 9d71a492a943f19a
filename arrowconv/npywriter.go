package arrowconv

import (
	"errors"
	"fmt"
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
	// value in advance. A longer value is an error, never truncated.
	StringChars int
}

// DTypeFor returns the numpy dtype and row shape of .npy files written
// from record batches of schema: for one column, its element type and
// shape; for several, a structured dtype with one field per column.
//
// A field's numpy.descr metadata (see [Schema]) is used when it matches the
// field's Arrow type, so byte order, widths, datetime units, titles and
// padding come back exactly; otherwise the type is derived from the Arrow
// type (Timestamp(u) -> M8[u], Date32 -> M8[D], Date64 -> M8[ms],
// Duration(u) -> m8[u], struct<real, imag> of floats -> complex,
// FixedSizeList and fixed_shape_tensor -> subarrays, FixedSizeBinary(n) ->
// V<n>). Strings and binaries without metadata need
// [WriteOptions.StringChars]; see [NewNPYWriter].
func DTypeFor(schema *arrow.Schema) (*npyio.DType, []int, error) {
	dt, rowShape, _, err := dtypeFor(schema, nil)
	return dt, rowShape, err
}

// dtypeFor also reports whether the columns are the fields of the dtype
// (true) or the single column is the whole element (false).
func dtypeFor(schema *arrow.Schema, opts *WriteOptions) (dt *npyio.DType, rowShape []int, perField bool, err error) {
	if schema == nil || schema.NumFields() == 0 {
		return nil, nil, false, errors.New("arrowconv: a schema with no columns has no numpy dtype")
	}
	// The source's struct descr and shape, if the schema came from one.
	var src *npyio.DType
	var srcRow []int
	if d, ok := schema.Metadata().GetValue(MetaDescr); ok {
		if st, err := npyio.ParseDescr(d); err == nil && st.Kind == npyio.Struct {
			src = st
			if s, ok := schema.Metadata().GetValue(MetaShape); ok {
				if shape, err := parseShapeJSON(s); err == nil && len(shape) > 1 {
					srcRow = shape[1:]
				}
			}
		}
	}
	if schema.NumFields() == 1 && src == nil {
		f := schema.Field(0)
		dt, shape, err := fieldDType(f, opts, 0)
		if err != nil {
			return nil, nil, false, fmt.Errorf("arrowconv: column %q: %w", f.Name, err)
		}
		return dt, shape, false, nil
	}
	fields := make([]npyio.Field, schema.NumFields())
	for i, f := range schema.Fields() {
		dt, shape, err := fieldDType(f, opts, 0)
		if err != nil {
			return nil, nil, false, fmt.Errorf("arrowconv: column %q: %w", f.Name, err)
		}
		title, _ := f.Metadata.GetValue(MetaTitle)
		fields[i] = npyio.Field{Name: f.Name, Title: title, Type: dt, Shape: shape}
	}
	// A structured source with more than one axis: the columns carry the
	// axes after the first in front of each field's own shape.
	if len(srcRow) > 0 {
		stripped := make([]npyio.Field, len(fields))
		ok := true
		for i, f := range fields {
			if len(f.Shape) < len(srcRow) || !equalInts(f.Shape[:len(srcRow)], srcRow) {
				ok = false
				break
			}
			stripped[i] = f
			stripped[i].Shape = nil
			if len(f.Shape) > len(srcRow) {
				stripped[i].Shape = f.Shape[len(srcRow):]
			}
		}
		if ok {
			fields, rowShape = stripped, srcRow
		}
	}
	// The source's own struct descr keeps its padding and offsets when the
	// columns are still exactly its fields.
	if src != nil && sameFields(src.Fields, fields) {
		return src, rowShape, true, nil
	}
	st, err := npyio.NewStruct(fields)
	if err != nil {
		return nil, nil, false, fmt.Errorf("arrowconv: %w", err)
	}
	return st, rowShape, true, nil
}

func sameFields(a, b []npyio.Field) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Title != b[i].Title || !a[i].Type.Equal(b[i].Type) || !equalInts(a[i].Shape, b[i].Shape) {
			return false
		}
	}
	return true
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// fieldDType returns the numpy element type and subarray shape of an
// Arrow field.
func fieldDType(f arrow.Field, opts *WriteOptions, depth int) (*npyio.DType, []int, error) {
	if d, ok := f.Metadata.GetValue(MetaDescr); ok {
		var shape []int
		var err error
		if s, ok := f.Metadata.GetValue(MetaShape); ok {
			shape, err = parseShapeJSON(s)
		}
		if err == nil {
			if dt, err := npyio.ParseDescr(d); err == nil {
				if t, err := FieldType(dt, shape); err == nil && arrow.TypeEqual(t, f.Type) {
					return dt, shape, nil
				}
			}
		}
	}
	return inferDType(f.Type, opts, depth)
}

// inferDType derives a numpy type from an Arrow type alone.
func inferDType(t arrow.DataType, opts *WriteOptions, depth int) (*npyio.DType, []int, error) {
	if depth > maxDepth {
		return nil, nil, &UnsupportedError{DType: t.String(), Msg: "nested too deeply"}
	}
	scalar := func(d *npyio.DType) (*npyio.DType, []int, error) { return d, nil, nil }
	timeType := func(unit arrow.TimeUnit, delta bool) (*npyio.DType, []int, error) {
		d, err := npyio.NewDatetime([]string{"s", "ms", "us", "ns"}[unit], 1, delta)
		return d, nil, err
	}
	chars := 0
	if opts != nil {
		chars = opts.StringChars
	}
	switch t := t.(type) {
	case *arrow.BooleanType:
		return scalar(npyio.BoolType)
	case *arrow.Int8Type:
		return scalar(npyio.Int8Type)
	case *arrow.Int16Type:
		return scalar(npyio.Int16Type)
	case *arrow.Int32Type:
		return scalar(npyio.Int32Type)
	case *arrow.Int64Type:
		return scalar(npyio.Int64Type)
	case *arrow.Uint8Type:
		return scalar(npyio.Uint8Type)
	case *arrow.Uint16Type:
		return scalar(npyio.Uint16Type)
	case *arrow.Uint32Type:
		return scalar(npyio.Uint32Type)
	case *arrow.Uint64Type:
		return scalar(npyio.Uint64Type)
	case *arrow.Float16Type:
		return scalar(npyio.Float16Type)
	case *arrow.Float32Type:
		return scalar(npyio.Float32Type)
	case *arrow.Float64Type:
		return scalar(npyio.Float64Type)
	case *arrow.TimestampType:
		return timeType(t.Unit, false)
	case *arrow.DurationType:
		return timeType(t.Unit, true)
	case *arrow.Date32Type:
		d, err := npyio.NewDatetime("D", 1, false)
		return d, nil, err
	case *arrow.Date64Type:
		return timeType(arrow.Millisecond, false)
	case *arrow.FixedSizeBinaryType:
		d, err := npyio.NewString(npyio.Void, t.ByteWidth)
		return d, nil, err
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		if chars <= 0 {
			return nil, nil, &UnsupportedError{DType: t.String(), Msg: "a string column without numpy.descr metadata needs a width (WriteOptions.StringChars)"}
		}
		d, err := npyio.NewString(npyio.Unicode, chars)
		return d, nil, err
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType:
		if chars <= 0 {
			return nil, nil, &UnsupportedError{DType: t.String(), Msg: "a binary column without numpy.descr metadata needs a width (WriteOptions.StringChars)"}
		}
		d, err := npyio.NewString(npyio.Bytes, chars)
		return d, nil, err
	case *arrow.FixedSizeListType:
		dt, inner, err := fieldDType(t.ElemField(), opts, depth+1)
		if err != nil {
			return nil, nil, err
		}
		return dt, concatShape([]int{int(t.Len())}, inner), nil
	case *FixedShapeTensorType:
		if t.permutation != nil {
			for i, p := range t.permutation {
				if p != i {
					return nil, nil, &UnsupportedError{DType: t.String(), Msg: "permuted tensors are not supported"}
				}
			}
		}
		fsl := t.Storage.(*arrow.FixedSizeListType)
		dt, inner, err := fieldDType(fsl.ElemField(), opts, depth+1)
		if err != nil {
			return nil, nil, err
		}
		return dt, concatShape(t.shape, inner), nil
	case *arrow.StructType:
		if isComplex(t) {
			if t.Field(0).Type.ID() == arrow.FLOAT32 {
				return scalar(npyio.Complex64)
			}
			return scalar(npyio.Complex128)
		}
		fields := make([]npyio.Field, t.NumFields())
		for i, f := range t.Fields() {
			dt, shape, err := fieldDType(f, opts, depth+1)
			if err != nil {
				return nil, nil, fmt.Errorf("field %q: %w", f.Name, err)
			}
			title, _ := f.Metadata.GetValue(MetaTitle)
			fields[i] = npyio.Field{Name: f.Name, Title: title, Type: dt, Shape: shape}
		}
		st, err := npyio.NewStruct(fields)
		return st, nil, err
	}
	return nil, nil, &UnsupportedError{DType: t.String(), Msg: "no numpy equivalent"}
}

// isComplex reports whether t is struct<real: f, imag: f> with f float32
// or float64, the Arrow form of a numpy complex.
func isComplex(t *arrow.StructType) bool {
	if t.NumFields() != 2 || t.Field(0).Name != "real" || t.Field(1).Name != "imag" {
		return false
	}
	a, b := t.Field(0).Type.ID(), t.Field(1).Type.ID()
	return a == b && (a == arrow.FLOAT32 || a == arrow.FLOAT64)
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
	enc   *RowEncoder
	m     *Mapping // instead of enc, from NewMappedNPYWriter
	zeroD bool     // a 0-d array: exactly one row
	rows  int64
	buf   []byte
	err   error
}

// maxWriteRows bounds the rows converted at once.
const maxWriteRows = 64 << 10

// NewNPYWriter starts an .npy file on w for records of schema. The header
// is rewritten with the row count on Close, so w must be seekable. A schema
// from a 0-d array (numpy.shape metadata "[]") gives a 0-d array again and
// needs exactly one row.
func NewNPYWriter(w io.WriteSeeker, schema *arrow.Schema, opts *WriteOptions) (*NPYWriter, error) {
	enc, err := NewRowEncoder(schema, opts)
	if err != nil {
		return nil, err
	}
	nw := &NPYWriter{enc: enc, zeroD: enc.ZeroD()}
	if nw.zeroD {
		nw.w, err = npyio.NewWriter(w, enc.Header(1))
	} else {
		nw.w, err = npyio.NewStreamWriter(w, enc.DType(), enc.rowShape)
	}
	if err != nil {
		return nil, err
	}
	return nw, nil
}

// NewMappedNPYWriter starts an .npy file on w for records converted by m
// (see [MapSchema]); if m.NeedsScan(), every record must have been given
// to m.Scan first. The header is rewritten with the row count on Close, so
// w must be seekable.
func NewMappedNPYWriter(w io.WriteSeeker, m *Mapping) (*NPYWriter, error) {
	if m.legacy != nil {
		nw := &NPYWriter{enc: m.legacy, zeroD: m.legacy.ZeroD()}
		var err error
		if nw.zeroD {
			nw.w, err = npyio.NewWriter(w, m.legacy.Header(1))
		} else {
			nw.w, err = npyio.NewStreamWriter(w, m.legacy.DType(), m.legacy.rowShape)
		}
		if err != nil {
			return nil, err
		}
		return nw, nil
	}
	dt, err := m.DType()
	if err != nil {
		return nil, err
	}
	nw := &NPYWriter{m: m}
	if nw.w, err = npyio.NewStreamWriter(w, dt, m.shape); err != nil {
		return nil, err
	}
	return nw, nil
}

// DType returns the numpy dtype being written.
func (w *NPYWriter) DType() *npyio.DType {
	if w.m != nil {
		return w.m.dt
	}
	return w.enc.DType()
}

func (w *NPYWriter) rowSize() int {
	if w.m != nil {
		return w.m.rowSize
	}
	return w.enc.RowSize()
}

// Rows returns the number of rows written so far.
func (w *NPYWriter) Rows() int64 { return w.rows }

// Write appends the rows of rec, whose schema must have the writer's
// column types.
func (w *NPYWriter) Write(rec arrow.RecordBatch) error {
	if w.err != nil {
		return w.err
	}
	encode := func(rec arrow.RecordBatch, start, end int, dst []byte) ([]byte, error) {
		if w.m != nil {
			return w.m.EncodeRows(rec, start, end, dst)
		}
		return w.enc.EncodeRows(rec, start, end, dst)
	}
	if w.m == nil {
		if err := w.enc.check(rec); err != nil {
			w.err = err
			return err
		}
	}
	n := int(rec.NumRows())
	for start := 0; start < n; start += maxWriteRows {
		end := min(n, start+maxWriteRows)
		if need := (end - start) * w.rowSize(); cap(w.buf) < need {
			w.buf = alignedBuf(need)
		}
		buf, err := encode(rec, start, end, w.buf[:0])
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
	if w.rowSize() == 0 && !w.zeroD {
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
func WriteMappedNPY(w io.WriteSeeker, rr array.RecordReader, m *Mapping) (int64, error) {
	nw, err := NewMappedNPYWriter(w, m)
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

// ScanRecords gives every record of rr to m.Scan. It does not release rr.
func ScanRecords(m *Mapping, rr array.RecordReader) error {
	for rr.Next() {
		if err := m.Scan(rr.RecordBatch()); err != nil {
			return err
		}
	}
	return rr.Err()
}
