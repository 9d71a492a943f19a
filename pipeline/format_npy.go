package pipeline

import (
	"bufio"
	"context"
	"io"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/format"
	"github.com/npyflow/npyflow/pipeline/inspect"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The .npy format: its source reads files row by row through
// npyio.Reader; its sink writes numpy's header and rows, byte-identical
// to np.save of the same array.

var npyFormat = &Format{
	Name: "npy", Exts: []string{".npy"}, Summary: "NumPy array file", Caps: format.Caps{DropsTimeZones: true},
	Magic: []Magic{{Prefix: "\x93NUMPY"}},
	Source: fileSourceSpec("read .npy files",
		"Reads .npy files row by row (axis 0) in bounded memory. All files must share one dtype and row shape; they are read in path order.",
		func(*job.Component) (fileReader, error) { return npyReader{}, nil }, npySourceOpts{}),
	Sink: &job.Spec{Kind: job.Sink, Summary: "write .npy files (streaming)",
		Doc:     "Writes rows with numpy's header, byte-identical to np.save of the same array; the row count is filled in on close.",
		Options: npySinkOpts{}, Impl: builder(buildNPYSink)},
	Inspect: func(_ context.Context, f storage.File, name string, _ *job.Component) (inspect.Info, error) {
		return inspect.NPY(f, f.Size(), name)
	},
}

// npyReader reads .npy files: each is one part.
type npyReader struct{}

func (npyReader) parts(ctx context.Context, _ *fileSource, path string) ([]partHead, error) {
	f, err := storage.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := npyio.ReadHeader(bufio.NewReaderSize(f, 4096), nil)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	if !h.DType.IsSupported() {
		_, err := npyio.NewReaderAt(f, 1<<62, nil) // reports why
		return nil, &FileError{Path: path, Err: err}
	}
	return []partHead{{header: h}}, nil
}

func (npyReader) openNPY(ctx context.Context, _ *fileSource, p *Part) (*npyio.Reader, io.Closer, error) {
	f, err := storage.Open(ctx, p.Path)
	if err != nil {
		return nil, nil, err
	}
	rd, err := npyio.NewReaderAt(f, f.Size(), nil)
	if err != nil {
		f.Close()
		return nil, nil, &FileError{Path: p.Path, Err: err}
	}
	return rd, f, nil
}

// npySink is the npy sink. A file made of one 0-d input (shape ()) that
// reached it through transforms keeping every row is written 0-d too,
// like numpy: np.save of np.load of it.
type npySink struct{ *fileSink }

func (s *npySink) takesStored() bool { return true }

// copies: a part whose reader writes it as an .npy itself, or whose array
// goes as stored, alone in its file.
func (s *npySink) copies(src source, p *Part) bool {
	as, ok := src.(*fileSource)
	return ok && s.direct && s.onePerFile() && !s.zeroDFor(p) && (as.copiesArray(p) || as.npyCopier(p) != nil)
}

// zeroDFor reports whether the file of part p is written 0-d.
func (s *npySink) zeroDFor(p *Part) bool {
	return s.zeroD && p != nil && p.zeroD && (s.path.perPart() || s.nparts == 1)
}

func (s *npySink) copyPart(ctx context.Context, src source, p *Part, progress func(int64)) (bool, int64, error) {
	as := src.(*fileSource)
	if as.copiesArray(p) {
		err := as.copyArray(ctx, p, s.curP, p.Member, func(h *npyio.Header) (arrayWriter, error) {
			wr, err := npyio.NewWriter(s.curF, h)
			return npyArrayWriter{wr}, err
		})
		if err != nil {
			return false, 0, err
		}
	} else {
		c := as.npyCopier(p)
		if c == nil || s.curF.OSFile() == nil {
			return false, 0, nil
		}
		ok, err := c.copyNPY(ctx, as, p, s.curF.OSFile())
		if err == nil && ok {
			err = s.curF.written()
		}
		if !ok || err != nil {
			return ok, 0, err
		}
	}
	s.copiedRows(p.Rows)
	progress(p.Rows)
	return true, p.Rows, nil
}

func buildNPYSink(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	fs, err := newFileSink(c, in, env)
	if err != nil {
		return nil, err
	}
	s := &npySink{fileSink: fs}
	// The stream writer patches the header's row count at the end, which
	// an upload to an object store can do only within the bytes it still
	// holds: when the plan knows the rows, the header is written right.
	fs.seekable = func() bool { return !s.known }
	fs.open = func(f *sinkFile, p *Part) (batchWriter, error) {
		in := partSchema(in, p)
		dt := storedDType(in, p, s.stored && s.onePerFile())
		zeroD := s.zeroDFor(p) && len(in.Shape) == 0
		if s.known || zeroD {
			h := &npyio.Header{DType: dt, Shape: append([]int{int(s.rowsOf(p))}, in.Shape...)}
			if zeroD {
				h.Shape = []int{} // its one row
			}
			w, err := npyio.NewWriter(f, h)
			if err != nil {
				return nil, err
			}
			return &npyWriter{w: w}, nil
		}
		w, err := npyio.NewStreamWriter(f, dt, in.Shape)
		if err != nil {
			return nil, err
		}
		return &npyWriter{w: w, zero: in.RowSize() == 0}, nil
	}
	return s, nil
}
