package arrowconv

import (
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/npyflow/npyflow/npyio"
)

// RowEncoder converts Arrow record batches to numpy rows in memory: the
// bytes npyio's Reader would return for the array [DTypeFor] describes,
// that is its elements in native byte order and logical C order, bools as
// 0/1, struct padding zeroed. It is the engine of [NPYWriter], for callers
// that want rows without a .npy file (streaming into npyio writers, .npz
// members, pipelines).
//
// Values are converted exactly or refused, as [NPYWriter] documents: nulls
// become NaT in datetime columns and NaN in float columns and are an error
// elsewhere; a time value that is not a whole number of the numpy unit, a
// string longer than the numpy width or invalid UTF-8 is a [ValueError].
// A RowEncoder keeps scratch memory between calls and is not safe for
// concurrent use.
type RowEncoder struct {
	schema   *arrow.Schema
	dt       *npyio.DType
	rowShape []int
	cols     []wcol
	rowSize  int
	zeroD    bool // a 0-d array: exactly one row
	dense    bool // every byte of a row is written by some column
	rows     int64
	scratch  []byte
	m        *Mapping // a schema only MapSchema maps (decimals, dictionaries, ...)
}

// wcol is one top-level column: where its values go within a row.
type wcol struct {
	path string
	dt   *npyio.DType
	list []dim // layout of a list column's elements within a row; nil for scalars
	off  int
}

// NewRowEncoder returns an encoder of records of schema, whose columns
// must map to numpy types (see [DTypeFor]; opts may be nil).
//
// Schemas with types only [MapSchema] maps (decimals, dictionaries, time
// of day, intervals, lists of one length, ...) are encoded by a
// [Mapping] with default options (string and binary columns then take
// the width opts.StringChars); use MapSchema directly for its options
// and for string widths found by a scan.
func NewRowEncoder(schema *arrow.Schema, opts *WriteOptions) (*RowEncoder, error) {
	dt, rowShape, perField, err := dtypeFor(schema, opts)
	if err != nil {
		if m := fallbackMapping(schema, opts); m != nil {
			return &RowEncoder{schema: schema, dt: m.dt, rowShape: m.shape, rowSize: m.rowSize, m: m}, nil
		}
		return nil, err
	}
	e := &RowEncoder{schema: schema, dt: dt, rowShape: rowShape}
	if !perField {
		e.cols = []wcol{{path: schema.Field(0).Name, dt: dt, list: listDims(rowShape, dt.Size)}}
	} else {
		for i := range dt.Fields {
			f := &dt.Fields[i]
			list := append(listDims(rowShape, dt.Size), listDims(f.Shape, f.Type.Size)...)
			e.cols = append(e.cols, wcol{path: f.Name, dt: f.Type, list: list, off: f.Offset})
		}
	}
	if s, ok := schema.Metadata().GetValue(MetaShape); ok && len(rowShape) == 0 {
		if shape, err := parseShapeJSON(s); err == nil && len(shape) == 0 {
			e.zeroD = true
		}
	}
	e.rowSize = dt.Size
	for _, d := range rowShape {
		e.rowSize *= d
	}
	e.dense = dense(dt)
	return e, nil
}

