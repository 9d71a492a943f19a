package hdf5

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// netCDF-4 files are HDF5 files. Their dimensions are HDF5 dimension
// scales (the HDF5 Dimension Scale specification, H5DS): a dimension is a
// one-dimensional dataset with the attribute CLASS = "DIMENSION_SCALE"
// and the dataset's name as the dimension's name; a variable lists the
// scale of each of its axes in its DIMENSION_LIST attribute (a
// variable-length sequence of object references per axis), and each
// scale lists the variables attached to it in REFERENCE_LIST. A
// dimension without a coordinate variable is a dataset with no data
// whose NAME attribute starts with netCDFDimOnly. netCDF-C adds
// _Netcdf4Dimid (the dimension id) to scales, _Netcdf4Coordinates to
// some variables, _NCProperties (the writer's versions) and _nc3_strict
// (the classic model) to the root group.

// netCDFDimOnly starts the NAME attribute of netCDF-C's datasets that
// stand for a dimension with no coordinate variable.
const netCDFDimOnly = "This is a netCDF dimension but not a netCDF variable"

// Dimension is one dimension of a variable: an HDF5 dimension scale,
// which in a netCDF-4 file is a netCDF dimension.
type Dimension struct {
	// Name is the dimension's name: the scale dataset's name, as netCDF
	// and xarray name it ("" for an axis with no dimension scale).
	Name string
	// Path is the scale dataset's path ("" for an axis with no scale).
	Path string
	// Len is the scale's current length.
	Len uint64
	// Unlimited is set when the scale can grow (netCDF's unlimited).
	Unlimited bool
	// Coordinate is set when the scale is a variable too (a netCDF
	// coordinate variable, holding the dimension's values); netCDF's
	// dimension-only datasets have no values.
	Coordinate bool
	// ID is netCDF's dimension id (_Netcdf4Dimid), -1 when absent.
	ID int
}

func attrString(o Object, name string) (string, bool) {
	a, err := o.Attr(name)
	if err != nil || a.Null || a.Len() != 1 {
		return "", false
	}
	s, err := a.String()
	return s, err == nil
}

// IsDimensionScale reports whether the dataset is an HDF5 dimension
// scale (CLASS = "DIMENSION_SCALE"): a netCDF dimension.
func (ds *Dataset) IsDimensionScale() bool {
	s, ok := attrString(ds, "CLASS")
	return ok && s == "DIMENSION_SCALE"
}

// IsNetCDFDimensionOnly reports one of netCDF-C's datasets that stand for
// a dimension without a coordinate variable: a dimension scale with no
// values (h5py reads zeros or the fill value), not a netCDF variable.
// A converter of netCDF files skips them.
func (ds *Dataset) IsNetCDFDimensionOnly() bool {
	if !ds.IsDimensionScale() {
		return false
	}
	s, ok := attrString(ds, "NAME")
	return ok && strings.HasPrefix(s, netCDFDimOnly)
}

// scaleDimension describes the dimension scale sc.
func scaleDimension(sc *Dataset) (Dimension, error) {
	if err := sc.Err(); err != nil {
		return Dimension{}, err
	}
	d := Dimension{Name: sc.Name(), Path: sc.Path(), ID: -1, Coordinate: !sc.IsNetCDFDimensionOnly()}
	if s := sc.Shape(); len(s) > 0 {
		d.Len = s[0]
		d.Unlimited = sc.MaxShape()[0] == math.MaxUint64
	}
	if a, err := sc.Attr("_Netcdf4Dimid"); err == nil && a.Len() == 1 {
		if v, err := a.Int64s(); err == nil && v[0] >= 0 && v[0] < 1<<31 {
			d.ID = int(v[0])
		}
	}
	return d, nil
}

