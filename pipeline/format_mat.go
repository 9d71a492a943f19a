package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/matfile"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/format"
	"github.com/npyflow/npyflow/pipeline/inspect"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The MAT-file format (v7.3 through the hdf5 package, v7 and v6 Level 5),
// on package matfile: every array of every variable is an array named by
// its MATLAB path (container.go reads them); the sink writes one variable
// per part or for all, a table as a 1x1 struct of column vectors.

var matFormat = &Format{
	Name: "mat", Exts: []string{".mat"}, Summary: "MATLAB MAT-file (v7.3 HDF5, v7 and v6 Level 5)",
	Magic: []Magic{{Prefix: "MATLAB"}},
	Caps:  format.Caps{Archive: true, Seeks: format.SeeksAlways}, // the writer patches sizes anywhere
	Source: fileSourceSpec("read variables of MATLAB MAT-files",
		"Reads MAT-files (v7.3 through the hdf5 package, v7 and v6 Level 5). Every array of every variable is one input part, its member the MATLAB-style path: x, s.a for a struct field, s(2).a for a struct array element, c{3} for a cell element. Shapes are MATLAB's (at least 2-D), values in MATLAB's order (a[i, j] is a(i+1, j+1)); char arrays become U strings, one per row; sparse matrices become dense. Function handles and objects are skipped with one warning per variable (an error with strict).",
		newMATReader, matSourceOpts{}),
	Sink: &job.Spec{Kind: job.Sink, Summary: "write a MATLAB MAT-file",
		Doc:     "Writes MAT-files MATLAB, scipy and hdf5storage read: one variable per input part or one for all (variable). Numeric classes keep their type, bool is logical, strings are char, a structured array (a table) is a 1x1 struct of column vectors. Names that are not valid MATLAB identifiers are refused before anything is written, or renamed with rename_invalid.",
		Options: matSinkOpts{}, Impl: builder(buildMATSink)},
	Inspect: func(_ context.Context, f storage.File, name string, _ *job.Component) (inspect.Info, error) {
		return inspect.MAT(f, f.Size(), name)
	},
}

func newMATReader(c *job.Component) (fileReader, error) {
	o := job.Options[matSourceOpts](c)
	r := &matReader{strict: o.Strict, table: o.Table, nulls: o.Nulls, validity: o.Validity,
		meta: map[[2]string]map[string]*FieldMeta{}}
	r.containerReader = &containerReader{list: r.list, pick: o.Variables, hint: "--variable NAME", fortran: o.FortranOrder}
	return r, nil
}

// matReader reads MAT-files as archives of arrays (containerReader), a
// table, timetable, map or dictionary as one structured array, and in
// table mode a lone 1x1 struct of columns (struct2table's layout) as one
// table too. It records what numpy cannot say of each array (time
// zones, categories, validity fields) for the schema.
type matReader struct {
	*containerReader
	strict, table, nulls bool
	validity             []string // table columns that get a validity field ("*": all)

	mu   sync.Mutex
	meta map[[2]string]map[string]*FieldMeta // by file and member
}

func (r *matReader) parts(ctx context.Context, s *fileSource, path string) ([]partHead, error) {
	heads, err := r.containerReader.parts(ctx, s, path)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range heads {
		heads[i].meta = r.meta[[2]string{path, heads[i].member}]
	}
	return heads, nil
}

