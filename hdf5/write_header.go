package hdf5

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/npyflow/npyflow/npyio"
)

// Header message types.
const (
	wMsgNil          = 0x0000
	wMsgDataspace    = 0x0001
	wMsgDatatype     = 0x0003
	wMsgFill         = 0x0005
	wMsgLayout       = 0x0008
	wMsgFilters      = 0x000B
	wMsgAttribute    = 0x000C
	wMsgContinuation = 0x0010
	wMsgSymbolTable  = 0x0011
)

const (
	wHeaderPrefix = 16     // a v1 object header prefix, padded to 8
	wMaxMsg       = 0xfff8 // the largest message body (2-byte size, 8-aligned)
	wAttrSlack    = 256    // header space reserved for attributes
	wMaxAttrs     = 60000  // a v1 header counts its messages in 16 bits
)

type wMsg struct {
	typ   uint16
	flags byte
	data  []byte
}

func (m wMsg) size() uint64 { return 8 + uint64(wPad8(len(m.data))) }

// wHeader is an object header: allocated when the object is created (so
// its address is known), written at Close.
type wHeader struct {
	addr  uint64
	room  uint64 // bytes of message space in the first chunk
	path  string
	msgs  func() ([]wMsg, error) // the object's own messages, known at Close
	attrs []*wAttr
}

type wAttr struct {
	name string
	val  AttrValue
	gref [][16]byte // global heap references of vlen data, set at Close
}

// newHeader allocates an object header with room for fixed bytes of
// messages plus attributes.
func (w *Writer) newHeader(path string, fixed uint64) *wHeader {
	room := fixed + wAttrSlack
	h := &wHeader{path: path, room: room}
	h.addr = w.alloc(wHeaderPrefix + room)
	w.headers = append(w.headers, h)
	return h
}

func wPutMsg(b []byte, m wMsg) []byte {
	var hdr [8]byte
	binary.LittleEndian.PutUint16(hdr[0:], m.typ)
	binary.LittleEndian.PutUint16(hdr[2:], uint16(wPad8(len(m.data))))
	hdr[4] = m.flags
	b = append(b, hdr[:]...)
	b = append(b, m.data...)
	return append(b, make([]byte, wPad8(len(m.data))-len(m.data))...)
}

// wPutNil fills n bytes (a multiple of 8, at least 8) with NIL messages and
// returns how many it wrote.
func wPutNil(b []byte, n uint64) ([]byte, int) {
	count := 0
	for n > 0 {
		body := n - 8
		if body > wMaxMsg {
			body = wMaxMsg
			if n-8-body < 8 && n-8-body > 0 {
				body -= 8
			}
		}
		b = wPutMsg(b, wMsg{typ: wMsgNil, data: make([]byte, body)})
		n -= 8 + body
		count++
	}
	return b, count
}

func (w *Writer) writeHeader(h *wHeader) error {
	msgs, err := h.msgs()
	if err != nil {
		return err
	}
	for _, a := range h.attrs {
		m, err := a.message()
		if err != nil {
			return fmt.Errorf("hdf5: %s: attribute %q: %w", h.path, a.name, err)
		}
		msgs = append(msgs, m)
	}
	var total uint64
	for _, m := range msgs {
		if len(m.data) > wMaxMsg {
			return fmt.Errorf("hdf5: %s: a header message of %d bytes (at most %d)", h.path, len(m.data), wMaxMsg)
		}
		total += m.size()
	}
	first := make([]byte, wHeaderPrefix, wHeaderPrefix+h.room)
	count := 0
	if total <= h.room {
		for _, m := range msgs {
			first = wPutMsg(first, m)
			count++
		}
	} else {
		// Fill the first chunk in order, leaving room for a continuation
		// message; the rest goes to a continuation block at the end.
		const contSize = 8 + 16
		i := 0
		var used uint64
		for ; i < len(msgs) && used+msgs[i].size() <= h.room-contSize; i++ {
			first = wPutMsg(first, msgs[i])
			used += msgs[i].size()
			count++
		}
		var cont []byte
		for _, m := range msgs[i:] {
			cont = wPutMsg(cont, m)
			count++
		}
		addr := w.alloc(uint64(len(cont)))
		data := make([]byte, 16)
		binary.LittleEndian.PutUint64(data, addr)
		binary.LittleEndian.PutUint64(data[8:], uint64(len(cont)))
		first = wPutMsg(first, wMsg{typ: wMsgContinuation, data: data})
		count++
		if err := w.writeAt(addr, cont); err != nil {
			return err
		}
	}
	if rest := wHeaderPrefix + h.room - uint64(len(first)); rest > 0 {
		var n int
		first, n = wPutNil(first, rest)
		count += n
	}
	first[0] = 1 // version
	binary.LittleEndian.PutUint16(first[2:], uint16(count))
	binary.LittleEndian.PutUint32(first[4:], 1) // reference count
	binary.LittleEndian.PutUint32(first[8:], uint32(h.room))
	return w.writeAt(h.addr, first)
}

