package matfile

import (
	"fmt"
	"math"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/npyflow/npyflow/npyio"
)

// Decoders of MATLAB's own classes, from their saved properties (see the
// package documentation for the mapping to numpy).

// missingLen is the length a string array records for <missing>.
const missingLen = math.MaxUint64

// stringObj decodes a string array: its saveobj value "any" is a uint64
// array: version 1, the number of dimensions, the dimensions, one length
// (in UTF-16 code units) per element, then the code units, four per
// uint64, little-endian.
func (d *objDecoder) stringObj(o *mcosObject, path string, depth int) (*value, error) {
	raw := o.prop("any")
	if raw == nil || raw.class != NameUint64 {
		return nil, ssErr("string object %d: its saved value is not uint64", o.id)
	}
	w := view[uint64](raw.data)
	strs, valid, dims, err := parseStrings(w)
	if err != nil {
		return nil, ssErr("string object %d: %v", o.id, err)
	}
	dt, data, err := unicodeArray(strs, path, d.f.opts.MaxVariableBytes)
	if err != nil {
		return nil, err
	}
	return &value{dims: dims, dt: dt, data: data, valid: valid}, nil
}

// parseStrings reads the uint64 words of a saved string array.
func parseStrings(w []uint64) ([]string, []bool, []int, error) {
	if len(w) < 2 {
		return nil, nil, nil, errorf("%d words, fewer than the version and dimension count", len(w))
	}
	if w[0] != 1 {
		return nil, nil, nil, errorf("saved string version %d (npyflow knows 1)", w[0])
	}
	nd := w[1]
	if nd < 2 || nd > uint64(len(w)-2) {
		return nil, nil, nil, errorf("%d dimensions in %d words", nd, len(w))
	}
	dims := make([]int, nd)
	for i := range dims {
		if w[2+i] > 1<<40 {
			return nil, nil, nil, errorf("dimension %d", w[2+i])
		}
		dims[i] = int(w[2+i])
	}
	n, ok := numel(dims)
	rest := w[2+nd:]
	if !ok || n > int64(len(rest)) {
		return nil, nil, nil, errorf("%v strings in %d words", dims, len(rest))
	}
	lens := rest[:n]
	units := rest[n:]
	total := uint64(0)
	for _, l := range lens {
		if l == missingLen {
			continue
		}
		if l > uint64(len(units))*4 || total+l > uint64(len(units))*4 {
			return nil, nil, nil, errorf("strings of %d code units in %d words", total+l, len(units))
		}
		total += l
	}
	if (total+3)/4 != uint64(len(units)) {
		return nil, nil, nil, errorf("%d code units in %d words", total, len(units))
	}
	unit := func(i uint64) uint16 { return uint16(units[i/4] >> (16 * (i % 4))) }
	out := make([]string, n)
	var valid []bool
	pos := uint64(0)
	buf := make([]uint16, 0, 64)
	for k, l := range lens {
		if l == missingLen {
			if valid == nil {
				valid = make([]bool, n)
				for i := range valid {
					valid[i] = true
				}
			}
			valid[k] = false
			continue
		}
		buf = buf[:0]
		for i := uint64(0); i < l; i++ {
			buf = append(buf, unit(pos+i))
		}
		pos += l
		out[k] = string(utf16.Decode(buf))
	}
	return out, valid, dims, nil
}

// unicodeArray packs strings as numpy U<n> (n the longest, in code
// points, at least 1); a size over limit bytes (every string padded to
// the longest) is a LimitError.
func unicodeArray(strs []string, path string, limit int64) (*npyio.DType, []byte, error) {
	width := 1
	for _, s := range strs {
		width = max(width, utf8.RuneCountInString(s))
	}
	if err := checkSize(path, int64(len(strs)), int64(width)*4, limit); err != nil {
		return nil, nil, err
	}
	dt, _ := npyio.NewString(npyio.Unicode, width)
	data := allocFor(int64(len(strs)), dt.Size)
	cells := view[uint32](data)
	for k, s := range strs {
		o := k * width
		for _, r := range s {
			cells[o] = uint32(r)
			o++
		}
	}
	return dt, data, nil
}

// checkSize refuses n elements of es bytes over limit bytes (text padded
// to its longest string can be far larger than the file).
func checkSize(path string, n, es, limit int64) error {
	if es > 0 && n > limit/es {
		return &LimitError{Path: path, What: "size of the decoded array", Size: satMul(n, es), Limit: limit, Hint: "MaxVariableBytes"}
	}
	return nil
}

