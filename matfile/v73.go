package matfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/npyio"
)

// EmptyShapeOrder says how the shape stored in a v7.3 empty array
// (MATLAB_empty) is read.
type EmptyShapeOrder int

const (
	// EmptyShapeAuto: reversed in files hdf5storage wrote (their header's
	// platform names CPython or Python: hdf5storage 0.1.19 stores the
	// shape reversed), MATLAB's order otherwise.
	EmptyShapeAuto EmptyShapeOrder = iota
	// EmptyShapeMATLAB: the stored values are MATLAB's size.
	EmptyShapeMATLAB
	// EmptyShapeReversed: the stored values are MATLAB's size reversed.
	EmptyShapeReversed
)

// v73File is an open v7.3 (HDF5) MAT-file.
type v73File struct {
	f             *File
	h             *hdf5.File
	emptyReversed bool
}

// streamBatchBytes is the size of the batches a v7.3 array is read in.
var streamBatchBytes int64 = 4 << 20

// v73OptionsHook, if set, sees the options a v7.3 file is opened with
// (a test hook).
var v73OptionsHook func(*hdf5.Options)

func openV73(f *File) (*v73File, error) {
	ho := &hdf5.Options{Name: f.name, MaxReadBytes: f.opts.MaxVariableBytes, Threads: f.opts.Threads}
	if v73OptionsHook != nil {
		v73OptionsHook(ho)
	}
	h, err := hdf5.Open(f.r, f.size, ho)
	if err != nil {
		return nil, &FormatError{File: f.name, Off: -1, Msg: "v7.3 file: " + strings.TrimPrefix(err.Error(), "hdf5: ")}
	}
	v := &v73File{f: f, h: h}
	switch f.opts.EmptyShape {
	case EmptyShapeReversed:
		v.emptyReversed = true
	case EmptyShapeAuto:
		p := f.text
		if i := strings.Index(p, "Platform:"); i >= 0 {
			p = strings.TrimSpace(p[i+len("Platform:"):])
			v.emptyReversed = strings.HasPrefix(p, "CPython") || strings.HasPrefix(p, "Python") || strings.HasPrefix(p, "PyPy")
		}
	}
	return v, nil
}

// h5err turns an hdf5 error into a matfile error naming the variable.
func (v *v73File) h5err(path string, err error) error {
	var ue *UnsupportedError
	var le *LimitError
	var fe *FormatError
	if errors.As(err, &ue) || errors.As(err, &le) || errors.As(err, &fe) {
		return err
	}
	if errors.Is(err, hdf5.ErrTooLarge) {
		return &LimitError{Path: path, What: "data read at once", Size: -1, Limit: v.f.opts.MaxVariableBytes, Hint: "MaxVariableBytes (" + strings.TrimPrefix(err.Error(), "hdf5: ") + ")"}
	}
	return &FormatError{File: v.f.name, Path: path, Off: -1, Msg: strings.TrimPrefix(err.Error(), "hdf5: ")}
}

func strAttr(o hdf5.Object, name string) (string, bool) {
	a, err := o.Attr(name)
	if err != nil {
		return "", false
	}
	s, err := a.String()
	if err != nil {
		return "", false
	}
	return s, true
}

func intAttr(o hdf5.Object, name string) (int64, bool) {
	a, err := o.Attr(name)
	if err != nil {
		return 0, false
	}
	v, err := a.Int64s()
	if err != nil || len(v) != 1 {
		return 0, false
	}
	return v[0], true
}

// variables lists the root's members but #refs# and #subsystem#.
func (v *v73File) topLevel() ([]string, error) {
	names, err := v.h.Root().Members()
	if err != nil {
		return nil, v.h5err("", err)
	}
	out := names[:0:0]
	for _, n := range names {
		if n == RefsGroup || n == SubsystemName {
			continue
		}
		out = append(out, n)
	}
	return out, nil
}

// matlabDims turns an HDF5 shape into MATLAB's size: reversed, at least
// two dimensions (a scalar is 1x1, a vector of n is n x 1).
func matlabDims(shape []uint64) ([]int, error) {
	dims := make([]int, 0, len(shape)+2)
	for i := len(shape) - 1; i >= 0; i-- {
		if shape[i] > 1<<62 {
			return nil, fmt.Errorf("dimension %d too large", shape[i])
		}
		dims = append(dims, int(shape[i]))
	}
	for len(dims) < 2 {
		dims = append(dims, 1)
	}
	return dims, nil
}

