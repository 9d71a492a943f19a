package arrowconv

import (
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
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
// Errors are sticky. Close finishes the file but does not close w.
type NPYWriter struct {
	w       *npyio.Writer
	schema  *arrow.Schema
	dt      *npyio.DType
	cols    []wcol
	rowSize int
	zeroD   bool // a 0-d array: exactly one row
	rows    int64
	buf     []byte
	err     error
}

type wcol struct {
	path string
	dt   *npyio.DType
	list []dim // layout of a list column's elements within a row; nil for scalars
	off  int
}

func listDims(shape []int, size int) []dim {
	if len(shape) == 0 {
		return nil
	}
	n := 1
	for _, d := range shape {
		n *= d
	}
	return []dim{{n, size}}
}

// maxWriteRows bounds the rows converted at once.
const maxWriteRows = 64 << 10

// NewNPYWriter starts an .npy file on w for records of schema. The header
// is rewritten with the row count on Close, so w must be seekable. A schema
// from a 0-d array (numpy.shape metadata "[]") gives a 0-d array again and
// needs exactly one row.
func NewNPYWriter(w io.WriteSeeker, schema *arrow.Schema, opts *WriteOptions) (*NPYWriter, error) {
	dt, rowShape, perField, err := dtypeFor(schema, opts)
	if err != nil {
		return nil, err
	}
	nw := &NPYWriter{schema: schema, dt: dt}
	if !perField {
		nw.cols = []wcol{{path: schema.Field(0).Name, dt: dt, list: listDims(rowShape, dt.Size)}}
	} else {
		for i := range dt.Fields {
			f := &dt.Fields[i]
			list := append(listDims(rowShape, dt.Size), listDims(f.Shape, f.Type.Size)...)
			nw.cols = append(nw.cols, wcol{path: f.Name, dt: f.Type, list: list, off: f.Offset})
		}
	}
	if s, ok := schema.Metadata().GetValue(MetaShape); ok && len(rowShape) == 0 {
		if shape, err := parseShapeJSON(s); err == nil && len(shape) == 0 {
			nw.zeroD = true
		}
	}
	if nw.zeroD {
		nw.w, err = npyio.NewWriter(w, &npyio.Header{DType: dt, Shape: []int{}})
	} else {
		nw.w, err = npyio.NewStreamWriter(w, dt, rowShape)
	}
	if err != nil {
		return nil, err
	}
	nw.rowSize = int(nw.w.Header().RowSize())
	return nw, nil
}

// DType returns the numpy dtype being written.
func (w *NPYWriter) DType() *npyio.DType { return w.dt }

// Rows returns the number of rows written so far.
func (w *NPYWriter) Rows() int64 { return w.rows }

// Write appends the rows of rec, whose schema must have the writer's
// column types.
func (w *NPYWriter) Write(rec arrow.RecordBatch) error {
	if w.err != nil {
		return w.err
	}
	if int(rec.NumCols()) != len(w.cols) {
		w.err = fmt.Errorf("arrowconv: record has %d columns, the .npy has %d", rec.NumCols(), len(w.cols))
		return w.err
	}
	for i, f := range rec.Schema().Fields() {
		if !arrow.TypeEqual(f.Type, w.schema.Field(i).Type) {
			w.err = fmt.Errorf("arrowconv: record column %d (%q) is %s, the writer's schema says %s", i, f.Name, f.Type, w.schema.Field(i).Type)
			return w.err
		}
	}
	n := int(rec.NumRows())
	for start := 0; start < n; start += maxWriteRows {
		end := min(n, start+maxWriteRows)
		if err := w.writeRows(rec, start, end); err != nil {
			w.err = err
			return err
		}
	}
	return nil
}

func (w *NPYWriter) writeRows(rec arrow.RecordBatch, start, end int) error {
	n := end - start
	need := n * w.rowSize
	if cap(w.buf) < need {
		w.buf = alignedBuf(need)
	}
	buf := w.buf[:need]
	clear(buf)
	for k, c := range w.cols {
		col := rec.Column(k)
		if start > 0 || end < col.Len() {
			col = array.NewSlice(col, int64(start), int64(end))
			defer col.Release()
		}
		lay := layout{data: buf, base: c.off, dims: []dim{{n, w.rowSize}}}
		if err := w.put(col, c.dt, c.list, lay, c.path, w.rows+int64(start)); err != nil {
			return err
		}
	}
	if _, err := w.w.Write(buf); err != nil {
		return err
	}
	w.rows += int64(n)
	return nil
}

func alignedBuf(n int) []byte {
	u := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(u))), len(u)*8)
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
	if w.rowSize == 0 && !w.zeroD {
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

// put writes the values of arr, elements of dt (in a fixed-size list whose
// elements are laid out by list, if list is not nil) at the positions lay
// gives (one per value of arr). row0 is the row of
// arr's first value, for errors.
func (w *NPYWriter) put(arr arrow.Array, dt *npyio.DType, list []dim, lay layout, path string, row0 int64) error {
	n := arr.Len()
	rowOf := func(i int) int64 {
		per := max(n/max(lay.dims[0].count, 1), 1)
		return row0 + int64(i/per)
	}
	fail := func(i int, format string, args ...any) error {
		return &ValueError{Field: path, Row: rowOf(i), Err: fmt.Errorf(format, args...)}
	}
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	if list != nil {
		l, ok := arr.(*array.FixedSizeList)
		if !ok {
			return fmt.Errorf("arrowconv: column %q is %s, not a fixed-size list", path, arr.DataType())
		}
		if l.NullN() > 0 {
			for i := 0; i < n; i++ {
				if l.IsNull(i) {
					return fail(i, "null subarray: numpy has no nulls")
				}
			}
		}
		count := 1
		for _, d := range list {
			count *= d.count
		}
		if int(l.DataType().(*arrow.FixedSizeListType).Len()) != count {
			return fmt.Errorf("arrowconv: column %q has lists of %d values, the numpy shape needs %d", path, l.DataType().(*arrow.FixedSizeListType).Len(), count)
		}
		start := int64(l.Offset()) * int64(count)
		vals := array.NewSlice(l.ListValues(), start, start+int64(n*count))
		defer vals.Release()
		return w.put(vals, dt, nil, lay.sub(0, list...), path, row0)
	}
	if dt.Kind == npyio.Struct || dt.Kind == npyio.Complex {
		s, ok := arr.(*array.Struct)
		if !ok {
			return fmt.Errorf("arrowconv: column %q is %s, not a struct", path, arr.DataType())
		}
		for i := 0; i < n && s.NullN() > 0; i++ {
			if s.IsNull(i) {
				return fail(i, "null struct: numpy has no nulls")
			}
		}
		if dt.Kind == npyio.Complex {
			part := &npyio.DType{Kind: npyio.Float, Order: npyio.NativeOrder, Size: dt.Size / 2}
			if err := w.put(s.Field(0), part, nil, lay, path+".real", row0); err != nil {
				return err
			}
			return w.put(s.Field(1), part, nil, lay.sub(dt.Size/2), path+".imag", row0)
		}
		for k := range dt.Fields {
			f := &dt.Fields[k]
			if err := w.put(s.Field(k), f.Type, listDims(f.Shape, f.Type.Size), lay.sub(f.Offset), path+"."+f.Name, row0); err != nil {
				return err
			}
		}
		return nil
	}
	if n == 0 {
		return nil
	}
	dims := coalesce(lay.dims)
	esize := dt.Size
	switch dt.Kind {
	case npyio.Bool:
		a, ok := arr.(*array.Boolean)
		if !ok {
			return fmt.Errorf("arrowconv: column %q is %s, not boolean", path, arr.DataType())
		}
		src := make([]byte, n)
		for i := range src {
			if a.IsNull(i) {
				return fail(i, "null boolean: numpy has no nulls")
			}
			if a.Value(i) {
				src[i] = 1
			}
		}
		scatter(lay.data, lay.base, dims, src, 1)
	case npyio.Int, npyio.Uint, npyio.Float:
		fw, ok := arr.DataType().(arrow.FixedWidthDataType)
		if !ok || fw.BitWidth() != 8*esize {
			return fmt.Errorf("arrowconv: column %q is %s, not a %d-byte number", path, arr.DataType(), esize)
		}
		src := arr.Data().Buffers()[1].Bytes()[arr.Data().Offset()*esize:][:n*esize]
		if arr.NullN() > 0 {
			if dt.Kind != npyio.Float {
				for i := 0; i < n; i++ {
					if arr.IsNull(i) {
						return fail(i, "null integer: numpy has no nulls (use a float or datetime column)")
					}
				}
			}
			src = append([]byte(nil), src...)
			for i := 0; i < n; i++ {
				if arr.IsNull(i) {
					putNaN(src[i*esize:], esize)
				}
			}
		}
		scatter(lay.data, lay.base, dims, src, esize)
	case npyio.Datetime, npyio.Timedelta:
		tc, err := timeMapping(dt)
		if err != nil {
			return err
		}
		vals, err := int64Values(arr)
		if err != nil {
			return fmt.Errorf("arrowconv: column %q: %w", path, err)
		}
		out := make([]int64, n)
		for i, v := range vals {
			switch {
			case arr.IsNull(i):
				out[i] = nat
			case v%tc.factor != 0:
				return fail(i, "%w: %d %s is not a whole number of numpy %s units", ErrRange, v, arr.DataType(), dt.TypeStr())
			default:
				out[i] = v / tc.factor
				if out[i] == nat {
					return fail(i, "%w: %d is numpy's NaT", ErrRange, v)
				}
			}
		}
		scatter(lay.data, lay.base, dims, npyio.AsBytes(out), 8)
	case npyio.Bytes, npyio.Unicode, npyio.Void:
		get, err := bytesGetter(arr)
		if err != nil {
			return fmt.Errorf("arrowconv: column %q: %w", path, err)
		}
		src := make([]byte, n*esize)
		for i := 0; i < n; i++ {
			if arr.IsNull(i) {
				return fail(i, "null string: numpy has no nulls")
			}
			v := get(i)
			dst := src[i*esize : (i+1)*esize]
			switch dt.Kind {
			case npyio.Unicode:
				k := 0
				for len(v) > 0 {
					r, size := utf8.DecodeRune(v)
					if r == utf8.RuneError && size <= 1 {
						return fail(i, "%w: invalid UTF-8", ErrRange)
					}
					if k+4 > esize {
						return fail(i, "%w: string of %d characters does not fit %s", ErrRange, utf8.RuneCount(get(i)), dt.TypeStr())
					}
					*(*uint32)(unsafe.Pointer(&dst[k])) = uint32(r)
					k += 4
					v = v[size:]
				}
			case npyio.Bytes:
				if len(v) > esize {
					return fail(i, "%w: %d bytes do not fit %s", ErrRange, len(v), dt.TypeStr())
				}
				copy(dst, v)
			default:
				if len(v) != esize {
					return fail(i, "%w: %d bytes for %s", ErrRange, len(v), dt.TypeStr())
				}
				copy(dst, v)
			}
		}
		scatter(lay.data, lay.base, dims, src, esize)
	default:
		return &UnsupportedError{DType: dt.String(), Msg: "cannot be written"}
	}
	return nil
}

func putNaN(b []byte, size int) {
	switch size {
	case 2:
		*(*uint16)(unsafe.Pointer(&b[0])) = float16.NaN().Uint16()
	case 4:
		*(*float32)(unsafe.Pointer(&b[0])) = float32(math.NaN())
	case 8:
		*(*float64)(unsafe.Pointer(&b[0])) = math.NaN()
	}
}

// int64Values returns the values of a temporal array as int64 in its own
// unit (days for Date32).
func int64Values(arr arrow.Array) ([]int64, error) {
	out := make([]int64, arr.Len())
	switch a := arr.(type) {
	case *array.Timestamp:
		for i, v := range a.TimestampValues() {
			out[i] = int64(v)
		}
	case *array.Duration:
		for i, v := range a.DurationValues() {
			out[i] = int64(v)
		}
	case *array.Date32:
		for i, v := range a.Date32Values() {
			out[i] = int64(v)
		}
	case *array.Date64:
		for i, v := range a.Date64Values() {
			out[i] = int64(v)
		}
	default:
		return nil, fmt.Errorf("%s is not a timestamp, duration or date", arr.DataType())
	}
	return out, nil
}

// bytesGetter returns a function giving the bytes of value i of a string
// or binary array, without copying.
func bytesGetter(arr arrow.Array) (func(int) []byte, error) {
	str := func(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
	switch a := arr.(type) {
	case *array.String:
		return func(i int) []byte { return str(a.Value(i)) }, nil
	case *array.LargeString:
		return func(i int) []byte { return str(a.Value(i)) }, nil
	case *array.StringView:
		return func(i int) []byte { return str(a.Value(i)) }, nil
	case *array.Binary:
		return a.Value, nil
	case *array.LargeBinary:
		return a.Value, nil
	case *array.BinaryView:
		return a.Value, nil
	case *array.FixedSizeBinary:
		return a.Value, nil
	}
	return nil, fmt.Errorf("%s is not a string or binary type", arr.DataType())
}

// scatter is the inverse of gather: it copies packed values of esize
// bytes from src to the positions dims give in dst[base:].
func scatter(dst []byte, base int, dims []dim, src []byte, esize int) int {
	switch len(dims) {
	case 0:
		return copy(dst[base:base+esize], src[:esize])
	case 1:
		d := dims[0]
		if d.stride == esize {
			return copy(dst[base:base+d.count*esize], src[:d.count*esize])
		}
		scatterStrided(dst, base, d.count, d.stride, src[:d.count*esize], esize)
		return d.count * esize
	}
	r := 0
	for i := 0; i < dims[0].count; i++ {
		r += scatter(dst, base+i*dims[0].stride, dims[1:], src[r:], esize)
	}
	return r
}

func scatterStrided(dst []byte, base, count, stride int, src []byte, esize int) {
	last := base + (count-1)*stride + esize
	_ = dst[last-1]
	p := unsafe.Pointer(&dst[base])
	switch esize {
	case 8:
		s := unsafe.Slice((*[8]byte)(unsafe.Pointer(&src[0])), count)
		for i := range s {
			*(*[8]byte)(unsafe.Add(p, i*stride)) = s[i]
		}
	case 4:
		s := unsafe.Slice((*[4]byte)(unsafe.Pointer(&src[0])), count)
		for i := range s {
			*(*[4]byte)(unsafe.Add(p, i*stride)) = s[i]
		}
	case 2:
		s := unsafe.Slice((*[2]byte)(unsafe.Pointer(&src[0])), count)
		for i := range s {
			*(*[2]byte)(unsafe.Add(p, i*stride)) = s[i]
		}
	case 1:
		for i := range count {
			*(*byte)(unsafe.Add(p, i*stride)) = src[i]
		}
	default:
		for i := range count {
			copy(dst[base+i*stride:base+i*stride+esize], src[i*esize:])
		}
	}
}
