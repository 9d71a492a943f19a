package pipeline

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
)

// Open archives. An archive's directory (an .npz's zip central
// directory, an HDF5 file's object headers and links, a MAT-file's
// variable table) is read once per run, not once per part: a format's
// reader keeps each file it opened, parsed, in a handles cache, and the
// parts of the file are read from that one handle, so the cost of a file
// of N arrays is linear in N. Planning lists the parts of a file through
// the same cache, so a file that is planned and then run (a conversion)
// is opened once. A handle in use stays open; of the released ones the
// newest maxIdleHandles stay open for the next part (the parts of a
// source are read in file order), the others are closed, so a source of
// many files holds few open. Plan.Close closes the rest.

// maxIdleHandles is how many released files a handles cache keeps open.
const maxIdleHandles = 2

// archivesOpened counts the files the handles caches opened (the tests
// check that each archive is opened once per run).
var archivesOpened atomic.Int64

// handles caches the open, parsed files of one source's reader, by path.
// Its methods are safe for concurrent use: parts are read by several
// goroutines at once, so what a handle holds must be too.
type handles[T any] struct {
	mu     sync.Mutex
	m      map[string]*handle[T]
	idle   []*handle[T] // released, oldest first
	closed bool
}

// handle is one open file and what was parsed of it.
type handle[T any] struct {
	v       T
	c       io.Closer
	refs    int
	path    string
	opening chan struct{} // closed when open has returned
	err     error
}

// get returns the handle of the file at path, opened and parsed by open
// if the cache does not hold it, and the function that releases it
// (call it once, when done with the handle).
func (hs *handles[T]) get(ctx context.Context, path string, open func(ctx context.Context, path string) (T, io.Closer, error)) (T, func(), error) {
	hs.mu.Lock()
	if hs.m == nil {
		hs.m = map[string]*handle[T]{}
	}
	h := hs.m[path]
	if h != nil {
		h.refs++
		hs.unidle(h)
		hs.mu.Unlock()
		<-h.opening
		if h.err != nil {
			hs.release(h)
			var zero T
			return zero, nil, h.err
		}
		return h.v, hs.releaser(h), nil
	}
	h = &handle[T]{refs: 1, path: path, opening: make(chan struct{})}
	hs.m[path] = h
	hs.mu.Unlock()
	archivesOpened.Add(1)
	h.v, h.c, h.err = open(ctx, path)
	close(h.opening)
	if h.err != nil {
		hs.mu.Lock()
		if hs.m[path] == h {
			delete(hs.m, path) // the next get tries again
		}
		hs.mu.Unlock()
		hs.release(h)
		var zero T
		return zero, nil, h.err
	}
	return h.v, hs.releaser(h), nil
}

// releaser is the release function of one reference to h: calls after
// the first do nothing.
func (hs *handles[T]) releaser(h *handle[T]) func() {
	var once sync.Once
	return func() { once.Do(func() { hs.release(h) }) }
}

// unidle takes h off the idle list (hs.mu held).
func (hs *handles[T]) unidle(h *handle[T]) {
	for i, x := range hs.idle {
		if x == h {
			hs.idle = append(hs.idle[:i], hs.idle[i+1:]...)
			return
		}
	}
}

// release gives back one reference to h: the handle becomes idle, and
// the oldest idle ones beyond maxIdleHandles are closed.
func (hs *handles[T]) release(h *handle[T]) {
	hs.mu.Lock()
	h.refs--
	if h.refs > 0 {
		hs.mu.Unlock()
		return
	}
	var drop []*handle[T]
	if h.err != nil || hs.closed || hs.m[h.path] != h {
		drop = append(drop, h)
		if hs.m[h.path] == h {
			delete(hs.m, h.path)
		}
	} else {
		hs.idle = append(hs.idle, h)
		for len(hs.idle) > maxIdleHandles {
			old := hs.idle[0]
			hs.idle = hs.idle[1:]
			delete(hs.m, old.path)
			drop = append(drop, old)
		}
	}
	hs.mu.Unlock()
	for _, d := range drop {
		if d.c != nil {
			d.c.Close()
		}
	}
}

// close closes the idle handles; those in use close when released.
func (hs *handles[T]) close() {
	hs.mu.Lock()
	hs.closed = true
	idle := hs.idle
	hs.idle = nil
	for _, h := range idle {
		delete(hs.m, h.path)
	}
	hs.mu.Unlock()
	for _, h := range idle {
		if h.c != nil {
			h.c.Close()
		}
	}
}

// handleCloser is a reader that keeps files open in a handles cache:
// the plan closes them (Plan.Close).
type handleCloser interface {
	closeHandles()
}

// releaseCloser is a release function as an io.Closer.
func releaseCloser(release func()) io.Closer {
	return closeFunc(func() error { release(); return nil })
}
