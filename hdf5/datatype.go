package hdf5

import (
	"fmt"
	"sort"
	"strings"

	"github.com/npyflow/npyflow/npyio"
)

// Class is the class of an HDF5 datatype.
type Class uint8

// Datatype classes, numbered as in the file format.
const (
	ClassFixedPoint Class = 0
	ClassFloat      Class = 1
	ClassTime       Class = 2
	ClassString     Class = 3
	ClassBitfield   Class = 4
	ClassOpaque     Class = 5
	ClassCompound   Class = 6
	ClassReference  Class = 7
	ClassEnum       Class = 8
	ClassVarLen     Class = 9
	ClassArray      Class = 10
)

var classNames = [...]string{"fixed-point", "floating-point", "time", "string", "bitfield", "opaque", "compound", "reference", "enum", "variable-length", "array"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("class %d", c)
}

// String padding (for fixed-length and variable-length strings).
const (
	PadNullTerm  = 0
	PadNull      = 1
	PadSpace     = 2
	CharsetASCII = 0
	CharsetUTF8  = 1
)

// Reference kinds.
const (
	RefObject = 0
	RefRegion = 1
)

// Datatype is an HDF5 datatype as stored in a datatype message.
type Datatype struct {
	Class     Class
	Version   int
	Size      int  // bytes per element
	BigEndian bool // fixed-point, float, bitfield (and enum through Base)
	Signed    bool // fixed-point

	// Fixed-point, float, bitfield: bit offset and precision.
	BitOffset, Precision int
	// Float: IEEE field layout.
	ExpLocation, ExpSize, MantLocation, MantSize int
	ExpBias                                      uint32

	// String and variable-length string: padding and character set.
	Pad     int
	Charset int

	// VarLenString is set for a variable-length string (Class ClassVarLen).
	VarLenString bool

	// RefKind is RefObject or RefRegion for references.
	RefKind int

	// Tag is an opaque type's tag.
	Tag string

	// Members of a compound (Name, Offset, Type) or enum (Name, Value).
	Members []Member

	// Base is the base type of an enum, variable-length type or array.
	Base *Datatype

	// Dims are an array type's dimensions.
	Dims []uint64
}

// Member is a compound field or an enum constant.
type Member struct {
	Name   string
	Offset int       // compound: byte offset in the record
	Type   *Datatype // compound: the field type
	Value  []byte    // enum: the value, in the base type's encoding
}

func (t *Datatype) String() string {
	var sb strings.Builder
	t.describe(&sb)
	return sb.String()
}

func (t *Datatype) describe(sb *strings.Builder) {
	order := "LE"
	if t.BigEndian {
		order = "BE"
	}
	switch t.Class {
	case ClassFixedPoint:
		s := "u"
		if t.Signed {
			s = "i"
		}
		fmt.Fprintf(sb, "%s%d %s", s, t.Size*8, order)
	case ClassFloat:
		fmt.Fprintf(sb, "f%d %s", t.Size*8, order)
	case ClassBitfield:
		fmt.Fprintf(sb, "bitfield%d %s", t.Size*8, order)
	case ClassString:
		fmt.Fprintf(sb, "string[%d] %s %s", t.Size, padName(t.Pad), charsetName(t.Charset))
	case ClassVarLen:
		if t.VarLenString {
			fmt.Fprintf(sb, "vlen string %s", charsetName(t.Charset))
		} else {
			sb.WriteString("vlen ")
			t.Base.describe(sb)
		}
	case ClassReference:
		if t.RefKind == RefObject {
			sb.WriteString("object reference")
		} else {
			sb.WriteString("region reference")
		}
	case ClassOpaque:
		fmt.Fprintf(sb, "opaque[%d] %q", t.Size, t.Tag)
	case ClassEnum:
		sb.WriteString("enum ")
		t.Base.describe(sb)
		sb.WriteString(" {")
		for i, m := range t.Members {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(sb, "%s=%d", m.Name, t.Base.intValue(m.Value))
		}
		sb.WriteString("}")
	case ClassCompound:
		sb.WriteString("compound {")
		for i, m := range t.Members {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(sb, "%s@%d: ", m.Name, m.Offset)
			m.Type.describe(sb)
		}
		sb.WriteString("}")
	case ClassArray:
		fmt.Fprintf(sb, "array%v of ", t.Dims)
		t.Base.describe(sb)
	default:
		fmt.Fprintf(sb, "%s[%d]", t.Class, t.Size)
	}
}

