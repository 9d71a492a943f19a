package arrowconv

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/npyio"
)

// nodeKind says how one Arrow array is built from numpy element bytes.
type nodeKind uint8

const (
	kFixed   nodeKind = iota // fixed-width values used as they are (ints, floats, V, s..ns times)
	kTime                    // int64 times scaled by a factor, NaT -> null
	kDate32                  // int64 days (times a factor) -> int32, NaT -> null
	kBool                    // bytes -> bits
	kBytes                   // S<n> -> Binary
	kUnicode                 // U<n> -> String
	kList                    // subarray -> FixedSizeList (maybe a fixed_shape_tensor)
	kStruct                  // struct or complex -> Struct
)

// node is the conversion plan of one Arrow array: compiled once per schema
// and applied to every batch.
type node struct {
	kind     nodeKind
	typ      arrow.DataType
	path     string // column path for errors
	size     int    // numpy element size in bytes (list: element of the child)
	off      int    // byte offset of this value within its parent element
	count    int    // kList: elements per value
	dims     []dim  // kList: layout of the elements within a value
	time     timeConv
	children []*node
}

// compileField compiles the plan for a numpy value of type dt with
// subarray shape shape.
func compileField(dt *npyio.DType, shape []int, path string, depth int) (*node, error) {
	elem, err := compileElem(dt, path, depth)
	if err != nil {
		return nil, err
	}
	if len(shape) == 0 {
		return elem, nil
	}
	typ, err := wrapShape(elem.typ, shape, dt)
	if err != nil {
		return nil, err
	}
	n := 1
	for _, d := range shape {
		n *= d
	}
	return &node{kind: kList, typ: typ, path: path, size: dt.Size, count: n, dims: []dim{{n, dt.Size}}, children: []*node{elem}}, nil
}

// compileColumn compiles the plan of one top-level column: a value of type
// dt with subarray shape fshape at offset off of each element, where a row
// is rowShape elements of elemSize bytes (the array's axes after axis 0).
func compileColumn(dt *npyio.DType, fshape, rowShape []int, off, elemSize int, path string) (*node, error) {
	nd, err := compileField(dt, fshape, path, 0)
	if err != nil {
		return nil, err
	}
	nd.off = off
	if len(rowShape) == 0 {
		return nd, nil
	}
	rows := 1
	for _, d := range rowShape {
		rows *= d
	}
	elem, count := nd, rows
	dims := []dim{{rows, elemSize}}
	if len(fshape) > 0 {
		elem, count = nd.children[0], rows*nd.count
		dims = append(dims, nd.dims...)
	}
	typ, err := wrapShape(elem.typ, concatShape(rowShape, fshape), dt)
	if err != nil {
		return nil, err
	}
	elem.off = 0
	return &node{kind: kList, typ: typ, path: path, size: dt.Size, off: off, count: count, dims: dims, children: []*node{elem}}, nil
}

