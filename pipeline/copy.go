package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
)

// Fast paths. A sink fed by a source directly may write a part's output
// from the part itself rather than from its rows, the way io.Copy prefers
// a WriterTo or a ReaderFrom: the engine checks the sink for partCopier
// first, and reads no rows of a part every consumer copies. Four optional
// capabilities remain, one of sinks and three of part readers; each is
// used only where its bytes are those the rows of the part give through
// the sink's one writer (TestConvertMatchesJob and
// TestConvertMatchesJobFixtures run every pair both ways):
//
//   - partCopier (sinks: npy, npz, parquet): writes a part's output
//     from the part. What the output records of the part (its dtype as
//     stored, 0-d, fortran_order, an archive's table as columns) is
//     decided at plan time (sinkFeed.from) and written the same from
//     rows; a Parquet file's time columns are planned from all the
//     values either way (parquetio.WriteArray observes them; rows are
//     spooled, parquetSpool). takesStored says a sink writes arrays as
//     stored, which only a copy can (it was an interface of its own).
//   - npyOpener (.npy files, .npz members, HDF5 datasets, MAT-file
//     arrays): the part opens as an npyio.Reader, whose rows are the
//     part's rows; the parquet sink writes a file in one pass from it
//     (parquetio.WriteArray and WriteTable). Other parts open as an .npy
//     stream of their rows (npyStream), which reads the same.
//   - npyCopier (Arrow IPC): the reader writes the part as an .npy
//     itself, the column's data being the .npy data, copied by the
//     kernel; it declines (ok false) unless those are the bytes.
//   - storer (MAT-files with fortran_order): the part's array goes to
//     .npy as stored, in Fortran order, which no row path can write
//     (the plan refuses a transform or another sink after such a
//     source).

// partCopier is a sink that can write a part's output from the part.
type partCopier interface {
	// copies reports whether the sink copies part p of src (decided
	// before the run: the part's rows are then not read for it).
	copies(src source, p *Part) bool
	// copyPart writes p's output, between Begin(p) and End(p) and instead
	// of Push; progress is told the rows written so far. ok false, with
	// nothing written, means it could not after all: the part's rows are
	// pushed instead.
	copyPart(ctx context.Context, src source, p *Part, progress func(rows int64)) (ok bool, rows int64, err error)
	// takesStored reports whether the sink writes arrays as stored (npy,
	// npz), so that a source keeping them so (storer) may feed it.
	takesStored() bool
}

// npyOpener is a reader whose parts open as npyio.Readers.
type npyOpener interface {
	openNPY(ctx context.Context, s *fileSource, p *Part) (*npyio.Reader, io.Closer, error)
}

// npyCopier is a reader that writes a part as an .npy file itself, as
// stored; ok false, with nothing written, when it cannot.
type npyCopier interface {
	// copiesNPY reports whether the part is likely one it copies (from
	// what planning read).
	copiesNPY(p *Part) bool
	copyNPY(ctx context.Context, s *fileSource, p *Part, w io.Writer) (ok bool, err error)
}

// storer is a reader whose parts may go to .npy as stored.
type storer interface {
	// stores reports whether the source keeps its arrays as stored, so
	// that its consumers must be sinks taking them (partCopier).
	stores() bool
	// stored returns the header of part p as stored and opens its data,
	// or ok false when p goes as rows (it reads the same either way).
	stored(p *Part) (h *npyio.Header, open func(context.Context) (io.ReadCloser, error), ok bool)
}

// npyCopier returns the reader of p if it copies p to .npy itself.
func (s *fileSource) npyCopier(p *Part) npyCopier {
	c, ok := s.r.(npyCopier)
	if !ok || !s.plain(p) || p.cols != nil || !c.copiesNPY(p) {
		return nil
	}
	return c
}

// storedArray returns p's array as stored, if its reader keeps it so.
func (s *fileSource) storedArray(p *Part) (*npyio.Header, func(context.Context) (io.ReadCloser, error), bool) {
	st, ok := s.r.(storer)
	if !ok || !s.plain(p) || p.cols != nil {
		return nil, nil, false
	}
	return st.stored(p)
}

