package shardrun

import (
	"context"
	"os"

	"github.com/npyflow/npyflow/internal/storage"
)

// Store is where a sharded run keeps its state (plans, manifests,
// markers). Writes are atomic (a reader sees the old or the new
// contents, never a part) and durable when they return.
type Store interface {
	ReadFile(name string) ([]byte, error)
	WriteFileAtomic(name string, data []byte) error
	Remove(name string) error
}

// Files is the Store of every name: a local path, or a URL of a backend
// registered with internal/storage (s3://bucket/key). Local files are
// written through a synced temporary file renamed into place; objects
// appear whole when their upload completes.
var Files Store = storageStore{}

// Local is Files, under its earlier name.
var Local = Files

// maxStateFile bounds the size of a state file read back (a manifest of
// millions of inputs is some hundreds of MB).
const maxStateFile = 2 << 30

type storageStore struct{}

func (storageStore) ReadFile(name string) ([]byte, error) {
	return storage.ReadFile(context.Background(), name, maxStateFile)
}

func (storageStore) Remove(name string) error { return storage.Remove(context.Background(), name) }

func (storageStore) WriteFileAtomic(name string, data []byte) error {
	ctx := context.Background()
	if err := storage.MkdirAll(ctx, Dir(name)); err != nil {
		return err
	}
	return storage.WriteFile(ctx, name, data)
}

// SyncDir makes a rename in a local directory durable where the platform
// allows; it does nothing for URLs.
func SyncDir(dir string) {
	if isURL(dir) {
		return
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
