package pipeline

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/inspect"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The HDF5 format, on the pure-Go hdf5 package: every dataset is an
// array named by its path (container.go reads them); the sink writes one
// dataset per part or for all, creating the groups of its path.

var hdf5Format = &Format{
	Name: "hdf5", Exts: []string{".h5", ".hdf5", ".he5"}, Summary: "HDF5 file (h5py, pure-Go reader and writer)",
	Magic:   []Magic{{Prefix: "\x89HDF\r\n\x1a\n", UserBlock: true}},
	Archive: true,
	Source: fileSourceSpec("read datasets of HDF5 files",
		"Reads datasets of HDF5 files (h5py, MATLAB v7.3, hdf5storage) through the pure-Go hdf5 package, in row batches. Each dataset is one input part, its member the path without the leading slash (group/data). Types map as h5py maps them: compound to structured, enum to its base integer, fixed strings to S, variable-length strings to S/U of the longest value; references, opaque, time and variable-length sequences are refused (skipped with a warning when every dataset is read).",
		func(c *job.Component) (fileReader, error) {
			return &containerReader{list: hdf5Members, pick: c.Strings("datasets"), hint: "--dataset /PATH"}, nil
		},
		job.Field{Name: "datasets", Type: job.StringList, Doc: "the dataset paths to read, /group/data (default: every dataset npyflow can read)",
			Flag: "dataset", FlagType: &flagString, FlagDoc: "use only this dataset of the HDF5 file (/group/data)"},
		tableField("datasets")),
	Sink: &job.Spec{Kind: job.Sink, Summary: "write an HDF5 file",
		Doc: "Writes an HDF5 file h5py and h5dump read: one dataset per input part or one for all (dataset, a path: group/data creates the groups), chunked and deflated unless compressed is false.",
		Fields: append(fileSinkFields(),
			job.Field{Name: "dataset", Type: job.String, Default: "{member}", Check: checkTemplate, Flag: "name", ConvertDefault: "{array}",
				Doc: "the dataset path; with {stem} etc. in it, one dataset per input part; an empty name (a plain .npy has no {member}) is the input file's stem"},
			compressedField("chunk and deflate datasets (level 4, with shuffle)", "HDF5")),
		Impl: builder(buildHDF5Sink)},
	Inspect: func(_ context.Context, f storage.File, name string, _ *job.Component) (inspect.Info, error) {
		return inspect.HDF5(f, f.Size(), name)
	},
}

// compressedField is the compressed option of the mat and hdf5 sinks,
// whose flag is --compression deflate|none.
func compressedField(doc, format string) job.Field {
	return job.Field{Name: "compressed", Type: job.Bool, Default: true, Doc: doc,
		Flag: "compression", FlagType: &flagString, FlagDoc: "deflate (the default) or none",
		FlagValue: func(text string) (any, error) {
			switch strings.ToLower(text) {
			case "", "deflate", "zlib", "gzip":
				return true, nil
			case "none", "uncompressed":
				return false, nil
			}
			return nil, fmt.Errorf("--compression %q is not available for %s (deflate or none)", text, format)
		}}
}

func buildHDF5Sink(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	s, err := newMemberSink(c, in, env, "dataset", func(_ *memberSink, f *sinkFile) (arrayFile, error) {
		w, err := hdf5.NewWriter(f, nil)
		if err != nil {
			return nil, err
		}
		return &hdf5File{w: w, groups: map[string]*hdf5.GroupWriter{}, compressed: c.Bool("compressed")}, nil
	})
	if err != nil {
		return nil, err
	}
	s.seekable = func() bool { return true } // the writer patches sizes anywhere
	return s, nil
}

// hdf5File is an HDF5 file being written, as an arrayFile: a dataset
// named group/data is created in its groups.
type hdf5File struct {
	w          *hdf5.Writer
	groups     map[string]*hdf5.GroupWriter // by path, created
	compressed bool
}

