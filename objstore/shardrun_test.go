package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"testing"

	"github.com/npyflow/npyflow/internal/storage"

	"github.com/npyflow/npyflow/shardrun/shardruntest"
)

// Sharded runs with their state and outputs in a bucket (package
// shardrun: staging prefix, commit by copy, _SUCCESS last): the
// behaviour tests of shardruntest on the in-memory gocloud bucket, and on
// S3 when a server is given (make test-s3).

func TestBucketShardRun(t *testing.T) { shardruntest.Run(t, "mem://t/shardrun") }
func TestS3ShardRun(t *testing.T)     { shardruntest.Run(t, s3Root(t, "shardrun")) }

// TestBucketCopy: storage.Copy within a bucket (the backend's
// server-side copy) gives the same bytes, and a missing source is
// fs.ErrNotExist.
func TestBucketCopy(t *testing.T) {
	ctx := context.Background()
	data := bytes.Repeat([]byte("npyflow "), 10000)
	if err := storage.WriteFile(ctx, "mem://t/copy/a.bin", data); err != nil {
		t.Fatal(err)
	}
	if err := storage.Copy(ctx, "mem://t/copy/a.bin", "mem://t/copy/sub/b.bin"); err != nil {
		t.Fatal(err)
	}
	got, err := storage.ReadFile(ctx, "mem://t/copy/sub/b.bin", 1<<20)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("copy holds %d bytes (%v), want %d", len(got), err, len(data))
	}
	if err := storage.Copy(ctx, "mem://t/copy/missing", "mem://t/copy/c.bin"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("copy of a missing object: %v", err)
	}
}

func TestAzureShardRun(t *testing.T) { shardruntest.Run(t, azRoot(t, "shardrun")) }
