package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/matfile"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
	"github.com/npyflow/npyflow/pipeline/job"
)

// HDF5 files and MAT-files read as archives of named arrays, like an
// .npz: every dataset of an HDF5 file is a member named by its path
// without the leading slash ("group/data"), every array of a MAT-file a
// member named by its MATLAB-style path ("x", "s.a", "c{3}"). Each member
// is read as an .npy stream (its header, then its data from the hdf5 or
// matfile package's reader), so the conversions and the job sources treat
// them as they treat .npz members.

// WarnFunc receives the warnings of a conversion or a job run that does
// not fail it: a MAT-file variable of a class numpy cannot hold (a
// function handle, a MATLAB object) skipped, an HDF5 dataset of a type
// without a numpy form skipped when every dataset is read. By default it
// prints "npyflow: warning: MSG" on standard error; [ConvertOptions].Warn
// overrides it for one conversion.
var WarnFunc = func(msg string) { fmt.Fprintf(os.Stderr, "npyflow: warning: %s\n", msg) }

func warnf(format string, args ...any) {
	if WarnFunc != nil {
		WarnFunc(fmt.Sprintf(format, args...))
	}
}

// containerMember is one array of an HDF5 file or MAT-file.
type containerMember struct {
	name   string
	header *npyio.Header // dtype (in the byte order of the data), shape, order
	open   func() (io.ReadCloser, error)
	// openC, if set, streams a Fortran-order member's data in C order
	// (a MAT-file array read in bands of rows).
	openC func() (io.ReadCloser, error)
}

// containerOptions are the source options of an hdf5 or mat input.
type containerOptions struct {
	pick   []string // datasets or variables (all when empty)
	strict bool     // mat: unsupported classes are errors
	warn   func(string)
}

// isContainer reports the formats read through containerMembers.
func isContainer(format string) bool { return format == "hdf5" || format == "mat" }

// containerMembers lists the arrays of the HDF5 file or MAT-file held by
// r (name is for messages). Only headers are read, except for a Level 5
// MAT-file, whose variables are read (inflated) whole, each bounded by
// matfile's MaxVariableBytes. close releases the file's structures.
func containerMembers(format, name string, r io.ReaderAt, size int64, o containerOptions) ([]containerMember, error) {
	warn := o.warn
	if warn == nil {
		warn = func(string) {}
	}
	if format == "hdf5" {
		return hdf5Members(name, r, size, o.pick, warn)
	}
	return matMembers(name, r, size, o, warn)
}