// Dimensions returns the dimension of each axis of the dataset, from its
// DIMENSION_LIST attribute (the first scale attached to each axis): a
// netCDF-4 variable's dimensions. A dimension scale without a
// DIMENSION_LIST (a coordinate variable) is its own dimension. Axes with
// no scale get a Dimension with an empty Name; a dataset with no
// dimension scales at all (plain HDF5) gets only those. A scalar has no
// dimensions.
func (ds *Dataset) Dimensions() ([]Dimension, error) {
	if err := ds.Err(); err != nil {
		return nil, err
	}
	rank := len(ds.Shape())
	out := make([]Dimension, rank)
	for i := range out {
		out[i].ID = -1
	}
	if rank == 0 {
		return nil, nil
	}
	a, err := ds.Attr("DIMENSION_LIST")
	if errors.Is(err, ErrNotFound) {
		if rank == 1 && ds.IsDimensionScale() {
			d, err := scaleDimension(ds)
			if err != nil {
				return nil, err
			}
			out[0] = d
		}
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	f := ds.f
	bad := func(format string, args ...any) error {
		return fmt.Errorf("hdf5: %s: %s: DIMENSION_LIST attribute: %s: %w", f.name, ds.path, fmt.Sprintf(format, args...), ErrFormat)
	}
	t := a.Type
	if t.Class != ClassVarLen || t.VarLenString || t.Base == nil || t.Base.Class != ClassReference || t.Base.RefKind != RefObject || t.Base.Size != 8 {
		return nil, bad("type %s, not a sequence of object references", t)
	}
	if a.Len() != rank {
		return nil, bad("%d entries for %d dimensions", a.Len(), rank)
	}
	seqs, err := a.VarLen()
	if err != nil {
		return nil, err
	}
	for i, s := range seqs {
		if len(s) < 8 {
			continue // no scale attached to this axis
		}
		ref := Reference(binary.LittleEndian.Uint64(s))
		o, err := f.Deref(ref)
		if err != nil {
			return nil, fmt.Errorf("hdf5: %s: %s: DIMENSION_LIST entry %d: %w", f.name, ds.path, i, err)
		}
		sc, ok := o.(*Dataset)
		if !ok {
			return nil, bad("entry %d refers to %s, not a dataset", i, o.Path())
		}
		d, err := scaleDimension(sc)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// DimensionNames returns the name of each axis's dimension ("" for an
// axis with none); see Dimensions.
func (ds *Dataset) DimensionNames() ([]string, error) {
	dims, err := ds.Dimensions()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(dims))
	for i, d := range dims {
		out[i] = d.Name
	}
	return out, nil
}

// CFAttributes are the attributes of a netCDF (CF conventions) variable
// that say how its stored values are read: nil (or "") when absent. The
// values read from the dataset are always the stored ones; a reader such
// as xarray masks _FillValue and computes stored*scale_factor+add_offset.
type CFAttributes struct {
	FillValue   *Attribute // _FillValue: one value of the variable's type
	Units       string     // units
	ScaleFactor *Attribute // scale_factor
	AddOffset   *Attribute // add_offset
}

// CFAttributes returns the dataset's _FillValue, units, scale_factor and
// add_offset attributes.
func (ds *Dataset) CFAttributes() (CFAttributes, error) {
	var c CFAttributes
	get := func(name string) (*Attribute, error) {
		a, err := ds.Attr(name)
		if errors.Is(err, ErrNotFound) {
			return nil, nil
		}
		return a, err
	}
	var err error
	if c.FillValue, err = get("_FillValue"); err != nil {
		return c, err
	}
	if c.ScaleFactor, err = get("scale_factor"); err != nil {
		return c, err
	}
	if c.AddOffset, err = get("add_offset"); err != nil {
		return c, err
	}
	a, err := get("units")
	if err != nil {
		return c, err
	}
	if a != nil {
		if c.Units, err = a.String(); err != nil {
			return c, err
		}
	}
	return c, nil
}

// String shows the attributes present, for inspect:
// `_FillValue=-999 units="K" scale_factor=0.01 add_offset=273.15`.
func (c CFAttributes) String() string {
	var parts []string
	value := func(name string, a *Attribute) {
		if a != nil {
			parts = append(parts, name+"="+attrValueText(a))
		}
	}
	value("_FillValue", c.FillValue)
	if c.Units != "" {
		parts = append(parts, "units="+strconv.Quote(c.Units))
	}
	value("scale_factor", c.ScaleFactor)
	value("add_offset", c.AddOffset)
	return strings.Join(parts, " ")
}

// netCDFInternal are the attributes netCDF-C and the HDF5 dimension scale
// API write for their own bookkeeping.
var netCDFInternal = map[string]bool{
	"CLASS": true, "NAME": true, "DIMENSION_LIST": true, "REFERENCE_LIST": true, "DIMENSION_LABELS": true,
	"_Netcdf4Dimid": true, "_Netcdf4Coordinates": true, "_NCProperties": true, "_nc3_strict": true,
	"_IsNetcdf4": true, "_SuperblockVersion": true,
}

// IsNetCDFInternalAttr reports the attributes that hold netCDF-4's and
// HDF5 dimension scales' bookkeeping (CLASS, NAME, DIMENSION_LIST,
// REFERENCE_LIST, _Netcdf4Dimid, _Netcdf4Coordinates, _NCProperties,
// _nc3_strict, ...) rather than the user's metadata; inspect may hide
// them, as ncdump does.
func IsNetCDFInternalAttr(name string) bool { return netCDFInternal[name] }

// NetCDFInfo describes a file's netCDF-4 layer.
type NetCDFInfo struct {
	// Properties is the root's _NCProperties ("version=2,netcdf=4.9.0,
	// hdf5=1.10.8"): the netCDF library that wrote the file; "" when
	// absent (plain HDF5, or netCDF before 4.4.1).
	Properties string
	// Classic is set when the root has _nc3_strict: the file keeps to
	// the netCDF-4 classic model.
	Classic bool
	// Dims are the file's dimension scales: groups in Walk order, each
	// group's by netCDF dimension id (then name).
	Dims []Dimension
}

// NetCDF describes the file's netCDF-4 layer: its writer, model and
// dimensions. A plain HDF5 file gets an empty NetCDFInfo (no dimension
// scales) unless it has dimension scales of its own (h5py's
// make_scale), which are listed the same way.
func (f *File) NetCDF() (*NetCDFInfo, error) {
	info := &NetCDFInfo{}
	root := f.Root()
	info.Properties, _ = attrString(root, "_NCProperties")
	if _, err := root.Attr("_nc3_strict"); err == nil {
		info.Classic = true
	}
	groupDims := map[string][]Dimension{}
	var groups []string
	err := f.Walk(func(path string, o Object) error {
		switch x := o.(type) {
		case *Group:
			groups = append(groups, path)
		case *Dataset:
			if x.Err() != nil || !x.IsDimensionScale() {
				return nil
			}
			d, err := scaleDimension(x)
			if err != nil {
				return err
			}
			g := parentPath(path)
			groupDims[g] = append(groupDims[g], d)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		dims := groupDims[g]
		sort.SliceStable(dims, func(i, j int) bool {
			a, b := dims[i], dims[j]
			if (a.ID < 0) != (b.ID < 0) {
				return a.ID >= 0
			}
			if a.ID != b.ID {
				return a.ID < b.ID
			}
			return a.Name < b.Name
		})
		info.Dims = append(info.Dims, dims...)
	}
	return info, nil
}

func parentPath(p string) string {
	i := strings.LastIndex(p, "/")
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// Variables returns the group's datasets that are netCDF variables: every
// dataset but netCDF's dimension-only ones (IsNetCDFDimensionOnly), in
// creation order when the group tracks it (netCDF-4 groups do: that is
// netCDF's, ncdump's and xarray's variable order), else in name order.
// Datasets whose metadata cannot be read are listed too (their Err tells).
func (g *Group) Variables() ([]*Dataset, error) {
	links, err := g.Links()
	if err != nil {
		return nil, err
	}
	ordered := len(links) > 0
	for _, l := range links {
		if l.CreationOrder < 0 {
			ordered = false
		}
	}
	if ordered {
		sort.SliceStable(links, func(i, j int) bool { return links[i].CreationOrder < links[j].CreationOrder })
	}
	var out []*Dataset
	for _, l := range links {
		if l.Kind != HardLink {
			continue
		}
		o, err := g.f.objectAt(l.Addr, joinPath(g.path, l.Name), l.Name)
		if err != nil {
			return nil, err
		}
		ds, ok := o.(*Dataset)
		if !ok || (ds.Err() == nil && ds.IsNetCDFDimensionOnly()) {
			continue
		}
		out = append(out, ds)
	}
	return out, nil
}

// attrValueText shows a numeric attribute's values (floats at their own
// precision: an f4's -1e+30, not -1.0000000150474662e+30) and a string
// attribute's as quoted strings, several between brackets; other types as
// Describe shows them, in parentheses.
func attrValueText(a *Attribute) string {
	var vals []string
	t := a.Type
	if t.Class == ClassEnum {
		t = t.Base
	}
	switch t.Class {
	case ClassFloat:
		v, err := a.Float64s()
		if err != nil {
			return "(" + a.Describe() + ")"
		}
		bits := 64
		if t.Size < 8 {
			bits = 32
		}
		for _, x := range v {
			vals = append(vals, strconv.FormatFloat(x, 'g', -1, bits))
		}
	case ClassFixedPoint:
		if t.Signed {
			v, err := a.Int64s()
			if err != nil {
				return "(" + a.Describe() + ")"
			}
			for _, x := range v {
				vals = append(vals, strconv.FormatInt(x, 10))
			}
		} else {
			v, err := a.Uint64s()
			if err != nil {
				return "(" + a.Describe() + ")"
			}
			for _, x := range v {
				vals = append(vals, strconv.FormatUint(x, 10))
			}
		}
	case ClassString, ClassVarLen:
		// a string (fixed or variable length) as a quoted value, as
		// numbers are plain values
		v, err := a.Strings()
		if err != nil || t.Class == ClassVarLen && !t.VarLenString {
			return "(" + a.Describe() + ")"
		}
		for _, x := range v {
			vals = append(vals, strconv.Quote(x))
		}
	default:
		return "(" + a.Describe() + ")"
	}
	if len(vals) == 1 {
		return vals[0]
	}
	return "[" + strings.Join(vals, " ") + "]"
}