func satMul(a, b int64) int64 {
	if b != 0 && a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// datetimeObj decodes a datetime array: data (double or complex double
// milliseconds since 1970: wall clock without a zone, UTC instants with
// one), tz (the zone), fmt (the display format, not kept).
func (d *objDecoder) datetimeObj(o *mcosObject, path string, depth int) (*value, error) {
	re, im, dims, err := msValues(o.prop("data"))
	if err != nil {
		return nil, ssErr("datetime object %d: data: %v", o.id, err)
	}
	v, rounded, err := timeValue(re, im, dims, false)
	if err != nil {
		return nil, skipf("datetime", "%v", err)
	}
	if rounded {
		d.f.note(path, "datetime", "values rounded to whole "+v.dt.Unit)
	}
	if tz, ok := o.prop("tz").str(); ok {
		v.tz = tz
	}
	return v, nil
}

// msValues reads a double (or complex double) array of milliseconds; a
// missing property is an empty array.
func msValues(n *mxNode) (re, im []float64, dims []int, err error) {
	if n == nil {
		return nil, nil, []int{0, 0}, nil
	}
	if n.dt == nil || n.sparse {
		return nil, nil, nil, errorf("a %s, not double", n.class)
	}
	k := n.numel()
	if n.dt.Kind == npyio.Complex {
		if n.dt.Size != 16 {
			return nil, nil, nil, errorf("complex data of %s", n.dt)
		}
		c := view[float64](n.data)
		re, im = make([]float64, k), make([]float64, k)
		for i := 0; i < k; i++ {
			re[i], im[i] = c[2*i], c[2*i+1]
		}
		return re, im, n.dims, nil
	}
	re, ok := n.floats()
	if !ok {
		return nil, nil, nil, errorf("data of %s", n.dt)
	}
	return re, nil, n.dims, nil
}

// durationObj decodes a duration array: millis (double milliseconds),
// fmt (display format, not kept).
func (d *objDecoder) durationObj(o *mcosObject, path string, depth int) (*value, error) {
	re, _, dims, err := msValues(o.prop("millis"))
	if err != nil {
		return nil, ssErr("duration object %d: millis: %v", o.id, err)
	}
	v, rounded, err := timeValue(re, nil, dims, true)
	if err != nil {
		return nil, skipf("duration", "%v", err)
	}
	if rounded {
		d.f.note(path, "duration", "values rounded to whole "+v.dt.Unit)
	}
	return v, nil
}

// calendarDurationType is the numpy form of a calendarDuration: Parquet's
// INTERVAL parts.
var calendarDurationType = func() *npyio.DType {
	dt, err := npyio.NewStruct([]npyio.Field{{Name: "months", Type: npyio.Int32Type}, {Name: "days", Type: npyio.Int32Type}, {Name: "millis", Type: npyio.Int64Type}})
	if err != nil {
		panic(err)
	}
	return dt
}()

// calendarDurationObj decodes a calendarDuration array: components, a
// struct of months, days and millis, each of the array's size or a
// scalar that applies to every element.
func (d *objDecoder) calendarDurationObj(o *mcosObject, path string, depth int) (*value, error) {
	c := o.prop("components")
	if c == nil || c.class != NameStruct || len(c.elems) != 1 {
		return nil, ssErr("calendarDuration object %d: components is not a 1x1 struct", o.id)
	}
	var parts [3][]float64
	var dims []int
	for i, name := range []string{"months", "days", "millis"} {
		p := c.field(name, 0)
		if p == nil {
			return nil, ssErr("calendarDuration object %d: no %s", o.id, name)
		}
		v, ok := p.floats()
		if !ok {
			return nil, ssErr("calendarDuration object %d: %s is a %s", o.id, name, p.class)
		}
		parts[i] = v
		if len(v) != 1 && (dims == nil || len(v) > 1) {
			if dims != nil && !equalInts(dims, p.dims) {
				return nil, ssErr("calendarDuration object %d: parts of sizes %v and %v", o.id, dims, p.dims)
			}
			dims = p.dims
		}
	}
	if dims == nil {
		dims = []int{1, 1}
	}
	n, _ := numel(dims)
	for i := range parts {
		if len(parts[i]) != 1 && int64(len(parts[i])) != n {
			return nil, ssErr("calendarDuration object %d: a part of %d values for %v", o.id, len(parts[i]), dims)
		}
	}
	at := func(p []float64, k int64) float64 {
		if len(p) == 1 {
			return p[0]
		}
		return p[k]
	}
	data := allocFor(n, calendarDurationType.Size)
	var valid []bool
	for k := int64(0); k < n; k++ {
		m, dd, ms := at(parts[0], k), at(parts[1], k), at(parts[2], k)
		if math.IsNaN(m) || math.IsNaN(dd) || math.IsNaN(ms) {
			if valid == nil {
				valid = make([]bool, n)
				for i := range valid {
					valid[i] = true
				}
			}
			valid[k] = false
			continue
		}
		if m != math.Trunc(m) || dd != math.Trunc(dd) || ms != math.Trunc(ms) ||
			math.Abs(m) > math.MaxInt32 || math.Abs(dd) > math.MaxInt32 || math.Abs(ms) > 1<<62 {
			return nil, skipf("calendarDuration", "element %d (%v months, %v days, %v ms) is not whole months, days and milliseconds of int32, int32 and int64", k+1, m, dd, ms)
		}
		rec := data[k*16:]
		view[int32](rec[:8])[0] = int32(m)
		view[int32](rec[:8])[1] = int32(dd)
		view[int64](rec[8:16])[0] = int64(ms)
	}
	return &value{dims: dims, dt: calendarDurationType, data: data, valid: valid}, nil
}

// categoricalObj decodes a categorical array: codes (unsigned, 1-based
// into categoryNames, 0 for <undefined>), categoryNames (a cell of
// char), isOrdinal.
func (d *objDecoder) categoricalObj(o *mcosObject, path string, depth int) (*value, error) {
	names, ok := cellStrings(o.prop("categoryNames"))
	if !ok {
		return nil, ssErr("categorical object %d: categoryNames is not a cell of text", o.id)
	}
	codes := o.prop("codes")
	var dims []int
	var cv []float64
	if codes == nil {
		dims = []int{0, 0}
	} else {
		if cv, ok = codes.floats(); !ok {
			return nil, ssErr("categorical object %d: codes is a %s", o.id, codes.class)
		}
		dims = codes.dims
	}
	strs := make([]string, len(cv))
	var valid []bool
	for k, c := range cv {
		if c == 0 {
			if valid == nil {
				valid = make([]bool, len(cv))
				for i := range valid {
					valid[i] = true
				}
			}
			valid[k] = false
			continue
		}
		if c < 0 || c > float64(len(names)) || c != math.Trunc(c) {
			return nil, ssErr("categorical object %d: code %v outside the %d categories", o.id, c, len(names))
		}
		strs[k] = names[int(c)-1]
	}
	dt, data, err := unicodeArray(strs, path, d.f.opts.MaxVariableBytes)
	if err != nil {
		return nil, err
	}
	v := &value{dims: dims, dt: dt, data: data, valid: valid, cats: names}
	if ord, ok := o.prop("isOrdinal").scalar(); ok && ord != 0 {
		v.ordered = true
	}
	if v.cats == nil {
		v.cats = []string{}
	}
	return v, nil
}

// cellStrings reads a cell of char rows (or of scalar strings).
func cellStrings(n *mxNode) ([]string, bool) {
	if n == nil {
		return nil, false
	}
	if n.class == NameChar && n.isEmpty() {
		return []string{}, true
	}
	if n.class != NameCell {
		return nil, false
	}
	out := make([]string, len(n.cells))
	for i, c := range n.cells {
		s, ok := c.str()
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// enumeration decodes an enumeration array to its member names.
func (d *objDecoder) enumeration(e *enumRef, path string) (*value, error) {
	ss, err := d.f.subsystem()
	if err != nil {
		return nil, err
	}
	if e.className == 0 || int64(e.className) >= int64(len(ss.classes)) {
		return nil, ssErr("enumeration class id %d outside the %d classes", e.className, len(ss.classes)-1)
	}
	class := ss.classes[e.className].name
	strs := make([]string, len(e.indices))
	for k, i := range e.indices {
		s, ok := ss.name(e.names[i])
		if !ok {
			return nil, ssErr("enumeration member name index %d outside the %d names", e.names[i], len(ss.names))
		}
		strs[k] = s
	}
	dt, data, err := unicodeArray(strs, path, d.f.opts.MaxVariableBytes)
	if err != nil {
		return nil, err
	}
	return &value{class: class, dims: e.dims, dt: dt, data: data}, nil
}

// mapObj decodes a containers.Map: serialization, a struct of keys and
// values (cells), keyType and valueType.
func (d *objDecoder) mapObj(o *mcosObject, path string, depth int) (*value, error) {
	s := o.prop("serialization")
	if s == nil || s.class != NameStruct || len(s.elems) != 1 {
		return nil, ssErr("containers.Map object %d: serialization is not a 1x1 struct", o.id)
	}
	keys, vals := s.field("keys", 0), s.field("values", 0)
	if keys == nil || vals == nil || keys.class != NameCell || vals.class != NameCell || len(keys.cells) != len(vals.cells) {
		return nil, ssErr("containers.Map object %d: keys and values are not cells of one length", o.id)
	}
	kt, _ := s.field("keyType", 0).str()
	vt, _ := s.field("valueType", 0).str()
	rows := len(keys.cells)
	kc, err := d.uniformColumn("key", keys.cells, kt, path, depth)
	if err != nil {
		return nil, err
	}
	vc, err := d.uniformColumn("value", vals.cells, vt, path, depth)
	if err != nil {
		return nil, err
	}
	return tableValue(&Table{Name: path, Class: "containers.Map", Rows: rows, Columns: []*Column{kc, vc}}, []int{rows, 1}), nil
}

// uniformColumn is the column of cells that hold scalars of one type
// (a char row counts as one string); typ, a containers.Map's key or
// value type, gives the type when there are no cells.
func (d *objDecoder) uniformColumn(name string, cells []*mxNode, typ, path string, depth int) (*Column, error) {
	if len(cells) == 0 {
		c := &Column{Name: name, Class: typ}
		switch typ {
		case NameChar:
			c.DType, _ = npyio.NewString(npyio.Unicode, 1)
		default:
			cl, ok := ClassByName(typ)
			if !ok || classDType(cl, cl == ClassLogical) == nil {
				return nil, skipf("containers.Map", "an empty map of %s type %q has no numpy form", name, typ)
			}
			c.DType = classDType(cl, cl == ClassLogical)
		}
		c.Data = []byte{}
		return c, nil
	}
	v, err := d.cellsValue(cells, []int{len(cells), 1}, path, depth)
	if err != nil {
		return nil, err
	}
	c, err := columnOf(name, v, len(cells), path)
	if err != nil {
		return nil, err
	}
	if c.Shape != nil {
		return nil, skipf("", "its %ss are not scalars", name)
	}
	return c, nil
}

// dictionaryObj decodes a dictionary: data, a struct of Key and Value
// (arrays of one type each), or Unconfigured for one without types.
func (d *objDecoder) dictionaryObj(o *mcosObject, path string, depth int) (*value, error) {
	s := o.prop("data")
	if s == nil || s.class != NameStruct || len(s.elems) != 1 {
		return nil, ssErr("dictionary object %d: data is not a 1x1 struct", o.id)
	}
	if u, ok := s.field("Unconfigured", 0).scalar(); ok && u != 0 {
		return nil, skipf("dictionary", "an unconfigured dictionary (no key or value type) has no numpy form")
	}
	keys, vals := s.field("Key", 0), s.field("Value", 0)
	if keys == nil || vals == nil {
		return nil, ssErr("dictionary object %d: no Key or Value", o.id)
	}
	kv, err := d.dictPart(keys, path, depth)
	if err != nil {
		return nil, err
	}
	vv, err := d.dictPart(vals, path, depth)
	if err != nil {
		return nil, err
	}
	kn, vn := kv.numel(), vv.numel()
	if vn == 1 && kn != 1 {
		if err := checkSize(path, int64(kn), int64(vv.dt.Size), d.f.opts.MaxVariableBytes); err != nil {
			return nil, err
		}
		vv = repeatValue(vv, kn)
		vn = kn
	}
	if kn != vn {
		return nil, ssErr("dictionary object %d: %d keys and %d values", o.id, kn, vn)
	}
	kc, err := columnOf("key", kv, kn, path)
	if err != nil {
		return nil, err
	}
	vc, err := columnOf("value", vv, kn, path)
	if err != nil {
		return nil, err
	}
	return tableValue(&Table{Name: path, Class: "dictionary", Rows: kn, Columns: []*Column{kc, vc}}, []int{1, 1}), nil
}

// dictPart decodes a dictionary's keys or values: an array (of objects
// or of a numeric class); cells have no numpy form.
func (d *objDecoder) dictPart(n *mxNode, path string, depth int) (*value, error) {
	if n.class == NameCell {
		return nil, skipf("dictionary", "keys or values in a cell have no numpy form")
	}
	v, err := d.plainOrObject(n, path, depth)
	if err != nil {
		return nil, err
	}
	if v.table != nil {
		return nil, skipf("dictionary", "keys or values of class %s have no scalar numpy form", v.class)
	}
	// As a column vector.
	v.dims = []int{v.numel(), 1}
	return v, nil
}

// repeatValue repeats a one-element value n times.
func repeatValue(v *value, n int) *value {
	out := *v
	out.dims = []int{n, 1}
	es := v.dt.Size
	out.data = allocFor(int64(n), es)
	for i := 0; i < n; i++ {
		copy(out.data[i*es:], v.data[:es])
	}
	if v.valid != nil {
		out.valid = make([]bool, n)
		for i := range out.valid {
			out.valid[i] = v.valid[0]
		}
	}
	return &out
}

// tableValue is a table as a value; dims is MATLAB's size of the object
// (rows by variables for a table, entries by 1 for a containers.Map, 1x1
// for a dictionary).
func tableValue(t *Table, dims []int) *value {
	return &value{class: t.Class, dims: dims, table: t}
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
