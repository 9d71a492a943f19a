package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/format"
	"github.com/npyflow/npyflow/pipeline/inspect"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The adapter of the format contract (package format): each format
// registered there becomes an engine Format (registry.go adopts them),
// whose source is a file source reading the contract's handles, whose
// sink is a file sink writing through the contract's writers, and whose
// inspect calls its Inspector. Nothing here knows a format by name.

// adoptFormat registers the contract format cf, unless it is already (a
// built-in format on the contract, registry.go).
func adoptFormat(cf *format.Format) {
	if f := formatNamed(cf.Name); f != nil && f.contract == cf {
		return
	}
	RegisterFormat(contractFormat(cf))
}

// contractFormat is the engine's Format of the contract format cf.
func contractFormat(cf *format.Format) *Format {
	f := &Format{Name: cf.Name, Exts: cf.Exts, Aliases: cf.Aliases, Magic: cf.Magic, Summary: cf.Summary, Caps: cf.Caps, contract: cf}
	if spec := cf.Source; spec != nil {
		f.Source = fileSourceSpec(spec.Summary, spec.Doc, func(c *job.Component) (fileReader, error) {
			src, err := spec.New(c.Opts())
			if err != nil {
				return nil, c.Errorf("", "%v", err)
			}
			r := &contractReader{src: src, dir: cf.Caps.Dir}
			if cf.Caps.NPYRows {
				return &contractNPYReader{r}, nil
			}
			return r, nil
		}, spec.Options)
	}
	if spec := cf.Sink; spec != nil {
		f.Sink = &job.Spec{Kind: job.Sink, Summary: spec.Summary, Doc: spec.Doc, Options: spec.Options,
			Impl: builder(func(c *job.Component, in *Schema, env *buildEnv) (node, error) {
				return buildContractSink(c, in, env, spec, cf.Caps)
			})}
	}
	if ins := cf.Inspector; ins != nil {
		opts := func(src *job.Component) any {
			if src == nil || cf.Source == nil {
				return nil
			}
			return src.Opts()
		}
		if cf.Caps.Dir {
			f.InspectPath = func(ctx context.Context, name, display string, src *job.Component) (inspect.Info, error) {
				return ins.Inspect(ctx, format.Input{Name: display}, opts(src))
			}
		} else {
			f.Inspect = func(ctx context.Context, file storage.File, name string, src *job.Component) (inspect.Info, error) {
				return ins.Inspect(ctx, format.Input{Name: name, File: file}, opts(src))
			}
		}
	}
	return f
}

// contractReader is the fileReader of a contract format's source: each
// input is opened and parsed once per run (a handle in the cache), its
// parts listed and read from that one handle.
type contractReader struct {
	src   format.Source
	dir   bool // inputs are directories: no file to open
	files handles[*contractHandle]
}

// contractHandle is an open input and its parts by member, so that
// opening each of N parts costs O(1), not O(N).
type contractHandle struct {
	h     format.Handle
	parts []format.Part
	heads map[string]*npyio.Header
}

func (r *contractReader) closeHandles() { r.files.close() }

// handle returns the open handle of the input at path, and its releaser.
func (r *contractReader) handle(ctx context.Context, path string) (*contractHandle, func(), error) {
	return r.files.get(ctx, path, func(ctx context.Context, path string) (*contractHandle, io.Closer, error) {
		in := format.Input{Name: path}
		var f storage.File
		if !r.dir {
			var err error
			if f, err = storage.Open(ctx, path); err != nil {
				return nil, nil, err
			}
			in.File = f
		}
		h, err := r.src.Open(ctx, in)
		if err == nil && h == nil {
			err = errors.New("the format opened no handle (a bug of the format)")
		}
		if err != nil {
			if f != nil {
				f.Close()
			}
			return nil, nil, &FileError{Path: path, Err: err}
		}
		c := closers{closeFunc(h.Close)}
		if f != nil {
			c = append(c, f)
		}
		ch := &contractHandle{h: h, parts: h.Parts(), heads: map[string]*npyio.Header{}}
		for _, p := range ch.parts {
			if _, dup := ch.heads[p.Member]; p.Header == nil || dup || len(ch.parts) > 1 && p.Member == "" {
				c.Close()
				return nil, nil, &FileError{Path: path, Err: fmt.Errorf("part %q has no header, or a name that does not tell it apart (a bug of the format)", p.Member)}
			}
			ch.heads[p.Member] = p.Header
		}
		return ch, c, nil
	})
}

func (r *contractReader) parts(ctx context.Context, _ *fileSource, path string) ([]partHead, error) {
	h, release, err := r.handle(ctx, path)
	if err != nil {
		return nil, err
	}
	defer release()
	if len(h.parts) == 0 {
		return nil, &FileError{Path: path, Err: errors.New("holds no arrays")}
	}
	out := make([]partHead, 0, len(h.parts))
	for _, p := range h.parts {
		out = append(out, partHead{member: p.Member, array: p.Array, header: p.Header, size: p.Size})
	}
	return out, nil
}

