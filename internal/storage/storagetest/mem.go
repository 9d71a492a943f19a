// Package storagetest provides an in-process object store for tests: a
// storage.FS kept in memory that behaves like a bucket (flat keys, no
// directories, no rename, objects appear whole on Commit), so code meant
// for S3 or GCS can be tested without a server. It is not a substitute
// for tests against a real S3-compatible server: it has no latency, no
// eventual consistency and no multipart uploads.
package storagetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/npyflow/npyflow/internal/storage"
)

// Mem is an in-memory bucket store serving names scheme://bucket/key.
// Its zero value is not usable: call NewMem.
type Mem struct {
	scheme string
	mu     sync.Mutex
	objs   map[string]memObj // by key (the name less scheme://)
	// Copies counts server-side copies, Creates committed writes,
	// Seekables writes created with CreateOptions.Seekable (which an
	// object store's backend spools to local disk), Aborts aborted
	// writes.
	Copies, Creates, Seekables, Aborts int
	// FailCreate, if set, is called on every Create; an error it returns
	// fails the Create (to inject faults).
	FailCreate func(name string) error
	// BeforeCopy, if set, is called at the start of every Copy with its
	// context; an error it returns fails the Copy, which then copies
	// nothing (to interrupt a commit in the middle of a copy).
	BeforeCopy func(ctx context.Context, from, to string) error
}

type memObj struct {
	data []byte
	mod  time.Time
}

var (
	regMu sync.Mutex
	reg   = map[string]*Mem{}
)

// NewMem returns the store registered for scheme, registering an empty
// one on first use. Each call returns the same store for a scheme; use
// Reset, or a fresh bucket name per test, to start empty.
func NewMem(scheme string) *Mem {
	regMu.Lock()
	defer regMu.Unlock()
	if m := reg[scheme]; m != nil {
		return m
	}
	m := &Mem{scheme: scheme, objs: map[string]memObj{}}
	storage.Register(scheme, memFS{m})
	reg[scheme] = m
	return m
}

// Reset removes every object.
func (m *Mem) Reset() {
	m.mu.Lock()
	m.objs = map[string]memObj{}
	m.mu.Unlock()
}

// Keys lists the names of the objects under prefix (a full name), sorted.
func (m *Mem) Keys(prefix string) []string {
	p := m.key(prefix)
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k := range m.objs {
		if strings.HasPrefix(k, p) {
			out = append(out, m.name(k))
		}
	}
	sort.Strings(out)
	return out
}

// Bytes returns an object's data, or nil.
func (m *Mem) Bytes(name string) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objs[m.key(name)]
	if !ok {
		return nil
	}
	return append([]byte(nil), o.data...)
}

// key is the object key of a name: names are URLs, their paths
// percent-encoded (as with the gocloud backends), so "a%25b" is key "a%b".
func (m *Mem) key(name string) string {
	k := strings.TrimPrefix(name, m.scheme+"://")
	if i := strings.IndexByte(k, '?'); i >= 0 {
		k = k[:i]
	}
	if u, err := url.PathUnescape(k); err == nil {
		k = u
	}
	return k
}

// name is the URL of a key.
func (m *Mem) name(key string) string {
	return m.scheme + "://" + (&url.URL{Path: key}).EscapedPath()
}

// memFS is the storage.FS of a Mem (a separate type so that Mem's
// exported fields and methods are not mistaken for the backend's).
type memFS struct{ m *Mem }

func notExist(op, name string) error {
	return &fs.PathError{Op: op, Path: storage.Redact(name), Err: fs.ErrNotExist}
}

type memFile struct {
	*bytes.Reader
	size int64
}

func (f *memFile) Size() int64  { return f.size }
func (f *memFile) Close() error { return nil }

func (b memFS) Open(_ context.Context, name string) (storage.File, error) {
	m := b.m
	m.mu.Lock()
	o, ok := m.objs[m.key(name)]
	m.mu.Unlock()
	if !ok {
		return nil, notExist("open", name)
	}
	return &memFile{Reader: bytes.NewReader(o.data), size: int64(len(o.data))}, nil
}

// memWriter buffers an object until Commit.
type memWriter struct {
	m    *Mem
	name string
	buf  []byte
	off  int64
	done bool
}

func (w *memWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, errors.New("storagetest: write after Commit or Abort")
	}
	end := w.off + int64(len(p))
	if end > int64(len(w.buf)) {
		w.buf = append(w.buf, make([]byte, end-int64(len(w.buf)))...)
	}
	copy(w.buf[w.off:], p)
	w.off = end
	return len(p), nil
}