// bigRows reports whether part p's rows are each larger than a batch (a
// 1 x N MATLAB vector is one row) and open as an npyio.Reader: an npy or
// npz sink fed directly copies them in parts (copyParts), so that no row
// is held whole.
func (s *fileSource) bigRows(p *Part) bool {
	_, ok := s.r.(npyOpener)
	return ok && s.plain(p) && p.cols == nil && partSchema(s.file, p).RowSize() > containerBatchBytes
}

// copiesArray reports whether part p's array goes to an npy or npz sink
// fed directly by a copy rather than as rows: as stored, or in parts.
func (s *fileSource) copiesArray(p *Part) bool {
	_, _, stored := s.storedArray(p)
	return stored || s.bigRows(p)
}

// copyArray copies part p's array (see copiesArray) through the writer
// create makes for its header; errors name the array (name) and the
// output out, or the part.
func (s *fileSource) copyArray(ctx context.Context, p *Part, out, name string, create func(*npyio.Header) (arrayWriter, error)) error {
	h, open, stored := s.storedArray(p)
	if !stored {
		h = s.partHeader(p)
	}
	w, err := create(h)
	if err != nil {
		return &FileError{Path: out, Err: fmt.Errorf("%s: %w", name, err)}
	}
	if stored {
		err = writeStored(ctx, w, h, name, open)
	} else {
		err = s.copyParts(ctx, p, w)
	}
	return copyError(err, p, out)
}

// copyParts writes the data of part p (see bigRows) through w, in parts
// of containerBatchBytes, and closes w.
func (s *fileSource) copyParts(ctx context.Context, p *Part, w arrayWriter) error {
	r, c, err := s.r.(npyOpener).openNPY(ctx, s, p)
	if err != nil {
		return err
	}
	defer c.Close()
	for {
		b, err := r.NextPart(containerBatchBytes)
		if err == io.EOF {
			return w.Close()
		}
		if err != nil {
			return err
		}
		if err := w.Write(b); err != nil {
			return err
		}
	}
}

// partHeader is the header a sink fed directly writes part p with.
func (s *fileSource) partHeader(p *Part) *npyio.Header {
	sc := partSchema(s.schema, p)
	return &npyio.Header{DType: storedDType(sc, p, true), Shape: append([]int{int(p.Rows)}, sc.Shape...)}
}

// asColumns reports whether part p, an archive's members read as one
// table, opens as one npyio.Reader per member, so that a Parquet sink
// writes it as a table of them (parquetio.WriteTable), not as records.
func (s *fileSource) asColumns(p *Part) bool {
	_, ok := s.r.(npyOpener)
	return ok && s.plain(p) && p.cols != nil
}

// arrays opens part p as npyio.Readers: one (cols nil) for an array,
// one per column of an archive's table (cols describes them). open may
// be called again (up to three times, see parquetio.WriteArray); each
// call closes what the previous one opened, and done closes the last.
func (s *fileSource) arrays(ctx context.Context, p *Part) ([]parquetio.Column, parquetio.Opener, func(), error) {
	var opened closers
	done := func() { opened.Close(); opened = nil }
	no, direct := s.r.(npyOpener)
	direct = direct && s.plain(p)
	if !direct {
		sc := partSchema(s.schema, p)
		dt := sc.DType
		if s.plain(p) {
			dt = storedDType(sc, p, true)
		}
		h := &npyio.Header{DType: dt, Shape: append([]int{int(p.Rows)}, sc.Shape...)}
		if p.zeroD {
			h.Shape = []int{}
		}
		open := func() ([]*npyio.Reader, error) {
			done()
			pr, err := s.open(ctx, p)
			if err != nil {
				return nil, err
			}
			opened = append(opened, pr)
			r, err := streamReader(h, &npyStream{pr: pr, rowSize: int(partSchema(s.schema, p).RowSize())}, nil)
			if err != nil {
				return nil, err
			}
			return []*npyio.Reader{r}, nil
		}
		return nil, open, done, nil
	}
	members := []string{p.Member}
	var cols []parquetio.Column
	if p.cols != nil {
		members = p.cols
		for _, f := range partSchema(s.file, p).DType.Fields {
			cols = append(cols, parquetio.Column{Name: f.Name, DType: f.Type, Shape: f.Shape})
		}
	}
	open := func() ([]*npyio.Reader, error) {
		done()
		rs := make([]*npyio.Reader, len(members))
		for i, m := range members {
			r, c, err := no.openNPY(ctx, s, &Part{Source: p.Source, Path: p.Path, Member: m})
			if err != nil {
				return nil, err
			}
			opened = append(opened, c)
			rs[i] = r
		}
		return rs, nil
	}
	return cols, open, done, nil
}