func (f *hdf5File) create(name string, h *npyio.Header) (arrayWriter, error) {
	path := strings.Split(strings.Trim(name, "/"), "/")
	g := f.w.Root()
	for i, p := range path[:len(path)-1] {
		key := strings.Join(path[:i+1], "/")
		if f.groups[key] == nil {
			ng, err := g.CreateGroup(p)
			if err != nil {
				return nil, err
			}
			f.groups[key] = ng
		}
		g = f.groups[key]
	}
	shape := make([]uint64, len(h.Shape))
	for k, d := range h.Shape {
		shape[k] = uint64(d)
	}
	var o *hdf5.DatasetOptions
	if f.compressed && len(shape) > 0 && h.DataSize() > hdf5.CompactAuto {
		o = &hdf5.DatasetOptions{Deflate: 4, Shuffle: true}
	}
	return g.CreateDataset(path[len(path)-1], h.DType, shape, o)
}

func (f *hdf5File) close() error { return f.w.Close() }

// containerReader reads HDF5 files and MAT-files: each array read is a
// part (see container.go).
type containerReader struct {
	// list lists the arrays picked (all when pick is empty) of the file
	// r of size bytes, named name, warning about those it skips.
	list    func(name string, r io.ReaderAt, size int64, pick []string, warn func(string)) ([]containerMember, error)
	pick    []string
	hint    string // how to pick one array: "--dataset /PATH"
	fortran bool   // fortran_order: matrices go to .npy as stored
	// asStored are the parts that go as stored (fortran_order), by
	// path and member, with their stored headers.
	asStored map[[2]string]*npyio.Header
}

func (r *containerReader) pickHint() string { return r.hint }

func (r *containerReader) parts(ctx context.Context, s *fileSource, path string) ([]partHead, error) {
	f, err := storage.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	members, err := r.list(path, f, f.Size(), r.pick, s.warn)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	var out []partHead
	for _, m := range members {
		h := *m.header
		h.FortranOrder = false // rows arrive in C order
		out = append(out, partHead{member: m.name, header: &h})
		if r.fortran && fortranMember(m) {
			if r.asStored == nil {
				r.asStored = map[[2]string]*npyio.Header{}
			}
			r.asStored[[2]string{path, m.name}] = m.header
		}
	}
	return out, nil
}

// member opens the file of part p and finds its array; close closes the
// file.
func (r *containerReader) member(ctx context.Context, p *Part) (containerMember, io.Closer, error) {
	f, err := storage.Open(ctx, p.Path)
	if err != nil {
		return containerMember{}, nil, err
	}
	members, err := r.list(p.Path, f, f.Size(), []string{p.Member}, func(string) {})
	if err != nil {
		f.Close()
		return containerMember{}, nil, &FileError{Path: p.Path, Err: err}
	}
	for _, m := range members {
		if m.name == p.Member {
			return m, f, nil
		}
	}
	f.Close()
	return containerMember{}, nil, fmt.Errorf("%s: %q disappeared", p.Path, p.Member)
}

func (r *containerReader) openNPY(ctx context.Context, _ *fileSource, p *Part) (*npyio.Reader, io.Closer, error) {
	m, f, err := r.member(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	rd, rc, err := memberReader(m)
	if err != nil {
		f.Close()
		return nil, nil, &FileError{Path: p.Path, Err: err}
	}
	return rd, closers{rc, f}, nil
}

func (r *containerReader) stores() bool { return r.fortran }

// stored returns a Fortran-order matrix as stored (fortran_order).
func (r *containerReader) stored(p *Part) (*npyio.Header, func(context.Context) (io.ReadCloser, error), bool) {
	h := r.asStored[[2]string{p.Path, p.Member}]
	if h == nil {
		return nil, nil, false
	}
	open := func(ctx context.Context) (io.ReadCloser, error) {
		m, f, err := r.member(ctx, p)
		if err != nil {
			return nil, err
		}
		rc, err := m.open()
		if err != nil {
			f.Close()
			return nil, err
		}
		return struct {
			io.Reader
			io.Closer
		}{rc, closers{rc, f}}, nil
	}
	return h, open, true
}
