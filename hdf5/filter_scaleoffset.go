package hdf5

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// decodeScaleOffset undoes HDF5's scale-offset filter (6). Its 20
// cd_values, filled in by the library when the dataset was created:
//
//	cd[0]     scale type: 0 floats, decimal scale (D); 1 floats, fixed
//	          minimum bits (never implemented by the library); 2 integers
//	cd[1]     scale factor: D for floats, minimum bits for integers
//	          (full size: the chunk is stored as is)
//	cd[2]     number of elements in a chunk
//	cd[3]     class: 0 integer, 1 floating point
//	cd[4]     size in bytes (1, 2, 4, 8 integers; 4, 8 floats)
//	cd[5]     sign: 0 unsigned, 1 two's complement
//	cd[6]     byte order: 0 little-endian, 1 big-endian
//	cd[7]     1 when the dataset has a fill value (even the default 0)
//	cd[8:10]  the fill value, its bytes little-endian, 4 to a parameter
//
// A chunk starts with a 21-byte header: the number of bits per value
// (4 bytes, little-endian), the size of the minimum (1 byte, 8) and the
// minimum itself (little-endian; a float's bits for floats). The values
// follow, each as that many bits, most significant first. A value with
// every bit set stands for the fill value when there is one; any other
// is added to the minimum (integers) or becomes value/10^D + minimum,
// computed in the float's own precision as the library does. With bits
// per value equal to the full size, the values are stored as they are
// (little-endian); with 0 bits, every value is the minimum.
func decodeScaleOffset(p filterParams, src []byte, want uint64, dst []byte) ([]byte, error) {
	cd := p.CD
	if len(cd) != 20 {
		return nil, fmt.Errorf("%d parameters, want 20", len(cd))
	}
	limit := codecLimit(want, dst)
	scaleType, factor := cd[0], int32(cd[1])
	nelem, class, size := uint64(cd[2]), cd[3], uint64(cd[4])
	bigEndian, hasFill := cd[6] == 1, cd[7] == 1 // cd[5], the sign, does not matter: values wrap alike
	switch {
	case class == 0 && scaleType == 2 && (size == 1 || size == 2 || size == 4 || size == 8):
		if factor < 0 {
			factor = 0
		}
		if uint64(factor) > size*8 {
			return nil, fmt.Errorf("%d minimum bits for %d-byte integers", factor, size)
		}
		if uint64(factor) == size*8 {
			if uint64(len(src)) > limit {
				return nil, fmt.Errorf("stored chunk of %d bytes is over the %d expected", len(src), limit)
			}
			return src, nil
		}
	case class == 1 && scaleType == 0 && (size == 4 || size == 8):
	case class == 1 && scaleType == 1:
		return nil, errors.New("fixed-minimum-bits (E) scaling, which the HDF5 library never implemented")
	default:
		return nil, fmt.Errorf("scale type %d, class %d, size %d", scaleType, class, size)
	}
	total, ok := mulOK(nelem, size, limit)
	if !ok || total > limit {
		return nil, fmt.Errorf("%d elements of %d bytes are over the chunk's %d bytes", nelem, size, limit)
	}
	if len(src) < 21 {
		return nil, fmt.Errorf("chunk of %d bytes, shorter than its 21-byte header", len(src))
	}
	minbits := uint64(binary.LittleEndian.Uint32(src))
	var minval uint64
	for i := 0; i < min(8, int(src[4])); i++ {
		minval |= uint64(src[5+i]) << (8 * i)
	}
	if minbits > size*8 {
		return nil, fmt.Errorf("%d bits per value for %d-byte values", minbits, size)
	}
	data := src[21:]
	out := codecBuf(total, want, dst)
	es := int(size)
	put := func(i int, v uint64) {
		b := out[i*es : (i+1)*es]
		if bigEndian {
			for k := es - 1; k >= 0; k-- {
				b[k] = byte(v)
				v >>= 8
			}
		} else {
			for k := range b {
				b[k] = byte(v)
				v >>= 8
			}
		}
	}
	if minbits == size*8 {
		if uint64(len(data)) < total {
			return nil, fmt.Errorf("%d bytes of values for %d", len(data), total)
		}
		for i := 0; i < int(nelem); i++ {
			var v uint64
			for k := es - 1; k >= 0; k-- {
				v = v<<8 | uint64(data[i*es+k])
			}
			put(i, v)
		}
		return out, nil
	}
	if need := (nelem*minbits + 7) / 8; uint64(len(data)) < need {
		return nil, fmt.Errorf("%d bytes of packed values for %d", len(data), need)
	}
	// Fill value and the marker standing for it.
	fill := uint64(cd[8]) | uint64(cd[9])<<32
	marker := uint64(1)<<minbits - 1
	br := msbReader{src: data}
	next := func() uint64 {
		if minbits == 0 {
			return 0
		}
		v, _ := br.bits64(uint(minbits))
		return v
	}
	switch {
	case class == 0:
		for i := 0; i < int(nelem); i++ {
			v := next()
			if hasFill && v == marker {
				put(i, fill)
			} else {
				put(i, v+minval)
			}
		}
	case size == 4:
		scale := float32(math.Pow10(int(factor)))
		m := math.Float32frombits(uint32(minval))
		for i := 0; i < int(nelem); i++ {
			v := int32(uint32(next()))
			if hasFill && uint64(uint32(v)) == marker {
				put(i, fill&0xffffffff)
				continue
			}
			put(i, uint64(math.Float32bits(float32(float32(v)/scale)+m)))
		}
	default:
		scale := math.Pow10(int(factor))
		m := math.Float64frombits(minval)
		for i := 0; i < int(nelem); i++ {
			v := int64(next())
			if hasFill && uint64(v) == marker {
				put(i, fill)
				continue
			}
			put(i, math.Float64bits(float64(float64(v)/scale)+m))
		}
	}
	return out, nil
}
