package parquetio

import (
	"errors"
	"fmt"
	"io"
	"math"
)

// Parquet's footer and page headers are Thrift structs in the compact
// protocol (https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md).
// Their lengths are claims of the file: a list of 0x7fffffff elements
// costs five bytes. tReader decodes them from a byte slice and checks
// every length against the bytes that remain before anything is
// allocated by it (each list element takes at least one byte, a binary
// value its length), and bounds the nesting of structs, so that decoding
// n bytes allocates O(n) whatever they claim. arrow-go decodes the same
// footer bytes after this decoder has accepted them, so its allocations
// are bounded the same way.

// Compact protocol wire types.
const (
	tStop   = 0
	tTrue   = 1
	tFalse  = 2
	tByte   = 3
	tI16    = 4
	tI32    = 5
	tI64    = 6
	tDouble = 7
	tBinary = 8
	tList   = 9
	tSet    = 10
	tMap    = 11
	tStruct = 12
	tUUID   = 13
)

// maxThriftDepth bounds the nesting of structs and containers (Parquet's
// own structs nest at most 5 deep; arrow-go's Thrift library skips
// unknown fields up to 64 deep).
const maxThriftDepth = 64

// errThriftShort marks a Thrift value cut off by the end of its bytes.
var errThriftShort = fmt.Errorf("thrift value cut off: %w", io.ErrUnexpectedEOF)

// tReader reads compact-protocol values from b.
type tReader struct {
	b     []byte
	pos   int
	depth int
	hdr   int // where the header of the field being read starts
}

func (r *tReader) left() int { return len(r.b) - r.pos }

func (r *tReader) byte() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, errThriftShort
	}
	c := r.b[r.pos]
	r.pos++
	return c, nil
}

// uvarint reads an unsigned LEB128 varint of at most 10 bytes.
func (r *tReader) uvarint() (uint64, error) {
	var x uint64
	for shift := uint(0); shift < 70; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		if shift == 63 && c > 1 {
			return 0, errors.New("thrift varint overflows 64 bits")
		}
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x, nil
		}
	}
	return 0, errors.New("thrift varint longer than 10 bytes")
}

// varint reads a zigzag varint that must fit in bits bits.
func (r *tReader) varint(bits uint) (int64, error) {
	u, err := r.uvarint()
	if err != nil {
		return 0, err
	}
	v := int64(u>>1) ^ -int64(u&1)
	if bits < 64 && (v < -1<<(bits-1) || v >= 1<<(bits-1)) {
		return 0, fmt.Errorf("thrift i%d value %d out of range", bits, v)
	}
	return v, nil
}

// length reads a length or count: at most the bytes that remain, each
// unit taking at least one byte.
func (r *tReader) length(what string) (int, error) {
	u, err := r.uvarint()
	if err != nil {
		return 0, err
	}
	if u > uint64(r.left()) {
		return 0, fmt.Errorf("thrift %s of %d, but only %d bytes remain: %w", what, u, r.left(), io.ErrUnexpectedEOF)
	}
	return int(u), nil
}

