package pipeline

import (
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

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/foreign"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The file source: what every format's job source has in common. It
// expands the path patterns, asks the format's fileReader for the parts
// of each file (and opens them), reads an archive's members as one table
// when the source's table option says so, adds the path captures as
// columns and checks that the parts agree.

// source is a running source: it knows its parts and opens them.
type source interface {
	Schema() *Schema
	Parts() []*Part
	// open returns a reader of the part's rows in its schema's layout
	// (partSchema).
	open(ctx context.Context, p *Part) (partReader, error)
	producer
}

// partReader reads the rows of one part.
type partReader interface {
	// ReadRows fills dst with whole rows and returns how many; 0, io.EOF
	// at the end.
	ReadRows(dst []byte) (int, error)
	Close() error
}

// rowReader is what a format's reader gives for a part: an npyio.Reader,
// or an adapter for other formats.
type rowReader interface {
	ReadRows(dst []byte) (int, error)
}

// A fileReader is a format's side of its job source: it lists the parts
// of one input file; it opens them as a rowOpener, or as an npyOpener
// (copy.go) when they are npyio.Readers. Readers may also implement the
// optional interfaces of the fast paths (npyCopier, storer in copy.go)
// and projector (pushdown.go).
type fileReader interface {
	// parts lists the parts of the file at path: one for a file that is
	// one array, one per member read for an archive (s.table says
	// whether they become the columns of one table).
	parts(ctx context.Context, s *fileSource, path string) ([]partHead, error)
}

// rowOpener is a reader whose parts open as rows of another kind than an
// npyio.Reader's.
type rowOpener interface {
	// open opens the part p (p.Member "" for a file that is one array),
	// whose rows come in the layout of the header it returns.
	open(ctx context.Context, s *fileSource, p *Part) (rowReader, *npyio.Header, io.Closer, error)
}

// partHead is one part of a file, as its reader lists it.
type partHead struct {
	member string        // "" for a file that is one array
	array  string        // the array's own name, if not member: a table file's one column
	header *npyio.Header // its rows (any byte order)
	size   int64         // bytes of a member in its archive (0: the file's size)
	meta   map[string]*FieldMeta
}

// newReader makes a format's reader for a source component.
type newReader func(c *job.Component) (fileReader, error)

// fileSourceFields are the options of every file source, first in its
// fileSourceSpec is the job source of a format whose reader is made by
// newR, with the options struct opts (which embeds fileSourceOpts).
func fileSourceSpec(summary, doc string, newR newReader, opts any) *job.Spec {
	return &job.Spec{Kind: job.Source, Summary: summary, Doc: doc, Options: opts,
		Impl: builder(func(c *job.Component, _ *Schema, env *buildEnv) (node, error) {
			r, err := newR(c)
			if err != nil {
				return nil, err
			}
			return buildFileSource(c, r, env)
		})}
}

// fileSource is a format's job source.
type fileSource struct {
	c        *job.Component
	r        fileReader
	warn     func(string) // the plan's warnings
	env      *buildEnv    // for its Threads (threads)
	table    bool         // an archive's members are the columns of one table
	schema   *Schema      // rows delivered, captures included
	file     *Schema      // rows in the files (of the first part, when they differ)
	parts    []*Part
	caps     []capture
	capWidth map[string]int
	wrap     bool // a plain array wrapped as one struct field
	out      fanout
	// mixed, if not nil, is why the parts differ in dtype or row shape:
	// the source then feeds only sinks that write one array per part
	// (acceptsMixed), each in the part's own schema.
	mixed error
	// columns are the Parquet or Arrow columns read when the job names
	// none: those its consumers need (see projections), so only their
	// column chunks are fetched and mapped.
	columns []string
	push    *pushdown // what the plan pushed down (nil: none)
}

// foreign returns the options of a parquet or arrow source, with the
// projection the plan pushed down.
func (s *fileSource) foreign() *foreign.Options {
	o := foreignOf(s.c)
	if len(o.Columns) == 0 {
		o.Columns = s.columns
	}
	o.Threads = s.threads()
	return o
}

// threads is the Threads option of the source's format library.
func (s *fileSource) threads() int { return s.env.libThreads(s.c.Type + " reader") }

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
	pos  job.Pos
	path string
	err  error
}

