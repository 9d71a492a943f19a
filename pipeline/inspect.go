package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
)

// Inspection is what [Inspect] read of a file: one of its fields is set.
type Inspection struct {
	NPY   *HeaderInfo
	NPZ   *NPZInfo
	Table *TableInfo // Parquet or Arrow IPC
	HDF5  *HDF5Info
	MAT   *MATInfo
}

// setFile sets the file name the inspection shows.
func (i *Inspection) setFile(name string) {
	switch {
	case i.NPY != nil:
		i.NPY.File = name
	case i.NPZ != nil:
		i.NPZ.File = name
	case i.Table != nil:
		i.Table.File = name
	case i.HDF5 != nil:
		i.HDF5.File = name
	case i.MAT != nil:
		i.MAT.File = name
	}
}

// Value is the set field, for JSON encoding.
func (i *Inspection) Value() any {
	switch {
	case i.NPZ != nil:
		return i.NPZ
	case i.Table != nil:
		return i.Table
	case i.HDF5 != nil:
		return i.HDF5
	case i.MAT != nil:
		return i.MAT
	}
	return i.NPY
}

// WriteText prints the inspection as `npyflow inspect` does.
func (i *Inspection) WriteText(w io.Writer) {
	switch {
	case i.NPZ != nil:
		i.NPZ.WriteText(w)
	case i.Table != nil:
		i.Table.WriteText(w)
	case i.HDF5 != nil:
		i.HDF5.WriteText(w)
	case i.MAT != nil:
		i.MAT.WriteText(w)
	default:
		i.NPY.WriteText(w)
	}
}

// Inspect reads what the file name holds without reading its data: an
// .npy header, .npz members, a Parquet or Arrow schema, an HDF5 file's
// groups, datasets and attributes, a MAT-file's variables, recognized by
// the file's first bytes (a MAT-file also by its .mat name). Errors do not repeat the file's name.
func Inspect(ctx context.Context, name string) (*Inspection, error) {
	return InspectOptions(ctx, name, nil)
}

// InspectOptions is [Inspect] under conversion options: for a Parquet or
// Arrow file, the options of reading files other tools wrote (o.Fill,
// o.Validity, o.Decimal, o.Columns: convert's --fill, --validity,
// --decimal and --columns) apply as [Convert] applies them, by the same
// mapping code: the columns read in their order, scaled decimals under
// their field names, validity fields, and which columns would still be
// refused. They are refused for other formats, as by Convert; o's other
// options are not used.
func InspectOptions(ctx context.Context, name string, o *ConvertOptions) (*Inspection, error) {
	if name == StdinName {
		tmp, cleanup, err := spoolStdin(ctx, o)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		ins, err := InspectOptions(ctx, tmp, o)
		if err == nil {
			ins.setFile(StdinName)
		}
		return ins, err
	}
	f, err := storage.Open(ctx, name)
	if err != nil {
		return nil, bare(err)
	}
	defer f.Close()
	size := f.Size()
	var magic [6]byte
	n, _ := f.ReadAt(magic[:], 0)
	m := magic[:n]
	kind := containerKind(name, f, size)
	if kind == "" {
		switch {
		case bytes.HasPrefix(m, []byte("PK\x03\x04")), bytes.HasPrefix(m, []byte("PK\x05\x06")):
			kind = "npz"
		case bytes.HasPrefix(m, []byte("PAR1")):
			kind = "parquet"
		case bytes.HasPrefix(m, []byte("ARROW1")), bytes.HasPrefix(m, []byte("\xff\xff\xff\xff")):
			kind = "arrow"
		default:
			kind = "npy"
		}
	}
	fo, err := foreignForInput(o, kind)
	if err != nil {
		return nil, err
	}
	switch kind {
	case "hdf5":
		i, err := inspectHDF5(name, f, size)
		if err != nil {
			return nil, err
		}
		i.File = name
		return &Inspection{HDF5: i}, nil
	case "mat":
		i, err := inspectMAT(name, f, size)
		if err != nil {
			return nil, err
		}
		i.File = name
		return &Inspection{MAT: i}, nil
	}
	switch kind {
	case "npz":
		i, err := inspectNPZ(f, size)
		if err != nil {
			return nil, err
		}
		i.File = name
		return &Inspection{NPZ: i}, nil
	case "parquet":
		i, err := inspectParquet(f, size, fo)
		if err != nil {
			return nil, err
		}
		i.File = name
		return &Inspection{Table: i}, nil
	case "arrow":
		i, err := inspectArrow(f, size, fo)
		if err != nil {
			return nil, err
		}
		i.File = name
		return &Inspection{Table: i}, nil
	}
	i, err := inspectNPY(f, size)
	if err != nil {
		return nil, err
	}
	i.Format, i.File, i.FileSize = "npy", name, size
	return &Inspection{NPY: i}, nil
}

