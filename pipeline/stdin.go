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

// StdinName is the input name of standard input for [Convert] and
// [InspectOptions] (ConvertOptions.Stdin, else os.Stdin). Its format is
// known by its first bytes (an Arrow IPC stream or file, .npy, .npz,
// Parquet, HDF5 or a MAT-file), not by a name. It is copied to a
// temporary file ($TMPDIR, removed at the end) before anything is read:
// an Arrow stream tells its row count only at its end, and Parquet and
// .npz readers start from the end of the file.
const StdinName = "-"

// stdinFile is the name of the copy of standard input: its messages say
// "stdin.arrows: ...".
const stdinFile = "stdin"

// sniffExt returns the extension of the format whose magic starts head,
// "" if none.
func sniffExt(head []byte) string {
	for _, m := range []struct{ magic, ext string }{
		{"\x93NUMPY", ".npy"},
		{"PK\x03\x04", ".npz"},
		{"PK\x05\x06", ".npz"},
		{"PAR1", ".parquet"},
		{"ARROW1", ".arrow"},
		{"\xff\xff\xff\xff", ".arrows"},
		{"\x89HDF\r\n\x1a\n", ".h5"},
		{"MATLAB", ".mat"},
	} {
		if bytes.HasPrefix(head, []byte(m.magic)) {
			return m.ext
		}
	}
	return ""
}

// spoolStdin copies standard input to a temporary file named by its
// format; cleanup removes it.
func spoolStdin(ctx context.Context, o *ConvertOptions) (path string, cleanup func(), err error) {
	var r io.Reader = os.Stdin
	if o != nil && o.Stdin != nil {
		r = o.Stdin
	}
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(8)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", nil, &FileError{Path: "standard input", Err: err}
	}
	ext := sniffExt(head)
	if ext == "" {
		if len(head) == 0 {
			return "", nil, &FileError{Path: "standard input", Err: errors.New("empty")}
		}
		return "", nil, &FileError{Path: "standard input", Err: fmt.Errorf("not a format npyflow reads (its first bytes %q are no Arrow IPC, .npy, .npz, Parquet, HDF5 or MAT-file magic)", head)}
	}
	dir, err := os.MkdirTemp("", "npyflow-stdin-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, stdinFile+ext)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err == nil {
		_, err = io.Copy(f, ctxReader{ctx, br})
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		cleanup()
		return "", nil, &FileError{Path: "standard input", Err: fmt.Errorf("copying it to a temporary file: %w", err)}
	}
	return path, cleanup, nil
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
