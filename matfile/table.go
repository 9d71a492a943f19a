package matfile

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/npyflow/npyflow/npyio"
)

// Table is a MATLAB table, timetable, containers.Map, dictionary, or a
// 1x1 struct of columns (struct2table's layout), read whole: named
// columns of one row count, each a numpy dtype with a per-row shape and
// its data in C order.
//
// As one numpy array ([Table.Array]) it is a structured array of shape
// (Rows,): a field per column, in order. A Table and its columns are
// the caller's; nothing else refers to them.
type Table struct {
	Name  string // the variable's path
	Class string // "table", "timetable", "containers.Map", "dictionary" or "struct"
	Rows  int
	// Columns in order: a table's row names, or a timetable's row times,
	// first (Column.Index), named by DimensionNames[0].
	Columns []*Column
	// Description is the table's Properties.Description.
	Description string
	// DimensionNames are a table's or timetable's Properties.DimensionNames
	// (rows, variables): "Row" / "Time" and "Variables" unless renamed.
	DimensionNames []string
	// LeftOut are the table's variables that have no column form (a
	// cell of objects or of mixed types, a user class object), in order:
	// each is also a Warning naming the table and the variable.
	LeftOut []LeftOutColumn
}

// LeftOutColumn is a table variable left out of its Table: its name,
// MATLAB class and why it has no numpy form.
type LeftOutColumn struct {
	Name, Class, Reason string
}

// Column is one column of a Table: a MATLAB table variable (or row
// names, row times, a map's keys or values, a struct field).
type Column struct {
	Name string
	// Class is the MATLAB class of the variable: "double", "logical",
	// "char" (a char matrix, one string per row), "cell" (a cell of
	// text or of scalars of one type), "string", "datetime",
	// "duration", "calendarDuration", "categorical", an enumeration's
	// class, "table" or "struct" (nested).
	Class string
	// Index is set for a table's row names and a timetable's row times.
	Index bool
	// DType is the numpy type of one element: U<n> for text, datetime64
	// and timedelta64 for times (see the package documentation), a
	// struct for calendarDuration and for nested tables and structs.
	DType *npyio.DType
	// Shape is the shape of one row: nil for an N-by-1 variable (a
	// scalar column), {k} for an N-by-k one, {k, m} for N-by-k-by-m.
	Shape []int
	// Data holds Rows times the product of Shape elements of DType, in
	// C order (row after row), in native byte order.
	Data []byte
	// Valid is nil when every element holds a value; otherwise one entry
	// per element (in Data's order), false for a <missing> string, an
	// <undefined> categorical (whose data is "") or a calendarDuration
	// with a NaN part (whose data is zero). NaT and NaN are values of
	// their dtypes.
	Valid []bool
	// TimeZone is set for a datetime column with a time zone: Data holds
	// UTC instants.
	TimeZone string
	// Categories (in order) and Ordered describe a categorical column.
	Categories []string
	Ordered    bool
	// Unit and Description are the table's VariableUnits and
	// VariableDescriptions entries, if any.
	Unit, Description string
	// Columns are a nested table's or struct's columns (Data holds the
	// packed records of DType, a struct of them).
	Columns []*Column
}

// ColumnInfo describes a column without its data (see VarInfo.Columns).
type ColumnInfo struct {
	Name  string
	Class string
	Index bool
	DType *npyio.DType
	Shape []int
}

// ErrNotTable is returned (wrapped) by File.ReadTable for a variable
// that is not a table, timetable, map, dictionary or struct of columns.
var ErrNotTable = errors.New("not a table")

// DType is the structured dtype of the table's records: a field per
// column, named as the column, of its DType and Shape.
func (t *Table) DType() *npyio.DType {
	fields := make([]npyio.Field, len(t.Columns))
	for i, c := range t.Columns {
		fields[i] = npyio.Field{Name: c.Name, Type: c.DType, Shape: c.Shape}
	}
	dt, err := npyio.NewStruct(fields)
	if err != nil {
		// Column names are unique and sizes bounded by the data read.
		panic("matfile: table dtype: " + err.Error())
	}
	return dt
}