func compileElem(dt *npyio.DType, path string, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, &UnsupportedError{DType: dt.String(), Msg: "structs nested too deeply"}
	}
	nd := &node{path: path, size: dt.Size}
	unsupported := func(msg string) (*node, error) {
		return nil, &UnsupportedError{DType: dt.TypeStr(), Msg: msg}
	}
	switch dt.Kind {
	case npyio.Bool:
		nd.kind, nd.typ = kBool, arrow.FixedWidthTypes.Boolean
	case npyio.Int, npyio.Uint:
		var ok bool
		nd.kind = kFixed
		nd.typ, ok = intTypes[intKey{dt.Kind == npyio.Int, dt.Size}]
		if !ok {
			return unsupported("integer size must be 1, 2, 4 or 8")
		}
	case npyio.Float:
		nd.kind = kFixed
		switch dt.Size {
		case 2:
			nd.typ = arrow.FixedWidthTypes.Float16
		case 4:
			nd.typ = arrow.PrimitiveTypes.Float32
		case 8:
			nd.typ = arrow.PrimitiveTypes.Float64
		default:
			return unsupported("long double has no portable layout")
		}
	case npyio.Complex:
		var part arrow.DataType
		switch dt.Size {
		case 8:
			part = arrow.PrimitiveTypes.Float32
		case 16:
			part = arrow.PrimitiveTypes.Float64
		default:
			return unsupported("long double complex has no portable layout")
		}
		h := dt.Size / 2
		nd.kind, nd.typ = kStruct, complexType(part)
		nd.children = []*node{
			{kind: kFixed, typ: part, path: path + ".real", size: h},
			{kind: kFixed, typ: part, path: path + ".imag", size: h, off: h},
		}
	case npyio.Bytes:
		nd.kind, nd.typ = kBytes, arrow.BinaryTypes.Binary
	case npyio.Unicode:
		nd.kind, nd.typ = kUnicode, arrow.BinaryTypes.String
	case npyio.Void:
		if dt.Size == 0 {
			// Arrow has no zero-width FixedSizeBinary: V0 values are
			// empty Binary values.
			nd.kind, nd.typ = kBytes, arrow.BinaryTypes.Binary
			break
		}
		nd.kind, nd.typ = kFixed, &arrow.FixedSizeBinaryType{ByteWidth: dt.Size}
	case npyio.Datetime, npyio.Timedelta:
		tc, err := timeMapping(dt)
		if err != nil {
			return nil, err
		}
		nd.typ, nd.time = tc.typ, tc
		switch {
		case tc.date32:
			nd.kind = kDate32
		case tc.factor == 1:
			nd.kind = kFixed // values as they are, plus a validity bitmap for NaT
		default:
			nd.kind = kTime
		}
	case npyio.Struct:
		fields := make([]arrow.Field, 0, len(dt.Fields))
		nd.kind = kStruct
		for i := range dt.Fields {
			f := &dt.Fields[i]
			child, err := compileField(f.Type, f.Shape, path+"."+f.Name, depth+1)
			if err != nil {
				return nil, err
			}
			child.off = f.Offset
			nd.children = append(nd.children, child)
			fields = append(fields, arrow.Field{Name: f.Name, Type: child.typ, Nullable: true, Metadata: fieldMeta(f.Type, f.Shape, f.Title)})
		}
		nd.typ = arrow.StructOf(fields...)
	case npyio.Object:
		return unsupported("object arrays hold pickled Python data")
	default:
		return unsupported("unknown numpy type")
	}
	return nd, nil
}

type intKey struct {
	signed bool
	size   int
}

var intTypes = map[intKey]arrow.DataType{
	{true, 1}: arrow.PrimitiveTypes.Int8, {true, 2}: arrow.PrimitiveTypes.Int16,
	{true, 4}: arrow.PrimitiveTypes.Int32, {true, 8}: arrow.PrimitiveTypes.Int64,
	{false, 1}: arrow.PrimitiveTypes.Uint8, {false, 2}: arrow.PrimitiveTypes.Uint16,
	{false, 4}: arrow.PrimitiveTypes.Uint32, {false, 8}: arrow.PrimitiveTypes.Uint64,
}

// isTime reports whether a kFixed node holds int64 times (and so needs a
// validity bitmap for NaT).
func (nd *node) isTime() bool { return nd.time.typ != nil }

// sharesRow reports whether the node's values, for rows of rowSize bytes,
// are exactly the row bytes in order, so that a batch buffer can back the
// column without a copy.
func (nd *node) sharesRow(rowSize int) bool {
	switch nd.kind {
	case kFixed:
		return nd.size == rowSize && nd.off == 0
	case kList:
		d := coalesce(nd.dims)
		return nd.off == 0 && nd.count*nd.size == rowSize && nd.children[0].sharesRow(nd.size) &&
			(len(d) == 0 || len(d) == 1 && d[0].stride == nd.size)
	}
	return false
}

// dim is one axis of a strided layout: count values, stride bytes apart.
type dim struct{ count, stride int }

// layout locates n values of one node in a byte slice: value i (in C order
// over dims) starts at base + sum(idx_k * stride_k).
type layout struct {
	data   []byte
	parent *memory.Buffer // backs data (for zero-copy slices); nil if data is transient
	base   int
	dims   []dim
}

func (l layout) len() int {
	n := 1
	for _, d := range l.dims {
		n *= d.count
	}
	return n
}