// list lists the arrays of the MAT-file r (of size bytes, named name)
// picked by pick (every one when empty), warning about those it skips;
// v7.3 variables are read on threads goroutines (0: GOMAXPROCS).
func (r *matReader) list(name string, rd io.ReaderAt, size int64, pick []string, warn func(string), threads int) ([]containerMember, error) {
	mf, err := matfile.Open(rd, size, &matfile.Options{Strict: r.strict, Threads: threads, Warn: func(w matfile.Warning) {
		warn(fmt.Sprintf("%s: %s", name, w))
	}})
	if err != nil {
		return nil, err
	}
	walk, err := validityBases(mf, pick)
	if err != nil {
		return nil, err
	}
	var out, valid []containerMember
	var validOf []string // the array of each validity member
	meta := map[string]map[string]*FieldMeta{}
	err = mf.WalkVariables(matTops(walk), func(path string, v *matfile.Var) error {
		if len(walk) > 0 && !matPicked(path, walk) {
			return nil
		}
		m := containerMember{name: path, header: v.Header, open: v.Open, openC: v.OpenRowMajor}
		switch {
		case v.Meta != nil && v.Meta.Table != nil:
			m, meta[path] = r.tableMember(path, v.Meta.Table)
		case v.Meta != nil && (v.Meta.TimeZone != "" || v.Meta.Categories != nil):
			meta[path] = map[string]*FieldMeta{"": {TimeZone: v.Meta.TimeZone, Categories: v.Meta.Categories, Ordered: v.Meta.Ordered}}
		}
		out = append(out, m)
		if vm, ok := r.validityMember(path, v); ok {
			valid = append(valid, vm)
			validOf = append(validOf, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(out))
	for _, m := range out {
		names[m.name] = true
	}
	for i, vm := range valid {
		if names[vm.name] {
			continue // an array of that name: no validity member
		}
		out = append(out, vm)
		names[vm.name] = true
		if r.table {
			meta[vm.name] = map[string]*FieldMeta{"": {ValidityOf: validOf[i]}}
		}
	}
	if !slices.Equal(walk, pick) { // a validity member picked: only what was asked
		out = slices.DeleteFunc(out, func(m containerMember) bool { return !matPicked(m.name, pick) })
		for _, m := range out {
			if vm := meta[m.name][""]; vm != nil && vm.ValidityOf != "" && !matPicked(vm.ValidityOf, pick) {
				delete(meta, m.name) // its array is not read alongside
			}
		}
	}
	if top, ok := r.structOfColumns(out, pick); ok {
		t, err := mf.ReadTable(top)
		switch {
		case err == nil:
			m, tm := r.tableMember(top, t)
			out, meta = []containerMember{m}, map[string]map[string]*FieldMeta{top: tm}
		case !errors.Is(err, matfile.ErrNotTable):
			return nil, err
		}
	}
	if len(out) == 0 {
		if len(pick) > 0 {
			return nil, fmt.Errorf("no array %s in the MAT-file", strings.Join(pick, ", "))
		}
		return nil, errors.New("the MAT-file has no variable npyflow can read")
	}
	r.mu.Lock()
	for _, m := range out {
		r.meta[[2]string{name, m.name}] = meta[m.name]
	}
	r.mu.Unlock()
	return out, nil
}

// validityBases is pick with the array of each validity member it names
// (see validityMember) instead of, or (for a top-level variable of that
// name) besides, the member.
func validityBases(mf *matfile.File, pick []string) ([]string, error) {
	var bases []string
	for _, p := range pick {
		if b, ok := strings.CutSuffix(p, "_items_valid"); ok {
			bases = append(bases, b)
		} else if b, ok := strings.CutSuffix(p, "_valid"); ok {
			bases = append(bases, b)
		}
	}
	if len(bases) == 0 {
		return pick, nil
	}
	vars, err := mf.Variables()
	if err != nil {
		return nil, err
	}
	top := map[string]bool{}
	for _, v := range vars {
		top[v.Name] = true
	}
	var out []string
	for _, p := range slices.Concat(pick, bases) {
		if top[matTop(p)] && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if slices.Equal(out, pick) {
		return pick, nil
	}
	return out, nil
}

// validityMember is the validity of a plain (non-table) array v that can
// miss values (string, categorical, calendarDuration), as a bool member
// after the others, false where MATLAB has <missing>, <undefined> or a
// NaN part: in nulls and table mode when v misses a value (a member of
// its own would be a part of another dtype), or when validity names the
// array's path (or is "*"). An array of one element per row (N-by-1)
// gets "<path>_valid" of N rows, the nulls of its rows; a wider one
// "<path>_items_valid" of its own shape, the nulls of its elements. In
// table mode its field metadata makes Arrow and Parquet sinks write
// those values as nulls (see FieldMeta.ValidityOf); other sinks write it
// as a member.
func (r *matReader) validityMember(path string, v *matfile.Var) (containerMember, bool) {
	canMiss := v.Class == "string" || v.Class == "calendarDuration" || v.Meta != nil && v.Meta.Categories != nil
	asked := slices.Contains(r.validity, "*") || slices.Contains(r.validity, path)
	if v.Meta != nil && v.Meta.Table != nil || !(r.nulls && r.table && v.Valid != nil || asked && canMiss) {
		return containerMember{}, false
	}
	h := v.Header
	n := int(h.Count())
	if v.Valid != nil && len(v.Valid) != n {
		return containerMember{}, false
	}
	bytesOf := func(valid []bool) []byte {
		b := make([]byte, n)
		for i := range b {
			if valid == nil || valid[i] {
				b[i] = 1
			}
		}
		return b
	}
	vh := &npyio.Header{DType: npyio.BoolType, Shape: slices.Clone(h.Shape), FortranOrder: h.FortranOrder}
	name := arrowconv.ItemsValidityName(path)
	if len(h.Shape) <= 1 || len(h.Shape) == 2 && h.Shape[1] == 1 {
		vh.Shape, vh.FortranOrder = vh.Shape[:min(len(vh.Shape), 1)], false
		name = arrowconv.ValidityName(path)
	}
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(bytesOf(v.Valid))), nil }
	openC := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(bytesOf(v.ValidRowMajor()))), nil }
	return containerMember{name: name, header: vh, open: open, openC: openC}, true
}