// Array packs the table into one structured array of shape (Rows,), a
// field per column (validity and metadata are not part of it).
func (t *Table) Array() *npyio.Array { return t.records() }

// Info describes the columns without their data.
func (t *Table) Info() []ColumnInfo {
	out := make([]ColumnInfo, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = ColumnInfo{Name: c.Name, Class: c.Class, Index: c.Index, DType: c.DType, Shape: c.Shape}
	}
	return out
}

// Column returns the column named name, nil if there is none.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func (t *Table) records() *npyio.Array {
	dt := t.DType()
	data := packRecords(dt, t.Columns, t.Rows)
	return &npyio.Array{Header: &npyio.Header{DType: dt, Shape: []int{t.Rows}}, DType: dt, Data: data}
}

// packRecords interleaves the columns' C-order data into rows records.
func packRecords(dt *npyio.DType, cols []*Column, rows int) []byte {
	data := allocFor(int64(rows), dt.Size)
	for i, c := range cols {
		f := dt.Fields[i]
		w := f.Size()
		for r := 0; r < rows; r++ {
			copy(data[r*dt.Size+f.Offset:r*dt.Size+f.Offset+w], c.Data[r*w:(r+1)*w])
		}
	}
	return data
}

// columnOf turns a decoded value of rows rows (MATLAB's first dimension)
// into a column: the data reordered row by row.
func columnOf(name string, v *value, rows int, path string) (*Column, error) {
	c := &Column{Name: name, Class: v.class}
	if v.table != nil {
		if v.table.Rows != rows {
			return nil, skipf(v.class, "a nested %s of %d rows in a table of %d", v.class, v.table.Rows, rows)
		}
		a := v.table.records()
		c.DType, c.Data, c.Columns = a.DType, a.Data, v.table.Columns
		return c, nil
	}
	if len(v.dims) == 0 || v.dims[0] != rows {
		return nil, skipf(v.class, "of size %s, not %d rows", sizeString(v.dims), rows)
	}
	c.DType = v.dt
	for _, d := range v.dims[1:] {
		c.Shape = append(c.Shape, d)
	}
	// Drop trailing singleton dimensions: N-by-1 is a scalar column.
	for len(c.Shape) > 0 && c.Shape[len(c.Shape)-1] == 1 {
		c.Shape = c.Shape[:len(c.Shape)-1]
	}
	if len(c.Shape) == 0 {
		c.Shape = nil
	}
	c.Data = toRows(v.data, v.dt.Size, v.dims)
	if v.valid != nil {
		b := make([]byte, len(v.valid))
		for i, ok := range v.valid {
			if ok {
				b[i] = 1
			}
		}
		rb := toRows(b, 1, v.dims)
		c.Valid = make([]bool, len(rb))
		for i, x := range rb {
			c.Valid[i] = x != 0
		}
	}
	c.TimeZone, c.Categories, c.Ordered = v.tz, v.cats, v.ordered
	return c, nil
}

// toRows reorders column-major data of dims (elements of es bytes) into
// C order (the same array, row after row).
func toRows(data []byte, es int, dims []int) []byte {
	big := 0
	for _, d := range dims {
		if d > 1 {
			big++
		}
	}
	if big <= 1 {
		return data // one axis longer than 1: both orders agree
	}
	n, _ := numel(dims)
	out := allocFor(n, es)
	if n == 0 {
		return out
	}
	// Walk the C-order index, tracking the column-major offset.
	idx := make([]int, len(dims))
	stride := make([]int, len(dims))
	s := 1
	for i := range dims {
		stride[i] = s
		s *= dims[i]
	}
	src := 0
	for k := 0; k < int(n); k++ {
		copy(out[k*es:(k+1)*es], data[src*es:(src+1)*es])
		for a := len(dims) - 1; a >= 0; a-- {
			idx[a]++
			src += stride[a]
			if idx[a] < dims[a] {
				break
			}
			src -= stride[a] * dims[a]
			idx[a] = 0
		}
	}
	return out
}

func sizeString(dims []int) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = fmt.Sprint(d)
	}
	return strings.Join(s, "x")
}

