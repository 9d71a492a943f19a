package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/npyflow/npyflow/internal/atomicfile"
	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/format"
	"github.com/npyflow/npyflow/pipeline/internal/suggest"
	"github.com/npyflow/npyflow/pipeline/job"
)

// Output files are created through internal/storage: a local one is a
// temporary file beside its final name (internal/atomicfile), renamed
// into place only when the whole run succeeded, so a failed or
// interrupted run leaves no partial output; one bound for an object
// store is uploaded as it is written, streamed part by part (see package
// objstore), and completed by commit: the object appears whole, then, or
// never. Writers that seek back anywhere (MAT, HDF5) spool an upload to
// a local temporary file instead, uploaded by commit.

type outputs struct {
	ctx   context.Context // the run's: cancelling it aborts the uploads
	mu    sync.Mutex
	files []*outFile
	dirs  []string // directories created, parents first
	sync  bool     // fsync each file before renaming it (RunOptions.Sync)
	// aborts run first when the run is aborted (onAbort), by key.
	aborts  map[int]func()
	abortID int
}

// onAbort registers f to run first if the run is aborted, before any
// output is removed: a writer with goroutines of its own stops them
// there, so none writes into a file being removed. The returned func
// unregisters f (when the writer is closed).
func (o *outputs) onAbort(f func()) (unregister func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.aborts == nil {
		o.aborts = map[int]func(){}
	}
	o.abortID++
	id := o.abortID
	o.aborts[id] = f
	return func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		delete(o.aborts, id)
	}
}

type outFile struct {
	final    string
	stage    string         // a staged directory output, renamed to final by commit
	w        storage.Writer // nil once committed
	scratch  *os.File       // a scratch file, removed at the end
	finished bool           // the sink wrote all of w
}

// maxFinishedUploads is how many finished uploads a plain run keeps open
// until its commit. Each holds its last part in memory (up to the part
// size), so beyond it the oldest finished one is completed at once: a run
// writing more objects than this publishes them as they are finished
// (a sharded run stages them instead, all-or-nothing at its commit).
const maxFinishedUploads = 8

// create opens the output final; seekable says the writer seeks back
// anywhere (an upload then spools to a local temporary file). A local
// output's missing directories are made (and removed again by abort).
func (o *outputs) create(final string, seekable bool) (io.WriteSeeker, error) {
	if storage.Scheme(final) == "" {
		if err := o.mkdirAll(filepath.Dir(final)); err != nil {
			return nil, err
		}
	}
	w, err := storage.Create(o.ctx, final, storage.CreateOptions{Sync: o.sync, Seekable: seekable})
	if err != nil {
		return nil, &FileError{Path: final, Err: bare(err)}
	}
	o.mu.Lock()
	o.files = append(o.files, &outFile{final: final, w: w})
	o.mu.Unlock()
	return w, nil
}

// createDir stages the directory output final: a new directory beside
// it, renamed into place by commit (replacing what was there) and
// removed by abort. A bucket prefix is written in place: its writer puts
// every object's metadata last.
func (o *outputs) createDir(final string) (string, error) {
	if storage.Scheme(final) != "" {
		return final, nil
	}
	parent := filepath.Dir(final)
	if err := o.mkdirAll(parent); err != nil {
		return "", err
	}
	stage, err := os.MkdirTemp(parent, "."+filepath.Base(final)+".npyflow-stage-")
	if err != nil {
		return "", &FileError{Path: final, Err: bare(err)}
	}
	o.mu.Lock()
	o.files = append(o.files, &outFile{final: final, stage: stage})
	o.mu.Unlock()
	return stage, nil
}

// finished is told that the sink wrote the whole of w; beyond
// maxFinishedUploads finished uploads, the oldest is completed now.
func (o *outputs) finished(w io.WriteSeeker) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	remote := func(f *outFile) bool { return f.w != nil && storage.Scheme(f.final) != "" }
	for _, f := range o.files {
		if f.w != nil && f.w == w {
			f.finished = true
		}
		if remote(f) && f.finished {
			n++
		}
	}
	for _, f := range o.files {
		if n <= maxFinishedUploads {
			break
		}
		if remote(f) && f.finished {
			if err := f.w.Commit(); err != nil {
				f.w = nil
				return err
			}
			f.w, n = nil, n-1
		}
	}
	return nil
}