// emptyDims reads the shape stored in a MATLAB_empty dataset.
func (v *v73File) emptyDims(ds *hdf5.Dataset, path string) ([]int, error) {
	dims, err := v.storedDims(ds, path)
	if err != nil {
		return nil, err
	}
	if k, ok := numel(dims); !ok || k != 0 {
		// Not an empty shape: MATLAB_empty set on a non-empty value.
		return nil, v.f.errfPath(path, "MATLAB_empty is set but the stored shape %v is not empty", dims)
	}
	return dims, nil
}

// storedDims reads the size a MATLAB_empty dataset stores: an empty
// array's, or that of a struct without fields (MATLAB stores struct() as
// a MATLAB_empty dataset holding [1 1]).
func (v *v73File) storedDims(ds *hdf5.Dataset, path string) ([]int, error) {
	if ds.Len() > 32 {
		return nil, v.f.errfPath(path, "an empty array's stored shape has %d values", ds.Len())
	}
	b, err := ds.ReadAll()
	if err != nil {
		return nil, v.h5err(path, err)
	}
	dt, err := ds.DType()
	if err != nil {
		return nil, v.h5err(path, err)
	}
	typ, bo := miType(dt)
	n := int64(ds.Len())
	if typ == 0 {
		return nil, v.f.errfPath(path, "an empty array's stored shape is of type %s", dt)
	}
	vals := make([]int64, n)
	if err := decodeT(vals, 1, 0, typ, b, bo, int(n), tgtInt); err != nil {
		return nil, v.f.errfPath(path, "an empty array's stored shape: %v", err)
	}
	dims := make([]int, 0, n)
	for _, x := range vals {
		if x < 0 || x > 1<<62 {
			return nil, v.f.errfPath(path, "an empty array's stored shape holds %d", x)
		}
		dims = append(dims, int(x))
	}
	if v.emptyReversed {
		for i, j := 0, len(dims)-1; i < j; i, j = i+1, j-1 {
			dims[i], dims[j] = dims[j], dims[i]
		}
	}
	for len(dims) < 2 {
		dims = append(dims, 0)
	}
	return dims, nil
}

// emptyOrFieldless reads a MATLAB_empty dataset's size: empty, or (for
// class struct) that of a struct array without fields.
func (v *v73File) emptyOrFieldless(ds *hdf5.Dataset, path, class string) ([]int, error) {
	if class != NameStruct {
		return v.emptyDims(ds, path)
	}
	dims, err := v.storedDims(ds, path)
	if err != nil {
		return nil, err
	}
	if _, ok := numel(dims); !ok {
		return nil, v.f.errfPath(path, "a struct of size %v", dims)
	}
	return dims, nil
}

func (f *File) errfPath(path, format string, args ...any) error {
	return &FormatError{File: f.name, Path: path, Off: -1, Msg: fmt.Sprintf(format, args...)}
}

// miType maps a numeric numpy dtype to the Level 5 storage type of the same
// values (for the converters), with its byte order.
func miType(dt *npyio.DType) (DataType, binary.ByteOrder) {
	var bo binary.ByteOrder = binary.LittleEndian
	if dt.Order == npyio.BigEndian || (dt.Order == npyio.NotApplicable && !nativeLE) {
		bo = binary.BigEndian
	}
	if dt.Kind == npyio.Bool {
		return MiUINT8, bo
	}
	return naturalType(dt), bo
}

func (v *v73File) variables() ([]VarInfo, error) {
	names, err := v.topLevel()
	if err != nil {
		return nil, err
	}
	var out []VarInfo
	for _, name := range names {
		vi, err := v.describe(name)
		if err != nil {
			if vi.Name == "" {
				vi.Name = name
			}
			vi, err = v.f.failedVar(vi, -1, err)
			if err != nil {
				return nil, err
			}
		}
		out = append(out, vi)
	}
	return out, nil
}

