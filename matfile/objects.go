package matfile

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/npyflow/npyflow/npyio"
)

// Meta is what an array decoded from a MATLAB object keeps beside its
// numpy form (nil on the Vars of plain arrays).
type Meta struct {
	// TimeZone is the zone of a datetime that has one: its data holds
	// the UTC instants ("" for wall-clock values).
	TimeZone string
	// Categories are a categorical's categories, in order; Ordered is
	// set for an ordinal one.
	Categories []string
	Ordered    bool
	// Table is set on a table, a timetable, a containers.Map and a
	// dictionary: the Var's records are its rows, described column by
	// column (units, descriptions, validity, metadata).
	Table *Table
}

// value is a MATLAB value decoded to its numpy form: column-major data
// of MATLAB's size, or a table.
type value struct {
	class   string
	dims    []int        // MATLAB's size
	dt      *npyio.DType // element type
	data    []byte       // column-major, native byte order
	valid   []bool       // nil: every element holds a value
	tz      string
	cats    []string
	ordered bool
	table   *Table // tables (dims: rows x variables; data unused)
}

func (v *value) numel() int {
	n, _ := numel(v.dims)
	return int(n)
}

// toVar turns a decoded value into the Var the walk emits.
func (v *value) toVar(path string) *Var {
	if v.table != nil {
		a := v.table.records()
		return &Var{Path: path, Class: v.class, data: a.Data, Header: a.Header, Meta: &Meta{Table: v.table}, Valid: nil}
	}
	out := &Var{Path: path, Class: v.class, data: v.data, Valid: v.valid,
		Header: &npyio.Header{DType: v.dt, FortranOrder: true, Shape: append([]int(nil), v.dims...)}}
	if v.tz != "" || v.cats != nil || v.ordered {
		out.Meta = &Meta{TimeZone: v.tz, Categories: v.cats, Ordered: v.ordered}
	}
	return out
}

// errUserClass: the object is of a class without a numpy form of its
// own; it reads as the struct of its properties.
var errUserClass = errors.New("a user class")

// skipError is a value with no numpy form (a function handle, a Java
// object, a map of mixed values): skipped with a warning.
type skipError struct {
	class string
	msg   string
}

func (e *skipError) Error() string { return e.class + ": " + e.msg }

func skipf(class, format string, args ...any) error {
	return &skipError{class: class, msg: fmt.Sprintf(format, args...)}
}

// objDecoder decodes the objects of one File.
type objDecoder struct {
	f        *File
	warned   map[string]bool   // user classes warned about
	cache    map[uint32]*value // decoded objects, by id
	decoding map[uint32]bool   // objects being decoded
	emitting map[uint32]bool   // user objects whose properties are being emitted
	work     int               // decoding steps left for the current variable
}

func (f *File) objects() *objDecoder {
	if f.od == nil {
		f.od = &objDecoder{f: f, warned: map[string]bool{}, cache: map[uint32]*value{},
			decoding: map[uint32]bool{}, emitting: map[uint32]bool{}}
		f.od.begin()
	}
	return f.od
}

// begin starts the work budget of one variable: objects can share
// objects (and handle objects refer back to each other), so the values a
// variable expands to are bounded, at 4 times Options.MaxElements.
// The decoded objects are kept for the variable only.
func (d *objDecoder) begin() {
	d.work = 4 * d.f.opts.MaxElements
	clear(d.cache)
}

func (d *objDecoder) step(path string) error {
	d.work--
	if d.work < 0 {
		return &LimitError{Path: path, What: "number of object values", Size: int64(4 * d.f.opts.MaxElements), Limit: int64(4 * d.f.opts.MaxElements), Hint: "MaxElements"}
	}
	return nil
}

// isObject reports whether n is an object (reference or enumeration).
func isObject(n *mxNode) bool { return n.ref != nil || n.enum != nil }

// classOfRef is the class name of an object reference.
func (d *objDecoder) classOfRef(r *objRef) (string, error) {
	ss, err := d.f.subsystem()
	if err != nil {
		return "", err
	}
	if r.classID == 0 || int64(r.classID) >= int64(len(ss.classes)) {
		return "", ssErr("class id %d outside the %d classes", r.classID, len(ss.classes)-1)
	}
	return ss.classes[r.classID].name, nil
}