func (l layout) sub(off int, extra ...dim) layout {
	dims := l.dims
	if len(extra) > 0 {
		dims = append(append(make([]dim, 0, len(l.dims)+len(extra)), l.dims...), extra...)
	}
	return layout{data: l.data, parent: l.parent, base: l.base + off, dims: dims}
}

// coalesce drops unit axes and merges axes that are contiguous with the
// next one.
func coalesce(dims []dim) []dim {
	out := make([]dim, 0, len(dims))
	for _, d := range dims {
		if d.count == 1 {
			continue
		}
		if d.count == 0 {
			return []dim{{0, 0}}
		}
		out = append(out, d)
	}
	for i := len(out) - 1; i > 0; i-- {
		in, o := out[i], out[i-1]
		if o.stride == in.count*in.stride {
			out[i-1] = dim{o.count * in.count, in.stride}
			out = append(out[:i], out[i+1:]...)
		}
	}
	return out
}

// builder applies plans to batches.
type builder struct {
	mem     memory.Allocator
	row0    int64 // index of the batch's first row (for errors)
	rows    int   // rows in the batch
	scratch []byte
}

func (b *builder) scratchBytes(n int) []byte {
	if cap(b.scratch) < n {
		w := make([]uint64, (n+7)/8) // 8-aligned, for typed views
		b.scratch = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), len(w)*8)
	}
	return b.scratch[:n]
}

func (b *builder) valueErr(nd *node, i, n int, err error) error {
	row := b.row0
	if b.rows > 0 && n > 0 {
		row += int64(i / (n / b.rows))
	}
	return &ValueError{Field: nd.path, Row: row, Err: err}
}

func (b *builder) alloc(n int) *memory.Buffer {
	buf := memory.NewResizableBuffer(b.mem)
	buf.Resize(n)
	return buf
}

// values returns the n values of size esize at lay as one contiguous
// buffer: a slice of lay.parent when they already are contiguous and
// aligned there, otherwise a gathered copy.
func (b *builder) values(lay layout, esize int) *memory.Buffer {
	n := lay.len()
	dims := coalesce(lay.dims)
	if n == 0 || esize == 0 {
		return b.alloc(0)
	}
	contiguous := len(dims) == 0 || (len(dims) == 1 && dims[0].stride == esize)
	if contiguous && lay.parent != nil && aligned(lay.data[lay.base:], esize) {
		return memory.SliceBuffer(lay.parent, lay.base, n*esize)
	}
	buf := b.alloc(n * esize)
	gather(buf.Bytes(), lay.data, lay.base, dims, esize)
	return buf
}

// gatherScratch gathers the values into the builder's scratch space.
func (b *builder) gatherScratch(lay layout, esize int) []byte {
	n := lay.len()
	dst := b.scratchBytes(n * esize)
	if n > 0 && esize > 0 {
		gather(dst, lay.data, lay.base, coalesce(lay.dims), esize)
	}
	return dst
}

func aligned(b []byte, esize int) bool {
	a := 1
	switch {
	case esize >= 8 && esize%8 == 0:
		a = 8
	case esize >= 4 && esize%4 == 0:
		a = 4
	case esize >= 2 && esize%2 == 0:
		a = 2
	}
	return len(b) == 0 || uintptr(unsafe.Pointer(&b[0]))%uintptr(a) == 0
}

// gather copies values of esize bytes laid out by dims from src[base:] to
// dst, packed, and returns the bytes written.
func gather(dst, src []byte, base int, dims []dim, esize int) int {
	switch len(dims) {
	case 0:
		return copy(dst, src[base:base+esize])
	case 1:
		d := dims[0]
		if d.stride == esize {
			return copy(dst, src[base:base+d.count*esize])
		}
		gatherStrided(dst[:d.count*esize], src, base, d.count, d.stride, esize)
		return d.count * esize
	}
	w := 0
	for i := 0; i < dims[0].count; i++ {
		w += gather(dst[w:], src, base+i*dims[0].stride, dims[1:], esize)
	}
	return w
}

