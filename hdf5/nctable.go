package hdf5

import (
	"fmt"
	"io"

	"github.com/npyflow/npyflow/npyio"
)

// DimTable is the one-dimensional variables of one group along one
// dimension, as the columns of one table: what xarray's
// Dataset.to_dataframe gives for them, with the index reset into the
// first column.
//
// The choice, for xarray users:
//   - the dimension's coordinate variable comes first (xarray's index),
//     then each 1-D variable of the group along the dimension, in the
//     group's variable order (netCDF's, as xarray lists data_vars);
//   - a dimension without a coordinate variable gets no index column
//     (xarray would number the rows 0, 1, ...);
//   - a subgroup's variables along a dimension of a parent group form a
//     table of the subgroup, led by the parent's coordinate variable (the
//     dimension is shared, as xarray's DataTree inherits coordinates);
//   - variables of two or more dimensions and scalars are not columns
//     (to_dataframe would broadcast them to the product of the
//     dimensions); nor are 2-D character arrays (netCDF-3-style strings);
//   - values are the stored ones: no _FillValue masking, no
//     scale_factor/add_offset (xarray's mask_and_scale=False), no time
//     decoding (decode_times=False);
//   - a variable written for fewer records than its unlimited dimension
//     now holds (or never written) has every row: the rows past its
//     stored ones read as its fill value (Dataset.NetCDFFill), as netCDF
//     readers and xarray give them;
//   - variables are named as netCDF names them (Dataset.NetCDFName);
//   - a 1-D variable that cannot be a column (a type without a numpy
//     dtype, a filter without a decoder, a _FillValue of another type)
//     is left out and listed in Skipped.
type DimTable struct {
	Group string    // the group holding the variables
	Dim   Dimension // the dimension
	// Columns are the variables, the coordinate variable first when the
	// dimension has one. Each has Dim.Len rows.
	Columns []*Dataset
	// Skipped are the group's 1-D variables along Dim that are not
	// columns, each error naming the variable and the reason.
	Skipped []error
}

// DimensionTables groups the one-dimensional variables of each group of
// the file by dimension (see DimTable): for each group in Walk order,
// one table per dimension its 1-D variables use, in the order of first
// use. Reading the dtypes of variable-length string columns reads their
// values once (see Dataset.DType). A file without dimension scales has
// no tables.
func (f *File) DimensionTables() ([]*DimTable, error) {
	var out []*DimTable
	err := f.Walk(func(path string, o Object) error {
		g, ok := o.(*Group)
		if !ok {
			return nil
		}
		tabs, err := groupTables(g)
		out = append(out, tabs...)
		return err
	})
	return out, err
}

// DimensionTable returns the table of the dimension named dim for the
// variables of the group at path group ("/" for the root; "" means "/"):
// ErrNotFound when none of the group's 1-D variables uses it.
func (f *File) DimensionTable(group, dim string) (*DimTable, error) {
	if group == "" {
		group = "/"
	}
	o, err := f.OpenPath(group)
	if err != nil {
		return nil, err
	}
	g, ok := o.(*Group)
	if !ok {
		return nil, fmt.Errorf("hdf5: %s: %s is not a group: %w", f.name, group, ErrNotFound)
	}
	tabs, err := groupTables(g)
	if err != nil {
		return nil, err
	}
	for _, t := range tabs {
		if t.Dim.Name == dim {
			return t, nil
		}
	}
	return nil, fmt.Errorf("hdf5: %s: no one-dimensional variable of %s along a dimension %q: %w", f.name, group, dim, ErrNotFound)
}

func groupTables(g *Group) ([]*DimTable, error) {
	vars, err := g.Variables()
	if err != nil {
		return nil, err
	}
	var out []*DimTable
	byDim := map[string]*DimTable{}
	for _, v := range vars {
		if v.Err() != nil || len(v.Shape()) != 1 {
			continue
		}
		dims, err := v.Dimensions()
		if err != nil {
			return nil, err
		}
		d := dims[0]
		if d.Path == "" {
			continue
		}
		t := byDim[d.Path]
		if t == nil {
			t = &DimTable{Group: g.Path(), Dim: d}
			byDim[d.Path] = t
			out = append(out, t)
			if d.Coordinate {
				o, err := g.f.OpenPath(d.Path)
				if err != nil {
					return nil, err
				}
				t.add(o.(*Dataset))
			}
		}
		if v.Path() != d.Path {
			t.add(v)
		}
	}
	return out, nil
}