func padName(p int) string {
	switch p {
	case PadNullTerm:
		return "nullterm"
	case PadNull:
		return "nullpad"
	case PadSpace:
		return "spacepad"
	}
	return fmt.Sprintf("pad%d", p)
}

func charsetName(c int) string {
	switch c {
	case CharsetASCII:
		return "ascii"
	case CharsetUTF8:
		return "utf-8"
	}
	return fmt.Sprintf("charset%d", c)
}

// intValue decodes an integer of this fixed-point type (for enum values).
func (t *Datatype) intValue(b []byte) int64 {
	if t == nil || len(b) < t.Size || t.Size > 8 || t.Size == 0 {
		return 0
	}
	var v uint64
	for i := 0; i < t.Size; i++ {
		var c byte
		if t.BigEndian {
			c = b[i]
		} else {
			c = b[t.Size-1-i]
		}
		v = v<<8 | uint64(c)
	}
	if t.Signed && t.Size < 8 && v&(1<<(uint(t.Size)*8-1)) != 0 {
		v |= ^uint64(0) << (uint(t.Size) * 8)
	}
	return int64(v)
}

// parseDatatype decodes a datatype message body. depth bounds nesting.
func (f *File) parseDatatype(d *dec, depth int, addr uint64) (*Datatype, error) {
	if depth > maxDepth {
		return nil, f.corrupt(int64(addr), "datatype nested over %d levels", maxDepth)
	}
	cv := d.u8()
	b0, b1, b2 := d.u8(), d.u8(), d.u8()
	size := d.u32()
	if !d.ok() {
		return nil, f.corrupt(int64(addr), "truncated datatype message")
	}
	t := &Datatype{Class: Class(cv & 0x0f), Version: int(cv >> 4), Size: int(size)}
	if t.Version < 1 || t.Version > 5 {
		return nil, f.corrupt(int64(addr), "datatype version %d", t.Version)
	}
	if size > 1<<28 {
		return nil, f.corrupt(int64(addr), "datatype of %d bytes", size)
	}
	bits := uint32(b0) | uint32(b1)<<8 | uint32(b2)<<16
	switch t.Class {
	case ClassFixedPoint, ClassBitfield:
		t.BigEndian = bits&1 != 0
		t.Signed = t.Class == ClassFixedPoint && bits&8 != 0
		t.BitOffset, t.Precision = int(d.u16()), int(d.u16())
	case ClassFloat:
		t.BigEndian = bits&1 != 0
		if bits&0x40 != 0 {
			return nil, f.unsupported("", "VAX-order floating point")
		}
		t.BitOffset, t.Precision = int(d.u16()), int(d.u16())
		t.ExpLocation, t.ExpSize = int(d.u8()), int(d.u8())
		t.MantLocation, t.MantSize = int(d.u8()), int(d.u8())
		t.ExpBias = d.u32()
	case ClassTime:
		t.BigEndian = bits&1 != 0
		t.Precision = int(d.u16())
	case ClassString:
		t.Pad, t.Charset = int(bits&0xf), int(bits>>4&0xf)
	case ClassOpaque:
		n := int(bits & 0xff)
		tag := d.bytes(n)
		t.Tag = strings.TrimRight(string(tag), "\x00")
		d.align8From(n)
	case ClassCompound:
		n := int(bits & 0xffff)
		if n > d.rest() {
			return nil, f.corrupt(int64(addr), "compound with %d members in a %d-byte message", n, d.rest())
		}
		for i := 0; i < n; i++ {
			var m Member
			start := d.pos
			m.Name = d.cstring()
			switch t.Version {
			case 1, 2:
				// name padded to a multiple of 8 bytes
				if r := (d.pos - start) % 8; r != 0 {
					d.skip(8 - r)
				}
				m.Offset = int(d.u32())
			default:
				m.Offset = int(d.uvar(bytesFor(uint64(size))))
			}
			var dims []uint64
			if t.Version == 1 {
				rank := int(d.u8())
				d.skip(3 + 4 + 4)
				for j := 0; j < 4; j++ {
					v := d.u32()
					if j < rank {
						dims = append(dims, uint64(v))
					}
				}
				if rank > 4 {
					return nil, f.corrupt(int64(addr), "compound member %q of rank %d", m.Name, rank)
				}
			}
			if !d.ok() {
				return nil, f.corrupt(int64(addr), "truncated compound member")
			}
			mt, err := f.parseDatatype(d, depth+1, addr)
			if err != nil {
				return nil, err
			}
			if len(dims) > 0 {
				mt, err = arrayOf(f, mt, dims, addr)
				if err != nil {
					return nil, err
				}
			}
			m.Type = mt
			if m.Offset < 0 || m.Offset+mt.Size > t.Size || m.Offset+mt.Size < m.Offset {
				return nil, f.corrupt(int64(addr), "compound member %q (offset %d, size %d) outside the %d-byte record", m.Name, m.Offset, mt.Size, t.Size)
			}
			t.Members = append(t.Members, m)
		}
	case ClassReference:
		t.RefKind = int(bits & 0xf)
		if t.Version >= 4 {
			return nil, f.unsupported("", "HDF5 1.12 reference datatype (version %d)", t.Version)
		}
	case ClassEnum:
		n := int(bits & 0xffff)
		base, err := f.parseDatatype(d, depth+1, addr)
		if err != nil {
			return nil, err
		}
		if base.Class != ClassFixedPoint {
			return nil, f.corrupt(int64(addr), "enum of base class %s", base.Class)
		}
		t.Base = base
		if n > d.rest() {
			return nil, f.corrupt(int64(addr), "enum with %d members in a %d-byte message", n, d.rest())
		}
		t.Members = make([]Member, n)
		for i := range t.Members {
			start := d.pos
			t.Members[i].Name = d.cstring()
			if t.Version < 3 {
				if r := (d.pos - start) % 8; r != 0 {
					d.skip(8 - r)
				}
			}
		}
		for i := range t.Members {
			t.Members[i].Value = d.bytes(base.Size)
		}
	case ClassVarLen:
		t.VarLenString = bits&0xf == 1
		t.Pad, t.Charset = int(bits>>4&0xf), int(bits>>8&0xf)
		base, err := f.parseDatatype(d, depth+1, addr)
		if err != nil {
			return nil, err
		}
		t.Base = base
	case ClassArray:
		rank := int(d.u8())
		if t.Version < 3 {
			d.skip(3)
		}
		if rank == 0 || rank > 32 {
			return nil, f.corrupt(int64(addr), "array datatype of rank %d", rank)
		}
		dims := make([]uint64, rank)
		for i := range dims {
			dims[i] = uint64(d.u32())
		}
		if t.Version < 3 {
			d.skip(4 * rank)
		}
		if !d.ok() {
			return nil, f.corrupt(int64(addr), "truncated array datatype")
		}
		base, err := f.parseDatatype(d, depth+1, addr)
		if err != nil {
			return nil, err
		}
		t.Base = base
		t.Dims = dims
		n := uint64(base.Size)
		for _, v := range dims {
			var ok bool
			if n, ok = mulOK(n, v, 1<<28); !ok {
				return nil, f.corrupt(int64(addr), "array datatype of %v elements too large", dims)
			}
		}
		if n != uint64(t.Size) {
			return nil, f.corrupt(int64(addr), "array datatype size %d does not match %v x %d", t.Size, dims, base.Size)
		}
	default:
		return nil, f.unsupported("", "datatype class %d", t.Class)
	}
	if !d.ok() {
		return nil, f.corrupt(int64(addr), "truncated %s datatype message", t.Class)
	}
	if err := f.checkTypeSize(t, addr); err != nil {
		return nil, err
	}
	return t, nil
}

