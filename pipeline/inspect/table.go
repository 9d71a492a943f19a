package inspect

import (
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
	"github.com/npyflow/npyflow/pipeline/internal/foreign"
)

// TableInfo is what [pipeline.Inspect] reads of a Parquet or Arrow IPC file.
type TableInfo struct {
	Format   string       `json:"format"`
	File     string       `json:"file"`
	FileSize int64        `json:"file_size"`
	IPC      string       `json:"ipc,omitempty"` // "file" or "stream"
	Rows     int64        `json:"rows"`
	Batches  int          `json:"record_batches,omitempty"`
	Array    bool         `json:"array,omitempty"` // Parquet written from a plain array
	Columns  []ColumnInfo `json:"columns"`
	// Warnings say what a conversion reads otherwise than the file says
	// (parquetio.FileInfo.Warnings: an unknown logical type read as its
	// physical type, a footer row count its row groups do not hold).
	Warnings []string `json:"warnings,omitempty"`
}

// ColumnInfo is one column of a table: for files other tools wrote, its
// own type next to the numpy dtype it maps to, or why it is refused.
type ColumnInfo struct {
	Name string `json:"name"`
	// Field is the numpy field it becomes when its name differs from
	// Name (a scaled decimal's "price_x1e2", a list's "l" for the leaf
	// "l.list.element").
	Field string `json:"field,omitempty"`
	// ValidityOf is set for a validity field (--validity): the column or
	// struct field whose nulls it records (false where null).
	ValidityOf string `json:"validity_of,omitempty"`
	Descr      string `json:"descr,omitempty"` // the numpy dtype it reads back as ("<U": width from the data)
	Shape      []int  `json:"shape,omitempty"` // of each row (subarray or extra axes)
	Type       string `json:"type,omitempty"`  // its Parquet or Arrow type: DECIMAL(10,2), INT96, timestamp[us, tz=UTC]
	// Nullable, NullCount (Parquet statistics; -1 unknown) and
	// Dictionary describe the source column; Nulls says what its nulls
	// become (NaN, NaT, refused: a fill value or validity field is needed).
	Nullable   bool   `json:"nullable,omitempty"`
	NullCount  *int64 `json:"null_count,omitempty"`
	Dictionary bool   `json:"dictionary,omitempty"`
	Nulls      string `json:"nulls,omitempty"`
	// Refused says why converting the column would be refused.
	Refused string `json:"refused,omitempty"`
	// Fill: a fill value (--fill) is written where it is null.
	Fill bool `json:"fill,omitempty"`
}

// Parquet reads the schema of the Parquet file f of size bytes, named
// name, from its footer: for a file other tools wrote, each column's
// Parquet type and the numpy dtype it maps to under the options fo (or why
// it is refused).
func Parquet(f io.ReaderAt, size int64, name string, fo *foreign.Options) (*TableInfo, error) {
	d, err := parquetio.DescribeOptions(f, size, fo.Parquet())
	if err != nil {
		return nil, err
	}
	if d.Npyflow {
		// npyflow's own file: its numpy columns, exactly.
		r, err := parquetio.NewReader(f, size)
		if err != nil {
			return nil, err
		}
		info := &TableInfo{Format: "parquet", File: name, FileSize: size, Rows: r.Rows(), Array: r.IsArray(), Columns: []ColumnInfo{}, Warnings: r.Warnings()}
		for _, c := range r.Columns() {
			info.Columns = append(info.Columns, ColumnInfo{Name: c.Name, Descr: c.DType.String(), Shape: c.Shape})
		}
		return info, nil
	}
	// Another tool's file: each leaf column's Parquet type and mapping,
	// from the footer alone, as a reader with the options maps it (the
	// numpy fields of d.Fields: validity fields between the leaves).
	info := &TableInfo{Format: "parquet", File: name, FileSize: size, Rows: d.Rows, Columns: []ColumnInfo{}, Warnings: d.Warnings}
	for _, fd := range d.Fields {
		if fd.Column < 0 {
			vc := ColumnInfo{Name: fd.Name, Descr: fd.DType, Type: "validity", ValidityOf: fd.ValidityOf}
			if strings.HasSuffix(fd.ValidityOf, "[]") {
				vc.Descr += " (list length from the data)"
			}
			info.Columns = append(info.Columns, vc)
			continue
		}
		c := d.Columns[fd.Column]
		ci := ColumnInfo{Name: c.Path, Descr: c.DType, Type: c.Type, Nullable: c.Nullable, Dictionary: c.Dictionary, Refused: c.Refused, Fill: c.Fill}
		if fd.Name != c.Path && !fd.Refused {
			ci.Field = fd.Name
		}
		if c.Type != c.Physical {
			ci.Type += " (" + c.Physical + ")"
		}
		if c.List {
			ci.Type = "LIST<" + ci.Type + ">"
			ci.Descr += " (list length from the data)"
		}
		if c.Nullable {
			n := c.NullCount
			ci.NullCount = &n
			switch {
			case n == 0:
			case c.Fill:
				ci.Nulls = "fill value"
			case strings.Contains(c.DType, "f"):
				ci.Nulls = "NaN"
			case strings.Contains(c.DType, "M8") || strings.Contains(c.DType, "m8"):
				ci.Nulls = "NaT"
			case c.ItemsValidity != "" && c.Validity != "":
				ci.Nulls = "zeros, recorded in " + c.Validity + " and " + c.ItemsValidity
			case c.ItemsValidity != "":
				ci.Nulls = "zeros, recorded in " + c.ItemsValidity
			case c.Validity != "":
				ci.Nulls = "zeros, recorded in " + c.Validity
			case n < 0:
				ci.Nulls = "refused if any (no statistics; give a fill value or a validity field)"
			default:
				ci.Nulls = "refused (give a fill value or a validity field)"
			}
		}
		info.Columns = append(info.Columns, ci)
	}
	return info, nil
}