func (w *memWriter) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += w.off
	case io.SeekEnd:
		off += int64(len(w.buf))
	}
	if off < 0 {
		return 0, errors.New("storagetest: negative seek")
	}
	w.off = off
	return off, nil
}

func (w *memWriter) Commit() error {
	if w.done {
		return nil
	}
	w.done = true
	w.m.mu.Lock()
	w.m.objs[w.m.key(w.name)] = memObj{data: w.buf, mod: time.Now()}
	w.m.Creates++
	w.m.mu.Unlock()
	return nil
}

func (w *memWriter) Abort() error {
	if !w.done {
		w.m.mu.Lock()
		w.m.Aborts++
		w.m.mu.Unlock()
	}
	w.done = true
	return nil
}

func (b memFS) Create(_ context.Context, name string, opts storage.CreateOptions) (storage.Writer, error) {
	if f := b.m.FailCreate; f != nil {
		if err := f(name); err != nil {
			return nil, err
		}
	}
	if k := b.m.key(name); k == "" || strings.HasSuffix(k, "/") {
		return nil, fmt.Errorf("storagetest: create %s: not an object name", storage.Redact(name))
	}
	if opts.Seekable {
		b.m.mu.Lock()
		b.m.Seekables++
		b.m.mu.Unlock()
	}
	return &memWriter{m: b.m, name: name}, nil
}

func (b memFS) Stat(_ context.Context, name string) (storage.Info, error) {
	m := b.m
	k := strings.TrimSuffix(m.key(name), "/")
	m.mu.Lock()
	defer m.mu.Unlock()
	if o, ok := m.objs[k]; ok {
		return storage.Info{Name: name, Size: int64(len(o.data)), ModTime: o.mod}, nil
	}
	for key := range m.objs {
		if strings.HasPrefix(key, k+"/") {
			return storage.Info{Name: name, IsDir: true}, nil
		}
	}
	return storage.Info{}, notExist("stat", name)
}

// List lists dir like a bucket listing with delimiter "/": objects
// directly under dir, and each deeper prefix once, as a directory. A
// ?query of dir is kept on the names returned.
func (b memFS) List(_ context.Context, dir, after string, limit int) ([]storage.Info, bool, error) {
	m := b.m
	base, query := dir, ""
	if i := strings.IndexByte(dir, '?'); i >= 0 {
		base, query = dir[:i], dir[i:]
	}
	base = strings.TrimSuffix(base, "/")
	prefix := strings.TrimSuffix(m.key(dir), "/") + "/"
	afterName := ""
	if after != "" {
		afterName = after
		if i := strings.IndexByte(afterName, '?'); i >= 0 {
			afterName = afterName[:i]
		}
		afterName = strings.TrimSuffix(afterName, "/")
		afterName = afterName[strings.LastIndexByte(afterName, '/')+1:]
		if u, err := url.PathUnescape(afterName); err == nil {
			afterName = u
		}
	}
	m.mu.Lock()
	children := map[string]storage.Info{}
	for k, o := range m.objs {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			n := rest[:i]
			children[n] = storage.Info{Name: base + "/" + escape(n) + query, IsDir: true}
			continue
		}
		children[rest] = storage.Info{Name: base + "/" + escape(rest) + query, Size: int64(len(o.data)), ModTime: o.mod}
	}
	m.mu.Unlock()
	if len(children) == 0 {
		return nil, false, notExist("list", dir)
	}
	names := make([]string, 0, len(children))
	for n := range children {
		if n > afterName {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	more := false
	if limit > 0 && len(names) > limit {
		names, more = names[:limit], true
	}
	out := make([]storage.Info, len(names))
	for i, n := range names {
		out[i] = children[n]
	}
	return out, more, nil
}

// escape percent-encodes one key element for a name.
func escape(elem string) string { return (&url.URL{Path: elem}).EscapedPath() }

func (b memFS) Remove(_ context.Context, name string) error {
	m := b.m
	m.mu.Lock()
	defer m.mu.Unlock()
	k := m.key(name)
	if _, ok := m.objs[k]; !ok {
		return notExist("remove", name)
	}
	delete(m.objs, k)
	return nil
}

// Copy is a server-side copy.
func (b memFS) Copy(ctx context.Context, from, to string) error {
	m := b.m
	if m.BeforeCopy != nil {
		if err := m.BeforeCopy(ctx, from, to); err != nil {
			return err
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objs[m.key(from)]
	if !ok {
		return notExist("copy", from)
	}
	m.objs[m.key(to)] = memObj{data: o.data, mod: time.Now()}
	m.Copies++
	return nil
}
