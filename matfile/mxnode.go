package matfile

import (
	"strconv"
	"unicode/utf16"

	"github.com/npyflow/npyflow/npyio"
)

// mxNode is a MATLAB value read whole into memory: a variable that holds
// objects, and what the objects' properties hold. The walk of ordinary
// variables (level5.go, v73.go) never builds one.
type mxNode struct {
	class string // MATLAB class: "double" ... "char", "logical", "cell", "struct", an object's class
	dims  []int  // MATLAB's size (at least two dimensions)

	// numeric and logical arrays: the dtype (complex c8/c16 for complex)
	// and the column-major data in native byte order.
	dt     *npyio.DType
	data   []byte
	sparse bool

	chars []uint32 // char: the code units (UTF-16, or code points), column-major

	cells []*mxNode // cell: the elements, column-major

	// struct (and an old-style object): the field names and, per element
	// (column-major), one value per field.
	fields []string
	elems  [][]*mxNode

	ref  *objRef  // an MCOS object array: what the subsystem resolves
	enum *enumRef // an MCOS enumeration array

	// system is the type system of an opaque value ("MCOS", "java",
	// "handle"); skip says why a value has no numpy form (complex
	// integers, function handles, Java objects), "" when it has one.
	system string
	skip   string
}

// objRef is an MCOS object array as a variable or a property refers to
// it: its size, one object id per element (column-major) and the class
// id, ids into the subsystem's tables.
type objRef struct {
	dims    []int
	ids     []uint32
	classID uint32
}

// enumRef is an MCOS enumeration array: the class, the member names
// (indices into the subsystem's names), each element's member (an index
// into names) and the members' saved instances.
type enumRef struct {
	dims      []int
	className uint32   // the class id
	names     []uint32 // name index (1-based) of each member
	indices   []uint32 // per element, 0-based into names
	builtin   uint32   // the class id of the builtin superclass, 0 for none
	values    *mxNode  // the members' objects (an object array), or nil
}

// mcosMagic marks an MCOS object reference (the first uint32 of its
// metadata) and an enumeration's EnumerationInstanceTag.
const mcosMagic = 0xDD000000

func (n *mxNode) numel() int {
	k, ok := numel(n.dims)
	if !ok {
		return 0
	}
	return int(k)
}

// isEmpty reports whether the value has no elements.
func (n *mxNode) isEmpty() bool { return n.numel() == 0 }

// str returns a char array (or a 1x1 cell or string holding one) as a Go
// string, its rows joined; ok is false for anything else.
func (n *mxNode) str() (string, bool) {
	if n == nil {
		return "", false
	}
	if n.class == NameCell && len(n.cells) == 1 {
		return n.cells[0].str()
	}
	if n.class != NameChar {
		return "", false
	}
	return unitsString(n.chars), true
}

// unitsString decodes UTF-16 code units (surrogate pairs joined; code
// points above 0xFFFF are taken as they are).
func unitsString(u []uint32) string {
	r := make([]rune, 0, len(u))
	for i := 0; i < len(u); i++ {
		c := u[i]
		if c >= 0xD800 && c < 0xDC00 && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] < 0xE000 {
			r = append(r, utf16.DecodeRune(rune(c), rune(u[i+1])))
			i++
			continue
		}
		r = append(r, rune(c))
	}
	return string(r)
}

// rowStrings returns the rows of a 2-D char matrix as strings, trailing
// blanks (and NULs) removed as MATLAB's cellstr removes them.
func (n *mxNode) rowStrings() []string {
	if len(n.dims) != 2 {
		return nil
	}
	rows, cols := n.dims[0], n.dims[1]
	out := make([]string, rows)
	row := make([]uint32, cols)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			row[j] = n.chars[i+j*rows]
		}
		k := cols
		for k > 0 && (row[k-1] == ' ' || row[k-1] == 0) {
			k--
		}
		out[i] = unitsString(row[:k])
	}
	return out
}

// field returns field name of element k of a struct, nil if absent.
func (n *mxNode) field(name string, k int) *mxNode {
	if k >= len(n.elems) {
		return nil
	}
	for i, f := range n.fields {
		if f == name && i < len(n.elems[k]) {
			return n.elems[k][i]
		}
	}
	return nil
}

// floats returns a real numeric or logical array's values as float64s.
func (n *mxNode) floats() ([]float64, bool) {
	if n == nil || n.dt == nil || n.dt.Kind == npyio.Complex {
		return nil, false
	}
	k := n.numel()
	out := make([]float64, k)
	typ, bo := miType(n.dt)
	if typ == 0 {
		return nil, false
	}
	if err := decodeT(out, 1, 0, typ, n.data, bo, k, tgtF64); err != nil {
		return nil, false
	}
	return out, true
}