// Arrow reads the schema, row count and record batches of the Arrow IPC
// file or stream f of size bytes, named name, from its metadata, and the
// numpy dtype each column maps to under the options fo (or why it is
// refused).
func Arrow(f io.ReaderAt, size int64, name string, fo *foreign.Options) (*TableInfo, error) {
	ii, err := arrowconv.ReadIPCInfo(f, size)
	if err != nil {
		return nil, err
	}
	// The columns read and the options, as convert applies them.
	schema, proj, err := fo.Project(ii.Schema)
	if err != nil {
		return nil, err
	}
	if err := fo.CheckArrowNames(schema); err != nil {
		return nil, err
	}
	info := &TableInfo{Format: "arrow", File: name, FileSize: size, IPC: "file", Rows: ii.Rows, Batches: ii.Batches, Columns: []ColumnInfo{}}
	if ii.Format == arrowconv.IPCStream {
		info.IPC = "stream"
	}
	for i, c := range arrowconv.DescribeSchema(schema, fo.Arrow(schema)) {
		ci := ColumnInfo{Name: c.Name, Type: c.ArrowType, Descr: c.DType, Nullable: c.Nullable, Fill: c.NullPolicy == "fill"}
		if c.Field != c.Name {
			ci.Field = c.Field
		}
		if c.NeedsScan {
			ci.Descr = "(string width or list length from the data)"
		}
		if c.Refused != nil {
			ci.Refused = strings.TrimPrefix(c.Refused.Error(), "arrowconv: ")
		}
		n := int64(-1)
		if proj != nil {
			i = proj[i]
		}
		if i < len(ii.NullCounts) {
			n = ii.NullCounts[i]
		}
		if c.Nullable || n > 0 {
			ci.NullCount = &n
			ci.Nulls = c.NullPolicy
			switch {
			case n == 0:
				ci.Nulls = ""
			case ci.Nulls == "refused" && n > 0 && ci.Refused == "":
				what := "numpy " + c.DType + " has no null"
				if c.DType == "" {
					what = "numpy has no null for " + c.ArrowType
				}
				ci.Refused = fmt.Sprintf("holds %d nulls and %s: give a fill value (--fill) or a validity field (--validity), or leave the column out", n, what)
			case ci.Nulls == "refused":
				ci.Nulls = "refused if any (give a fill value or a validity field)"
			}
		}
		_, ci.Dictionary = ii.Schema.Field(i).Type.(*arrow.DictionaryType)
		info.Columns = append(info.Columns, ci)
		if c.Validity != "" {
			info.Columns = append(info.Columns, ColumnInfo{Name: c.Validity, Descr: "|b1", Type: "validity", ValidityOf: c.Name})
		}
		if c.ItemsValidity != "" {
			d := c.ItemsDType
			if d == "" {
				d = "|b1 (list length from the data)"
			}
			info.Columns = append(info.Columns, ColumnInfo{Name: c.ItemsValidity, Descr: d, Type: "validity", ValidityOf: c.Name + "[]"})
		}
	}
	return info, nil
}

// WriteText prints the table as `npyflow inspect` does.
func (info *TableInfo) WriteText(w io.Writer) {
	what := "Parquet"
	if info.IPC != "" {
		what = fmt.Sprintf("Arrow IPC %s, %d record batches", info.IPC, info.Batches)
	} else if info.Array {
		what += ", written from one array"
	}
	fmt.Fprintf(w, "file:     %s (%s, %d bytes)\nrows:     %d\ncolumns:\n", info.File, what, info.FileSize, info.Rows)
	for _, c := range info.Columns {
		switch {
		case c.Type != "":
			var notes []string
			if c.Dictionary {
				notes = append(notes, "dictionary")
			}
			if c.Nullable {
				n := "nullable"
				if c.NullCount != nil && *c.NullCount >= 0 {
					n += fmt.Sprintf(", %d nulls", *c.NullCount)
				}
				notes = append(notes, n)
			}
			line := c.Type + " -> " + c.Descr
			if c.Field != "" {
				line = c.Type + " -> " + c.Field + " " + c.Descr
			}
			if c.ValidityOf != "" {
				line = fmt.Sprintf("validity -> %s (false where %s is null)", c.Descr, c.ValidityOf)
				if l, ok := strings.CutSuffix(c.ValidityOf, "[]"); ok {
					line = fmt.Sprintf("validity -> %s (false where an element of %s is null, or %s is)", c.Descr, l, l)
				}
			}
			if c.Refused != "" {
				line = c.Type + " REFUSED: " + c.Refused
			} else if c.Nulls != "" && c.Nulls != "NaN" && c.Nulls != "NaT" {
				notes = append(notes, "nulls "+c.Nulls)
			}
			if len(notes) > 0 {
				line += "  [" + strings.Join(notes, ", ") + "]"
			}
			fmt.Fprintf(w, "  %-16s %s\n", c.Name, line)
		case len(c.Shape) > 0:
			fmt.Fprintf(w, "  %-16s %s shape %s per row\n", c.Name, c.Descr, npyio.FormatShape(c.Shape))
		default:
			fmt.Fprintf(w, "  %-16s %s\n", c.Name, c.Descr)
		}
	}
	for _, m := range info.Warnings {
		fmt.Fprintf(w, "warning:  %s\n", m)
	}
}