// scratchNear opens a scratch file beside the output final, or in the
// system's temporary directory when final is in an object store.
func (o *outputs) scratchNear(final string) (*os.File, error) {
	if storage.Scheme(final) != "" {
		return o.scratch(os.TempDir())
	}
	return o.scratch(filepath.Dir(final))
}

// scratch opens a temporary file in dir that is never committed.
func (o *outputs) scratch(dir string) (*os.File, error) {
	if err := o.mkdirAll(dir); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".npyflow-scratch-*")
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	o.files = append(o.files, &outFile{scratch: f})
	o.mu.Unlock()
	return f, nil
}

func (o *outputs) mkdirAll(dir string) error {
	made, err := atomicfile.MkdirAll(dir)
	o.mu.Lock()
	o.dirs = append(o.dirs, made...)
	o.mu.Unlock()
	return err
}

// commit makes every output durable (with sync) and then publishes each
// (renames it into place, completes the upload). On an error, abort
// discards what is left.
func (o *outputs) commit() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.sync {
		// Flush every local output before any is renamed, so that a
		// failing disk leaves none published.
		for _, f := range o.files {
			if osf, ok := storage.OSFile(f.w); ok && f.w != nil {
				if err := osf.Sync(); err != nil {
					return &FileError{Path: f.final, Err: bare(err)}
				}
			}
		}
	}
	for _, f := range o.files {
		switch {
		case f.scratch != nil:
			f.scratch.Close()
			os.Remove(f.scratch.Name())
			f.scratch = nil
		case f.w != nil:
			w := f.w
			f.w = nil
			if err := w.Commit(); err != nil {
				return &FileError{Path: f.final, Err: bare(err)}
			}
		case f.stage != "":
			stage := f.stage
			f.stage = ""
			if err := os.RemoveAll(f.final); err != nil {
				os.RemoveAll(stage)
				return &FileError{Path: f.final, Err: bare(err)}
			}
			if err := os.Rename(stage, f.final); err != nil {
				os.RemoveAll(stage)
				return &FileError{Path: f.final, Err: bare(err)}
			}
		}
	}
	o.files = nil
	o.dirs = nil
	return nil
}

// abort removes every temporary file and the directories made for them.
func (o *outputs) abort() {
	// The hooks may wait for goroutines that create files (o.mu): run
	// them unlocked.
	o.mu.Lock()
	hooks := o.aborts
	o.aborts = nil
	o.mu.Unlock()
	for _, f := range hooks {
		f()
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, f := range o.files {
		if f.scratch != nil {
			f.scratch.Close()
			os.Remove(f.scratch.Name())
		}
		if f.w != nil {
			f.w.Abort()
		}
		if f.stage != "" {
			os.RemoveAll(f.stage)
		}
	}
	for i := len(o.dirs) - 1; i >= 0; i-- {
		os.Remove(o.dirs[i]) // only succeeds when empty
	}
	o.files, o.dirs = nil, nil
}

// bare drops the file name of an *os.PathError: messages name the final
// file once, in front, not a temporary one. Other errors are returned as
// they are.
func bare(err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// template is an output path or member name with {var} placeholders.
type template struct {
	parts []string // literal, var, literal, var, ..., literal
}

// newTableSink is the file sink of a table format (Arrow, Parquet) with
// its column template, after checking that what (the format's name) can
// hold rows of in, so that plan reports an unsupported dtype.
func newTableSink(c *job.Component, in *Schema, env *buildEnv, what, column string, check func(h *npyio.Header, column string) error) (*fileSink, *template, error) {
	s, err := newFileSink(c, in, env)
	if err != nil {
		return nil, nil, err
	}
	col, _, err := parseTemplate(column)
	if err != nil {
		return nil, nil, c.Errorf("column", "%v", err)
	}
	if err := check(&npyio.Header{DType: in.DType, Shape: append([]int{0}, in.Shape...)}, column); err != nil {
		return nil, nil, c.Errorf("input", "cannot write %s to %s: %v", in, what, err)
	}
	return s, col, nil
}

func parseTemplate(s string) (*template, int, error) {
	t := &template{}
	lit := strings.Builder{}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, i, fmt.Errorf("unclosed {")
			}
			name := s[i+1 : i+end]
			if !job.IsName(name) {
				return nil, i, fmt.Errorf("invalid placeholder {%s}", name)
			}
			t.parts = append(t.parts, lit.String(), name)
			lit.Reset()
			i += end
		case '}':
			return nil, i, fmt.Errorf("unmatched }")
		case '\\':
			if i+1 < len(s) && (s[i+1] == '{' || s[i+1] == '}') {
				i++ // \{ is a literal {
			}
			lit.WriteByte(s[i])
		default:
			lit.WriteByte(s[i])
		}
	}
	t.parts = append(t.parts, lit.String())
	return t, 0, nil
}

