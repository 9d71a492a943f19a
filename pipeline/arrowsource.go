package pipeline

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
)

// The Arrow IPC source, on arrowconv: planning reads only the schema and
// the row counts in the IPC metadata; running streams record batches
// through an arrowconv.RowEncoder straight into the batch buffers.

func arrowWriteOptions(c *Component) *arrowconv.WriteOptions {
	return &arrowconv.WriteOptions{StringChars: int(c.Int("string_chars"))}
}

// readArrowHeader returns the .npy header the rows of an IPC file or
// stream would have, from its metadata.
func readArrowHeader(path string, opts *arrowconv.WriteOptions) (*npyio.Header, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := arrowconv.ReadIPCInfo(f, f.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	enc, err := arrowconv.NewRowEncoder(info.Schema, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w%s", path, err, stringHint(err))
	}
	if enc.ZeroD() && info.Rows != 1 {
		return nil, fmt.Errorf("%s: the schema describes a 0-d array, which needs exactly one row, not %d", path, info.Rows)
	}
	return enc.Header(info.Rows), nil
}

// stringHint points at the option that sizes strings.
func stringHint(err error) string {
	var u *arrowconv.UnsupportedError
	if errors.As(err, &u) && strings.Contains(u.Msg, "StringChars") {
		return " (set string_chars on the source)"
	}
	return ""
}

func (s *fileSource) openArrow(p *Part) (partReader, error) {
	f, err := openFile(p.Path)
	if err != nil {
		return nil, err
	}
	rr, err := arrowconv.NewIPCReader(f, nil)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", p.Path, err)
	}
	closer := closeFunc(func() error {
		rr.Release()
		return f.Close()
	})
	enc, err := arrowconv.NewRowEncoder(rr.Schema(), arrowWriteOptions(s.c))
	if err != nil {
		closer.Close()
		return nil, fmt.Errorf("%s: %w", p.Path, err)
	}
	if got := (&Schema{DType: enc.DType().Native(), Shape: enc.RowShape()}); !got.Equal(s.file) {
		closer.Close()
		return nil, fmt.Errorf("%s: changed since planning: now holds %s, not %s", p.Path, got, s.file)
	}
	pr := &npyPartReader{rd: &arrowRows{rr: rr, enc: enc}, closer: closer, name: p.Path}
	if err := s.withCaptures(pr, p); err != nil {
		closer.Close()
		return nil, err
	}
	return pr, nil
}

type closeFunc func() error

func (f closeFunc) Close() error { return f() }

// arrowRows reads the rows of an IPC record stream: each call encodes as
// many rows of the current record batch as fit.
type arrowRows struct {
	rr  array.RecordReader
	enc *arrowconv.RowEncoder
	rec arrow.RecordBatch // owned by rr, valid until its next Next
	pos int
}

func (a *arrowRows) ReadRows(dst []byte) (int, error) {
	for a.rec == nil || int64(a.pos) >= a.rec.NumRows() {
		a.rec, a.pos = nil, 0
		if !a.rr.Next() {
			if err := a.rr.Err(); err != nil {
				return 0, err
			}
			return 0, io.EOF
		}
		a.rec = a.rr.RecordBatch()
	}
	n := int(a.rec.NumRows()) - a.pos
	if rs := a.enc.RowSize(); rs > 0 {
		n = min(n, len(dst)/rs)
		if n == 0 {
			return 0, io.ErrShortBuffer
		}
	}
	if _, err := a.enc.EncodeRows(a.rec, a.pos, a.pos+n, dst[:0]); err != nil {
		return 0, err
	}
	a.pos += n
	return n, nil
}
