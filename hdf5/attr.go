package hdf5

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/npyflow/npyflow/npyio"
)

// Reference is an HDF5 object reference: the address of an object header.
type Reference uint64

// Attribute is an attribute of a group or dataset, with its value.
type Attribute struct {
	Name  string
	Type  *Datatype
	Shape []uint64 // nil for a scalar; empty with Null set for no value
	Null  bool     // the dataspace is null (no value at all)

	f     *File
	owner string
	data  []byte
}

// Bytes returns the raw value: Len() elements of Type.Size bytes each in
// the file's encoding (for variable-length types, the 16-byte heap
// descriptors). The slice must not be modified.
func (a *Attribute) Bytes() []byte { return a.data }

// Len is the number of elements of the value (1 for a scalar).
func (a *Attribute) Len() int {
	if a.Null {
		return 0
	}
	n := 1
	for _, d := range a.Shape {
		n *= int(d)
	}
	return n
}

func (a *Attribute) errorf(format string, args ...any) error {
	return fmt.Errorf("hdf5: %s: attribute %s of %s: %s", a.f.name, a.Name, a.owner, fmt.Sprintf(format, args...))
}

// Attrs returns the attributes of the object (compact and dense storage)
// sorted by name.
func (o *object) Attrs() ([]*Attribute, error) {
	h, err := o.header()
	if err != nil {
		return nil, err
	}
	f := o.f
	var out []*Attribute
	for _, m := range h.msgs {
		if m.typ == msgAttribute {
			if m.flags&2 != 0 {
				return nil, f.unsupported(o.path, "attribute stored as a shared message")
			}
			a, err := f.parseAttribute(m.data, m.addr, o.path)
			if err != nil {
				return nil, err
			}
			out = append(out, a)
		}
	}
	if m := h.find(msgAttrInfo); m != nil {
		d := &dec{b: m.data}
		if v := d.u8(); v != 0 {
			return nil, f.corrupt(int64(m.addr), "attribute info message version %d", v)
		}
		flags := d.u8()
		if flags&1 != 0 {
			d.skip(2)
		}
		heapAddr, nameIdx := d.u64(), d.u64()
		if !d.ok() {
			return nil, f.corrupt(int64(m.addr), "truncated attribute info message")
		}
		if heapAddr != undefAddr && nameIdx != undefAddr {
			heap, err := f.openHeap(heapAddr)
			if err != nil {
				return nil, err
			}
			t, err := f.openBT2(nameIdx, 8)
			if err != nil {
				return nil, err
			}
			err = t.each(func(rec []byte) error {
				if len(out) >= maxHeaderMessages {
					return f.corrupt(int64(nameIdx), "over %d attributes", maxHeaderMessages)
				}
				if len(rec) < heap.idLen+1 || heap.idLen == 0 {
					return f.corrupt(int64(nameIdx), "attribute name record of %d bytes", len(rec))
				}
				if rec[heap.idLen]&1 != 0 {
					return f.unsupported(o.path, "attribute stored in the shared message heap")
				}
				obj, err := heap.get(rec[:heap.idLen])
				if err != nil {
					return err
				}
				a, err := f.parseAttribute(obj, heapAddr, o.path)
				if err != nil {
					return err
				}
				out = append(out, a)
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Attr returns the attribute with the given name.
func (o *object) Attr(name string) (*Attribute, error) {
	attrs, err := o.Attrs()
	if err != nil {
		return nil, err
	}
	for _, a := range attrs {
		if a.Name == name {
			return a, nil
		}
	}
	return nil, fmt.Errorf("hdf5: %s: %s has no attribute %q: %w", o.f.name, o.path, name, ErrNotFound)
}

// sharedType resolves a shared (committed) datatype message.
func (f *File) sharedType(b []byte, addr uint64, depth int) (*Datatype, error) {
	d := &dec{b: b}
	ver := d.u8()
	typ := d.u8()
	switch ver {
	case 1:
		d.skip(6)
	case 2:
	case 3:
		if typ != 2 {
			return nil, f.unsupported("", "datatype in the shared object header message heap")
		}
	default:
		return nil, f.corrupt(int64(addr), "shared message version %d", ver)
	}
	target := d.u64()
	if !d.ok() {
		return nil, f.corrupt(int64(addr), "truncated shared message")
	}
	if depth > 4 {
		return nil, f.corrupt(int64(addr), "shared datatype chain too long")
	}
	h, err := f.header(target)
	if err != nil {
		return nil, err
	}
	m := h.find(msgDatatype)
	if m == nil {
		return nil, f.corrupt(int64(target), "shared datatype object without a datatype message")
	}
	if m.flags&2 != 0 {
		return f.sharedType(m.data, m.addr, depth+1)
	}
	return f.parseDatatype(&dec{b: m.data}, 0, m.addr)
}

func (f *File) parseAttribute(b []byte, addr uint64, owner string) (*Attribute, error) {
	d := &dec{b: b}
	ver := d.u8()
	flags := d.u8()
	nameSize := int(d.u16())
	dtSize := int(d.u16())
	dsSize := int(d.u16())
	pad := func(n int) int { return n }
	switch ver {
	case 1:
		pad = func(n int) int { return (n + 7) &^ 7 }
	case 2:
	case 3:
		d.skip(1)
	default:
		return nil, f.corrupt(int64(addr), "%s: attribute message version %d", owner, ver)
	}
	if !d.ok() || nameSize > d.rest() || dtSize > d.rest() || dsSize > d.rest() {
		return nil, f.corrupt(int64(addr), "%s: truncated attribute message", owner)
	}
	nb := d.bytes(pad(nameSize))
	if len(nb) >= nameSize && nameSize > 0 {
		nb = nb[:nameSize]
	}
	name := strings.TrimRight(string(nb), "\x00")
	dtb := d.bytes(pad(dtSize))
	dsb := d.bytes(pad(dsSize))
	if !d.ok() {
		return nil, f.corrupt(int64(addr), "%s: truncated attribute message", owner)
	}
	a := &Attribute{Name: name, f: f, owner: owner}
	var err error
	if flags&1 != 0 {
		a.Type, err = f.sharedType(dtb, addr, 0)
	} else {
		a.Type, err = f.parseDatatype(&dec{b: dtb}, 0, addr)
	}
	if err != nil {
		return nil, fmt.Errorf("attribute %q of %s: %w", name, owner, err)
	}
	if flags&2 != 0 {
		return nil, f.unsupported(owner, "attribute %q with a shared dataspace", name)
	}
	ds, err := f.parseDataspace(dsb, addr)
	if err != nil {
		return nil, err
	}
	a.Null = ds.null
	if len(ds.dims) > 0 {
		a.Shape = ds.dims
	}
	n, ok := ds.count()
	if !ok {
		return nil, f.corrupt(int64(addr), "%s: attribute %q of shape %v too large", owner, name, ds.dims)
	}
	size, ok := mulOK(n, uint64(a.Type.Size), uint64(d.rest()))
	if !ok || size > uint64(d.rest()) {
		return nil, f.corrupt(int64(addr), "%s: attribute %q value of %d x %d bytes does not fit its %d-byte message", owner, name, n, a.Type.Size, d.rest())
	}
	a.data = d.bytes(int(size))
	return a, nil
}

// trimString removes an HDF5 string's padding.
func trimString(b []byte, pad int) string {
	switch pad {
	case PadNullTerm:
		if i := bytes.IndexByte(b, 0); i >= 0 {
			b = b[:i]
		}
	case PadNull:
		b = bytes.TrimRight(b, "\x00")
	case PadSpace:
		// HDF5 strips the blanks; numpy's S<n> then drops the NULs
		// that replace them (and any before them).
		b = bytes.TrimRight(bytes.TrimRight(b, " "), "\x00")
	}
	return string(b)
}

// Strings decodes a string-valued attribute: fixed-length strings (padding
// removed), variable-length strings, and variable-length sequences of
// 1-byte strings or integers (such as MATLAB_fields), each sequence joined
// into one string.
func (a *Attribute) Strings() ([]string, error) {
	t := a.Type
	n := a.Len()
	out := make([]string, 0, n)
	switch {
	case t.Class == ClassString:
		for i := 0; i < n; i++ {
			out = append(out, trimString(a.data[i*t.Size:(i+1)*t.Size], t.Pad))
		}
	case t.Class == ClassVarLen && (t.VarLenString || (t.Base.Size == 1 && (t.Base.Class == ClassString || t.Base.Class == ClassFixedPoint))):
		for i := 0; i < n; i++ {
			v, err := a.f.vlenItem(a.data[i*16:(i+1)*16], 1)
			if err != nil {
				return nil, a.errorf("%v", err)
			}
			s := string(v)
			if t.VarLenString {
				s = trimString(v, t.Pad)
			}
			out = append(out, s)
		}
	default:
		return nil, a.errorf("type %s is not a string", t)
	}
	return out, nil
}

// String decodes a scalar (or one-element) string attribute.
func (a *Attribute) String() (string, error) {
	if a.Len() != 1 {
		return "", a.errorf("%d values where one string is expected", a.Len())
	}
	s, err := a.Strings()
	if err != nil {
		return "", err
	}
	return s[0], nil
}

// VarLen returns the elements of a variable-length sequence attribute: for
// each value, the raw bytes of its base-type elements.
func (a *Attribute) VarLen() ([][]byte, error) {
	t := a.Type
	if t.Class != ClassVarLen {
		return nil, a.errorf("type %s is not variable-length", t)
	}
	esz := t.Base.Size
	if t.VarLenString {
		esz = 1
	}
	n := a.Len()
	out := make([][]byte, n)
	for i := range out {
		v, err := a.f.vlenItem(a.data[i*16:(i+1)*16], esz)
		if err != nil {
			return nil, a.errorf("%v", err)
		}
		out[i] = v
	}
	return out, nil
}

func (t *Datatype) uintAt(b []byte) uint64 {
	switch {
	case t.Size == 1:
		return uint64(b[0])
	case t.BigEndian && t.Size == 2:
		return uint64(binary.BigEndian.Uint16(b))
	case t.Size == 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case t.BigEndian && t.Size == 4:
		return uint64(binary.BigEndian.Uint32(b))
	case t.Size == 4:
		return uint64(binary.LittleEndian.Uint32(b))
	case t.BigEndian:
		return binary.BigEndian.Uint64(b)
	default:
		return binary.LittleEndian.Uint64(b)
	}
}

func (a *Attribute) numeric() (*Datatype, error) {
	t := a.Type
	if t.Class == ClassEnum {
		t = t.Base
	}
	if t.Class != ClassFixedPoint && t.Class != ClassFloat && t.Class != ClassBitfield {
		return nil, a.errorf("type %s is not numeric", a.Type)
	}
	switch t.Size {
	case 1, 2, 4, 8:
	default:
		return nil, a.errorf("%d-byte numbers are not decoded", t.Size)
	}
	if t.Class == ClassFloat && t.Size == 1 {
		return nil, a.errorf("1-byte floats are not decoded")
	}
	return t, nil
}

func (t *Datatype) floatAt(b []byte) float64 {
	u := t.uintAt(b)
	switch t.Size {
	case 2:
		return halfToFloat(uint16(u))
	case 4:
		return float64(math.Float32frombits(uint32(u)))
	}
	return math.Float64frombits(u)
}

func halfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h >> 10 & 0x1f)
	mant := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(mant, -24)
	case 31:
		if mant == 0 {
			return sign * math.Inf(1)
		}
		return math.NaN()
	}
	return sign * math.Ldexp(1+mant/1024, exp-15)
}

// Int64s decodes an integer attribute (any size, either byte order; enums
// give their values). Unsigned values above MaxInt64 are an error.
func (a *Attribute) Int64s() ([]int64, error) {
	t, err := a.numeric()
	if err != nil {
		return nil, err
	}
	if t.Class == ClassFloat {
		return nil, a.errorf("type %s is floating point, not integer", a.Type)
	}
	n := a.Len()
	out := make([]int64, n)
	for i := range out {
		b := a.data[i*t.Size:]
		if t.Signed {
			out[i] = t.intValue(b)
		} else {
			u := t.uintAt(b)
			if u > math.MaxInt64 {
				return nil, a.errorf("value %d overflows int64", u)
			}
			out[i] = int64(u)
		}
	}
	return out, nil
}

// Uint64s decodes an unsigned (or non-negative signed) integer attribute.
func (a *Attribute) Uint64s() ([]uint64, error) {
	t, err := a.numeric()
	if err != nil {
		return nil, err
	}
	if t.Class == ClassFloat {
		return nil, a.errorf("type %s is floating point, not integer", a.Type)
	}
	n := a.Len()
	out := make([]uint64, n)
	for i := range out {
		b := a.data[i*t.Size:]
		if t.Signed {
			v := t.intValue(b)
			if v < 0 {
				return nil, a.errorf("negative value %d where unsigned is expected", v)
			}
			out[i] = uint64(v)
		} else {
			out[i] = t.uintAt(b)
		}
	}
	return out, nil
}

// Float64s decodes a numeric attribute as float64 (integers convert; a
// 64-bit integer beyond 2^53 is an error since it would lose digits).
func (a *Attribute) Float64s() ([]float64, error) {
	t, err := a.numeric()
	if err != nil {
		return nil, err
	}
	n := a.Len()
	out := make([]float64, n)
	for i := range out {
		b := a.data[i*t.Size:]
		switch {
		case t.Class == ClassFloat:
			out[i] = t.floatAt(b)
		case t.Signed:
			v := t.intValue(b)
			if v > 1<<53 || v < -(1<<53) {
				return nil, a.errorf("integer %d is not exact as float64", v)
			}
			out[i] = float64(v)
		default:
			v := t.uintAt(b)
			if v > 1<<53 {
				return nil, a.errorf("integer %d is not exact as float64", v)
			}
			out[i] = float64(v)
		}
	}
	return out, nil
}

// References decodes an object reference attribute.
func (a *Attribute) References() ([]Reference, error) {
	t := a.Type
	if t.Class != ClassReference || t.RefKind != RefObject || t.Size != 8 {
		if t.Class == ClassReference && t.RefKind == RefRegion {
			return nil, a.errorf("region references are not supported")
		}
		return nil, a.errorf("type %s is not an object reference", t)
	}
	n := a.Len()
	out := make([]Reference, n)
	for i := range out {
		out[i] = Reference(binary.LittleEndian.Uint64(a.data[i*8:]))
	}
	return out, nil
}

// Describe summarizes the attribute's type, shape and, for short values,
// the value: `string[6] nullterm ascii () = "double"`.
func (a *Attribute) Describe() string {
	var sb strings.Builder
	sb.WriteString(a.Type.String())
	sb.WriteByte(' ')
	if a.Null {
		sb.WriteString("null")
		return sb.String()
	}
	dims := make([]int, len(a.Shape))
	for i, d := range a.Shape {
		dims[i] = int(d)
	}
	sb.WriteString(npyio.FormatShape(dims))
	if a.Len() > 8 {
		return sb.String()
	}
	var v any
	var err error
	switch a.Type.Class {
	case ClassString, ClassVarLen:
		v, err = a.Strings()
	case ClassFixedPoint, ClassEnum, ClassBitfield:
		if a.Type.Signed || (a.Type.Base != nil && a.Type.Base.Signed) {
			v, err = a.Int64s()
		} else {
			v, err = a.Uint64s()
		}
	case ClassFloat:
		v, err = a.Float64s()
	case ClassReference:
		v, err = a.References()
	default:
		return sb.String()
	}
	if err != nil {
		return sb.String()
	}
	if s, ok := v.([]string); ok && len(s) == 1 && a.Shape == nil {
		fmt.Fprintf(&sb, " = %q", s[0])
	} else if s, ok := v.([]string); ok {
		fmt.Fprintf(&sb, " = %q", s)
	} else {
		fmt.Fprintf(&sb, " = %v", v)
	}
	return sb.String()
}

// DType maps the attribute's type to numpy's as Dataset.DType does for
// fixed-size types (the value's bytes, Bytes, are then in its layout). A
// top-level array type gives its base dtype; NumpyShape adds its
// dimensions. Variable-length, reference and opaque types are refused.
func (a *Attribute) DType() (*npyio.DType, error) {
	dt, _, err := a.Type.NumpyDType()
	if err != nil {
		return nil, &UnsupportedError{File: a.f.name, Object: a.owner + " attribute " + a.Name, Feature: unsupportedFeature(err)}
	}
	return dt, nil
}

// NumpyShape is the shape of the numpy value h5py reads: Shape plus the
// dimensions of a top-level array type.
func (a *Attribute) NumpyShape() []int {
	out := make([]int, 0, len(a.Shape))
	for _, d := range a.Shape {
		out = append(out, int(d))
	}
	if a.Type.Class == ClassArray {
		for _, d := range a.Type.Dims {
			out = append(out, int(d))
		}
	}
	return out
}
