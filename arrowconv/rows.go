package arrowconv

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/npyflow/npyflow/npyio"
)

// RowEncoder converts Arrow record batches to numpy rows in memory: the
// bytes npyio's Reader would return for the array [DTypeFor] describes,
// that is its elements in native byte order and logical C order, bools as
// 0/1, struct padding zeroed, for callers that want rows without a .npy
// file (streaming into npyio writers, .npz members, pipelines).
//
// It is a thin wrapper of the [Mapping] that [NewRowEncoder] builds, for
// a schema whose every width is known before the data is seen. Values are
// converted as [MapSchema] documents, and as [NPYWriter] does: nulls
// become NaT in datetime columns and NaN in float columns and are a
// [ValueError] elsewhere; a time value that is not a whole number of the
// numpy unit, a string longer than the numpy width or invalid UTF-8 is a
// ValueError too. A RowEncoder keeps scratch memory between calls and is
// not safe for concurrent use.
type RowEncoder struct {
	m *Mapping
}

// NewRowEncoder returns an encoder of records of schema, whose columns
// must map to numpy types (see [DTypeFor]; opts may be nil).
//
// Columns map as [MapSchema] maps them, with default options, and with
// the rules npyflow's own schemas need: numpy metadata gives the exact
// type (and, for a whole structured array, its padding, row shape and
// 0-d-ness), struct<real, imag> of floats is a complex, and string and
// binary columns without metadata take the width opts.StringChars (they
// are refused without it: use MapSchema and [Mapping.Scan] to find widths
// from the data).
func NewRowEncoder(schema *arrow.Schema, opts *WriteOptions) (*RowEncoder, error) {
	var mo MapOptions
	if opts != nil && opts.StringChars > 0 && schema != nil {
		mo.StringWidths = map[string]int{}
		for _, f := range schema.Fields() {
			mo.StringWidths[f.Name] = opts.StringChars
		}
	}
	m, err := newMapping(schema, &mo, true)
	if err != nil {
		return nil, err
	}
	if m.NeedsScan() {
		return nil, m.scanRefusal()
	}
	return &RowEncoder{m: m}, nil
}

// scanRefusal is NewRowEncoder's error for a mapping that needs a Scan:
// the first column whose width or length only the data gives.
func (m *Mapping) scanRefusal() error {
	for _, c := range m.cols {
		for nd := c; nd != nil; {
			switch {
			case nd.kind == mString || nd.kind == mBinary:
				what := "string"
				if nd.kind == mBinary {
					what = "binary"
				}
				return &UnsupportedError{Column: nd.path, DType: nd.atype.String(), Msg: "a " + what + " column without numpy.descr metadata needs a width (WriteOptions.StringChars)"}
			case nd.kind == mList && nd.listLen < 0:
				return &UnsupportedError{Column: nd.path, DType: nd.atype.String(), Msg: "the length of these lists comes from the data: map them with MapSchema and Mapping.Scan"}
			}
			next := (*mnode)(nil)
			for _, ch := range nd.children {
				if ch.needsScan() {
					next = ch
					break
				}
			}
			nd = next
		}
	}
	return errors.New("arrowconv: the schema needs a scan of the data")
}

// Schema returns the Arrow schema the encoder was made for.
func (e *RowEncoder) Schema() *arrow.Schema { return e.m.schema }

// DType returns the numpy dtype of the rows, as [DTypeFor] gives it: its
// byte order is the one to write to a file (the source's, when the schema
// carries numpy metadata); the encoded bytes are always in native order,
// that is, laid out as DType().Native().
func (e *RowEncoder) DType() *npyio.DType { return e.m.dt }

// RowShape returns the shape of one row (the array's axes after the
// first); nil for one element per row.
func (e *RowEncoder) RowShape() []int { return e.m.RowShape() }

// RowSize returns the size of one encoded row in bytes.
func (e *RowEncoder) RowSize() int { return e.m.rowSize }

// ZeroD reports whether the schema describes a 0-d numpy array (numpy.shape
// metadata "[]"): its single row is the whole array.
func (e *RowEncoder) ZeroD() bool { return e.m.zeroD && len(e.m.shape) == 0 }

// Header returns the .npy header of an array of rows rows of the encoder's
// dtype and row shape (shape () for a 0-d array).
func (e *RowEncoder) Header(rows int64) *npyio.Header {
	h, _ := e.m.Header(rows) // the mapping is frozen: no error
	return h
}

// Rows returns the number of rows encoded so far; rows in a [ValueError]
// count from the first row encoded.
func (e *RowEncoder) Rows() int64 { return e.m.rows }

// Encode appends the rows of rec to dst and returns the extended slice. On
// error dst's contents beyond its length are unspecified.
func (e *RowEncoder) Encode(rec arrow.RecordBatch, dst []byte) ([]byte, error) {
	return e.m.EncodeRows(rec, 0, int(rec.NumRows()), dst)
}

// EncodeRows appends rows [start, end) of rec to dst and returns the
// extended slice; if cap(dst) has room, no memory is allocated for the
// output. rec's schema must have the encoder's column types.
func (e *RowEncoder) EncodeRows(rec arrow.RecordBatch, start, end int, dst []byte) ([]byte, error) {
	return e.m.EncodeRows(rec, start, end, dst)
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

func alignedBuf(n int) []byte {
	u := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(u))), len(u)*8)
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
