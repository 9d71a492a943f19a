package hdf5

import (
	"errors"
	"fmt"
)

// decodeNBit undoes HDF5's n-bit filter (5), which keeps only the
// precision bits of each integer and floating-point value, packed with no
// gaps, most significant bit first. What to unpack is described in
// cd_values, as the library filled them in from the dataset's datatype
// when the dataset was created:
//
//	cd[0]  number of cd_values
//	cd[1]  1: every value has full precision and the chunk is stored as is
//	cd[2]  number of elements in a chunk
//	cd[3:] the datatype, one of:
//	       1 (atomic)    size, order (0 LE, 1 BE), precision, bit offset
//	       2 (array)     size, then the base type
//	       3 (compound)  size, number of members, then per member its byte
//	                     offset and its type
//	       4 (other)     size: the bytes are packed as they are
//
// The bits outside each value's precision decode as zeros, as the library
// leaves them.
func decodeNBit(p filterParams, src []byte, want uint64, dst []byte) ([]byte, error) {
	cd := p.CD
	if len(cd) < 5 {
		return nil, fmt.Errorf("%d parameters, want at least 5", len(cd))
	}
	if uint64(cd[0]) != uint64(len(cd)) {
		return nil, fmt.Errorf("%d parameters, the first says %d", len(cd), cd[0])
	}
	limit := codecLimit(want, dst)
	if cd[1] != 0 {
		if uint64(len(src)) > limit {
			return nil, fmt.Errorf("stored chunk of %d bytes is over the %d expected", len(src), limit)
		}
		return src, nil
	}
	nelem, size := uint64(cd[2]), uint64(cd[4])
	if size == 0 {
		return nil, errors.New("datatype size 0")
	}
	total, ok := mulOK(nelem, size, limit)
	if !ok || total > limit {
		return nil, fmt.Errorf("%d elements of %d bytes are over the chunk's %d bytes", nelem, size, limit)
	}
	prog, err := nbitProgram(cd)
	if err != nil {
		return nil, err
	}
	out := codecBuf(total, want, dst)
	clear(out)
	br := msbReader{src: src}
	es := int(size)
	for e := 0; e < int(nelem); e++ {
		elem := out[e*es : (e+1)*es]
		for _, op := range prog {
			if err := op.unpack(&br, elem); err != nil {
				return nil, fmt.Errorf("element %d: %w", e, err)
			}
		}
	}
	return out, nil
}

// nbitOp unpacks one atomic value (or, with raw set, size bytes of a type
// n-bit does not reduce) at byte off of an element.
type nbitOp struct {
	off, size         int
	bigEndian, raw    bool
	precision, bitOff int
}

func (op *nbitOp) unpack(br *msbReader, elem []byte) error {
	v := elem[op.off : op.off+op.size]
	if op.raw {
		for i := range v {
			b, ok := br.bits(8)
			if !ok {
				return errNBitShort
			}
			v[i] = byte(b)
		}
		return nil
	}
	// Bytes by significance, most significant first; each gets the bits
	// of [bitOff, bitOff+precision) it holds, at their place.
	top := op.bitOff + op.precision
	for s := (top - 1) / 8; s >= op.bitOff/8; s-- {
		lo := max(op.bitOff, 8*s) - 8*s
		hi := min(top, 8*s+8) - 8*s
		b, ok := br.bits(uint(hi - lo))
		if !ok {
			return errNBitShort
		}
		i := s
		if op.bigEndian {
			i = op.size - 1 - s
		}
		v[i] = byte(b << lo)
	}
	return nil
}

var errNBitShort = errors.New("packed data ends early")

// nbitMaxOps bounds the unpacking program of one element.
const nbitMaxOps = 1 << 16

// nbitProgram flattens the datatype description of cd[3:] into the
// values to unpack for each element, in order.
func nbitProgram(cd []uint32) ([]nbitOp, error) {
	pp := nbitParser{cd: cd, i: 3}
	var prog []nbitOp
	class, err := pp.next()
	if err != nil {
		return nil, err
	}
	size := int(cd[4])
	switch class {
	case 1, 2, 3:
		if err := pp.typ(class, 0, size, &prog, 0); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("datatype class code %d", class)
	}
	if pp.i != len(cd) {
		return nil, fmt.Errorf("%d parameters after the datatype description", len(cd)-pp.i)
	}
	return prog, nil
}

type nbitParser struct {
	cd []uint32
	i  int
}

func (pp *nbitParser) next() (int, error) {
	if pp.i >= len(pp.cd) {
		return 0, errors.New("parameters end inside the datatype description")
	}
	v := pp.cd[pp.i]
	pp.i++
	if v > 1<<30 {
		return 0, fmt.Errorf("parameter %d out of range", v)
	}
	return int(v), nil
}

