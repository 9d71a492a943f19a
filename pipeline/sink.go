package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/npyflow/npyflow/internal/atomicfile"
	"github.com/npyflow/npyflow/pipeline/internal/suggest"
	"github.com/npyflow/npyflow/pipeline/job"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
)

// Output files are written to a temporary file next to their final name
// (".<name>.tmp-<random>") and renamed into place only when the whole run
// succeeded, so a failed or interrupted run leaves no partial output.
// Outputs bound for an object store (a URL) are uploaded as they are
// written, streamed part by part (see package objstore), and completed
// by commit: the object appears whole, then, or never (abort aborts the
// upload). Writers that seek back anywhere (MAT, HDF5) spool to a local
// temporary file instead, uploaded by commit.

type outputs struct {
	ctx   context.Context // the run's: cancelling it aborts the uploads
	mu    sync.Mutex
	files []*outFile
	dirs  []string // directories created, parents first
	sync  bool     // fsync each file before renaming it (RunOptions.Sync)
}

type outFile struct {
	final, tmp string
	f          *os.File
	w          storage.Writer // an upload to final (a URL)
	finished   bool           // the sink wrote all of w
}

// maxFinishedUploads is how many finished uploads a plain run keeps open
// until its commit. Each holds its last part in memory (up to the part
// size), so beyond it the oldest finished one is completed at once: a run
// writing more objects than this publishes them as they are finished
// (a sharded run stages them instead, all-or-nothing at its commit).
const maxFinishedUploads = 8

// create opens the output for final: a temporary file beside it or, for
// a URL, an upload; seekable says the writer seeks back anywhere (an
// upload then spools to a local temporary file).
func (o *outputs) create(final string, seekable bool) (io.WriteSeeker, error) {
	if storage.Scheme(final) != "" {
		ctx := o.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		w, err := storage.Create(ctx, final, storage.CreateOptions{Sync: o.sync, Seekable: seekable})
		if err != nil {
			return nil, err
		}
		o.mu.Lock()
		o.files = append(o.files, &outFile{final: final, w: w})
		o.mu.Unlock()
		return w, nil
	}
	dir := filepath.Dir(final)
	if err := o.mkdirAll(dir); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(final)+".tmp-*")
	if err != nil {
		return nil, err
	}
	// CreateTemp makes 0600 files; outputs get the usual 0644.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	o.mu.Lock()
	o.files = append(o.files, &outFile{final: final, tmp: f.Name(), f: f})
	o.mu.Unlock()
	return f, nil
}

// finished is told that the sink wrote the whole of w; beyond
// maxFinishedUploads finished uploads, the oldest is completed now.
func (o *outputs) finished(w io.WriteSeeker) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, f := range o.files {
		if f.w != nil && f.w == w {
			f.finished = true
		}
		if f.w != nil && f.finished {
			n++
		}
	}
	for _, f := range o.files {
		if n <= maxFinishedUploads {
			break
		}
		if f.w != nil && f.finished {
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
	o.files = append(o.files, &outFile{tmp: f.Name(), f: f})
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

// commit closes every file and renames the outputs into place (completes
// the uploads). On an error, abort discards what is left.
func (o *outputs) commit() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	var first error
	for _, f := range o.files {
		if f.f != nil {
			if o.sync && f.final != "" {
				if err := f.f.Sync(); err != nil && first == nil && !errors.Is(err, os.ErrClosed) {
					first = err
				}
			}
			if err := f.f.Close(); err != nil && first == nil && !errors.Is(err, os.ErrClosed) {
				first = err
			}
		}
	}
	if first != nil {
		return first
	}
	for _, f := range o.files {
		switch {
		case f.w != nil:
			w := f.w
			f.w = nil
			if err := w.Commit(); err != nil {
				return err
			}
			continue
		case f.final == "":
			os.Remove(f.tmp)
		case f.tmp != "":
			if err := os.Rename(f.tmp, f.final); err != nil {
				return err
			}
		}
		f.tmp = ""
	}
	o.files = nil
	o.dirs = nil
	return nil
}

// abort removes every temporary file and the directories made for them.
func (o *outputs) abort() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, f := range o.files {
		if f.f != nil {
			f.f.Close()
		}
		if f.tmp != "" {
			os.Remove(f.tmp)
		}
		if f.w != nil {
			f.w.Abort()
		}
	}
	for i := len(o.dirs) - 1; i >= 0; i-- {
		os.Remove(o.dirs[i]) // only succeeds when empty
	}
	o.files, o.dirs = nil, nil
}

