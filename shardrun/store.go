package shardrun

import (
	"os"
	"path/filepath"
)

// Store is where a sharded run keeps its state (manifests, markers): the
// seam an object-store backend plugs into. Writes must be atomic (a
// reader sees the old or the new contents, never a part) and durable
// when they return.
type Store interface {
	ReadFile(name string) ([]byte, error)
	WriteFileAtomic(name string, data []byte) error
	Remove(name string) error
}

// Local is the local filesystem Store.
var Local localStore

type localStore struct{}

func (localStore) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }
func (localStore) Remove(name string) error             { return os.Remove(name) }

// WriteFileAtomic writes a file through a synced temporary file renamed
// into place, so readers see the old or the new contents, never a part.
func (localStore) WriteFileAtomic(name string, data []byte) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	SyncDir(dir)
	return nil
}

// SyncDir makes a rename in dir durable where the platform allows.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