func (e *dataError) Error() string { return fmt.Sprintf("%s: %s: %v", e.pos, e.path, e.err) }
func (e *dataError) Unwrap() error { return e.err }

// pathsError is a dataError about a source's paths.
func pathsError(c *job.Component, err error) error {
	return &dataError{pos: c.PosOf("paths"), path: c.Path() + ".paths", err: err}
}

func buildFileSource(c *job.Component, r fileReader, env *buildEnv) (node, error) {
	s := &fileSource{c: c, r: r, capWidth: map[string]int{}, warn: env.warn, env: env}
	if hc, ok := r.(handleCloser); ok {
		env.cleanup = append(env.cleanup, hc.closeHandles)
	}
	if t, ok := c.Opts().(tableSource); ok {
		s.table = t.tableOpt()
	}
	var matches []match
	var caps []capture
	var err error
	if ps := fileSourceOf(c).Paths; len(ps) == 1 && ps[0] == StdinName {
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
	for _, m := range matches {
		if m, err = env.spoolPipe(c, m); err != nil {
			return nil, err
		}
		if err := s.addFile(env.ctx, m, env); err != nil {
			return nil, err
		}
	}
	if len(s.parts) == 0 {
		if !fileSourceOf(c).AllowEmpty {
			return nil, pathsError(c, errors.New("no input files (set allow_empty: true to allow)"))
		}
		return nil, pathsError(c, errors.New("no input files: the schema is unknown"))
	}
	if err := s.buildSchema(); err != nil {
		return nil, err
	}
	return s, nil
}

// addFile adds the parts of one input file.
func (s *fileSource) addFile(ctx context.Context, m match, env *buildEnv) error {
	var heads []partHead
	if pr, ok := s.r.(projector); ok && s.push != nil {
		var h *npyio.Header
		var err error
		if len(s.parts) == 0 {
			h, err = s.firstProjected(ctx, m.Path, pr, env)
		} else if h, err = pr.headerWith(ctx, m.Path, s.foreign()); err == nil {
			h = s.wrapProjected(h)
		}
		if err != nil {
			return pathsError(s.c, err)
		}
		heads = []partHead{{header: h}}
	} else {
		var err error
		if heads, err = s.r.parts(ctx, s, m.Path); err != nil {
			return pathsError(s.c, err)
		}
	}
	if s.table && len(heads) > 1 {
		pick := "one"
		if pk, ok := s.r.(picker); ok {
			pick = pk.pickHint()
		}
		h, cols, err := tableHead(heads, pick)
		if err != nil {
			return pathsError(s.c, &FileError{Path: m.Path, Err: err})
		}
		return s.addPart(m, partHead{header: h, meta: membersMeta(heads)}, cols)
	}
	for _, h := range heads {
		if err := s.addPart(m, h, nil); err != nil {
			return err
		}
	}
	return nil
}

// expandPaths expands a source's path patterns less its exclusions, in
// pattern order, sorted within each pattern, without duplicates.
func expandPaths(ctx context.Context, c *job.Component) ([]match, []capture, error) {
	o := fileSourceOf(c)
	var ex []*pattern
	for _, e := range o.Exclude {
		p := e
		if strings.Contains(e, "/") {
			p = c.ResolvePath(e)
		}
		pt, _, err := compilePattern(p, false)
		if err != nil {
			return nil, nil, c.Errorf("exclude", "invalid pattern %q: %v", e, err)
		}
		pt.raw = e
		ex = append(ex, pt)
	}
	var caps []capture
	var out []match
	seen := map[string]bool{}
	for i, raw := range o.Paths {
		pt, _, err := compilePattern(c.ResolvePath(raw), true)
		if err != nil {
			return nil, nil, c.ItemErrorf("paths", i, "invalid pattern: %v", err)
		}
		if i == 0 {
			caps = pt.caps
		} else if !slices.Equal(caps, pt.caps) {
			return nil, nil, c.ItemErrorf("paths", i, "every pattern of a source must have the same captures (%s)", capList(caps))
		}
		ms, err := pt.glob(ctx)
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
		if n == 0 && !o.AllowEmpty {
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

// rowsSchema is the schema of the rows of an array of header h.
func rowsSchema(h *npyio.Header) *Schema {
	return &Schema{DType: h.DType.Native(), Shape: append([]int(nil), h.Shape[min(1, len(h.Shape)):]...)}
}

func (s *fileSource) addPart(m match, h partHead, cols []string) error {
	fs := rowsSchema(h.header)
	fs.Meta = h.meta
	var own *Schema
	if s.file == nil {
		s.file = fs
	} else if w, ok := widerStrings(s.file, fs); ok && s.widens() {
		s.file = w // string widths from each file's data: read all at the widest
	} else if !s.file.Equal(fs) {
		own = fs
		if s.mixed == nil {
			where := &Part{Path: m.Path, Member: h.member}
			hint := ""
			if _, ok := s.c.Opts().(tableSource); ok && !s.table && m.Path == s.parts[0].Path {
				hint = " (table: true reads an archive's members as the columns of one table, as convert does)"
			}
			s.mixed = pathsError(s.c, fmt.Errorf("%s holds %s, but %s holds %s: all inputs of a source must have the same dtype and row shape%s", where, fs, s.parts[0], s.file, hint))
		}
	}
	base := filepath.Base(storage.Path(m.Path))
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	array := h.member
	if array == "" {
		array = h.array
	}
	if array == "" {
		array = stem
	}
	vars := map[string]string{
		"source": s.c.Name,
		"name":   base,
		"dir":    filepath.Base(filepath.Dir(storage.Path(m.Path))),
		"stem":   stem,
		"member": h.member,
		"array":  array,
		"index":  strconv.Itoa(len(s.parts)),
	}
	for k, v := range m.Caps {
		vars[k] = v
		if w := utf8.RuneCountInString(v); w > s.capWidth[k] {
			s.capWidth[k] = w
		}
	}
	p := &Part{Source: s.c.Name, Index: len(s.parts), Path: m.Path, Member: h.member, Size: h.header.DataSize(), Rows: h.header.Rows(),
		Vars: vars, zeroD: len(h.header.Shape) == 0, schema: own, cols: cols, raw: fs, dtype: h.header.DType, fortran: h.header.FortranOrder}
	if h.member == "" {
		p.Size = m.Size
	}
	if h.size > 0 {
		p.Size = h.size
	}
	s.parts = append(s.parts, p)
	return nil
}

// widens reports whether the source's files get string widths from their
// own data (parquet, arrow), so that files differing only in them are
// read at the widest.
func (s *fileSource) widens() bool {
	_, ok := s.r.(projector)
	return ok
}

// buildSchema adds the capture columns to the files' schema.
func (s *fileSource) buildSchema() error {
	if len(s.caps) == 0 {
		s.schema = s.file
		return nil
	}
	if s.mixed != nil {
		return s.mixed
	}
	var fields []npyio.Field
	if s.file.DType.Kind == npyio.Struct && len(s.file.Shape) == 0 {
		fields = append(fields, s.file.DType.Fields...)
	} else {
		s.wrap = true
		fields = []npyio.Field{{Name: fileSourceOf(s.c).Column, Type: s.file.DType, Shape: s.file.Shape}}
	}
	names := map[string]bool{}
	for _, f := range fields {
		names[f.Name] = true
	}
	off := s.file.DType.Size * int(max(1, prod(s.file.Shape)))
	for _, cp := range s.caps {
		if names[cp.Name] {
			return s.c.Errorf("paths", "capture {%s} has the name of a field of the input; rename the capture", cp.Name)
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
			return pathsError(s.c, err)
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
			out = rowbytes.AppendNative(out, uint64(n))
		case "float":
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: capture {%s:float}: %q is not a number", p.Path, cp.Name, v)
			}
			out = rowbytes.AppendFloat(out, x)
		default:
			w := max(1, s.capWidth[cp.Name])
			buf := make([]byte, 4*w)
			rowbytes.PutUCS4(buf, v)
			out = append(out, buf...)
		}
	}
	return out, nil
}

// plain reports whether part p's rows reach the source's consumers as
// its reader gives them: no captures, no strings widened to other files'.
// (The fast paths read such parts themselves.)
func (s *fileSource) plain(p *Part) bool {
	return len(s.caps) == 0 && (p.raw == nil || p.raw.Equal(partSchema(s.file, p)))
}

// openRows opens one member (or the file) of a part and checks it still
// holds what the plan found.
func (s *fileSource) openRows(ctx context.Context, p *Part, want *Schema) (rowReader, io.Closer, *repacker, error) {
	var rd rowReader
	var h *npyio.Header
	var closer io.Closer
	var err error
	if no, ok := s.r.(npyOpener); ok {
		var nr *npyio.Reader
		if nr, closer, err = no.openNPY(ctx, s, p); err == nil {
			rd, h = nr, nr.Header()
		}
	} else {
		rd, h, closer, err = s.r.(rowOpener).open(ctx, s, p)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	got := rowsSchema(h)
	if !got.Equal(want) {
		if w, ok := widerStrings(want, got); s.widens() && ok && w.Equal(want) {
			return rd, closer, newRepacker(got, want), nil
		}
		closer.Close()
		return nil, nil, nil, fmt.Errorf("%s: changed since planning: now holds %s, not %s", p, got, want)
	}
	return rd, closer, nil, nil
}

func (s *fileSource) open(ctx context.Context, p *Part) (partReader, error) {
	want := partSchema(s.file, p)
	pr := &npyPartReader{name: p.String()}
	var repack *repacker
	if p.cols != nil {
		t, err := s.openTable(ctx, p, want)
		if err != nil {
			return nil, err
		}
		pr.rd, pr.closer = t, t
	} else {
		rd, closer, widen, err := s.openRows(ctx, p, want)
		if err != nil {
			return nil, err
		}
		pr.rd, pr.closer = rd, closer
		repack = widen
	}
	if len(s.caps) > 0 {
		tail, err := s.captureBytes(p)
		if err != nil {
			pr.closer.Close()
			return nil, err
		}
		if repack == nil {
			n := int(want.RowSize())
			repack = &repacker{copies: []span{{0, 0, n}}, from: n, toSize: n}
		}
		repack.tail, repack.toSize = tail, repack.toSize+len(tail)
	}
	if repack != nil {
		pr.rd = repack.reader(pr.rd)
	}
	return pr, nil
}

// npyPartReader reads a part's rows, repacked (strings widened to other
// files', capture values appended) when they do not reach the source's
// consumers as its reader gives them.
type npyPartReader struct {
	rd     rowReader
	closer io.Closer
	name   string
}

func (r *npyPartReader) ReadRows(dst []byte) (int, error) {
	n, err := r.rd.ReadRows(dst)
	if err != nil && err != io.EOF {
		err = &FileError{Path: r.name, Err: err}
	}
	return n, err
}

func (r *npyPartReader) Close() error { return r.closer.Close() }

// closers closes each in order.
type closers []io.Closer

func (cs closers) Close() error {
	var first error
	for _, c := range cs {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

type closeFunc func() error

func (f closeFunc) Close() error { return f() }
