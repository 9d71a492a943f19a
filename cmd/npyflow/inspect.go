package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
)

func init() {
	register("inspect", "show what a file holds without reading its data: an .npy header, .npz members, a Parquet or Arrow schema", runInspect)
}

const inspectUsage = `usage: npyflow inspect [--json] FILE

FILE is an .npy, .npz, Parquet or Arrow IPC file (recognized by its first
bytes). Only headers and metadata are read:
  .npy      version, descr, shape, order, item size, data offset and size
  .npz      each member's header, compression and sizes
  .parquet  rows, and each column's numpy dtype and shape
  .arrow    IPC format, rows, record batches and the Arrow schema

flags:`

// inspectInfo is what inspect prints for an .npy file (and for each .npz
// member, without File and FileSize).
type inspectInfo struct {
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

// npzInfo is what inspect prints for an .npz archive.
type npzInfo struct {
	Format   string          `json:"format"`
	File     string          `json:"file"`
	FileSize int64           `json:"file_size"`
	Members  []npzMemberInfo `json:"members"`
}

type npzMemberInfo struct {
	Key            string       `json:"key"`
	Name           string       `json:"name"`
	Compressed     bool         `json:"compressed"`
	Size           int64        `json:"size"`
	CompressedSize int64        `json:"compressed_size"`
	Header         *inspectInfo `json:"header,omitempty"`
	Error          string       `json:"error,omitempty"` // not an .npy, or a bad header
}

// tableInfo is what inspect prints for a Parquet or Arrow IPC file.
type tableInfo struct {
	Format   string       `json:"format"`
	File     string       `json:"file"`
	FileSize int64        `json:"file_size"`
	IPC      string       `json:"ipc,omitempty"` // "file" or "stream"
	Rows     int64        `json:"rows"`
	Batches  int          `json:"record_batches,omitempty"`
	Array    bool         `json:"array,omitempty"` // Parquet written from a plain array
	Columns  []columnInfo `json:"columns"`
}

type columnInfo struct {
	Name  string `json:"name"`
	Descr string `json:"descr,omitempty"` // the numpy dtype it reads back as
	Shape []int  `json:"shape,omitempty"` // of each row (subarray or extra axes)
	Type  string `json:"type,omitempty"`  // Arrow type
}

func runInspect(e *env) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), inspectUsage)
		fs.PrintDefaults()
	}
	args, err := parseInterleaved(fs, e.args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	if len(args) != 1 {
		fs.Usage()
		return usagef("inspect needs one FILE, got %d arguments", len(args))
	}
	name := args[0]
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("%s: %w", name, bare(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", name, bare(err))
	}
	if st.IsDir() {
		return fmt.Errorf("%s: is a directory", name)
	}
	var magic [6]byte
	n, _ := f.ReadAt(magic[:], 0)
	var info any
	var text func(io.Writer)
	switch m := magic[:n]; {
	case bytes.HasPrefix(m, []byte("PK\x03\x04")), bytes.HasPrefix(m, []byte("PK\x05\x06")):
		i, err := inspectNPZ(f, st.Size())
		if err != nil {
			return fmt.Errorf("%s: %w", name, trimPrefix(err))
		}
		i.File = name
		info, text = i, i.print
	case bytes.HasPrefix(m, []byte("PAR1")):
		i, err := inspectParquet(f, st.Size())
		if err != nil {
			return fmt.Errorf("%s: %w", name, trimPrefix(err))
		}
		i.File = name
		info, text = i, i.print
	case bytes.HasPrefix(m, []byte("ARROW1")), bytes.HasPrefix(m, []byte("\xff\xff\xff\xff")):
		i, err := inspectArrow(f, st.Size())
		if err != nil {
			return fmt.Errorf("%s: %w", name, trimPrefix(err))
		}
		i.File = name
		info, text = i, i.print
	default:
		i, err := inspectNPY(f, st.Size())
		if err != nil {
			return fmt.Errorf("%s: %w", name, trimPrefix(err))
		}
		i.Format, i.File, i.FileSize = "npy", name, st.Size()
		info, text = i, i.print
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(info)
	}
	text(e.stdout)
	return nil
}

// inspectNPY reads an .npy header from r, whose data may be size bytes
// long (-1: not checked).
func inspectNPY(r io.Reader, size int64) (*inspectInfo, error) {
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

func headerInfo(h *npyio.Header) *inspectInfo {
	info := &inspectInfo{
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

func (info *inspectInfo) print(w io.Writer) {
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

func inspectNPZ(f *os.File, size int64) (*npzInfo, error) {
	z, err := npyio.NewNPZReader(f, size, nil)
	if err != nil {
		return nil, err
	}
	info := &npzInfo{Format: "npz", FileSize: size, Members: []npzMemberInfo{}}
	for _, m := range z.Members {
		mi := npzMemberInfo{Key: m.Key, Name: m.Name, Compressed: m.Compressed(), Size: m.Size(), CompressedSize: m.CompressedSize()}
		if h, err := m.ReadHeader(); err != nil {
			mi.Error = trimPrefix(err).Error()
		} else {
			mi.Header = headerInfo(h)
		}
		info.Members = append(info.Members, mi)
	}
	return info, nil
}

func (info *npzInfo) print(w io.Writer) {
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

func inspectParquet(f *os.File, size int64) (*tableInfo, error) {
	r, err := parquetio.NewReader(f, size)
	if err != nil {
		return nil, err
	}
	info := &tableInfo{Format: "parquet", FileSize: size, Rows: r.Rows(), Array: r.IsArray(), Columns: []columnInfo{}}
	for _, c := range r.Columns() {
		info.Columns = append(info.Columns, columnInfo{Name: c.Name, Descr: c.DType.String(), Shape: c.Shape})
	}
	return info, nil
}

func inspectArrow(f *os.File, size int64) (*tableInfo, error) {
	ii, err := arrowconv.ReadIPCInfo(f, size)
	if err != nil {
		return nil, err
	}
	info := &tableInfo{Format: "arrow", FileSize: size, IPC: "file", Rows: ii.Rows, Batches: ii.Batches, Columns: []columnInfo{}}
	if ii.Format == arrowconv.IPCStream {
		info.IPC = "stream"
	}
	for _, fl := range ii.Schema.Fields() {
		ci := columnInfo{Name: fl.Name, Type: fl.Type.String()}
		if fl.Nullable {
			ci.Type += " (nullable)"
		}
		info.Columns = append(info.Columns, ci)
	}
	return info, nil
}

func (info *tableInfo) print(w io.Writer) {
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
			fmt.Fprintf(w, "  %-16s %s\n", c.Name, c.Type)
		case len(c.Shape) > 0:
			fmt.Fprintf(w, "  %-16s %s shape %s per row\n", c.Name, c.Descr, npyio.FormatShape(c.Shape))
		default:
			fmt.Fprintf(w, "  %-16s %s\n", c.Name, c.Descr)
		}
	}
}