// gatherStrided copies count values of esize bytes, stride bytes apart.
func gatherStrided(dst, src []byte, base, count, stride, esize int) {
	last := base + (count-1)*stride + esize
	_ = src[last-1] // one bounds check for the loop below
	p := unsafe.Pointer(&src[base])
	switch esize {
	case 8:
		d := unsafe.Slice((*[8]byte)(unsafe.Pointer(&dst[0])), count)
		for i := range d {
			d[i] = *(*[8]byte)(unsafe.Add(p, i*stride))
		}
	case 4:
		d := unsafe.Slice((*[4]byte)(unsafe.Pointer(&dst[0])), count)
		for i := range d {
			d[i] = *(*[4]byte)(unsafe.Add(p, i*stride))
		}
	case 2:
		d := unsafe.Slice((*[2]byte)(unsafe.Pointer(&dst[0])), count)
		for i := range d {
			d[i] = *(*[2]byte)(unsafe.Add(p, i*stride))
		}
	case 1:
		for i := range count {
			dst[i] = *(*byte)(unsafe.Add(p, i*stride))
		}
	default:
		for i := range count {
			copy(dst[i*esize:(i+1)*esize], src[base+i*stride:])
		}
	}
}

// build builds the array data of nd for the values at lay. The caller
// releases the result.
func (b *builder) build(nd *node, lay layout) (arrow.ArrayData, error) {
	n := lay.len()
	switch nd.kind {
	case kFixed:
		vals := b.values(lay, nd.size)
		defer vals.Release()
		var valid *memory.Buffer
		nulls := 0
		if nd.isTime() {
			valid, nulls = b.natBitmap(arrow.Int64Traits.CastFromBytes(vals.Bytes())[:n])
			if valid != nil {
				defer valid.Release()
			}
		}
		return array.NewData(nd.typ, n, []*memory.Buffer{valid, vals}, nil, nulls, 0), nil
	case kTime, kDate32:
		return b.buildTime(nd, lay)
	case kBool:
		bits := b.alloc((n + 7) / 8)
		defer bits.Release()
		if dims := coalesce(lay.dims); len(dims) == 1 {
			packBoolsStrided(bits.Bytes(), lay.data, lay.base, dims[0].count, dims[0].stride)
		} else {
			packBools(bits.Bytes(), b.gatherScratch(lay, 1))
		}
		return array.NewData(nd.typ, n, []*memory.Buffer{nil, bits}, nil, 0, 0), nil
	case kBytes:
		return b.buildBytes(nd, lay)
	case kUnicode:
		return b.buildUnicode(nd, lay)
	case kList:
		child := nd.children[0]
		cd, err := b.build(child, lay.sub(0, nd.dims...))
		if err != nil {
			return nil, err
		}
		defer cd.Release()
		if ext, ok := nd.typ.(arrow.ExtensionType); ok {
			st := array.NewData(ext.StorageType(), n, []*memory.Buffer{nil}, []arrow.ArrayData{cd}, 0, 0)
			defer st.Release()
			return array.NewData(nd.typ, n, st.Buffers(), st.Children(), 0, 0), nil
		}
		return array.NewData(nd.typ, n, []*memory.Buffer{nil}, []arrow.ArrayData{cd}, 0, 0), nil
	case kStruct:
		kids := make([]arrow.ArrayData, 0, len(nd.children))
		defer func() {
			for _, k := range kids {
				k.Release()
			}
		}()
		for _, c := range nd.children {
			cd, err := b.build(c, lay.sub(c.off))
			if err != nil {
				return nil, err
			}
			kids = append(kids, cd)
		}
		return array.NewData(nd.typ, n, []*memory.Buffer{nil}, kids, 0, 0), nil
	}
	return nil, fmt.Errorf("arrowconv: internal error: node kind %d", nd.kind)
}

const nat = math.MinInt64

// natBitmap returns a validity bitmap marking NaT values as null, or nil
// when there are none.
func (b *builder) natBitmap(v []int64) (*memory.Buffer, int) {
	first := -1
	for i, x := range v {
		if x == nat {
			first = i
			break
		}
	}
	if first < 0 {
		return nil, 0
	}
	buf := b.alloc((len(v) + 7) / 8)
	bits := buf.Bytes()
	for i := range bits {
		bits[i] = 0xff
	}
	nulls := 0
	for i := first; i < len(v); i++ {
		if v[i] == nat {
			bits[i>>3] &^= 1 << (i & 7)
			nulls++
		}
	}
	return buf, nulls
}