// checkTypeSize checks the size of a datatype against its class, so that
// decoders can index values by it.
func (f *File) checkTypeSize(t *Datatype, addr uint64) error {
	ok := t.Size > 0
	switch t.Class {
	case ClassVarLen:
		ok = t.Size == 16
	case ClassReference:
		ok = (t.RefKind == RefObject && t.Size == 8) || (t.RefKind != RefObject && t.Size == 12)
	case ClassEnum:
		ok = t.Base != nil && t.Size == t.Base.Size
	case ClassFixedPoint, ClassBitfield:
		ok = t.Size > 0 && t.Size <= 16
	}
	if !ok {
		return f.corrupt(int64(addr), "%s datatype of %d bytes", t.Class, t.Size)
	}
	return nil
}

func arrayOf(f *File, base *Datatype, dims []uint64, addr uint64) (*Datatype, error) {
	n := uint64(base.Size)
	for _, v := range dims {
		var ok bool
		if n, ok = mulOK(n, v, 1<<28); !ok {
			return nil, f.corrupt(int64(addr), "array member too large")
		}
	}
	return &Datatype{Class: ClassArray, Version: 1, Size: int(n), Base: base, Dims: dims}, nil
}

// align8From skips padding after n bytes so that n becomes a multiple of 8.
func (d *dec) align8From(n int) {
	if r := n % 8; r != 0 {
		d.skip(8 - r)
	}
}