// storedDType is the dtype a sink fed directly writes one part p in, of
// rows in: the part's dtype as stored (byte order included), as a copy
// of it keeps it, when p's rows are its file's.
func storedDType(in *Schema, p *Part, direct bool) *npyio.DType {
	in = partSchema(in, p)
	if direct && p != nil && p.dtype != nil && p.dtype.Native().Equal(in.DType) {
		return p.dtype
	}
	return in.DType
}

// copyError names the file of an error of a copy: the output's (out) for
// a problem writing it, else the part's.
func copyError(err error, p *Part, out string) error {
	var fe *FileError
	switch {
	case err == nil || errors.As(err, &fe):
		return err
	case errors.As(err, new(*OutputError)):
		return &FileError{Path: out, Err: err}
	}
	return &FileError{Path: p.String(), Err: err}
}

// streamReader reads an array of header h whose data r streams.
func streamReader(h *npyio.Header, r io.Reader, o *npyio.Options) (*npyio.Reader, error) {
	hb, err := npyio.EncodeHeader(h)
	if err != nil {
		return nil, err
	}
	return npyio.NewReader(io.MultiReader(bytes.NewReader(hb), r), o)
}

// npyStream is a part's rows as a byte stream.
type npyStream struct {
	pr      partReader
	rowSize int
	buf     []byte
	eof     bool
}

func (s *npyStream) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.eof || s.rowSize == 0 {
			return 0, io.EOF
		}
		b := make([]byte, max(1, containerBatchBytes/s.rowSize)*s.rowSize)
		n, err := s.pr.ReadRows(b)
		if err == io.EOF {
			s.eof = true
			continue
		}
		if err != nil {
			return 0, err
		}
		s.buf = b[:n*s.rowSize]
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// writeStored writes an array through w (made with its header h, an
// .npy's or an archive's array) from the stream open gives: its data as
// stored, in whole rows of about containerBatchBytes, so nothing is held
// whole. Errors are prefixed with name.
func writeStored(ctx context.Context, w arrayWriter, h *npyio.Header, name string, open func(context.Context) (io.ReadCloser, error)) error {
	rc, err := open(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer rc.Close()
	row := max(1, h.RowSize())
	buf := make([]byte, min(max(1, containerBatchBytes/row)*row, max(h.DataSize(), 1)))
	left := h.DataSize()
	for left > 0 {
		k, err := io.ReadFull(rc, buf[:min(int64(len(buf)), left)])
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := w.Write(buf[:k]); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		left -= int64(k)
	}
	var one [1]byte
	if n, err := rc.Read(one[:]); n != 0 || err != io.EOF && err != nil {
		if err == nil {
			err = errors.New("more data than the shape holds")
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// A sharded run's sink (trackedSink) copies as the sink it wraps does.

func (t *trackedSink) copies(src source, p *Part) bool {
	c, ok := t.sinkNode.(partCopier)
	return ok && c.copies(src, p)
}

func (t *trackedSink) takesStored() bool {
	c, ok := t.sinkNode.(partCopier)
	return ok && c.takesStored()
}

func (t *trackedSink) copyPart(ctx context.Context, src source, p *Part, progress func(int64)) (bool, int64, error) {
	if t.skipping {
		return true, 0, nil
	}
	ok, rows, err := t.sinkNode.(partCopier).copyPart(ctx, src, p, progress)
	t.rows += rows
	return ok, rows, err
}
