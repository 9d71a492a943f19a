package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// StdinName is the input name of standard input for [Convert], [Inspect]
// and job sources (ConvertOptions.Stdin or PlanOptions.Stdin, else
// os.Stdin). Its format is known by its first bytes (each format's
// Magic), not by a name. It is copied to a temporary file ($TMPDIR,
// removed at the end) before anything is read: an Arrow stream tells its
// row count only at its end, and Parquet and .npz readers start from the
// end of the file.
const StdinName = "-"

// stdinFile is the name of the copy of standard input: its messages say
// "stdin.arrows: ...".
const stdinFile = "stdin"

// spoolStdin copies standard input (r; nil: os.Stdin) to a temporary
// file named by its format, which it returns; cleanup removes it.
func spoolStdin(ctx context.Context, r io.Reader) (path string, f *Format, cleanup func(), err error) {
	if r == nil {
		r = os.Stdin
	}
	return spool(ctx, r, "standard input")
}

// spool copies the stream r (name is for messages) to a temporary file
// ($TMPDIR) named by its format, which it returns; cleanup removes it.
func spool(ctx context.Context, r io.Reader, name string) (path string, f *Format, cleanup func(), err error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(8)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", nil, nil, &FileError{Path: name, Err: err}
	}
	f, ext := sniff(bytes.NewReader(head), int64(len(head)))
	if f == nil {
		if len(head) == 0 {
			return "", nil, nil, &FileError{Path: name, Err: errors.New("empty")}
		}
		return "", nil, nil, &FileError{Path: name, Err: fmt.Errorf("not a format npyflow reads (its first bytes %q are no %s magic)", head, magicList())}
	}
	dir, err := os.MkdirTemp("", "npyflow-stdin-")
	if err != nil {
		return "", nil, nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, stdinFile+ext)
	out, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err == nil {
		_, err = io.Copy(out, ctxReader{ctx, br})
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		cleanup()
		return "", nil, nil, &FileError{Path: name, Err: fmt.Errorf("copying it to a temporary file: %w", err)}
	}
	return path, f, cleanup, nil
}

// ctxReader stops reading when ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