// tableObj decodes a table: data (a cell of the variables), nrows,
// varnames, rownames, props (DimensionNames, VariableUnits,
// VariableDescriptions, Description ...).
func (d *objDecoder) tableObj(o *mcosObject, path string, depth int) (*value, error) {
	nr, ok := o.prop("nrows").scalar()
	if !ok || nr < 0 || nr != math.Trunc(nr) || nr > 1<<40 {
		return nil, ssErr("table object %d: nrows is not a row count", o.id)
	}
	rows := int(nr)
	if err := checkSize(path, int64(rows), 8, d.f.opts.MaxVariableBytes); err != nil {
		return nil, err
	}
	names, ok := cellStrings(o.prop("varnames"))
	if !ok {
		return nil, ssErr("table object %d: varnames is not a cell of text", o.id)
	}
	data := o.prop("data")
	if data == nil || data.class != NameCell || len(data.cells) != len(names) {
		return nil, ssErr("table object %d: data does not hold the %d variables", o.id, len(names))
	}
	props := o.prop("props")
	t := &Table{Name: path, Class: "table", Rows: rows, DimensionNames: []string{"Row", "Variables"}}
	var units, descs []string
	if props != nil && props.class == NameStruct && len(props.elems) == 1 {
		if dn, ok := cellStrings(props.field("DimensionNames", 0)); ok && len(dn) == 2 {
			t.DimensionNames = dn
		}
		t.Description, _ = props.field("Description", 0).str()
		units, _ = cellStrings(props.field("VariableUnits", 0))
		descs, _ = cellStrings(props.field("VariableDescriptions", 0))
	}
	if rn, ok := cellStrings(o.prop("rownames")); ok && len(rn) > 0 {
		if len(rn) != rows {
			return nil, ssErr("table object %d: %d row names for %d rows", o.id, len(rn), rows)
		}
		dt, b, err := unicodeArray(rn, path, d.f.opts.MaxVariableBytes)
		if err != nil {
			return nil, err
		}
		t.Columns = append(t.Columns, &Column{Name: t.DimensionNames[0], Class: NameCell, Index: true, DType: dt, Data: b})
	}
	if err := d.addVariables(t, names, data.cells, units, descs, path, depth); err != nil {
		return nil, err
	}
	return tableValue(t, []int{rows, len(names)}), nil
}

// addVariables decodes a table's variables into columns; one without a
// numpy form is left out with a warning naming it.
func (d *objDecoder) addVariables(t *Table, names []string, vals []*mxNode, units, descs []string, path string, depth int) error {
	for i, name := range names {
		c, err := d.varColumn(name, vals[i], t.Rows, path+"."+name, depth+1)
		if err != nil {
			var se *skipError
			if errors.As(err, &se) {
				class := se.class
				if class == "" {
					class = vals[i].class
				}
				t.LeftOut = append(t.LeftOut, LeftOutColumn{Name: name, Class: class, Reason: se.msg})
				if err := d.f.warn(path+"."+name, class, fmt.Sprintf("variable %s left out of %s %s: %s", name, t.Class, path, se.msg)); err != nil {
					return err
				}
				continue
			}
			return err
		}
		if i < len(units) {
			c.Unit = units[i]
		}
		if i < len(descs) {
			c.Description = descs[i]
		}
		t.Columns = append(t.Columns, c)
	}
	return nil
}