// uints returns a numeric array's values as uint32s, false when one is
// not a uint32.
func (n *mxNode) uints() ([]uint32, bool) {
	if n == nil || n.dt == nil || n.dt.Kind == npyio.Complex {
		return nil, false
	}
	k := n.numel()
	if int64(len(n.data)) != int64(k)*int64(n.dt.Size) {
		return nil, false
	}
	out := make([]uint32, k)
	typ, bo := miType(n.dt)
	if typ == 0 {
		return nil, false
	}
	if err := decodeT(out, 1, 0, typ, n.data, bo, k, tgtUint); err != nil {
		return nil, false
	}
	return out, true
}

// scalar returns a real numeric scalar's value.
func (n *mxNode) scalar() (float64, bool) {
	if n == nil || n.numel() != 1 {
		return 0, false
	}
	v, ok := n.floats()
	if !ok {
		return 0, false
	}
	return v[0], true
}

// asObjRef reads an MCOS reference held as a uint32 array (how the
// subsystem's contents, and v7.3 variables, refer to objects):
// 0xDD000000, the number of dimensions, the dimensions, one object id
// per element, the class id.
func asObjRef(n *mxNode) (*objRef, bool) {
	if n == nil || n.class != NameUint32 || n.dt == nil || n.sparse {
		return nil, false
	}
	v, ok := n.uints()
	if !ok || len(v) < 4 || v[0] != mcosMagic {
		return nil, false
	}
	nd := int(v[1])
	if nd < 2 || nd > len(v)-3 {
		return nil, false
	}
	dims := make([]int, nd)
	for i := range dims {
		dims[i] = int(v[2+i])
	}
	cnt, ok := numel(dims)
	if !ok || int64(len(v)) != int64(2+nd)+cnt+1 {
		return nil, false
	}
	ids := v[2+nd : len(v)-1]
	return &objRef{dims: dims, ids: append([]uint32(nil), ids...), classID: v[len(v)-1]}, true
}

// asEnumRef reads the struct MATLAB writes for an enumeration array.
func asEnumRef(n *mxNode) (*enumRef, bool) {
	if n == nil || n.class != NameStruct || len(n.elems) != 1 {
		return nil, false
	}
	tag := n.field("EnumerationInstanceTag", 0)
	if t, ok := tag.uints(); !ok || len(t) != 1 || t[0] != mcosMagic {
		return nil, false
	}
	one := func(name string) (uint32, bool) {
		v, ok := n.field(name, 0).uints()
		if !ok || len(v) != 1 {
			return 0, false
		}
		return v[0], true
	}
	e := &enumRef{}
	var ok bool
	if e.className, ok = one("ClassName"); !ok {
		return nil, false
	}
	e.builtin, _ = one("BuiltinClassName")
	vn := n.field("ValueNames", 0)
	if e.names, ok = vn.uints(); !ok {
		return nil, false
	}
	vi := n.field("ValueIndices", 0)
	if e.indices, ok = vi.uints(); !ok {
		return nil, false
	}
	e.dims = append([]int(nil), vi.dims...)
	for _, k := range e.indices {
		if int(k) >= len(e.names) {
			return nil, false
		}
	}
	if v := n.field("Values", 0); v != nil && !v.isEmpty() {
		e.values = v
	}
	return e, true
}

// capture returns an emit function that keeps the one Var emitted.
func capture(dst **Var) func(string, *Var) error {
	return func(_ string, v *Var) error {
		*dst = v
		return nil
	}
}

// leafNode turns an array Var read whole into a node.
func leafNode(v *Var, data []byte) *mxNode {
	n := &mxNode{class: v.Class, dims: v.Header.Shape, dt: v.Header.DType, data: data, sparse: v.Sparse}
	if n.class == "" {
		n.class = NameDouble
	}
	return n
}

