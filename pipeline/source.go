package pipeline

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
)

// source is a running source: it knows its parts and opens them.
type source interface {
	Schema() *Schema
	Parts() []*Part
	// open returns a reader of the part's rows in Schema's layout.
	open(p *Part) (partReader, error)
	producer
}

// partReader reads the rows of one part.
type partReader interface {
	// ReadRows fills dst with whole rows and returns how many; 0, io.EOF
	// at the end.
	ReadRows(dst []byte) (int, error)
	Close() error
}

// fileSource is the npy and npz sources.
type fileSource struct {
	c        *Component
	npz      bool
	schema   *Schema // rows delivered, captures included
	file     *Schema // rows in the files
	parts    []*Part
	caps     []capture
	capWidth map[string]int
	wrap     bool // a plain array wrapped as one struct field
	out      fanout
	opts     *npyio.Options
	// columns are the Parquet or Arrow columns read when the job names
	// none: those its consumers need (see projections), so only their
	// column chunks are fetched and mapped.
	columns []string
	push    *pushdown // what the plan pushed down (nil: none)
}

// foreign returns the options of a parquet or arrow source, with the
// projection the plan pushed down.
func (s *fileSource) foreign() *foreignOptions {
	o := foreignFromComponent(s.c)
	if len(o.columns) == 0 {
		o.columns = s.columns
	}
	return o
}

// pushdown is what a parquet or arrow source need not read: the columns
// no consumer needs are not fetched and not mapped, so a column numpy has
// no type for (a MAP, a list of varying length) does not stop a job that
// selects or drops it.
type pushdown struct {
	// keep are the fields the consumers need, when they select fields;
	// nil when they need every field but drop.
	keep []string
	// drop are, with keep nil, the fields no consumer needs.
	drop []string
}

// projections returns, for each parquet or arrow source that names no
// columns itself, the columns its consumers need (see needOf), when
// that is not every column: a keep list (the consumers select fields: a
// select on a bucket's file then fetches only their chunks) or a drop
// list (every column of the file but those).
func projections(job *Job) map[string]*pushdown {
	out := map[string]*pushdown{}
	memo := map[string]need{}
	for _, src := range job.Of(Source) {
		if src.Type != "parquet" && src.Type != "arrow" || len(src.Strings("columns")) > 0 {
			continue
		}
		n := needOf(job, src.Name, memo)
		switch {
		case len(n.set) == 0:
		case n.all:
			out[src.Name] = &pushdown{drop: n.set}
		default:
			out[src.Name] = &pushdown{keep: n.set}
		}
	}
	return out
}

// need is the fields a component's consumers need of its rows: every
// field but set (all), or set alone, in first-seen order.
type need struct {
	all bool
	set []string
}

// union is the fields a or b needs.
func (a need) union(b need) need {
	switch {
	case a.all && b.all:
		return need{all: true, set: slices.DeleteFunc(slices.Clone(a.set), func(f string) bool { return !slices.Contains(b.set, f) })}
	case a.all:
		return need{all: true, set: slices.DeleteFunc(slices.Clone(a.set), func(f string) bool { return slices.Contains(b.set, f) })}
	case b.all:
		return b.union(a)
	}
	set := slices.Clone(a.set)
	for _, f := range b.set {
		if !slices.Contains(set, f) {
			set = append(set, f)
		}
	}
	return need{set: set}
}

// with adds fields to n.
func (n need) with(fields []string) need { return n.union(need{set: fields}) }

// needOf returns the fields of its rows the consumers of component name
// need: a select needs its fields; drop, filter and cast (which keep
// every other field as it is) what their own consumers need, less what a
// drop drops, plus the fields a filter's predicate or a cast names; any
// other consumer (a sink, rename, a transform that reads every field)
// needs every field.
func needOf(job *Job, name string, memo map[string]need) need {
	if n, ok := memo[name]; ok {
		return n
	}
	memo[name] = need{all: true} // a cycle needs everything (topoOrder refuses it anyway)
	var n need
	consumers := 0
	for _, c := range job.Components {
		if !slices.Contains(c.Inputs, name) {
			continue
		}
		var in need
		switch {
		case c.Kind != Transform, len(c.Inputs) > 1: // inputs concatenated keep one schema

			in = need{all: true}
		case c.Type == "select":
			in = need{set: c.Strings("fields")}
		case c.Type == "drop":
			in = needOf(job, c.Name, memo)
			if in.all { // every field but those and the dropped ones
				for _, f := range c.Strings("fields") {
					if !slices.Contains(in.set, f) {
						in.set = append(slices.Clip(in.set), f)
					}
				}
			}
		case c.Type == "filter":
			fields, ok := predicateFields(c.String("where"))
			in = need{all: true}
			if ok {
				in = needOf(job, c.Name, memo).with(fields)
			}
		case c.Type == "cast":
			in = needOf(job, c.Name, memo)
			var fields []string
			for _, kv := range c.Map("fields") {
				fields = append(fields, kv.Key)
			}
			in = in.with(fields)
		default:
			in = need{all: true}
		}
		if consumers == 0 {
			n = in
		} else {
			n = n.union(in)
		}
		consumers++
	}
	if consumers == 0 {
		n = need{all: true}
	}
	memo[name] = n
	return n
}