func checkTemplate(v string) (string, int) {
	if _, off, err := parseTemplate(v); err != nil {
		return err.Error(), off
	}
	return "", 0
}

// perPart reports whether the template has placeholders.
func (t *template) perPart() bool { return len(t.parts) > 1 }

// render fills the placeholders from vars; it fails on an unknown one.
func (t *template) render(vars map[string]string) (string, error) {
	var b strings.Builder
	for i, p := range t.parts {
		if i%2 == 0 {
			b.WriteString(p)
			continue
		}
		v, ok := vars[p]
		if !ok {
			names := slices.Sorted(maps.Keys(vars))
			return "", fmt.Errorf("unknown placeholder {%s}%s; available: %s", p, suggest.DidYouMean(p, names), strings.Join(names, ", "))
		}
		b.WriteString(v)
	}
	return b.String(), nil
}

// name renders a column name template for the file whose first part is
// p: "value" when it renders empty.
func (t *template) name(p *Part) string {
	var vars map[string]string
	if p != nil {
		vars = p.Vars
	}
	if n, err := t.render(vars); err == nil && n != "" {
		return n
	}
	return "value"
}

// SinkStats is what a sink wrote.
type SinkStats struct {
	Sink    string
	Type    string
	Files   []string
	Rows    int64
	Bytes   int64
	Elapsed time.Duration
}

// sinkNode is a running sink.
type sinkNode interface {
	node
	// plannedPaths returns the output files for the given input parts.
	plannedPaths(parts []*Part) ([]string, error)
	stats() *SinkStats
}

// batchWriter writes one output's rows.
type batchWriter interface {
	Write(b Batch) error
	Close() error
}

// fileSink is a sink writing one file per part (a path with placeholders)
// or one file for everything, through a format's batchWriter, opened when
// the first rows (or the end of an empty output) reach the file; a file
// written by a fast path (copy.go) opens none.
type fileSink struct {
	c      *job.Component
	schema *Schema
	env    *buildEnv
	path   *template
	// open makes the writer of the file f, whose first part is p (nil
	// for an output of no input).
	open func(f *sinkFile, p *Part) (batchWriter, error)
	// seekable, if set, says whether the writer of the file being opened
	// seeks back anywhere (an object store's upload then spools).
	seekable func() bool
	nparts   int  // the parts reaching the sink (knowParts)
	zeroD    bool // the chain from the sources keeps every row: 0-d inputs stay 0-d
	known    bool // and the rows of its parts reach the sink unchanged
	total    int64
	hasZeroD bool        // some part is 0-d
	direct   bool        // fed by a source directly: it may copy parts (copy.go)
	stored   bool        // its rows are its parts' own (sinkFeed.from)
	from     *fileSource // their source
	cur      batchWriter
	curF     *sinkFile
	curP     string
	dirOut   bool  // the output is a directory (Format.Dir): sinkFile.dir
	first    *Part // the first part of the current file
	copied   bool  // the current file was written by a fast path
	st       SinkStats
}

// scratchDir is where a writer of the current file puts large
// intermediate data: that file's directory, or os.TempDir() for a URL.
func (s *fileSink) scratchDir() string {
	if s.curP == "" || storage.Scheme(s.curP) != "" {
		return os.TempDir()
	}
	return filepath.Dir(s.curP)
}

func newFileSink(c *job.Component, in *Schema, env *buildEnv) (*fileSink, error) {
	path, _ := fileSinkOf(c)
	t, _, err := parseTemplate(path)
	if err != nil {
		return nil, c.Errorf("path", "%v", err)
	}
	s := &fileSink{c: c, schema: in, env: env, path: t, st: SinkStats{Sink: c.Name, Type: c.Type}}
	if f := formatNamed(c.Type); f != nil {
		switch f.Caps.Seeks {
		case format.SeeksAlways:
			s.seekable = func() bool { return true }
		case format.SeeksWithoutRows:
			s.seekable = func() bool { return !s.known }
		}
	}
	return s, nil
}

