package hdf5

import "fmt"

// decodeLZF undoes h5py's LZF filter (32000). A chunk is one LZF block as
// liblzf writes it, with no header: its cd_values (the filter revision,
// the LZF API version and the chunk size in bytes) are not needed to
// decode it. Chunks that LZF would enlarge are stored as they are, with
// the filter's bit set in the chunk's filter mask (the filter is
// optional), so they never reach this decoder.
//
// An LZF block is a sequence of items, each starting with a control byte
// c:
//
//	c < 32    a literal run: the next c+1 bytes are copied
//	c >= 32   a back reference: length c>>5 (7 adds the next byte), plus
//	          2; distance ((c&31)<<8 | next byte) + 1 back in the output
func decodeLZF(p filterParams, src []byte, want uint64, dst []byte) ([]byte, error) {
	out := codecOut(want, dst)
	limit := cap(out)
	for i := 0; i < len(src); {
		c := int(src[i])
		i++
		if c < 32 {
			n := c + 1
			if i+n > len(src) {
				return nil, fmt.Errorf("literal run of %d bytes at offset %d past the end of the %d-byte block", n, i-1, len(src))
			}
			if len(out)+n > limit {
				return nil, fmt.Errorf("decodes to over %d bytes", limit)
			}
			out = append(out, src[i:i+n]...)
			i += n
			continue
		}
		n := c >> 5
		if n == 7 {
			if i >= len(src) {
				return nil, fmt.Errorf("back reference at offset %d truncated", i-1)
			}
			n += int(src[i])
			i++
		}
		if i >= len(src) {
			return nil, fmt.Errorf("back reference at offset %d truncated", i-1)
		}
		dist := ((c&31)<<8 | int(src[i])) + 1
		i++
		n += 2
		if dist > len(out) {
			return nil, fmt.Errorf("back reference %d bytes back with only %d decoded", dist, len(out))
		}
		if len(out)+n > limit {
			return nil, fmt.Errorf("decodes to over %d bytes", limit)
		}
		out = appendBackRef(out, dist, n)
	}
	return out, nil
}

// appendBackRef appends n bytes copied from dist bytes back in out (the
// copy may overlap what it appends); the caller checked that dist <=
// len(out) and that out has room for n more bytes.
func appendBackRef(out []byte, dist, n int) []byte {
	start := len(out) - dist
	if dist >= n {
		return append(out, out[start:start+n]...)
	}
	for n > 0 {
		k := min(n, len(out)-start)
		out = append(out, out[start:start+k]...)
		n -= k
	}
	return out
}
