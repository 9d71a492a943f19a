// Package objstore serves npyflow's inputs and outputs from object stores:
// importing it (blank import) registers storage backends for
//
//	s3://bucket/key      Amazon S3 and S3-compatible stores (MinIO, SeaweedFS, R2, Ceph)
//	gs://bucket/key      Google Cloud Storage
//	azblob://container/key  Azure Blob Storage
//	https://host/path    any HTTP server answering ranged GETs (read-only; http:// too)
//
// on gocloud.dev/blob. Credentials and endpoints come the way each cloud's
// tools take them (AWS_PROFILE, AWS_REGION, AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID;
// GOOGLE_APPLICATION_CREDENTIALS; AZURE_STORAGE_ACCOUNT and friends) and per
// URL through gocloud's query parameters, e.g.
// s3://bucket/x.npy?endpoint=http://127.0.0.1:8333&use_path_style=true&region=us-east-1&disable_https=true.
// An s3:// URL with an endpoint (parameter or AWS_ENDPOINT_URL) uses
// path-style addressing unless use_path_style says otherwise, and asks for
// checksums only where required, as S3-compatible stores expect.
//
// Reading: Open records the object's size and ETag; every read is a ranged
// GET carrying If-Match with that ETag (S3, Azure, HTTP; GCS: the generation)
// and the ETag (or generation) of each response is compared again, so an
// object replaced during a read is an error wrapping [ErrChanged], never a
// mix of two versions. Sequential reads stream one GET from the current
// offset through a 256 KiB read-ahead buffer; small ReadAt calls read a
// 64 KiB block that is kept for the next call (Parquet footers, zip
// central directories). Transient errors (connection resets, truncated
// bodies, 5xx, throttling) are retried from the failed offset with
// exponential backoff, up to 6 attempts.
//
// Writing: objects are written with multipart uploads streamed part by
// part (8 MiB parts, 4 in flight), and appear only when Commit completes
// the upload. Memory is bounded per output, whatever its size: on S3
// about 57 MiB (the transfer manager's 5 part buffers, its first read of
// up to 16 MiB, the 1 MiB held back). Abort (or a
// cancelled context) aborts the multipart upload, so no parts are left
// behind. The first 1 MiB is held back until the upload starts, so a
// writer may seek back within it (the .npy stream writer patches its
// header there); seeking back further than the held bytes is an error
// unless the output was created with CreateOptions.Seekable, which spools
// to a local temporary file (disk, not memory) and uploads on Commit.
//
// Listing: List returns one page (at most 1000 keys) per call through the
// store's delimiter listing, so globs over millions of objects are never
// held in memory at once.
//
// Limits: no rename (sharded-run commits use manifests and markers
// instead); keys containing '?' or '#' cannot be named; https:// is
// read-only; errors never contain query parameter values or userinfo
// (see [Redact]).
//
// Where things live: objstore.go registers the backends and redacts
// names, bucket.go opens buckets and serves Open, Stat, List and Remove,
// read.go the ranged, ETag-checked reads, write.go the multipart uploads,
// copy.go server-side copies, http.go the read-only https:// backend.
package objstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob" // azblob://
	_ "gocloud.dev/blob/gcsblob"   // gs://
	_ "gocloud.dev/blob/s3blob"    // s3://

	"github.com/npyflow/npyflow/internal/storage"
)

func init() {
	for _, s := range []string{"s3", "gs", "azblob"} {
		storage.Register(s, &bucketFS{scheme: s})
	}
	storage.Register("https", httpFS{})
	storage.Register("http", httpFS{})
}

// ErrChanged is wrapped by read errors when the object changed (another
// ETag or generation) after it was opened.
var ErrChanged = errors.New("object changed while it was being read")

// ErrSeekUploaded is returned by a writer's Seek to bytes already uploaded.
var ErrSeekUploaded = errors.New("cannot seek back into bytes already uploaded (create the output with Seekable to spool it)")

