package hdf5

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
)

// decodeLZO undoes PyTables' LZO filter (305, complib='lzo' in PyTables
// and pandas). A chunk is one LZO1X stream, as lzo1x_1_compress writes
// it. PyTables before 0.8 could append the Adler-32 checksum of the
// decoded chunk and its length (4 bytes each, little-endian) after the
// stream; such a trailer is checked when present. cd_values (compression
// level, object version and type) are not needed to decode.
//
// An LZO1X stream is a sequence of instructions. What a byte below 16
// means depends on the state left by the previous instruction: how many
// literals it copied (0, 1-3, or 4 and more for a literal run):
//
//	first byte > 17       copy byte-17 literals (state: that count, or 4)
//	0000LLLL  state 0     literal run of L+3 bytes (L=0: 18 + extension)
//	0000DDSS  state 1-3   copy 2 bytes, distance (next<<2)+D+1
//	0000DDSS  state 4     copy 3 bytes, distance (next<<2)+D+2049
//	0001HLLL              copy L+2 bytes (L=0: 9 + extension), distance
//	                      16384 + H<<14 + (LE16>>2); 16384 ends the stream
//	001LLLLL              copy L+2 bytes (L=0: 33 + extension), distance
//	                      (LE16>>2)+1
//	01LDDDSS              copy L+3 bytes, distance (next<<3)+D+1
//	1LLDDDSS              copy L+5 bytes, distance (next<<3)+D+1
//
// A match is followed by S (0-3) literals, the low bits of its last
// instruction byte or of its LE16 distance. An extension is a run of zero
// bytes, each adding 255, and a non-zero byte that is added too.
func decodeLZO(p filterParams, src []byte, want uint64, dst []byte) ([]byte, error) {
	out := codecOut(want, dst)
	r := lzoReader{src: src, out: out, limit: cap(out)}
	end, err := r.run()
	if err != nil {
		return nil, err
	}
	out = r.out
	switch rest := src[end:]; len(rest) {
	case 0:
	case 8:
		sum, n := binary.LittleEndian.Uint32(rest), binary.LittleEndian.Uint32(rest[4:])
		if uint64(n) != uint64(len(out)) {
			return nil, fmt.Errorf("trailer gives %d decoded bytes, the stream gave %d", n, len(out))
		}
		if got := adler32.Checksum(out); got != sum {
			return nil, fmt.Errorf("Adler-32 checksum mismatch (stored %#08x, computed %#08x)", sum, got)
		}
	default:
		return nil, fmt.Errorf("%d bytes after the end of the stream", len(rest))
	}
	return out, nil
}

type lzoReader struct {
	src   []byte
	i     int
	out   []byte
	limit int
}

var errLZOTruncated = errors.New("stream truncated")

func (r *lzoReader) next() (int, error) {
	if r.i >= len(r.src) {
		return 0, errLZOTruncated
	}
	b := r.src[r.i]
	r.i++
	return int(b), nil
}

// extend reads a length extension: zero bytes add 255 each, then the
// first non-zero byte is added.
func (r *lzoReader) extend(base int) (int, error) {
	n := base
	for {
		b, err := r.next()
		if err != nil {
			return 0, err
		}
		if b != 0 {
			return n + b, nil
		}
		n += 255
		if n > r.limit {
			return 0, fmt.Errorf("length over %d bytes", r.limit)
		}
	}
}

func (r *lzoReader) literals(n int) error {
	if n > len(r.src)-r.i {
		return fmt.Errorf("literal run of %d bytes past the end of the stream", n)
	}
	if n > r.limit-len(r.out) {
		return fmt.Errorf("decodes to over %d bytes", r.limit)
	}
	r.out = append(r.out, r.src[r.i:r.i+n]...)
	r.i += n
	return nil
}

func (r *lzoReader) match(dist, n int) error {
	if dist > len(r.out) {
		return fmt.Errorf("match %d bytes back with only %d decoded", dist, len(r.out))
	}
	if n > r.limit-len(r.out) {
		return fmt.Errorf("decodes to over %d bytes", r.limit)
	}
	r.out = appendBackRef(r.out, dist, n)
	return nil
}

// run decodes the stream up to its end marker and returns the offset
// just past it.
func (r *lzoReader) run() (int, error) {
	state := 0
	if len(r.src) > 0 && r.src[0] > 17 {
		n := int(r.src[0]) - 17
		r.i = 1
		if err := r.literals(n); err != nil {
			return 0, err
		}
		state = min(n, 4)
	}
	for {
		t, err := r.next()
		if err != nil {
			return 0, err
		}
		var dist, n, s int
		switch {
		case t < 16 && state == 0:
			n = t + 3
			if t == 0 {
				if n, err = r.extend(18); err != nil {
					return 0, err
				}
			}
			if err := r.literals(n); err != nil {
				return 0, err
			}
			state = 4
			continue
		case t < 16:
			h, err := r.next()
			if err != nil {
				return 0, err
			}
			dist, n, s = (h<<2)+(t>>2)+1, 2, t&3
			if state == 4 {
				dist, n = dist+2048, 3
			}
		case t >= 64:
			h, err := r.next()
			if err != nil {
				return 0, err
			}
			dist, n, s = (h<<3)+((t>>2)&7)+1, (t>>5)+1, t&3
		default: // 16..63: a 16-bit distance follows the length
			var lenBits, base int
			if t >= 32 {
				lenBits, base = t&31, 33
			} else {
				lenBits, base = t&7, 9
			}
			n = lenBits + 2
			if lenBits == 0 {
				if n, err = r.extend(base); err != nil {
					return 0, err
				}
			}
			if r.i+2 > len(r.src) {
				return 0, errLZOTruncated
			}
			v := int(binary.LittleEndian.Uint16(r.src[r.i:]))
			r.i += 2
			dist, s = v>>2+1, v&3
			if t < 32 {
				dist = 16384 + ((t & 8) << 11) + (v >> 2)
				if dist == 16384 {
					return r.i, nil
				}
			}
		}
		if err := r.match(dist, n); err != nil {
			return 0, err
		}
		if err := r.literals(s); err != nil {
			return 0, err
		}
		state = s
	}
}
