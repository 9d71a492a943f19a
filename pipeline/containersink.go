package pipeline

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/matfile"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The mat and hdf5 job sinks: like the npz sink, one array (a MAT-file
// variable, an HDF5 dataset) per input part or one for all, each spooled
// to a scratch file until its row count is known, then written.

type containerSink struct {
	*fileSink
	name  *template
	field string // "variable" or "dataset"
	zeroD bool
}

func (s *containerSink) keepZeroD([]*Part) { s.zeroD = true }

// arrayName is the variable or dataset name of a part.
func (s *containerSink) arrayName(vars map[string]string) (string, error) {
	n, err := s.name.render(vars)
	if err != nil {
		return "", s.c.Errorf(s.field, "%v", err)
	}
	if n == "" {
		n = vars["stem"]
	}
	return n, nil
}

func buildMATSink(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	s, err := newContainerSink(c, in, env, "variable")
	if err != nil {
		return nil, err
	}
	s.open = func(f io.WriteSeeker) (batchWriter, error) {
		mw, err := matfile.NewWriter(f, &matfile.WriteOptions{
			Version:       c.String("version"),
			NoCompression: !c.Bool("compressed"),
			RenameInvalid: c.Bool("rename_invalid"),
			TempDir:       s.scratchDir(), // large v7 variables are laid out there
			OnRename: func(r matfile.Rename) {
				warnf("%s: renamed %q to %q (not a valid MATLAB name)", c.Path(), r.Old, r.New)
			},
		})
		if err != nil {
			return nil, err
		}
		return &containerWriter{s: s, schema: in, keys: map[string]bool{},
			create: func(name string, h *npyio.Header) (rowSink, error) { return mw.CreateVariable(name, h) },
			finish: mw.Close}, nil
	}
	return s, nil
}

func buildHDF5Sink(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	s, err := newContainerSink(c, in, env, "dataset")
	if err != nil {
		return nil, err
	}
	s.open = func(f io.WriteSeeker) (batchWriter, error) {
		w, err := hdf5.NewWriter(f, nil)
		if err != nil {
			return nil, err
		}
		group := h5Groups(w.Root())
		return &containerWriter{s: s, schema: in, keys: map[string]bool{},
			create: func(name string, h *npyio.Header) (rowSink, error) {
				name = strings.Trim(name, "/")
				dir, base := "", name
				if k := strings.LastIndexByte(name, '/'); k >= 0 {
					dir, base = name[:k], name[k+1:]
				}
				g, err := group(dir)
				if err != nil {
					return nil, err
				}
				shape := make([]uint64, len(h.Shape))
				for k, d := range h.Shape {
					shape[k] = uint64(d)
				}
				var o *hdf5.DatasetOptions
				if c.Bool("compressed") && len(shape) > 0 && h.DataSize() > hdf5.CompactAuto {
					o = &hdf5.DatasetOptions{Deflate: 4, Shuffle: true}
				}
				return g.CreateDataset(base, h.DType, shape, o)
			},
			finish: w.Close}, nil
	}
	return s, nil
}

func newContainerSink(c *job.Component, in *Schema, env *buildEnv, field string) (*containerSink, error) {
	fs, err := newFileSink(c, in, env)
	if err != nil {
		return nil, err
	}
	t, _, err := parseTemplate(c.String(field))
	if err != nil {
		return nil, c.Errorf(field, "%v", err)
	}
	// MAT and HDF5 writers patch sizes and offsets anywhere in the file.
	fs.seekable = func() bool { return true }
	return &containerSink{fileSink: fs, name: t, field: field}, nil
}

// h5Groups returns a function giving the group at a relative path under
// root, creating the missing ones.
func h5Groups(root *hdf5.GroupWriter) func(p string) (*hdf5.GroupWriter, error) {
	groups := map[string]*hdf5.GroupWriter{"": root}
	var group func(p string) (*hdf5.GroupWriter, error)
	group = func(p string) (*hdf5.GroupWriter, error) {
		if g := groups[p]; g != nil {
			return g, nil
		}
		parent, base := "", p
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			parent, base = p[:i], p[i+1:]
		}
		pg, err := group(parent)
		if err != nil {
			return nil, err
		}
		g, err := pg.CreateGroup(base)
		if err != nil {
			return nil, err
		}
		groups[p] = g
		return g, nil
	}
	return group
}