func (r *contractReader) open(ctx context.Context, _ *fileSource, p *Part) (rowReader, *npyio.Header, io.Closer, error) {
	h, release, err := r.handle(ctx, p.Path)
	if err != nil {
		return nil, nil, nil, err
	}
	head := h.heads[p.Member]
	if head == nil {
		release()
		return nil, nil, nil, &FileError{Path: p.String(), Err: errors.New("disappeared since planning")}
	}
	rd, err := h.h.OpenPart(ctx, p.Member)
	if err != nil {
		release()
		return nil, nil, nil, &FileError{Path: p.String(), Err: err}
	}
	c := closers{}
	if rc, ok := rd.(io.Closer); ok {
		c = append(c, rc)
	}
	c = append(c, closeFunc(func() error { release(); return nil }))
	return rd, head, c, nil
}

// contractSink is a contract format's sink: a file sink whose files are
// written by the format's Writer. A sink writing one file per input part
// takes parts of different layouts, each through a Sink made for it.
type contractSink struct {
	*fileSink
	spec  *format.SinkSpec
	first format.Sink // the Sink of the input's layout
}

func buildContractSink(c *job.Component, in *Schema, env *buildEnv, spec *format.SinkSpec, caps format.Caps) (node, error) {
	sk, err := spec.New(c.Opts(), layoutOf(in))
	if err != nil {
		return nil, c.Errorf("input", "%v", err)
	}
	fs, err := newFileSink(c, in, env)
	if err != nil {
		return nil, err
	}
	s := &contractSink{fileSink: fs, spec: spec, first: sk}
	fs.dirOut = caps.Dir
	var n node = s
	if caps.NPYFile {
		n = &contractNPYSink{s}
	}
	fs.open = func(f *sinkFile, p *Part) (batchWriter, error) {
		sk := s.first
		if ps := partSchema(in, p); ps != in && !ps.Equal(in) {
			var err error
			if sk, err = spec.New(c.Opts(), layoutOf(ps)); err != nil {
				return nil, fmt.Errorf("input %s: %v", p, err)
			}
		}
		out := format.Output{Name: storage.Redact(s.curP), Dir: f.dir, Rows: -1,
			DType: storedDType(in, p, s.stored && s.onePerFile()), ZeroD: s.zeroDFor(p)}
		if f.WriteSeeker != nil {
			out.File = f
		}
		if s.known {
			out.Rows = s.rowsOf(p)
		}
		w, err := sk.Create(env.ctx, out)
		if err != nil {
			return nil, err
		}
		return contractWriter{w}, nil
	}
	return n, nil
}

// zeroDFor reports whether the file of part p is written 0-d: one 0-d
// input whose row reaches the sink through transforms keeping every row
// (format.Output.ZeroD).
func (s *contractSink) zeroDFor(p *Part) bool {
	return s.zeroD && p != nil && p.zeroD && (s.path.perPart() || s.nparts == 1)
}

// contractNPYReader is the reader of a source whose parts open as
// npyio.Readers (format.Caps.NPYRows): an npyOpener, for the fast paths.
type contractNPYReader struct{ *contractReader }

func (r *contractNPYReader) openNPY(ctx context.Context, s *fileSource, p *Part) (*npyio.Reader, io.Closer, error) {
	rd, _, c, err := r.open(ctx, s, p)
	if err != nil {
		return nil, nil, err
	}
	nr, ok := rd.(*npyio.Reader)
	if !ok {
		c.Close()
		return nil, nil, &FileError{Path: p.String(), Err: fmt.Errorf("the format declares NPYRows but opened a %T (a bug of the format)", rd)}
	}
	return nr, c, nil
}

// contractNPYSink is the sink of a format whose outputs of one part are
// that part's array as an .npy (format.Caps.NPYFile): a partCopier, which
// writes a part's array as stored, or has its reader copy it (npyCopier),
// where those are the bytes its rows give through the format's writer.
type contractNPYSink struct{ *contractSink }

func (s *contractNPYSink) takesStored() bool { return true }

// copies: a part whose reader writes it as an .npy itself, or whose array
// goes as stored, alone in its file.
func (s *contractNPYSink) copies(src source, p *Part) bool {
	as, ok := src.(*fileSource)
	return ok && s.direct && s.onePerFile() && !s.zeroDFor(p) && (as.copiesArray(p) || as.npyCopier(p) != nil)
}

func (s *contractNPYSink) copyPart(ctx context.Context, src source, p *Part, progress func(int64)) (bool, int64, error) {
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

// layoutOf is the contract's layout of the rows of schema s.
func layoutOf(s *Schema) format.Layout {
	return format.Layout{DType: s.DType, Shape: s.Shape}
}

// contractWriter is a contract Writer as a batchWriter.
type contractWriter struct{ w format.Writer }

func (w contractWriter) Write(b Batch) error { return w.w.WriteRows(b.Data, b.Rows) }
func (w contractWriter) Close() error        { return w.w.Close() }
