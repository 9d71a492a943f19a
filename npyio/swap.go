package npyio

import (
	"encoding/binary"
	"math/bits"
)

// fixOp is one step of converting an element between file and native
// layout: reverse the bytes of count units of unit bytes starting at off,
// or (unit 1) normalize count bool bytes to 0 or 1.
type fixOp struct {
	off, unit, count int
}

// fixer converts elements of one dtype between the file's byte order and
// the native one (the conversion is its own inverse), and normalizes bools
// to 0/1 when reading. A nil *fixer does nothing.
type fixer struct {
	size int
	ops  []fixOp
}

// newFixer returns the fixer for d, or nil when the bytes need no change.
// normBool adds bool normalization (reading only).
func newFixer(d *DType, normBool bool) *fixer {
	var ops []fixOp
	collectOps(d, 0, 1, normBool, &ops)
	if len(ops) == 0 || d.Size == 0 {
		return nil
	}
	// Merge adjacent ops of the same unit.
	merged := ops[:1]
	for _, op := range ops[1:] {
		last := &merged[len(merged)-1]
		if op.unit == last.unit && op.off == last.off+last.unit*last.count {
			last.count += op.count
			continue
		}
		merged = append(merged, op)
	}
	return &fixer{size: d.Size, ops: merged}
}

func collectOps(d *DType, off, count int, normBool bool, ops *[]fixOp) {
	switch d.Kind {
	case Struct:
		for i := 0; i < count; i++ {
			base := off + i*d.Size
			for j := range d.Fields {
				f := &d.Fields[j]
				collectOps(f.Type, base+f.Offset, f.Count(), normBool, ops)
			}
		}
	case Bool:
		if normBool && count > 0 {
			*ops = append(*ops, fixOp{off: off, unit: 1, count: count})
		}
	default:
		u := d.swapUnit()
		if u > 1 && d.Order != NativeOrder && count > 0 && d.Size > 0 {
			*ops = append(*ops, fixOp{off: off, unit: u, count: count * d.Size / u})
		}
	}
}

// apply converts every whole element in b in place.
func (f *fixer) apply(b []byte) {
	if f == nil {
		return
	}
	if len(f.ops) == 1 && f.ops[0].off == 0 && f.ops[0].unit*f.ops[0].count == f.size {
		// Homogeneous elements: one bulk loop over the whole buffer.
		n := len(b) / f.size * f.size
		fixRun(b[:n], f.ops[0].unit)
		return
	}
	// Op by op over all elements: single values (the common struct field)
	// get a tight strided loop.
	n := len(b) / f.size * f.size
	for _, op := range f.ops {
		if op.count == 1 {
			fixStrided(b[:n], op.off, f.size, op.unit)
			continue
		}
		w := op.unit * op.count
		for e := 0; e < n; e += f.size {
			fixRun(b[e+op.off:e+op.off+w], op.unit)
		}
	}
}

// fixStrided converts one unit-sized value at offset off of every
// stride-byte element of b.
func fixStrided(b []byte, off, stride, unit int) {
	switch unit {
	case 1:
		for i := off; i < len(b); i += stride {
			if b[i] > 1 {
				b[i] = 1
			}
		}
	case 2:
		for i := off; i+2 <= len(b); i += stride {
			b[i], b[i+1] = b[i+1], b[i]
		}
	case 4:
		for i := off; i+4 <= len(b); i += stride {
			binary.LittleEndian.PutUint32(b[i:], bits.ReverseBytes32(binary.LittleEndian.Uint32(b[i:])))
		}
	case 8:
		for i := off; i+8 <= len(b); i += stride {
			binary.LittleEndian.PutUint64(b[i:], bits.ReverseBytes64(binary.LittleEndian.Uint64(b[i:])))
		}
	default:
		for i := off; i+unit <= len(b); i += stride {
			fixRun(b[i:i+unit], unit)
		}
	}
}

// fixRun byte-swaps each unit-sized value in b (unit 2, 4 or 8, or any size
// by reversal), or normalizes bools when unit is 1.
func fixRun(b []byte, unit int) {
	switch unit {
	case 1:
		for i, c := range b {
			if c > 1 {
				b[i] = 1
			}
		}
	case 2:
		for i := 0; i+2 <= len(b); i += 2 {
			b[i], b[i+1] = b[i+1], b[i]
		}
	case 4:
		for i := 0; i+4 <= len(b); i += 4 {
			binary.LittleEndian.PutUint32(b[i:], bits.ReverseBytes32(binary.LittleEndian.Uint32(b[i:])))
		}
	case 8:
		for i := 0; i+8 <= len(b); i += 8 {
			binary.LittleEndian.PutUint64(b[i:], bits.ReverseBytes64(binary.LittleEndian.Uint64(b[i:])))
		}
	default:
		for i := 0; i+unit <= len(b); i += unit {
			v := b[i : i+unit]
			for l, r := 0, unit-1; l < r; l, r = l+1, r-1 {
				v[l], v[r] = v[r], v[l]
			}
		}
	}
}
