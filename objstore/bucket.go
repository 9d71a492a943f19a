package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	gcs "cloud.google.com/go/storage"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/npyflow/npyflow/internal/storage"
)

// pathError is a *fs.PathError naming the object (redacted) whose message
// is scrubbed of secrets; errors.Is(err, fs.ErrNotExist) holds for a
// missing object.
func pathError(op, name string, err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound && !errors.Is(err, fs.ErrNotExist) {
		err = &scrubbed{msg: "no such object", err: fs.ErrNotExist}
	}
	return &fs.PathError{Op: op, Path: Redact(name), Err: scrub(err, name)}
}

func (b *bucketFS) open(ctx context.Context, name string) (*blob.Bucket, objName, error) {
	n, err := parseName(name)
	if err != nil {
		return nil, n, err
	}
	bk, err := b.bucket(ctx, n)
	if err != nil {
		return nil, n, &fs.PathError{Op: "open", Path: Redact(name), Err: err}
	}
	return bk, n, nil
}

func (b *bucketFS) Open(ctx context.Context, name string) (storage.File, error) {
	bk, n, err := b.open(ctx, name)
	if err != nil {
		return nil, err
	}
	if n.key == "" || strings.HasSuffix(n.key, "/") {
		return nil, &fs.PathError{Op: "open", Path: Redact(name), Err: storage.ErrIsDir}
	}
	a, err := bk.Attributes(ctx, n.key)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			if isDir, _ := b.isPrefix(ctx, bk, n.key); isDir {
				return nil, &fs.PathError{Op: "open", Path: Redact(name), Err: storage.ErrIsDir}
			}
		}
		return nil, pathError("open", name, err)
	}
	src := &blobSource{b: bk, key: n.key, name: name, etag: a.ETag, mod: a.ModTime, size: a.Size}
	var ga gcs.ObjectAttrs
	if a.As(&ga) {
		src.gen = ga.Generation
	}
	return &file{ctx: ctx, src: src, name: Redact(name), size: a.Size}, nil
}

// blobSource reads ranges of one version of a bucket object.
type blobSource struct {
	b         *blob.Bucket
	key, name string
	etag      string
	gen       int64 // GCS generation
	mod       time.Time
	size      int64
}

func (s *blobSource) get(ctx context.Context, off, n int64) (io.ReadCloser, error) {
	opts := &blob.ReaderOptions{BeforeRead: func(as func(any) bool) error {
		var in *s3.GetObjectInput
		if as(&in) && s.etag != "" {
			in.IfMatch = aws.String(s.etag)
			return nil
		}
		var oh **gcs.ObjectHandle
		if as(&oh) && s.gen != 0 {
			*oh = (*oh).If(gcs.Conditions{GenerationMatch: s.gen})
			return nil
		}
		var ao *azblobblob.DownloadStreamOptions
		if as(&ao) && s.etag != "" {
			e := azcore.ETag(s.etag)
			if ao.AccessConditions == nil {
				ao.AccessConditions = &azblobblob.AccessConditions{}
			}
			if ao.AccessConditions.ModifiedAccessConditions == nil {
				ao.AccessConditions.ModifiedAccessConditions = &azblobblob.ModifiedAccessConditions{}
			}
			ao.AccessConditions.ModifiedAccessConditions.IfMatch = &e
		}
		return nil
	}}
	r, err := s.b.NewRangeReader(ctx, s.key, off, n, opts)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.FailedPrecondition || gcerrors.Code(err) == gcerrors.NotFound {
			return nil, ErrChanged
		}
		return nil, scrub(err, s.name)
	}
	// Compare again: a store that ignores If-Match still reports the
	// version it served.
	changed := r.Size() != s.size
	var out s3.GetObjectOutput
	if r.As(&out) && s.etag != "" && out.ETag != nil && *out.ETag != s.etag {
		changed = true
	}
	var gr *gcs.Reader
	if r.As(&gr) && s.gen != 0 && gr.Attrs.Generation != s.gen {
		changed = true
	}
	if !r.ModTime().IsZero() && !s.mod.IsZero() && !r.ModTime().Equal(s.mod) {
		changed = true
	}
	if changed {
		r.Close()
		return nil, ErrChanged
	}
	return r, nil
}