// binary returns the next binary value (a slice of b, not a copy).
func (r *tReader) binary() ([]byte, error) {
	n, err := r.length("binary length")
	if err != nil {
		return nil, err
	}
	v := r.b[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return v, nil
}

func (r *tReader) str() (string, error) {
	b, err := r.binary()
	return string(b), err
}

// listHeader reads a list or set header: the element type and count.
func (r *tReader) listHeader() (byte, int, error) {
	c, err := r.byte()
	if err != nil {
		return 0, 0, err
	}
	n := int(c >> 4)
	if n == 15 {
		if n, err = r.length("list length"); err != nil {
			return 0, 0, err
		}
	} else if n > r.left() {
		return 0, 0, fmt.Errorf("thrift list of %d, but only %d bytes remain: %w", n, r.left(), io.ErrUnexpectedEOF)
	}
	return c & 0x0f, n, nil
}

// fieldHeader reads the next field header of a struct whose previous
// field id is *last: the wire type (tStop at the struct's end) and id.
func (r *tReader) fieldHeader(last *int16) (byte, int16, error) {
	c, err := r.byte()
	if err != nil {
		return 0, 0, err
	}
	typ := c & 0x0f
	if typ == tStop {
		return tStop, 0, nil
	}
	id := *last + int16(c>>4)
	if c>>4 == 0 {
		v, err := r.varint(16)
		if err != nil {
			return 0, 0, err
		}
		id = int16(v)
	}
	*last = id
	return typ, id, nil
}

// readStruct reads a struct, calling field for each field; field must
// consume the value (skip it if it does not know it).
func (r *tReader) readStruct(field func(id int16, typ byte) error) error {
	if r.depth++; r.depth > maxThriftDepth {
		return fmt.Errorf("thrift structs nested more than %d deep", maxThriftDepth)
	}
	var last int16
	for {
		r.hdr = r.pos
		typ, id, err := r.fieldHeader(&last)
		if err != nil {
			return err
		}
		if typ == tStop {
			break
		}
		if err := field(id, typ); err != nil {
			return err
		}
	}
	r.depth--
	return nil
}

// readList reads a list of elements of wire type want, calling elem n
// times after alloc(n); a list of another element type is skipped.
func (r *tReader) readList(want byte, alloc func(n int), elem func(i int) error) error {
	typ, n, err := r.listHeader()
	if err != nil {
		return err
	}
	if typ != want && !(want == tTrue && typ == tFalse) {
		return r.skipElems(typ, n)
	}
	if alloc != nil {
		alloc(n)
	}
	for i := 0; i < n; i++ {
		if err := elem(i); err != nil {
			return err
		}
	}
	return nil
}

// integer reads an integer field of any integer wire type that fits in
// bits bits; ok is false (the value skipped) for another wire type.
func (r *tReader) integer(typ byte, bits uint) (v int64, ok bool, err error) {
	switch typ {
	case tByte:
		c, err := r.byte()
		return int64(int8(c)), err == nil, err
	case tI16, tI32, tI64:
		v, err := r.varint(bits)
		return v, err == nil, err
	}
	return 0, false, r.skip(typ)
}

func (r *tReader) i32(typ byte) (int32, bool, error) {
	v, ok, err := r.integer(typ, 32)
	return int32(v), ok, err
}

func (r *tReader) i64(typ byte) (int64, bool, error) {
	return r.integer(typ, 64)
}

// boolean reads a bool field (its value is its wire type).
func (r *tReader) boolean(typ byte) (v, ok bool, err error) {
	switch typ {
	case tTrue:
		return true, true, nil
	case tFalse:
		return false, true, nil
	}
	return false, false, r.skip(typ)
}

// skip skips a value of wire type typ (a struct field).
func (r *tReader) skip(typ byte) error {
	switch typ {
	case tTrue, tFalse:
		return nil
	}
	return r.skipElem(typ)
}

// skipElem skips one value of wire type typ as a container element
// (where a bool takes a byte).
func (r *tReader) skipElem(typ byte) error {
	switch typ {
	case tTrue, tFalse, tByte:
		_, err := r.byte()
		return err
	case tI16, tI32, tI64:
		_, err := r.uvarint()
		return err
	case tDouble:
		return r.advance(8)
	case tUUID:
		return r.advance(16)
	case tBinary:
		_, err := r.binary()
		return err
	case tStruct:
		return r.readStruct(func(_ int16, t byte) error { return r.skip(t) })
	case tList, tSet:
		t, n, err := r.listHeader()
		if err != nil {
			return err
		}
		return r.nested(func() error { return r.skipElems(t, n) })
	case tMap:
		n, err := r.length("map size")
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		kv, err := r.byte()
		if err != nil {
			return err
		}
		return r.nested(func() error {
			for i := 0; i < n; i++ {
				if err := r.skipElem(kv >> 4); err != nil {
					return err
				}
				if err := r.skipElem(kv & 0x0f); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return fmt.Errorf("thrift wire type %d unknown", typ)
}

func (r *tReader) skipElems(typ byte, n int) error {
	for i := 0; i < n; i++ {
		if err := r.skipElem(typ); err != nil {
			return err
		}
	}
	return nil
}

// nested runs f one level deeper.
func (r *tReader) nested(f func() error) error {
	if r.depth++; r.depth > maxThriftDepth {
		return fmt.Errorf("thrift values nested more than %d deep", maxThriftDepth)
	}
	err := f()
	r.depth--
	return err
}

func (r *tReader) advance(n int) error {
	if n > r.left() {
		return errThriftShort
	}
	r.pos += n
	return nil
}

// appendFieldHeader appends the header of field id of wire type typ
// following field last.
func appendFieldHeader(b []byte, typ byte, id, last int16) []byte {
	if d := int(id) - int(last); d > 0 && d <= 15 {
		return append(b, byte(d)<<4|typ)
	}
	b = append(b, typ)
	u := uint64(int64(id)<<1) ^ uint64(int64(id)>>63)
	for u >= 0x80 {
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// i32OK reports whether v fits in an int32.
func i32OK(v int64) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }
