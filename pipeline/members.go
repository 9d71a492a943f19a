package pipeline

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
	"github.com/npyflow/npyflow/pipeline/job"
)

// Archive sinks (npz, mat, hdf5): one file per part or for all, holding
// one named array (an .npz member, a MAT-file variable, an HDF5 dataset)
// per input part or one for all, named by a template. An array whose row
// count the plan knows is written as its rows arrive; otherwise it is
// spooled to a scratch file until its rows are known (an array's header
// comes first in every format). With split_fields (npz) each field of a
// record input is its own array, named by the field.

// arrayFile is an archive of named arrays being written.
type arrayFile interface {
	// create starts the array name with header h (its rows in C order);
	// the previous one is closed.
	create(name string, h *npyio.Header) (arrayWriter, error)
	close() error
}

// arrayWriter writes one array's rows.
type arrayWriter interface {
	Write(rows []byte) error
	Close() error
}

// memberSink is an archive sink.
type memberSink struct {
	*fileSink
	name    *template
	field   string // the name option: "member", "variable" or "dataset"
	split   bool   // split_fields: one array per field of the records
	stored  bool   // arrays may be written as stored (npz: Fortran order)
	newFile func(f *sinkFile) (arrayFile, error)
	// check checks the arrays' names before anything is written.
	check func(names []string) error
}

func newMemberSink(c *job.Component, in *Schema, env *buildEnv, field, name string, newFile func(s *memberSink, f *sinkFile) (arrayFile, error)) (*memberSink, error) {
	fs, err := newFileSink(c, in, env)
	if err != nil {
		return nil, err
	}
	t, _, err := parseTemplate(name)
	if err != nil {
		return nil, c.Errorf(field, "%v", err)
	}
	s := &memberSink{fileSink: fs, name: t, field: field}
	if sp, ok := c.Opts().(splitSink); ok && sp.splitFields() {
		// Records split into their fields; other rows are one array.
		s.split = in.DType.Kind == npyio.Struct
	}
	s.newFile = func(f *sinkFile) (arrayFile, error) { return newFile(s, f) }
	fs.open = func(f *sinkFile, _ *Part) (batchWriter, error) {
		af, err := s.newFile(f)
		if err != nil {
			return nil, err
		}
		return &memberWriter{s: s, file: af, keys: map[string]bool{}}, nil
	}
	return s, nil
}

func (s *memberSink) takesStored() bool { return s.stored }

// acceptsMixed: parts of different schemas, each its own array.
func (s *memberSink) acceptsMixed() bool { return s.name.perPart() && !s.split }

// onePerArray reports whether each array gets one part.
func (s *memberSink) onePerArray() bool {
	return s.name.perPart() || s.path.perPart() || s.nparts == 1
}

// arrayName is the array name of a part (of vars): an empty name is the
// input file's stem.
func (s *memberSink) arrayName(vars map[string]string) (string, error) {
	n, err := s.name.render(vars)
	if err != nil {
		return "", s.c.Errorf(s.field, "%v", err)
	}
	if n == "" {
		n = vars["stem"]
	}
	return n, nil
}