// decode turns an object node into its value; errUserClass for a class
// that reads as a struct of properties, a *skipError for one with no
// numpy form.
func (d *objDecoder) decode(n *mxNode, path string, depth int) (*value, error) {
	if depth > d.f.opts.MaxDepth {
		return nil, &LimitError{Path: path, What: "nesting depth", Size: int64(depth), Limit: int64(d.f.opts.MaxDepth), Hint: "MaxDepth"}
	}
	if err := d.step(path); err != nil {
		return nil, err
	}
	if n.enum != nil {
		return d.enumeration(n.enum, path)
	}
	r := n.ref
	if r == nil {
		return nil, fmt.Errorf("not an object")
	}
	class, err := d.classOfRef(r)
	if err != nil {
		return nil, err
	}
	dec, known := classDecoders[class]
	if !known {
		if skip, ok := skippedClasses[class]; ok {
			return nil, skipf(class, "%s", skip)
		}
		if strings.HasPrefix(class, "matlab.graphics.") || strings.HasPrefix(class, "matlab.ui.") {
			return nil, skipf(class, "graphics objects have no numpy form")
		}
		return nil, errUserClass
	}
	ss, _ := d.f.subsystem()
	if len(r.ids) != 1 {
		if len(r.ids) == 0 {
			return nil, skipf(class, "an empty array of %s objects", class)
		}
		return nil, skipf(class, "an array of %d %s objects (MATLAB keeps one %s object per array)", len(r.ids), class, class)
	}
	id := r.ids[0]
	o, err := ss.object(id)
	if err != nil {
		return nil, err
	}
	if o.class != class {
		return nil, ssErr("object %d is of class %s, the reference says %s", id, o.class, class)
	}
	if v, ok := d.cache[id]; ok {
		c := *v
		return &c, nil
	}
	if d.decoding[id] {
		return nil, ssErr("object %d (a %s) contains itself", id, class)
	}
	d.decoding[id] = true
	v, err := dec(d, o, path, depth)
	delete(d.decoding, id)
	if err != nil {
		return nil, err
	}
	v.class = class
	d.cache[id] = v
	c := *v
	return &c, nil
}

// classDecoders are the classes with a numpy form of their own.
var classDecoders map[string]func(d *objDecoder, o *mcosObject, path string, depth int) (*value, error)

func init() {
	classDecoders = map[string]func(d *objDecoder, o *mcosObject, path string, depth int) (*value, error){
		"string":           (*objDecoder).stringObj,
		"datetime":         (*objDecoder).datetimeObj,
		"duration":         (*objDecoder).durationObj,
		"calendarDuration": (*objDecoder).calendarDurationObj,
		"categorical":      (*objDecoder).categoricalObj,
		"table":            (*objDecoder).tableObj,
		"timetable":        (*objDecoder).timetableObj,
		"containers.Map":   (*objDecoder).mapObj,
		"dictionary":       (*objDecoder).dictionaryObj,
	}
}

// skippedClasses have no numpy form (and no properties worth a struct).
var skippedClasses = map[string]string{
	"function_handle_workspace": "a function handle's workspace has no numpy form",
	"timeseries":                "a timeseries object is not read (its data is in a saveobj form npyflow does not know)",
}