func (s *fileSink) Schema() *Schema   { return s.schema }
func (s *fileSink) stats() *SinkStats { return &s.st }

// knowParts is told the parts reaching the sink and what the plan knows
// of their rows (sinkFeed).
func (s *fileSink) knowParts(parts []*Part, f sinkFeed) {
	s.nparts, s.zeroD, s.known, s.direct = len(parts), f.same, f.same && f.exact, f.direct
	s.from, s.stored = f.from, f.from != nil
	for _, p := range parts {
		s.total += p.Rows
		s.hasZeroD = s.hasZeroD || p.zeroD
	}
}

// rowsOf is the rows of the file whose first part is p, when known.
func (s *fileSink) rowsOf(p *Part) int64 {
	if s.path.perPart() && p != nil {
		return p.Rows
	}
	return s.total
}

// onePerFile reports whether each of the sink's files gets one part.
func (s *fileSink) onePerFile() bool { return s.path.perPart() || s.nparts == 1 }

// acceptsMixed reports whether the sink takes parts of different schemas
// (each file gets one part, in its own schema).
func (s *fileSink) acceptsMixed() bool { return s.path.perPart() }

func (s *fileSink) plannedPaths(parts []*Part) ([]string, error) {
	if !s.path.perPart() {
		p, _ := s.path.render(nil)
		return []string{s.c.ResolvePath(p)}, nil
	}
	var out []string
	seen := map[string]string{}
	for _, p := range parts {
		r, err := s.path.render(p.Vars)
		if err != nil {
			return nil, s.c.Errorf("path", "%v", err)
		}
		r = s.c.ResolvePath(r)
		who := p.String()
		if prev, dup := seen[r]; dup {
			return nil, s.c.Errorf("path", "inputs %s and %s would both be written to %s; add a placeholder that tells them apart", prev, who, r)
		}
		seen[r] = who
		out = append(out, r)
	}
	return out, nil
}

func (s *fileSink) start(final string, p *Part) error {
	if _, mode := fileSinkOf(s.c); mode == "error_if_exists" {
		if _, err := storage.Stat(s.env.ctx, final); err == nil {
			return fmt.Errorf("%s: %s exists (mode: error_if_exists)", s.c.Path(), storage.Redact(final))
		}
	}
	if s.dirOut {
		dir, err := s.env.createDir(final)
		if err != nil {
			return err
		}
		s.curF, s.curP, s.first, s.copied, s.cur = &sinkFile{dir: dir}, final, p, false, nil
		return nil
	}
	f, err := s.env.create(final, s.seekable != nil && s.seekable())
	if err != nil {
		return err
	}
	s.curF, s.curP, s.first, s.copied, s.cur = &sinkFile{WriteSeeker: f}, final, p, false, nil
	return nil
}

// writer returns the writer of the current file, opening it.
func (s *fileSink) writer() (batchWriter, error) {
	if s.cur == nil {
		w, err := s.open(s.curF, s.first)
		if err != nil {
			return nil, &FileError{Path: s.curP, Err: err}
		}
		s.cur = w
	}
	return s.cur, nil
}

// sinkFile is a sink's output file, counting its size.
type sinkFile struct {
	io.WriteSeeker
	pos, size int64
	// dir is where a directory output is written (no WriteSeeker then):
	// a staging directory, or the bucket prefix itself.
	dir string
}

func (f *sinkFile) Write(p []byte) (int, error) {
	n, err := f.WriteSeeker.Write(p)
	f.pos += int64(n)
	f.size = max(f.size, f.pos)
	if err != nil {
		err = &OutputError{bare(err)}
	}
	return n, err
}

func (f *sinkFile) Seek(off int64, whence int) (int64, error) {
	n, err := f.WriteSeeker.Seek(off, whence)
	if err == nil {
		f.pos = n
	} else {
		err = &OutputError{bare(err)}
	}
	return n, err
}

// Truncate cuts the file at size where the file can be (a local one):
// parquetio then writes a table with time columns in one pass.
func (f *sinkFile) Truncate(size int64) error {
	t, ok := f.WriteSeeker.(interface{ Truncate(int64) error })
	if !ok {
		return errors.New("not truncatable")
	}
	if err := t.Truncate(size); err != nil {
		return &OutputError{bare(err)}
	}
	f.size = min(f.size, size)
	return nil
}