func hdf5Members(name string, r io.ReaderAt, size int64, pick []string, warn func(string)) ([]containerMember, error) {
	f, err := hdf5.Open(r, size, &hdf5.Options{Name: name})
	if err != nil {
		return nil, err
	}
	var out []containerMember
	if len(pick) > 0 {
		for _, p := range pick {
			path := "/" + strings.TrimPrefix(p, "/")
			obj, err := f.OpenPath(path)
			if err != nil {
				if errors.Is(err, hdf5.ErrNotFound) {
					return nil, fmt.Errorf("no dataset %s%s", path, hdf5Hint(f))
				}
				return nil, err
			}
			ds, ok := obj.(*hdf5.Dataset)
			if !ok {
				return nil, fmt.Errorf("%s is not a dataset%s", path, hdf5Hint(f))
			}
			m, err := hdf5Member(ds)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		return out, nil
	}
	err = f.Walk(func(path string, obj hdf5.Object) error {
		ds, ok := obj.(*hdf5.Dataset)
		if !ok {
			return nil
		}
		m, err := hdf5Member(ds)
		if errors.Is(err, hdf5.ErrUnsupported) || errors.Is(err, errNullDataset) {
			msg := err.Error()
			if i := strings.Index(msg, path+": "); i >= 0 {
				msg = msg[i+len(path)+2:] // the file and dataset are named in front
			}
			warn(fmt.Sprintf("%s: dataset %s skipped: %s", name, path, msg))
			return nil
		}
		if err != nil {
			return err
		}
		out = append(out, m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("the HDF5 file has no dataset npyflow can read")
	}
	return out, nil
}

// hdf5Hint lists the readable datasets of a small file for a message.
func hdf5Hint(f *hdf5.File) string {
	var names []string
	f.Walk(func(path string, obj hdf5.Object) error {
		if _, ok := obj.(*hdf5.Dataset); ok {
			names = append(names, path)
		}
		if len(names) > 20 {
			return io.EOF
		}
		return nil
	})
	if len(names) == 0 || len(names) > 20 {
		return ""
	}
	return " (datasets: " + strings.Join(names, ", ") + ")"
}

var errNullDataset = errors.New("it has a null dataspace (h5py.Empty): no data")

// hdf5Member maps one dataset as h5py does (see hdf5.Dataset.DType):
// references, opaque, time and variable-length sequences are refused.
func hdf5Member(ds *hdf5.Dataset) (containerMember, error) {
	if err := ds.Err(); err != nil {
		return containerMember{}, err
	}
	if ds.IsNull() {
		return containerMember{}, errNullDataset
	}
	dt, err := ds.DType()
	if err != nil {
		return containerMember{}, err
	}
	shape, err := ds.NumpyShape()
	if err != nil {
		return containerMember{}, err
	}
	h := &npyio.Header{DType: dt, Shape: shape}
	open := func() (io.ReadCloser, error) {
		er, err := ds.NewElementReader(containerBatchBytes)
		if err != nil {
			return nil, err
		}
		return &elemStream{er: er}, nil
	}
	return containerMember{name: strings.TrimPrefix(ds.Path(), "/"), header: h, open: open}, nil
}

// containerBatchBytes is the size of the batches HDF5 datasets are read
// in (and the most rows a conversion moves at once, see batchRows).
const containerBatchBytes = 4 << 20

// batchRows is how many rows of r to read at once: at most most, and
// about containerBatchBytes (at least one row), so wide rows (a MATLAB
// matrix with many columns) come in small batches.
func batchRows(r *npyio.Reader, most int) int {
	return int(max(1, min(int64(most), containerBatchBytes/max(r.RowSize(), 1))))
}

// pumpParts is pump for rows over containerBatchBytes (a 1 x N MATLAB
// row vector is one row): the data moves in parts of that size, so no
// row is held whole.
func pumpParts(wr *npyio.Writer, r *npyio.Reader, progress func(int64)) error {
	for {
		b, err := r.NextPart(containerBatchBytes)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if _, err := wr.Write(b); err != nil {
			return err
		}
		if progress != nil {
			progress(r.Rows() - r.Remaining())
		}
	}
	return wr.Close()
}

// elemStream is a dataset's elements as one byte stream, in batches of
// bounded size whatever its shape.
type elemStream struct {
	er  *hdf5.ElementReader
	buf []byte
	eof bool
}

func (s *elemStream) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.eof {
			return 0, io.EOF
		}
		b, err := s.er.Read()
		if err == io.EOF {
			s.eof = true
			continue
		}
		if err != nil {
			return 0, err
		}
		s.buf = b
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

func (s *elemStream) Close() error { return nil }

func matMembers(name string, r io.ReaderAt, size int64, o containerOptions, warn func(string)) ([]containerMember, error) {
	mf, err := matfile.Open(r, size, &matfile.Options{Strict: o.strict, Warn: func(w matfile.Warning) {
		warn(fmt.Sprintf("%s: %s", name, w))
	}})
	if err != nil {
		return nil, err
	}
	var out []containerMember
	err = mf.WalkVariables(matTops(o.pick), func(path string, v *matfile.Var) error {
		if len(o.pick) > 0 && !matPicked(path, o.pick) {
			return nil
		}
		out = append(out, containerMember{name: path, header: v.Header, open: v.Open, openC: v.OpenRowMajor})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		if len(o.pick) > 0 {
			return nil, fmt.Errorf("no array %s in the MAT-file", strings.Join(o.pick, ", "))
		}
		return nil, errors.New("the MAT-file has no variable npyflow can read")
	}
	return out, nil
}

// matTop is the top-level variable of a MATLAB-style path: "s" of
// "s(2).c{1}".
func matTop(path string) string {
	if i := strings.IndexAny(path, ".({"); i >= 0 {
		return path[:i]
	}
	return path
}

func matTops(pick []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range pick {
		if t := matTop(p); !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// matPicked reports whether path is one of pick or inside one of them
// (a picked struct gives all its fields).
func matPicked(path string, pick []string) bool {
	for _, p := range pick {
		if path == p || (strings.HasPrefix(path, p) && strings.ContainsRune(".({", rune(path[len(p)]))) {
			return true
		}
	}
	return false
}

// memberReader is a container member as an npyio.Reader (rows in native
// byte order and C order) with the stream to close.
func memberReader(m containerMember) (*npyio.Reader, io.Closer, error) {
	h := *m.header
	if h.FortranOrder && vectorShape(h.Shape) {
		// One axis longer than 1 (a MATLAB column or row vector, a
		// struct's column): column-major is row-major, so it streams.
		h.FortranOrder = false
	}
	open := m.open
	if h.FortranOrder && len(h.Shape) >= 2 && m.openC != nil {
		// Bands of rows in C order (a MAT-file array read by hyperslabs):
		// nothing is held whole.
		h.FortranOrder = false
		open = m.openC
	}
	hb, err := npyio.EncodeHeader(&h)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", m.name, err)
	}
	rc, err := open()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", m.name, err)
	}
	r, err := npyio.NewReader(io.MultiReader(bytes.NewReader(hb), rc), &npyio.Options{MaxBufferSize: matfile.DefaultMaxVariableBytes})
	if err != nil {
		rc.Close()
		return nil, nil, fmt.Errorf("%s: %w", m.name, err)
	}
	if !h.FortranOrder || len(h.Shape) < 2 {
		return r, rc, nil
	}
	// MATLAB's column-major data, reordered by r, is offered in C order,
	// as the job source reads it: outputs then record no Fortran order.
	hc := npyio.Header{DType: r.DType(), Shape: h.Shape}
	hb, err = npyio.EncodeHeader(&hc)
	if err == nil {
		r, err = npyio.NewReader(io.MultiReader(bytes.NewReader(hb), &rowBytes{r: r}), nil)
	}
	if err != nil {
		rc.Close()
		return nil, nil, fmt.Errorf("%s: %w", m.name, err)
	}
	return r, rc, nil
}

// rowBytes is the rows of an npyio.Reader as a byte stream.
type rowBytes struct {
	r   *npyio.Reader
	buf []byte
}

func (s *rowBytes) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		b, err := s.r.Next(batchRows(s.r, 1<<14))
		if err != nil {
			return 0, err
		}
		s.buf = b.Data
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// containerSource is an HDF5 or MAT-file input of a conversion: like an
// .npz, one array, a table of members of one length, or (to .npz or
// .mat) an archive of members of any shapes.
func (c *converter) containerSource(kind, outKind string) (*convSource, error) {
	fh, size, closeIn, err := c.openInput()
	if err != nil {
		return nil, err
	}
	var pick []string
	if kind == "hdf5" && c.opts.Dataset != "" {
		pick = []string{c.opts.Dataset}
	}
	if kind == "mat" && c.opts.Variable != "" {
		pick = []string{c.opts.Variable}
	}
	warn := c.opts.Warn
	if warn == nil {
		warn = WarnFunc
	}
	members, err := containerMembers(kind, c.in, fh, size, containerOptions{pick: pick, strict: c.opts.Strict, warn: warn})
	if err != nil {
		closeIn()
		return nil, err
	}
	var closers []io.Closer
	closeAll := func() {
		for _, cl := range closers {
			cl.Close()
		}
		closers = nil
	}
	open := func() ([]*npyio.Reader, error) {
		closeAll()
		rs := make([]*npyio.Reader, len(members))
		for i, m := range members {
			r, cl, err := memberReader(m)
			if err != nil {
				closeAll()
				return nil, err
			}
			rs[i] = r
			closers = append(closers, cl)
		}
		return rs, nil
	}
	done := func() { closeAll(); closeIn() }
	rows := func(h *npyio.Header) int64 {
		if len(h.Shape) == 0 {
			return 1
		}
		return int64(h.Shape[0])
	}
	if len(members) == 1 && outKind != "mat" {
		h := members[0].header
		return &convSource{array: true, name: members[0].name, open: open, rows: rows(h), bytes: h.DataSize(), header: h, close: done, members: members}, nil
	}
	src := &convSource{open: open, close: done, rows: rows(members[0].header), members: members}
	same := true
	var lens []string
	for _, m := range members {
		h := m.header
		if len(h.Shape) == 0 || rows(h) != src.rows {
			same = false
		}
		lens = append(lens, fmt.Sprintf("%s: %d", m.name, rows(h)))
		var shape []int
		if len(h.Shape) > 1 {
			shape = h.Shape[1:]
		}
		src.cols = append(src.cols, parquetio.Column{Name: m.name, DType: h.DType, Shape: shape, FortranOrder: h.FortranOrder})
		src.bytes += h.DataSize()
	}
	if outKind == "npz" || outKind == "mat" {
		src.archive = true
		src.rows = 0
		for _, m := range members {
			src.rows += rows(m.header)
		}
		return src, nil
	}
	if !same {
		done()
		what := "--dataset /PATH"
		if kind == "mat" {
			what = "--variable NAME"
		}
		return nil, fmt.Errorf("the arrays differ in length along axis 0 (%s), so they are not one table; pick one with %s", strings.Join(lens, ", "), what)
	}
	return src, nil
}

// containerOpts are the options of an hdf5 or mat job source.
func containerOpts(c *job.Component, warn func(string)) containerOptions {
	o := containerOptions{warn: warn}
	if c.Type == "hdf5" {
		o.pick = c.Strings("datasets")
	} else {
		o.pick = c.Strings("variables")
		o.strict = c.Bool("strict")
	}
	return o
}

// addContainer adds every selected array of an HDF5 file or MAT-file as
// a part, as addNPZ adds .npz members.
func (s *fileSource) addContainer(m match) error {
	f, err := openFile(m.Path)
	if err != nil {
		return &dataError{pos: s.c.PosOf("paths"), path: s.c.Path() + ".paths", err: err}
	}
	defer f.Close()
	members, err := containerMembers(s.c.Type, m.Path, f, f.Size(), containerOpts(s.c, WarnFunc))
	if err != nil {
		return &dataError{pos: s.c.PosOf("paths"), path: s.c.Path() + ".paths", err: fmt.Errorf("%s: %w", m.Path, err)}
	}
	for _, mem := range members {
		if err := s.addPart(m, mem.name, mem.header); err != nil {
			return err
		}
	}
	return nil
}

// openContainer opens one array of an HDF5 file or MAT-file.
func (s *fileSource) openContainer(p *Part) (partReader, error) {
	f, err := openFile(p.Path)
	if err != nil {
		return nil, err
	}
	o := containerOpts(s.c, nil)
	o.pick = []string{p.Member}
	members, err := containerMembers(s.c.Type, p.Path, f, f.Size(), o)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", p.Path, err)
	}
	var mem *containerMember
	for i := range members {
		if members[i].name == p.Member {
			mem = &members[i]
		}
	}
	if mem == nil {
		f.Close()
		return nil, fmt.Errorf("%s: %q disappeared", p.Path, p.Member)
	}
	rd, rc, err := memberReader(*mem)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", p.Path, err)
	}
	closer := closers{rc, f}
	if got := (&Schema{DType: rd.DType(), Shape: rd.Header().Shape[min(1, len(rd.Header().Shape)):]}); !got.Equal(s.file) {
		closer.Close()
		return nil, fmt.Errorf("%s: changed since planning: now holds %s, not %s", p.Path, got, s.file)
	}
	pr := &npyPartReader{rd: rd, closer: closer, name: p.Path + ":" + p.Member}
	if err := s.withCaptures(pr, p); err != nil {
		closer.Close()
		return nil, err
	}
	return pr, nil
}

// closers closes each in order.
type closers []io.Closer

func (cs closers) Close() error {
	var first error
	for _, c := range cs {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// vectorShape reports a shape with at most one axis longer than 1.
func vectorShape(shape []int) bool {
	long := 0
	for _, d := range shape {
		if d > 1 {
			long++
		}
	}
	return long <= 1
}

// fortranMember reports whether m goes to .npy as stored, column-major
// (convert --fortran-order): a MAT-file array with two or more axes
// longer than 1, in native byte order. Others (vectors, scalars) are the
// same bytes in C order and take the usual path.
func fortranMember(m containerMember) bool {
	h := m.header
	return h.FortranOrder && len(h.Shape) >= 2 && !vectorShape(h.Shape) && h.DType.IsNative()
}

// copyFortran writes member m to w as a Fortran-order .npy: the header,
// then the data as the member's stream delivers it, in parts of
// containerBatchBytes, so nothing is held whole.
func copyFortran(w io.Writer, m containerMember, progress func(int64)) error {
	h := *m.header
	wr, err := npyio.NewWriter(w, &h)
	if err != nil {
		return fmt.Errorf("%s: %w", m.name, err)
	}
	if err := streamFortran(wr, m); err != nil {
		return err
	}
	if progress != nil {
		progress(int64(h.Shape[0]))
	}
	return nil
}

func streamFortran(wr *npyio.Writer, m containerMember) error {
	rc, err := m.open()
	if err != nil {
		return fmt.Errorf("%s: %w", m.name, err)
	}
	defer rc.Close()
	buf := make([]byte, min(containerBatchBytes, max(m.header.DataSize(), 1)))
	left := m.header.DataSize()
	for left > 0 {
		k, err := io.ReadFull(rc, buf[:min(int64(len(buf)), left)])
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("%s: %w", m.name, err)
		}
		if _, err := wr.Write(buf[:k]); err != nil {
			return err
		}
		left -= int64(k)
	}
	var one [1]byte
	if n, err := rc.Read(one[:]); n != 0 || err != io.EOF && err != nil {
		if err == nil {
			err = errors.New("more data than the shape holds")
		}
		return fmt.Errorf("%s: %w", m.name, err)
	}
	return wr.Close()
}

// containerToNPZ writes every array of an HDF5 or MAT-file input to an
// .npz one at a time (convert --fortran-order): a matrix as stored
// (Fortran order), the others as rows.
func (c *converter) containerToNPZ(f io.Writer, src *convSource) error {
	z := npyio.NewNPZWriter(f, c.npzDeflate)
	var done int64
	for _, m := range src.members {
		if fortranMember(m) {
			h := *m.header
			wr, err := z.Create(m.name, &h)
			if err != nil {
				return err
			}
			if err := streamFortran(wr, m); err != nil {
				return err
			}
			done += int64(h.Shape[0])
			c.setProgress(done)
			continue
		}
		r, cl, err := memberReader(m)
		if err != nil {
			return err
		}
		base := done
		err = copyMember(z, m.name, r, func(rows int64) { c.setProgress(base + rows) })
		cl.Close()
		if err != nil {
			return err
		}
		done += r.Rows()
	}
	return z.Close()
}
