package inspect

import (
	"fmt"
	"io"
	"strings"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/npyio"
)

// HDF5Info is what [pipeline.Inspect] reads of an HDF5 file: every group,
// dataset and committed datatype with its attributes, from the metadata
// only (no dataset is read).
type HDF5Info struct {
	Format     string       `json:"format"`
	File       string       `json:"file"`
	FileSize   int64        `json:"file_size"`
	Superblock int          `json:"superblock_version"`
	UserBlock  int64        `json:"user_block,omitempty"`
	Objects    []HDF5Object `json:"objects"`
}

// HDF5Object is one group, dataset or committed datatype of an HDF5 file.
type HDF5Object struct {
	Path    string     `json:"path"`
	Kind    string     `json:"kind"`            // "group", "dataset" or "datatype"
	Type    string     `json:"type,omitempty"`  // the HDF5 datatype
	Descr   string     `json:"descr,omitempty"` // the numpy dtype it reads as ("" for variable-length strings, found by reading, and types without one)
	Shape   []int      `json:"shape,omitempty"`
	Scalar  bool       `json:"scalar,omitempty"`
	Null    bool       `json:"null,omitempty"`
	Layout  string     `json:"layout,omitempty"` // compact, contiguous or chunked
	Chunk   []uint64   `json:"chunk,omitempty"`
	Index   string     `json:"chunk_index,omitempty"`
	Filters []string   `json:"filters,omitempty"`
	Attrs   []AttrInfo `json:"attributes,omitempty"`
	Error   string     `json:"error,omitempty"`
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
		return nil, err
	}
	info := &HDF5Info{Format: "hdf5", File: name, FileSize: size, Superblock: f.SuperblockVersion(), UserBlock: f.UserBlockSize(), Objects: []HDF5Object{}}
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
			for _, fl := range l.Filters {
				n := fl.Name
				if n == "" {
					n = fmt.Sprintf("filter %d", fl.ID)
				}
				if fl.ID == hdf5.FilterDeflate && len(fl.Params) > 0 {
					n = fmt.Sprintf("%s(%d)", n, fl.Params[0])
				}
				o.Filters = append(o.Filters, n)
			}
		}
		attrs, err := obj.Attrs()
		if err != nil {
			o.Error = strings.TrimSpace(o.Error + " attributes: " + err.Error())
		}
		for _, a := range attrs {
			o.Attrs = append(o.Attrs, AttrInfo{Name: a.Name, Desc: a.Describe()})
		}
		info.Objects = append(info.Objects, o)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return info, nil
}

// WriteText prints the file as `npyflow inspect` does.
func (info *HDF5Info) WriteText(w io.Writer) {
	ub := ""
	if info.UserBlock > 0 {
		ub = fmt.Sprintf(", %d-byte user block", info.UserBlock)
	}
	fmt.Fprintf(w, "file:     %s (HDF5, superblock v%d%s, %d bytes)\n", info.File, info.Superblock, ub, info.FileSize)
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
				lay += " " + strings.Join(o.Filters, ",")
			}
			fmt.Fprintf(w, "%s  dataset %s shape %s, %s\n", o.Path, dt, shape, lay)
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
