package hdf5

// A bitField is an integer value narrower than its bytes: a fixed-point
// or bitfield type whose precision is below its size, or whose value bits
// start at a bit offset, as the n-bit filter's datasets have. The HDF5
// library (and so h5py) reads such a value as a full integer: its
// precision bits shifted down and, when signed, sign-extended. The row
// and box readers do the same to the stored bytes.
type bitField struct {
	off, size         int // byte offset in the element, bytes
	bigEndian, signed bool
	precision, bitOff uint
}

// maxBitFields bounds the narrow values of one element (arrays of them
// repeat).
const maxBitFields = 1 << 16

// bitFields appends the narrow integer values of one element of type t,
// placed at byte off, to out. ok is false when there are too many.
func bitFields(t *Datatype, off int, out []bitField, depth int) ([]bitField, bool) {
	if depth > maxDepth {
		return out, true
	}
	switch t.Class {
	case ClassFixedPoint, ClassBitfield:
		if t.Size < 1 || t.Size > 8 || t.Precision <= 0 || t.BitOffset < 0 || t.Precision+t.BitOffset > 8*t.Size {
			return out, true // not a type numpy reads; DType refuses or maps it
		}
		if t.Precision == 8*t.Size {
			return out, true
		}
		if len(out) >= maxBitFields {
			return out, false
		}
		return append(out, bitField{off: off, size: t.Size, bigEndian: t.BigEndian,
			signed: t.Signed && t.Class == ClassFixedPoint, precision: uint(t.Precision), bitOff: uint(t.BitOffset)}), true
	case ClassEnum:
		if t.Base != nil {
			return bitFields(t.Base, off, out, depth+1)
		}
	case ClassCompound:
		for _, m := range t.Members {
			var ok bool
			if out, ok = bitFields(m.Type, off+m.Offset, out, depth+1); !ok {
				return out, false
			}
		}
	case ClassArray:
		if t.Base == nil || t.Base.Size <= 0 {
			return out, true
		}
		before := len(out)
		var ok bool
		if out, ok = bitFields(t.Base, off, out, depth+1); !ok || len(out) == before {
			return out, ok
		}
		one := append([]bitField(nil), out[before:]...)
		n := t.Size / t.Base.Size
		if n > maxBitFields/len(one) {
			return out, false
		}
		for i := 1; i < n; i++ {
			for _, f := range one {
				f.off += i * t.Base.Size
				out = append(out, f)
			}
		}
	}
	return out, true
}

// narrowFields lists the narrow integer values of one element of t
// (nil when there are none); ok is false when there are too many to
// convert.
func narrowFields(t *Datatype) ([]bitField, bool) {
	fields, ok := bitFields(t, 0, nil, 0)
	if !ok {
		return nil, false
	}
	out := fields[:0]
	for _, f := range fields {
		if f.off >= 0 && f.off+f.size <= t.Size {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, true
	}
	return out, true
}

// fixBitFields turns the narrow values of each element of b (elements of
// es bytes) into full integers.
func fixBitFields(b []byte, es int, fields []bitField) {
	for e := 0; e+es <= len(b); e += es {
		for _, f := range fields {
			f.fix(b[e+f.off : e+f.off+f.size])
		}
	}
}

func (f *bitField) fix(b []byte) {
	var v uint64
	if f.bigEndian {
		for _, c := range b {
			v = v<<8 | uint64(c)
		}
	} else {
		for i := len(b) - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
	}
	v >>= f.bitOff
	v &= 1<<f.precision - 1
	if f.signed && v>>(f.precision-1) != 0 {
		v |= ^uint64(0) << f.precision
	}
	if f.bigEndian {
		for i := len(b) - 1; i >= 0; i-- {
			b[i] = byte(v)
			v >>= 8
		}
	} else {
		for i := range b {
			b[i] = byte(v)
			v >>= 8
		}
	}
}