// template is an output path or member name with {var} placeholders.
type template struct {
	parts []string // literal, var, literal, var, ..., literal
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

func (t *template) vars() []string {
	var v []string
	for i := 1; i < len(t.parts); i += 2 {
		v = append(v, t.parts[i])
	}
	return v
}

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
			var names []string
			for k := range vars {
				names = append(names, k)
			}
			sort.Strings(names)
			return "", fmt.Errorf("unknown placeholder {%s}%s; available: %s", p, suggest.DidYouMean(p, names), strings.Join(names, ", "))
		}
		b.WriteString(v)
	}
	return b.String(), nil
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
// or one file for everything, through a format-specific batchWriter.
type fileSink struct {
	c      *job.Component
	schema *Schema
	env    *buildEnv
	path   *template
	open   func(f io.WriteSeeker) (batchWriter, error)
	// seekable, if set, says whether the writer of the file being opened
	// seeks back anywhere (an object store's upload then spools).
	seekable func() bool
	cur      batchWriter
	curF     *sinkFile
	curP     string
	opening  string // the final path of the file open is called for
	st       SinkStats
}

// scratchDir is where a writer of the file being opened puts large
// intermediate data: that file's directory, or os.TempDir() for a URL.
func (s *fileSink) scratchDir() string {
	if s.opening == "" || storage.Scheme(s.opening) != "" {
		return os.TempDir()
	}
	return filepath.Dir(s.opening)
}

func newFileSink(c *job.Component, in *Schema, env *buildEnv) (*fileSink, error) {
	t, _, err := parseTemplate(c.String("path"))
	if err != nil {
		return nil, c.Errorf("path", "%v", err)
	}
	return &fileSink{c: c, schema: in, env: env, path: t, st: SinkStats{Sink: c.Name, Type: c.Type}}, nil
}

func (s *fileSink) Schema() *Schema   { return s.schema }
func (s *fileSink) stats() *SinkStats { return &s.st }

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
		who := p.Path
		if p.Member != "" {
			who += ":" + p.Member
		}
		if prev, dup := seen[r]; dup {
			return nil, s.c.Errorf("path", "inputs %s and %s would both be written to %s; add a placeholder that tells them apart", prev, who, r)
		}
		seen[r] = who
		out = append(out, r)
	}
	return out, nil
}

func (s *fileSink) start(final string) error {
	if s.c.String("mode") == "error_if_exists" {
		if _, err := storage.Stat(context.Background(), final); err == nil {
			return fmt.Errorf("%s: %s exists (mode: error_if_exists)", s.c.Path(), storage.Redact(final))
		}
	}
	f, err := s.env.create(final, s.seekable != nil && s.seekable())
	if err != nil {
		return err
	}
	sf := &sinkFile{WriteSeeker: f}
	s.opening = final
	w, err := s.open(sf)
	s.opening = ""
	if err != nil {
		return fmt.Errorf("%s: %w", final, err)
	}
	s.cur, s.curF, s.curP = w, sf, final
	return nil
}

// sinkFile is a sink's output file, counting its size.
type sinkFile struct {
	io.WriteSeeker
	pos, size int64
}

func (f *sinkFile) Write(p []byte) (int, error) {
	n, err := f.WriteSeeker.Write(p)
	f.pos += int64(n)
	f.size = max(f.size, f.pos)
	return n, err
}

func (f *sinkFile) Seek(off int64, whence int) (int64, error) {
	n, err := f.WriteSeeker.Seek(off, whence)
	if err == nil {
		f.pos = n
	}
	return n, err
}

func (s *fileSink) finish() error {
	if s.cur == nil {
		return nil
	}
	t := time.Now()
	err := s.cur.Close()
	s.st.Elapsed += time.Since(t)
	if err != nil {
		return fmt.Errorf("%s: %w", s.curP, err)
	}
	s.st.Bytes += s.curF.size
	if err := s.env.finished(s.curF.WriteSeeker); err != nil {
		return fmt.Errorf("%s: %w", storage.Redact(s.curP), err)
	}
	s.st.Files = append(s.st.Files, s.curP)
	s.cur = nil
	return nil
}