// wDataspace encodes a version-1 dataspace: scalar when dims is nil.
func wDataspace(dims []uint64, unlimited bool) []byte {
	b := make([]byte, 8, 8+16*len(dims))
	b[0] = 1
	b[1] = byte(len(dims))
	if unlimited {
		b[2] = 1
	}
	for _, d := range dims {
		b = binary.LittleEndian.AppendUint64(b, d)
	}
	if unlimited {
		for i, d := range dims {
			if i == 0 {
				d = wUndef
			}
			b = binary.LittleEndian.AppendUint64(b, d)
		}
	}
	return b
}

// AttrValue is the value of an attribute, made by one of the constructors
// (StringAttr, NumAttr, NumsAttr, ArrayAttr, VlenAttr, VlenStringsAttr,
// FieldNamesAttr, RefsAttr). A constructor's error is reported by SetAttr.
type AttrValue struct {
	typ   []byte   // encoded datatype
	shape []uint64 // nil: scalar
	data  []byte
	vlen  [][]byte // variable-length sequences (data holds 16 bytes each at Close)
	err   error
}

// StringAttr is a scalar fixed-length string attribute sized to s,
// NULLTERM, as MATLAB writes MATLAB_class. It is ASCII, or UTF-8 when s
// has a byte over 0x7f. An empty string is stored as one NUL byte.
func StringAttr(s string) AttrValue {
	cset := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			cset = 1
			break
		}
	}
	data := []byte(s)
	if len(data) == 0 {
		data = []byte{0}
	}
	return AttrValue{typ: wStringType(len(data), 0, cset), data: data}
}

// Number is the element type of NumAttr and NumsAttr.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

func wNumType[T Number]() ([]byte, int) {
	var z T
	switch any(z).(type) {
	case int8:
		return wIntType(1, true, false), 1
	case int16:
		return wIntType(2, true, false), 2
	case int32:
		return wIntType(4, true, false), 4
	case int64:
		return wIntType(8, true, false), 8
	case uint8:
		return wIntType(1, false, false), 1
	case uint16:
		return wIntType(2, false, false), 2
	case uint32:
		return wIntType(4, false, false), 4
	case uint64:
		return wIntType(8, false, false), 8
	case float32:
		return wFloatType(4, false), 4
	case float64:
		return wFloatType(8, false), 8
	}
	return nil, 0
}

