package hdf5

import (
	"encoding/binary"
	"math"
)

// undefAddr is the "undefined address" (all bits set).
const undefAddr = math.MaxUint64

// dec reads little-endian fields from a byte slice. Errors are sticky: once
// a read runs past the end, every later read returns zero and ok() is false.
type dec struct {
	b   []byte
	pos int
	bad bool
}

func (d *dec) ok() bool { return !d.bad }

func (d *dec) need(n int) bool {
	if d.bad || n < 0 || d.pos < 0 || d.pos > len(d.b) || n > len(d.b)-d.pos {
		d.bad = true
		return false
	}
	return true
}

func (d *dec) skip(n int) {
	if d.need(n) {
		d.pos += n
	}
}

func (d *dec) u8() uint8 {
	if !d.need(1) {
		return 0
	}
	v := d.b[d.pos]
	d.pos++
	return v
}

func (d *dec) u16() uint16 {
	if !d.need(2) {
		return 0
	}
	v := binary.LittleEndian.Uint16(d.b[d.pos:])
	d.pos += 2
	return v
}

func (d *dec) u32() uint32 {
	if !d.need(4) {
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b[d.pos:])
	d.pos += 4
	return v
}

func (d *dec) u64() uint64 {
	if !d.need(8) {
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b[d.pos:])
	d.pos += 8
	return v
}

// uvar reads an n-byte little-endian unsigned integer (n <= 8).
func (d *dec) uvar(n int) uint64 {
	if n > 8 || !d.need(n) {
		d.bad = true
		return 0
	}
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(d.b[d.pos+i])
	}
	d.pos += n
	return v
}

func (d *dec) bytes(n int) []byte {
	if !d.need(n) {
		return nil
	}
	v := d.b[d.pos : d.pos+n]
	d.pos += n
	return v
}

// cstring reads a NUL-terminated string (the NUL is consumed).
func (d *dec) cstring() string {
	if d.bad {
		return ""
	}
	for i := d.pos; i < len(d.b); i++ {
		if d.b[i] == 0 {
			s := string(d.b[d.pos:i])
			d.pos = i + 1
			return s
		}
	}
	d.bad = true
	return ""
}

func (d *dec) align(n int) {
	if r := d.pos % n; r != 0 {
		d.skip(n - r)
	}
}

func (d *dec) rest() int { return len(d.b) - d.pos }

// bytesFor is the number of bytes needed to encode v (at least 1).
func bytesFor(v uint64) int {
	n := 1
	for v > 0xff {
		v >>= 8
		n++
	}
	return n
}

// log2floor returns floor(log2(v)) for v > 0, and 0 for v == 0.
func log2floor(v uint64) int {
	n := 0
	for v > 1 {
		v >>= 1
		n++
	}
	return n
}

// mulOK multiplies a and b, reporting overflow past max.
func mulOK(a, b, max uint64) (uint64, bool) {
	if a != 0 && b > max/a {
		return 0, false
	}
	return a * b, a*b <= max
}