// emit emits the arrays of n at path, decoding objects; a value that
// cannot be decoded is skipped with a warning naming it (an error in
// Strict mode).
func (d *objDecoder) emit(n *mxNode, path string, depth int, emit func(string, *Var) error) error {
	f := d.f
	if depth > f.opts.MaxDepth {
		return &LimitError{Path: path, What: "nesting depth", Size: int64(depth), Limit: int64(f.opts.MaxDepth), Hint: "MaxDepth"}
	}
	if err := d.step(path); err != nil {
		return err
	}
	if n.skip != "" {
		return f.warn(path, n.class, n.skip)
	}
	if isObject(n) {
		v, err := d.decode(n, path, depth)
		if err == nil {
			return emit(path, v.toVar(path))
		}
		if err == errUserClass {
			return d.emitUserObject(n, path, depth, emit)
		}
		return d.objectFailed(path, n, err)
	}
	switch {
	case n.class == NameChar:
		dt, shape, data := charStrings(n.chars, n.dims)
		return emit(path, &Var{Path: path, Class: NameChar, data: data, Header: &npyio.Header{DType: dt, FortranOrder: true, Shape: shape}})
	case n.dt != nil:
		return emit(path, &Var{Path: path, Class: n.class, Sparse: n.sparse, data: n.data, Header: &npyio.Header{DType: n.dt, FortranOrder: true, Shape: n.dims}})
	case n.class == NameCell:
		if len(n.cells) == 0 {
			return emit(path, markerVar(path, NameCell, n.dims, 0))
		}
		for k, c := range n.cells {
			if err := d.emit(c, path+"{"+strconv.Itoa(k+1)+"}", depth+1, emit); err != nil {
				return err
			}
		}
		return nil
	case n.class == NameStruct || n.system == "old":
		k := n.numel()
		if k == 0 || len(n.fields) == 0 || len(n.elems) == 0 {
			return emit(path, markerVar(path, NameStruct, n.dims, int64(k)))
		}
		for e, vals := range n.elems {
			prefix := path
			if len(n.elems) != 1 {
				prefix = path + "(" + strconv.Itoa(e+1) + ")"
			}
			for i, fn := range n.fields {
				if err := d.emit(vals[i], prefix+"."+fn, depth+1, emit); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return f.warn(path, n.class, "no numpy form")
}

// objectFailed turns a decoding error into the warning (or Strict
// error) for the value at path.
func (d *objDecoder) objectFailed(path string, n *mxNode, err error) error {
	class := d.className(n)
	var se *skipError
	if errors.As(err, &se) {
		if n.ref == nil && se.class != "" {
			class = se.class // an enumeration's
		}
		return d.f.warn(path, class, se.msg)
	}
	var le *LimitError
	if errors.As(err, &le) && le.Path == "" {
		le.Path = path
	}
	return d.f.warnErr(path, class, d.f.pathErr(path, err))
}

// pathError names the file and the variable an error is about.
type pathError struct {
	file, path string
	err        error
}

func (e *pathError) Error() string {
	msg := strings.TrimPrefix(e.err.Error(), "matfile: ")
	if e.file != "" {
		msg = strings.TrimPrefix(msg, e.file+": ")
		return "matfile: " + e.file + ": variable " + e.path + ": " + msg
	}
	return "matfile: variable " + e.path + ": " + msg
}

func (e *pathError) Unwrap() error { return e.err }

// pathErr makes err name the variable at path (if it does not).
func (f *File) pathErr(path string, err error) error {
	if strings.Contains(err.Error(), path) {
		return err
	}
	return &pathError{file: f.name, path: path, err: err}
}

// emitUserObject emits a user class object as the struct of its saved
// properties (a scalar's as path.prop, an array's as path(k).prop),
// warning once per class.
func (d *objDecoder) emitUserObject(n *mxNode, path string, depth int, emit func(string, *Var) error) error {
	r := n.ref
	class, err := d.classOfRef(r)
	if err != nil {
		return d.objectFailed(path, n, err)
	}
	ss, _ := d.f.subsystem()
	objs := make([]*mcosObject, len(r.ids))
	for k, id := range r.ids {
		if objs[k], err = ss.object(id); err != nil {
			return d.objectFailed(path, n, err)
		}
		if objs[k].class != class {
			return d.objectFailed(path, n, ssErr("object %d is of class %s, the reference says %s", id, objs[k].class, class))
		}
	}
	if !d.warned[class] {
		d.warned[class] = true
		d.f.note(path, class, "an object of a class without a numpy form of its own: read as the struct of its saved properties")
	}
	if len(objs) == 0 {
		return emit(path, markerVar(path, NameStruct, r.dims, 0))
	}
	for k, o := range objs {
		prefix := path
		if len(objs) != 1 {
			prefix = path + "(" + strconv.Itoa(k+1) + ")"
		}
		if d.emitting[o.id] {
			// A handle object holding itself (or one that holds it).
			if err := d.f.warn(prefix, class, "refers back to an object that contains it"); err != nil {
				return err
			}
			continue
		}
		names, vals, err := d.userProps(o)
		if err != nil {
			return d.objectFailed(prefix, n, err)
		}
		if len(names) == 0 {
			if err := emit(prefix, markerVar(prefix, NameStruct, []int{1, 1}, 1)); err != nil {
				return err
			}
			continue
		}
		d.emitting[o.id] = true
		for i, name := range names {
			if err := d.emit(vals[i], prefix+"."+name, depth+1, emit); err != nil {
				delete(d.emitting, o.id)
				return err
			}
		}
		delete(d.emitting, o.id)
	}
	return nil
}

// userProps are an object's properties as struct(obj) gives them: the
// saved (and default) ones, then its dynamic properties by name.
func (d *objDecoder) userProps(o *mcosObject) ([]string, []*mxNode, error) {
	names := append([]string(nil), o.names...)
	vals := append([]*mxNode(nil), o.values...)
	if len(o.dyn) == 0 {
		return names, vals, nil
	}
	ss, _ := d.f.subsystem()
	for _, id := range o.dyn {
		p, err := ss.object(id)
		if err != nil {
			return nil, nil, err
		}
		name, ok := p.prop("DynamicName_").str()
		if !ok || name == "" {
			return nil, nil, ssErr("dynamic property object %d has no DynamicName_", id)
		}
		v := p.prop("DynamicValue_")
		if v == nil {
			v = emptyNode(NameDouble, []int{0, 0})
		}
		names = append(names, name)
		vals = append(vals, v)
	}
	return names, vals, nil
}

// className is the MATLAB class of a node: an object's from the
// subsystem when it can be read.
func (d *objDecoder) className(n *mxNode) string {
	if n.ref != nil {
		if c, err := d.classOfRef(n.ref); err == nil {
			return c
		}
	}
	return n.class
}

// markerVar is the stand-in of an empty cell or struct (see Var.Marker).
func markerVar(path, class string, dims []int, n int64) *Var {
	shape := append([]int(nil), dims...)
	if n > 0 {
		shape = append(shape, 0)
	}
	return &Var{Path: path, Class: class, Marker: true, data: []byte{},
		Header: &npyio.Header{DType: npyio.Float64Type, FortranOrder: true, Shape: shape}}
}
