package inspect

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/npyio"
)

// HDF5Info is what [pipeline.Inspect] reads of an HDF5 file: every group,
// dataset and committed datatype with its attributes, from the metadata
// only (no dataset is read). For a netCDF-4 file (or an HDF5 file with
// dimension scales) NetCDF lists the dimensions, each variable its
// dimension names and CF attributes, and the attributes netCDF keeps for
// itself (hdf5.IsNetCDFInternalAttr) are not shown, as ncdump hides them.
type HDF5Info struct {
	Format     string       `json:"format"`
	File       string       `json:"file"`
	FileSize   int64        `json:"file_size"`
	Superblock int          `json:"superblock_version"`
	UserBlock  int64        `json:"user_block,omitempty"`
	NetCDF     *NetCDFInfo  `json:"netcdf,omitempty"`
	Objects    []HDF5Object `json:"objects"`
}

// NetCDFInfo is the netCDF-4 layer of an HDF5 file.
type NetCDFInfo struct {
	// Properties is the writer's _NCProperties ("version=2,netcdf=4.9.0,
	// hdf5=1.10.8"), "" for a file without it.
	Properties string `json:"properties,omitempty"`
	// Classic: the file keeps to the netCDF-4 classic model.
	Classic    bool        `json:"classic,omitempty"`
	Dimensions []Dimension `json:"dimensions"`
}

// Dimension is one netCDF dimension (an HDF5 dimension scale).
type Dimension struct {
	Name      string `json:"name"`
	Path      string `json:"path"`
	Len       uint64 `json:"len"`
	Unlimited bool   `json:"unlimited,omitempty"`
	// Coordinate: the dimension has a coordinate variable (its own
	// values); false for netCDF's dimension-only datasets, which convert
	// leaves out.
	Coordinate bool `json:"coordinate"`
}

// HDF5Object is one group, dataset or committed datatype of an HDF5 file.
type HDF5Object struct {
	Path   string   `json:"path"`
	Kind   string   `json:"kind"`            // "group", "dataset" or "datatype"
	Type   string   `json:"type,omitempty"`  // the HDF5 datatype
	Descr  string   `json:"descr,omitempty"` // the numpy dtype it reads as ("" for variable-length strings, found by reading, and types without one)
	Shape  []int    `json:"shape,omitempty"`
	Scalar bool     `json:"scalar,omitempty"`
	Null   bool     `json:"null,omitempty"`
	Layout string   `json:"layout,omitempty"` // compact, contiguous or chunked
	Chunk  []uint64 `json:"chunk,omitempty"`
	Index  string   `json:"chunk_index,omitempty"`
	// Filters are the filter pipeline in the order the writer applied
	// it, each by name and parameters: "shuffle(elemsize=8)",
	// "deflate(level=4)", "zfp(...) [lossy, not decodable]".
	Filters []string `json:"filters,omitempty"`
	// Unsupported says why convert skips the dataset (a filter without
	// a decoder), "" when it reads it.
	Unsupported string `json:"unsupported,omitempty"`
	// Dims are the dimension names of a netCDF variable's axes ("" for
	// an axis without a dimension scale).
	Dims []string `json:"dimensions,omitempty"`
	// FillValue, Units, ScaleFactor and AddOffset are a netCDF (CF)
	// variable's attributes of those names: convert keeps the values as
	// stored and applies none of them.
	FillValue   string `json:"_FillValue,omitempty"`
	Units       string `json:"units,omitempty"`
	ScaleFactor string `json:"scale_factor,omitempty"`
	AddOffset   string `json:"add_offset,omitempty"`
	// Variable is the netCDF variable's name where netCDF-C stored it
	// under another (_nc4_non_coord_lat is the variable lat).
	Variable string `json:"variable,omitempty"`
	// StoredShape is the dataset's extent where netCDF readers (and
	// convert) see the variable longer, as Shape: along an unlimited
	// dimension the variable has every record, those never written
	// read as its fill value.
	StoredShape []int `json:"stored_shape,omitempty"`
	// fillString: FillValue is a string (quoted in the text form).
	fillString bool
	Attrs      []AttrInfo `json:"attributes,omitempty"`
	Error      string     `json:"error,omitempty"`
}

// AttrInfo is one attribute: its name and a summary of its type, shape
// and (short) value.
type AttrInfo struct {
	Name string `json:"name"`
	Desc string `json:"desc"`
}

