package zfp

import (
	"encoding/binary"
	"fmt"
	"math"
)

// integer is the integer type a block is coded in: int32 for int32 and
// float32 fields, int64 for int64 and float64 ones.
type integer interface{ ~int32 | ~int64 }

// Decode decodes the stream src of the header's field into dst, which
// must hold exactly the field's values (Len times the type's size), as
// little-endian values in C order (the last of the caller's dimensions
// fastest: nx). src must hold every block.
func (h *Header) Decode(src, dst []byte) error {
	if len(h.Dims) < 1 || len(h.Dims) > 4 {
		return formatErr("%d dimensions (1 to 4 are coded)", len(h.Dims))
	}
	if want := uint64(h.Len()) * uint64(h.Type.Size()); uint64(len(dst)) != want {
		return fmt.Errorf("zfp field of %d %s values (%v) is %d bytes, the output %d", h.Len(), h.Type, h.Dims, want, len(dst))
	}
	d := decoder{h: h, r: newReader(src), dims: len(h.Dims), size: 1 << (2 * len(h.Dims))}
	d.perm = perms[d.dims-1]
	d.intprec, d.nbmask, d.tcmask = 32, 0xaaaaaaaa, 0x7fffffff
	if h.Type.Size() == 8 {
		d.intprec, d.nbmask, d.tcmask = 64, 0xaaaaaaaaaaaaaaaa, 0x7fffffffffffffff
	}
	switch h.Type {
	case Int32, Float32:
		return decodeField[int32](&d, dst)
	case Int64, Float64:
		return decodeField[int64](&d, dst)
	}
	return formatErr("scalar type %d", h.Type)
}

// decoder is the state of one call of Decode.
type decoder struct {
	h    *Header
	r    reader
	dims int
	size int     // values in a block: 4^dims
	perm []uint8 // coefficient order
	// intprec is the width of the block's integers; nbmask maps them
	// from negabinary, tcmask from two's complement to sign and magnitude
	intprec        uint32
	nbmask, tcmask uint64
	ub             [256]uint64
}