// isBoolEnum reports h5py's boolean enum (FALSE = 0, TRUE = 1 on int8).
func (t *Datatype) isBoolEnum() bool {
	if t.Class != ClassEnum || len(t.Members) != 2 || t.Base.Size != 1 {
		return false
	}
	return t.Members[0].Name == "FALSE" && t.Base.intValue(t.Members[0].Value) == 0 &&
		t.Members[1].Name == "TRUE" && t.Base.intValue(t.Members[1].Value) == 1
}

func (t *Datatype) order() byte {
	if t.Size == 1 {
		return npyio.NotApplicable
	}
	if t.BigEndian {
		return npyio.BigEndian
	}
	return npyio.LittleEndian
}

// NumpyDType maps a fixed-size datatype to the numpy dtype h5py gives it:
// integers, floats (f2, f4, f8), bitfields (as unsigned integers), enums (as
// their base integer; h5py's FALSE/TRUE enum as bool), fixed-length
// strings (S<n>), compounds (structured, with HDF5's offsets; fields in
// offset order, which numpy's descr needs, where h5py keeps the members'
// stored order; overlapping members are refused) and arrays inside
// compounds (subarray fields). A top-level array type maps to its
// base type plus the extra dimensions returned second. Variable-length
// types, references, opaque and time types are refused (ErrUnsupported).
func (t *Datatype) NumpyDType() (*npyio.DType, []int, error) {
	return t.numpyDType(false)
}

// numpyDType is NumpyDType; with wide, fixed-length UTF-8 strings below
// the top level (compound members, array elements) map to U<n>, n their
// byte width, with the offsets after them shifted by the growth (the
// layout Dataset.DType gives and utf8Plan converts to).
func (t *Datatype) numpyDType(wide bool) (*npyio.DType, []int, error) {
	if t.Class == ClassArray {
		base, inner, err := t.Base.numpyDType(wide)
		if err != nil {
			return nil, nil, err
		}
		dims := make([]int, 0, len(t.Dims)+len(inner))
		for _, d := range t.Dims {
			dims = append(dims, int(d))
		}
		return base, append(dims, inner...), nil
	}
	dt, err := t.scalarDType(0, wide)
	return dt, nil, err
}

