package pipeline

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/matfile"
	"github.com/npyflow/npyflow/npyio"
)

// HDF5Info is what [Inspect] reads of an HDF5 file: every group,
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

// MATInfo is what [Inspect] reads of a MAT-file: its version and the
// variables, without their data.
type MATInfo struct {
	Format      string   `json:"format"`
	File        string   `json:"file"`
	FileSize    int64    `json:"file_size"`
	Version     string   `json:"version"`     // "5" (Level 5) or "7.3"
	SaveFormat  string   `json:"save_format"` // "-v6", "-v7" or "-v7.3"
	Description string   `json:"description"`
	Variables   []MATVar `json:"variables"`
}

// MATVar is one top-level variable of a MAT-file.
type MATVar struct {
	Name        string `json:"name"`
	Class       string `json:"class"`
	Size        []int  `json:"size"` // MATLAB's size
	Complex     bool   `json:"complex,omitempty"`
	Sparse      bool   `json:"sparse,omitempty"`
	Global      bool   `json:"global,omitempty"`
	Bytes       int64  `json:"bytes"`        // as MATLAB holds it; -1 unknown
	StoredBytes int64  `json:"stored_bytes"` // in the file; -1 unknown
	Compression string `json:"compression,omitempty"`
}

var hdf5Magic = []byte("\x89HDF\r\n\x1a\n")

// containerKind recognizes an HDF5 file or MAT-file by its first bytes
// (a MAT-file's header text, HDF5's signature at 0, 512, 1024 ...), or a
// .mat name: "hdf5", "mat" or "".
func containerKind(name string, r io.ReaderAt, size int64) string {
	var head [128]byte
	n, _ := r.ReadAt(head[:], 0)
	if bytes.HasPrefix(head[:n], []byte("MATLAB")) || strings.EqualFold(filepath.Ext(storage.Path(name)), ".mat") {
		return "mat"
	}
	for off := int64(0); off+8 <= size && off <= 1<<20; off = max(512, off*2) {
		var sig [8]byte
		if k, _ := r.ReadAt(sig[:], off); k == 8 && bytes.Equal(sig[:], hdf5Magic) {
			return "hdf5"
		}
	}
	return ""
}

func inspectHDF5(name string, r io.ReaderAt, size int64) (*HDF5Info, error) {
	f, err := hdf5.Open(r, size, &hdf5.Options{Name: name})
	if err != nil {
		return nil, err
	}
	info := &HDF5Info{Format: "hdf5", FileSize: size, Superblock: f.SuperblockVersion(), UserBlock: f.UserBlockSize(), Objects: []HDF5Object{}}
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

func inspectMAT(name string, r io.ReaderAt, size int64) (*MATInfo, error) {
	mf, err := matfile.Open(r, size, &matfile.Options{})
	if err != nil {
		return nil, err
	}
	defer mf.Close()
	vars, err := mf.Variables()
	if err != nil {
		return nil, err
	}
	info := &MATInfo{Format: "mat", FileSize: size, Version: mf.Version(), SaveFormat: mf.SaveFormat(),
		Description: strings.TrimRight(mf.Description(), " \x00"), Variables: []MATVar{}}
	for _, v := range vars {
		info.Variables = append(info.Variables, MATVar{Name: v.Name, Class: v.Class, Size: v.Dims, Complex: v.Complex,
			Sparse: v.Sparse, Global: v.Global, Bytes: v.Bytes, StoredBytes: v.StoredBytes, Compression: v.Compression})
	}
	return info, nil
}

// WriteText prints the MAT-file as `npyflow inspect` does.
func (info *MATInfo) WriteText(w io.Writer) {
	fmt.Fprintf(w, "file:     %s (MAT-file version %s, save %s, %d variables, %d bytes)\nheader:   %s\n",
		info.File, info.Version, info.SaveFormat, len(info.Variables), info.FileSize, info.Description)
	for _, v := range info.Variables {
		dims := make([]string, len(v.Size))
		for i, d := range v.Size {
			dims[i] = fmt.Sprint(d)
		}
		class := v.Class
		if v.Complex {
			class += " (complex)"
		}
		if v.Global {
			class += " (global)"
		}
		b := "bytes ?"
		if v.Bytes >= 0 {
			b = fmt.Sprintf("%d bytes", v.Bytes)
		}
		stored := ""
		if v.StoredBytes >= 0 {
			stored = fmt.Sprintf(", %d stored", v.StoredBytes)
		}
		comp := ""
		if v.Compression != "" {
			comp = ", " + v.Compression
		}
		fmt.Fprintf(w, "  %-16s %-8s %s, %s%s%s\n", v.Name, strings.Join(dims, "x"), class, b, stored, comp)
	}
}
