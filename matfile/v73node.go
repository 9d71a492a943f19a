package matfile

import (
	"strconv"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/npyio"
)

// AttrObjectDecode marks a v7.3 object: 3 for an MCOS object (a uint32
// reference dataset, or an enumeration's struct group).
const AttrObjectDecode = "MATLAB_object_decode"

// mcosDecode is the MATLAB_object_decode value of MCOS objects.
const mcosDecode = 3

// node reads the v7.3 object obj at path into a tree.
func (w *v73walk) node(obj hdf5.Object, path string, depth int) (*mxNode, error) {
	f := w.v.f
	if depth > f.opts.MaxDepth {
		return nil, &LimitError{Path: path, What: "nesting depth", Size: int64(depth), Limit: int64(f.opts.MaxDepth), Hint: "MaxDepth"}
	}
	addr := obj.Addr()
	if w.onPath[addr] {
		return nil, f.errfPath(path, "refers back to the object that contains it (a reference cycle)")
	}
	w.onPath[addr] = true
	defer delete(w.onPath, addr)

	class, hasClass := strAttr(obj, AttrClass)
	if dec, ok := intAttr(obj, AttrObjectDecode); ok {
		return w.objectNode(obj, path, class, dec, depth)
	}
	switch o := obj.(type) {
	case *hdf5.Group:
		if _, ok := intAttr(o, AttrSparse); ok {
			var v *Var
			saved := w.emit
			w.emit = capture(&v)
			err := w.sparse(o, path, class)
			w.emit = saved
			if err != nil {
				return nil, err
			}
			if v == nil {
				return &mxNode{class: "sparse " + class, dims: []int{0, 0}, skip: "a sparse matrix of a class MATLAB does not use"}, nil
			}
			return leafNode(v, v.data), nil
		}
		if hasClass && class != NameStruct {
			return &mxNode{class: class, dims: []int{1, 1}, skip: "a MATLAB object has no numpy form"}, nil
		}
		return w.structNode(o, path, depth)
	case *hdf5.Dataset:
		if e, ok := intAttr(o, AttrEmpty); ok && e != 0 {
			dims, err := w.v.emptyOrFieldless(o, path, class)
			if err != nil {
				return nil, err
			}
			return emptyNode(class, dims), nil
		}
		if !hasClass {
			class = ""
		}
		switch class {
		case NameCell:
			return w.cellNode(o, path, depth)
		case NameCanonicalEmpty:
			return emptyNode(NameDouble, []int{0, 0}), nil
		case NameChar:
			units, dims, err := w.charData(o, path)
			if err != nil {
				return nil, err
			}
			return &mxNode{class: NameChar, dims: dims, chars: units}, nil
		case NameStruct:
			dims, err := matlabDims(o.Shape())
			if err != nil {
				return nil, f.errfPath(path, "%v", err)
			}
			return &mxNode{class: NameStruct, dims: dims}, nil
		case "", NameLogical, NameDouble, NameSingle, NameInt8, NameUint8, NameInt16, NameUint16, NameInt32, NameUint32, NameInt64, NameUint64:
			var v *Var
			saved, nw := w.emit, len(f.warnings)
			w.emit = capture(&v)
			err := w.numeric(o, path, class)
			w.emit = saved
			if err != nil {
				return nil, err
			}
			if v == nil {
				// Skipped (complex integers, compounds): the warning is the
				// caller's to give, with the value's place.
				msg := "numpy has no form of this data"
				if len(f.warnings) > nw {
					msg = f.warnings[len(f.warnings)-1].Msg
					f.warnings = f.warnings[:nw]
				}
				return &mxNode{class: class, dims: []int{1, 1}, skip: msg}, nil
			}
			a, err := v.Array()
			if err != nil {
				return nil, err
			}
			return leafNode(v, a.Data), nil
		case NameFunction:
			return &mxNode{class: NameFunction, dims: []int{1, 1}, skip: "a function handle has no numpy form"}, nil
		}
		return &mxNode{class: class, dims: []int{1, 1}, skip: "a MATLAB object has no numpy form"}, nil
	}
	return &mxNode{class: "HDF5 committed datatype", dims: []int{1, 1}, skip: "not a MATLAB variable"}, nil
}

// emptyNode is an empty array of class and size dims.
func emptyNode(class string, dims []int) *mxNode {
	n := &mxNode{class: class, dims: dims}
	switch class {
	case NameCell, NameStruct, NameChar:
	default:
		if c, ok := ClassByName(class); ok && classDType(c, c == ClassLogical) != nil {
			n.dt = classDType(c, c == ClassLogical)
		} else if class == "" || class == NameCanonicalEmpty {
			n.class, n.dt = NameDouble, npyio.Float64Type
		}
		n.data = []byte{}
	}
	return n
}