// varColumn is the column of a table variable (or struct field) of rows
// rows.
func (d *objDecoder) varColumn(name string, n *mxNode, rows int, path string, depth int) (*Column, error) {
	if depth > d.f.opts.MaxDepth {
		return nil, &LimitError{Path: path, What: "nesting depth", Size: int64(depth), Limit: int64(d.f.opts.MaxDepth), Hint: "MaxDepth"}
	}
	switch {
	case n.skip != "":
		return nil, skipf(n.class, "%s", n.skip)
	case isObject(n):
		v, err := d.decode(n, path, depth)
		if err == errUserClass {
			class := d.className(n)
			return nil, skipf(class, "an object of class %s has no column form", class)
		}
		if err != nil {
			return nil, err
		}
		return columnOf(name, v, rows, path)
	case n.class == NameChar:
		if len(n.dims) != 2 || n.dims[0] != rows {
			return nil, skipf(NameChar, "a char array of size %s, not %d rows", sizeString(n.dims), rows)
		}
		dt, b, err := unicodeArray(n.rowStrings(), path, d.f.opts.MaxVariableBytes)
		if err != nil {
			return nil, err
		}
		return &Column{Name: name, Class: NameChar, DType: dt, Data: b}, nil
	case n.class == NameCell:
		v, err := d.cellsValue(n.cells, n.dims, path, depth)
		if err != nil {
			return nil, err
		}
		return columnOf(name, v, rows, path)
	case n.class == NameStruct:
		return d.structColumn(name, n, rows, path, depth)
	case n.dt != nil:
		return columnOf(name, &value{class: n.class, dims: n.dims, dt: n.dt, data: n.data}, rows, path)
	}
	return nil, skipf(n.class, "no numpy form")
}

// structColumn is a struct array of rows elements as a nested column: a
// field per struct field, each one element per row.
func (d *objDecoder) structColumn(name string, n *mxNode, rows int, path string, depth int) (*Column, error) {
	if len(n.dims) != 2 || n.dims[0] != rows || n.dims[1] != 1 || len(n.elems) != rows || rows == 0 {
		return nil, skipf(NameStruct, "a struct array of size %s, not %d-by-1", sizeString(n.dims), rows)
	}
	elems := make([]*mxNode, rows)
	for k := range elems {
		elems[k] = &mxNode{class: NameStruct, dims: []int{1, 1}, fields: n.fields, elems: [][]*mxNode{n.elems[k]}}
	}
	v, _, err := d.structsValue(elems, []int{rows, 1}, path, depth)
	if err != nil {
		return nil, err
	}
	return columnOf(name, v, rows, path)
}

// plainOrObject decodes a value with a flat numpy form: an object of a
// class that has one, a numeric or logical array, or text (a char array
// as one string per row, kept as it is).
func (d *objDecoder) plainOrObject(n *mxNode, path string, depth int) (*value, error) {
	switch {
	case n.skip != "":
		return nil, skipf(n.class, "%s", n.skip)
	case isObject(n):
		v, err := d.decode(n, path, depth)
		if err == errUserClass {
			class := d.className(n)
			return nil, skipf(class, "an object of class %s has no scalar numpy form", class)
		}
		return v, err
	case n.class == NameChar:
		if n.isEmpty() {
			dt, b, _ := unicodeArray([]string{""}, path, d.f.opts.MaxVariableBytes)
			return &value{class: NameChar, dims: []int{1, 1}, dt: dt, data: b}, nil
		}
		if len(n.dims) != 2 {
			return nil, skipf(NameChar, "a char array of %d dimensions", len(n.dims))
		}
		rows, cols := n.dims[0], n.dims[1]
		strs := make([]string, rows)
		row := make([]uint32, cols)
		for i := range strs {
			for j := range row {
				row[j] = n.chars[i+j*rows]
			}
			strs[i] = unitsString(row)
		}
		dt, b, err := unicodeArray(strs, path, d.f.opts.MaxVariableBytes)
		if err != nil {
			return nil, err
		}
		return &value{class: NameChar, dims: []int{rows, 1}, dt: dt, data: b}, nil
	case n.dt != nil:
		return &value{class: n.class, dims: n.dims, dt: n.dt, data: n.data}, nil
	}
	return nil, skipf(n.class, "a %s has no flat numpy form", n.class)
}