// HeaderInfo is what [Inspect] reads of an .npy file (and for each .npz
// member, without File and FileSize).
type HeaderInfo struct {
	Format       string   `json:"format,omitempty"`
	File         string   `json:"file,omitempty"`
	Version      string   `json:"version"`
	Descr        string   `json:"descr"`
	DType        string   `json:"dtype"`
	Fields       []string `json:"fields,omitempty"`
	Shape        []int    `json:"shape"`
	FortranOrder bool     `json:"fortran_order"`
	ItemSize     int      `json:"itemsize"`
	DataOffset   int64    `json:"data_offset"`
	DataSize     int64    `json:"data_size"`
	FileSize     int64    `json:"file_size,omitempty"`
}

// NPZInfo is what [Inspect] reads of an .npz archive.
type NPZInfo struct {
	Format   string          `json:"format"`
	File     string          `json:"file"`
	FileSize int64           `json:"file_size"`
	Members  []NPZMemberInfo `json:"members"`
}

// NPZMemberInfo is one member of an .npz archive.
type NPZMemberInfo struct {
	Key            string      `json:"key"`
	Name           string      `json:"name"`
	Compressed     bool        `json:"compressed"`
	Size           int64       `json:"size"`
	CompressedSize int64       `json:"compressed_size"`
	Header         *HeaderInfo `json:"header,omitempty"`
	Error          string      `json:"error,omitempty"` // not an .npy, or a bad header
}