// predicateFields returns the fields a filter's predicate names.
func predicateFields(where string) ([]string, bool) {
	p, err := parsePredicate(where)
	if err != nil {
		return nil, false
	}
	var out []string
	var walk func(*pred)
	walk = func(e *pred) {
		if e == nil {
			return
		}
		for _, f := range []string{e.field, e.rfield} {
			if f != "" && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
		walk(e.l)
		walk(e.r)
	}
	walk(p)
	return out, true
}

// wrapProjected returns the header of a projection to one column as a
// table of that one field (the bytes of a plain array and of a one-field
// record are the same), so the select above it sees records.
func (s *fileSource) wrapProjected(h *npyio.Header) *npyio.Header {
	if h == nil || len(s.columns) != 1 || h.DType.Kind == npyio.Struct || len(h.Shape) != 1 {
		return h
	}
	dt, err := npyio.NewStruct([]npyio.Field{{Name: s.columns[0], Type: h.DType}})
	if err != nil || dt.Size != h.DType.Size {
		return h
	}
	w := *h
	w.DType = dt
	return &w
}

// sameFields reports whether every field of a is in b, with the same
// type and shape.
func sameFields(a, b *npyio.Header) bool {
	if a == nil || b == nil || a.DType.Kind != npyio.Struct || b.DType.Kind != npyio.Struct {
		return false
	}
	for _, fa := range a.DType.Fields {
		k := fieldIndex(b.DType, fa.Name)
		if k < 0 {
			return false
		}
		fb := b.DType.Fields[k]
		if !fa.Type.Equal(fb.Type) || fmt.Sprint(fa.Shape) != fmt.Sprint(fb.Shape) {
			return false
		}
	}
	return true
}

// fileColumns returns the columns of the file (named all) that give the
// fields keep: a field itself, or the column of a validity field
// ([arrowconv.ValidityName], [arrowconv.ItemsValidityName], read with the
// column); other names are kept, for the projection to fail on and the
// select to report.
func fileColumns(keep, all []string) []string {
	var out []string
	for _, f := range keep {
		c := f
		if stem, ok := strings.CutSuffix(f, arrowconv.ItemsValidityName("")); ok && !slices.Contains(all, f) && slices.Contains(all, stem) {
			c = stem
		} else if stem, ok := strings.CutSuffix(f, arrowconv.ValidityName("")); ok && !slices.Contains(all, f) && slices.Contains(all, stem) {
			c = stem
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// project sets what s need not read (see projections): with a keep list,
// the columns s reads are the fields its consumers keep, less the path
// captures; with drops, firstProjected finds them in the first file.
func (s *fileSource) project(p *pushdown) {
	s.push = p
	if p == nil {
		return
	}
	capt := map[string]bool{}
	for _, c := range s.caps {
		capt[c.Name] = true
	}
	for _, f := range p.keep {
		if !capt[f] {
			s.columns = append(s.columns, f)
		}
	}
}

// firstProjected reads the header of the first file of a source with a
// pushdown, settling the columns read (the file's columns behind the kept
// fields, see fileColumns; with drops, every column but those dropped
// whose validity field is not kept): the projection must map the fields
// as reading every column does (a file npyflow wrote is mapped from its
// metadata then) and hold them all; else every column is read and the
// select or drop says what is missing. When reading every column fails
// (a column numpy has no type for) and the projection does not, the
// projection stands: that column is one no consumer needs. The fields a
// drop's projection leaves out are recorded in env.dropped.
func (s *fileSource) firstProjected(path string, read func(string, *foreignOptions) (*npyio.Header, error), names func(string) ([]string, error), env *buildEnv) (*npyio.Header, error) {
	full := foreignFromComponent(s.c)
	all, err := names(path)
	if err != nil {
		s.columns = nil
		return read(path, full)
	}
	if s.push.keep != nil {
		s.columns = fileColumns(s.columns, all)
	} else {
		validity := s.c.Strings("validity")
		var fullNames []string // the fields of every column read, once needed
		hasItems := func(n string) bool {
			if fullNames == nil {
				fullNames = []string{}
				if fh, err := read(path, full); err == nil && fh.DType.Kind == npyio.Struct {
					for _, f := range fh.DType.Fields {
						fullNames = append(fullNames, f.Name)
					}
				}
			}
			return slices.Contains(fullNames, arrowconv.ItemsValidityName(n))
		}
		for _, n := range all {
			// A column whose validity field (or element validity field,
			// of a list) is kept is read.
			named := slices.Contains(validity, "*") || slices.Contains(validity, n)
			valid := named && slices.Contains(s.push.drop, n) && (!slices.Contains(s.push.drop, arrowconv.ValidityName(n)) || !slices.Contains(s.push.drop, arrowconv.ItemsValidityName(n)) && hasItems(n))
			if !slices.Contains(s.push.drop, n) || valid {
				s.columns = append(s.columns, n)
			}
		}
	}
	var dropped []string
	for _, n := range all {
		if !slices.Contains(s.columns, n) {
			dropped = append(dropped, n)
		}
	}
	if len(dropped) == 0 && s.push.keep == nil || len(s.columns) == 0 {
		s.columns = nil
		return read(path, full)
	}
	h, err := read(path, s.foreign())
	fh, ferr := read(path, full)
	if err != nil || ferr == nil && !sameFields(s.wrapProjected(h), fh) {
		s.columns = nil
		return fh, ferr
	}
	if len(dropped) > 0 {
		if env.dropped == nil {
			env.dropped = map[string][]string{}
		}
		env.dropped[s.c.Name] = dropped
	}
	return s.wrapProjected(h), nil
}

func (s *fileSource) Schema() *Schema   { return s.schema }
func (s *fileSource) Parts() []*Part    { return s.parts }
func (s *fileSource) connect(n node)    { s.out = append(s.out, n) }
func (s *fileSource) consumers() fanout { return s.out }

// fileSource is a source, not a node: these satisfy the graph's plumbing.
func (s *fileSource) Begin(*Part) error { return nil }
func (s *fileSource) Push(Batch) error  { return nil }
func (s *fileSource) End(*Part) error   { return nil }
func (s *fileSource) Finish() error     { return nil }

// dataError is a problem with the input data or files, found while
// planning: it carries the position of the option that led to it, but it
// is a runtime failure, not an invalid job.
type dataError struct {
	pos  Pos
	path string
	err  error
}

func (e *dataError) Error() string { return fmt.Sprintf("%s: %s: %v", e.pos, e.path, e.err) }
func (e *dataError) Unwrap() error { return e.err }

func buildFileSource(c *Component, _ *Schema, env *buildEnv) (node, error) {
	s := &fileSource{c: c, npz: c.Type == "npz", capWidth: map[string]int{}}
	var matches []match
	var caps []capture
	var err error
	if ps := c.Strings("paths"); len(ps) == 1 && ps[0] == StdinName {
		matches, err = env.stdinMatch(c)
	} else {
		matches, caps, err = env.expand(c)
	}
	if err != nil {
		return nil, err
	}
	s.caps = caps
	s.project(env.project[c.Name])
	if planned, ins := env.planned(c.Name); planned != nil {
		// A frozen plan has every input's rows and the files' layout:
		// no file is opened (a shard checks its own when it starts).
		if err := s.addPlanned(planned, ins, env); err != nil {
			return nil, err
		}
		matches = nil
	}
	var members []string
	if s.npz {
		members = c.Strings("members")
	}
	if c.Type == "mat" && c.Bool("fortran_order") {
		return nil, &dataError{pos: c.PosOf("fortran_order"), path: c.Path() + ".fortran_order", err: errors.New("applies to npyflow convert to .npy or .npz only: a job reads rows, in C order")}
	}
	for _, m := range matches {
		if isContainer(c.Type) {
			if err := s.addContainer(m); err != nil {
				return nil, err
			}
			continue
		}
		if s.npz {
			if err := s.addNPZ(m, members, env); err != nil {
				return nil, err
			}
			continue
		}
		read := readNPYHeader
		if c.Type == "parquet" || c.Type == "arrow" {
			withOpts, names := readParquetHeader, parquetColumnNames
			if c.Type == "arrow" {
				withOpts, names = readArrowHeader, arrowColumnNames
			}
			read = func(path string) (*npyio.Header, error) {
				switch {
				case s.push == nil:
					return withOpts(path, s.foreign())
				case len(s.parts) == 0:
					return s.firstProjected(path, withOpts, names, env)
				}
				h, err := withOpts(path, s.foreign())
				return s.wrapProjected(h), err
			}
		}
		h, err := read(m.Path)
		if err != nil {
			return nil, &dataError{pos: c.PosOf("paths"), path: c.Path() + ".paths", err: err}
		}
		if err := s.addPart(m, "", h); err != nil {
			return nil, err
		}
	}
	if len(s.parts) == 0 {
		if !c.Bool("allow_empty") {
			return nil, &dataError{pos: c.PosOf("paths"), path: c.Path() + ".paths", err: errors.New("no input files (set allow_empty: true to allow)")}
		}
		return nil, &dataError{pos: c.PosOf("paths"), path: c.Path() + ".paths", err: errors.New("no input files: the schema is unknown")}
	}
	if err := s.buildSchema(); err != nil {
		return nil, err
	}
	return s, nil
}

// expandPaths expands a source's path patterns less its exclusions, in
// pattern order, sorted within each pattern, without duplicates.
func expandPaths(c *Component) ([]match, []capture, error) {
	var ex []*pattern
	for _, e := range c.Strings("exclude") {
		p := e
		if strings.Contains(e, "/") {
			p = c.resolvePath(e)
		}
		pt, _, err := compilePattern(p, false)
		if err != nil {
			return nil, nil, c.errorf("exclude", "invalid pattern %q: %v", e, err)
		}
		pt.raw = e
		ex = append(ex, pt)
	}
	var caps []capture
	var out []match
	seen := map[string]bool{}
	for i, raw := range c.Strings("paths") {
		pt, _, err := compilePattern(c.resolvePath(raw), true)
		if err != nil {
			return nil, nil, c.itemErrorf("paths", i, "invalid pattern: %v", err)
		}
		if i == 0 {
			caps = pt.caps
		} else if !sameCaptures(caps, pt.caps) {
			return nil, nil, c.itemErrorf("paths", i, "every pattern of a source must have the same captures (%s)", capList(caps))
		}
		ms, err := pt.glob()
		if err != nil {
			return nil, nil, &dataError{pos: c.PosOfItem("paths", i), path: fmt.Sprintf("%s.paths[%d]", c.Path(), i), err: err}
		}
		n := 0
		for _, m := range ms {
			if seen[m.Path] || excluded(m.Path, ex) {
				continue
			}
			seen[m.Path] = true
			out = append(out, m)
			n++
		}
		if n == 0 && !c.Bool("allow_empty") {
			return nil, nil, &dataError{pos: c.PosOfItem("paths", i), path: fmt.Sprintf("%s.paths[%d]", c.Path(), i),
				err: fmt.Errorf("pattern %q matched no files (looked in %s%s; set allow_empty: true to allow)", storage.Redact(raw), storage.Redact(pt.root+pt.query), missingDir(pt.root))}
		}
	}
	return out, caps, nil
}

// missingDir says when dir does not exist.
func missingDir(dir string) string {
	if storage.Scheme(dir) != "" {
		return ""
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return ", which does not exist"
	}
	return ""
}

func sameCaptures(a, b []capture) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func capList(c []capture) string {
	if len(c) == 0 {
		return "none"
	}
	var s []string
	for _, x := range c {
		s = append(s, "{"+x.Name+":"+x.Type+"}")
	}
	return strings.Join(s, ", ")
}

// openFile opens a job input through the storage seam.
func openFile(path string) (storage.File, error) {
	return storage.Open(context.Background(), path)
}

// npzFile is an .npz archive opened through the storage seam, closing
// the file with the reader.
type npzFile struct {
	*npyio.NPZReader
	f storage.File
}

func (z *npzFile) Close() error { return z.f.Close() }

// openNPZ is npyio.OpenNPZ through the storage seam: errors reading the
// archive name the file.
func openNPZ(path string) (*npzFile, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	z, err := npyio.NewNPZReader(f, f.Size(), nil)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &npzFile{NPZReader: z, f: f}, nil
}

func readNPYHeader(path string) (*npyio.Header, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := npyio.ReadHeader(bufio.NewReaderSize(f, 4096), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !h.DType.IsSupported() {
		_, err := npyio.NewReaderAt(f, 1<<62, nil) // reports why
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

func (s *fileSource) addNPZ(m match, members []string, env *buildEnv) error {
	z, err := openNPZ(m.Path)
	if err != nil {
		return &dataError{pos: s.c.PosOf("paths"), path: s.c.Path() + ".paths", err: err}
	}
	defer z.Close()
	keys := members
	if len(keys) == 0 {
		keys = z.Keys()
	}
	for i, k := range keys {
		mem := z.Member(k)
		if mem == nil {
			return &dataError{pos: s.c.PosOfItem("members", i), path: s.c.Path() + ".members",
				err: fmt.Errorf("%s has no member %q%s (members: %s)", m.Path, k, didYouMean(k, z.Keys()), strings.Join(z.Keys(), ", "))}
		}
		h, err := mem.ReadHeader()
		if err != nil {
			return &dataError{pos: s.c.PosOf("paths"), path: s.c.Path() + ".paths", err: fmt.Errorf("%s: %w", m.Path, err)}
		}
		if err := s.addPart(m, mem.Key, h); err != nil {
			return err
		}
	}
	return nil
}

func (s *fileSource) addPart(m match, member string, h *npyio.Header) error {
	fs := &Schema{DType: h.DType.Native(), Shape: append([]int(nil), h.Shape[min(1, len(h.Shape)):]...)}
	where := m.Path
	if member != "" {
		where += ":" + member
	}
	if s.file == nil {
		s.file = fs
	} else if w, ok := widerStrings(s.file, fs); ok && (s.c.Type == "parquet" || s.c.Type == "arrow") {
		s.file = w // string widths from each file's data: read all at the widest
	} else if !s.file.Equal(fs) {
		first := s.parts[0].Path
		if s.parts[0].Member != "" {
			first += ":" + s.parts[0].Member
		}
		return &dataError{pos: s.c.PosOf("paths"), path: s.c.Path() + ".paths",
			err: fmt.Errorf("%s holds %s, but %s holds %s: all inputs of a source must have the same dtype and row shape", where, fs, first, s.file)}
	}
	base := filepath.Base(storage.Path(m.Path))
	vars := map[string]string{
		"source": s.c.Name,
		"name":   base,
		"dir":    filepath.Base(filepath.Dir(storage.Path(m.Path))),
		"stem":   strings.TrimSuffix(base, filepath.Ext(base)),
		"member": member,
		"index":  strconv.Itoa(len(s.parts)),
	}
	for k, v := range m.Caps {
		vars[k] = v
		if w := utf8.RuneCountInString(v); w > s.capWidth[k] {
			s.capWidth[k] = w
		}
	}
	p := &Part{Source: s.c.Name, Index: len(s.parts), Path: m.Path, Member: member, Size: h.DataSize(), Rows: h.Rows(), Vars: vars, zeroD: len(h.Shape) == 0}
	if member == "" {
		p.Size = m.Size
	}
	s.parts = append(s.parts, p)
	return nil
}

// buildSchema adds the capture columns to the files' schema.
func (s *fileSource) buildSchema() error {
	if len(s.caps) == 0 {
		s.schema = s.file
		return nil
	}
	var fields []npyio.Field
	if s.file.DType.Kind == npyio.Struct && len(s.file.Shape) == 0 {
		fields = append(fields, s.file.DType.Fields...)
	} else {
		s.wrap = true
		fields = []npyio.Field{{Name: s.c.String("column"), Type: s.file.DType, Shape: s.file.Shape}}
	}
	names := map[string]bool{}
	for _, f := range fields {
		names[f.Name] = true
	}
	off := s.file.DType.Size * int(max(1, prod(s.file.Shape)))
	for _, cp := range s.caps {
		if names[cp.Name] {
			return s.c.errorf("paths", "capture {%s} has the name of a field of the input; rename the capture", cp.Name)
		}
		var t *npyio.DType
		switch cp.Type {
		case "int":
			t = npyio.Int64Type
		case "float":
			t = npyio.Float64Type
		default:
			t, _ = npyio.NewString(npyio.Unicode, max(1, s.capWidth[cp.Name]))
		}
		fields = append(fields, npyio.Field{Name: cp.Name, Type: t, Offset: off})
		off += t.Size
	}
	dt := &npyio.DType{Kind: npyio.Struct, Order: npyio.NotApplicable, Size: off, Fields: fields}
	s.schema = &Schema{DType: dt}
	// Check the capture values parse now, so a bad file name fails planning.
	for _, p := range s.parts {
		if _, err := s.captureBytes(p); err != nil {
			return &dataError{pos: s.c.PosOf("paths"), path: s.c.Path() + ".paths", err: err}
		}
	}
	return nil
}

func prod(shape []int) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= int64(d)
	}
	return n
}

// captureBytes encodes a part's capture values as the tail of a row.
func (s *fileSource) captureBytes(p *Part) ([]byte, error) {
	var out []byte
	for _, cp := range s.caps {
		v := p.Vars[cp.Name]
		switch cp.Type {
		case "int":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: capture {%s:int}: %q is not a 64-bit integer", p.Path, cp.Name, v)
			}
			out = appendNative(out, uint64(n))
		case "float":
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: capture {%s:float}: %q is not a number", p.Path, cp.Name, v)
			}
			out = appendFloat(out, x)
		default:
			w := max(1, s.capWidth[cp.Name])
			buf := make([]byte, 4*w)
			putUCS4(buf, v)
			out = append(out, buf...)
		}
	}
	return out, nil
}

func (s *fileSource) open(p *Part) (partReader, error) {
	var rd *npyio.Reader
	var closer io.Closer
	switch s.c.Type {
	case "parquet":
		return s.openParquet(p)
	case "arrow":
		return s.openArrow(p)
	case "hdf5", "mat":
		return s.openContainer(p)
	}
	if p.Member != "" {
		z, err := openNPZ(p.Path)
		if err != nil {
			return nil, err
		}
		m := z.Member(p.Member)
		if m == nil {
			z.Close()
			return nil, fmt.Errorf("%s: member %q disappeared", p.Path, p.Member)
		}
		rd, err = m.Open()
		if err != nil {
			z.Close()
			return nil, fmt.Errorf("%s: %w", p.Path, err)
		}
		closer = z
	} else {
		f, err := openFile(p.Path)
		if err != nil {
			return nil, err
		}
		rd, err = npyio.NewReaderAt(f, f.Size(), s.opts)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", p.Path, err)
		}
		closer = f
	}
	if got := (&Schema{DType: rd.DType(), Shape: rd.Header().Shape[min(1, len(rd.Header().Shape)):]}); !got.Equal(s.file) {
		closer.Close()
		return nil, fmt.Errorf("%s: changed since planning: now holds %s, not %s", p.Path, got, s.file)
	}
	pr := &npyPartReader{rd: rd, closer: closer, name: p.Path}
	if p.Member != "" {
		pr.name += ":" + p.Member
	}
	if err := s.withCaptures(pr, p); err != nil {
		closer.Close()
		return nil, err
	}
	return pr, nil
}

func (s *fileSource) withCaptures(pr *npyPartReader, p *Part) error {
	if len(s.caps) == 0 {
		return nil
	}
	tail, err := s.captureBytes(p)
	if err != nil {
		return err
	}
	pr.tail = tail
	pr.inRow = int(s.file.RowSize())
	return nil
}

// rowReader is what npyPartReader reads rows from: an npyio.Reader, or an
// adapter for other formats.
type rowReader interface {
	ReadRows(dst []byte) (int, error)
}

type npyPartReader struct {
	rd     rowReader
	closer io.Closer
	name   string
	tail   []byte // capture bytes appended to each row
	inRow  int
	buf    []byte
}

func (r *npyPartReader) ReadRows(dst []byte) (int, error) {
	if r.tail == nil {
		n, err := r.rd.ReadRows(dst)
		if err != nil && err != io.EOF {
			err = fmt.Errorf("%s: %w", r.name, err)
		}
		return n, err
	}
	outRow := r.inRow + len(r.tail)
	want := len(dst) / outRow
	if want == 0 {
		return 0, io.ErrShortBuffer
	}
	if cap(r.buf) < want*r.inRow {
		r.buf = make([]byte, want*r.inRow)
	}
	n, err := r.rd.ReadRows(r.buf[:max(want*r.inRow, 1)])
	if err != nil {
		if err != io.EOF {
			err = fmt.Errorf("%s: %w", r.name, err)
		}
		return 0, err
	}
	for i := 0; i < n; i++ {
		o := dst[i*outRow : (i+1)*outRow]
		copy(o, r.buf[i*r.inRow:(i+1)*r.inRow])
		copy(o[r.inRow:], r.tail)
	}
	return n, nil
}

func (r *npyPartReader) Close() error { return r.closer.Close() }