// cellsValue joins values that are each one scalar of one type (a char
// row counts as one string) into one value of size dims.
func (d *objDecoder) cellsValue(cells []*mxNode, dims []int, path string, depth int) (*value, error) {
	if len(cells) == 0 {
		return nil, skipf(NameCell, "an empty cell has no type")
	}
	if v, ok, err := d.structsValue(cells, dims, path, depth); ok || err != nil {
		return v, err
	}
	vals := make([]*value, len(cells))
	for k, c := range cells {
		v, err := d.plainOrObject(c, path, depth+1)
		if err != nil {
			var se *skipError
			if errors.As(err, &se) {
				return nil, skipf(NameCell, "a cell of %s values has no numpy form (%s)", c.class, se.msg)
			}
			return nil, err
		}
		if v.table != nil || v.numel() != 1 {
			return nil, skipf(NameCell, "a cell holding a %s of size %s, not one value per element", v.class, sizeString(v.dims))
		}
		vals[k] = v
	}
	first := vals[0]
	class := first.class
	width := 0
	for _, v := range vals {
		same := v.dt.Kind == first.dt.Kind && (v.dt.Kind == npyio.Unicode || v.dt.Equal(first.dt))
		if !same || v.tz != first.tz || v.class != first.class && !(isText(v.class) && isText(class)) {
			return nil, skipf(NameCell, "a cell of mixed types (%s and %s) has no numpy form", first.class, v.class)
		}
		if v.dt.Kind == npyio.Unicode {
			width = max(width, v.dt.Size/4)
		}
	}
	out := &value{class: NameCell, dims: dims, dt: first.dt, tz: first.tz}
	if first.dt.Kind == npyio.Unicode {
		out.dt, _ = npyio.NewString(npyio.Unicode, width)
	}
	if class != NameChar {
		out.class = class
	}
	if first.cats != nil {
		out.cats, out.ordered = first.cats, first.ordered
		for _, v := range vals {
			if !equalStrings(v.cats, first.cats) {
				return nil, skipf(NameCell, "a cell of categoricals of different categories has no numpy form")
			}
		}
	}
	es := out.dt.Size
	if err := checkSize(path, int64(len(vals)), int64(es), d.f.opts.MaxVariableBytes); err != nil {
		return nil, err
	}
	out.data = allocFor(int64(len(vals)), es)
	for k, v := range vals {
		copy(out.data[k*es:(k+1)*es], v.data) // a shorter U is NUL-padded
		if v.valid != nil && !v.valid[0] {
			if out.valid == nil {
				out.valid = make([]bool, len(vals))
				for i := range out.valid {
					out.valid[i] = true
				}
			}
			out.valid[k] = false
		}
	}
	return out, nil
}

// structsValue reads 1x1 structs of the same fields (a struct array's
// elements, or a cell of structs) as a nested table of one row per
// struct; ok is false when cells are not such structs.
func (d *objDecoder) structsValue(cells []*mxNode, dims []int, path string, depth int) (*value, bool, error) {
	first := cells[0]
	for _, c := range cells {
		if c.class != NameStruct || c.numel() != 1 || len(c.elems) != 1 || !equalStrings(c.fields, first.fields) {
			return nil, false, nil
		}
	}
	if len(first.fields) == 0 {
		return nil, true, skipf(NameStruct, "structs without fields have no numpy form")
	}
	rows := len(cells)
	nt := &Table{Name: path, Class: NameStruct, Rows: rows}
	for i, fn := range first.fields {
		vals := make([]*mxNode, rows)
		for k, c := range cells {
			vals[k] = c.elems[0][i]
		}
		c, err := d.varColumn(fn, &mxNode{class: NameCell, dims: []int{rows, 1}, cells: vals}, rows, path+"."+fn, depth+1)
		if err != nil {
			return nil, true, err
		}
		if c.Class == NameCell {
			c.Class = d.className(vals[0]) // the fields' class, not a cell's
		}
		nt.Columns = append(nt.Columns, c)
	}
	return &value{class: NameStruct, dims: dims, table: nt}, true, nil
}

func isText(class string) bool { return class == NameChar || class == "string" }

