package zfp

import "encoding/binary"

// reader reads a zfp bit stream: 64-bit little-endian words, each read
// from its least significant bit. Reading past the end gives zero bits
// and sets past; a partial last word is padded with zeros.
type reader struct {
	src  []byte
	next int    // byte offset of the next word
	buf  uint64 // the bits of the current word not yet read
	n    uint   // how many bits buf holds
	end  uint64 // the stream's length in bits
}

func newReader(src []byte) reader {
	return reader{src: src, end: 8 * uint64(len(src))}
}

// word returns the next 64-bit word.
func (r *reader) word() uint64 {
	i := r.next
	r.next += 8
	if i+8 <= len(r.src) {
		return binary.LittleEndian.Uint64(r.src[i:])
	}
	var w uint64
	for k := 0; i+k < len(r.src) && k < 8; k++ {
		w |= uint64(r.src[i+k]) << (8 * k)
	}
	return w
}

// readBit reads one bit.
func (r *reader) readBit() uint64 {
	if r.n == 0 {
		r.buf = r.word()
		r.n = 64
	}
	r.n--
	b := r.buf & 1
	r.buf >>= 1
	return b
}

// readBits reads n <= 64 bits, the first read the least significant.
func (r *reader) readBits(n uint) uint64 {
	v := r.buf
	if r.n < n {
		w := r.word()
		v += w << r.n
		r.n += 64 - n
		r.buf = w >> (64 - r.n) // 0 when r.n is 0
		if r.n == 0 {
			r.buf = 0
		}
	} else {
		r.n -= n
		r.buf >>= n
	}
	if n < 64 {
		v &= 1<<n - 1
	}
	return v
}

// tell is the offset of the next bit to read.
func (r *reader) tell() uint64 {
	return 8*uint64(r.next) - uint64(r.n)
}

// skip moves n bits ahead.
func (r *reader) skip(n uint64) {
	pos := r.tell() + n
	if pos > r.end+64 { // past the end: no word is read any more
		pos = r.end + 64
	}
	r.next = int(pos/64) * 8
	r.n = 0
	r.buf = 0
	if off := uint(pos % 64); off != 0 {
		r.buf = r.word() >> off
		r.n = 64 - off
	}
}

// past reports whether more bits were read than the stream holds.
func (r *reader) past() bool { return r.tell() > r.end }