// describe returns the VarInfo of the top-level variable name.
func (v *v73File) describe(name string) (VarInfo, error) {
	obj, err := v.h.Root().Open(name)
	if err != nil {
		return VarInfo{}, v.h5err(name, err)
	}
	class, _ := strAttr(obj, AttrClass)
	vi := VarInfo{Name: name, Class: class, Bytes: -1, StoredBytes: -1}
	if dec, ok := intAttr(obj, AttrObjectDecode); ok {
		// An object: its class and size are in the subsystem.
		w := &v73walk{v: v, elemsLeft: v.f.opts.MaxElements, onPath: map[uint64]bool{}}
		n, err := w.objectNode(obj, name, class, dec, 0)
		if err != nil {
			return vi, err
		}
		vi.Dims = n.dims
		if n.skip == "" {
			v.f.describeObject(&vi, n)
		}
		if vi.Err != nil && v.f.opts.Strict {
			return vi, vi.Err
		}
		return vi, nil
	}
	if g, ok := intAttr(obj, AttrGlobal); ok && g != 0 {
		vi.Global = true
	}
	switch o := obj.(type) {
	case *hdf5.Group:
		if class == "" {
			vi.Class = NameStruct
		}
		vi.Dims = []int{1, 1}
		if _, ok := intAttr(o, AttrSparse); ok {
			if nr, err := o.Attr(AttrSparse); err == nil {
				if rows, err := nr.Uint64s(); err == nil && len(rows) == 1 {
					vi.Sparse = true
					vi.Dims = []int{int(min(rows[0], 1<<62)), 0}
					if jc, err := o.Open("jc"); err == nil {
						if ds, ok := jc.(*hdf5.Dataset); ok && ds.Len() > 0 {
							vi.Dims[1] = int(min(ds.Len()-1, 1<<62))
						}
					}
					if d, err := o.Open("data"); err == nil {
						if ds, ok := d.(*hdf5.Dataset); ok {
							if dt, err := ds.DType(); err == nil {
								if c, ok := complexView(dt); ok {
									dt = c
								}
								vi.Bytes = int64(ds.Len()) * int64(dt.Size)
								vi.Complex = dt.Kind == npyio.Complex
							}
						}
					}
					vi.Class = "sparse " + class
				}
			}
		} else if class == NameStruct {
			if dims, ok := v.structArrayDims(o); ok {
				vi.Dims = dims
			}
		}
	case *hdf5.Dataset:
		if e, ok := intAttr(o, AttrEmpty); ok && e != 0 {
			dims, err := v.emptyOrFieldless(o, name, class)
			if err != nil {
				return vi, err
			}
			vi.Dims, vi.Bytes = dims, 0
		} else {
			dims, err := matlabDims(o.Shape())
			if err != nil {
				return vi, v.f.errfPath(name, "%v", err)
			}
			vi.Dims = dims
			if dt, err := o.DType(); err == nil && o.Type().Class != hdf5.ClassReference {
				if c, ok := complexView(dt); ok {
					dt = c
				}
				vi.Bytes = int64(o.Len()) * int64(dt.Size)
				vi.Complex = dt.Kind == npyio.Complex
			}
			if class == NameCell || class == NameStruct {
				vi.Bytes = -1
			}
		}
		if l := o.Layout(); l != nil {
			for _, flt := range l.Filters {
				if flt.ID == hdf5.FilterDeflate {
					vi.Compression = "deflate"
				}
			}
		}
	}
	return vi, nil
}