func (b *builder) buildTime(nd *node, lay layout) (arrow.ArrayData, error) {
	n := lay.len()
	f := nd.time.factor
	var out *memory.Buffer
	var src []int64
	if nd.kind == kDate32 {
		src = arrow.Int64Traits.CastFromBytes(b.gatherScratch(lay, 8))[:n]
		out = b.alloc(4 * n)
	} else {
		out = b.alloc(8 * n)
		gather(out.Bytes(), lay.data, lay.base, coalesce(lay.dims), 8)
		src = arrow.Int64Traits.CastFromBytes(out.Bytes())[:n]
	}
	defer out.Release()
	valid, nulls := b.natBitmap(src)
	if valid != nil {
		defer valid.Release()
	}
	if f == 1 && nd.kind != kDate32 {
		// Same unit: every value but NaT fits; NaT slots become 0.
		if nulls > 0 {
			for i, v := range src {
				if v == nat {
					src[i] = 0
				}
			}
		}
		return array.NewData(nd.typ, n, []*memory.Buffer{valid, out}, nil, nulls, 0), nil
	}
	lo, hi := int64(math.MinInt64+1)/f, int64(math.MaxInt64)/f
	if nd.kind == kDate32 {
		lo, hi = math.MinInt32/f, math.MaxInt32/f
	}
	for i, v := range src {
		if v != nat && (v < lo || v > hi) {
			return nil, b.valueErr(nd, i, n, fmt.Errorf("%w: %d (%s) does not fit %s", ErrRange, v, unitName(nd), nd.typ))
		}
	}
	if nd.kind == kDate32 {
		dst := arrow.Int32Traits.CastFromBytes(out.Bytes())[:n]
		for i, v := range src {
			dst[i] = int32(v * f) // NaT: garbage behind a null, as v*f wraps harmlessly
		}
		for i, v := range src {
			if v == nat {
				dst[i] = 0
			}
		}
	} else {
		for i, v := range src {
			if v != nat {
				src[i] = v * f
			} else {
				src[i] = 0
			}
		}
	}
	return array.NewData(nd.typ, n, []*memory.Buffer{valid, out}, nil, nulls, 0), nil
}

func unitName(nd *node) string {
	switch nd.time.typ.(type) {
	case *arrow.Date32Type:
		return fmt.Sprintf("%d-day units", nd.time.factor)
	}
	return fmt.Sprintf("units of %d×%s", nd.time.factor, nd.time.typ.(arrow.TemporalWithUnit).TimeUnit())
}

// packBools packs 0/non-zero bytes into an LSB-first bitmap.
func packBools(bits, src []byte) {
	n := len(src)
	full := n / 8
	_ = bits[:full]
	for i := 0; i < full; i++ {
		bits[i] = pack8(binary.LittleEndian.Uint64(src[i*8:]))
	}
	if r := n % 8; r > 0 {
		var tail [8]byte
		copy(tail[:], src[full*8:])
		bits[full] = pack8(binary.LittleEndian.Uint64(tail[:]))
	}
}

// packBoolsStrided packs count bool bytes lying stride bytes apart from
// src[base:] into an LSB-first bitmap, without gathering them first.
func packBoolsStrided(bits, src []byte, base, count, stride int) {
	if count == 0 {
		return
	}
	_ = src[base+(count-1)*stride] // one bounds check for the loops below
	p := unsafe.Pointer(&src[base])
	full := count / 8
	_ = bits[:full]
	s := stride
	for i := 0; i < full; i++ {
		q := unsafe.Add(p, i*8*s)
		x := uint64(*(*byte)(q)) |
			uint64(*(*byte)(unsafe.Add(q, s)))<<8 |
			uint64(*(*byte)(unsafe.Add(q, 2*s)))<<16 |
			uint64(*(*byte)(unsafe.Add(q, 3*s)))<<24 |
			uint64(*(*byte)(unsafe.Add(q, 4*s)))<<32 |
			uint64(*(*byte)(unsafe.Add(q, 5*s)))<<40 |
			uint64(*(*byte)(unsafe.Add(q, 6*s)))<<48 |
			uint64(*(*byte)(unsafe.Add(q, 7*s)))<<56
		bits[i] = pack8(x)
	}
	if r := count % 8; r > 0 {
		var x uint64
		for k := 0; k < r; k++ {
			x |= uint64(*(*byte)(unsafe.Add(p, (full*8+k)*s))) << (8 * k)
		}
		bits[full] = pack8(x)
	}
}

