package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/format"
	"github.com/npyflow/npyflow/pipeline/inspect"
	"github.com/npyflow/npyflow/pipeline/internal/suggest"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The .npz format: an archive of .npy members (np.savez,
// np.savez_compressed). Its source reads each member as a part (or, with
// table, the members as one table's columns); its sink writes members
// with numpy's headers.

var npzFormat = &Format{
	Name: "npz", Exts: []string{".npz"}, Summary: "NumPy archive of arrays (np.savez)",
	Magic: []Magic{{Prefix: "PK\x03\x04"}, {Prefix: "PK\x05\x06"}},
	Caps:  format.Caps{Archive: true, DropsTimeZones: true},
	Source: fileSourceSpec("read arrays from .npz archives",
		"Reads members of .npz archives (np.savez, np.savez_compressed). Each selected member of each archive is one input part (with table: true, the members of an archive are the columns of one part).",
		newNPZReader, npzSourceOpts{}),
	Sink: &job.Spec{Kind: job.Sink, Summary: "write an .npz archive",
		Doc:     "Writes members with numpy's headers, like np.savez (or np.savez_compressed). A member made of one 0-d input (shape ()) that came through select, drop, rename, cast or flatten is written 0-d, byte-identical to numpy's.",
		Options: npzSinkOpts{}, Impl: builder(buildNPZSink)},
	Inspect: func(_ context.Context, f storage.File, name string, _ *job.Component) (inspect.Info, error) {
		return inspect.NPZ(f, f.Size(), name)
	},
}

var flagString = job.String

// npzReader reads .npz archives: each member read is a part.
type npzReader struct {
	c       *job.Component
	members []string
	files   handles[*npyio.NPZReader] // each archive's directory, read once
}

func (r *npzReader) closeHandles() { r.files.close() }

func newNPZReader(c *job.Component) (fileReader, error) {
	return &npzReader{c: c, members: job.Options[npzSourceOpts](c).Members}, nil
}

func (r *npzReader) pickHint() string { return "--member NAME" }

// openNPZ opens an archive, and the file to close; errors reading it
// name the file.
func openNPZ(ctx context.Context, path string) (*npyio.NPZReader, storage.File, error) {
	f, err := storage.Open(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	z, err := npyio.NewNPZReader(f, f.Size(), nil)
	if err != nil {
		f.Close()
		return nil, nil, &FileError{Path: path, Err: err}
	}
	return z, f, nil
}

// npzHandle opens an archive and reads its directory (openNPZ).
func npzHandle(ctx context.Context, path string) (*npyio.NPZReader, io.Closer, error) {
	return openNPZ(ctx, path)
}

func (r *npzReader) parts(ctx context.Context, s *fileSource, path string) ([]partHead, error) {
	z, release, err := r.files.get(ctx, path, npzHandle)
	if err != nil {
		return nil, err
	}
	defer release()
	keys := r.members
	if len(keys) == 0 {
		keys = z.Keys()
	}
	var out []partHead
	for i, k := range keys {
		mem := z.Member(k)
		if mem == nil {
			return nil, &dataError{pos: r.c.PosOfItem("members", i), path: r.c.Path() + ".members",
				err: fmt.Errorf("%s has no member %q%s (members: %s)", path, k, suggest.DidYouMean(k, z.Keys()), strings.Join(z.Keys(), ", "))}
		}
		h, err := mem.ReadHeader()
		if errors.Is(err, npyio.ErrNotNPY) {
			if s.table && len(r.members) == 0 {
				continue // np.load returns such members as raw bytes
			}
			// A copy of the archive would silently lose it.
			return nil, &FileError{Path: path, Err: fmt.Errorf("member %q is not an npy array (np.load returns it as raw bytes); npyflow copies only arrays: pick members with --member", mem.Name)}
		}
		if err != nil {
			return nil, &FileError{Path: path, Err: err}
		}
		out = append(out, partHead{member: mem.Key, header: h})
	}
	if len(out) == 0 {
		return nil, &FileError{Path: path, Err: errors.New("the archive has no .npy members")}
	}
	return out, nil
}

func (r *npzReader) openNPY(ctx context.Context, _ *fileSource, p *Part) (*npyio.Reader, io.Closer, error) {
	z, release, err := r.files.get(ctx, p.Path, npzHandle)
	if err != nil {
		return nil, nil, err
	}
	m := z.Member(p.Member)
	if m == nil {
		release()
		return nil, nil, fmt.Errorf("%s: member %q disappeared", p.Path, p.Member)
	}
	rd, err := m.Open()
	if err != nil {
		release()
		return nil, nil, &FileError{Path: p.Path, Err: err}
	}
	return rd, releaseCloser(release), nil
}

func buildNPZSink(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	o := job.Options[npzSinkOpts](c)
	s, err := newMemberSink(c, in, env, "member", o.Member, func(s *memberSink, f *sinkFile) (arrayFile, error) {
		return &npzArchive{z: npyio.NewNPZWriter(f, o.Compressed)}, nil
	})
	if err != nil {
		return nil, err
	}
	s.stored = true
	return s, nil
}

// npzArchive is an .npz being written, as an arrayFile.
type npzArchive struct{ z *npyio.NPZWriter }

func (f *npzArchive) create(name string, h *npyio.Header) (arrayWriter, error) {
	w, err := f.z.Create(name, h)
	if err != nil {
		return nil, err
	}
	return npyArrayWriter{w}, nil
}

func (f *npzArchive) close() error { return f.z.Close() }

// npyArrayWriter is an npyio.Writer as an arrayWriter.
type npyArrayWriter struct{ w *npyio.Writer }

func (w npyArrayWriter) Write(rows []byte) error {
	_, err := w.w.Write(rows)
	return err
}

func (w npyArrayWriter) Close() error { return w.w.Close() }