// HDF5 reads every group, dataset and committed datatype of the HDF5
// file r of size bytes, named name, with their attributes, from the
// metadata alone.
func HDF5(r io.ReaderAt, size int64, name string) (*HDF5Info, error) {
	f, err := hdf5.Open(r, size, &hdf5.Options{Name: name})
	if err != nil {
		return nil, &hdf5Error{msg: trimHDF5(name, err), err: err}
	}
	info := &HDF5Info{Format: "hdf5", File: name, FileSize: size, Superblock: f.SuperblockVersion(), UserBlock: f.UserBlockSize(), Objects: []HDF5Object{}}
	if nc, err := f.NetCDF(); err == nil && (nc.Properties != "" || len(nc.Dims) > 0) {
		info.NetCDF = &NetCDFInfo{Properties: nc.Properties, Classic: nc.Classic, Dimensions: []Dimension{}}
		for _, d := range nc.Dims {
			info.NetCDF.Dimensions = append(info.NetCDF.Dimensions, Dimension{Name: d.Name, Path: d.Path, Len: d.Len, Unlimited: d.Unlimited, Coordinate: d.Coordinate})
		}
	}
	netCDF := info.NetCDF != nil
	err = f.Walk(func(path string, obj hdf5.Object) error {
		o := HDF5Object{Path: path}
		switch x := obj.(type) {
		case *hdf5.Group:
			o.Kind = "group"
		case *hdf5.NamedDatatype:
			o.Kind = "datatype"
			if t, err := x.Type(); err != nil {
				o.Error = err.Error()
			} else {
				o.Type = t.String()
			}
		case *hdf5.Dataset:
			o.Kind = "dataset"
			if err := x.Err(); err != nil {
				o.Error = err.Error()
				break
			}
			o.Type = x.Type().String()
			// The fixed-size mapping only: a variable-length string's
			// width would need every value read.
			if dt, extra, err := x.Type().NumpyDType(); err == nil {
				o.Descr = dt.String()
				for _, d := range x.Shape() {
					o.Shape = append(o.Shape, int(d))
				}
				o.Shape = append(o.Shape, extra...)
			} else {
				for _, d := range x.Shape() {
					o.Shape = append(o.Shape, int(d))
				}
			}
			o.Scalar, o.Null = x.IsScalar(), x.IsNull()
			l := x.Layout()
			o.Layout = l.ClassName()
			o.Chunk = l.Chunk
			o.Index = l.IndexName()
			for _, fl := range x.FilterPipeline() {
				o.Filters = append(o.Filters, fl.String())
			}
			if err := x.CheckFilters(); err != nil {
				o.Unsupported = strings.TrimPrefix(trimHDF5(name, err), path+": ")
			}
			if netCDF {
				hdf5NetCDFVar(&o, x, name)
			}
		}
		attrs, err := obj.Attrs()
		if err != nil {
			o.Error = strings.TrimSpace(o.Error + " attributes: " + err.Error())
		}
		for _, a := range attrs {
			if netCDF && (hdf5.IsNetCDFInternalAttr(a.Name) || o.Kind == "dataset" && cfAttr[a.Name]) {
				continue // netCDF's bookkeeping; the CF attributes are shown above
			}
			o.Attrs = append(o.Attrs, AttrInfo{Name: a.Name, Desc: a.Describe()})
		}
		info.Objects = append(info.Objects, o)
		return nil
	})
	if err != nil {
		return nil, &hdf5Error{msg: trimHDF5(name, err), err: err}
	}
	return info, nil
}

// cfAttr are the CF attributes HDF5Object shows in fields of their own.
var cfAttr = map[string]bool{"_FillValue": true, "units": true, "scale_factor": true, "add_offset": true}

// hdf5NetCDFVar adds a netCDF variable's dimension names and CF
// attributes to o; a dimension without values says so.
func hdf5NetCDFVar(o *HDF5Object, ds *hdf5.Dataset, name string) {
	if ds.IsNetCDFDimensionOnly() {
		o.Kind = "dimension"
		return
	}
	if dims, err := ds.DimensionNames(); err != nil {
		o.Error = strings.TrimSpace(o.Error + " dimensions: " + trimHDF5(name, err))
	} else if slices.ContainsFunc(dims, func(d string) bool { return d != "" }) {
		o.Dims = dims
	}
	cf, err := ds.CFAttributes()
	if err != nil {
		o.Error = strings.TrimSpace(o.Error + " attributes: " + trimHDF5(name, err))
		return
	}
	// Each value as the hdf5 package shows it (a float at its own
	// precision: an f4's -1e+30).
	value := func(a *hdf5.Attribute) string {
		if a == nil {
			return ""
		}
		return strings.TrimPrefix(hdf5.CFAttributes{FillValue: a}.String(), "_FillValue=")
	}
	o.Units = cf.Units
	if n := ds.NetCDFName(); n != ds.Name() {
		o.Variable = n
	}
	if ns, err := ds.NetCDFNumpyShape(); err == nil && !slices.Equal(ns, o.Shape) && o.Shape != nil {
		o.StoredShape, o.Shape = o.Shape, ns
	}
	if a := cf.FillValue; a != nil && a.Len() == 1 && (a.Type.Class == hdf5.ClassString || a.Type.VarLenString) {
		// a string _FillValue as its plain value, as numbers are
		if s, err := a.String(); err == nil {
			o.FillValue, o.fillString = s, true
			cf.FillValue = nil
		}
	}
	if cf.FillValue != nil {
		o.FillValue = value(cf.FillValue)
	}
	o.ScaleFactor, o.AddOffset = value(cf.ScaleFactor), value(cf.AddOffset)
}

