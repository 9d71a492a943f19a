package storage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/npyflow/npyflow/internal/atomicfile"
)

// Local is the local filesystem backend: names are paths (a file://
// prefix is dropped). Outputs are written to a temporary file beside
// their name (see internal/atomicfile) and renamed into place by Commit.
var Local FS = localFS{}

type localFS struct{}

func localPath(name string) string { return strings.TrimPrefix(name, "file://") }

// localFile is an *os.File with its size.
type localFile struct {
	*os.File
	size int64
}

func (f *localFile) Size() int64 { return f.size }

// ErrIsDir is returned by Open for a directory.
var ErrIsDir = errors.New("is a directory")

func (localFS) Open(_ context.Context, name string) (File, error) {
	f, err := os.Open(localPath(name))
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: name, Err: ErrIsDir}
	}
	return &localFile{File: f, size: st.Size()}, nil
}

// OpenFile wraps an open local file (a pipe or device included) as a
// File of the given size.
func OpenFile(f *os.File, size int64) File { return &localFile{File: f, size: size} }

func (localFS) Create(_ context.Context, name string, opts CreateOptions) (Writer, error) {
	p := localPath(name)
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return nil, &os.PathError{Op: "create", Path: name, Err: ErrIsDir}
	}
	f, err := atomicfile.Create(p)
	if err != nil {
		return nil, err
	}
	f.NoSync = !opts.Sync
	return localWriter{f}, nil
}

func (localFS) Stat(_ context.Context, name string) (Info, error) {
	st, err := os.Stat(localPath(name))
	if err != nil {
		return Info{}, err
	}
	return Info{Name: name, Size: st.Size(), IsDir: st.IsDir(), ModTime: st.ModTime()}, nil
}

func (localFS) List(_ context.Context, dir, after string, limit int) ([]Info, bool, error) {
	ents, err := os.ReadDir(localPath(dir)) // sorted by name
	if err != nil {
		return nil, false, err
	}
	i := 0
	if after != "" {
		last := filepath.Base(localPath(after))
		i = sort.Search(len(ents), func(i int) bool { return ents[i].Name() > last })
	}
	var out []Info
	for ; i < len(ents) && (limit <= 0 || len(out) < limit); i++ {
		e := ents[i]
		in := Info{Name: filepath.Join(dir, e.Name()), IsDir: e.IsDir()}
		if st, err := e.Info(); err == nil {
			in.Size, in.ModTime = st.Size(), st.ModTime()
		}
		out = append(out, in)
	}
	return out, i < len(ents), nil
}

func (localFS) Remove(_ context.Context, name string) error { return os.Remove(localPath(name)) }
