package pipeline

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
)

// The Arrow IPC source, on arrowconv: planning reads only the schema and
// the row counts in the IPC metadata; running streams record batches
// through the source's arrowconv.Mapping straight into the batch buffers.

// readArrowHeader returns the .npy header the rows of an IPC file or
// stream would have, mapped with the source's options: from its metadata,
// plus a pass over the data when string widths are not known.
func readArrowHeader(path string, fo *foreignOptions) (*npyio.Header, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := arrowconv.ReadIPCInfo(f, f.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := fo.checkArrowNames(info.Schema); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m, err := fo.arrowMapping(info.Schema, func() (array.RecordReader, error) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		return arrowconv.NewIPCReader(f, nil)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	h, err := m.Header(info.Rows)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(h.Shape) == 0 && info.Rows != 1 {
		return nil, fmt.Errorf("%s: the schema describes a 0-d array, which needs exactly one row, not %d", path, info.Rows)
	}
	return h, nil
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
	m, err := foreignFromComponent(s.c).arrowMapping(rr.Schema(), func() (array.RecordReader, error) {
		g, err := openFile(p.Path)
		if err != nil {
			return nil, err
		}
		sr, err := arrowconv.NewIPCReader(g, nil)
		if err != nil {
			g.Close()
			return nil, err
		}
		return closingReader{sr, g}, nil
	})
	closer := closeFunc(func() error {
		rr.Release()
		return f.Close()
	})
	if err != nil {
		closer.Close()
		return nil, fmt.Errorf("%s: %w", p.Path, err)
	}
	dt, _ := m.DType()
	rs, _ := m.RowSize()
	if got := (&Schema{DType: dt.Native(), Shape: m.RowShape()}); !got.Equal(s.file) {
		closer.Close()
		return nil, fmt.Errorf("%s: changed since planning: now holds %s, not %s", p.Path, got, s.file)
	}
	pr := &npyPartReader{rd: &arrowRows{rr: rr, m: m, rowSize: rs}, closer: closer, name: p.Path}
	if err := s.withCaptures(pr, p); err != nil {
		closer.Close()
		return nil, err
	}
	return pr, nil
}

// closingReader closes its file when released.
type closingReader struct {
	array.RecordReader
	f interface{ Close() error }
}

func (c closingReader) Release() {
	c.RecordReader.Release()
	c.f.Close()
}

type closeFunc func() error

func (f closeFunc) Close() error { return f() }

// arrowRows reads the rows of an IPC record stream: each call encodes as
// many rows of the current record batch as fit.
type arrowRows struct {
	rr      array.RecordReader
	m       *arrowconv.Mapping
	rowSize int
	rec     arrow.RecordBatch // owned by rr, valid until its next Next
	pos     int
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
	if rs := a.rowSize; rs > 0 {
		n = min(n, len(dst)/rs)
		if n == 0 {
			return 0, io.ErrShortBuffer
		}
	}
	if _, err := a.m.EncodeRows(a.rec, a.pos, a.pos+n, dst[:0]); err != nil {
		return 0, err
	}
	a.pos += n
	return n, nil
}
