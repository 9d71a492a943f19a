package inspect

import (
	"fmt"
	"io"
	"strings"

	"github.com/npyflow/npyflow/matfile"
)

// MATInfo is what [pipeline.Inspect] reads of a MAT-file: its version and the
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
	// Table describes a table, timetable, containers.Map or dictionary
	// (or nothing else): its rows and columns as npyflow reads them.
	Table *MATTable `json:"table,omitempty"`
	// Error says why the variable cannot be read (a damaged variable or
	// object subsystem); the others still can.
	Error string `json:"error,omitempty"`
}

// MATTable is a table-like variable's row count and columns.
type MATTable struct {
	Rows    int         `json:"rows"`
	Columns []MATColumn `json:"columns"`
	// LeftOut are the table's variables that have no column form (a
	// cell of objects or of mixed types, a user class object): a
	// conversion leaves them out with a warning.
	LeftOut []MATLeftOut `json:"left_out,omitempty"`
}

// MATLeftOut is a table variable left out of the table: its name, MATLAB
// class and why.
type MATLeftOut struct {
	Name   string `json:"name"`
	Class  string `json:"class"`
	Reason string `json:"reason"`
}

// MATColumn is one column of a table-like variable: a MATLAB table
// variable (or the row names or times, Index set), its MATLAB class and
// the numpy type and per-row shape it reads as.
type MATColumn struct {
	Name  string `json:"name"`
	Class string `json:"class"`
	DType string `json:"dtype"`
	Shape []int  `json:"shape,omitempty"`
	Index bool   `json:"index,omitempty"`
}

// MAT reads the version and the variables (class, size, bytes) of the
// MAT-file r of size bytes, named name, without their data.
func MAT(r io.ReaderAt, size int64, name string) (*MATInfo, error) {
	mf, err := matfile.Open(r, size, &matfile.Options{})
	if err != nil {
		return nil, err
	}
	defer mf.Close()
	vars, err := mf.Variables()
	if err != nil {
		return nil, err
	}
	info := &MATInfo{Format: "mat", File: name, FileSize: size, Version: mf.Version(), SaveFormat: mf.SaveFormat(),
		Description: strings.TrimRight(mf.Description(), " \x00"), Variables: []MATVar{}}
	for _, v := range vars {
		mv := MATVar{Name: v.Name, Class: v.Class, Size: v.Dims, Complex: v.Complex,
			Sparse: v.Sparse, Global: v.Global, Bytes: v.Bytes, StoredBytes: v.StoredBytes, Compression: v.Compression}
		if v.Table != nil {
			mv.Table = &MATTable{Rows: v.Table.Rows, Columns: []MATColumn{}}
			for _, c := range v.Table.Columns {
				mv.Table.Columns = append(mv.Table.Columns, MATColumn{Name: c.Name, Class: c.Class, DType: c.DType.String(), Shape: c.Shape, Index: c.Index})
			}
			for _, c := range v.Table.LeftOut {
				mv.Table.LeftOut = append(mv.Table.LeftOut, MATLeftOut{Name: c.Name, Class: c.Class, Reason: c.Reason})
			}
		}
		if v.Err != nil {
			mv.Error = v.Err.Error()
		}
		info.Variables = append(info.Variables, mv)
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
		if v.Error != "" {
			fmt.Fprintf(w, "    cannot be read: %s\n", v.Error)
		}
		if t := v.Table; t != nil {
			fmt.Fprintf(w, "    %d rows, %d columns:\n", t.Rows, len(t.Columns))
			for _, c := range t.Columns {
				typ := c.DType
				if len(c.Shape) > 0 {
					typ += " " + shapeText(c.Shape)
				}
				idx := ""
				if c.Index {
					idx = " (row index)"
				}
				fmt.Fprintf(w, "      %-14s %-18s %s%s\n", c.Name, c.Class, typ, idx)
			}
			for _, c := range t.LeftOut {
				fmt.Fprintf(w, "      %-14s %-18s left out: %s\n", c.Name, c.Class, c.Reason)
			}
		}
	}
}

// shapeText is a per-row shape as numpy prints it: (2,) or (2, 3).
func shapeText(shape []int) string {
	s := make([]string, len(shape))
	for i, d := range shape {
		s[i] = fmt.Sprint(d)
	}
	if len(s) == 1 {
		return "(" + s[0] + ",)"
	}
	return "(" + strings.Join(s, ", ") + ")"
}