func (t *Datatype) scalarDType(depth int, wide bool) (*npyio.DType, error) {
	if depth > maxDepth {
		return nil, &UnsupportedError{Feature: "datatype nested too deeply"}
	}
	switch t.Class {
	case ClassFixedPoint, ClassBitfield:
		switch t.Size {
		case 1, 2, 4, 8:
		default:
			return nil, &UnsupportedError{Feature: fmt.Sprintf("%d-byte integer type (numpy has 1, 2, 4, 8)", t.Size)}
		}
		k := npyio.Uint
		if t.Signed {
			k = npyio.Int
		}
		return &npyio.DType{Kind: k, Order: t.order(), Size: t.Size}, nil
	case ClassFloat:
		ok := (t.Size == 2 && t.ExpSize == 5 && t.MantSize == 10) ||
			(t.Size == 4 && t.ExpSize == 8 && t.MantSize == 23) ||
			(t.Size == 8 && t.ExpSize == 11 && t.MantSize == 52)
		if !ok {
			return nil, &UnsupportedError{Feature: fmt.Sprintf("%d-byte floating point with %d exponent and %d mantissa bits (numpy reads IEEE f2, f4, f8)", t.Size, t.ExpSize, t.MantSize)}
		}
		return &npyio.DType{Kind: npyio.Float, Order: t.order(), Size: t.Size}, nil
	case ClassEnum:
		if t.isBoolEnum() {
			return npyio.BoolType, nil
		}
		return t.Base.scalarDType(depth+1, wide)
	case ClassString:
		if wide && t.Charset == CharsetUTF8 {
			return npyio.NewString(npyio.Unicode, t.Size)
		}
		return &npyio.DType{Kind: npyio.Bytes, Order: npyio.NotApplicable, Size: t.Size}, nil
	case ClassCompound:
		if dt := t.complexDType(); dt != nil {
			return dt, nil
		}
		fields := make([]npyio.Field, 0, len(t.Members))
		stored := make(map[string]int, len(t.Members)) // members' stored sizes
		seen := map[string]bool{}
		for _, m := range t.Members {
			if seen[m.Name] {
				return nil, &UnsupportedError{Feature: fmt.Sprintf("compound with duplicate member name %q", m.Name)}
			}
			seen[m.Name] = true
			mt := m.Type
			var shape []int
			for mt.Class == ClassArray {
				for _, d := range mt.Dims {
					shape = append(shape, int(d))
				}
				mt = mt.Base
			}
			ft, err := mt.scalarDType(depth+1, wide)
			if err != nil {
				return nil, &UnsupportedError{Feature: fmt.Sprintf("compound member %q: %s", m.Name, unsupportedFeature(err))}
			}
			fields = append(fields, npyio.Field{Name: m.Name, Type: ft, Shape: shape, Offset: m.Offset})
			stored[m.Name] = m.Type.Size
		}
		// numpy's list form of a structured dtype (the .npy header, the
		// descr) holds fields in offset order; HDF5 keeps members in the
		// order they were inserted, which may differ (h5py writes a dtype
		// with offsets as given). Same fields, same offsets, offset order.
		sort.SliceStable(fields, func(i, j int) bool { return fields[i].Offset < fields[j].Offset })
		for i := 1; i < len(fields); i++ {
			if p := &fields[i-1]; fields[i].Offset < p.Offset+stored[p.Name] {
				return nil, &UnsupportedError{Feature: fmt.Sprintf("compound members %q (offset %d, %d bytes) and %q (offset %d) overlap", p.Name, p.Offset, stored[p.Name], fields[i].Name, fields[i].Offset)}
			}
		}
		// Wide UTF-8 strings take 4 bytes a byte: each field moves by the
		// growth of the fields before it (utf8Plan converts the same way).
		grow := 0
		for i := range fields {
			f := &fields[i]
			f.Offset += grow
			grow += f.Size() - stored[f.Name]
		}
		return &npyio.DType{Kind: npyio.Struct, Order: npyio.NotApplicable, Size: t.Size + grow, Fields: fields}, nil
	case ClassVarLen:
		if t.VarLenString {
			return nil, &UnsupportedError{Feature: "variable-length string (use Dataset.DType, which finds the width, or ReadStrings)"}
		}
		return nil, &UnsupportedError{Feature: "variable-length sequence type (numpy object arrays are not produced)"}
	case ClassReference:
		if t.RefKind == RefRegion {
			return nil, &UnsupportedError{Feature: "region reference type (not read)"}
		}
		return nil, &UnsupportedError{Feature: "object reference type (no numpy equivalent; use ReadReferences)"}
	case ClassOpaque:
		if dt := t.numpyOpaque(); dt != nil {
			return dt, nil
		}
		return nil, &UnsupportedError{Feature: fmt.Sprintf("opaque type (tag %q) has no faithful numpy type", t.Tag)}
	case ClassArray:
		return nil, &UnsupportedError{Feature: "nested array type"}
	}
	return nil, &UnsupportedError{Feature: t.Class.String() + " type"}
}

// numpyOpaque is the dtype an opaque type tagged as h5py tags numpy types
// names ("NUMPY:<M8[ms]", h5py.opaque_dtype), when the tag is a numpy
// typestr of the type's size; nil otherwise.
func (t *Datatype) numpyOpaque() *npyio.DType {
	s, ok := strings.CutPrefix(t.Tag, NumpyOpaqueTag)
	if !ok {
		return nil
	}
	dt, err := npyio.ParseTypeStr(s)
	if err != nil || dt.Size != t.Size || !dt.IsSupported() {
		return nil
	}
	switch dt.Kind {
	case npyio.Struct, npyio.Object, npyio.Invalid:
		return nil
	}
	return dt
}

func unsupportedFeature(err error) string {
	if u, ok := err.(*UnsupportedError); ok {
		return u.Feature
	}
	return err.Error()
}

// complexDType maps h5py's complex layout (a compound of two floats of one
// type named r and i, packed) to c8 or c16, as h5py reads it.
func (t *Datatype) complexDType() *npyio.DType {
	if len(t.Members) != 2 {
		return nil
	}
	r, i := t.Members[0], t.Members[1]
	if r.Name != "r" || i.Name != "i" || r.Type.Class != ClassFloat || i.Type.Class != ClassFloat {
		return nil
	}
	sz := r.Type.Size
	if (sz != 4 && sz != 8) || i.Type.Size != sz || r.Type.BigEndian != i.Type.BigEndian ||
		r.Offset != 0 || i.Offset != sz || t.Size != 2*sz {
		return nil
	}
	if _, err := r.Type.scalarDType(1, false); err != nil {
		return nil
	}
	if _, err := i.Type.scalarDType(1, false); err != nil {
		return nil
	}
	return &npyio.DType{Kind: npyio.Complex, Order: r.Type.order(), Size: 2 * sz}
}
