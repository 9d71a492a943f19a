package inspect

import (
	"fmt"
	"io"

	"github.com/npyflow/npyflow/npyio"
)

// HeaderInfo is what [pipeline.Inspect] reads of an .npy file (and for each .npz
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

// NPZInfo is what [pipeline.Inspect] reads of an .npz archive.
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

// NPY reads the header of the .npy file r, whose data may be size bytes
// long (-1: not checked), named name.
func NPY(r io.Reader, size int64, name string) (*HeaderInfo, error) {
	h, err := npyio.ReadHeader(r, &npyio.Options{MaxHeaderSize: npyio.DefaultMaxHeaderSize})
	if err != nil {
		return nil, err
	}
	info := headerInfo(h)
	info.Format, info.File, info.FileSize = "npy", name, max(size, 0)
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

// NPZ reads the members' headers of the .npz archive f of size bytes,
// named name.
func NPZ(f io.ReaderAt, size int64, name string) (*NPZInfo, error) {
	z, err := npyio.NewNPZReader(f, size, nil)
	if err != nil {
		return nil, err
	}
	info := &NPZInfo{Format: "npz", File: name, FileSize: size, Members: []NPZMemberInfo{}}
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