// plannedPaths also checks the array names: MATLAB names are checked
// before anything is written (and renamed with rename_invalid).
func (s *containerSink) plannedPaths(parts []*Part) ([]string, error) {
	paths, err := s.fileSink.plannedPaths(parts)
	if err != nil {
		return nil, err
	}
	var names []string
	seen := map[string]bool{}
	for _, p := range parts {
		n, err := s.arrayName(p.Vars)
		if err != nil {
			return nil, err
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	if len(parts) == 0 {
		n, _ := s.name.render(nil)
		if n != "" {
			names = append(names, n)
		}
	}
	if s.c.Type == "mat" {
		// The writer renames (rename_invalid) and reports each rename.
		if _, _, err := matfile.CheckNames(names, s.c.Bool("rename_invalid")); err != nil {
			return nil, s.c.Errorf(s.field, "%v (set rename_invalid: true)", err)
		}
	}
	return paths, nil
}

func (s *containerSink) Begin(p *Part) error {
	if err := s.fileSink.Begin(p); err != nil {
		return err
	}
	name, err := s.arrayName(p.Vars)
	if err != nil {
		return err
	}
	w := s.cur.(*containerWriter)
	if err := w.startMember(name); err != nil {
		return err
	}
	w.parts++
	w.zeroD = w.zeroD && p.zeroD
	return nil
}

type containerWriter struct {
	s      *containerSink
	create func(name string, h *npyio.Header) (rowSink, error)
	finish func() error
	key    string
	spool  *os.File
	rows   int64
	keys   map[string]bool
	schema *Schema
	parts  int
	zeroD  bool
}

func (w *containerWriter) startMember(key string) error {
	if key == w.key && w.spool != nil {
		return nil
	}
	if err := w.endMember(); err != nil {
		return err
	}
	if w.keys[key] {
		return fmt.Errorf("%s: %s %q written twice", w.s.c.Path(), w.s.field, key)
	}
	w.keys[key] = true
	f, err := w.s.env.out.scratchNear(w.s.curP)
	if err != nil {
		return err
	}
	w.key, w.spool, w.rows, w.parts, w.zeroD = key, f, 0, 0, true
	return nil
}

func (w *containerWriter) endMember() error {
	if w.spool == nil {
		return nil
	}
	f := w.spool
	w.spool = nil
	defer func() { f.Close(); os.Remove(f.Name()) }()
	h := &npyio.Header{DType: w.schema.DType, Shape: append([]int{int(w.rows)}, w.schema.Shape...)}
	if w.s.zeroD && w.parts == 1 && w.zeroD && w.rows == 1 && len(w.schema.Shape) == 0 {
		h.Shape = []int{}
	}
	vw, err := w.create(w.key, h)
	if err != nil {
		return fmt.Errorf("%s: %w", w.key, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	row := int(w.schema.RowSize())
	if row > 0 {
		buf := make([]byte, max(1, (4<<20)/row)*row)
		for {
			n, err := io.ReadFull(f, buf)
			if n > 0 {
				if werr := vw.Write(buf[:n-n%row]); werr != nil {
					return fmt.Errorf("%s: %w", w.key, werr)
				}
			}
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			if err != nil {
				return err
			}
		}
	}
	if err := vw.Close(); err != nil {
		return fmt.Errorf("%s: %w", w.key, err)
	}
	return nil
}

func (w *containerWriter) Write(b Batch) error {
	if w.spool == nil {
		n, _ := w.s.name.render(nil)
		if err := w.startMember(n); err != nil {
			return err
		}
	}
	w.rows += int64(b.Rows)
	_, err := w.spool.Write(b.Data)
	return err
}

func (w *containerWriter) Close() error {
	if err := w.endMember(); err != nil {
		return err
	}
	return w.finish()
}
