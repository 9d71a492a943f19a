package codec

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/pierrec/lz4/v4"
)

// Bitshuffle filter (id 32008, github.com/kiyo-masui/bitshuffle, also in
// hdf5plugin). cd_values: 0 and 1 the filter's version, 2 the element
// size, 3 the block size in elements (0: the default), 4 the compression
// (0 none, 2 LZ4, 3 Zstandard), 5 the Zstandard level.
//
// The elements are cut in blocks of the block size; the last block keeps
// the largest multiple of 8 elements left and the last n%8 elements are
// stored as they are. Each block is bitshuffled (see BitUnshuffle).
// Without compression the chunk is the blocks one after the other. With
// compression it starts with a 12-byte header (decoded size as a
// big-endian uint64, block size in bytes as a big-endian uint32) and each
// block is a 4-byte big-endian stored size followed by an LZ4 block or a
// Zstandard frame; the leftover elements follow uncompressed.
const (
	bshufCompressNone = 0
	bshufCompressLZ4  = 2
	bshufCompressZstd = 3
)

// BitshuffleDefaultBlock is bitshuffle's default block size in elements for
// elements of es bytes: 8 KiB worth, a multiple of 8, at least 128.
func BitshuffleDefaultBlock(es int) int {
	b := 8192 / es / 8 * 8
	return max(b, 128)
}

// DecodeBitshuffle undoes the bitshuffle filter whose settings are p.CD (see
// above) on src, an encoded chunk of want bytes.
func DecodeBitshuffle(p Params, src []byte, want uint64, dst []byte) ([]byte, error) {
	if len(p.CD) < 3 {
		return nil, fmt.Errorf("%d filter parameters, want at least 3", len(p.CD))
	}
	es := int(p.CD[2])
	if es <= 0 || es > 1<<20 {
		return nil, fmt.Errorf("element size %d", p.CD[2])
	}
	block := 0
	if len(p.CD) > 3 {
		if p.CD[3] > 1<<30 {
			return nil, fmt.Errorf("block size %d", p.CD[3])
		}
		block = int(p.CD[3])
	}
	comp := uint32(bshufCompressNone)
	if len(p.CD) > 4 {
		comp = p.CD[4]
	}
	var total uint64
	switch comp {
	case bshufCompressNone:
		total = uint64(len(src))
	case bshufCompressLZ4, bshufCompressZstd:
		if len(src) < 12 {
			return nil, errors.New("shorter than its 12-byte header")
		}
		total = binary.BigEndian.Uint64(src)
		bb := int64(binary.BigEndian.Uint32(src[8:]))
		block = int(bb / int64(es))
		src = src[12:]
	default:
		return nil, &UnsupportedError{fmt.Sprintf("bitshuffle compression %d (only none, LZ4 and Zstandard are known)", comp)}
	}
	if block == 0 {
		block = BitshuffleDefaultBlock(es)
	}
	if block%8 != 0 {
		return nil, fmt.Errorf("block size %d elements, not a multiple of 8", block)
	}
	out, err := DecodeTarget(dst, total, want)
	if err == nil && total%uint64(es) != 0 {
		err = fmt.Errorf("%d bytes is not a whole number of %d-byte elements", total, es)
	}
	if err != nil {
		if comp != bshufCompressNone && uint64(len(src))+12 == want {
			// Debian's bitshuffle 0.3.5 has no Zstandard: it stores such
			// chunks bitshuffled but uncompressed, and says zstd.
			return nil, fmt.Errorf("%v; the chunk has the size of its data: stored uncompressed while the filter says %s (as bitshuffle builds without Zstandard write it)", err, map[uint32]string{2: "LZ4", 3: "Zstandard"}[comp])
		}
		return nil, err
	}
	n := int(total / uint64(es))
	bb := block * es
	need := min(bb, len(out))
	scratch := GetScratch(2 * need)
	defer PutScratch(scratch)
	tmp, buf := (*scratch)[:need], (*scratch)[need:2*need]
	pos := 0 // elements done
	for pos+8 <= n {
		k := min(block, (n-pos)/8*8)
		o := out[pos*es : (pos+k)*es]
		switch comp {
		case bshufCompressNone:
			BitUnshuffle(o, src[:k*es], tmp, k, es)
			src = src[k*es:]
		default:
			if len(src) < 4 {
				return nil, fmt.Errorf("truncated at element %d", pos)
			}
			c := uint64(binary.BigEndian.Uint32(src))
			src = src[4:]
			if c > uint64(len(src)) {
				return nil, fmt.Errorf("block at element %d: %d stored bytes run past the chunk's end", pos, c)
			}
			raw := buf[:k*es]
			if comp == bshufCompressLZ4 {
				m, err := lz4.UncompressBlock(src[:c], raw)
				if err != nil {
					return nil, fmt.Errorf("block at element %d: lz4: %v", pos, err)
				}
				if m != len(raw) {
					return nil, fmt.Errorf("block at element %d decodes to %d bytes, want %d", pos, m, len(raw))
				}
			} else if err := ZstdDecodeInto(src[:c], raw); err != nil {
				return nil, fmt.Errorf("block at element %d: %v", pos, err)
			}
			BitUnshuffle(o, raw, tmp, k, es)
			src = src[c:]
		}
		pos += k
	}
	left := (n - pos) * es
	if len(src) < left {
		return nil, fmt.Errorf("truncated in its last %d elements", n-pos)
	}
	copy(out[pos*es:], src[:left])
	return out, nil
}