// objectNode reads a v7.3 object: an MCOS reference (a uint32 dataset)
// or an enumeration (a struct group).
func (w *v73walk) objectNode(obj hdf5.Object, path, class string, dec int64, depth int) (*mxNode, error) {
	out := &mxNode{class: class, dims: []int{1, 1}, system: "MCOS"}
	if dec != mcosDecode {
		out.system = "decode " + strconv.FormatInt(dec, 10)
		out.skip = "an object of MATLAB_object_decode " + strconv.FormatInt(dec, 10) + " has no numpy form"
		return out, nil
	}
	switch o := obj.(type) {
	case *hdf5.Dataset:
		if t := o.Type(); t != nil && (t.Class != hdf5.ClassFixedPoint || t.Size != 4) {
			// Not the uint32 reference of an MCOS object: an object of
			// another type system (a Java object's serialized bytes, a COM
			// object's references), a scalar as in a Level 5 file.
			out.system = "not MCOS"
			out.skip = "a MATLAB object has no numpy form"
			return out, nil
		}
		if o.Len() > 1<<24 {
			return nil, w.v.f.errfPath(path, "an object reference of %d values", o.Len())
		}
		var v *Var
		saved := w.emit
		w.emit = capture(&v)
		err := w.numeric(o, path, NameUint32)
		w.emit = saved
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, w.v.f.errfPath(path, "the reference of a %s object is not uint32 data", class)
		}
		a, err := v.Array()
		if err != nil {
			return nil, err
		}
		r, ok := asObjRef(leafNode(v, a.Data))
		if !ok {
			return nil, w.v.f.errfPath(path, "the reference of a %s object is not an MCOS reference", class)
		}
		out.ref, out.dims = r, r.dims
		return out, nil
	case *hdf5.Group:
		s, err := w.structNode(o, path, depth)
		if err != nil {
			return nil, err
		}
		e, ok := asEnumRef(s)
		if !ok {
			return nil, w.v.f.errfPath(path, "a %s object stored as a group is not an enumeration", class)
		}
		out.enum, out.dims = e, e.dims
		return out, nil
	}
	return nil, w.v.f.errfPath(path, "a %s object is neither a dataset nor a group", class)
}

func (w *v73walk) cellNode(ds *hdf5.Dataset, path string, depth int) (*mxNode, error) {
	dims, err := matlabDims(ds.Shape())
	if err != nil {
		return nil, w.v.f.errfPath(path, "%v", err)
	}
	n, ok := numel(dims)
	if !ok {
		return nil, w.v.f.errfPath(path, "size %v too large", dims)
	}
	out := &mxNode{class: NameCell, dims: dims}
	if n == 0 {
		return out, nil
	}
	if err := w.count(path, n); err != nil {
		return nil, err
	}
	refs, err := ds.ReadReferences()
	if err != nil {
		return nil, w.v.h5err(path, err)
	}
	if int64(len(refs)) != n {
		return nil, w.v.f.errfPath(path, "%d references for %d cells", len(refs), n)
	}
	out.cells = make([]*mxNode, n)
	for k, r := range refs {
		p := path + "{" + strconv.Itoa(k+1) + "}"
		obj, err := w.deref(p, r)
		if err != nil {
			return nil, err
		}
		if out.cells[k], err = w.node(obj, p, depth+1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (w *v73walk) structNode(g *hdf5.Group, path string, depth int) (*mxNode, error) {
	fields, err := w.fieldNames(g, path)
	if err != nil {
		return nil, err
	}
	out := &mxNode{class: NameStruct, dims: []int{1, 1}, fields: fields}
	if len(fields) == 0 {
		return out, nil
	}
	if dims, ok := w.v.structArrayDims(g); ok {
		n, ok := numel(dims)
		if !ok {
			return nil, w.v.f.errfPath(path, "size %v too large", dims)
		}
		out.dims = dims
		if n == 0 {
			return out, nil
		}
		if err := w.count(path, n*int64(len(fields))); err != nil {
			return nil, err
		}
		out.elems = make([][]*mxNode, n)
		for k := range out.elems {
			out.elems[k] = make([]*mxNode, len(fields))
		}
		for i, fn := range fields {
			obj, err := g.Open(fn)
			if err != nil {
				return nil, w.v.h5err(path+"."+fn, err)
			}
			ds, ok := obj.(*hdf5.Dataset)
			if !ok {
				return nil, w.v.f.errfPath(path, "field %s of a struct array is not a dataset", fn)
			}
			refs, err := ds.ReadReferences()
			if err != nil {
				return nil, w.v.h5err(path+"."+fn, err)
			}
			if int64(len(refs)) != n {
				return nil, w.v.f.errfPath(path, "field %s holds %d references for %d elements", fn, len(refs), n)
			}
			for k, r := range refs {
				p := path + "(" + strconv.Itoa(k+1) + ")." + fn
				o, err := w.deref(p, r)
				if err != nil {
					return nil, err
				}
				if out.elems[k][i], err = w.node(o, p, depth+1); err != nil {
					return nil, err
				}
			}
		}
		return out, nil
	}
	if err := w.count(path, int64(len(fields))); err != nil {
		return nil, err
	}
	out.elems = [][]*mxNode{make([]*mxNode, len(fields))}
	for i, fn := range fields {
		obj, err := g.Open(fn)
		if err != nil {
			return nil, w.v.h5err(path+"."+fn, err)
		}
		if out.elems[0][i], err = w.node(obj, path+"."+fn, depth+1); err != nil {
			return nil, err
		}
	}
	return out, nil
}
