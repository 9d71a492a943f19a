package matfile

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/npyflow/npyflow/hdf5"
)

// TableInfo describes a table-like variable for File.Variables: its row
// count and its columns (as File.ReadTable would read them).
type TableInfo struct {
	Rows    int
	Columns []ColumnInfo
	// LeftOut are the variables without a column form (Table.LeftOut).
	LeftOut []LeftOutColumn
}

// ReadTable reads the top-level variable name as one Table: a MATLAB
// table or timetable, a containers.Map or dictionary (columns key and
// value), or a 1x1 struct whose fields all have the same number of rows
// N (struct2table's layout: N-by-1 fields become scalar columns, N-by-k
// ones subarrays (k,), char matrices one string per row with trailing
// blanks removed as cellstr removes them, nested 1x1 structs of N rows
// nested tables). Table variables with no numpy form (cells of mixed
// types, user class objects) are left out with a warning naming them.
// Any other variable is an error wrapping ErrNotTable.
//
// The variable is read whole, bounded by Options.MaxVariableBytes (and,
// for a v7.3 file, its datasets by the same limit each).
func (f *File) ReadTable(name string) (*Table, error) {
	n, err := f.variableNode(name)
	if err != nil {
		return nil, err
	}
	d := f.objects()
	d.begin()
	if isObject(n) {
		v, err := d.decode(n, name, 0)
		var se *skipError
		switch {
		case err == errUserClass:
			return nil, fmt.Errorf("matfile: %s: %w: an object of class %s", name, ErrNotTable, d.className(n))
		case errors.As(err, &se):
			return nil, fmt.Errorf("matfile: %s: %w: %s", name, ErrNotTable, se.msg)
		case err != nil:
			return nil, f.pathErr(name, err)
		case v.table == nil:
			return nil, fmt.Errorf("matfile: %s: %w: a %s %s", name, ErrNotTable, sizeString(v.dims), v.class)
		}
		return v.table, nil
	}
	if n.class != NameStruct {
		return nil, fmt.Errorf("matfile: %s: %w: a %s %s", name, ErrNotTable, sizeString(n.dims), n.class)
	}
	t, err := d.structTable(n, name, 0)
	if err != nil {
		if errors.Is(err, ErrNotTable) {
			return nil, fmt.Errorf("matfile: %s: %w", name, err)
		}
		return nil, err
	}
	return t, nil
}

// variableNode reads the top-level variable name whole into a tree.
func (f *File) variableNode(name string) (*mxNode, error) {
	if f.v73 != nil {
		v := f.v73
		obj, err := v.h.Root().Open(name)
		if err != nil {
			if errors.Is(err, hdf5.ErrNotFound) {
				return nil, fmt.Errorf("matfile: %s: no variable %s", f.displayName(), name)
			}
			return nil, v.h5err(name, err)
		}
		w := &v73walk{v: v, elemsLeft: f.opts.MaxElements, onPath: map[uint64]bool{}}
		return w.node(obj, name, 0)
	}
	l := f.l5
	for _, e := range l.elems {
		if e.subsystem || (e.typ != MiMATRIX && e.typ != MiCOMPRESSED) {
			continue
		}
		pb, err := l.load(e, true)
		if err != nil {
			return nil, err
		}
		p := l.parser(e, "")
		h, err := p.header(pb)
		if err != nil {
			return nil, err
		}
		if h.name != name {
			continue
		}
		b, err := l.load(e, false)
		if err != nil {
			return nil, err
		}
		return p.node(b, name, 0)
	}
	return nil, fmt.Errorf("matfile: %s: no variable %s", f.displayName(), name)
}

// describeObject fills in an object variable's class, true size and, for
// a table-like one, its columns (decoding it).
func (f *File) describeObject(vi *VarInfo, n *mxNode) {
	d := f.objects()
	d.begin()
	vi.Class = d.className(n)
	vi.Dims = n.dims
	f.quiet++
	v, err := d.decode(n, vi.Name, 0)
	f.quiet--
	var se *skipError
	switch {
	case err == errUserClass:
		return
	case errors.As(err, &se):
		if se.class != "" {
			vi.Class = se.class
		}
		return
	case err != nil:
		vi.Err = f.pathErr(vi.Name, err)
		return
	}
	vi.Class, vi.Dims = v.class, v.dims
	if v.table != nil {
		vi.Table = &TableInfo{Rows: v.table.Rows, Columns: v.table.Info(), LeftOut: v.table.LeftOut}
		return
	}
	if v.dt != nil {
		vi.Bytes = int64(v.numel()) * int64(v.dt.Size)
	}
}

// failedVar is the VarInfo of a variable that cannot be described (what
// vi knows, and err), or in Strict mode the error itself.
func (f *File) failedVar(vi VarInfo, off int64, err error) (VarInfo, error) {
	if f.opts.Strict {
		return VarInfo{}, err
	}
	if vi.Name == "" {
		vi.Name = "(at byte " + strconv.FormatInt(off, 10) + ")"
	}
	if vi.Dims == nil {
		vi.Bytes, vi.StoredBytes = -1, -1
	}
	vi.Err = err
	return vi, nil
}