// OSFile returns the local file under f, for copies by the kernel; the
// writer of it calls written afterwards.
func (f *sinkFile) OSFile() *os.File {
	osf, _ := storage.OSFile(f.WriteSeeker)
	return osf
}

// written accounts for what was written to the file through OSFile.
func (f *sinkFile) written() error {
	osf := f.OSFile()
	if osf == nil {
		return nil
	}
	pos, err := osf.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	st, err := osf.Stat()
	if err != nil {
		return err
	}
	f.pos, f.size = pos, st.Size()
	return nil
}

func (s *fileSink) finish() error {
	if s.curF == nil {
		return nil
	}
	t := time.Now()
	var err error
	if !s.copied {
		var w batchWriter
		if w, err = s.writer(); err == nil {
			err = w.Close()
		}
	}
	s.st.Elapsed += time.Since(t)
	if err != nil {
		return &FileError{Path: s.curP, Err: err}
	}
	s.st.Bytes += s.curF.size
	if err := s.env.finished(s.curF.WriteSeeker); err != nil {
		return &FileError{Path: storage.Redact(s.curP), Err: err}
	}
	s.st.Files = append(s.st.Files, s.curP)
	s.cur, s.curF = nil, nil
	return nil
}

func (s *fileSink) Begin(p *Part) error {
	if s.curF != nil && !s.path.perPart() {
		return nil
	}
	if err := s.finish(); err != nil {
		return err
	}
	vars := map[string]string(nil)
	if s.path.perPart() {
		vars = p.Vars
	}
	r, err := s.path.render(vars)
	if err != nil {
		return s.c.Errorf("path", "%v", err)
	}
	return s.start(s.c.ResolvePath(r), p)
}

func (s *fileSink) Push(b Batch) error {
	t := time.Now()
	w, err := s.writer()
	if err == nil {
		err = w.Write(b)
	}
	s.st.Elapsed += time.Since(t)
	s.st.Rows += int64(b.Rows)
	if err != nil {
		return &FileError{Path: s.curP, Err: err}
	}
	return nil
}

func (s *fileSink) End(p *Part) error {
	if s.path.perPart() {
		return s.finish()
	}
	return nil
}

func (s *fileSink) Finish() error {
	if s.curF == nil && !s.path.perPart() && len(s.st.Files) == 0 {
		// No input at all: still write an empty output.
		r, _ := s.path.render(nil)
		if err := s.start(s.c.ResolvePath(r), nil); err != nil {
			return err
		}
	}
	return s.finish()
}

// copied records a file (or a part of it) written by a fast path.
func (s *fileSink) copiedRows(rows int64) {
	s.copied = true
	s.st.Rows += rows
}

// partSchema is the schema of part p's rows as they reach a sink fed by
// a source whose parts differ (p.schema), else in.
func partSchema(in *Schema, p *Part) *Schema {
	if p != nil && p.schema != nil {
		return p.schema
	}
	return in
}

// rowPreserving are the transforms that keep every row of every part, so
// a 0-d input stays one row.
var rowPreserving = map[string]bool{"select": true, "drop": true, "rename": true, "cast": true, "flatten": true}

// keepsEveryRow reports whether n is a row selection (slice, limit,
// sample) that the plan shows keeps every one of its exactly known rows
// (a slice from 0 to the end): it is then row-preserving too.
func keepsEveryRow(n node, rows int64, exact bool) bool {
	s, ok := n.(*rowSelect)
	if !ok || !exact {
		return false
	}
	out, e := s.planRows(rows, exact)
	return e && out == rows
}

// sinkFeed is what the plan knows of the rows reaching a sink.
type sinkFeed struct {
	// same: every transform between the sources and the sink keeps
	// every row of every part.
	same bool
	// exact: the plan's row counts are exact.
	exact bool
	// direct: a source feeds the sink directly (its parts' rows reach
	// it as the source reads them, so it may copy them, copy.go).
	direct bool
	// from is the one source that feeds the sink directly or through
	// row selections only (slice, limit, sample, filter), so the rows
	// that reach it are its parts' rows, unchanged: each part alone in
	// its file is written as a copy of it writes it (with the part's
	// dtype as stored, byte order included), from rows alike.
	from *fileSource
}

// partsKeeper is a sink told every part that reaches it.
type partsKeeper interface {
	knowParts(parts []*Part, f sinkFeed)
}
