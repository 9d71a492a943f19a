package hdf5

import "bytes"

// HDF5 fixed-length strings carry a padding rule (the Pad of a string
// Datatype). h5py reads them into numpy S<n> through a NULLPAD memory
// type, and the HDF5 library converts each value on the way:
//
//   - NULLPAD: the bytes as stored (embedded NULs kept);
//   - NULLTERM: the value ends at its first NUL; the rest becomes NULs;
//   - SPACEPAD: trailing blanks are stripped and replaced by NULs.
//
// The readers return the bytes h5py's array holds: strFixes lists the
// strings inside an element that need the conversion, and fixStrings
// applies it to a buffer of whole elements.

// strFix is count strings of size bytes at off, off+stride, ... inside
// one element, with padding pad.
type strFix struct {
	off, size, count, stride, pad int
}

// maxStrFixes bounds the list a nested type may expand to; types with
// more strings than that (arrays of compounds of strings) are expanded
// up to the bound and then refused by stringFixes' caller.
const maxStrFixes = 1 << 16

// stringFixes returns the strings inside one element of t whose padding
// h5py's read converts (NULLTERM and SPACEPAD strings, also inside
// compounds and arrays), at byte offsets from base; ok is false when the
// list would exceed maxStrFixes.
func stringFixes(t *Datatype, base int, out []strFix, depth int) ([]strFix, bool) {
	if depth > maxDepth || len(out) > maxStrFixes {
		return out, false
	}
	switch t.Class {
	case ClassString:
		// A 1-byte NULLTERM string (netCDF's char) converts to itself.
		if (t.Pad == PadNullTerm && t.Size > 1) || t.Pad == PadSpace {
			out = append(out, strFix{off: base, size: t.Size, count: 1, stride: t.Size, pad: t.Pad})
		}
	case ClassCompound:
		var ok bool
		for _, m := range t.Members {
			if out, ok = stringFixes(m.Type, base+m.Offset, out, depth+1); !ok {
				return out, false
			}
		}
	case ClassArray:
		inner, ok := stringFixes(t.Base, 0, nil, depth+1)
		if !ok {
			return out, false
		}
		if len(inner) == 0 {
			return out, true
		}
		n := 1
		for _, d := range t.Dims {
			n *= int(d) // t.Size = n * Base.Size was checked
		}
		if len(inner) == 1 && inner[0].count == 1 {
			f := inner[0]
			return append(out, strFix{off: base + f.off, size: f.size, count: n, stride: t.Base.Size, pad: f.pad}), true
		}
		for i := 0; i < n; i++ {
			for _, f := range inner {
				f.off += base + i*t.Base.Size
				out = append(out, f)
			}
			if len(out) > maxStrFixes {
				return out, false
			}
		}
	}
	return out, true
}

// fixStrings converts the padding of the strings fixes lists in every
// whole element of es bytes in b.
func fixStrings(b []byte, es int, fixes []strFix) {
	if len(fixes) == 0 || es <= 0 {
		return
	}
	for e := 0; e+es <= len(b); e += es {
		elem := b[e : e+es]
		for _, f := range fixes {
			for k := 0; k < f.count; k++ {
				o := f.off + k*f.stride
				fixString(elem[o:o+f.size], f.pad)
			}
		}
	}
}

func fixString(s []byte, pad int) {
	switch pad {
	case PadNullTerm:
		if i := bytes.IndexByte(s, 0); i >= 0 {
			clear(s[i:])
		}
	case PadSpace:
		n := len(s)
		for n > 0 && s[n-1] == ' ' {
			n--
		}
		clear(s[n:])
	}
}
