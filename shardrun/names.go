package shardrun

import (
	"context"
	"errors"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"github.com/npyflow/npyflow/internal/storage"
)

// Names in a run (state directory, manifests, outputs) are local paths
// or URLs of a storage backend (s3://bucket/prefix, possibly with a
// ?query of backend options). These helpers treat both: local paths
// with filepath, URLs with "/" and their query kept at the end.

// show is name fit for messages: a URL's secrets (userinfo, query
// values other than harmless endpoint options) redacted.
func show(name string) string { return storage.Redact(name) }

// isURL reports whether name is a URL other than file://.
func isURL(name string) bool {
	s := storage.Scheme(name)
	return s != "" && s != "file"
}

// splitQuery splits a URL's ?query off.
func splitQuery(name string) (string, string) {
	if !isURL(name) {
		return name, ""
	}
	if i := strings.IndexByte(name, '?'); i >= 0 {
		return name[:i], name[i:]
	}
	return name, ""
}

// Join joins a path or URL and elements ("/"-separated for URLs). The
// elements are plain names (an object key's own characters): in a URL
// they are percent-encoded as a URL path is, so that a Hive partition
// directory like station=B%2Fx names the key station=B%2Fx, not B/x.
func Join(base string, elem ...string) string {
	if !isURL(base) {
		return filepath.Join(append([]string{base}, elem...)...)
	}
	b, q := splitQuery(base)
	rest := strings.TrimPrefix(path.Join(elem...), "/")
	if rest == "" || rest == "." {
		return base
	}
	return strings.TrimSuffix(b, "/") + "/" + (&url.URL{Path: rest}).EscapedPath() + q
}

// Dir is the directory (prefix) of a path or URL.
func Dir(name string) string {
	if !isURL(name) {
		return filepath.Dir(name)
	}
	b, q := splitQuery(name)
	b = strings.TrimSuffix(b, "/")
	i := strings.LastIndexByte(b, '/')
	if i < len(storage.Scheme(b))+3 {
		return b + q
	}
	return b[:i] + q
}

// Base is the last element of a path or URL.
func Base(name string) string {
	if !isURL(name) {
		return filepath.Base(name)
	}
	b, _ := splitQuery(name)
	b = strings.TrimSuffix(b, "/")
	return b[strings.LastIndexByte(b, '/')+1:]
}

// bare is a name without scheme and query, usable as a relative path: a
// URL's path is decoded (the object key), a local path kept as it is.
func bare(name string) string {
	b, _ := splitQuery(name)
	if s := storage.Scheme(b); s != "" {
		b = b[len(s)+3:]
		if s != "file" {
			if u, err := url.PathUnescape(b); err == nil {
				b = u
			}
		}
	}
	return strings.TrimLeft(filepath.ToSlash(b), "/")
}

// Exists reports whether name exists.
func Exists(ctx context.Context, name string) bool {
	_, err := storage.Stat(ctx, name)
	return err == nil
}

// listPage is how many entries one List call asks for.
const listPage = 1000

// list calls fn for every entry of dir, page by page. A missing dir is
// empty.
func list(ctx context.Context, dir string, fn func(storage.Info) error) error {
	after := ""
	limit := listPage
	if !isURL(dir) {
		// The local backend reads the whole directory for every page:
		// one page, as filepath.WalkDir would.
		limit = 0
	}
	for {
		page, more, err := storage.List(ctx, dir, after, limit)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, e := range page {
			if err := fn(e); err != nil {
				return err
			}
			after = e.Name
		}
		if !more || len(page) == 0 {
			return nil
		}
	}
}

// errSkipDir, returned by a walk function for a directory, skips it
// (for a file, it skips the file).
var errSkipDir = errors.New("skip this directory")

// errStop, returned by a walk function, ends the walk without an error.
var errStop = errors.New("stop the walk")

// walk calls fn for every file and directory under root (not root
// itself): a directory's entries in name order, then each subdirectory's
// in turn; post, if set, is called for each directory after its
// contents. A missing root is empty.
func walk(ctx context.Context, root string, fn func(storage.Info) error, post func(dir string)) error {
	err := walkDir(ctx, root, fn, post)
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

func walkDir(ctx context.Context, dir string, fn func(storage.Info) error, post func(string)) error {
	var subdirs []string
	err := list(ctx, dir, func(e storage.Info) error {
		if e.Name == dir {
			return nil // a backend listing the directory itself
		}
		err := fn(e)
		if errors.Is(err, errSkipDir) {
			return nil // for a file: skip just the file
		}
		if e.IsDir && err == nil {
			subdirs = append(subdirs, e.Name)
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, d := range subdirs {
		if err := walkDir(ctx, d, fn, post); err != nil {
			return err
		}
		if post != nil {
			post(d)
		}
	}
	return nil
}

// removeAll removes dir and everything under it (on a backend with
// directories, the emptied directories too).
func removeAll(ctx context.Context, dir string) error {
	err := walk(ctx, dir, func(e storage.Info) error {
		if e.IsDir {
			return nil
		}
		return storage.Remove(ctx, e.Name)
	}, func(d string) { storage.Remove(ctx, d) })
	if err != nil {
		return err
	}
	if err := storage.Remove(ctx, dir); err != nil && !errors.Is(err, fs.ErrNotExist) && Exists(ctx, dir) {
		return err
	}
	return nil
}