// pack8 returns a byte whose bit k is set when byte k of x (little
// endian) is non-zero.
func pack8(x uint64) byte {
	const lo7, hi = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	// Bit 7 of each byte: set when the byte is non-zero. Adding 0x7f to
	// the low 7 bits never carries into the next byte.
	y := (((x & lo7) + lo7) | x) & hi
	// Move bit 7 of byte k to bit 56+k; the partial products never collide.
	return byte(((y >> 7) * 0x0102040810204080) >> 56)
}

// maxOffset is the largest total byte length of a Binary or String array.
const maxOffset = math.MaxInt32

func (b *builder) buildBytes(nd *node, lay layout) (arrow.ArrayData, error) {
	n := lay.len()
	w := nd.size
	src := b.gatherScratch(lay, w)
	offs := b.alloc(4 * (n + 1))
	defer offs.Release()
	o := arrow.Int32Traits.CastFromBytes(offs.Bytes())[:n+1]
	total := 0
	for i := 0; i < n; i++ {
		s := src[i*w : (i+1)*w]
		l := w
		for l > 0 && s[l-1] == 0 {
			l--
		}
		o[i] = int32(total)
		total += l
		if total > maxOffset {
			return nil, b.valueErr(nd, i, n, fmt.Errorf("%w: more than 2 GiB of string data in one batch; use smaller batches", ErrRange))
		}
	}
	o[n] = int32(total)
	vals := b.alloc(total)
	defer vals.Release()
	v := vals.Bytes()
	for i := 0; i < n; i++ {
		copy(v[o[i]:o[i+1]], src[i*w:])
	}
	return array.NewData(nd.typ, n, []*memory.Buffer{nil, offs, vals}, nil, 0, 0), nil
}

func (b *builder) buildUnicode(nd *node, lay layout) (arrow.ArrayData, error) {
	n := lay.len()
	chars := nd.size / 4
	raw := b.gatherScratch(lay, nd.size)
	var cps []uint32
	if len(raw) > 0 {
		cps = unsafe.Slice((*uint32)(unsafe.Pointer(&raw[0])), len(raw)/4) // scratch is 8-aligned
	}
	offs := b.alloc(4 * (n + 1))
	defer offs.Release()
	o := arrow.Int32Traits.CastFromBytes(offs.Bytes())[:n+1]
	// First pass: validate, strip trailing NULs, size the UTF-8.
	total := 0
	for i := 0; i < n; i++ {
		s := cps[i*chars : (i+1)*chars]
		l := chars
		for l > 0 && s[l-1] == 0 {
			l--
		}
		o[i] = int32(total)
		for k, c := range s[:l] {
			switch {
			case c < 0x80:
				total++
			case c < 0x800:
				total += 2
			case c < 0x10000:
				if c >= 0xD800 && c <= 0xDFFF {
					return nil, b.valueErr(nd, i, n, fmt.Errorf("%w: character %d is a lone surrogate U+%04X, not valid UTF-8", ErrRange, k, c))
				}
				total += 3
			case c <= utf8.MaxRune:
				total += 4
			default:
				return nil, b.valueErr(nd, i, n, fmt.Errorf("%w: character %d (0x%X) is not a Unicode code point", ErrRange, k, c))
			}
		}
		if total > maxOffset {
			return nil, b.valueErr(nd, i, n, fmt.Errorf("%w: more than 2 GiB of string data in one batch; use smaller batches", ErrRange))
		}
	}
	o[n] = int32(total)
	vals := b.alloc(total)
	defer vals.Release()
	v := vals.Bytes()[:0]
	for i := 0; i < n; i++ {
		p := cps[i*chars : (i+1)*chars]
		end := len(v) + int(o[i+1]-o[i])
		for _, c := range p {
			if len(v) == end {
				break
			}
			if c < 0x80 {
				v = append(v, byte(c))
			} else {
				v = utf8.AppendRune(v, rune(c))
			}
		}
	}
	return array.NewData(nd.typ, n, []*memory.Buffer{nil, offs, vals}, nil, 0, 0), nil
}