// fallbackMapping maps a schema the RowEncoder's own rules refuse, if
// MapSchema maps it without a scan.
func fallbackMapping(schema *arrow.Schema, opts *WriteOptions) *Mapping {
	if schema == nil || schema.NumFields() == 0 {
		return nil
	}
	var mo MapOptions
	if opts != nil && opts.StringChars > 0 {
		mo.StringWidths = map[string]int{}
		for _, f := range schema.Fields() {
			mo.StringWidths[f.Name] = opts.StringChars
		}
	}
	m, err := MapSchema(schema, &mo)
	if err != nil || m.NeedsScan() || m.legacy != nil {
		return nil
	}
	if _, err := m.DType(); err != nil {
		return nil
	}
	return m
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

// dense reports whether every byte of an element of dt is part of some
// value (a struct without padding), so rows need no clearing.
func dense(dt *npyio.DType) bool {
	if dt.Kind != npyio.Struct {
		return true
	}
	sum := 0
	for i := range dt.Fields {
		f := &dt.Fields[i]
		if !dense(f.Type) {
			return false
		}
		sum += f.Size()
	}
	return sum == dt.Size
}

// Schema returns the Arrow schema the encoder was made for.
func (e *RowEncoder) Schema() *arrow.Schema { return e.schema }

// DType returns the numpy dtype of the rows, as [DTypeFor] gives it: its
// byte order is the one to write to a file (the source's, when the schema
// carries numpy metadata); the encoded bytes are always in native order,
// that is, laid out as DType().Native().
func (e *RowEncoder) DType() *npyio.DType { return e.dt }

// RowShape returns the shape of one row (the array's axes after the
// first); nil for one element per row.
func (e *RowEncoder) RowShape() []int { return slices.Clone(e.rowShape) }

// RowSize returns the size of one encoded row in bytes.
func (e *RowEncoder) RowSize() int { return e.rowSize }

// ZeroD reports whether the schema describes a 0-d numpy array (numpy.shape
// metadata "[]"): its single row is the whole array.
func (e *RowEncoder) ZeroD() bool { return e.zeroD }

// Header returns the .npy header of an array of rows rows of the encoder's
// dtype and row shape (shape () for a 0-d array).
func (e *RowEncoder) Header(rows int64) *npyio.Header {
	if e.zeroD {
		return &npyio.Header{DType: e.dt, Shape: []int{}}
	}
	return &npyio.Header{DType: e.dt, Shape: append([]int{int(rows)}, e.rowShape...)}
}

// Rows returns the number of rows encoded so far; rows in a [ValueError]
// count from the first row encoded.
func (e *RowEncoder) Rows() int64 { return e.rows }

// Encode appends the rows of rec to dst and returns the extended slice. On
// error dst's contents beyond its length are unspecified.
func (e *RowEncoder) Encode(rec arrow.RecordBatch, dst []byte) ([]byte, error) {
	return e.EncodeRows(rec, 0, int(rec.NumRows()), dst)
}

// EncodeRows appends rows [start, end) of rec to dst and returns the
// extended slice; if cap(dst) has room, no memory is allocated for the
// output. rec's schema must have the encoder's column types.
func (e *RowEncoder) EncodeRows(rec arrow.RecordBatch, start, end int, dst []byte) (out []byte, err error) {
	if e.m != nil {
		out, err = e.m.EncodeRows(rec, start, end, dst)
		e.rows = e.m.rows
		return out, err
	}
	// Arrays read from a malformed IPC body can have buffers shorter than
	// their lengths claim; indexing them panics, which becomes an error.
	defer func() {
		if p := recover(); p != nil {
			out, err = dst, fmt.Errorf("arrowconv: malformed Arrow data: %v", p)
		}
	}()
	if err := e.check(rec); err != nil {
		return dst, err
	}
	if start < 0 || end < start || int64(end) > rec.NumRows() {
		return dst, fmt.Errorf("arrowconv: rows [%d, %d) are out of a record of %d rows", start, end, rec.NumRows())
	}
	n := end - start
	need := n * e.rowSize
	dst = slices.Grow(dst, need)
	buf := dst[len(dst) : len(dst)+need]
	if !e.dense {
		clear(buf)
	}
	if err := e.encodeTile(rec, start, end, buf, e.rows); err != nil {
		return dst, err
	}
	e.rows += int64(n)
	return dst[:len(dst)+need], nil
}

// encodeTile writes rows [start, end) of rec to buf; row0 numbers the
// first for errors.
func (e *RowEncoder) encodeTile(rec arrow.RecordBatch, start, end int, buf []byte, row0 int64) error {
	n := end - start
	for k, c := range e.cols {
		col := rec.Column(k)
		if start > 0 || end < col.Len() {
			col = array.NewSlice(col, int64(start), int64(end))
			defer col.Release()
		}
		lay := layout{data: buf, base: c.off, dims: []dim{{n, e.rowSize}}}
		if err := e.put(col, c.dt, c.list, lay, c.path, row0); err != nil {
			return err
		}
	}
	return nil
}

// check verifies that rec has the encoder's column types.
func (e *RowEncoder) check(rec arrow.RecordBatch) error {
	if e.m != nil {
		return e.m.check(rec)
	}
	if int(rec.NumCols()) != len(e.cols) {
		return fmt.Errorf("arrowconv: record has %d columns, the numpy rows have %d", rec.NumCols(), len(e.cols))
	}
	if rs := rec.Schema(); rs != e.schema {
		for i, f := range rs.Fields() {
			if !arrow.TypeEqual(f.Type, e.schema.Field(i).Type) {
				return fmt.Errorf("arrowconv: record column %d (%q) is %s, the schema says %s", i, f.Name, f.Type, e.schema.Field(i).Type)
			}
		}
	}
	return nil
}

// scratchBytes returns n bytes of 8-byte aligned scratch memory (not
// cleared), reused between calls.
func (e *RowEncoder) scratchBytes(n int) []byte {
	if cap(e.scratch) < n {
		e.scratch = alignedBuf(max(n, 2*cap(e.scratch)))
	}
	return e.scratch[:n]
}

func alignedBuf(n int) []byte {
	u := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(u))), len(u)*8)
}

