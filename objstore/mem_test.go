package objstore

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/npyflow/npyflow/internal/storage"
)

// mem:// serves the behaviour tests from an in-memory gocloud bucket, so
// `make test` exercises the bucket backend (ranged reads, change checks,
// held and streamed uploads, paged listing) without a server.
var memFS = &bucketFS{scheme: "mem", buckets: map[string]*blob.Bucket{"mem://t": memblob.OpenBucket(nil)}}

func init() { storage.Register("mem", memFS) }

func TestSeekBackIntoUploadedBytes(t *testing.T) {
	defer func(p, h int) { partSize, holdMax = p, h }(partSize, holdMax)
	holdMax = 1000
	ctx := context.Background()
	w, err := storage.Create(ctx, "mem://t/seek.bin", storage.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(make([]byte, 400))
	if _, err := w.Seek(10, io.SeekStart); err != nil {
		t.Fatalf("seek within the held bytes: %v", err)
	}
	w.Seek(0, io.SeekEnd)
	w.Write(make([]byte, 700)) // past holdMax: uploaded
	if _, err := w.Seek(10, io.SeekStart); !errors.Is(err, ErrSeekUploaded) {
		t.Fatalf("seek into uploaded bytes: %v", err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.Stat(ctx, "mem://t/seek.bin"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("object after Abort: %v", err)
	}
}
