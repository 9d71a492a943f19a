package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/npyflow/npyflow/internal/storage"
)

// httpFS reads https:// (and http://) URLs with ranged GETs. It is
// read-only and cannot list.
type httpFS struct{}

// httpClient is shared by every https:// file; its transport pools
// connections.
var httpClient = &http.Client{Timeout: 0}

var errReadOnly = errors.New("https:// URLs are read-only")

type httpStatusError struct {
	code int
}

func (e *httpStatusError) Error() string { return "HTTP status " + strconv.Itoa(e.code) }

func (httpFS) head(ctx context.Context, name string) (size int64, etag string, mod time.Time, err error) {
	for attempt := 1; ; attempt++ {
		var req *http.Request
		req, err = http.NewRequestWithContext(ctx, http.MethodHead, name, nil)
		if err != nil {
			return 0, "", mod, err
		}
		var resp *http.Response
		resp, err = httpClient.Do(req)
		if err == nil {
			resp.Body.Close()
			switch {
			case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
				return 0, "", mod, fs.ErrNotExist
			case resp.StatusCode != http.StatusOK:
				err = &httpStatusError{resp.StatusCode}
			case resp.ContentLength < 0:
				return 0, "", mod, errors.New("server gives no Content-Length")
			case resp.Header.Get("Accept-Ranges") == "none":
				return 0, "", mod, errors.New("server does not serve byte ranges")
			default:
				mod, _ = http.ParseTime(resp.Header.Get("Last-Modified"))
				return resp.ContentLength, resp.Header.Get("ETag"), mod, nil
			}
		}
		if !retryable(err) || attempt >= maxAttempts {
			return 0, "", mod, err
		}
		select {
		case <-ctx.Done():
			return 0, "", mod, ctx.Err()
		case <-time.After(backoff(attempt)):
		}
	}
}

func (h httpFS) Open(ctx context.Context, name string) (storage.File, error) {
	size, etag, mod, err := h.head(ctx, name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: Redact(name), Err: scrub(err, name)}
	}
	src := &httpSource{url: name, etag: etag, mod: mod, size: size}
	return &file{ctx: ctx, src: src, name: Redact(name), size: size}, nil
}

type httpSource struct {
	url  string
	etag string
	mod  time.Time
	size int64
}

func (s *httpSource) get(ctx context.Context, off, n int64) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, scrub(err, s.url)
	}
	end := s.size - 1
	if n >= 0 && off+n-1 < end {
		end = off + n - 1
	}
	if n == 0 {
		return io.NopCloser(strings.NewReader("")), nil
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, end))
	if s.etag != "" && !strings.HasPrefix(s.etag, "W/") {
		req.Header.Set("If-Match", s.etag)
	} else if !s.mod.IsZero() {
		req.Header.Set("If-Unmodified-Since", s.mod.UTC().Format(http.TimeFormat))
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, scrub(err, s.url)
	}
	bad := func(err error) (io.ReadCloser, error) {
		resp.Body.Close()
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusPartialContent:
	case http.StatusOK:
		if off != 0 || end != s.size-1 {
			return bad(errors.New("server ignored the Range header"))
		}
	case http.StatusPreconditionFailed, http.StatusNotFound, http.StatusGone:
		return bad(ErrChanged)
	default:
		return bad(&httpStatusError{resp.StatusCode})
	}
	if e := resp.Header.Get("ETag"); s.etag != "" && e != "" && e != s.etag {
		return bad(ErrChanged)
	}
	if cr := resp.Header.Get("Content-Range"); cr != "" {
		if i := strings.LastIndexByte(cr, '/'); i >= 0 && cr[i+1:] != "*" && cr[i+1:] != strconv.FormatInt(s.size, 10) {
			return bad(ErrChanged)
		}
	}
	return resp.Body, nil
}

func (h httpFS) Stat(ctx context.Context, name string) (storage.Info, error) {
	size, _, mod, err := h.head(ctx, name)
	if err != nil {
		return storage.Info{}, &fs.PathError{Op: "stat", Path: Redact(name), Err: scrub(err, name)}
	}
	return storage.Info{Name: name, Size: size, ModTime: mod}, nil
}

func (httpFS) Create(_ context.Context, name string, _ storage.CreateOptions) (storage.Writer, error) {
	return nil, &fs.PathError{Op: "create", Path: Redact(name), Err: errReadOnly}
}

func (httpFS) List(_ context.Context, dir, _ string, _ int) ([]storage.Info, bool, error) {
	return nil, false, &fs.PathError{Op: "list", Path: Redact(dir), Err: errors.New("HTTP has no listing, so https:// URLs cannot be listed or matched by patterns: name each file")}
}

func (httpFS) Remove(_ context.Context, name string) error {
	return &fs.PathError{Op: "remove", Path: Redact(name), Err: errReadOnly}
}
