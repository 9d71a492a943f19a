// Package toyformat is the toy format of the tests, "TOY1": a little-endian
// uint32 count, then that many little-endian float64 values. It is the
// proof that a format lives outside the engine: it implements the
// contract of package format with nothing of package pipeline, and
// registers itself when imported (import _ ".../internal/toyformat"), so
// npyflow converts, runs, inspects, lists and shards it.
//
// Its source has two options: scale (flag --toy-scale), which multiplies
// every value read, and panic, which makes reading panic (a bug the
// engine must report as one). Its sink takes float64 values only (one
// value per row) and writes at most 2**32-1 of them per file.
package toyformat

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/format"
	"github.com/npyflow/npyflow/pipeline/inspect"
)

func init() {
	format.Register(&format.Format{
		Name: "toy", Exts: []string{".toy"}, Summary: "toy float64 vector (a test)",
		Magic: []format.Magic{{Prefix: magic}},
		Caps:  format.Caps{Seeks: format.SeeksWithoutRows}, // the count is patched in when the rows were not known
		Source: &format.SourceSpec{Summary: "read toy files", Doc: "Reads toy files: one float64 vector each.",
			Options: SourceOptions{},
			New: func(opts any) (format.Source, error) {
				o := opts.(*SourceOptions)
				return source{scale: float64(o.Scale), panics: o.Panic}, nil
			}},
		Sink: &format.SinkSpec{Summary: "write toy files", Doc: "Writes float64 values as a toy file.",
			Options: SinkOptions{},
			New: func(_ any, in format.Layout) (format.Sink, error) {
				if !in.DType.Equal(npyio.Float64Type) || len(in.Shape) > 0 {
					return nil, fmt.Errorf("a toy file holds float64 values, not %s", in)
				}
				return sink{}, nil
			}},
		Inspector: format.InspectorFunc(inspectToy),
	})
}

const magic = "TOY1"

// SourceOptions are the toy source's options.
type SourceOptions struct {
	format.SourceOptions
	Scale int64 `opt:"scale" default:"1" flag:"toy-scale" doc:"multiply every value by this"`
	Panic bool  `opt:"panic" default:"false" doc:"panic while reading (a test of the engine)"`
}

// SinkOptions are the toy sink's options: those of every file sink.
type SinkOptions struct {
	format.SinkOptions
}

// Info is what inspect shows of a toy file.
type Info struct {
	File   string `json:"file"`
	Values uint32 `json:"values"`
}

// WriteText writes the one line of inspect's text.
func (i *Info) WriteText(w io.Writer) { fmt.Fprintf(w, "%s: %d toy values\n", i.File, i.Values) }

// count reads and checks the header of the toy file f: its count.
func count(f format.File) (uint32, error) {
	var head [8]byte
	if f.Size() < 8 {
		return 0, errors.New("not a toy file: shorter than its 8-byte header")
	}
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return 0, err
	}
	if string(head[:4]) != magic {
		return 0, fmt.Errorf("not a toy file: starts %q, not %q", head[:4], magic)
	}
	n := binary.LittleEndian.Uint32(head[4:])
	if int64(n)*8 != f.Size()-8 {
		return 0, fmt.Errorf("not a toy file: its header counts %d values, but %d bytes follow it", n, f.Size()-8)
	}
	return n, nil
}

func inspectToy(_ context.Context, in format.Input, _ any) (inspect.Info, error) {
	n, err := count(in.File)
	if err != nil {
		return nil, err
	}
	return &Info{File: in.Name, Values: n}, nil
}

type source struct {
	scale  float64
	panics bool
}

func (s source) Open(_ context.Context, in format.Input) (format.Handle, error) {
	n, err := count(in.File)
	if err != nil {
		return nil, err
	}
	return &handle{s: s, f: in.File, n: n}, nil
}

// handle is an open toy file: one part, its vector.
type handle struct {
	s source
	f format.File
	n uint32
}

func (h *handle) Parts() []format.Part {
	return []format.Part{{Header: &npyio.Header{DType: npyio.Float64Type, Shape: []int{int(h.n)}}}}
}

func (h *handle) OpenPart(_ context.Context, member string) (format.RowReader, error) {
	if member != "" {
		return nil, fmt.Errorf("a toy file has no member %q", member)
	}
	return &rows{r: io.NewSectionReader(h.f, 8, 8*int64(h.n)), left: int64(h.n), s: h.s}, nil
}

func (h *handle) Close() error { return nil }

// rows reads a toy file's values, scaled.
type rows struct {
	r    io.Reader
	left int64
	s    source
}

func (t *rows) ReadRows(dst []byte) (int, error) {
	if t.s.panics {
		var m map[string]int
		m["x"]++ // a bug: a nil map
	}
	n := int(min(int64(len(dst)/8), t.left))
	if n == 0 {
		return 0, io.EOF
	}
	b := dst[:8*n]
	if _, err := io.ReadFull(t.r, b); err != nil {
		return 0, err
	}
	for i := range n {
		v := math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])) * t.s.scale
		binary.NativeEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	t.left -= int64(n)
	return n, nil
}

type sink struct{}

func (sink) Create(_ context.Context, out format.Output) (format.Writer, error) {
	if out.File == nil {
		return nil, errors.New("a toy output is a file")
	}
	return &writer{w: out.File, want: out.Rows}, nil
}

// writer writes a toy file. When the engine knows the count it is
// written first; if not, it is patched in at the end (Caps.Seeks).
type writer struct {
	w    io.WriteSeeker
	want int64 // -1: unknown
	n    int64
	head bool
	buf  []byte
}

func (w *writer) header() error {
	w.head = true
	h := []byte(magic + "\x00\x00\x00\x00")
	if w.want >= 0 {
		if w.want > math.MaxUint32 {
			return fmt.Errorf("a toy file holds at most %d values, not %d", uint32(math.MaxUint32), w.want)
		}
		binary.LittleEndian.PutUint32(h[4:], uint32(w.want))
	}
	_, err := w.w.Write(h)
	return err
}

func (w *writer) WriteRows(b []byte, n int) error {
	if !w.head {
		if err := w.header(); err != nil {
			return err
		}
	}
	if w.n += int64(n); w.n > math.MaxUint32 {
		return fmt.Errorf("a toy file holds at most %d values", uint32(math.MaxUint32))
	}
	w.buf = w.buf[:0]
	for i := range n {
		w.buf = binary.LittleEndian.AppendUint64(w.buf, binary.NativeEndian.Uint64(b[8*i:]))
	}
	_, err := w.w.Write(w.buf)
	return err
}

func (w *writer) Close() error {
	if !w.head {
		if err := w.header(); err != nil {
			return err
		}
	}
	if w.want >= 0 {
		if w.n != w.want {
			return fmt.Errorf("got %d values, not the %d planned", w.n, w.want)
		}
		return nil
	}
	if _, err := w.w.Seek(4, io.SeekStart); err != nil {
		return err
	}
	var c [4]byte
	binary.LittleEndian.PutUint32(c[:], uint32(w.n))
	_, err := w.w.Write(c[:])
	return err
}
