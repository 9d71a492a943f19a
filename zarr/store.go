package zarr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/npyflow/npyflow/internal/storage"
)

// Store is the key-value store a Zarr hierarchy lives in. Keys are
// "/"-separated paths relative to the store's root ("a/b/zarr.json").
type Store interface {
	// Size returns the size of key's value, or an error wrapping
	// fs.ErrNotExist when there is none.
	Size(ctx context.Context, key string) (int64, error)
	// ReadAt reads len(p) bytes of key's value from offset off.
	ReadAt(ctx context.Context, key string, p []byte, off int64) error
	// Put stores value at key, replacing what was there; a reader never
	// sees part of it.
	Put(ctx context.Context, key string, value []byte) error
	// List returns the keys that start with prefix, in order.
	List(ctx context.Context, prefix string) ([]string, error)
}

// maxMetadata bounds a metadata document: JSON past this is refused
// before it is read.
const maxMetadata = 64 << 20

// get reads key's whole value, refusing values larger than limit before
// allocating.
func get(ctx context.Context, s Store, key string, limit int64) ([]byte, error) {
	n, err := s.Size(ctx, key)
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d it may have", key, n, limit)
	}
	b := make([]byte, n)
	if err := s.ReadAt(ctx, key, b, 0); err != nil {
		return nil, err
	}
	return b, nil
}

// FSStore is a Store on npyflow's storage layer: a local directory, or a
// bucket prefix (s3://, gs://, azblob://, https:// once objstore is
// imported). Values are files (objects) under Root.
type FSStore struct {
	Root string

	mu    sync.Mutex
	files map[string]storage.File // open inputs, kept for repeated ranged reads
}

// NewFSStore returns the store rooted at root.
func NewFSStore(root string) *FSStore {
	return &FSStore{Root: strings.TrimSuffix(root, "/")}
}

func (s *FSStore) name(key string) string { return s.Root + "/" + key }

func (s *FSStore) open(ctx context.Context, key string) (storage.File, error) {
	s.mu.Lock()
	f := s.files[key]
	s.mu.Unlock()
	if f != nil {
		return f, nil
	}
	f, err := storage.Open(ctx, s.name(key))
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.files == nil {
		s.files = map[string]storage.File{}
	}
	if g := s.files[key]; g != nil {
		s.mu.Unlock()
		f.Close()
		return g, nil
	}
	if len(s.files) > 64 { // keep few handles open
		for k, g := range s.files {
			g.Close()
			delete(s.files, k)
		}
	}
	s.files[key] = f
	s.mu.Unlock()
	return f, nil
}

// Size implements Store.
func (s *FSStore) Size(ctx context.Context, key string) (int64, error) {
	info, err := storage.Stat(ctx, s.name(key))
	if err != nil {
		return 0, err
	}
	if info.IsDir {
		return 0, &fs.PathError{Op: "open", Path: s.name(key), Err: fs.ErrNotExist}
	}
	return info.Size, nil
}

// ReadAt implements Store.
func (s *FSStore) ReadAt(ctx context.Context, key string, p []byte, off int64) error {
	f, err := s.open(ctx, key)
	if err != nil {
		return err
	}
	if off < 0 || off+int64(len(p)) > f.Size() {
		return fmt.Errorf("%s: read of %d bytes at %d past its end (%d bytes)", key, len(p), off, f.Size())
	}
	_, err = f.ReadAt(p, off)
	if err == io.EOF {
		err = nil
	}
	return err
}

// Put implements Store.
func (s *FSStore) Put(ctx context.Context, key string, value []byte) error {
	s.mu.Lock()
	if f := s.files[key]; f != nil {
		f.Close()
		delete(s.files, key)
	}
	s.mu.Unlock()
	if storage.Scheme(s.Root) == "" {
		return putLocal(strings.TrimPrefix(s.name(key), "file://"), value)
	}
	w, err := storage.Create(ctx, s.name(key), storage.CreateOptions{})
	if err != nil {
		return err
	}
	if _, err := w.Write(value); err != nil {
		w.Abort()
		return err
	}
	return w.Commit()
}

// List implements Store.
func (s *FSStore) List(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	var walk func(dir string) error
	walk = func(dir string) error {
		after := ""
		for {
			page, more, err := storage.List(ctx, s.name(dir), after, 1000)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			for _, e := range page {
				rel := strings.TrimPrefix(strings.TrimPrefix(e.Name, s.Root), "/")
				if e.IsDir {
					if err := walk(rel); err != nil {
						return err
					}
				} else if strings.HasPrefix(rel, prefix) {
					keys = append(keys, rel)
				}
				after = e.Name
			}
			if !more || len(page) == 0 {
				return nil
			}
		}
	}
	dir := prefix
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		dir = dir[:i]
	} else {
		dir = ""
	}
	if err := walk(dir); err != nil {
		return nil, err
	}
	sort.Strings(keys)
	return keys, nil
}

// ShareRoot gives a local store's root directory the mode a directory
// made by os.MkdirAll gets (0777 less the umask), as the store's other
// directories have: a root made by os.MkdirTemp (a staging directory)
// has 0700. A bucket prefix has no mode: nothing is done.
func (s *FSStore) ShareRoot() error {
	if storage.Scheme(s.Root) != "" {
		return nil
	}
	return os.Chmod(strings.TrimPrefix(s.Root, "file://"), os.FileMode(0o777&^umask))
}

// Close releases the files the store holds open.
func (s *FSStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, f := range s.files {
		f.Close()
		delete(s.files, k)
	}
	return nil
}

// MemStore is a Store in memory, for tests and small arrays.
type MemStore struct {
	mu sync.Mutex
	M  map[string][]byte
}

// Size implements Store.
func (m *MemStore) Size(_ context.Context, key string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.M[key]
	if !ok {
		return 0, &fs.PathError{Op: "open", Path: key, Err: fs.ErrNotExist}
	}
	return int64(len(v)), nil
}

// ReadAt implements Store.
func (m *MemStore) ReadAt(_ context.Context, key string, p []byte, off int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.M[key]
	if !ok {
		return &fs.PathError{Op: "open", Path: key, Err: fs.ErrNotExist}
	}
	if off < 0 || off+int64(len(p)) > int64(len(v)) {
		return fmt.Errorf("%s: read past its end", key)
	}
	copy(p, v[off:])
	return nil
}

// Put implements Store.
func (m *MemStore) Put(_ context.Context, key string, value []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.M == nil {
		m.M = map[string][]byte{}
	}
	m.M[key] = append([]byte(nil), value...)
	return nil
}

// List implements Store.
func (m *MemStore) List(_ context.Context, prefix string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var keys []string
	for k := range m.M {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// putLocal writes a local file whole: a temporary file beside it, renamed
// into place (a chunk store holds many files, so no directory scan per
// file as internal/atomicfile's stale-file cleanup would do).
func putLocal(name string, value []byte) error {
	dir := filepath.Dir(name)
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp-*")
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(dir, 0o777); err == nil {
			f, err = os.CreateTemp(dir, "."+filepath.Base(name)+".tmp-*")
		}
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(value); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Chmod(f.Name(), os.FileMode(0o666&^umask)); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), name); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
