package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Optional capabilities of a backend. Sharded runs (package shardrun)
// use them when a backend has them and fall back otherwise: a filesystem
// renames staged files into place, an object store (no rename) copies
// them, server-side where the store can.

// Renamer is a backend that can move a name to another atomically (a
// POSIX rename within one filesystem): the destination shows the old or
// the new data, never a mix, and the source is gone afterwards.
type Renamer interface {
	Rename(ctx context.Context, from, to string) error
}

// Copier is a backend that copies an object without the data passing
// through this process (S3 CopyObject, GCS rewrite). The destination
// appears all at once, as with Create.
type Copier interface {
	Copy(ctx context.Context, from, to string) error
}

// CreateNewer is a backend that can create a small file only if its name
// does not exist yet (O_EXCL; an If-None-Match: * conditional write on
// object stores that have one): the loser of a race gets an error
// wrapping fs.ErrExist.
type CreateNewer interface {
	CreateNew(ctx context.Context, name string, data []byte) error
}

// ErrNoRename is returned by Rename for a backend that cannot rename.
var ErrNoRename = errors.New("storage: the backend cannot rename")

// CanRename reports whether name's backend renames atomically.
func CanRename(name string) bool {
	b, err := For(name)
	if err != nil {
		return false
	}
	_, ok := b.(Renamer)
	return ok
}

// Rename moves from to to on their backend, or fails with ErrNoRename
// (see Renamer). Both names must be on the same backend.
func Rename(ctx context.Context, from, to string) error {
	b, err := For(from)
	if err != nil {
		return err
	}
	if Scheme(from) != Scheme(to) && !(isLocal(from) && isLocal(to)) {
		return fmt.Errorf("storage: rename %s to %s: different backends", from, to)
	}
	r, ok := b.(Renamer)
	if !ok {
		return &fs.PathError{Op: "rename", Path: from, Err: ErrNoRename}
	}
	return r.Rename(ctx, from, to)
}

// Copy copies from to to: server-side where the backend is a Copier,
// else by streaming the data through Open and Create. The destination
// appears only when complete.
func Copy(ctx context.Context, from, to string) error {
	if Scheme(from) == Scheme(to) || (isLocal(from) && isLocal(to)) {
		if b, err := For(from); err == nil {
			if c, ok := b.(Copier); ok {
				return c.Copy(ctx, from, to)
			}
		}
	}
	in, err := Open(ctx, from)
	if err != nil {
		return err
	}
	defer in.Close()
	w, err := Create(ctx, to, CreateOptions{Sync: true})
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, io.NewSectionReader(in, 0, in.Size())); err != nil {
		w.Abort()
		return err
	}
	return w.Commit()
}

// CreateNew writes data to name only if name does not exist, failing
// with an error wrapping fs.ErrExist otherwise. Where the backend is not
// a CreateNewer it checks with Stat, then writes: two racing callers may
// then both succeed, the later write winning.
func CreateNew(ctx context.Context, name string, data []byte) error {
	b, err := For(name)
	if err != nil {
		return err
	}
	if c, ok := b.(CreateNewer); ok {
		return c.CreateNew(ctx, name, data)
	}
	if _, err := b.Stat(ctx, name); err == nil {
		return &fs.PathError{Op: "create", Path: name, Err: fs.ErrExist}
	}
	return WriteFile(ctx, name, data)
}

// WriteFile writes data to name atomically and durably (Create with
// Sync, then Commit).
func WriteFile(ctx context.Context, name string, data []byte) error {
	w, err := Create(ctx, name, CreateOptions{Sync: true})
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return err
	}
	return w.Commit()
}

// ReadFile reads all of name, refusing files over limit bytes (limit <=
// 0: no limit) before allocating.
func ReadFile(ctx context.Context, name string, limit int64) ([]byte, error) {
	f, err := Open(ctx, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if limit > 0 && f.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d expected", name, f.Size(), limit)
	}
	b := make([]byte, f.Size())
	if _, err := f.ReadAt(b, 0); err != nil && !(errors.Is(err, io.EOF) && f.Size() == 0) {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

func isLocal(name string) bool { s := Scheme(name); return s == "" || s == "file" }

// Rename renames within the local filesystem, making the destination's
// directory first.
func (localFS) Rename(_ context.Context, from, to string) error {
	to = localPath(to)
	if err := os.MkdirAll(filepath.Dir(to), 0o777); err != nil {
		return err
	}
	return os.Rename(localPath(from), to)
}

// CreateNew creates a file with O_EXCL.
func (localFS) CreateNew(_ context.Context, name string, data []byte) error {
	p := localPath(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// DirMaker is a backend with directories that must exist before files
// are created in them. Object stores have none: MkdirAll does nothing.
type DirMaker interface {
	MkdirAll(ctx context.Context, dir string) error
}

// MkdirAll makes dir and its parents where the backend has directories.
func MkdirAll(ctx context.Context, dir string) error {
	b, err := For(dir)
	if err != nil {
		return err
	}
	if m, ok := b.(DirMaker); ok {
		return m.MkdirAll(ctx, dir)
	}
	return nil
}

// MkdirAll makes a local directory and its parents.
func (localFS) MkdirAll(_ context.Context, dir string) error {
	return os.MkdirAll(localPath(dir), 0o777)
}