// add appends a column, or records why it cannot be one.
func (t *DimTable) add(ds *Dataset) {
	skip := func(format string, args ...any) {
		t.Skipped = append(t.Skipped, fmt.Errorf("hdf5: %s: %s: not a column of the %s table: %s", ds.f.name, ds.path, t.Dim.Name, fmt.Sprintf(format, args...)))
	}
	s, err := ds.NetCDFShape()
	if err != nil {
		skip("%v", err)
		return
	}
	if len(s) != 1 || s[0] != t.Dim.Len {
		skip("shape %v, not (%d,)", s, t.Dim.Len)
		return
	}
	for _, c := range t.Columns {
		if c.NetCDFName() == ds.NetCDFName() {
			skip("a column named %q comes first", ds.NetCDFName())
			return
		}
	}
	if _, err := ds.DType(); err != nil {
		skip("%s", unsupportedFeature(err))
		return
	}
	if _, err := ds.NetCDFNumpyShape(); err != nil {
		skip("%v", err)
		return
	}
	if s[0] != ds.Shape()[0] {
		if _, err := ds.NetCDFFill(); err != nil {
			skip("%v", err)
			return
		}
	}
	if err := ds.CheckFilters(); err != nil {
		skip("%v", err)
		return
	}
	t.Columns = append(t.Columns, ds)
}

// Names are the column names: each variable's name.
func (t *DimTable) Names() []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.NetCDFName()
	}
	return out
}

// Rows is the number of rows: the dimension's length.
func (t *DimTable) Rows() uint64 { return t.Dim.Len }

// DType is the record type of a row: a packed structured dtype with one
// field per column, named after the variable, of the variable's dtype (a
// top-level array type gives a subarray field).
func (t *DimTable) DType() (*npyio.DType, error) {
	fields := make([]npyio.Field, 0, len(t.Columns))
	for _, c := range t.Columns {
		dt, err := c.DType()
		if err != nil {
			return nil, err
		}
		ns, err := c.NetCDFNumpyShape()
		if err != nil {
			return nil, err
		}
		var shape []int
		if len(ns) > 1 {
			shape = ns[1:]
		}
		fields = append(fields, npyio.Field{Name: c.NetCDFName(), Type: dt, Shape: shape})
	}
	dt, err := npyio.NewStruct(fields)
	if err != nil {
		return nil, fmt.Errorf("hdf5: the %s table: %w", t.Dim.Name, err)
	}
	return dt, nil
}

// TableReader reads a DimTable's rows as packed records of its DType,
// column by column through each variable's RowReader. It is not safe for
// concurrent use.
type TableReader struct {
	t      *DimTable
	dt     *npyio.DType
	cols   []*RowReader
	fills  [][]byte // each column's fill, for the rows past its stored ones
	next   uint64
	batch  uint64
	buf    []byte
	colBuf []byte
}

// NewReader returns a reader of batchRows rows at a time (at least 1;
// fewer when a batch would exceed the file's MaxReadBytes).
func (t *DimTable) NewReader(batchRows int) (*TableReader, error) {
	dt, err := t.DType()
	if err != nil {
		return nil, err
	}
	r := &TableReader{t: t, dt: dt, batch: uint64(max(batchRows, 1))}
	var maxRead int64 = defaultMaxRead
	for _, c := range t.Columns {
		rr, err := c.NewRowReader(1)
		if err != nil {
			return nil, err
		}
		if uint64(rr.Rows()) > t.Dim.Len {
			return nil, fmt.Errorf("hdf5: %s: %s has %d rows where the %s table has %d", c.f.name, c.path, rr.Rows(), t.Dim.Name, t.Dim.Len)
		}
		var fill []byte
		if uint64(rr.Rows()) < t.Dim.Len {
			if fill, err = c.NetCDFFill(); err != nil {
				return nil, err
			}
		}
		if fill != nil && len(fill) != rr.RowBytes() {
			return nil, fmt.Errorf("hdf5: %s: %s: a fill value of %d bytes for rows of %d", c.f.name, c.path, len(fill), rr.RowBytes())
		}
		r.cols = append(r.cols, rr)
		r.fills = append(r.fills, fill)
		maxRead = c.f.opts.MaxReadBytes
	}
	if dt.Size > 0 {
		r.batch = max(1, min(r.batch, uint64(maxRead)/uint64(dt.Size)))
	}
	return r, nil
}

// DType is the record type (DimTable.DType).
func (r *TableReader) DType() *npyio.DType { return r.dt }

// Rows is the number of rows of the table.
func (r *TableReader) Rows() int64 { return int64(r.t.Dim.Len) }

// Read returns the next batch of records. The slice is reused by the
// next call. At the end it returns io.EOF.
func (r *TableReader) Read() ([]byte, error) {
	rows := r.t.Dim.Len
	if r.next >= rows {
		return nil, io.EOF
	}
	n := min(r.batch, rows-r.next)
	rec := uint64(r.dt.Size)
	if uint64(cap(r.buf)) < n*rec {
		r.buf = make([]byte, n*rec)
	}
	out := r.buf[:n*rec]
	for i, cr := range r.cols {
		rb := uint64(cr.RowBytes())
		if uint64(cap(r.colBuf)) < n*rb {
			r.colBuf = make([]byte, n*rb)
		}
		cb := r.colBuf[:n*rb]
		if err := fillRows(cr, r.next, n, r.fills[i], cb); err != nil {
			return nil, err
		}
		off := uint64(r.dt.Fields[i].Offset)
		for k := uint64(0); k < n; k++ {
			copy(out[k*rec+off:k*rec+off+rb], cb[k*rb:(k+1)*rb])
		}
	}
	r.next += n
	return out, nil
}
