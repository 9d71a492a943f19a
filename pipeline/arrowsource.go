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
	// Options naming a column of the file that is not read are left out
	// (as a Parquet reader leaves them).
	err = fo.checkArrowNames(info.Schema)
	schema, proj, perr := fo.project(info.Schema)
	if err == nil {
		err = perr
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m, err := fo.arrowMapping(schema, func() (array.RecordReader, error) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		rr, err := arrowconv.NewIPCReader(f, nil)
		if err != nil {
			return nil, err
		}
		return projectRecords(rr, schema, proj), nil
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

// arrowColumnNames returns the top-level column names of an IPC file or
// stream, from its schema.
func arrowColumnNames(path string) ([]string, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := arrowconv.ReadIPCInfo(f, f.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var names []string
	for _, fl := range info.Schema.Fields() {
		names = append(names, fl.Name)
	}
	return names, nil
}

func (s *fileSource) openArrow(p *Part) (partReader, error) {
	f, err := openFile(p.Path)
	if err != nil {
		return nil, err
	}
	in, err := arrowconv.NewIPCReader(f, nil)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", p.Path, err)
	}
	fo := s.foreign()
	schema, proj, err := fo.project(in.Schema())
	if err != nil {
		in.Release()
		f.Close()
		return nil, fmt.Errorf("%s: %w", p.Path, err)
	}
	rr := projectRecords(in, schema, proj)
	m, err := fo.arrowMapping(schema, func() (array.RecordReader, error) {
		g, err := openFile(p.Path)
		if err != nil {
			return nil, err
		}
		sr, err := arrowconv.NewIPCReader(g, nil)
		if err != nil {
			g.Close()
			return nil, err
		}
		return closingReader{projectRecords(sr, schema, proj), g}, nil
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
	h := s.wrapProjected(&npyio.Header{DType: dt, Shape: append([]int{0}, m.RowShape()...)})
	got := &Schema{DType: h.DType.Native(), Shape: h.Shape[1:]}
	if w, ok := widerStrings(s.file, got); !ok || !w.Equal(s.file) {
		closer.Close()
		return nil, fmt.Errorf("%s: changed since planning: now holds %s, not %s", p.Path, got, s.file)
	}
	pr := &npyPartReader{rd: &arrowRows{rr: rr, m: m, rowSize: int(s.file.RowSize()), widen: newRepacker(got, s.file)}, closer: closer, name: p.Path}
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
	rowSize int       // of the source's rows
	widen   *repacker // the file's strings are narrower than the source's
	buf     []byte
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
	if a.widen != nil {
		var err error
		if a.buf, err = a.m.EncodeRows(a.rec, a.pos, a.pos+n, a.buf[:0]); err != nil {
			return 0, err
		}
		a.widen.rows(dst, a.buf, n)
	} else if _, err := a.m.EncodeRows(a.rec, a.pos, a.pos+n, dst[:0]); err != nil {
		return 0, err
	}
	a.pos += n
	return n, nil
}
