package codec

import (
	"encoding/binary"
	"fmt"
	"sync"
)

// Helpers shared by the decoders of the plugin filters: the output buffer
// a decoder may write, pooled scratch space, and bitshuffle's transform
// (used by the bitshuffle filter and inside Blosc chunks). The byte
// shuffle is Unshuffle in filters.go.

// UnsupportedError is a well-formed encoded chunk that uses a feature
// these decoders do not implement (a Blosc2 plugin codec, say); unfilter
// reports it as unsupported rather than malformed.
type UnsupportedError struct{ Msg string }

func (e *UnsupportedError) Error() string { return e.Msg }

// DecodeTarget returns the n bytes a decoder writes its output into: dst
// when the decoder is the last filter (dst has the chunk's size, want),
// otherwise a new buffer. n is what the encoded data declare; it is
// checked against the chunk's size before anything is allocated.
func DecodeTarget(dst []byte, n, want uint64) ([]byte, error) {
	if dst != nil {
		if n != uint64(len(dst)) {
			return nil, ErrDecodedSize(n, uint64(len(dst)))
		}
		return dst, nil
	}
	if n > want+Slack {
		return nil, ErrDecodedSize(n, want)
	}
	return make([]byte, n), nil
}

// ErrDecodedSize is the error of encoded data declaring n decoded bytes
// where want are expected.
func ErrDecodedSize(n, want uint64) error {
	return fmt.Errorf("declares %d decoded bytes for a chunk of %d", n, want)
}

// scratchPool holds byte buffers reused between chunks by the decoders
// (a bitshuffled block before its transform, a Blosc block before its
// Unshuffle), so that decoding a dataset allocates little whatever its
// number of chunks.
var scratchPool sync.Pool

// GetScratch returns a buffer of n bytes (contents undefined); PutScratch
// gives it back.
func GetScratch(n int) *[]byte {
	if p, ok := scratchPool.Get().(*[]byte); ok {
		if cap(*p) >= n {
			*p = (*p)[:n]
			return p
		}
		scratchPool.Put(p)
	}
	b := make([]byte, n)
	return &b
}

// PutScratch gives a buffer of GetScratch back.
func PutScratch(p *[]byte) {
	// Very large buffers are not kept: one huge chunk should not pin its
	// memory for the rest of the process.
	if cap(*p) <= 64<<20 {
		scratchPool.Put(p)
	}
}

// BitUnshuffle undoes bitshuffle's transform of n elements of es bytes
// each, n a multiple of 8. In the transformed layout, src holds 8*es rows
// of n/8 bytes: row 8*j+k gathers bit k of byte j of every element, bit i
// of its byte m coming from element 8*m+i. dst (n*es bytes) gets the
// elements back; tmp (n*es bytes, used when es > 1) is scratch.
func BitUnshuffle(dst, src, tmp []byte, n, es int) {
	if es == 1 {
		untransposeBitRows(dst[:n], src[:n])
		return
	}
	if es == 2 || es == 4 || es == 8 {
		bitUnshuffleWords(dst, src, n, es)
		return
	}
	// Undo the bit transpose of each byte plane j (8 rows, n bytes), which
	// leaves the byte-shuffled layout, then undo the byte shuffle.
	for j := 0; j < es; j++ {
		untransposeBitRows(tmp[j*n:(j+1)*n], src[j*n:(j+1)*n])
	}
	Unshuffle(tmp[:n*es], es, dst[:n*es])
}

