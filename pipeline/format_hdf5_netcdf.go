package pipeline

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The hdf5 sink's netCDF-4 form (.nc, .nc4, or format: netcdf4): each
// array is written as netCDF variables through hdf5.NetCDFWriter, in
// the layout netCDF-C writes, so that ncdump, netCDF4-python and xarray
// see its dimensions and variables. A record array (a table) is one
// dimension with one variable per field (a nested field's name joined
// to its parent's with "_"); any other array one variable named after
// it, over one dimension per axis. Dimensions are named by the dims
// option, axis by axis, else dim_0, dim_1... (a name already used with
// another length gets the variable's name in front: x_dim_0). datetime64
// is stored as CF time (int64 counts, units "<unit> since 1970-01-01",
// calendar "proleptic_gregorian", NaT as the _FillValue), timedelta64 as
// counts with units, bool as int8 0/1 with xarray's dtype = "bool".
// Types netCDF has no form for are refused naming the variable.

// hdf5WritesNetCDF reports whether the sink writes netCDF-4.
func hdf5WritesNetCDF(c *job.Component) bool {
	o := job.Options[hdf5SinkOpts](c)
	switch o.Format {
	case "netcdf4":
		return true
	case "hdf5":
		return false
	}
	ext := strings.ToLower(filepath.Ext(o.Path))
	return ext == ".nc" || ext == ".nc4"
}

// ncFile is a netCDF-4 file being written, as an arrayFile.
type ncFile struct {
	w    *hdf5.NetCDFWriter
	dims []string
	opts *hdf5.DatasetOptions // of compressed variables; nil: none
}

// ncLeaf is one variable of an array: a field (or the whole element) at
// an offset of each element, of its own type and subarray shape.
type ncLeaf struct {
	name   string
	dt     *npyio.DType // the dtype written
	offset int
	size   int   // bytes per element of the array
	shape  []int // subarray shape
	attrs  []ncAttr
	v      *hdf5.NetCDFVar
	buf    []byte
}

type ncAttr struct {
	name string
	val  hdf5.AttrValue
}