// structOfColumns reports whether the arrays read are the fields of one
// struct variable, picked whole (or the file's only variable), to be read
// as one table: in table mode only, where the fields become columns.
func (r *matReader) structOfColumns(out []containerMember, pick []string) (string, bool) {
	if !r.table || len(out) == 0 {
		return "", false
	}
	top := matTop(out[0].name)
	if len(pick) > 1 || len(pick) == 1 && pick[0] != top {
		return "", false
	}
	for _, m := range out {
		if !strings.HasPrefix(m.name, top+".") {
			return "", false
		}
	}
	return top, true
}

// tableMember is a table read whole as one member: a structured array of
// its columns. A column that can miss values (string, categorical,
// calendarDuration) is followed by a bool field "<name>_valid" (for an
// N-by-k column "<name>_items_valid" of its row shape), false where
// MATLAB has <missing>, <undefined> or a NaN part, when validity names
// it (or is "*"), or in nulls mode when it misses a value (unless the
// table has a column of that name): its field metadata makes Arrow
// sinks write those values as nulls, and Parquet sinks those of a
// scalar column (parquetio has no element nulls in lists: the
// "_items_valid" field is written as it is). Without it the missing
// values are "" (a string or categorical) or zeros (calendarDuration).
func (r *matReader) tableMember(path string, t *matfile.Table) (containerMember, map[string]*FieldMeta) {
	names := map[string]bool{}
	for _, c := range t.Columns {
		names[c.Name] = true
	}
	meta := map[string]*FieldMeta{}
	var cols []*matfile.Column
	for _, c := range t.Columns {
		cols = append(cols, c)
		if c.TimeZone != "" || c.Categories != nil {
			meta[c.Name] = &FieldMeta{TimeZone: c.TimeZone, Categories: c.Categories, Ordered: c.Ordered}
		}
		vn, per := arrowconv.ValidityName(c.Name), 1
		if len(c.Shape) > 0 {
			vn = arrowconv.ItemsValidityName(c.Name)
			for _, d := range c.Shape {
				per *= d
			}
		}
		asked := slices.Contains(r.validity, "*") || slices.Contains(r.validity, c.Name)
		switch {
		case c.Columns != nil || names[vn] || c.Valid != nil && len(c.Valid) != t.Rows*per:
			continue
		case asked && (c.Valid != nil || c.Class == "string" || c.Categories != nil || c.Class == "calendarDuration"):
		case !r.nulls || c.Valid == nil:
			continue
		}
		b := make([]byte, t.Rows*per)
		for i := range b {
			if c.Valid == nil || c.Valid[i] {
				b[i] = 1
			}
		}
		cols = append(cols, &matfile.Column{Name: vn, Class: "logical", DType: npyio.BoolType, Shape: slices.Clone(c.Shape), Data: b})
		meta[vn] = &FieldMeta{ValidityOf: c.Name}
	}
	tt := *t
	tt.Columns = cols
	a := tt.Array()
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(a.Data)), nil }
	if len(meta) == 0 {
		meta = nil
	}
	return containerMember{name: path, header: a.Header, open: open, openC: open}, meta
}

func buildMATSink(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	o := job.Options[matSinkOpts](c)
	s, err := newMemberSink(c, in, env, "variable", o.Variable, func(s *memberSink, f *sinkFile) (arrayFile, error) {
		mw, err := matfile.NewWriter(f, &matfile.WriteOptions{
			Version:       o.Version,
			NoCompression: !o.Compressed,
			RenameInvalid: o.RenameInvalid,
			TempDir:       s.scratchDir(), // large v7 variables are laid out there
			Threads:       env.libThreads("mat writer"),
			OnRename: func(r matfile.Rename) {
				env.warn(fmt.Sprintf("%s: renamed %q to %q (not a valid MATLAB name)", storage.Redact(s.curP), r.Old, r.New))
			},
		})
		if err != nil {
			return nil, err
		}
		return &matFile{w: mw}, nil
	})
	if err != nil {
		return nil, err
	}
	// Names are checked before anything is written; the writer renames
	// (rename_invalid) and reports each rename.
	s.check = func(names []string) error {
		if _, _, err := matfile.CheckNames(names, o.RenameInvalid); err != nil {
			return &dataError{pos: c.PosOf("variable"), path: c.Path() + ".variable", err: fmt.Errorf("%w (set rename_invalid: true)", err)}
		}
		return nil
	}
	return s, nil
}

// matFile is a MAT-file being written, as an arrayFile.
type matFile struct{ w *matfile.Writer }

func (f *matFile) create(name string, h *npyio.Header) (arrayWriter, error) {
	return f.w.CreateVariable(name, h)
}

func (f *matFile) close() error { return f.w.Close() }
