package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// marker separates the destination's name from the PID in a temporary
// file's name.
const marker = ".npyflow-tmp-"

// Mode is the permission a committed file gets, less the umask.
const Mode fs.FileMode = 0o644

// File is a temporary file that becomes its destination on Commit. It is
// an *os.File for writing; it is not safe for concurrent use.
type File struct {
	*os.File
	path  string
	done  bool
	dirty int64 // bytes written since writeback was last started

	// NoSync makes Commit rename without flushing the data to disk first:
	// the destination is still all-or-nothing if the process dies, but
	// not across a power cut. Set it before writing.
	NoSync bool
}

// writebackEvery is how many bytes Write lets accumulate before it starts
// writing them to disk in the background; Commit's fsync then has little
// left to do, and the disk works while the data is being produced.
const writebackEvery = 16 << 20

// Write writes p to the temporary file, starting background writeback
// every writebackEvery bytes.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	f.dirty += int64(n)
	if f.dirty >= writebackEvery && !f.NoSync {
		f.dirty = 0
		startWriteback(f)
	}
	return n, err
}

// Create removes stale temporary files of path (see [CleanStale]) and
// opens a new temporary file next to path for writing.
func Create(path string) (*File, error) {
	CleanStale(path)
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	var lastErr error
	for range 10 {
		var r [6]byte
		if _, err := rand.Read(r[:]); err != nil {
			return nil, err
		}
		name := filepath.Join(dir, "."+base+marker+strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(r[:]))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, Mode)
		if errors.Is(err, fs.ErrExist) {
			lastErr = err
			continue
		}
		if err != nil {
			return nil, err
		}
		return &File{File: f, path: path}, nil
	}
	return nil, lastErr
}

// Path returns the destination.
func (f *File) Path() string { return f.path }

// Commit makes the written file the destination: it flushes the data to
// disk (unless NoSync), closes the file and renames it over the
// destination, then flushes the directory. On error the temporary file is removed and the
// destination is as it was. Commit after Commit or Abort does nothing.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	tmp := f.Name()
	if !f.NoSync {
		if err := f.Sync(); err != nil {
			f.File.Close()
			os.Remove(tmp)
			return err
		}
	}
	if err := f.File.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, f.path); err != nil {
		os.Remove(tmp)
		return err
	}
	if !f.NoSync {
		syncDir(filepath.Dir(f.path))
	}
	return nil
}

// Abort closes and removes the temporary file, leaving the destination as
// it was. Abort after Commit or Abort does nothing.
func (f *File) Abort() error {
	if f.done {
		return nil
	}
	f.done = true
	f.File.Close()
	return os.Remove(f.Name())
}

// Close is Abort: a File becomes its destination only by Commit.
func (f *File) Close() error { return f.Abort() }

// syncDir flushes a directory's entries (the rename) to disk, where the
// system supports it; failure only weakens durability, not atomicity.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// CleanStale removes the temporary files of path left by processes that
// no longer exist, and returns their names. Errors listing the directory
// or removing a file are returned after trying every file.
func CleanStale(path string) ([]string, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	prefix := "." + base + marker
	var removed []string
	var errs []error
	for _, e := range ents {
		pid, ok := tempPID(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, p)
	}
	return removed, errors.Join(errs...)
}

// tempPID parses "PREFIX<pid>-<hex>".
func tempPID(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	p, r, ok := strings.Cut(rest, "-")
	if !ok || r == "" {
		return 0, false
	}
	if _, err := hex.DecodeString(r); err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 || strconv.Itoa(pid) != p {
		return 0, false
	}
	return pid, true
}