// ncLeaves flattens dt into its variables: fields of structs joined
// with "_", each checked for a netCDF type.
func ncLeaves(prefix string, dt *npyio.DType, off int, shape []int, out []*ncLeaf) ([]*ncLeaf, error) {
	if dt.Kind == npyio.Struct {
		for _, f := range dt.Fields {
			name := f.Name
			if prefix != "" {
				name = prefix + "_" + f.Name
			}
			if len(shape) > 0 || len(f.Shape) > 0 && f.Type.Kind == npyio.Struct {
				return nil, fmt.Errorf("variable %s: a subarray of records has no netCDF form", name)
			}
			var err error
			if out, err = ncLeaves(name, f.Type, off+f.Offset, f.Shape, out); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	l := &ncLeaf{name: prefix, offset: off, size: dt.Size, shape: shape}
	for _, d := range shape {
		l.size *= d
	}
	switch dt.Kind {
	case npyio.Datetime, npyio.Timedelta:
		unit, ok := map[string]string{"W": "weeks", "D": "days", "h": "hours", "m": "minutes", "s": "seconds", "ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds"}[dt.Unit]
		if !ok || dt.UnitMult != 1 {
			return nil, fmt.Errorf("variable %s: %s has no CF time units (weeks to nanoseconds, multiplier 1)", prefix, dt)
		}
		l.dt = &npyio.DType{Kind: npyio.Int, Order: dt.Order, Size: 8}
		if dt.Kind == npyio.Datetime {
			nat := make([]byte, 8)
			putInt64(nat, dt.Order, math.MinInt64)
			l.attrs = []ncAttr{{"units", hdf5.StringAttr(unit + " since 1970-01-01")}, {"calendar", hdf5.StringAttr("proleptic_gregorian")},
				{"_FillValue", hdf5.ArrayAttr(l.dt, []uint64{1}, nat)}}
		} else {
			l.attrs = []ncAttr{{"units", hdf5.StringAttr(unit)}}
		}
	case npyio.Bool:
		l.dt = &npyio.DType{Kind: npyio.Int, Order: npyio.NotApplicable, Size: 1}
		l.attrs = []ncAttr{{"dtype", hdf5.StringAttr("bool")}} // xarray's encoding of bool
	default:
		if err := hdf5.NetCDFType(dt); err != nil {
			return nil, fmt.Errorf("variable %s: %w", prefix, err)
		}
		l.dt = dt
	}
	return append(out, l), nil
}

func putInt64(b []byte, order byte, v int64) {
	u := uint64(v)
	for i := range 8 {
		if order == npyio.BigEndian {
			b[7-i] = byte(u >> (8 * i))
		} else {
			b[i] = byte(u >> (8 * i))
		}
	}
}

// dim names axis k of variable v of length n: the dims option, else
// dim_k, else v_dim_k when dim_k has another length.
func (f *ncFile) dim(v string, k int, n int) (string, error) {
	if k < len(f.dims) {
		name := f.dims[k]
		if l, ok := f.w.HasDim(name); ok && l != uint64(n) {
			return "", fmt.Errorf("variable %s: dimension %s has length %d, the variable %d along it", v, name, l, n)
		}
		return name, f.w.Dim(name, uint64(n))
	}
	name := "dim_" + strconv.Itoa(k)
	if l, ok := f.w.HasDim(name); ok && l != uint64(n) {
		name = v + "_" + name
	}
	return name, f.w.Dim(name, uint64(n))
}

func (f *ncFile) create(name string, h *npyio.Header) (arrayWriter, error) {
	name = strings.Trim(name, "/")
	if strings.Contains(name, "/") {
		return nil, fmt.Errorf("%s: netCDF groups are not written (one group: name the variable without /)", name)
	}
	if h.FortranOrder {
		return nil, fmt.Errorf("%s: a Fortran-order array", name)
	}
	leaves, err := ncLeaves(name, h.DType, 0, nil, nil)
	if err != nil {
		return nil, err
	}
	if h.DType.Kind == npyio.Struct {
		// a table: the fields are the variables, without the array's name
		for _, l := range leaves {
			l.name = strings.TrimPrefix(l.name, name+"_")
		}
		if len(h.Shape) > 1 {
			return nil, fmt.Errorf("%s: a %d-dimensional array of records (a table is one-dimensional)", name, len(h.Shape))
		}
	}
	var dims []string
	for k, n := range h.Shape {
		d, err := f.dim(name, k, n)
		if err != nil {
			return nil, err
		}
		dims = append(dims, d)
	}
	for _, l := range leaves {
		vd := dims
		for k, n := range l.shape {
			d, err := f.dim(l.name, len(h.Shape)+k, n)
			if err != nil {
				return nil, err
			}
			vd = append(vd[:len(vd):len(vd)], d)
		}
		shape := make([]uint64, len(vd))
		total := uint64(l.dt.Size)
		for i, d := range vd {
			n, _ := f.w.HasDim(d)
			shape[i] = n
			total *= n
		}
		var o *hdf5.DatasetOptions
		if f.opts != nil && len(vd) > 0 && total > hdf5.CompactAuto {
			c := *f.opts
			o = &c
		}
		if l.v, err = f.w.CreateVariable(l.name, l.dt, vd, o); err != nil {
			return nil, err
		}
		for _, a := range l.attrs {
			if err := l.v.SetAttr(a.name, a.val); err != nil {
				return nil, err
			}
		}
	}
	return &ncArray{leaves: leaves, esize: h.DType.Size, split: len(leaves) > 1 || leaves[0].size != h.DType.Size}, nil
}

func (f *ncFile) close() error { return f.w.Close() }

// ncArray writes an array's rows to its variables.
type ncArray struct {
	leaves []*ncLeaf
	esize  int
	split  bool // records are cut into their fields
}

func (a *ncArray) Write(rows []byte) error {
	if !a.split {
		return a.leaves[0].v.Write(rows)
	}
	n := len(rows) / max(a.esize, 1)
	for _, l := range a.leaves {
		need := n * l.size
		if cap(l.buf) < need {
			l.buf = make([]byte, need)
		}
		b := l.buf[:need]
		for i := range n {
			copy(b[i*l.size:(i+1)*l.size], rows[i*a.esize+l.offset:])
		}
		if err := l.v.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func (a *ncArray) Close() error {
	for _, l := range a.leaves {
		if err := l.v.Close(); err != nil {
			return err
		}
	}
	return nil
}