// hdf5Error is an error of the hdf5 package without the file's name
// (the caller names the file).
type hdf5Error struct {
	msg string
	err error
}

func (e *hdf5Error) Error() string { return e.msg }
func (e *hdf5Error) Unwrap() error { return e.err }

// trimHDF5 is the message of an error of the hdf5 package about the file
// name without the package and file in front.
func trimHDF5(name string, err error) string {
	return strings.TrimPrefix(strings.TrimPrefix(err.Error(), "hdf5: "), name+": ")
}

// WriteText prints the file as `npyflow inspect` does.
func (info *HDF5Info) WriteText(w io.Writer) {
	ub := ""
	if info.UserBlock > 0 {
		ub = fmt.Sprintf(", %d-byte user block", info.UserBlock)
	}
	what := "HDF5"
	if nc := info.NetCDF; nc != nil && nc.Properties != "" {
		what = "netCDF-4"
		if nc.Classic {
			what += " classic model"
		}
		what += ", HDF5"
	}
	fmt.Fprintf(w, "file:     %s (%s, superblock v%d%s, %d bytes)\n", info.File, what, info.Superblock, ub, info.FileSize)
	if nc := info.NetCDF; nc != nil {
		if nc.Properties != "" {
			fmt.Fprintf(w, "netcdf:   %s\n", nc.Properties)
		}
		var dims []string
		for _, d := range nc.Dimensions {
			t := fmt.Sprintf("%s = %d", d.Path, d.Len)
			if d.Unlimited {
				t += " (unlimited)"
			}
			if !d.Coordinate {
				t += " (no coordinate variable)"
			}
			dims = append(dims, t)
		}
		fmt.Fprintf(w, "dimensions: %s\n", strings.Join(dims, ", "))
	}
	for _, o := range info.Objects {
		switch o.Kind {
		case "dataset":
			if o.Error != "" && o.Type == "" {
				fmt.Fprintf(w, "%s  dataset: %s\n", o.Path, o.Error)
				break
			}
			dt := o.Descr
			if dt == "" {
				dt = o.Type
			}
			shape := npyio.FormatShape(o.Shape)
			if o.Null {
				shape = "null"
			}
			lay := o.Layout
			if o.Layout == "chunked" {
				lay += fmt.Sprintf(" %v %s", o.Chunk, o.Index)
			}
			if len(o.Filters) > 0 {
				lay += " " + strings.Join(o.Filters, " | ")
			}
			dims := ""
			if len(o.Dims) > 0 {
				dims = " (" + strings.Join(o.Dims, ", ") + ")"
			}
			if o.StoredShape != nil {
				shape += " (" + npyio.FormatShape(o.StoredShape) + " stored, the rest fill values)"
			}
			if o.Variable != "" {
				dims += " netCDF variable " + strconv.Quote(o.Variable)
			}
			fmt.Fprintf(w, "%s  dataset %s shape %s%s, %s\n", o.Path, dt, shape, dims, lay)
			if o.Unsupported != "" {
				fmt.Fprintf(w, "    convert skips it: %s\n", o.Unsupported)
			}
			fill := o.FillValue
			if o.fillString {
				fill = strconv.Quote(fill)
			}
			for _, cf := range [][2]string{{"_FillValue", fill}, {"units", strconv.Quote(o.Units)}, {"scale_factor", o.ScaleFactor}, {"add_offset", o.AddOffset}} {
				if cf[1] != "" && cf[1] != `""` {
					fmt.Fprintf(w, "    :%s = %s\n", cf[0], cf[1])
				}
			}
		case "dimension":
			fmt.Fprintf(w, "%s  dimension (no coordinate variable; convert leaves it out)\n", o.Path)
		default:
			fmt.Fprintf(w, "%s  %s", o.Path, o.Kind)
			if o.Type != "" {
				fmt.Fprintf(w, " %s", o.Type)
			}
			fmt.Fprintln(w)
		}
		if o.Error != "" && o.Type != "" {
			fmt.Fprintf(w, "    error: %s\n", o.Error)
		}
		for _, a := range o.Attrs {
			fmt.Fprintf(w, "    @%s: %s\n", a.Name, a.Desc)
		}
	}
}