// plannedPaths also checks the array names (a MAT-file's before
// anything is written).
func (s *memberSink) plannedPaths(parts []*Part) ([]string, error) {
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
		if n, _ := s.name.render(nil); n != "" {
			names = append(names, n)
		}
	}
	if s.split {
		names = rowbytes.FieldNames(s.schema.DType)
	}
	if s.check != nil {
		if err := s.check(names); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

func (s *memberSink) Begin(p *Part) error {
	if err := s.fileSink.Begin(p); err != nil {
		return err
	}
	name, err := s.arrayName(p.Vars)
	if err != nil {
		return err
	}
	w, err := s.writer()
	if err != nil {
		return err
	}
	return w.(*memberWriter).begin(name, p)
}

// copies: a part whose array goes as stored (fortran_order), alone in its
// array.
func (s *memberSink) copies(src source, p *Part) bool {
	as, ok := src.(*fileSource)
	return ok && s.stored && s.direct && !s.split && s.onePerArray() && as.copiesArray(p)
}

func (s *memberSink) copyPart(ctx context.Context, src source, p *Part, progress func(int64)) (bool, int64, error) {
	w, err := s.writer()
	if err != nil {
		return false, 0, err
	}
	mw := w.(*memberWriter)
	err = src.(*fileSource).copyArray(ctx, p, s.curP, mw.key, func(h *npyio.Header) (arrayWriter, error) {
		aw, err := mw.file.create(mw.key, h)
		mw.created = err == nil
		return aw, err
	})
	if err != nil {
		return false, 0, err
	}
	s.st.Rows += p.Rows
	progress(p.Rows)
	return true, p.Rows, nil
}

// memberWriter writes one archive file: its arrays one after another.
type memberWriter struct {
	s       *memberSink
	file    arrayFile
	keys    map[string]bool
	key     string // the array being written
	open    bool   // key's array has begun
	created bool   // and was created in the file (direct or by a copy)
	aw      arrayWriter
	spools  []*os.File // its rows (one per field with split_fields) until they are known
	rows    int64
	parts   int  // parts in the array
	zeroD   bool // every part of the array is 0-d
	first   *Part
}

// begin starts part p of the array name: a new array unless it is the
// current one.
func (w *memberWriter) begin(name string, p *Part) error {
	if name == w.key && w.open {
		w.parts++
		w.zeroD = w.zeroD && p != nil && p.zeroD
		return nil
	}
	if err := w.end(); err != nil {
		return err
	}
	if w.keys[name] && !w.s.split {
		return fmt.Errorf("%s: %s %q written twice", w.s.c.Path(), w.s.field, name)
	}
	w.keys[name] = true
	w.key, w.open, w.created, w.aw, w.rows, w.parts, w.zeroD, w.first = name, true, false, nil, 0, 1, p != nil && p.zeroD, p
	return nil
}

// schema is the schema of the current array's rows.
func (w *memberWriter) schema() *Schema { return partSchema(w.s.schema, w.first) }

// dtype is the current array's dtype: as stored, when it is one part.
func (w *memberWriter) dtype() *npyio.DType {
	return storedDType(w.s.schema, w.first, w.s.stored && w.s.onePerArray())
}

// header is the current array's header for rows rows from parts parts.
func (w *memberWriter) header(rows int64, parts int) *npyio.Header {
	sc := w.schema()
	h := &npyio.Header{DType: w.dtype(), Shape: append([]int{int(rows)}, sc.Shape...)}
	if w.s.zeroD && parts == 1 && w.zeroD && rows == 1 && len(sc.Shape) == 0 {
		h.Shape = []int{} // one 0-d input: a 0-d array, as numpy wrote it
	}
	return h
}

// knownRows returns the rows of the current array and of how many parts,
// if the plan knows them.
func (w *memberWriter) knownRows() (rows int64, parts int, ok bool) {
	switch {
	case !w.s.known || w.s.split || w.first == nil:
		return 0, 0, false
	case w.s.name.perPart() || w.s.path.perPart():
		return w.first.Rows, 1, true
	}
	return w.s.total, w.s.nparts, true // every part goes to the one array
}

func (w *memberWriter) Write(b Batch) error {
	if !w.open {
		n, _ := w.s.name.render(nil)
		if err := w.begin(n, w.s.first); err != nil {
			return err
		}
	}
	if !w.created && w.spools == nil {
		if rows, parts, ok := w.knownRows(); ok {
			aw, err := w.file.create(w.key, w.header(rows, parts))
			if err != nil {
				return fmt.Errorf("%s: %w", w.key, err)
			}
			w.aw, w.created = aw, true
		} else if err := w.spool(); err != nil {
			return err
		}
	}
	w.rows += int64(b.Rows)
	if w.aw != nil {
		if err := w.aw.Write(b.Data); err != nil {
			return fmt.Errorf("%s: %w", w.key, err)
		}
		return nil
	}
	if !w.s.split {
		_, err := w.spools[0].Write(b.Data)
		return err
	}
	sc := w.schema()
	recs := b.Rows * int(prod(sc.Shape)) // records: a row may hold several
	size := sc.DType.Size
	for i, f := range sc.DType.Fields {
		sz := f.Size()
		buf := make([]byte, recs*sz)
		for r := 0; r < recs; r++ {
			copy(buf[r*sz:(r+1)*sz], b.Data[r*size+f.Offset:])
		}
		if _, err := w.spools[i].Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// spool opens the scratch files of the current array.
func (w *memberWriter) spool() error {
	n := 1
	if w.s.split {
		n = len(w.schema().DType.Fields)
	}
	for range n {
		f, err := w.s.env.out.scratchNear(w.s.curP)
		if err != nil {
			return err
		}
		w.spools = append(w.spools, f)
	}
	return nil
}

// end finishes the current array: an array without rows is still
// written; a spooled one is copied in now.
func (w *memberWriter) end() error {
	if !w.open {
		return nil
	}
	w.open = false
	if w.created {
		if w.aw == nil {
			return nil // written by a copy
		}
		if err := w.aw.Close(); err != nil {
			return fmt.Errorf("%s: %w", w.key, err)
		}
		return nil
	}
	spools := w.spools
	w.spools = nil
	defer func() {
		for _, f := range spools {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if !w.s.split {
		return w.copyIn(w.key, w.header(w.rows, w.parts), spools, 0)
	}
	sc := w.schema()
	for i, fd := range w.dtype().Fields {
		h := &npyio.Header{DType: fd.Type, Shape: append(append([]int{int(w.rows)}, sc.Shape...), fd.Shape...)}
		if err := w.copyIn(fd.Name, h, spools, i); err != nil {
			return err
		}
	}
	return nil
}

// copyIn writes the array name of header h from the rows spooled in
// spools[i] (none if there is no such file).
func (w *memberWriter) copyIn(name string, h *npyio.Header, spools []*os.File, i int) error {
	aw, err := w.file.create(name, h)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return writeStored(w.s.env.ctx, aw, h, name, func(context.Context) (io.ReadCloser, error) {
		if i >= len(spools) {
			return io.NopCloser(strings.NewReader("")), nil
		}
		_, err := spools[i].Seek(0, io.SeekStart)
		return io.NopCloser(spools[i]), err
	})
}

func (w *memberWriter) Close() error {
	if len(w.keys) == 0 {
		// No input: an archive with one empty array.
		n, _ := w.s.name.render(nil)
		if n == "" {
			n = "arr_0"
		}
		if err := w.begin(n, w.s.first); err != nil {
			return err
		}
	}
	if err := w.end(); err != nil {
		return err
	}
	return w.file.close()
}
