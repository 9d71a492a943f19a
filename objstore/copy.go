package objstore

import (
	"context"
	"fmt"
	"io"

	"github.com/npyflow/npyflow/internal/storage"
)

// Copy implements storage.Copier: an object copied within one bucket is
// copied by the store (S3 CopyObject, GCS rewrite, Azure Copy Blob), the
// data never passing through this process; across buckets it is
// streamed. Sharded runs (package shardrun) publish their staged objects
// this way, since object stores cannot rename.
func (b *bucketFS) Copy(ctx context.Context, from, to string) error {
	src, nf, err := b.open(ctx, from)
	if err != nil {
		return err
	}
	dst, nt, err := b.open(ctx, to)
	if err != nil {
		return err
	}
	if err := checkKey(to, nt); err != nil {
		return err
	}
	if src == dst {
		if err := src.Copy(ctx, nt.key, nf.key, nil); err != nil {
			return pathError("copy", from, err)
		}
		return nil
	}
	in, err := b.Open(ctx, from)
	if err != nil {
		return err
	}
	defer in.Close()
	w, err := b.Create(ctx, to, storage.CreateOptions{Sync: true})
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, io.NewSectionReader(in, 0, in.Size())); err != nil {
		w.Abort()
		return fmt.Errorf("copying %s to %s: %w", Redact(from), Redact(to), err)
	}
	return w.Commit()
}

var _ storage.Copier = (*bucketFS)(nil)