// decodeField decodes every block in order and scatters its values.
func decodeField[T integer](d *decoder, dst []byte) error {
	var ib [256]T
	var fb [256]uint64 // the block's values as raw bits
	nd := [4]int{1, 1, 1, 1}
	copy(nd[:], d.h.Dims)
	es := d.h.Type.Size()
	bx, by, bz, bw := (nd[0]+3)/4, (nd[1]+3)/4, (nd[2]+3)/4, (nd[3]+3)/4
	for w := range bw {
		for z := range bz {
			for y := range by {
				for x := range bx {
					decodeBlock(d, ib[:d.size], fb[:d.size])
					if d.r.past() {
						return formatErr("stream of %d bytes ends in block (%d, %d, %d, %d)", len(d.r.src), x, y, z, w)
					}
					// scatter the block's values that fall in the field
					x0, y0, z0, w0 := 4*x, 4*y, 4*z, 4*w
					for l := 0; l < 4 && w0+l < nd[3]; l++ {
						for k := 0; k < 4 && z0+k < nd[2]; k++ {
							for j := 0; j < 4 && y0+j < nd[1]; j++ {
								row := x0 + nd[0]*(y0+j+nd[1]*(z0+k+nd[2]*(w0+l)))
								q := 4 * (j + 4*(k+4*l))
								for i := 0; i < 4 && x0+i < nd[0]; i++ {
									if es == 4 {
										binary.LittleEndian.PutUint32(dst[4*(row+i):], uint32(fb[q+i]))
									} else {
										binary.LittleEndian.PutUint64(dst[8*(row+i):], fb[q+i])
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return nil
}

// decodeBlock decodes the next block into fb, the raw bits of its values.
func decodeBlock[T integer](d *decoder, ib []T, fb []uint64) {
	h := d.h
	switch h.Type {
	case Int32, Int64:
		if h.reversible() {
			revIntBlock(d, h.MinBits, h.MaxBits, ib)
		} else {
			intBlock(d, h.MinBits, h.MaxBits, h.MaxPrec, ib)
		}
		for i, v := range ib {
			fb[i] = uint64(v)
		}
		return
	}
	ebits, ebias := uint32(8), 127
	if h.Type == Float64 {
		ebits, ebias = 11, 1023
	}
	bits := uint32(1)
	if d.r.readBit() == 0 { // a block of zeros
		clear(fb)
		if h.MinBits > bits {
			d.r.skip(uint64(h.MinBits - bits))
		}
		return
	}
	if h.reversible() {
		bits++
		if d.r.readBit() != 0 { // the values' bits, coded as integers
			revIntBlock(d, h.MinBits-min(bits, h.MinBits), h.MaxBits-bits, ib)
			for i, v := range ib {
				u := uint64(v)
				if v < 0 { // two's complement to sign and magnitude
					u ^= d.tcmask
				}
				fb[i] = u
			}
			return
		}
		bits += ebits
		emax := int(d.r.readBits(uint(ebits))) - ebias
		revIntBlock(d, h.MinBits-min(bits, h.MinBits), h.MaxBits-bits, ib)
		if emax == -ebias {
			clear(fb)
			return
		}
		invCast(h.Type, ib, fb, emax)
		return
	}
	bits += ebits
	emax := int(d.r.readBits(uint(ebits))) - ebias
	intBlock(d, h.MinBits-min(bits, h.MinBits), h.MaxBits-bits, precision(emax, h.MaxPrec, h.MinExp, d.dims), ib)
	invCast(h.Type, ib, fb, emax)
}

// precision is the number of bit planes coded of a block of floats whose
// largest exponent is emax.
func precision(emax int, maxprec uint32, minexp int32, dims int) uint32 {
	p := max(0, emax-int(minexp)+2*dims+2)
	return uint32(min(int(maxprec), p))
}

// invCast scales the block's integers back to floats: value i is ib[i]
// times 2^(emax - (bits of the type - 2)), rounded as zfp rounds it (the
// integer to the float type, then the product).
func invCast[T integer](t Type, ib []T, fb []uint64, emax int) {
	if t == Float32 {
		s := float32(math.Ldexp(1, emax-30))
		for i, v := range ib {
			fb[i] = uint64(math.Float32bits(float32(v) * s))
		}
		return
	}
	s := math.Ldexp(1, emax-62)
	for i, v := range ib {
		fb[i] = math.Float64bits(float64(v) * s)
	}
}

// intBlock decodes a block of integers coded with the lossy transform.
// Block parameters are uint32 as in zfp, whose arithmetic on them wraps.
func intBlock[T integer](d *decoder, minbits, maxbits, maxprec uint32, ib []T) {
	ub := d.ub[:d.size]
	bits := decodeInts(&d.r, maxbits, maxprec, ub, d.intprec)
	if bits < minbits {
		d.r.skip(uint64(minbits - bits))
	}
	order(d, ub, ib)
	for axis := d.dims - 1; axis >= 0; axis-- {
		s := 1 << (2 * axis)
		for _, base := range lineStarts[d.dims-1][axis] {
			invLift(ib, int(base), s)
		}
	}
}

// revIntBlock decodes a block of integers coded with the reversible
// transform: its precision comes first.
func revIntBlock[T integer](d *decoder, minbits, maxbits uint32, ib []T) {
	pbits := uint32(5)
	if d.intprec == 64 {
		pbits = 6
	}
	prec := uint32(d.r.readBits(uint(pbits))) + 1
	ub := d.ub[:d.size]
	bits := pbits + decodeInts(&d.r, maxbits-pbits, prec, ub, d.intprec)
	if bits < minbits {
		d.r.skip(uint64(minbits - bits))
	}
	order(d, ub, ib)
	for axis := d.dims - 1; axis >= 0; axis-- {
		s := 1 << (2 * axis)
		for _, base := range lineStarts[d.dims-1][axis] {
			revInvLift(ib, int(base), s)
		}
	}
}

// lineStarts[d-1][a] are the indices in a d-dimensional block where a line
// of 4 values along axis a starts (the index's digit a, base 4, is 0).
// The transform is undone axis by axis, the last first, as zfp does.
var lineStarts = func() (t [4][4][]uint8) {
	for d := 1; d <= 4; d++ {
		for a := range d {
			s := 1 << (2 * a)
			for i := range 1 << (2 * d) {
				if i/s%4 == 0 {
					t[d-1][a] = append(t[d-1][a], uint8(i))
				}
			}
		}
	}
	return t
}()

// order undoes the coefficient order and the negabinary mapping: coded
// coefficient i is the block's value perm[i].
func order[T integer](d *decoder, ub []uint64, ib []T) {
	nb := d.nbmask
	for i, u := range ub {
		ib[d.perm[i]] = T((u ^ nb) - nb)
	}
}

// invLift undoes zfp's lossy lifting transform of the 4 values at p[i],
// p[i+s], p[i+2s], p[i+3s]. The arithmetic wraps, as zfp's does.
func invLift[T integer](p []T, i, s int) {
	x, y, z, w := p[i], p[i+s], p[i+2*s], p[i+3*s]
	y += w >> 1
	w -= y >> 1
	y += w
	w -= y - w
	z += x
	x -= z - x
	y += z
	z -= y - z
	w += x
	x -= w - x
	p[i], p[i+s], p[i+2*s], p[i+3*s] = x, y, z, w
}

// revInvLift undoes zfp's reversible transform of 4 values: the
// high-order Lorenzo predictor (the P4 Pascal matrix).
func revInvLift[T integer](p []T, i, s int) {
	x, y, z, w := p[i], p[i+s], p[i+2*s], p[i+3*s]
	w += z
	z += y
	w += z
	y += x
	z += y
	w += z
	p[i], p[i+s], p[i+2*s], p[i+3*s] = x, y, z, w
}

// decodeInts decodes the bit planes of a block's size coefficients into
// data (each intprec bits wide), from plane intprec-1 down to at most
// maxprec planes, reading at most maxbits bits, and returns the number of
// bits read. A plane starts with the bits of the coefficients already
// significant, then a unary run-length code finds the coefficients that
// become significant in it: a 1 says one more does (the zeros up to the
// next 1 are skipped over, the last coefficient's 1 is implied), a 0 ends
// the plane.
func decodeInts(r *reader, maxbits, maxprec uint32, data []uint64, intprec uint32) uint32 {
	clear(data)
	size := uint32(len(data))
	kmin := uint32(0)
	if intprec > maxprec {
		kmin = intprec - maxprec
	}
	bits := maxbits
	n := uint32(0)
	for k := intprec; bits != 0 && k > kmin; {
		k--
		m := min(n, bits)
		bits -= m
		if size <= 64 {
			x := r.readBits(uint(m))
			for i := 0; x != 0; i, x = i+1, x>>1 {
				data[i] += (x & 1) << k
			}
		} else {
			for i := range m {
				data[i] += r.readBit() << k
			}
		}
		for ; bits != 0 && n < size; n++ {
			bits--
			if r.readBit() == 0 {
				break
			}
			for ; bits != 0 && n < size-1; n++ {
				bits--
				if r.readBit() != 0 {
					break
				}
			}
			data[n] += 1 << k
		}
	}
	return maxbits - bits
}
