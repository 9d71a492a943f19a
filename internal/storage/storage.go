// Package storage is the one seam through which npyflow opens its inputs
// and creates its outputs: [pipeline.Convert], inspect and job sources and
// sinks call [Open], [Create], [Stat], [List] and [Remove] here, never the
// os package, so another backend is added in one place.
//
// A backend is an [FS] registered for a URL scheme with [Register]
// ("s3" serves s3://bucket/key). A name without a scheme (or with
// file://) is a local path, served by [Local]. The contract every backend
// keeps:
//
//   - Open returns a [File] reading a fixed snapshot: random access
//     (ReadAt) and sequential reads (Read, Seek), with its Size known up
//     front, so readers check sizes before they allocate.
//   - Create returns a [Writer] whose data becomes visible at its name
//     all at once by Commit, or never (Abort, or a crash): no reader ever
//     sees a partial output. Writers are io.WriteSeekers because the .npy
//     stream writer patches its header on close and the MAT and HDF5
//     writers patch sizes; a remote backend streams (seeks within the
//     bytes it still holds) or, with CreateOptions.Seekable, spools to a
//     local temporary file and uploads on Commit.
//   - List returns a directory's (or prefix's) entries in name order, one
//     page at a time, so a listing of millions of objects is bounded.
//   - Errors wrap fs.ErrNotExist where the name does not exist.
//
// Limits: the local backend renames within a directory (atomic on POSIX
// filesystems); without CreateOptions.Sync a committed file survives a
// crash of the process but not necessarily a power cut.
package storage

import (
	"context"
	"io"
	"io/fs"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// File is an open input.
type File interface {
	io.ReaderAt
	io.ReadSeeker
	io.Closer
	// Size is the file's size in bytes when it was opened.
	Size() int64
}

// Writer is an output being written: invisible at its name until Commit.
type Writer interface {
	io.WriteSeeker
	// Commit publishes the data at the name given to Create (replacing
	// what was there) and releases the writer.
	Commit() error
	// Abort discards the data, leaving the name as it was. Abort after
	// Commit does nothing.
	Abort() error
}

// CreateOptions tune [Create].
type CreateOptions struct {
	// Sync makes the data durable (fsync) before Commit publishes it.
	// Remote backends always return from Commit only after the store
	// has acknowledged the whole object.
	Sync bool
	// Seekable says the caller may seek back anywhere in what it has
	// written (MAT and HDF5 writers patch sizes and offsets). Remote
	// backends then spool to a local temporary file and upload on Commit;
	// without it they stream and refuse seeks back into uploaded bytes.
	Seekable bool
}

// Info describes one file or directory.
type Info struct {
	Name    string // the full name, as Open takes it
	Size    int64
	IsDir   bool
	ModTime time.Time
}

// FS is a storage backend.
type FS interface {
	Open(ctx context.Context, name string) (File, error)
	Create(ctx context.Context, name string, opts CreateOptions) (Writer, error)
	Stat(ctx context.Context, name string) (Info, error)
	// List returns at most limit (<= 0: all) entries of directory (or
	// prefix) dir in name order, after the entry named after (the last
	// Name of the previous page; "" starts at the beginning), and whether
	// more follow.
	List(ctx context.Context, dir, after string, limit int) (entries []Info, more bool, err error)
	Remove(ctx context.Context, name string) error
}

var (
	mu       sync.RWMutex
	backends = map[string]FS{}
)

// Register serves names scheme://... with fs. It panics if the scheme is
// taken; call it from an init function.
func Register(scheme string, fsys FS) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := backends[scheme]; dup || scheme == "file" {
		panic("storage: scheme " + scheme + " registered twice")
	}
	backends[scheme] = fsys
}

// Scheme returns the URL scheme of name ("s3" for s3://b/k), or "" for a
// local path.
func Scheme(name string) string {
	i := strings.Index(name, "://")
	if i <= 0 {
		return ""
	}
	for _, r := range name[:i] {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.') {
			return ""
		}
	}
	return name[:i]
}

// For returns the backend serving name, or an error wrapping
// fs.ErrNotExist for an unregistered scheme.
func For(name string) (FS, error) {
	s := Scheme(name)
	if s == "" || s == "file" {
		return Local, nil
	}
	mu.RLock()
	b := backends[s]
	mu.RUnlock()
	if b == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errUnknownScheme(s)}
	}
	return b, nil
}

type errUnknownScheme string

func (e errUnknownScheme) Error() string {
	return "no storage backend for " + string(e) + ":// in this build"
}

// Open opens name for reading on its backend.
func Open(ctx context.Context, name string) (File, error) {
	b, err := For(name)
	if err != nil {
		return nil, err
	}
	return b.Open(ctx, name)
}

// Create starts writing name on its backend.
func Create(ctx context.Context, name string, opts CreateOptions) (Writer, error) {
	b, err := For(name)
	if err != nil {
		return nil, err
	}
	return b.Create(ctx, name, opts)
}

// Stat describes name.
func Stat(ctx context.Context, name string) (Info, error) {
	b, err := For(name)
	if err != nil {
		return Info{}, err
	}
	return b.Stat(ctx, name)
}

// List lists one page of dir (see FS.List).
func List(ctx context.Context, dir, after string, limit int) ([]Info, bool, error) {
	b, err := For(dir)
	if err != nil {
		return nil, false, err
	}
	return b.List(ctx, dir, after, limit)
}

// Remove removes name.
func Remove(ctx context.Context, name string) error {
	b, err := For(name)
	if err != nil {
		return err
	}
	return b.Remove(ctx, name)
}

// Path returns name without the query of a URL ("s3://b/k.npy?region=x"
// gives "s3://b/k.npy"), for extensions, base names and pattern matching.
// A local path is returned as it is ('?' is a valid file name character).
func Path(name string) string {
	if Scheme(name) == "" || Scheme(name) == "file" {
		return name
	}
	if i := strings.IndexByte(name, '?'); i >= 0 {
		return name[:i]
	}
	return name
}

// Redact returns name fit to print: a URL's userinfo and the values of its
// query parameters are replaced by "REDACTED" (presigned URLs carry their
// signatures there), except the harmless s3 parameters region,
// use_path_style, disable_https and the like, and the scheme and host of
// an endpoint. A local path is returned as it is.
func Redact(name string) string {
	if Scheme(name) == "" || Scheme(name) == "file" {
		return name
	}
	u, err := url.Parse(name)
	if err != nil {
		return Scheme(name) + "://REDACTED"
	}
	if u.User != nil {
		u.User = url.User("REDACTED")
	}
	if u.RawQuery != "" {
		q := u.Query()
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			for _, v := range q[k] {
				parts = append(parts, url.QueryEscape(k)+"="+RedactValue(u.Scheme, k, v))
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	return u.String()
}

// RedactValue returns the printable form of query parameter k=v of a
// scheme:// URL: v escaped if it is known to be harmless, else "REDACTED".
func RedactValue(scheme, k, v string) string {
	if scheme == "s3" || scheme == "gs" || scheme == "azblob" {
		switch k {
		case "region", "use_path_style", "s3ForcePathStyle", "disable_https", "awssdk", "anonymous",
			"request_checksum_calculation", "response_checksum_validation", "localemu", "protocol", "domain":
			return url.QueryEscape(v)
		case "endpoint":
			if e, err := url.Parse(v); err == nil && e.Host != "" {
				return url.QueryEscape(e.Scheme + "://" + e.Host)
			}
		}
	}
	return "REDACTED"
}