// typ reads the description of a type of class code class (already read)
// placed at byte off of an element, within room bytes, and appends its
// operations to prog.
func (pp *nbitParser) typ(class, off, room int, prog *[]nbitOp, depth int) error {
	if depth > 32 {
		return errors.New("datatype nested too deeply")
	}
	size, err := pp.next()
	if err != nil {
		return err
	}
	if size == 0 || size > room {
		return fmt.Errorf("type of %d bytes in %d", size, room)
	}
	switch class {
	case 1:
		var f [3]int
		for k := range f {
			if f[k], err = pp.next(); err != nil {
				return err
			}
		}
		order, precision, bitOff := f[0], f[1], f[2]
		if order > 1 {
			return fmt.Errorf("byte order code %d", order)
		}
		if precision == 0 || precision+bitOff > 8*size {
			return fmt.Errorf("precision %d at bit offset %d in a %d-byte type", precision, bitOff, size)
		}
		return pp.emit(prog, nbitOp{off: off, size: size, bigEndian: order == 1, precision: precision, bitOff: bitOff})
	case 2:
		base, err := pp.next()
		if err != nil {
			return err
		}
		if base < 1 || base > 4 {
			return fmt.Errorf("array base class code %d", base)
		}
		if base == 4 {
			// The base type's size follows; the whole array is copied.
			if _, err := pp.next(); err != nil {
				return err
			}
			return pp.emit(prog, nbitOp{off: off, size: size, raw: true})
		}
		if pp.i >= len(pp.cd) || pp.cd[pp.i] == 0 || int64(pp.cd[pp.i]) > int64(size) {
			return errors.New("array base type size missing or larger than the array")
		}
		n := size / int(pp.cd[pp.i])
		start := pp.i
		for k := 0; k < n; k++ {
			pp.i = start
			if err := pp.typ(base, off+k*int(pp.cd[start]), size-k*int(pp.cd[start]), prog, depth+1); err != nil {
				return err
			}
		}
		return nil
	case 3:
		nmem, err := pp.next()
		if err != nil {
			return err
		}
		used := 0
		for m := 0; m < nmem; m++ {
			moff, err := pp.next()
			if err != nil {
				return err
			}
			mclass, err := pp.next()
			if err != nil {
				return err
			}
			if pp.i >= len(pp.cd) {
				return errors.New("parameters end inside a compound member")
			}
			msize := int64(pp.cd[pp.i])
			if msize == 0 || int64(used)+msize > int64(size) || int64(moff)+msize > int64(size) {
				return fmt.Errorf("member %d of %d bytes at offset %d overflows the %d-byte compound", m, msize, moff, size)
			}
			used += int(msize)
			switch mclass {
			case 1, 2, 3:
				if err := pp.typ(mclass, off+moff, int(msize), prog, depth+1); err != nil {
					return err
				}
			case 4:
				pp.i++
				if err := pp.emit(prog, nbitOp{off: off + moff, size: int(msize), raw: true}); err != nil {
					return err
				}
			default:
				return fmt.Errorf("member class code %d", mclass)
			}
		}
		return nil
	}
	return fmt.Errorf("datatype class code %d", class)
}

func (pp *nbitParser) emit(prog *[]nbitOp, op nbitOp) error {
	if len(*prog) >= nbitMaxOps {
		return errors.New("datatype has too many members")
	}
	*prog = append(*prog, op)
	return nil
}

// msbReader reads bit fields packed most significant bit first, as the
// n-bit, scale-offset and szip filters write them.
type msbReader struct {
	src []byte
	pos int    // next byte of src to load
	acc uint64 // loaded bits, the valid ones in the low n bits
	n   uint
}

// fill loads whole bytes while at least 8 bits are free.
func (r *msbReader) fill() {
	for r.n <= 56 && r.pos < len(r.src) {
		r.acc = r.acc<<8 | uint64(r.src[r.pos])
		r.pos++
		r.n += 8
	}
}

// bits returns the next k bits (k <= 56); ok is false when the input
// ends first.
func (r *msbReader) bits(k uint) (uint64, bool) {
	if r.n < k {
		r.fill()
		if r.n < k {
			return 0, false
		}
	}
	r.n -= k
	return (r.acc >> r.n) & (1<<k - 1), true
}

// bits64 returns the next k bits, k <= 64.
func (r *msbReader) bits64(k uint) (uint64, bool) {
	if k <= 56 {
		return r.bits(k)
	}
	hi, ok := r.bits(k - 32)
	if !ok {
		return 0, false
	}
	lo, ok := r.bits(32)
	return hi<<32 | lo, ok
}