func equalStrings(a, b []string) bool {
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

// structTable reads a 1x1 struct whose fields all have the same number
// of rows as a table (struct2table's layout): N-by-1 fields are scalar
// columns, N-by-k ones subarrays, char matrices one string per row.
func (d *objDecoder) structTable(n *mxNode, path string, depth int) (*Table, error) {
	if n.class != NameStruct || n.numel() != 1 || len(n.elems) != 1 || len(n.fields) == 0 {
		return nil, fmt.Errorf("%w: a %s struct (a table needs a 1x1 struct with fields)", ErrNotTable, sizeString(n.dims))
	}
	rows := -1
	for i, fn := range n.fields {
		v := n.elems[0][i]
		r := -1
		switch {
		case isObject(v):
			dv, err := d.decode(v, path+"."+fn, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%w: field %s: %v", ErrNotTable, fn, err)
			}
			if dv.table != nil {
				r = dv.table.Rows
			} else if len(dv.dims) > 0 {
				r = dv.dims[0]
			}
		case len(v.dims) > 0:
			r = v.dims[0]
		}
		if rows == -1 {
			rows = r
		}
		if r != rows {
			return nil, fmt.Errorf("%w: field %s has %d rows, field %s %d", ErrNotTable, fn, r, n.fields[0], rows)
		}
	}
	t := &Table{Name: path, Class: NameStruct, Rows: rows}
	for i, fn := range n.fields {
		v := n.elems[0][i]
		c, err := d.varColumn(fn, v, rows, path+"."+fn, depth+1)
		if err != nil {
			var se *skipError
			if errors.As(err, &se) {
				return nil, fmt.Errorf("%w: field %s: %s", ErrNotTable, fn, se.msg)
			}
			return nil, err
		}
		t.Columns = append(t.Columns, c)
	}
	return t, nil
}

// timetableObj decodes a timetable: its saveobj value "any" is a struct
// of data (a cell of the variables), varNames, numRows, dimNames,
// rowTimes (a datetime or duration, or a struct origin, stepSize,
// sampleRate, specifiedAsRate for regular times), varUnits,
// varDescriptions, arrayProps.Description.
func (d *objDecoder) timetableObj(o *mcosObject, path string, depth int) (*value, error) {
	s := o.prop("any")
	if s == nil || s.class != NameStruct || len(s.elems) != 1 {
		return nil, ssErr("timetable object %d: its saved value is not a 1x1 struct", o.id)
	}
	nr, ok := s.field("numRows", 0).scalar()
	if !ok || nr < 0 || nr != math.Trunc(nr) || nr > 1<<40 {
		return nil, ssErr("timetable object %d: numRows is not a row count", o.id)
	}
	rows := int(nr)
	if err := checkSize(path, int64(rows), 8, d.f.opts.MaxVariableBytes); err != nil {
		return nil, err
	}
	names, ok := cellStrings(s.field("varNames", 0))
	if !ok {
		return nil, ssErr("timetable object %d: varNames is not a cell of text", o.id)
	}
	data := s.field("data", 0)
	if data == nil || data.class != NameCell || len(data.cells) != len(names) {
		return nil, ssErr("timetable object %d: data does not hold the %d variables", o.id, len(names))
	}
	t := &Table{Name: path, Class: "timetable", Rows: rows, DimensionNames: []string{"Time", "Variables"}}
	if dn, ok := cellStrings(s.field("dimNames", 0)); ok && len(dn) == 2 {
		t.DimensionNames = dn
	}
	if ap := s.field("arrayProps", 0); ap != nil && ap.class == NameStruct && len(ap.elems) == 1 {
		t.Description, _ = ap.field("Description", 0).str()
	}
	units, _ := cellStrings(s.field("varUnits", 0))
	descs, _ := cellStrings(s.field("varDescriptions", 0))
	rt := s.field("rowTimes", 0)
	if rt == nil {
		return nil, ssErr("timetable object %d: no rowTimes", o.id)
	}
	times, err := d.rowTimes(rt, rows, path, depth)
	if err != nil {
		return nil, err
	}
	c, err := columnOf(t.DimensionNames[0], times, rows, path)
	if err != nil {
		return nil, err
	}
	c.Index = true
	t.Columns = append(t.Columns, c)
	if err := d.addVariables(t, names, data.cells, units, descs, path, depth); err != nil {
		return nil, err
	}
	return tableValue(t, []int{rows, len(names)}), nil
}

// rowTimes decodes a timetable's row times: a datetime or duration
// array, or regular times from a start (origin) and a sample rate or a
// time step (a duration or calendarDuration).
func (d *objDecoder) rowTimes(rt *mxNode, rows int, path string, depth int) (*value, error) {
	if isObject(rt) {
		v, err := d.decode(rt, path, depth+1)
		if err != nil {
			return nil, err
		}
		if v.class != "datetime" && v.class != "duration" {
			return nil, ssErr("timetable row times of class %s", v.class)
		}
		v.dims = []int{v.numel(), 1}
		return v, nil
	}
	if rt.class != NameStruct || len(rt.elems) != 1 {
		return nil, ssErr("timetable row times are a %s", rt.class)
	}
	origin, ok := d.timeObject(rt.field("origin", 0))
	if !ok {
		return nil, ssErr("timetable row times without a datetime or duration origin")
	}
	prop := "millis"
	if origin.class == "datetime" {
		prop = "data"
	}
	ore, oim, _, err := msValues(origin.prop(prop))
	if err != nil || len(ore) != 1 {
		return nil, ssErr("timetable row times: the origin is not one time")
	}
	start := ore[0]
	if oim != nil {
		start += oim[0]
	}
	ms := make([]float64, rows)
	asRate, _ := rt.field("specifiedAsRate", 0).scalar()
	step, stepOK := d.timeObject(rt.field("stepSize", 0))
	switch {
	case asRate != 0:
		rate, ok := rt.field("sampleRate", 0).scalar()
		if !ok || !(rate > 0) || math.IsInf(rate, 0) {
			return nil, ssErr("timetable row times: sample rate %v", rate)
		}
		for i := range ms {
			ms[i] = start + float64(i)/rate*1000
		}
	case stepOK && step.class == "duration":
		st, _, _, err := msValues(step.prop("millis"))
		if err != nil || len(st) != 1 {
			return nil, ssErr("timetable row times: the time step is not one duration")
		}
		for i := range ms {
			ms[i] = start + float64(i)*st[0]
		}
	case stepOK && step.class == "calendarDuration":
		cv, err := d.calendarDurationObj(step, path, depth)
		if err != nil || cv.numel() != 1 || cv.valid != nil {
			return nil, ssErr("timetable row times: the time step is not one calendarDuration")
		}
		if origin.class != "datetime" {
			return nil, ssErr("timetable row times: a calendar step from a %s origin", origin.class)
		}
		if tz, _ := origin.prop("tz").str(); tz != "" {
			return nil, skipf("timetable", "row times stepped by a calendarDuration from a datetime in time zone %s need the zone's rules, which npyflow does not apply", tz)
		}
		months := int64(view[int32](cv.data[:8])[0])
		days := int64(view[int32](cv.data[:8])[1])
		millis := float64(view[int64](cv.data[8:16])[0])
		for i := range ms {
			k := int64(i)
			ms[i] = addCalendar(start, k*months, k*days, float64(k)*millis)
		}
	default:
		return nil, ssErr("timetable row times: neither a sample rate nor a time step")
	}
	v, rounded, err := timeValue(ms, nil, []int{rows, 1}, origin.class == "duration")
	if err != nil {
		return nil, skipf("timetable", "row times: %v", err)
	}
	if rounded {
		d.f.note(path, "timetable", "values rounded to whole "+v.dt.Unit)
	}
	v.class = origin.class
	if origin.class == "datetime" {
		v.tz, _ = origin.prop("tz").str()
	}
	return v, nil
}

// timeObject resolves a scalar datetime, duration or calendarDuration
// object reference.
func (d *objDecoder) timeObject(n *mxNode) (*mcosObject, bool) {
	if n == nil || n.ref == nil || len(n.ref.ids) != 1 {
		return nil, false
	}
	ss, err := d.f.subsystem()
	if err != nil {
		return nil, false
	}
	o, err := ss.object(n.ref.ids[0])
	if err != nil {
		return nil, false
	}
	switch o.class {
	case "datetime", "duration", "calendarDuration":
		return o, true
	}
	return nil, false
}
