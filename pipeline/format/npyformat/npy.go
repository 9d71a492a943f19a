// Package npyformat is the NumPy .npy format on npyflow's format contract
// (package format): its source reads a file as one part through
// npyio.Reader, in bounded memory; its sink writes numpy's header and
// rows, byte-identical to np.save of the same array. It registers itself
// when imported.
//
// Its capabilities let the engine take its fast paths: a part opens as an
// *npyio.Reader (Caps.NPYRows), and an output holding one part is that
// part's array as an .npy (Caps.NPYFile), which the engine may write
// from an array stored so elsewhere (an .npz member, a MAT-file array, an
// Arrow column) with the bytes the rows would give.
//
// Limits: dtypes npyio reads; object arrays (pickles) are refused.
package npyformat

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/format"
	"github.com/npyflow/npyflow/pipeline/inspect"
)

func init() { format.Register(Format) }

// Format is the .npy format, registered by this package's init.
var Format = &format.Format{
	Name: "npy", Exts: []string{".npy"}, Summary: "NumPy array file",
	Magic: []format.Magic{{Prefix: "\x93NUMPY"}},
	// The stream writer patches the header's row count at the end,
	// which an upload to an object store can do only within the
	// bytes it still holds: when the plan knows the rows, the header
	// is written right.
	Caps: format.Caps{DropsTimeZones: true, Seeks: format.SeeksWithoutRows, NPYRows: true, NPYFile: true},
	Source: &format.SourceSpec{Summary: "read .npy files",
		Doc:     "Reads .npy files row by row (axis 0) in bounded memory. All files must share one dtype and row shape; they are read in path order.",
		Options: SourceOptions{},
		New:     func(any) (format.Source, error) { return source{}, nil }},
	Sink: &format.SinkSpec{Summary: "write .npy files (streaming)",
		Doc:     "Writes rows with numpy's header, byte-identical to np.save of the same array; the row count is filled in on close.",
		Options: SinkOptions{},
		New:     func(_ any, in format.Layout) (format.Sink, error) { return sink{in: in}, nil }},
	Inspector: format.InspectorFunc(func(_ context.Context, in format.Input, _ any) (inspect.Info, error) {
		return inspect.NPY(io.NewSectionReader(in.File, 0, in.File.Size()), in.File.Size(), in.Name)
	}),
}

// SourceOptions are the options of the npy source: those of every file
// source.
type SourceOptions struct {
	format.SourceOptions
}

// SinkOptions are the options of the npy sink: those of every file sink.
type SinkOptions struct {
	format.SinkOptions
}

type source struct{}

// Open reads the file's header; each part opens its own reader of it.
func (source) Open(_ context.Context, in format.Input) (format.Handle, error) {
	h, err := npyio.ReadHeader(bufio.NewReaderSize(io.NewSectionReader(in.File, 0, in.File.Size()), 4096), nil)
	if err != nil {
		return nil, err
	}
	if !h.DType.IsSupported() {
		_, err := npyio.NewReaderAt(in.File, 1<<62, nil) // says why
		return nil, err
	}
	return &handle{f: in.File, h: h}, nil
}

// handle is an open .npy file: one part.
type handle struct {
	f format.File
	h *npyio.Header
}

func (h *handle) Parts() []format.Part { return []format.Part{{Header: h.h}} }
func (h *handle) Close() error         { return nil }

// OpenPart returns an *npyio.Reader of the file (Caps.NPYRows).
func (h *handle) OpenPart(_ context.Context, member string) (format.RowReader, error) {
	if member != "" {
		return nil, fmt.Errorf("an .npy file has no member %q", member)
	}
	return npyio.NewReaderAt(h.f, h.f.Size(), nil)
}

// sink writes .npy files of rows of layout in.
type sink struct{ in format.Layout }

// Create writes the header of out.DType: with the row count when it is
// known (or the one row of a 0-d output), else a stream header whose
// count is patched in on close.
func (s sink) Create(_ context.Context, out format.Output) (format.Writer, error) {
	if out.File == nil {
		return nil, fmt.Errorf("an .npy output is a file")
	}
	dt := out.DType
	if dt == nil {
		dt = s.in.DType
	}
	zeroD := out.ZeroD && len(s.in.Shape) == 0
	if out.Rows >= 0 || zeroD {
		h := &npyio.Header{DType: dt, Shape: append([]int{int(max(0, out.Rows))}, s.in.Shape...)}
		if zeroD {
			h.Shape = []int{} // its one row
		}
		w, err := npyio.NewWriter(out.File, h)
		if err != nil {
			return nil, err
		}
		return &writer{w: w}, nil
	}
	w, err := npyio.NewStreamWriter(out.File, dt, s.in.Shape)
	if err != nil {
		return nil, err
	}
	return &writer{w: w, zero: s.in.RowSize() == 0}, nil
}

// writer streams rows into an .npy file, fixing the header on Close.
type writer struct {
	w    *npyio.Writer
	rows int
	zero bool
}

func (w *writer) WriteRows(b []byte, n int) error {
	w.rows += n
	_, err := w.w.Write(b)
	return err
}

func (w *writer) Close() error {
	if w.zero {
		return w.w.SetRows(w.rows)
	}
	return w.w.Close()
}