// structArrayDims reports the size of a struct array group (whose fields
// are reference datasets without MATLAB_class), false for a 1x1 struct.
func (v *v73File) structArrayDims(g *hdf5.Group) ([]int, bool) {
	names, err := g.Members()
	if err != nil || len(names) == 0 {
		return nil, false
	}
	var dims []int
	for _, n := range names {
		obj, err := g.Open(n)
		if err != nil {
			return nil, false
		}
		ds, ok := obj.(*hdf5.Dataset)
		if !ok || ds.Type() == nil || ds.Type().Class != hdf5.ClassReference {
			return nil, false
		}
		if _, has := strAttr(ds, AttrClass); has {
			return nil, false
		}
		d, err := matlabDims(ds.Shape())
		if err != nil {
			return nil, false
		}
		if dims != nil && !equalInts(dims, d) {
			return nil, false
		}
		dims = d
	}
	return dims, true
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// v73walk is the state of walking one top-level variable.
type v73walk struct {
	v         *v73File
	emit      func(string, *Var) error
	elemsLeft int
	onPath    map[uint64]bool // objects being read (a reference back is a cycle)
}

func (v *v73File) walk(sel func(string) bool, fn func(string, *Var) error) error {
	names, err := v.topLevel()
	if err != nil {
		return err
	}
	root := v.h.Root()
	for _, name := range names {
		if !sel(name) {
			continue
		}
		// Each variable is read on its own: a damaged one costs only itself
		// (an error in Strict mode).
		var vars []*Var
		var class string
		err := func() error {
			obj, err := root.Open(name)
			if err != nil {
				return v.h5err(name, err)
			}
			class, _ = strAttr(obj, AttrClass)
			w := &v73walk{v: v, elemsLeft: v.f.opts.MaxElements, onPath: map[uint64]bool{}}
			v.f.objects().begin()
			w.emit = func(_ string, x *Var) error {
				vars = append(vars, x)
				return nil
			}
			return w.value(obj, name, 0)
		}()
		if err != nil {
			if err := v.f.warnErr(name, class, err); err != nil {
				return err
			}
			continue
		}
		for _, x := range vars {
			if err := fn(x.Path, x); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *v73walk) count(path string, n int64) error {
	if n > int64(w.elemsLeft) {
		max := w.v.f.opts.MaxElements
		return &LimitError{Path: path, What: "number of cell and struct elements", Size: int64(max-w.elemsLeft) + n, Limit: int64(max), Hint: "MaxElements"}
	}
	w.elemsLeft -= int(n)
	return nil
}

// deref opens the object a cell or struct-array reference points to.
func (w *v73walk) deref(path string, r hdf5.Reference) (hdf5.Object, error) {
	if r == 0 {
		return nil, w.v.f.errfPath(path, "a null reference")
	}
	obj, err := w.v.h.Deref(r)
	if err != nil {
		return nil, w.v.h5err(path, err)
	}
	return obj, nil
}

// value emits the arrays of the object at path.
func (w *v73walk) value(obj hdf5.Object, path string, depth int) error {
	f := w.v.f
	if depth > f.opts.MaxDepth {
		return &LimitError{Path: path, What: "nesting depth", Size: int64(depth), Limit: int64(f.opts.MaxDepth), Hint: "MaxDepth"}
	}
	addr := obj.Addr()
	if w.onPath[addr] {
		return f.errfPath(path, "refers back to the object that contains it (a reference cycle)")
	}
	w.onPath[addr] = true
	defer delete(w.onPath, addr)

	class, hasClass := strAttr(obj, AttrClass)
	if dec, ok := intAttr(obj, AttrObjectDecode); ok {
		n, err := w.objectNode(obj, path, class, dec, depth)
		if err != nil {
			return err
		}
		return f.objects().emit(n, path, depth, w.emit)
	}
	switch o := obj.(type) {
	case *hdf5.Group:
		if _, ok := intAttr(o, AttrSparse); ok {
			return w.sparse(o, path, class)
		}
		if hasClass && class != NameStruct {
			return f.warn(path, class, "a MATLAB object has no numpy form")
		}
		return w.structGroup(o, path, depth)
	case *hdf5.Dataset:
		if e, ok := intAttr(o, AttrEmpty); ok && e != 0 {
			dims, err := w.v.emptyOrFieldless(o, path, class)
			if err != nil {
				return err
			}
			if n, _ := numel(dims); n > 0 {
				return w.marker(path, NameStruct, dims, n) // struct() and the like
			}
			return w.empty(path, class, dims)
		}
		if !hasClass {
			// Not written with MATLAB's conventions: take the dtype's class.
			class = ""
		}
		switch class {
		case NameCell:
			return w.cell(o, path, depth)
		case NameCanonicalEmpty:
			return w.empty(path, NameDouble, []int{0, 0})
		case NameChar:
			return w.char(o, path)
		case NameStruct:
			// A struct stored as a dataset holds no fields.
			dims, err := matlabDims(o.Shape())
			if err != nil {
				return f.errfPath(path, "%v", err)
			}
			n, ok := numel(dims)
			if !ok {
				return f.errfPath(path, "size %v too large", dims)
			}
			return w.marker(path, NameStruct, dims, n)
		case "", NameLogical, NameDouble, NameSingle, NameInt8, NameUint8, NameInt16, NameUint16, NameInt32, NameUint32, NameInt64, NameUint64:
			return w.numeric(o, path, class)
		case NameFunction:
			return f.warn(path, class, "a function handle has no numpy form")
		}
		return f.warn(path, class, "a MATLAB object has no numpy form")
	}
	return f.warn(path, "HDF5 committed datatype", "not a MATLAB variable")
}

func (w *v73walk) empty(path, class string, dims []int) error {
	switch class {
	case NameCell, NameStruct:
		return w.marker(path, class, dims, 0)
	case NameChar:
		dt, shape, data := charStrings(nil, dims)
		return w.emit(path, &Var{Path: path, Class: NameChar, data: data,
			Header: &npyio.Header{DType: dt, FortranOrder: true, Shape: shape}})
	}
	c, ok := ClassByName(class)
	if class == NameCanonicalEmpty || class == "" {
		c, ok = ClassDouble, true
	}
	if !ok || classDType(c, c == ClassLogical) == nil {
		return w.v.f.warn(path, class, "an empty value of a class numpy cannot hold")
	}
	dt := classDType(c, c == ClassLogical)
	if class == "" {
		class = NameDouble
	}
	return w.emit(path, &Var{Path: path, Class: class, data: []byte{},
		Header: &npyio.Header{DType: dt, FortranOrder: true, Shape: dims}})
}

func (w *v73walk) marker(path, class string, dims []int, n int64) error {
	shape := append([]int(nil), dims...)
	if n > 0 {
		shape = append(shape, 0)
	}
	return w.emit(path, &Var{Path: path, Class: class, Marker: true, data: []byte{},
		Header: &npyio.Header{DType: npyio.Float64Type, FortranOrder: true, Shape: shape}})
}

func (w *v73walk) cell(ds *hdf5.Dataset, path string, depth int) error {
	dims, err := matlabDims(ds.Shape())
	if err != nil {
		return w.v.f.errfPath(path, "%v", err)
	}
	n, ok := numel(dims)
	if !ok {
		return w.v.f.errfPath(path, "size %v too large", dims)
	}
	if n == 0 {
		return w.marker(path, NameCell, dims, 0)
	}
	if err := w.count(path, n); err != nil {
		return err
	}
	refs, err := ds.ReadReferences()
	if err != nil {
		return w.v.h5err(path, err)
	}
	if int64(len(refs)) != n {
		return w.v.f.errfPath(path, "%d references for %d cells", len(refs), n)
	}
	for k, r := range refs {
		p := path + "{" + strconv.Itoa(k+1) + "}"
		obj, err := w.deref(p, r)
		if err != nil {
			return err
		}
		if err := w.value(obj, p, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// fieldNames are the struct's fields: MATLAB_fields, or the members.
func (w *v73walk) fieldNames(g *hdf5.Group, path string) ([]string, error) {
	if a, err := g.Attr(AttrFields); err == nil {
		return w.v.fieldList(a, path)
	}
	names, err := g.Members()
	if err != nil {
		return nil, w.v.h5err(path, err)
	}
	return names, nil
}

func (w *v73walk) structGroup(g *hdf5.Group, path string, depth int) error {
	fields, err := w.fieldNames(g, path)
	if err != nil {
		return err
	}
	if len(fields) == 0 {
		return w.marker(path, NameStruct, []int{1, 1}, 1)
	}
	if dims, ok := w.v.structArrayDims(g); ok {
		return w.structArray(g, path, depth, fields, dims)
	}
	if err := w.count(path, int64(len(fields))); err != nil {
		return err
	}
	for _, fn := range fields {
		obj, err := g.Open(fn)
		if err != nil {
			return w.v.h5err(path+"."+fn, err)
		}
		if err := w.value(obj, path+"."+fn, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (w *v73walk) structArray(g *hdf5.Group, path string, depth int, fields []string, dims []int) error {
	n, ok := numel(dims)
	if !ok {
		return w.v.f.errfPath(path, "size %v too large", dims)
	}
	if n == 0 {
		return w.marker(path, NameStruct, dims, 0)
	}
	if err := w.count(path, n*int64(len(fields))); err != nil {
		return err
	}
	refs := make([][]hdf5.Reference, len(fields))
	for i, fn := range fields {
		obj, err := g.Open(fn)
		if err != nil {
			return w.v.h5err(path+"."+fn, err)
		}
		ds, ok := obj.(*hdf5.Dataset)
		if !ok {
			return w.v.f.errfPath(path, "field %s of a struct array is not a dataset", fn)
		}
		if refs[i], err = ds.ReadReferences(); err != nil {
			return w.v.h5err(path+"."+fn, err)
		}
		if int64(len(refs[i])) != n {
			return w.v.f.errfPath(path, "field %s holds %d references for %d elements", fn, len(refs[i]), n)
		}
	}
	for k := int64(0); k < n; k++ {
		prefix := path
		if n != 1 {
			prefix = path + "(" + strconv.FormatInt(k+1, 10) + ")"
		}
		for i, fn := range fields {
			p := prefix + "." + fn
			obj, err := w.deref(p, refs[i][k])
			if err != nil {
				return err
			}
			if err := w.value(obj, p, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// readAll reads a whole (small) dataset, with its dtype.
func (w *v73walk) readAll(ds *hdf5.Dataset, path string) ([]byte, *npyio.DType, error) {
	dt, err := ds.DType()
	if err != nil {
		return nil, nil, w.v.h5err(path, err)
	}
	b, err := ds.ReadAll()
	if err != nil {
		return nil, nil, w.v.h5err(path, err)
	}
	return b, dt, nil
}

func (w *v73walk) char(ds *hdf5.Dataset, path string) error {
	units, dims, err := w.charData(ds, path)
	if err != nil {
		return err
	}
	dts, shape, data := charStrings(units, dims)
	return w.emit(path, &Var{Path: path, Class: NameChar, data: data,
		Header: &npyio.Header{DType: dts, FortranOrder: true, Shape: shape}})
}

// charData reads a char dataset's code units (column-major) and MATLAB
// size.
func (w *v73walk) charData(ds *hdf5.Dataset, path string) ([]uint32, []int, error) {
	dims, err := matlabDims(ds.Shape())
	if err != nil {
		return nil, nil, w.v.f.errfPath(path, "%v", err)
	}
	n, _ := numel(dims)
	b, dt, err := w.readAll(ds, path)
	if err != nil {
		return nil, nil, err
	}
	typ, bo := miType(dt)
	var units []uint32
	switch typ {
	case MiUINT16, MiINT16, MiUINT32, MiINT32, MiUINT8, MiINT8:
		units, err = charUnits(typ, b, bo, n)
	case MiUINT64, MiINT64:
		// Some writers store characters as 64-bit code points.
		vals := make([]int64, n)
		if err = decodeT(vals, 1, 0, typ, b, bo, int(n), tgtInt); err == nil {
			units = make([]uint32, n)
			for i, x := range vals {
				if x < 0 || x > 0x10FFFF {
					err = fmt.Errorf("character %d is not Unicode", x)
					break
				}
				units[i] = uint32(x)
			}
		}
	default:
		err = fmt.Errorf("character data of type %s", dt)
	}
	if err != nil {
		return nil, nil, w.v.f.errfPath(path, "%v", err)
	}
	return units, dims, nil
}

// complexView returns the complex dtype with the layout of a compound
// {real, imag} of two floats of one type (real at offset 0, imag after
// it), as MATLAB and hdf5storage store complex data.
func complexView(dt *npyio.DType) (*npyio.DType, bool) {
	if dt.Kind != npyio.Struct || len(dt.Fields) != 2 {
		return nil, false
	}
	re, im := dt.Fields[0], dt.Fields[1]
	if re.Name != "real" || im.Name != "imag" || re.Shape != nil || im.Shape != nil ||
		re.Type.Kind != npyio.Float || !re.Type.Equal(im.Type) || re.Offset != 0 ||
		im.Offset != re.Type.Size || dt.Size != 2*re.Type.Size || (re.Type.Size != 4 && re.Type.Size != 8) {
		return nil, false
	}
	return &npyio.DType{Kind: npyio.Complex, Order: re.Type.Order, Size: 2 * re.Type.Size}, true
}

// classOf picks the numpy dtype of a class for a dataset of dtype dt.
func classOf(class string, dt *npyio.DType) (*npyio.DType, string, bool) {
	if class == "" {
		switch dt.Kind {
		case npyio.Bool:
			return npyio.BoolType, NameLogical, true
		case npyio.Complex:
			if dt.Size == 16 {
				return npyio.Complex128, NameDouble, true
			}
			return npyio.Complex64, NameSingle, true
		}
		nat := dt.Native()
		for _, c := range []Class{ClassDouble, ClassSingle, ClassInt8, ClassUint8, ClassInt16, ClassUint16, ClassInt32, ClassUint32, ClassInt64, ClassUint64} {
			if cd := classDType(c, false); cd.Equal(nat) || (cd.Kind == nat.Kind && cd.Size == nat.Size) {
				return cd, c.String(), true
			}
		}
		return nil, "", false
	}
	c, ok := ClassByName(class)
	if !ok {
		return nil, "", false
	}
	if dt.Kind == npyio.Complex {
		if cd := complexDType(c); cd != nil {
			return cd, class, true
		}
		return nil, "", false
	}
	return classDType(c, c == ClassLogical), class, true
}

func (w *v73walk) numeric(ds *hdf5.Dataset, path, class string) error {
	f := w.v.f
	dims, err := matlabDims(ds.Shape())
	if err != nil {
		return f.errfPath(path, "%v", err)
	}
	dt, err := ds.DType()
	if err != nil {
		return w.v.h5err(path, err)
	}
	if c, ok := complexView(dt); ok {
		dt = c
	} else if dt.Kind == npyio.Struct {
		name := class
		if len(dt.Fields) == 2 && dt.Fields[0].Name == "real" {
			name = "complex " + class
		}
		return f.warn(path, name, "compound data of type "+dt.String()+" has no numpy form of the class")
	}
	out, cls, ok := classOf(class, dt)
	if !ok {
		name := class
		if name == "" {
			name = dt.String()
		}
		return f.warn(path, name, "data of type "+dt.String()+" has no MATLAB numeric class")
	}
	n, _ := numel(dims)
	if uint64(n) != ds.Len() {
		return f.errfPath(path, "%d elements for size %v", ds.Len(), dims)
	}
	v := &Var{Path: path, Class: cls, Header: &npyio.Header{DType: out, FortranOrder: true, Shape: dims}}
	// Stream when the stored values are the output's (up to byte order and
	// bool normalization); otherwise convert them in memory.
	same := dt.Kind == out.Kind && dt.Size == out.Size ||
		out.Kind == npyio.Bool && dt.Kind == npyio.Uint && dt.Size == 1 ||
		out.Kind == npyio.Bool && dt.Kind == npyio.Bool
	if same && (dt.Kind != npyio.Complex || dt.Size == out.Size) {
		v.open = func() (io.ReadCloser, error) { return w.v.newStream(ds, path, dt, out) }
		if len(dims) == len(ds.Shape()) {
			v.slab = func() (io.ReadCloser, error) { return w.v.slabStream(ds, path, dt, out, dims) }
		}
		v.whole = func() ([]byte, error) {
			// One read into one buffer, converted in place.
			b, err := ds.ReadAll()
			if errors.Is(err, hdf5.ErrTooLarge) {
				return nil, &LimitError{Path: path, What: "size of the data read at once", Size: v.Header.DataSize(), Limit: f.opts.MaxVariableBytes, Hint: "MaxVariableBytes, or stream it with Var.Open"}
			}
			if err != nil {
				return nil, w.v.h5err(path, err)
			}
			s := &h5stream{normB: out.Kind == npyio.Bool}
			if !dt.IsNative() {
				s.swap = dt.Size
				if dt.Kind == npyio.Complex {
					s.swap = dt.Size / 2
				}
			}
			s.convert(b)
			return b, nil
		}
		return w.emit(path, v)
	}
	if dt.Kind == npyio.Complex || dt.Kind == npyio.Struct {
		return f.errfPath(path, "data of type %s for class %s", dt, class)
	}
	b, _, err := w.readAll(ds, path)
	if err != nil {
		return err
	}
	typ, bo := miType(dt)
	if typ == 0 {
		return f.errfPath(path, "data of type %s for class %s", dt, class)
	}
	data := allocFor(n, out.Size)
	if err := decodeInto(data, out, 1, 0, typ, b, bo, n); err != nil {
		return f.errfPath(path, "%v", err)
	}
	v.data = data
	return w.emit(path, v)
}

// h5stream reads a dataset batch by batch, converting each to native
// byte order (and bools to 0/1).
type h5stream struct {
	er      *hdf5.ElementReader
	path    string
	v       *v73File
	swap    int // element size to swap, 0 for none
	normB   bool
	pending []byte
}

func (v *v73File) newStream(ds *hdf5.Dataset, path string, dt, out *npyio.DType) (io.ReadCloser, error) {
	s := &h5stream{path: path, v: v, normB: out.Kind == npyio.Bool}
	if !dt.IsNative() {
		s.swap = dt.Size
		if dt.Kind == npyio.Complex {
			s.swap = dt.Size / 2
		}
	}
	er, err := ds.NewElementReader(int(streamBatchBytes))
	if err != nil {
		return nil, v.h5err(path, err)
	}
	s.er = er
	return s, nil
}

func (s *h5stream) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		b, err := s.er.Read()
		if err == io.EOF {
			return 0, io.EOF
		}
		if err != nil {
			return 0, s.v.h5err(s.path, err)
		}
		s.convert(b)
		s.pending = b
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

func (s *h5stream) Close() error { return nil }

// convert turns a batch into native order (and bools into 0/1).
func (s *h5stream) convert(b []byte) {
	if s.swap > 1 {
		swapBytes(b, s.swap)
	}
	if s.normB {
		for i, c := range b {
			if c != 0 {
				b[i] = 1
			}
		}
	}
}

// sparse reads a MATLAB sparse group: MATLAB_sparse (rows), data, ir, jc.
func (w *v73walk) sparse(g *hdf5.Group, path, class string) error {
	f := w.v.f
	a, _ := g.Attr(AttrSparse)
	rows, err := a.Uint64s()
	if err != nil || len(rows) != 1 || rows[0] > 1<<31 {
		return f.errfPath(path, "bad MATLAB_sparse attribute")
	}
	readInts := func(name string) ([]int64, error) {
		obj, err := g.Open(name)
		if err != nil {
			if errors.Is(err, hdf5.ErrNotFound) {
				return nil, nil
			}
			return nil, w.v.h5err(path, err)
		}
		ds, ok := obj.(*hdf5.Dataset)
		if !ok {
			return nil, f.errfPath(path, "sparse %s is not a dataset", name)
		}
		b, dt, err := w.readAll(ds, path)
		if err != nil {
			return nil, err
		}
		typ, bo := miType(dt)
		if typ == 0 || dt.Kind == npyio.Float {
			return nil, f.errfPath(path, "sparse %s of type %s", name, dt)
		}
		out := make([]int64, ds.Len())
		if err := decodeT(out, 1, 0, typ, b, bo, len(out), tgtInt); err != nil {
			return nil, f.errfPath(path, "sparse %s: %v", name, err)
		}
		return out, nil
	}
	jc, err := readInts("jc")
	if err != nil {
		return err
	}
	if len(jc) == 0 {
		return f.errfPath(path, "sparse matrix without column pointers")
	}
	ir, err := readInts("ir")
	if err != nil {
		return err
	}
	s := &csc{m: int(rows[0]), n: len(jc) - 1, ir: ir, jc: jc}
	dims := []int{s.m, s.n}
	logical := class == NameLogical
	outDT := npyio.Float64Type
	if logical {
		outDT = npyio.BoolType
	}
	var vals []byte
	var vdt *npyio.DType
	nv := 0
	if obj, err := g.Open("data"); err == nil {
		ds, ok := obj.(*hdf5.Dataset)
		if !ok {
			return f.errfPath(path, "sparse data is not a dataset")
		}
		if vals, vdt, err = w.readAll(ds, path); err != nil {
			return err
		}
		if c, ok := complexView(vdt); ok {
			vdt = c
		}
		nv = int(ds.Len())
		if vdt.Kind == npyio.Complex {
			if logical {
				return f.errfPath(path, "a complex logical sparse matrix")
			}
			outDT = npyio.Complex128
		}
	} else if !errors.Is(err, hdf5.ErrNotFound) {
		return w.v.h5err(path, err)
	}
	if err := s.check(nv); err != nil {
		return f.errfPath(path, "sparse matrix: %v", err)
	}
	if class != NameDouble && class != NameLogical && class != "" {
		return f.warn(path, "sparse "+class, "MATLAB sparse matrices are double or logical")
	}
	cells, err := denseSize(path, s.m, s.n, outDT.Size, f.opts.MaxSparseBytes)
	if err != nil {
		return err
	}
	out := allocFor(cells, outDT.Size)
	if nv > 0 {
		if vdt.Kind == npyio.Complex {
			// Split into real and imaginary parts of float64.
			half := *vdt
			half.Kind, half.Size = npyio.Float, vdt.Size/2
			typ, bo := miType(&half)
			re := make([]float64, nv)
			im := make([]float64, nv)
			both := make([]float64, 2*nv)
			if err := decodeT(both, 1, 0, typ, vals, bo, 2*nv, tgtF64); err != nil {
				return f.errfPath(path, "sparse values: %v", err)
			}
			for k := 0; k < nv; k++ {
				re[k], im[k] = both[2*k], both[2*k+1]
			}
			scatter(view[float64](out), 2, 0, s, re)
			scatter(view[float64](out), 2, 1, s, im)
		} else {
			typ, bo := miType(vdt)
			if typ == 0 {
				return f.errfPath(path, "sparse values of type %s", vdt)
			}
			conv := allocFor(int64(nv), outDT.Size)
			if err := decodeInto(conv, outDT, 1, 0, typ, vals, bo, int64(nv)); err != nil {
				return f.errfPath(path, "sparse values: %v", err)
			}
			if logical {
				scatter(view[uint8](out), 1, 0, s, view[uint8](conv))
				for i, c := range out {
					if c != 0 {
						out[i] = 1
					}
				}
			} else {
				scatter(view[float64](out), 1, 0, s, view[float64](conv))
			}
		}
	}
	cls := NameDouble
	if logical {
		cls = NameLogical
	}
	return w.emit(path, &Var{Path: path, Class: cls, Sparse: true, data: out,
		Header: &npyio.Header{DType: outDT, FortranOrder: true, Shape: dims}})
}