// Redact returns name with the userinfo and the values of query
// parameters replaced by "REDACTED", except harmless s3 parameters
// (region, use_path_style, disable_https, the endpoint's scheme and host);
// see storage.Redact. Error messages of this package name objects only
// this way.
func Redact(name string) string { return storage.Redact(name) }

func redactValue(scheme, k, v string) string { return storage.RedactValue(scheme, k, v) }

// scrubbed is an error whose message has secrets replaced.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// scrub removes every query value and userinfo of name from err's message.
func scrub(err error, name string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	red := Redact(name)
	changed := false
	if red != name && strings.Contains(msg, name) {
		msg, changed = strings.ReplaceAll(msg, name, red), true
	}
	if u, e := url.Parse(name); e == nil {
		var secrets []string
		if p, ok := u.User.Password(); ok {
			secrets = append(secrets, p)
		}
		if u.User != nil && u.User.Username() != "" {
			secrets = append(secrets, u.User.Username())
		}
		for k, vs := range u.Query() {
			for _, v := range vs {
				if redactValue(u.Scheme, k, v) == "REDACTED" && len(v) >= 3 {
					secrets = append(secrets, v, url.QueryEscape(v))
				}
			}
		}
		for _, s := range secrets {
			if s != "" && strings.Contains(msg, s) {
				msg, changed = strings.ReplaceAll(msg, s, "REDACTED"), true
			}
		}
	}
	if !changed {
		return err
	}
	return &scrubbed{msg: msg, err: err}
}

// objName is a parsed object URL.
type objName struct {
	scheme, host, key, query string
}

func parseName(name string) (objName, error) {
	u, err := url.Parse(name)
	if err != nil {
		return objName{}, fmt.Errorf("invalid URL %s", Redact(name))
	}
	if u.Host == "" {
		return objName{}, fmt.Errorf("invalid URL %s: no bucket", Redact(name))
	}
	if u.Fragment != "" {
		return objName{}, fmt.Errorf("invalid URL %s: '#' cannot be part of a key", Redact(name))
	}
	return objName{scheme: u.Scheme, host: u.Host, key: strings.TrimPrefix(u.Path, "/"), query: u.RawQuery}, nil
}

// with returns the name of key in the same bucket, with the same query.
func (n objName) with(key string) string {
	s := n.scheme + "://" + n.host + "/" + (&url.URL{Path: key}).EscapedPath()
	if n.query != "" {
		s += "?" + n.query
	}
	return s
}

func (n objName) String() string { return n.with(n.key) }

type bucketFS struct {
	scheme  string
	mu      sync.Mutex
	buckets map[string]*blob.Bucket
}

// bucket opens (once) the bucket of n.
func (b *bucketFS) bucket(ctx context.Context, n objName) (*blob.Bucket, error) {
	u := b.scheme + "://" + n.host
	q, err := url.ParseQuery(n.query)
	if err != nil {
		return nil, fmt.Errorf("invalid query in %s", Redact(n.String()))
	}
	if b.scheme == "s3" {
		endpoint := q.Get("endpoint") != "" || os.Getenv("AWS_ENDPOINT_URL") != "" || os.Getenv("AWS_ENDPOINT_URL_S3") != ""
		if endpoint && q.Get("use_path_style") == "" && q.Get("s3ForcePathStyle") == "" {
			q.Set("use_path_style", "true")
		}
		if endpoint && q.Get("request_checksum_calculation") == "" {
			q.Set("request_checksum_calculation", "when_required")
		}
		if endpoint && q.Get("response_checksum_validation") == "" {
			q.Set("response_checksum_validation", "when_required")
		}
	}
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if bk := b.buckets[u]; bk != nil {
		return bk, nil
	}
	bk, err := blob.OpenBucket(ctx, u)
	if err != nil {
		return nil, scrub(scrub(err, u), n.String())
	}
	if b.buckets == nil {
		b.buckets = map[string]*blob.Bucket{}
	}
	b.buckets[u] = bk
	return bk, nil
}
