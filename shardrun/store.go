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
	ReadFile(ctx context.Context, name string) ([]byte, error)
	WriteFileAtomic(ctx context.Context, name string, data []byte) error
	Remove(ctx context.Context, name string) error
}

// Files is the Store of every name: a local path, or a URL of a backend
// registered with internal/storage (s3://bucket/key). Local files are
// written through a synced temporary file renamed into place; objects
// appear whole when their upload completes.
var Files Store = storageStore{}

// maxStateFile bounds the size of a state file read back (a manifest of
// millions of inputs is some hundreds of MB).
const maxStateFile = 2 << 30

type storageStore struct{}

func (storageStore) ReadFile(ctx context.Context, name string) ([]byte, error) {
	return storage.ReadFile(ctx, name, maxStateFile)
}

func (storageStore) Remove(ctx context.Context, name string) error { return storage.Remove(ctx, name) }

func (storageStore) WriteFileAtomic(ctx context.Context, name string, data []byte) error {
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