func wNumBytes[T Number](vs []T, size int) []byte {
	b := make([]byte, 0, len(vs)*size)
	for _, v := range vs {
		switch x := any(v).(type) {
		case int8:
			b = append(b, byte(x))
		case uint8:
			b = append(b, x)
		case int16:
			b = binary.LittleEndian.AppendUint16(b, uint16(x))
		case uint16:
			b = binary.LittleEndian.AppendUint16(b, x)
		case int32:
			b = binary.LittleEndian.AppendUint32(b, uint32(x))
		case uint32:
			b = binary.LittleEndian.AppendUint32(b, x)
		case int64:
			b = binary.LittleEndian.AppendUint64(b, uint64(x))
		case uint64:
			b = binary.LittleEndian.AppendUint64(b, x)
		case float32:
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		case float64:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	return b
}

// NumAttr is a scalar numeric attribute (little-endian), e.g.
// NumAttr(uint8(1)) for MATLAB_empty or NumAttr(uint64(rows)) for
// MATLAB_sparse. Only the exact types int8..int64, uint8..uint64, float32
// and float64 are supported (a named type with one of those underlying
// types is refused by SetAttr).
func NumAttr[T Number](v T) AttrValue {
	typ, size := wNumType[T]()
	if typ == nil {
		return AttrValue{err: fmt.Errorf("NumAttr needs a predeclared numeric type, not %T", v)}
	}
	return AttrValue{typ: typ, data: wNumBytes([]T{v}, size)}
}

// NumsAttr is a 1-D numeric attribute of len(v) elements (little-endian).
func NumsAttr[T Number](v []T) AttrValue {
	typ, size := wNumType[T]()
	if typ == nil {
		var z T
		return AttrValue{err: fmt.Errorf("NumsAttr needs a predeclared numeric type, not %T", z)}
	}
	return AttrValue{typ: typ, shape: []uint64{uint64(len(v))}, data: wNumBytes(v, size)}
}

// ArrayAttr is an attribute of any dtype CreateDataset accepts, of the
// given shape (nil for a scalar), from its raw bytes in C order.
func ArrayAttr(dt *npyio.DType, shape []uint64, data []byte) AttrValue {
	typ, err := wEncodeDType(dt)
	if err != nil {
		return AttrValue{err: err}
	}
	if len(shape) > 32 {
		return AttrValue{err: fmt.Errorf("rank %d is over HDF5's 32", len(shape))}
	}
	n, ok := wCount(shape)
	if !ok || n*uint64(dt.Size) != uint64(len(data)) {
		return AttrValue{err: fmt.Errorf("%d bytes of data for shape %v of %s", len(data), shape, dt)}
	}
	return AttrValue{typ: typ, shape: append([]uint64(nil), shape...), data: data}
}

// VlenAttr is a 1-D attribute of variable-length sequences of base, stored
// in the global heap: one sequence per element of seqs, each the raw bytes
// of its base elements (a multiple of base.Size).
func VlenAttr(base *npyio.DType, seqs [][]byte) AttrValue {
	typ, err := wEncodeDType(base)
	if err != nil {
		return AttrValue{err: err}
	}
	for i, s := range seqs {
		if len(s)%base.Size != 0 {
			return AttrValue{err: fmt.Errorf("sequence %d has %d bytes, not a multiple of %d", i, len(s), base.Size)}
		}
	}
	return AttrValue{typ: wVlenSeqType(typ), shape: []uint64{uint64(len(seqs))},
		data: make([]byte, 16*len(seqs)), vlen: seqs}
}

// VlenStringsAttr is a 1-D attribute of variable-length UTF-8 strings (as
// h5py stores a list of Python str), kept in the global heap.
func VlenStringsAttr(ss []string) AttrValue {
	seqs := make([][]byte, len(ss))
	for i, s := range ss {
		if strings.IndexByte(s, 0) >= 0 {
			return AttrValue{err: fmt.Errorf("string %d holds a NUL byte", i)}
		}
		seqs[i] = []byte(s)
	}
	// class 9, type 1 (string), NULLTERM, UTF-8; the base is a 1-byte
	// UTF-8 string.
	typ := append(wTypeHeader(wClassVlen, 1, 1|1<<8, 16), wStringType(1, 0, 1)...)
	return AttrValue{typ: typ, shape: []uint64{uint64(len(ss))}, data: make([]byte, 16*len(ss)), vlen: seqs}
}

// FieldNamesAttr is MATLAB's MATLAB_fields: a 1-D attribute of
// variable-length sequences of one-byte strings, one sequence per name.
func FieldNamesAttr(names []string) AttrValue {
	seqs := make([][]byte, len(names))
	for i, n := range names {
		seqs[i] = []byte(n)
	}
	s1, _ := npyio.NewString(npyio.Bytes, 1)
	v := VlenAttr(s1, seqs)
	if v.err == nil {
		// MATLAB stores the characters NULLTERM.
		v.typ = wVlenSeqType(wStringType(1, 0, 0))
	}
	return v
}

// RefsAttr is a 1-D attribute of object references.
func RefsAttr(refs []ObjRef) AttrValue {
	b := make([]byte, 0, 8*len(refs))
	for _, r := range refs {
		b = binary.LittleEndian.AppendUint64(b, uint64(r))
	}
	return AttrValue{typ: wRefType(), shape: []uint64{uint64(len(refs))}, data: b}
}

func wCount(shape []uint64) (uint64, bool) {
	n := uint64(1)
	for _, d := range shape {
		if d != 0 && n > math.MaxInt64/d {
			return 0, false
		}
		n *= d
	}
	return n, true
}

func (a *wAttr) message() (wMsg, error) {
	v := a.val
	data := v.data
	if v.vlen != nil && a.gref != nil {
		data = make([]byte, 0, 16*len(v.vlen))
		for _, r := range a.gref {
			data = append(data, r[:]...)
		}
	}
	space := wDataspace(v.shape, false)
	name := a.name + "\x00"
	b := make([]byte, 8, 8+wPad8(len(name))+wPad8(len(v.typ))+wPad8(len(space))+len(data))
	b[0] = 1
	binary.LittleEndian.PutUint16(b[2:], uint16(len(name)))
	binary.LittleEndian.PutUint16(b[4:], uint16(len(v.typ)))
	binary.LittleEndian.PutUint16(b[6:], uint16(len(space)))
	for _, part := range [][]byte{[]byte(name), v.typ, space} {
		b = append(b, part...)
		b = append(b, make([]byte, wPad8(len(part))-len(part))...)
	}
	b = append(b, data...)
	if len(b) > wMaxMsg {
		return wMsg{}, fmt.Errorf("%d bytes do not fit in an object header (at most %d)", len(b), wMaxMsg)
	}
	return wMsg{typ: wMsgAttribute, data: b}, nil
}

// setAttr adds an attribute to an object header.
func (w *Writer) setAttr(h *wHeader, name string, v AttrValue) error {
	if err := w.check(); err != nil {
		return err
	}
	if v.err != nil {
		return fmt.Errorf("hdf5: %s: attribute %q: %w", h.path, name, v.err)
	}
	if v.typ == nil {
		return fmt.Errorf("hdf5: %s: attribute %q has no value (use a constructor such as StringAttr)", h.path, name)
	}
	if name == "" || strings.IndexByte(name, 0) >= 0 || len(name) > 0xfff0 {
		return fmt.Errorf("hdf5: %s: bad attribute name %q", h.path, name)
	}
	if len(h.attrs) >= wMaxAttrs {
		return fmt.Errorf("hdf5: %s: more than %d attributes", h.path, wMaxAttrs)
	}
	for _, a := range h.attrs {
		if a.name == name {
			return fmt.Errorf("hdf5: %s: attribute %q is already set", h.path, name)
		}
	}
	a := &wAttr{name: name, val: v}
	if _, err := a.message(); err != nil {
		return fmt.Errorf("hdf5: %s: attribute %q: %w", h.path, name, err)
	}
	h.attrs = append(h.attrs, a)
	return nil
}
