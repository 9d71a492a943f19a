package objstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"gocloud.dev/gcerrors"
)

// rangeSource serves byte ranges of one version of an object.
type rangeSource interface {
	// get returns a body reading [off, off+n) (n < 0: to the end) of the
	// version that was opened; a later version is an error wrapping
	// ErrChanged.
	get(ctx context.Context, off, n int64) (io.ReadCloser, error)
}

const (
	readAhead   = 256 << 10 // sequential reads: buffer of the streaming GET
	blockSize   = 64 << 10  // small ReadAt calls: one block kept
	maxAttempts = 6
)

// fetched, if set (tests), counts the bytes read from the bodies of GETs.
var fetched *atomic.Int64

// counted is a GET body counted in fetched.
type counted struct{ io.ReadCloser }

func (c counted) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	fetched.Add(int64(n))
	return n, err
}

// get opens a body of f's source, counted when fetched is set.
func (f *file) get(off, n int64) (io.ReadCloser, error) {
	body, err := f.src.get(f.ctx, off, n)
	if err == nil && fetched != nil {
		body = counted{body}
	}
	return body, err
}

// backoff is the pause before attempt i (1-based) of a retried read.
var backoff = func(i int) time.Duration { return 50 * time.Millisecond << (i - 1) }

// file is an open object: a storage.File over a rangeSource.
type file struct {
	ctx  context.Context
	src  rangeSource
	name string // redacted, for errors
	size int64

	mu     sync.Mutex
	pos    int64 // Read/Seek offset
	body   io.ReadCloser
	br     *bufio.Reader
	bpos   int64 // offset of the next byte br returns
	block  []byte
	boff   int64
	closed bool

	retries int // transient errors retried (tests)
}

func (f *file) Size() int64 { return f.size }

func (f *file) errorf(op string, off int64, err error) error {
	if errors.Is(err, ErrChanged) {
		return fmt.Errorf("%s: %w", f.name, err)
	}
	return fmt.Errorf("%s %s at offset %d: %w", op, f.name, off, err)
}

// retryable reports whether err is worth another attempt.
func retryable(err error) bool {
	switch {
	case err == nil, errors.Is(err, ErrChanged), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EPIPE):
		return true
	}
	var he *httpStatusError
	if errors.As(err, &he) {
		return he.code >= 500 || he.code == 429 || he.code == 408
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound, gcerrors.PermissionDenied, gcerrors.FailedPrecondition, gcerrors.InvalidArgument,
		gcerrors.Unimplemented, gcerrors.Canceled, gcerrors.AlreadyExists:
		return false
	}
	return true
}

// wait sleeps before attempt i, or returns the context's error.
func (f *file) wait(i int) error {
	f.retries++
	t := time.NewTimer(backoff(i))
	defer t.Stop()
	select {
	case <-f.ctx.Done():
		return f.ctx.Err()
	case <-t.C:
		return nil
	}
}

func (f *file) dropBody() {
	if f.body != nil {
		f.body.Close()
		f.body, f.br = nil, nil
	}
}

func (f *file) Read(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, errors.New("read of a closed file")
	}
	if f.pos >= f.size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if int64(len(p)) > f.size-f.pos {
		p = p[:f.size-f.pos]
	}
	for attempt := 1; ; attempt++ {
		if f.body != nil && f.bpos != f.pos {
			f.dropBody()
		}
		var err error
		if f.body == nil {
			f.body, err = f.get(f.pos, -1)
			if err == nil {
				f.br, f.bpos = bufio.NewReaderSize(f.body, readAhead), f.pos
			}
		}
		if err == nil {
			var n int
			n, err = f.br.Read(p)
			f.pos += int64(n)
			f.bpos += int64(n)
			if n > 0 {
				return n, nil
			}
			if err == nil {
				continue
			}
			if err == io.EOF { // before the size seen at Open
				err = io.ErrUnexpectedEOF
			}
			f.dropBody()
		}
		if !retryable(err) || attempt >= maxAttempts {
			return 0, f.errorf("read", f.pos, err)
		}
		if err := f.wait(attempt); err != nil {
			return 0, err
		}
	}
}

func (f *file) Seek(off int64, whence int) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		off += f.pos
	case io.SeekEnd:
		off += f.size
	default:
		return 0, errors.New("seek: invalid whence")
	}
	if off < 0 {
		return 0, errors.New("seek: negative position")
	}
	// A short skip forward reads through the buffered stream.
	if f.br != nil && off > f.bpos && off-f.bpos <= readAhead && off-f.bpos <= int64(f.br.Buffered()) {
		f.br.Discard(int(off - f.bpos))
		f.bpos = off
	}
	f.pos = off
	return off, nil
}

func (f *file) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("readat: negative offset")
	}
	if off >= f.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := p
	if int64(len(want)) > f.size-off {
		want = want[:f.size-off]
	}
	var n int
	var err error
	if len(want) <= blockSize/2 {
		n, err = f.readSmall(want, off)
	} else {
		n, err = f.readRange(want, off)
	}
	if err == nil && n < len(p) {
		err = io.EOF
	}
	return n, err
}

// readSmall serves a small read from the kept block, fetching the block
// around it if needed: the tail block when off is near the end (footers,
// central directories), else the block starting at off.
func (f *file) readSmall(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	end := off + int64(len(p))
	if f.block == nil || off < f.boff || end > f.boff+int64(len(f.block)) {
		start := off
		if start+blockSize > f.size {
			start = max(0, f.size-blockSize)
		}
		b := make([]byte, min(blockSize, f.size-start))
		if _, err := f.readRange(b, start); err != nil {
			return 0, err
		}
		f.block, f.boff = b, start
	}
	return copy(p, f.block[off-f.boff:]), nil
}

// readRange fills p from off with ranged GETs, retrying transient errors
// from the first byte not yet read.
func (f *file) readRange(p []byte, off int64) (int, error) {
	done := 0
	for attempt := 1; ; attempt++ {
		body, err := f.get(off+int64(done), int64(len(p)-done))
		if err == nil {
			var n int
			n, err = io.ReadFull(body, p[done:])
			body.Close()
			done += n
			if done == len(p) {
				return done, nil
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
		}
		if !retryable(err) || attempt >= maxAttempts {
			return done, f.errorf("read", off+int64(done), err)
		}
		if err := f.wait(attempt); err != nil {
			return done, err
		}
	}
}

func (f *file) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dropBody()
	f.closed = true
	f.block = nil
	return nil
}