// TableInfo is what [Inspect] reads of a Parquet or Arrow IPC file.
type TableInfo struct {
	Format   string       `json:"format"`
	File     string       `json:"file"`
	FileSize int64        `json:"file_size"`
	IPC      string       `json:"ipc,omitempty"` // "file" or "stream"
	Rows     int64        `json:"rows"`
	Batches  int          `json:"record_batches,omitempty"`
	Array    bool         `json:"array,omitempty"` // Parquet written from a plain array
	Columns  []ColumnInfo `json:"columns"`
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

// inspectNPY reads an .npy header from r, whose data may be size bytes
// long (-1: not checked).
func inspectNPY(r io.Reader, size int64) (*HeaderInfo, error) {
	h, err := npyio.ReadHeader(r, &npyio.Options{MaxHeaderSize: npyio.DefaultMaxHeaderSize})
	if err != nil {
		return nil, err
	}
	info := headerInfo(h)
	if avail := size - h.DataOffset; size >= 0 && h.DataSize() > avail {
		return info, fmt.Errorf("truncated: the header declares %d data bytes, the file has %d", h.DataSize(), avail)
	}
	return info, nil
}

func headerInfo(h *npyio.Header) *HeaderInfo {
	info := &HeaderInfo{
		Version:      fmt.Sprintf("%d.%d", h.Major, h.Minor),
		Descr:        h.DType.String(),
		DType:        h.DType.TypeStr(),
		Shape:        append([]int{}, h.Shape...),
		FortranOrder: h.FortranOrder,
		ItemSize:     h.DType.Size,
		DataOffset:   h.DataOffset,
		DataSize:     h.DataSize(),
	}
	for _, fl := range h.DType.Fields {
		info.Fields = append(info.Fields, fl.Name)
	}
	return info
}

// WriteText prints the header as `npyflow inspect` does.
func (info *HeaderInfo) WriteText(w io.Writer) {
	order := "C"
	if info.FortranOrder {
		order = "Fortran"
	}
	fmt.Fprintf(w, "file:         %s\nversion:      %s\ndescr:        %s\nshape:        %s\norder:        %s\nitemsize:     %d\ndata offset:  %d\ndata size:    %d\n",
		info.File, info.Version, info.Descr, npyio.FormatShape(info.Shape), order, info.ItemSize, info.DataOffset, info.DataSize)
	if len(info.Fields) > 0 {
		fmt.Fprintf(w, "fields:       %v\n", info.Fields)
	}
	if extra := info.FileSize - info.DataOffset - info.DataSize; extra > 0 {
		fmt.Fprintf(w, "trailing:     %d bytes after the data (ignored)\n", extra)
	}
}

func inspectNPZ(f io.ReaderAt, size int64) (*NPZInfo, error) {
	z, err := npyio.NewNPZReader(f, size, nil)
	if err != nil {
		return nil, err
	}
	info := &NPZInfo{Format: "npz", FileSize: size, Members: []NPZMemberInfo{}}
	for _, m := range z.Members {
		mi := NPZMemberInfo{Key: m.Key, Name: m.Name, Compressed: m.Compressed(), Size: m.Size(), CompressedSize: m.CompressedSize()}
		if h, err := m.ReadHeader(); err != nil {
			mi.Error = err.Error()
		} else {
			mi.Header = headerInfo(h)
		}
		info.Members = append(info.Members, mi)
	}
	return info, nil
}

// WriteText prints the archive as `npyflow inspect` does.
func (info *NPZInfo) WriteText(w io.Writer) {
	fmt.Fprintf(w, "file:     %s (.npz, %d members, %d bytes)\n", info.File, len(info.Members), info.FileSize)
	for _, m := range info.Members {
		var how string
		if m.Compressed {
			how = fmt.Sprintf("deflate %d -> %d bytes", m.Size, m.CompressedSize)
		} else {
			how = fmt.Sprintf("stored %d bytes", m.Size)
		}
		if m.Header == nil {
			fmt.Fprintf(w, "  %-16s %s; %s\n", m.Key, how, m.Error)
			continue
		}
		h := m.Header
		order := ""
		if h.FortranOrder {
			order = " Fortran order"
		}
		fmt.Fprintf(w, "  %-16s %s shape %s%s; v%s, %s\n", m.Key, h.Descr, npyio.FormatShape(h.Shape), order, h.Version, how)
	}
}

func inspectParquet(f io.ReaderAt, size int64, fo *foreignOptions) (*TableInfo, error) {
	d, err := parquetio.DescribeOptions(f, size, fo.parquet())
	if err != nil {
		return nil, err
	}
	if d.Npyflow {
		// npyflow's own file: its numpy columns, exactly.
		r, err := parquetio.NewReader(f, size)
		if err != nil {
			return nil, err
		}
		info := &TableInfo{Format: "parquet", FileSize: size, Rows: r.Rows(), Array: r.IsArray(), Columns: []ColumnInfo{}}
		for _, c := range r.Columns() {
			info.Columns = append(info.Columns, ColumnInfo{Name: c.Name, Descr: c.DType.String(), Shape: c.Shape})
		}
		return info, nil
	}
	// Another tool's file: each leaf column's Parquet type and mapping,
	// from the footer alone, as a reader with the options maps it (the
	// numpy fields of d.Fields: validity fields between the leaves).
	info := &TableInfo{Format: "parquet", FileSize: size, Rows: d.Rows, Columns: []ColumnInfo{}}
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

func inspectArrow(f storage.File, size int64, fo *foreignOptions) (*TableInfo, error) {
	ii, err := arrowconv.ReadIPCInfo(f, size)
	if err != nil {
		return nil, err
	}
	// The columns read and the options, as convert applies them.
	schema, proj, err := fo.project(ii.Schema)
	if err != nil {
		return nil, err
	}
	if err := fo.checkArrowNames(schema); err != nil {
		return nil, err
	}
	info := &TableInfo{Format: "arrow", FileSize: size, IPC: "file", Rows: ii.Rows, Batches: ii.Batches, Columns: []ColumnInfo{}}
	if ii.Format == arrowconv.IPCStream {
		info.IPC = "stream"
	}
	for i, c := range arrowconv.DescribeSchema(schema, fo.arrow(schema)) {
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
	if info.Format == "arrow" {
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
}

// InspectFlags are the options of `npyflow inspect` besides --json: the
// conversion options that change how Parquet and Arrow files map to
// numpy ([ConvertFlags] entries declared by foreignReadFields), set on a
// [ConvertOptions] for [InspectOptions].
func InspectFlags() []Flag {
	var out []Flag
	for _, f := range ConvertFlags() {
		for _, fd := range foreignReadFields() {
			if fd.Flag == f.Name {
				out = append(out, f)
			}
		}
	}
	return out
}