// bitUnshuffleWords is BitUnshuffle for items of 2, 4 or 8 bytes, in one
// pass: for 64 items at a time, the bit rows of each byte plane are
// transposed (bytes, then bits) into words holding byte j of 8 items,
// and the words of the planes transposed again (bytes) into the items.
func bitUnshuffleWords(dst, src []byte, n, es int) {
	m := n / 8         // bytes per bit row
	var x [8][8]uint64 // x[j][t]: byte j of items 8t..8t+7
	g := 0
	for ; g+8 <= m; g += 8 {
		for j := 0; j < es; j++ {
			p := src[j*n : (j+1)*n]
			w0 := binary.LittleEndian.Uint64(p[g:])
			w1 := binary.LittleEndian.Uint64(p[m+g:])
			w2 := binary.LittleEndian.Uint64(p[2*m+g:])
			w3 := binary.LittleEndian.Uint64(p[3*m+g:])
			w4 := binary.LittleEndian.Uint64(p[4*m+g:])
			w5 := binary.LittleEndian.Uint64(p[5*m+g:])
			w6 := binary.LittleEndian.Uint64(p[6*m+g:])
			w7 := binary.LittleEndian.Uint64(p[7*m+g:])
			w0, w1, w2, w3, w4, w5, w6, w7 = transposeBytes8x8(w0, w1, w2, w3, w4, w5, w6, w7)
			x[j] = [8]uint64{transposeBits8x8(w0), transposeBits8x8(w1), transposeBits8x8(w2), transposeBits8x8(w3),
				transposeBits8x8(w4), transposeBits8x8(w5), transposeBits8x8(w6), transposeBits8x8(w7)}
		}
		for t := 0; t < 8; t++ {
			e0, e1, e2, e3, e4, e5, e6, e7 := transposeBytes8x8(x[0][t], x[1][t], x[2][t], x[3][t], x[4][t], x[5][t], x[6][t], x[7][t])
			o := dst[(8*g+8*t)*es : (8*g+8*t+8)*es]
			switch es {
			case 8:
				binary.LittleEndian.PutUint64(o[0:], e0)
				binary.LittleEndian.PutUint64(o[8:], e1)
				binary.LittleEndian.PutUint64(o[16:], e2)
				binary.LittleEndian.PutUint64(o[24:], e3)
				binary.LittleEndian.PutUint64(o[32:], e4)
				binary.LittleEndian.PutUint64(o[40:], e5)
				binary.LittleEndian.PutUint64(o[48:], e6)
				binary.LittleEndian.PutUint64(o[56:], e7)
			case 4:
				binary.LittleEndian.PutUint64(o[0:], e0&0xffffffff|e1<<32)
				binary.LittleEndian.PutUint64(o[8:], e2&0xffffffff|e3<<32)
				binary.LittleEndian.PutUint64(o[16:], e4&0xffffffff|e5<<32)
				binary.LittleEndian.PutUint64(o[24:], e6&0xffffffff|e7<<32)
			case 2:
				binary.LittleEndian.PutUint64(o[0:], e0&0xffff|(e1&0xffff)<<16|(e2&0xffff)<<32|e3<<48)
				binary.LittleEndian.PutUint64(o[8:], e4&0xffff|(e5&0xffff)<<16|(e6&0xffff)<<32|e7<<48)
			}
		}
	}
	// The last groups of 8 items (fewer than 8 left), one at a time.
	for ; g < m; g++ {
		var xs [8]uint64
		for j := 0; j < es; j++ {
			p := src[j*n : (j+1)*n]
			w := uint64(p[g]) | uint64(p[m+g])<<8 | uint64(p[2*m+g])<<16 | uint64(p[3*m+g])<<24 |
				uint64(p[4*m+g])<<32 | uint64(p[5*m+g])<<40 | uint64(p[6*m+g])<<48 | uint64(p[7*m+g])<<56
			xs[j] = transposeBits8x8(w)
		}
		e := [8]uint64{}
		e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7] = transposeBytes8x8(xs[0], xs[1], xs[2], xs[3], xs[4], xs[5], xs[6], xs[7])
		o := dst[8*g*es : (8*g+8)*es]
		for i := 0; i < 8; i++ {
			for b := 0; b < es; b++ {
				o[i*es+b] = byte(e[i] >> (8 * b))
			}
		}
	}
}

// transposeBytes8x8 transposes the 8x8 byte matrix whose row k is word k
// (byte t of it column t): word t of the result holds byte t of each
// word, byte k from word k.
func transposeBytes8x8(w0, w1, w2, w3, w4, w5, w6, w7 uint64) (uint64, uint64, uint64, uint64, uint64, uint64, uint64, uint64) {
	w0, w1 = swapBytes(w0, w1, 8, 0x00FF00FF00FF00FF)
	w2, w3 = swapBytes(w2, w3, 8, 0x00FF00FF00FF00FF)
	w4, w5 = swapBytes(w4, w5, 8, 0x00FF00FF00FF00FF)
	w6, w7 = swapBytes(w6, w7, 8, 0x00FF00FF00FF00FF)
	w0, w2 = swapBytes(w0, w2, 16, 0x0000FFFF0000FFFF)
	w1, w3 = swapBytes(w1, w3, 16, 0x0000FFFF0000FFFF)
	w4, w6 = swapBytes(w4, w6, 16, 0x0000FFFF0000FFFF)
	w5, w7 = swapBytes(w5, w7, 16, 0x0000FFFF0000FFFF)
	w0, w4 = swapBytes(w0, w4, 32, 0x00000000FFFFFFFF)
	w1, w5 = swapBytes(w1, w5, 32, 0x00000000FFFFFFFF)
	w2, w6 = swapBytes(w2, w6, 32, 0x00000000FFFFFFFF)
	w3, w7 = swapBytes(w3, w7, 32, 0x00000000FFFFFFFF)
	return w0, w1, w2, w3, w4, w5, w6, w7
}