func (b *bucketFS) isPrefix(ctx context.Context, bk *blob.Bucket, key string) (bool, error) {
	objs, _, err := bk.ListPage(ctx, blob.FirstPageToken, 1, &blob.ListOptions{Prefix: strings.TrimSuffix(key, "/") + "/"})
	return len(objs) > 0, err
}

func (b *bucketFS) Stat(ctx context.Context, name string) (storage.Info, error) {
	bk, n, err := b.open(ctx, name)
	if err != nil {
		return storage.Info{}, err
	}
	if n.key != "" && !strings.HasSuffix(n.key, "/") {
		a, err := bk.Attributes(ctx, n.key)
		if err == nil {
			return storage.Info{Name: name, Size: a.Size, ModTime: a.ModTime}, nil
		}
		if gcerrors.Code(err) != gcerrors.NotFound {
			return storage.Info{}, pathError("stat", name, err)
		}
	}
	if n.key == "" {
		if ok, err := bk.IsAccessible(ctx); err != nil || !ok {
			if err == nil {
				err = fs.ErrNotExist
			}
			return storage.Info{}, pathError("stat", name, err)
		}
		return storage.Info{Name: name, IsDir: true}, nil
	}
	ok, err := b.isPrefix(ctx, bk, n.key)
	if err != nil {
		return storage.Info{}, pathError("stat", name, err)
	}
	if !ok {
		return storage.Info{}, pathError("stat", name, fs.ErrNotExist)
	}
	return storage.Info{Name: name, IsDir: true}, nil
}

// List lists the objects and "directories" (common prefixes) directly
// under dir, one page of at most limit (1000 if limit <= 0 or larger) per
// call: the caller pages on with after. Keys are listed in the store's
// order (byte order for S3 and GCS), which is name order.
func (b *bucketFS) List(ctx context.Context, dir, after string, limit int) ([]storage.Info, bool, error) {
	bk, n, err := b.open(ctx, dir)
	if err != nil {
		return nil, false, err
	}
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	prefix := n.key
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	var afterKey string
	if after != "" {
		an, err := parseName(after)
		if err != nil {
			return nil, false, err
		}
		afterKey = an.key
	}
	opts := &blob.ListOptions{Prefix: prefix, Delimiter: "/", BeforeList: func(as func(any) bool) error {
		var in *s3.ListObjectsV2Input
		if afterKey != "" && as(&in) {
			in.StartAfter = aws.String(afterKey)
		}
		return nil
	}}
	var out []storage.Info
	token := blob.FirstPageToken
	for {
		objs, next, err := bk.ListPage(ctx, token, limit+1, opts)
		if err != nil {
			return nil, false, pathError("list", dir, err)
		}
		for _, o := range objs {
			key := strings.TrimSuffix(o.Key, "/")
			if afterKey != "" && key <= strings.TrimSuffix(afterKey, "/") {
				continue // stores without StartAfter: skip the listed part
			}
			if key == strings.TrimSuffix(prefix, "/") {
				continue // a "directory marker" object
			}
			if len(out) == limit {
				return out, true, nil
			}
			out = append(out, storage.Info{Name: n.with(key), Size: o.Size, IsDir: o.IsDir, ModTime: o.ModTime})
		}
		if len(next) == 0 {
			return out, false, nil
		}
		if len(out) == limit {
			// The next page may be empty, but saying "more" is safe.
			return out, true, nil
		}
		token = next
	}
}

func (b *bucketFS) Remove(ctx context.Context, name string) error {
	bk, n, err := b.open(ctx, name)
	if err != nil {
		return err
	}
	if err := bk.Delete(ctx, n.key); err != nil {
		return pathError("remove", name, err)
	}
	return nil
}

// checkKey refuses names that are not objects.
func checkKey(name string, n objName) error {
	if n.key == "" || strings.HasSuffix(n.key, "/") {
		return &fs.PathError{Op: "create", Path: Redact(name), Err: fmt.Errorf("not an object key: %w", storage.ErrIsDir)}
	}
	return nil
}
