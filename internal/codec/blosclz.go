package codec

import (
	"errors"
	"fmt"
)

// BloscLZ, Blosc's own codec: an LZ77 format derived from FastLZ level 1.
// A stream is a sequence of instructions, each starting with a control
// byte ctrl (the first instruction is always literals and only the low 5
// bits of its control byte count):
//
//   - ctrl < 32: a literal run: the next ctrl+1 bytes are copied;
//   - ctrl >= 32: a match. Its length is (ctrl>>5)+2; when ctrl>>5 is 7,
//     bytes follow that are added to it, up to and including the first
//     that is not 255. The next byte c gives the distance
//     ((ctrl&31)<<8) + c + 1, except when c is 255 and ctrl&31 is 31:
//     then two more bytes give a big-endian d and the distance is
//     d + 8192. The match copies that many bytes from that far back in
//     the output (the copy may overlap what it writes).
//
// The stream ends with its last byte; the output must then be full.

const blosclzMaxDistance = 8191

var errBlosclzTruncated = errors.New("blosclz: stream ends inside an instruction")

// BlosclzDecode decodes the BloscLZ stream src into out, which it must
// fill exactly.
func BlosclzDecode(src, out []byte) error {
	if len(src) == 0 {
		return errors.New("blosclz: empty stream")
	}
	ip, op := 1, 0
	ctrl := uint(src[0] & 31)
	for {
		if ctrl >= 32 {
			n := int(ctrl>>5) - 1
			dist := int(ctrl&31) << 8
			if n == 6 {
				for {
					if ip >= len(src) {
						return errBlosclzTruncated
					}
					c := src[ip]
					ip++
					n += int(c)
					if c != 255 {
						break
					}
					if n > len(out) {
						return fmt.Errorf("blosclz: match longer than the %d-byte output", len(out))
					}
				}
			}
			if ip >= len(src) {
				return errBlosclzTruncated
			}
			c := src[ip]
			ip++
			n += 3
			if c == 255 && dist == 31<<8 {
				if ip+2 > len(src) {
					return errBlosclzTruncated
				}
				dist = (int(src[ip])<<8 | int(src[ip+1])) + blosclzMaxDistance + 1
				ip += 2
			} else {
				dist += int(c) + 1
			}
			if n > len(out)-op {
				return fmt.Errorf("blosclz: output over %d bytes", len(out))
			}
			if dist > op {
				return fmt.Errorf("blosclz: match %d bytes back at output byte %d", dist, op)
			}
			matchCopy(out, op, dist, n)
			op += n
		} else {
			n := int(ctrl) + 1
			if n > len(out)-op {
				return fmt.Errorf("blosclz: output over %d bytes", len(out))
			}
			if n > len(src)-ip {
				return errBlosclzTruncated
			}
			copy(out[op:op+n], src[ip:])
			op += n
			ip += n
		}
		if ip >= len(src) {
			break
		}
		ctrl = uint(src[ip])
		ip++
	}
	if op != len(out) {
		return fmt.Errorf("blosclz: stream decodes to %d bytes, want %d", op, len(out))
	}
	return nil
}

// matchCopy appends n bytes to out[:op], copied from dist bytes back; the
// source may overlap the destination, repeating a pattern of dist bytes.
func matchCopy(out []byte, op, dist, n int) {
	ref := op - dist
	if dist >= n {
		copy(out[op:op+n], out[ref:op])
		return
	}
	if dist == 1 {
		b := out[ref]
		d := out[op : op+n]
		for i := range d {
			d[i] = b
		}
		return
	}
	// The pattern doubles at each copy; k stays a multiple of dist.
	for k := 0; k < n; {
		k += copy(out[op+k:op+n], out[ref:op+k])
	}
}
