package codec

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/pierrec/lz4/v4"
)

// DecodeLZ4 undoes the LZ4 filter (id 32004) in the framing of HDF5's
// LZ4 plugin (H5Zlz4.c, also in hdf5plugin):
//
//	offset  size  field
//	0       8     decoded size, big endian
//	8       4     block size in bytes, big endian
//	12      ...   blocks: 4-byte big-endian stored size, then an LZ4 block;
//	              a block whose stored size equals its decoded size is raw
//
// Every block but the last decodes to the block size. cd_values[0], the
// block size asked for when writing, is not needed to read.
func DecodeLZ4(p Params, src []byte, want uint64, dst []byte) ([]byte, error) {
	if len(src) < 12 {
		return nil, errors.New("shorter than its 12-byte header")
	}
	total := binary.BigEndian.Uint64(src)
	block := uint64(binary.BigEndian.Uint32(src[8:]))
	out, err := DecodeTarget(dst, total, want)
	if err != nil {
		return nil, err
	}
	if block > total {
		block = total
	}
	if block == 0 && total > 0 {
		return nil, errors.New("block size 0")
	}
	in := src[12:]
	var done uint64
	for done < total {
		n := min(block, total-done)
		if len(in) < 4 {
			return nil, fmt.Errorf("truncated at block %d", done/block)
		}
		c := uint64(binary.BigEndian.Uint32(in))
		in = in[4:]
		if c > uint64(len(in)) {
			return nil, fmt.Errorf("block %d of %d bytes runs past the chunk's end", done/block, c)
		}
		o := out[done : done+n]
		if c == n {
			copy(o, in[:c])
		} else {
			k, err := lz4.UncompressBlock(in[:c], o)
			if err != nil {
				return nil, fmt.Errorf("block %d: %v", done/block, err)
			}
			if uint64(k) != n {
				return nil, fmt.Errorf("block %d decodes to %d bytes, want %d", done/block, k, n)
			}
		}
		in = in[c:]
		done += n
	}
	return out, nil
}