// put writes the values of arr, elements of dt (in a fixed-size list whose
// elements are laid out by list, if list is not nil) at the positions lay
// gives (one per value of arr). row0 is the row of arr's first value, for
// errors.
func (e *RowEncoder) put(arr arrow.Array, dt *npyio.DType, list []dim, lay layout, path string, row0 int64) error {
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
		count := 1
		for _, d := range list {
			count *= d.count
		}
		// Nested fixed-size lists (a list of lists) flatten in C order.
		vals, m, got := arr, n, 1
		for got < count || vals == arr {
			if ext, ok := vals.(array.ExtensionArray); ok {
				vals = ext.Storage()
			}
			l, ok := vals.(*array.FixedSizeList)
			if !ok {
				if vals == arr {
					return fmt.Errorf("arrowconv: column %q is %s, not a fixed-size list", path, arr.DataType())
				}
				break
			}
			if l.NullN() > 0 {
				for i := 0; i < m; i++ {
					if l.IsNull(i) {
						return fail(i*n/max(m, 1), "null subarray: numpy has no nulls")
					}
				}
			}
			k := int(l.DataType().(*arrow.FixedSizeListType).Len())
			got *= k
			start := int64(l.Offset()) * int64(k)
			next := array.NewSlice(l.ListValues(), start, start+int64(m*k))
			defer next.Release()
			vals, m = next, m*k
			if k == 0 {
				break
			}
		}
		if got != count {
			return fmt.Errorf("arrowconv: column %q has lists of %d values, the numpy shape needs %d", path, got, count)
		}
		return e.put(vals, dt, nil, lay.sub(0, list...), path, row0)
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
			if err := e.put(s.Field(0), part, nil, lay, path+".real", row0); err != nil {
				return err
			}
			return e.put(s.Field(1), part, nil, lay.sub(dt.Size/2), path+".imag", row0)
		}
		for k := range dt.Fields {
			f := &dt.Fields[k]
			if err := e.put(s.Field(k), f.Type, listDims(f.Shape, f.Type.Size), lay.sub(f.Offset), path+"."+f.Name, row0); err != nil {
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
		if a.NullN() > 0 {
			for i := 0; i < n; i++ {
				if a.IsNull(i) {
					return fail(i, "null boolean: numpy has no nulls")
				}
			}
		}
		src := e.scratchBytes(n)
		unpackBits(src, a.Data().Buffers()[1].Bytes(), a.Data().Offset())
		scatter(lay.data, lay.base, dims, src, 1)
	case npyio.Int, npyio.Uint, npyio.Float:
		fw, ok := arr.DataType().(arrow.FixedWidthDataType)
		if !ok || fw.BitWidth() != 8*esize || arr.DataType().ID() == arrow.BOOL {
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
			buf := e.scratchBytes(len(src))
			copy(buf, src)
			src = buf
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
		if raw := rawInt64s(arr); raw != nil && tc.factor == 1 && arr.NullN() == 0 {
			// The common case (the unit of the column, no nulls): the
			// stored values are the numpy values; only NaT is refused.
			if i := indexNaT(raw); i >= 0 {
				return fail(i, "%w: %d is numpy's NaT", ErrRange, raw[i])
			}
			scatter(lay.data, lay.base, dims, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(raw))), 8*n), 8)
			return nil
		}
		vals, err := int64Values(arr)
		if err != nil {
			return fmt.Errorf("arrowconv: column %q: %w", path, err)
		}
		buf := e.scratchBytes(8 * n)
		out := unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(buf))), n)
		hasNull := arr.NullN() > 0
		for i := range out {
			v := vals(i)
			switch {
			case hasNull && arr.IsNull(i):
				out[i] = nat
			case tc.factor == 1:
				if v == nat {
					return fail(i, "%w: %d is numpy's NaT", ErrRange, v)
				}
				out[i] = v
			case v%tc.factor != 0:
				return fail(i, "%w: %d %s is not a whole number of numpy %s units", ErrRange, v, arr.DataType(), dt.TypeStr())
			default:
				out[i] = v / tc.factor
			}
		}
		scatter(lay.data, lay.base, dims, buf, 8)
	case npyio.Bytes, npyio.Unicode, npyio.Void:
		get, err := bytesGetter(arr)
		if err != nil {
			return fmt.Errorf("arrowconv: column %q: %w", path, err)
		}
		src := e.scratchBytes(n * esize)
		clear(src)
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
					r, size := rune(v[0]), 1
					if r >= utf8.RuneSelf {
						r, size = utf8.DecodeRune(v)
						if r == utf8.RuneError && size <= 1 {
							return fail(i, "%w: invalid UTF-8", ErrRange)
						}
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

// unpackBits writes bit off+i of the LSB-first bitmap bits as byte 0 or 1
// to dst[i], for every i of dst.
func unpackBits(dst, bits []byte, off int) {
	i := 0
	// Leading bits up to a byte boundary.
	for ; i < len(dst) && (off+i)%8 != 0; i++ {
		dst[i] = (bits[(off+i)/8] >> ((off + i) % 8)) & 1
	}
	// Whole bytes: eight output bytes from one input byte.
	for ; i+8 <= len(dst); i += 8 {
		b := uint64(bits[(off+i)/8])
		// Spread the 8 bits to the low bit of 8 bytes (little-endian order).
		x := (b | b<<28) & 0x0000000f0000000f
		x = (x | x<<14) & 0x0003000300030003
		x = (x | x<<7) & 0x0101010101010101
		if npyio.NativeOrder == npyio.BigEndian {
			x = reverseBytes(x)
		}
		*(*uint64)(unsafe.Pointer(&dst[i])) = x
	}
	for ; i < len(dst); i++ {
		dst[i] = (bits[(off+i)/8] >> ((off + i) % 8)) & 1
	}
}

func reverseBytes(x uint64) uint64 {
	var r uint64
	for k := 0; k < 8; k++ {
		r = r<<8 | x&0xff
		x >>= 8
	}
	return r
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

// int64Values returns a function giving value i of a temporal array as an
// int64 in its own unit (days for Date32).
func int64Values(arr arrow.Array) (func(int) int64, error) {
	switch a := arr.(type) {
	case *array.Timestamp:
		v := a.TimestampValues()
		return func(i int) int64 { return int64(v[i]) }, nil
	case *array.Duration:
		v := a.DurationValues()
		return func(i int) int64 { return int64(v[i]) }, nil
	case *array.Date32:
		v := a.Date32Values()
		return func(i int) int64 { return int64(v[i]) }, nil
	case *array.Date64:
		v := a.Date64Values()
		return func(i int) int64 { return int64(v[i]) }, nil
	}
	return nil, fmt.Errorf("%s is not a timestamp, duration or date", arr.DataType())
}

// rawInt64s returns the values of a timestamp, duration or date64 array
// as stored (offset applied), or nil for any other array.
func rawInt64s(arr arrow.Array) []int64 {
	var v []int64
	switch a := arr.(type) {
	case *array.Timestamp:
		v = arrow.Int64Traits.CastFromBytes(a.Data().Buffers()[1].Bytes())
	case *array.Duration:
		v = arrow.Int64Traits.CastFromBytes(a.Data().Buffers()[1].Bytes())
	case *array.Date64:
		v = arrow.Int64Traits.CastFromBytes(a.Data().Buffers()[1].Bytes())
	default:
		return nil
	}
	off := arr.Data().Offset()
	return v[off : off+arr.Len() : off+arr.Len()]
}

// indexNaT returns the index of the first NaT (math.MinInt64) in v, or -1.
func indexNaT(v []int64) int {
	// Eight at a time: NaT is rare, so the loop seldom leaves the fast test.
	i := 0
	for ; i+8 <= len(v); i += 8 {
		w := v[i : i+8 : i+8]
		if w[0] == nat || w[1] == nat || w[2] == nat || w[3] == nat ||
			w[4] == nat || w[5] == nat || w[6] == nat || w[7] == nat {
			break
		}
	}
	for ; i < len(v); i++ {
		if v[i] == nat {
			return i
		}
	}
	return -1
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
	if count == 0 {
		return
	}
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
	case 12:
		scatterArr[[12]byte](p, src, count, stride)
	case 16:
		scatterArr[[16]byte](p, src, count, stride)
	case 32:
		scatterArr[[32]byte](p, src, count, stride)
	default:
		for i := range count {
			copy(dst[base+i*stride:base+i*stride+esize], src[i*esize:])
		}
	}
}

// scatterArr copies count values of type T (a byte array) from src to p,
// stride bytes apart. The caller has checked the bounds.
func scatterArr[T any](p unsafe.Pointer, src []byte, count, stride int) {
	s := unsafe.Slice((*T)(unsafe.Pointer(&src[0])), count)
	for i := range s {
		*(*T)(unsafe.Add(p, i*stride)) = s[i]
	}
}