func (s *fileSink) Begin(p *Part) error {
	if s.cur != nil && !s.path.perPart() {
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
	return s.start(s.c.ResolvePath(r))
}

func (s *fileSink) Push(b Batch) error {
	t := time.Now()
	err := s.cur.Write(b)
	s.st.Elapsed += time.Since(t)
	s.st.Rows += int64(b.Rows)
	if err != nil {
		return fmt.Errorf("%s: %w", s.curP, err)
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
	if s.cur == nil && !s.path.perPart() && len(s.st.Files) == 0 {
		// No input at all: still write an empty output.
		r, _ := s.path.render(nil)
		if err := s.start(s.c.ResolvePath(r)); err != nil {
			return err
		}
	}
	return s.finish()
}

// npyWriter streams rows into an .npy file, fixing the header on Close.
type npyWriter struct {
	w    *npyio.Writer
	rows int
	zero bool
}

func (w *npyWriter) Write(b Batch) error {
	w.rows += b.Rows
	_, err := w.w.Write(b.Data)
	return err
}

func (w *npyWriter) Close() error {
	if w.zero {
		return w.w.SetRows(w.rows)
	}
	return w.w.Close()
}

// rowPreserving are the transforms that keep every row of every part, so
// a 0-d input stays one row.
var rowPreserving = map[string]bool{"select": true, "drop": true, "rename": true, "cast": true, "flatten": true}

// npySink is the npy sink. A file made of one 0-d input (shape ()) that
// reached it through transforms keeping every row is written 0-d too,
// like numpy: np.save of np.load of it.
type npySink struct {
	*fileSink
	zeroD     bool // whether the input chain keeps 0-d inputs 0-d
	onePart   bool // the sink writes one file for all parts, and there is one
	nextZeroD bool // the file being opened gets one 0-d part
	known     bool // every row of the parts reaches the sink (knowRows)
	total     int64
	nextKnown bool  // the rows of the file being opened are known
	next      int64 // and are this many
}

// knowRows is told the parts when every row reaches the sink unchanged.
func (s *npySink) knowRows(parts []*Part) {
	for _, p := range parts {
		s.total += p.Rows
	}
	s.known = true
}

// zeroDKeeper is a sink that writes 0-d inputs back 0-d. The plan calls
// keepZeroD with the sink's input parts when every transform between the
// sources and the sink keeps every row.
type zeroDKeeper interface {
	keepZeroD(parts []*Part)
}

// rowsKeeper is a sink that records row counts in its outputs' metadata.
// The plan calls knowRows when the rows of its input parts reach it
// unchanged (no filter, slice or sample between).
type rowsKeeper interface {
	knowRows(parts []*Part)
}

func (s *npySink) keepZeroD(parts []*Part) {
	s.zeroD, s.onePart = true, len(parts) == 1
}

func (s *npySink) Begin(p *Part) error {
	s.nextZeroD = s.zeroD && p.zeroD && (s.path.perPart() || s.onePart)
	s.nextKnown, s.next = s.known, s.total
	if s.path.perPart() {
		s.next = p.Rows
	}
	return s.fileSink.Begin(p)
}

func (s *npySink) Finish() error {
	// No input at all: an empty file, written by Finish.
	s.nextKnown, s.next = s.known, s.total
	return s.fileSink.Finish()
}

// npy0dWriter writes a 0-d array: its one row is held until Close.
type npy0dWriter struct {
	f    io.Writer
	dt   *npyio.DType
	data []byte
	rows int
}

func (w *npy0dWriter) Write(b Batch) error {
	w.rows += b.Rows
	if w.rows > 1 {
		return fmt.Errorf("a 0-d input gave %d rows", w.rows)
	}
	w.data = append(w.data, b.Data...)
	return nil
}

func (w *npy0dWriter) Close() error {
	if w.rows != 1 {
		return fmt.Errorf("a 0-d input gave %d rows", w.rows)
	}
	nw, err := npyio.NewWriter(w.f, &npyio.Header{DType: w.dt, Shape: []int{}})
	if err != nil {
		return err
	}
	if _, err := nw.Write(w.data); err != nil {
		return err
	}
	return nw.Close()
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
	fs.seekable = func() bool { return !s.nextKnown }
	fs.open = func(f io.WriteSeeker) (batchWriter, error) {
		if s.nextZeroD && len(in.Shape) == 0 {
			return &npy0dWriter{f: f, dt: in.DType}, nil
		}
		if s.nextKnown {
			w, err := npyio.NewWriter(f, &npyio.Header{DType: in.DType, Shape: append([]int{int(s.next)}, in.Shape...)})
			if err != nil {
				return nil, err
			}
			return &npyWriter{w: w}, nil
		}
		w, err := npyio.NewStreamWriter(f, in.DType, in.Shape)
		if err != nil {
			return nil, err
		}
		return &npyWriter{w: w, zero: in.RowSize() == 0}, nil
	}
	return s, nil
}

// npzSink writes .npz archives: one archive per part or for all, and one
// member per part or one for all. Member data is spooled to a scratch file
// (the row count must be known before a zip member starts), then copied.
// A member made of one 0-d part (np.savez(lr=0.01)) that reached the sink
// through transforms keeping every row is written 0-d, like numpy.
type npzSink struct {
	*fileSink
	member *template
	zeroD  bool // whether the input chain keeps 0-d inputs 0-d
}

func (s *npzSink) keepZeroD([]*Part) { s.zeroD = true }

type npzWriter struct {
	s      *npzSink
	z      *npyio.NPZWriter
	key    string
	spool  *os.File
	rows   int64
	keys   map[string]bool
	schema *Schema
	parts  int  // parts in the current member
	zeroD  bool // every part of the current member is 0-d
}

func buildNPZSink(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	fs, err := newFileSink(c, in, env)
	if err != nil {
		return nil, err
	}
	mt, _, err := parseTemplate(c.String("member"))
	if err != nil {
		return nil, c.Errorf("member", "%v", err)
	}
	s := &npzSink{fileSink: fs, member: mt}
	fs.open = func(f io.WriteSeeker) (batchWriter, error) {
		return &npzWriter{s: s, z: npyio.NewNPZWriter(f, c.Bool("compressed")), keys: map[string]bool{}, schema: in}, nil
	}
	return s, nil
}

func (s *npzSink) Begin(p *Part) error {
	if err := s.fileSink.Begin(p); err != nil {
		return err
	}
	key, err := s.member.render(p.Vars)
	if err != nil {
		return s.c.Errorf("member", "%v", err)
	}
	w := s.cur.(*npzWriter)
	if err := w.startMember(key); err != nil {
		return err
	}
	w.parts++
	w.zeroD = w.zeroD && p.zeroD
	return nil
}

func (w *npzWriter) startMember(key string) error {
	if key == w.key && w.spool != nil {
		return nil
	}
	if err := w.endMember(); err != nil {
		return err
	}
	if w.keys[key] {
		return fmt.Errorf("%s: member %q written twice", w.s.c.Path(), key)
	}
	w.keys[key] = true
	f, err := w.s.env.out.scratchNear(w.s.curP)
	if err != nil {
		return err
	}
	w.key, w.spool, w.rows, w.parts, w.zeroD = key, f, 0, 0, true
	return nil
}

func (w *npzWriter) endMember() error {
	if w.spool == nil {
		return nil
	}
	f := w.spool
	w.spool = nil
	h := &npyio.Header{DType: w.schema.DType, Shape: append([]int{int(w.rows)}, w.schema.Shape...)}
	if w.s.zeroD && w.parts == 1 && w.zeroD && w.rows == 1 && len(w.schema.Shape) == 0 {
		h.Shape = []int{} // one 0-d input: a 0-d member, as numpy wrote it
	}
	mw, err := w.z.Create(w.key, h)
	if err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.Copy(mw, f); err != nil {
		return err
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

func (w *npzWriter) Write(b Batch) error {
	if w.spool == nil {
		if err := w.startMember(w.s.c.String("member")); err != nil {
			return err
		}
	}
	w.rows += int64(b.Rows)
	_, err := w.spool.Write(b.Data)
	return err
}

func (w *npzWriter) Close() error {
	if len(w.keys) == 0 {
		// No input: an archive with one empty member.
		if err := w.startMember(w.s.c.String("member")); err != nil {
			return err
		}
	}
	if err := w.endMember(); err != nil {
		return err
	}
	return w.z.Close()
}

func (s *npzSink) plannedPaths(parts []*Part) ([]string, error) {
	paths, err := s.fileSink.plannedPaths(parts)
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		if _, err := s.member.render(p.Vars); err != nil {
			return nil, s.c.Errorf("member", "%v", err)
		}
	}
	return paths, nil
}