// node reads the miMATRIX contents b at path into a tree.
func (p *l5parser) node(b []byte, path string, depth int) (*mxNode, error) {
	if depth > p.f.opts.MaxDepth {
		return nil, &LimitError{Path: path, What: "nesting depth", Size: int64(depth), Limit: int64(p.f.opts.MaxDepth), Hint: "MaxDepth"}
	}
	if len(b) == 0 {
		return &mxNode{class: NameDouble, dims: []int{0, 0}, dt: npyio.Float64Type, data: []byte{}}, nil
	}
	h, err := p.header(b)
	if err != nil {
		if fe, ok := err.(*FormatError); ok && fe.Path == "" {
			fe.Path = path
		}
		return nil, err
	}
	n, ok := numel(h.dims)
	if !ok {
		return nil, p.errf(path, "dimensions %v overflow", h.dims)
	}
	pos := h.pos
	switch {
	case h.class.IsNumeric() || h.class == ClassSparse:
		var v *Var
		saved := p.emit
		p.emit = capture(&v)
		if h.class == ClassSparse {
			err = p.sparse(b, pos, path, h)
		} else if h.complex && complexDType(h.class) == nil {
			v = nil // numpy has no complex integers
		} else {
			err = p.numeric(b, pos, path, h, n)
		}
		p.emit = saved
		if err != nil {
			return nil, err
		}
		if v == nil {
			return &mxNode{class: "complex " + h.className(), dims: h.dims, skip: "numpy has no complex integer type"}, nil
		}
		return leafNode(v, v.data), nil
	case h.class == ClassChar:
		d, _, err := p.next(path, b, pos, "character data")
		if err != nil {
			return nil, err
		}
		units, err := charUnits(d.typ, d.data, p.bo, n)
		if err != nil {
			return nil, p.errf(path, "%v", err)
		}
		return &mxNode{class: NameChar, dims: h.dims, chars: units}, nil
	case h.class == ClassCell:
		out := &mxNode{class: NameCell, dims: h.dims}
		if n == 0 {
			return out, nil
		}
		if err := p.count(path, n, len(b)-pos); err != nil {
			return nil, err
		}
		out.cells = make([]*mxNode, n)
		for k := range out.cells {
			s, np, err := p.next(path, b, pos, "cell element "+strconv.Itoa(k+1))
			if err != nil {
				return nil, err
			}
			if s.typ != MiMATRIX {
				return nil, p.errf(path, "cell element %d is %s, not miMATRIX", k+1, s.typ)
			}
			if out.cells[k], err = p.node(s.data, path+"{"+strconv.Itoa(k+1)+"}", depth+1); err != nil {
				return nil, err
			}
			pos = np
		}
		return out, nil
	case h.class == ClassStruct, h.class == ClassObject:
		fields, pos, err := p.fieldNames(b, pos, path)
		if err != nil {
			return nil, err
		}
		out := &mxNode{class: NameStruct, dims: h.dims, fields: fields}
		if h.class == ClassObject {
			out.class = h.className()
			out.system = "old"
		}
		if n == 0 || len(fields) == 0 {
			return out, nil // no values (elems stays nil)
		}
		if err := p.count(path, n*int64(len(fields)), len(b)-pos); err != nil {
			return nil, err
		}
		out.elems = make([][]*mxNode, n)
		for k := range out.elems {
			out.elems[k] = make([]*mxNode, len(fields))
			for i, fn := range fields {
				s, np, err := p.next(path, b, pos, "field "+fn)
				if err != nil {
					return nil, err
				}
				if s.typ != MiMATRIX {
					return nil, p.errf(path, "field %s is %s, not miMATRIX", fn, s.typ)
				}
				if out.elems[k][i], err = p.node(s.data, path+"."+fn, depth+1); err != nil {
					return nil, err
				}
				pos = np
			}
		}
		return out, nil
	case h.class == ClassFunction:
		return &mxNode{class: NameFunction, dims: h.dims, skip: "a function handle has no numpy form"}, nil
	case h.class == ClassOpaque:
		return p.opaque(b, h, path, depth)
	}
	return &mxNode{class: h.class.String(), dims: h.dims, skip: "unknown MATLAB class code " + strconv.Itoa(int(h.class))}, nil
}

// opaque reads an mxOPAQUE_CLASS value: an MCOS object reference (a
// uint32 array) or enumeration (a struct), or another type system's
// object, kept as a node to skip.
func (p *l5parser) opaque(b []byte, h *mheader, path string, depth int) (*mxNode, error) {
	out := &mxNode{class: h.className(), dims: []int{1, 1}, system: h.system}
	s, _, err := p.next(path, b, h.pos, "object metadata")
	if err != nil {
		return nil, err
	}
	if s.typ != MiMATRIX {
		return nil, p.errf(path, "object metadata is %s, not miMATRIX", s.typ)
	}
	meta, err := p.node(s.data, path, depth+1)
	if err != nil {
		return nil, err
	}
	if h.system != "MCOS" {
		out.skip = "an object of the " + h.system + " type system has no numpy form"
		return out, nil
	}
	if r, ok := asObjRef(meta); ok {
		out.ref, out.dims = r, r.dims
		return out, nil
	}
	if e, ok := asEnumRef(meta); ok {
		out.enum, out.dims = e, e.dims
		return out, nil
	}
	// FileWrapper__ (the subsystem) holds a cell; anything else is not an
	// object reference MATLAB writes.
	if h.objClass == fileWrapper && meta.class == NameCell {
		out.cells, out.dims = meta.cells, meta.dims
		return out, nil
	}
	return nil, p.errf(path, "the metadata of a %s object is not an MCOS reference", h.className())
}

// fileWrapper is the class of the subsystem's object.
const fileWrapper = "FileWrapper__"
