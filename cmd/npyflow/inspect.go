package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/npyflow/npyflow/npyio"
)

func init() {
	register("inspect", "show an .npy file's header: dtype, shape, order, version, data offset", runInspect)
}

// inspectInfo is what inspect prints.
type inspectInfo struct {
	File         string   `json:"file"`
	Version      string   `json:"version"`
	Descr        string   `json:"descr"`
	DType        string   `json:"dtype"`
	Fields       []string `json:"fields,omitempty"`
	Shape        []int    `json:"shape"`
	FortranOrder bool     `json:"fortran_order"`
	ItemSize     int      `json:"itemsize"`
	DataOffset   int64    `json:"data_offset"`
	DataSize     int64    `json:"data_size"`
	FileSize     int64    `json:"file_size"`
}

func runInspect(e *env) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: npyflow inspect [--json] FILE.npy\n\nflags:")
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
	info, err := inspectFile(args[0])
	if err != nil {
		return fmt.Errorf("%s: %w", args[0], trimPrefix(err))
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(info)
	}
	order := "C"
	if info.FortranOrder {
		order = "Fortran"
	}
	fmt.Fprintf(e.stdout, "file:         %s\nversion:      %s\ndescr:        %s\nshape:        %v\norder:        %s\nitemsize:     %d\ndata offset:  %d\ndata size:    %d\n",
		info.File, info.Version, info.Descr, info.Shape, order, info.ItemSize, info.DataOffset, info.DataSize)
	if len(info.Fields) > 0 {
		fmt.Fprintf(e.stdout, "fields:       %v\n", info.Fields)
	}
	if extra := info.FileSize - info.DataOffset - info.DataSize; extra > 0 {
		fmt.Fprintf(e.stdout, "trailing:     %d bytes after the data (ignored)\n", extra)
	}
	return nil
}

func inspectFile(name string) (*inspectInfo, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	h, err := npyio.ReadHeader(f, &npyio.Options{MaxHeaderSize: npyio.DefaultMaxHeaderSize})
	if err != nil {
		return nil, err
	}
	info := &inspectInfo{
		File:         name,
		Version:      fmt.Sprintf("%d.%d", h.Major, h.Minor),
		Descr:        h.DType.String(),
		DType:        h.DType.TypeStr(),
		Shape:        append([]int{}, h.Shape...),
		FortranOrder: h.FortranOrder,
		ItemSize:     h.DType.Size,
		DataOffset:   h.DataOffset,
		DataSize:     h.DataSize(),
		FileSize:     st.Size(),
	}
	for _, fl := range h.DType.Fields {
		info.Fields = append(info.Fields, fl.Name)
	}
	if avail := st.Size() - h.DataOffset; h.DataSize() > avail {
		return info, fmt.Errorf("truncated: the header declares %d data bytes, the file has %d", h.DataSize(), avail)
	}
	return info, nil
}