// untransposeBitRows turns 8 bit rows of len(src)/8 bytes into len(src)
// bytes: bit k of out[8*m+i] is bit i of src[k*len/8+m].
func untransposeBitRows(out, src []byte) {
	m := len(src) / 8
	r0, r1, r2, r3 := src[:m], src[m:2*m], src[2*m:3*m], src[3*m:4*m]
	r4, r5, r6, r7 := src[4*m:5*m], src[5*m:6*m], src[6*m:7*m], src[7*m:8*m]
	out = out[:8*m]
	g := 0
	for ; g+8 <= m; g += 8 {
		// Eight bytes of each row: bits of 64 elements.
		w0 := binary.LittleEndian.Uint64(r0[g:])
		w1 := binary.LittleEndian.Uint64(r1[g:])
		w2 := binary.LittleEndian.Uint64(r2[g:])
		w3 := binary.LittleEndian.Uint64(r3[g:])
		w4 := binary.LittleEndian.Uint64(r4[g:])
		w5 := binary.LittleEndian.Uint64(r5[g:])
		w6 := binary.LittleEndian.Uint64(r6[g:])
		w7 := binary.LittleEndian.Uint64(r7[g:])
		// Word t gets byte t of every row: the bits of items 8t..8t+7.
		w0, w1, w2, w3, w4, w5, w6, w7 = transposeBytes8x8(w0, w1, w2, w3, w4, w5, w6, w7)
		o := out[8*g : 8*g+64]
		binary.LittleEndian.PutUint64(o[0:], transposeBits8x8(w0))
		binary.LittleEndian.PutUint64(o[8:], transposeBits8x8(w1))
		binary.LittleEndian.PutUint64(o[16:], transposeBits8x8(w2))
		binary.LittleEndian.PutUint64(o[24:], transposeBits8x8(w3))
		binary.LittleEndian.PutUint64(o[32:], transposeBits8x8(w4))
		binary.LittleEndian.PutUint64(o[40:], transposeBits8x8(w5))
		binary.LittleEndian.PutUint64(o[48:], transposeBits8x8(w6))
		binary.LittleEndian.PutUint64(o[56:], transposeBits8x8(w7))
	}
	for ; g < m; g++ {
		x := uint64(r0[g]) | uint64(r1[g])<<8 | uint64(r2[g])<<16 | uint64(r3[g])<<24 |
			uint64(r4[g])<<32 | uint64(r5[g])<<40 | uint64(r6[g])<<48 | uint64(r7[g])<<56
		binary.LittleEndian.PutUint64(out[8*g:], transposeBits8x8(x))
	}
}

// swapBytes exchanges, between a and b, the units of s bits selected by
// mask in b with the units above them in a: one step of a block
// transpose.
func swapBytes(a, b uint64, s uint, mask uint64) (uint64, uint64) {
	t := ((a >> s) ^ b) & mask
	return a ^ t<<s, b ^ t
}

// transposeBits8x8 transposes the 8x8 bit matrix held in x (byte k is row
// k, bit i of it column i): bit 8k+i moves to bit 8i+k.
func transposeBits8x8(x uint64) uint64 {
	t := (x ^ x>>7) & 0x00AA00AA00AA00AA
	x ^= t ^ t<<7
	t = (x ^ x>>14) & 0x0000CCCC0000CCCC
	x ^= t ^ t<<14
	t = (x ^ x>>28) & 0x00000000F0F0F0F0
	x ^= t ^ t<<28
	return x
}

// Unshuffle undoes HDF5's shuffle filter: src holds byte 0 of every
// element, then byte 1 of every element, ...; dst gets the elements back.
// Elements of 2, 4 and 8 bytes are assembled a word at a time.
func Unshuffle(src []byte, es int, dst []byte) []byte {
	if es <= 1 || len(src) < es {
		return src
	}
	n := len(src) / es
	dst = dst[:len(src)]
	switch es {
	case 8:
		p0, p1, p2, p3 := src[:n], src[n:2*n], src[2*n:3*n], src[3*n:4*n]
		p4, p5, p6, p7 := src[4*n:5*n], src[5*n:6*n], src[6*n:7*n], src[7*n:8*n]
		d := dst[:8*n]
		for i := range p0 {
			v := uint64(p0[i]) | uint64(p1[i])<<8 | uint64(p2[i])<<16 | uint64(p3[i])<<24 |
				uint64(p4[i])<<32 | uint64(p5[i])<<40 | uint64(p6[i])<<48 | uint64(p7[i])<<56
			binary.LittleEndian.PutUint64(d[8*i:], v)
		}
	case 4:
		p0, p1, p2, p3 := src[:n], src[n:2*n], src[2*n:3*n], src[3*n:4*n]
		d := dst[:4*n]
		for i := range p0 {
			v := uint32(p0[i]) | uint32(p1[i])<<8 | uint32(p2[i])<<16 | uint32(p3[i])<<24
			binary.LittleEndian.PutUint32(d[4*i:], v)
		}
	case 2:
		p0, p1 := src[:n], src[n:2*n]
		d := dst[:2*n]
		for i := range p0 {
			binary.LittleEndian.PutUint16(d[2*i:], uint16(p0[i])|uint16(p1[i])<<8)
		}
	default:
		for j := 0; j < es; j++ {
			plane := src[j*n : (j+1)*n]
			for i, c := range plane {
				dst[i*es+j] = c
			}
		}
	}
	copy(dst[n*es:], src[n*es:])
	return dst
}
