package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"gocloud.dev/blob"

	"github.com/npyflow/npyflow/internal/storage"
)

// Upload tuning: memory per output is about holdMax + partSize*(concurrency+1),
// plus (S3) the transfer manager's first read of up to 16 MiB (its
// multipart threshold).
var (
	partSize    = 8 << 20
	concurrency = 4
	holdMax     = 1 << 20
)

func (b *bucketFS) Create(ctx context.Context, name string, opts storage.CreateOptions) (storage.Writer, error) {
	bk, n, err := b.open(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := checkKey(name, n); err != nil {
		return nil, err
	}
	// The upload runs on a context the caller cannot cancel: a cancelled
	// context would also cancel the request that aborts a multipart
	// upload (the S3 transfer manager aborts with the upload's context).
	// The caller's cancellation aborts the writer instead.
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w := &writer{ctx: wctx, cancel: cancel, bk: bk, key: n.key, name: name, s3: b.scheme == "s3"}
	if opts.Seekable {
		f, err := os.CreateTemp("", ".npyflow-upload-*")
		if err != nil {
			cancel()
			return nil, err
		}
		os.Remove(f.Name())
		w.spool = f
	}
	w.mu.Lock() // an Abort from the watch waits for stop to be set
	w.stop = context.AfterFunc(ctx, func() { w.Abort() })
	w.mu.Unlock()
	return w, nil
}

// errAborted ends the data of an aborted upload.
var errAborted = errors.New("upload aborted")

// writer streams an object through a multipart upload; see the package
// doc for what it holds and how it seeks.
type writer struct {
	ctx    context.Context
	cancel context.CancelFunc
	bk     *blob.Bucket
	key    string
	name   string

	s3      bool        // the driver aborts a multipart upload on a read error
	stop    func() bool // stops the watch on the caller's context
	mu      sync.Mutex  // Abort may come from another goroutine
	pw      *io.PipeWriter
	donec   chan error // the upload's result
	hold    []byte     // bytes [flushed, flushed+len(hold)) not yet uploaded
	flushed int64
	pos     int64
	spool   *os.File
	done    bool
	err     error
}

func (w *writer) fail(err error) error {
	if w.err == nil {
		w.err = pathError("write", w.name, err)
	}
	return w.err
}

func (w *writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return 0, errors.New("write after Commit or Abort")
	}
	if w.err != nil {
		return 0, w.err
	}
	if err := w.ctx.Err(); err != nil {
		return 0, w.fail(err)
	}
	if w.spool != nil {
		n, err := w.spool.Write(p)
		if err != nil {
			return n, w.fail(err)
		}
		return n, nil
	}
	i := int(w.pos - w.flushed)
	if i == len(w.hold) && len(w.hold)+len(p) >= holdMax {
		// Appending past what is held: the held bytes and p go to the
		// upload as they are (p is not copied into the held buffer,
		// which stays small).
		if err := w.flush(); err != nil {
			return 0, err
		}
		if _, err := w.pw.Write(p); err != nil {
			return 0, w.fail(err)
		}
		w.flushed += int64(len(p))
		w.pos = w.flushed
		return len(p), nil
	}
	for len(w.hold) < i { // a seek past the end: zeros, as a file has
		w.hold = append(w.hold, 0)
	}
	if i+len(p) <= len(w.hold) {
		copy(w.hold[i:], p)
	} else {
		w.hold = append(w.hold[:i], p...)
	}
	w.pos += int64(len(p))
	if len(w.hold) >= holdMax && w.pos == w.flushed+int64(len(w.hold)) {
		if err := w.flush(); err != nil {
			return len(p), err
		}
	}
	return len(p), nil
}

// openWriter starts the upload, reading what flush writes to w.pw.
func (w *writer) openWriter() error {
	if w.pw != nil {
		return nil
	}
	pr, pw := io.Pipe()
	w.pw, w.donec = pw, make(chan error, 1)
	go func() {
		err := w.bk.Upload(w.ctx, w.key, pr, &blob.WriterOptions{
			BufferSize:     partSize,
			MaxConcurrency: concurrency,
			ContentType:    "application/octet-stream",
		})
		pr.CloseWithError(errAborted) // unblocks a flush after a failure
		w.donec <- err
	}()
	return nil
}

// flush hands the held bytes to the upload.
func (w *writer) flush() error {
	if err := w.openWriter(); err != nil {
		return err
	}
	if len(w.hold) > 0 {
		if _, err := w.pw.Write(w.hold); err != nil {
			return w.fail(err)
		}
	}
	w.flushed += int64(len(w.hold))
	if cap(w.hold) > 4*holdMax {
		w.hold = nil
	} else {
		w.hold = w.hold[:0]
	}
	return nil
}

func (w *writer) Seek(off int64, whence int) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.spool != nil {
		return w.spool.Seek(off, whence)
	}
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		off += w.pos
	case io.SeekEnd:
		off += w.flushed + int64(len(w.hold))
	default:
		return 0, errors.New("seek: invalid whence")
	}
	if off < 0 {
		return 0, errors.New("seek: negative position")
	}
	if off < w.flushed {
		return 0, fmt.Errorf("seek to %d in %s: %w", off, Redact(w.name), ErrSeekUploaded)
	}
	w.pos = off
	return off, nil
}

// Commit completes the upload: the object appears now, whole.
func (w *writer) Commit() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return errors.New("Commit after Commit or Abort")
	}
	if w.err != nil {
		w.abort()
		return w.err
	}
	var err error
	if w.spool != nil {
		if _, err = w.spool.Seek(0, io.SeekStart); err == nil {
			if err = w.openWriter(); err == nil {
				_, err = io.Copy(w.pw, w.spool)
			}
		}
	} else {
		err = w.flush()
	}
	if err != nil {
		w.abort()
		return w.fail(err)
	}
	w.done = true
	w.pw.Close()
	err = <-w.donec
	w.stop()
	w.cancel()
	w.release()
	if err != nil {
		return w.fail(err)
	}
	return nil
}

// Abort cancels the upload: a multipart upload is aborted, and nothing
// appears at the name.
func (w *writer) Abort() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.abort()
}

func (w *writer) abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.stop()
	if w.pw != nil {
		if !w.s3 {
			// Other drivers commit what they read when the data ends,
			// even with an error; a cancelled context aborts them.
			w.cancel()
		}
		// The S3 driver aborts its multipart upload when the data ends
		// with an error, with the context still live.
		w.pw.CloseWithError(errAborted)
		select {
		case <-w.donec:
		case <-time.After(time.Minute):
		}
	}
	w.cancel()
	w.release()
	return nil
}

func (w *writer) release() {
	w.hold = nil
	if w.spool != nil {
		w.spool.Close()
		w.spool = nil
	}
}
