package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
)

// One conversion of a file to another format (npyflow convert): the
// library side of the CLI. The formats are those of the registry
// (formats.go); the conversion streams in bounded batches and writes its
// output atomically.

// OutputError is a problem with the output file (or a scratch file next
// to it): creating, writing or renaming it.
type OutputError struct{ err error }

func (e *OutputError) Error() string { return e.err.Error() }
func (e *OutputError) Unwrap() error { return e.err }

// InternalError is a panic in the conversion's writer goroutine: a bug, reported
// as main reports a panic in a command.
type InternalError struct{ p any }

func (e InternalError) Error() string {
	return fmt.Sprintf("internal error (please report it): %v", e.p)
}

// bare drops the file name of an *os.PathError: the message names the
// file once, in front. Other errors (io.EOF above all) are returned as
// they are.
func bare(err error) error {
	switch e := err.(type) {
	case *os.PathError:
		return e.Err
	case *os.LinkError:
		return e.Err
	}
	return err
}

// inputFile reads IN with errors that do not repeat its name.
type inputFile struct{ f storage.File }

func (i inputFile) Read(p []byte) (int, error) {
	n, err := i.f.Read(p)
	return n, bare(err)
}

func (i inputFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := i.f.ReadAt(p, off)
	return n, bare(err)
}

func (i inputFile) Seek(off int64, whence int) (int64, error) {
	n, err := i.f.Seek(off, whence)
	return n, bare(err)
}

// outputFile writes OUT (or a scratch file next to it) with errors that
// say so, without the temporary file's name.
type outputFile struct{ f io.WriteSeeker }

func (o outputFile) Write(p []byte) (int, error) {
	n, err := o.f.Write(p)
	if err != nil {
		err = &OutputError{bare(err)}
	}
	return n, err
}

func (o outputFile) Seek(off int64, whence int) (int64, error) {
	n, err := o.f.Seek(off, whence)
	if err != nil {
		err = &OutputError{bare(err)}
	}
	return n, err
}

// openInput opens IN (or takes c.inFile) and returns it with its size and
// a function closing it.
func (c *converter) openInput() (inputFile, int64, func(), error) {
	if c.inFile != nil {
		st, err := c.inFile.Stat()
		if err != nil {
			return inputFile{}, 0, nil, bare(err)
		}
		// The caller closes c.inFile; the reopened handle shares it.
		fh := storage.OpenFile(c.inFile, st.Size())
		return inputFile{fh}, st.Size(), func() {}, nil
	}
	fh, err := storage.Open(c.ctx, c.in)
	if err != nil {
		return inputFile{}, 0, nil, bare(err)
	}
	return inputFile{fh}, fh.Size(), func() { fh.Close() }, nil
}

// scratchDir is where intermediate data goes: OUT's directory (the disk
// the output goes to, rather than a /tmp that may be held in memory), or
// os.TempDir() when OUT is not a local path.
func (c *converter) scratchDir() string {
	if storage.Scheme(c.out) != "" {
		return os.TempDir()
	}
	return filepath.Dir(c.out)
}

// scratch creates a temporary file next to OUT for intermediate data. It
// has no name: it is removed as soon as it is created (Unix), so nothing is
// left behind whatever happens to the process.
func (c *converter) scratch() (*os.File, error) {
	f, err := os.CreateTemp(c.scratchDir(), "."+filepath.Base(c.out)+".npyflow-scratch-*")
	if err != nil {
		return nil, &OutputError{bare(err)}
	}
	os.Remove(f.Name())
	return f, nil
}

type converter struct {
	ctx        context.Context
	opts       *ConvertOptions
	popts      *parquetio.Options
	fo         *foreignOptions // reading Parquet and Arrow inputs
	in, out    string
	name       string   // column name of a plain array
	npzDeflate bool     // .npz output: Deflate members
	inFile     *os.File // IN already open, or a scratch copy standing for it
	seekable   bool     // the writer seeks back (storage.CreateOptions.Seekable)
	bar        *convBar // progress, shared by copies of the converter
}

// convBar shows a conversion's progress: mu orders the updates of writer
// goroutines against the stop, so that no update follows it.
type convBar struct {
	mu      sync.Mutex
	p       ConvertProgress
	started bool
}

func (c *converter) startBar(rows, bytes int64) {
	if c.bar != nil && rows > 0 {
		c.bar.mu.Lock()
		defer c.bar.mu.Unlock()
		c.bar.p.Start(rows, bytes)
		c.bar.started = true
	}
}

func (c *converter) setProgress(rows int64) {
	if c.bar == nil {
		return
	}
	c.bar.mu.Lock()
	defer c.bar.mu.Unlock()
	if c.bar.started {
		c.bar.p.Update(rows)
	}
}

func (c *converter) stopBar(ok bool) {
	if c.bar == nil {
		return
	}
	c.bar.mu.Lock()
	defer c.bar.mu.Unlock()
	if c.bar.started {
		c.bar.started = false
		c.bar.p.Stop(ok)
	}
}

// convSource is an input seen as numpy: either one array or a table of
// columns, each opened as an npyio.Reader (possibly several times).
type convSource struct {
	array  bool
	name   string
	cols   []parquetio.Column
	open   parquetio.Opener
	rows   int64
	bytes  int64
	header *npyio.Header // for arrays
	close  func()
	// archive: members of an .npz copied one by one to an .npz, in any
	// shapes (cols name them; they need not be one table).
	archive bool
	// members are the arrays of an HDF5 or MAT-file input (nil for
	// others), for the outputs that take them one at a time.
	members []containerMember
}

func (c *converter) run(inKind, outKind string) error {
	switch inKind {
	case "npy", "npz":
		src, err := c.numpySource(inKind, outKind)
		if err != nil {
			return err
		}
		defer src.close()
		return c.fromNumpy(src, outKind)
	case "hdf5", "mat":
		src, err := c.containerSource(inKind, outKind)
		if err != nil {
			return err
		}
		defer src.close()
		return c.fromNumpy(src, outKind)
	case "parquet", "arrow":
		if outKind == "mat" || outKind == "hdf5" {
			return c.viaScratchNPY(inKind, outKind)
		}
		if inKind == "parquet" {
			return c.fromParquet(outKind)
		}
		return c.fromArrow(outKind)
	}
	return nil
}

func (c *converter) numpySource(kind, outKind string) (*convSource, error) {
	fh, size, closeIn, err := c.openInput()
	if err != nil {
		return nil, err
	}
	if kind == "npy" {
		open := func() ([]*npyio.Reader, error) {
			r, err := npyio.NewReaderAt(fh, size, nil)
			if err != nil {
				return nil, err
			}
			return []*npyio.Reader{r}, nil
		}
		rs, err := open()
		if err != nil {
			closeIn()
			return nil, err
		}
		h := rs[0].Header()
		return &convSource{array: true, name: c.name, open: open, rows: rs[0].Rows(), bytes: h.DataSize(), header: h, close: closeIn}, nil
	}
	// npyio.OpenNPZ would name the file in its errors, and convert names it.
	z, err := npyio.NewNPZReader(fh, size, nil)
	if err != nil {
		closeIn()
		return nil, err
	}
	closeZ := closeIn
	var members []*npyio.Member
	if c.opts.Member != "" {
		m := z.Member(c.opts.Member)
		if m == nil {
			closeZ()
			return nil, fmt.Errorf("no member %q (members: %s)", c.opts.Member, strings.Join(z.Keys(), ", "))
		}
		members = []*npyio.Member{m}
	} else {
		for _, m := range z.Members {
			if _, err := m.ReadHeader(); errors.Is(err, npyio.ErrNotNPY) {
				if outKind == "npz" {
					// A copy of the archive would silently lose it.
					closeZ()
					return nil, fmt.Errorf("member %q is not an .npy file (np.load returns it as raw bytes); npyflow copies only arrays: pick members with --member", m.Name)
				}
				continue // np.load returns such members as raw bytes
			}
			members = append(members, m)
		}
	}
	if len(members) == 0 {
		closeZ()
		return nil, errors.New("the archive has no .npy members")
	}
	open := func() ([]*npyio.Reader, error) {
		rs := make([]*npyio.Reader, len(members))
		for i, m := range members {
			r, err := m.Open()
			if err != nil {
				return nil, err
			}
			rs[i] = r
		}
		return rs, nil
	}
	rs, err := open()
	if err != nil {
		closeZ()
		return nil, err
	}
	if len(members) == 1 && outKind != "mat" && outKind != "hdf5" {
		h := rs[0].Header()
		return &convSource{array: true, name: members[0].Key, open: open, rows: rs[0].Rows(), bytes: h.DataSize(), header: h, close: closeZ}, nil
	}
	src := &convSource{open: open, close: closeZ, rows: rs[0].Rows()}
	var lens []string
	same := true
	for i, r := range rs {
		h := r.Header()
		if len(h.Shape) == 0 {
			same = false
		}
		if r.Rows() != rs[0].Rows() {
			same = false
		}
		lens = append(lens, fmt.Sprintf("%s: %d", members[i].Key, r.Rows()))
		var shape []int
		if len(h.Shape) > 1 {
			shape = h.Shape[1:]
		}
		src.cols = append(src.cols, parquetio.Column{Name: members[i].Key, DType: h.DType, Shape: shape, FortranOrder: h.FortranOrder})
		src.bytes += h.DataSize()
	}
	if outKind == "npz" || outKind == "mat" || outKind == "hdf5" {
		src.archive = true // member by member: no table needed
		src.rows = 0
		for _, r := range rs {
			src.rows += r.Rows()
		}
		return src, nil
	}
	if !same {
		closeZ()
		return nil, fmt.Errorf("members differ in length along axis 0 (%s), so they are not one table; pick one with --member NAME", strings.Join(lens, ", "))
	}
	return src, nil
}

// withOutput runs write on a temporary file next to OUT (atomicfile) and
// renames it to OUT on success; on failure, interruption or a panic in
// write nothing is left at OUT or beside it. A panic in write (a bug) is
// returned as an internalError, as main reports a panic in a command.
func (c *converter) withOutput(write func(w io.Writer) error) error {
	if c.ctx.Err() != nil {
		c.stopBar(false)
		return errors.New("interrupted; no output written")
	}
	f, err := storage.Create(c.ctx, c.out, storage.CreateOptions{Sync: c.opts.Sync, Seekable: c.seekable})
	if err != nil {
		return &OutputError{bare(err)}
	}
	defer f.Abort() // after Commit, nothing
	errc := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				errc <- InternalError{p}
			}
		}()
		errc <- write(outputFile{f}) // f.Write starts background writeback
	}()
	select {
	case err = <-errc:
	case <-c.ctx.Done():
		f.Abort()
		c.stopBar(false)
		return errors.New("interrupted; no output written")
	}
	c.stopBar(err == nil)
	if err != nil {
		return err
	}
	if err := f.Commit(); err != nil {
		return &OutputError{bare(err)}
	}
	return nil
}

func (c *converter) fromNumpy(src *convSource, outKind string) error {
	c.startBar(src.rows, src.bytes)
	switch outKind {
	case "parquet":
		return c.withOutput(func(f io.Writer) error {
			f = parquetOutput(f)
			var err error
			if src.array {
				_, err = parquetio.WriteArray(f, src.open, src.name, c.popts, c.setProgress)
			} else {
				_, err = parquetio.WriteTable(f, src.cols, src.open, c.popts, c.setProgress)
			}
			return err
		})
	case "npy":
		if src.array && c.opts.FortranOrder && len(src.members) == 1 && fortranMember(src.members[0]) {
			return c.withOutput(func(f io.Writer) error {
				return copyFortran(f, src.members[0], c.setProgress)
			})
		}
		return c.withOutput(func(f io.Writer) error {
			rs, err := src.open()
			if err != nil {
				return err
			}
			if src.array {
				return copyNPY(f, rs[0], c.setProgress)
			}
			return copyTableNPY(f, src.cols, rs, c.setProgress)
		})
	case "npz":
		if c.opts.FortranOrder && src.members != nil {
			return c.withOutput(func(f io.Writer) error {
				return c.containerToNPZ(f, src)
			})
		}
		return c.withOutput(func(f io.Writer) error {
			rs, err := src.open()
			if err != nil {
				return err
			}
			z := npyio.NewNPZWriter(f, c.npzDeflate)
			if src.array {
				if err := copyMember(z, src.name, rs[0], c.setProgress); err != nil {
					return err
				}
			} else {
				var done int64 // rows of the members copied (an archive counts them all)
				for i, col := range src.cols {
					var progress func(int64)
					if src.archive {
						progress = func(rows int64) { c.setProgress(done + rows) }
					}
					if err := copyMember(z, col.Name, rs[i], progress); err != nil {
						return err
					}
					done += rs[i].Rows()
				}
			}
			return z.Close()
		})
	case "arrow":
		return c.withOutput(func(f io.Writer) error {
			rs, err := src.open()
			if err != nil {
				return err
			}
			if src.array {
				return c.npyToArrow(f, rs[0], src.name)
			}
			return c.tableToArrow(f, src.cols, rs)
		})
	case "mat":
		return c.toMAT(src)
	case "hdf5":
		return c.toHDF5(src)
	}
	return nil
}

// parquetOutput returns the output w with its Truncate where it has one
// (a local file), so that parquetio reads a table with time columns once
// (see parquetio.WriteArray).
func parquetOutput(w io.Writer) io.Writer {
	o, ok := w.(outputFile)
	if !ok {
		return w
	}
	t, ok := o.f.(interface{ Truncate(int64) error })
	if !ok {
		return w
	}
	return truncOutput{o, t}
}

// truncOutput is an outputFile that can be truncated.
type truncOutput struct {
	outputFile
	t interface{ Truncate(int64) error }
}

func (o truncOutput) Truncate(size int64) error {
	if err := o.t.Truncate(size); err != nil {
		return &OutputError{bare(err)}
	}
	return nil
}

// tableToArrow writes the members rs of an .npz table as one Arrow table:
// their rows are interleaved into the records of a structured array (one
// field per member, as for Parquet) on a pipe, which is read as an .npy
// stream.
func (c *converter) tableToArrow(w io.Writer, cols []parquetio.Column, rs []*npyio.Reader) error {
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				pw.CloseWithError(InternalError{p})
			}
		}()
		pw.CloseWithError(copyTableNPY(pw, cols, rs, c.setProgress))
	}()
	// The writer goroutine may still report progress after the last
	// bytes are read: wait for it, so it never outlives the bar.
	defer func() {
		pr.CloseWithError(errors.New("the Arrow writer stopped")) // unblocks the goroutine
		<-done
	}()
	r, err := npyio.NewReader(pr, nil)
	if err != nil {
		return err
	}
	return c.npyToArrow(w, r, "")
}

func (c *converter) ipcOptions() (arrowconv.IPCOptions, error) {
	o := arrowconv.IPCOptions{Format: arrowconv.DefaultIPCOptions(c.out).Format} // .arrows: a stream
	switch strings.ToLower(c.opts.Compression) {
	case "zstd":
		o.Compression = arrowconv.Zstd
	case "lz4":
		o.Compression = arrowconv.LZ4
	case "none", "uncompressed":
	default:
		return o, fmt.Errorf("compression %q is not available for Arrow IPC (zstd, lz4 or none)", c.opts.Compression)
	}
	return o, nil
}

func (c *converter) npyToArrow(w io.Writer, r *npyio.Reader, name string) error {
	o, err := c.ipcOptions()
	if err != nil {
		return err
	}
	rr, err := arrowconv.NewRecordReader(r, name, 1<<16, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	defer rr.Release()
	_, err = arrowconv.WriteIPC(w, rr, o, memory.DefaultAllocator)
	return err
}

func copyNPY(w io.Writer, r *npyio.Reader, progress func(int64)) error {
	h := *r.Header()
	h.FortranOrder = false // rows arrive in C order
	wr, err := npyio.NewWriter(w, &h)
	if err != nil {
		return err
	}
	return pump(wr, r, progress)
}

// batchReader is what pump reads: an npyio.Reader or a parquetio.Reader.
type batchReader interface {
	Next(maxRows int) (npyio.Batch, error)
}

// pump copies every batch of r into wr and closes wr.
func pump(wr *npyio.Writer, r batchReader, progress func(int64)) error {
	var done int64
	n := 1 << 16
	if nr, ok := r.(*npyio.Reader); ok {
		if nr.RowSize() > containerBatchBytes {
			return pumpParts(wr, nr, progress)
		}
		n = batchRows(nr, n)
	}
	for {
		b, err := r.Next(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if _, err := wr.Write(b.Data); err != nil {
			return err
		}
		done += int64(b.Rows)
		if progress != nil {
			progress(done)
		}
	}
	return wr.Close()
}

func copyMember(z *npyio.NPZWriter, key string, r *npyio.Reader, progress func(int64)) error {
	h := *r.Header()
	h.FortranOrder = false
	wr, err := z.Create(key, &h)
	if err != nil {
		return err
	}
	return pump(wr, r, progress)
}

// tableDType is the structured dtype of a table's rows.
func tableDType(cols []parquetio.Column) (*npyio.DType, error) {
	fs := make([]npyio.Field, len(cols))
	for i, c := range cols {
		fs[i] = npyio.Field{Name: c.Name, Type: c.DType, Shape: c.Shape}
	}
	return npyio.NewStruct(fs)
}

func copyTableNPY(w io.Writer, cols []parquetio.Column, rs []*npyio.Reader, progress func(int64)) error {
	dt, err := tableDType(cols)
	if err != nil {
		return err
	}
	wr, err := npyio.NewWriter(w, &npyio.Header{DType: dt, Shape: []int{int(rs[0].Rows())}})
	if err != nil {
		return err
	}
	var done int64
	var rows []byte
	for rs[0].Remaining() > 0 {
		var n int
		parts := make([][]byte, len(rs))
		for i, r := range rs {
			b, err := r.Next(1 << 14)
			if err != nil {
				return err
			}
			parts[i], n = b.Data, b.Rows
		}
		if cap(rows) < n*dt.Size {
			rows = make([]byte, n*dt.Size)
		}
		rows := rows[:n*dt.Size]
		for i, p := range parts {
			interleave(rows, dt.Size, dt.Fields[i].Offset, p, dt.Fields[i].Size(), n)
		}
		if _, err := wr.Write(rows); err != nil {
			return err
		}
		done += int64(n)
		if progress != nil {
			progress(done)
		}
	}
	return wr.Close()
}

// interleave copies n values of sz bytes from p into the field at off of
// the records of rows (stride bytes each); the common sizes move as
// fixed-size values rather than by a copy call each.
func interleave(rows []byte, stride, off int, p []byte, sz, n int) {
	switch sz {
	case 1:
		for k := 0; k < n; k++ {
			rows[k*stride+off] = p[k]
		}
	case 2:
		for k := 0; k < n; k++ {
			*(*[2]byte)(rows[k*stride+off:]) = *(*[2]byte)(p[k*2:])
		}
	case 4:
		for k := 0; k < n; k++ {
			*(*[4]byte)(rows[k*stride+off:]) = *(*[4]byte)(p[k*4:])
		}
	case 8:
		for k := 0; k < n; k++ {
			*(*[8]byte)(rows[k*stride+off:]) = *(*[8]byte)(p[k*8:])
		}
	default:
		for k := 0; k < n; k++ {
			copy(rows[k*stride+off:k*stride+off+sz], p[k*sz:(k+1)*sz])
		}
	}
}

func (c *converter) openParquet() (*parquetio.Reader, func(), error) {
	fh, size, closeIn, err := c.openInput()
	if err != nil {
		return nil, nil, err
	}
	r, err := parquetio.NewReaderOptions(fh, size, c.fo.parquet())
	if err != nil {
		closeIn()
		return nil, nil, err
	}
	return r, closeIn, nil
}

func (c *converter) fromParquet(outKind string) error {
	r, closeIn, err := c.openParquet()
	if err != nil {
		return err
	}
	defer func() { closeIn() }()
	h := r.Header()
	c.startBar(r.Rows(), h.DataSize())
	switch outKind {
	case "npy":
		return c.withOutput(func(f io.Writer) error {
			hh := *h
			hh.FortranOrder = false
			wr, err := npyio.NewWriter(f, &hh)
			if err != nil {
				return err
			}
			return pump(wr, r, c.setProgress)
		})
	case "npz":
		return c.withOutput(func(f io.Writer) error {
			z := npyio.NewNPZWriter(f, c.npzDeflate)
			if r.IsArray() {
				hh := *h
				hh.FortranOrder = false
				wr, err := z.Create(r.Columns()[0].Name, &hh)
				if err != nil {
					return err
				}
				if err := pump(wr, r, c.setProgress); err != nil {
					return err
				}
				return z.Close()
			}
			for i, col := range r.Columns() {
				rr, closeR, err := c.openParquet()
				if err != nil {
					return err
				}
				wr, err := z.Create(col.Name, &npyio.Header{DType: col.DType, Shape: append([]int{int(rr.Rows())}, col.Shape...)})
				if err == nil {
					err = pumpColumn(wr, rr, i)
				}
				closeR()
				if err != nil {
					return err
				}
			}
			return z.Close()
		})
	case "parquet":
		return c.withOutput(func(f io.Writer) error {
			var s *parquetio.Schema
			var err error
			if r.IsArray() {
				s, err = parquetio.NewArraySchema(h, r.Columns()[0].Name)
			} else {
				s, err = parquetio.NewSchema(r.Columns())
			}
			if err != nil {
				return err
			}
			if s.HasTime() {
				for {
					n, cols, err := r.NextColumns(1 << 16)
					if err == io.EOF {
						break
					}
					if err != nil {
						return err
					}
					s.Observe(cols, n)
				}
				closeIn()
				if r, closeIn, err = c.openParquet(); err != nil {
					return err
				}
			}
			pw, err := parquetio.NewWriter(f, s, c.popts)
			if err != nil {
				return err
			}
			pw.OnRowGroup(c.setProgress)
			for {
				n, cols, err := r.NextColumns(1 << 16)
				if err == io.EOF {
					break
				}
				if err != nil {
					pw.Abort()
					return err
				}
				if err := pw.WriteColumns(cols, n); err != nil {
					return err
				}
			}
			return pw.Close()
		})
	case "arrow":
		return c.withOutput(func(f io.Writer) error {
			// Stream the rows as an in-memory .npy into arrowconv.
			pr, pwr := io.Pipe()
			done := make(chan struct{})
			defer func() {
				pr.CloseWithError(errors.New("stopped")) // unblocks the goroutine
				<-done
			}()
			go func() {
				defer close(done)
				hh := *h
				hh.FortranOrder = false
				wr, err := npyio.NewWriter(pwr, &hh)
				if err == nil {
					err = pump(wr, r, c.setProgress)
				}
				pwr.CloseWithError(err)
			}()
			nr, err := npyio.NewReader(pr, nil)
			if err != nil {
				pr.CloseWithError(err)
				return err
			}
			name := c.name
			if r.IsArray() {
				name = r.Columns()[0].Name
			}
			err = c.npyToArrow(f, nr, name)
			pr.CloseWithError(errors.New("stopped"))
			return err
		})
	}
	return nil
}

func pumpColumn(wr *npyio.Writer, r *parquetio.Reader, i int) error {
	for {
		_, cols, err := r.NextColumns(1 << 16)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if _, err := wr.Write(cols[i]); err != nil {
			return err
		}
	}
	return wr.Close()
}

func (c *converter) fromArrow(outKind string) error {
	if storage.Scheme(c.in) == "" {
		if err := c.copyPipe(); err != nil {
			return err
		}
		if c.inFile != nil {
			defer c.inFile.Close()
		}
	}
	return c.fromArrowFile(outKind)
}

// copyPipe copies a local IN that is a pipe or device to a scratch file
// next to OUT (c.inFile): the Arrow conversion reads its input more than
// once (metadata, then rows, then columns).
func (c *converter) copyPipe() error {
	st, err := os.Stat(c.in)
	if err != nil || st.Mode().IsRegular() || st.IsDir() {
		return nil // storage.Open reports the problem
	}
	in, err := os.Open(c.in)
	if err != nil {
		return bare(err)
	}
	defer in.Close()
	{ // closed by fromArrow
		// A pipe or device: the conversion reads the input more than once
		// (metadata, then rows, then columns), so copy it next to OUT.
		tmp, err := c.scratch()
		if err != nil {
			return err
		}
		if _, err := io.Copy(outputFile{tmp}, inputFile{storage.OpenFile(in, 0)}); err != nil {
			tmp.Close()
			return err
		}
		c.inFile = tmp
	}
	return nil
}

func (c *converter) fromArrowFile(outKind string) error {
	fh, size, closeIn, err := c.openInput()
	if err != nil {
		return err
	}
	defer closeIn()
	// Schema and row count from the IPC metadata: the .npy header is known
	// before any row is read.
	info, err := arrowconv.ReadIPCInfo(fh, size)
	if err != nil {
		return err
	}
	// The columns read (--columns), then the one Arrow -> numpy mapping
	// with the conversion's options; a pass over the data finds string
	// widths when nothing gives them.
	schema, proj, err := c.fo.project(info.Schema)
	if err != nil {
		return err
	}
	if err := c.fo.checkArrowNames(schema); err != nil {
		return err
	}
	// records opens the input's records, columns idx of it only (nil: the
	// columns read), as records of sch.
	records := func(sch *arrow.Schema, idx []int) func() (array.RecordReader, error) {
		if idx == nil {
			idx = proj
		}
		return func() (array.RecordReader, error) {
			if _, err := fh.Seek(0, io.SeekStart); err != nil {
				return nil, err
			}
			rr, err := arrowconv.NewIPCReader(fh, memory.DefaultAllocator)
			if err != nil {
				return nil, err
			}
			return projectRecords(rr, sch, idx), nil
		}
	}
	mapping := func(sch *arrow.Schema, idx []int) (*arrowconv.Mapping, *npyio.Header, error) {
		m, err := c.fo.arrowMapping(sch, records(sch, idx))
		if err != nil {
			return nil, nil, err
		}
		h, err := m.Header(info.Rows)
		return m, h, err
	}
	m, h, err := mapping(schema, nil)
	if err != nil {
		return err
	}
	switch outKind {
	case "npy":
		c.startBar(info.Rows, h.DataSize())
		return c.withOutput(func(f io.Writer) error {
			if ok, err := c.copyArrowAsStored(fh, f, schema); ok || err != nil {
				return err
			}
			wr, err := npyio.NewWriter(f, h)
			if err != nil {
				return err
			}
			return c.pumpArrow(records(schema, nil), m, true, wr)
		})
	case "npz":
		// The exact array for a plain one, else one member per column.
		c.startBar(info.Rows, h.DataSize())
		return c.withOutput(func(f io.Writer) error {
			z := npyio.NewNPZWriter(f, c.npzDeflate)
			if schema.NumFields() == 1 && h.DType.Kind != npyio.Struct {
				wr, err := z.Create(schema.Field(0).Name, h)
				if err == nil {
					err = c.pumpArrow(records(schema, nil), m, true, wr)
				}
				if err != nil {
					return err
				}
				return z.Close()
			}
			for k, fld := range schema.Fields() {
				idx := []int{k}
				if proj != nil {
					idx = []int{proj[k]}
				}
				one := arrow.NewSchema([]arrow.Field{fld}, nil)
				cm, ch, err := mapping(one, idx)
				if err != nil {
					return err
				}
				wr, err := z.Create(fld.Name, ch)
				if err == nil {
					err = c.pumpArrow(records(one, idx), cm, false, wr)
				}
				if err != nil {
					return err
				}
			}
			return z.Close()
		})
	case "parquet", "arrow":
		// Through a scratch .npy: Arrow -> numpy is arrowconv's job.
		tmp, err := c.scratch()
		if err != nil {
			return err
		}
		defer tmp.Close()
		rr, err := records(schema, nil)()
		if err != nil {
			return err
		}
		_, err = arrowconv.WriteMappedNPY(outputFile{tmp}, rr, m)
		rr.Release()
		if err != nil {
			return err
		}
		inner := *c
		inner.inFile = tmp
		src, err := inner.numpySource("npy", outKind)
		if err != nil {
			return err
		}
		defer src.close()
		return inner.fromNumpy(src, outKind)
	}
	return nil
}

// arrowCopies counts the Arrow -> .npy conversions copyArrowAsStored
// made (a test hook).
var arrowCopies atomic.Int64

// copyArrowAsStored writes OUT (w, from withOutput) from the IPC file in
// as cp would, when both are local files, the conversion is the plain one
// (no --columns, --fill, --validity, --decimal=scaled) and in is one
// column stored as the .npy data (arrowconv.CopyIPCAsStored decides);
// ok false with nothing written otherwise. OUT's temporary file, rename
// and --sync are withOutput's, as on the general path.
func (c *converter) copyArrowAsStored(in inputFile, w io.Writer, schema *arrow.Schema) (ok bool, err error) {
	fo := c.fo
	if fo != nil && (fo.columns != nil || len(fo.fill) > 0 || len(fo.validity) > 0 || fo.scaled) {
		return false, nil
	}
	inf, ok := storage.OSFile(in.f)
	if !ok {
		return false, nil
	}
	o, ok := w.(outputFile)
	if !ok {
		return false, nil
	}
	outf, ok := storage.OSFile(o.f)
	if !ok {
		return false, nil
	}
	rows, _, ok, err := arrowconv.CopyIPCAsStored(outf, inf, fo.arrow(schema), memory.DefaultAllocator)
	if !ok || err != nil {
		return ok, err
	}
	arrowCopies.Add(1)
	c.setProgress(rows)
	return true, nil
}

// pumpArrow streams the records open gives through enc into wr in chunks
// of at most 64Ki rows (reporting progress if progress), and closes wr.
func (c *converter) pumpArrow(open func() (array.RecordReader, error), enc *arrowconv.Mapping, progress bool, wr *npyio.Writer) error {
	rr, err := open()
	if err != nil {
		return err
	}
	defer rr.Release()
	var buf []byte
	var done int64
	for rr.Next() {
		rec := rr.RecordBatch()
		n := int(rec.NumRows())
		for start := 0; start < n && err == nil; start += 1 << 16 {
			buf, err = enc.EncodeRows(rec, start, min(n, start+1<<16), buf[:0])
			if err == nil {
				_, err = wr.Write(buf)
			}
		}
		if err != nil {
			return err
		}
		done += int64(n)
		if progress {
			c.setProgress(done)
		}
	}
	if err := rr.Err(); err != nil {
		return err
	}
	return wr.Close()
}

// ConvertOptions are the options of [Convert]. Each field is the option
// of a format's source or sink named by its `flag` tag (see
// [ConvertFlags]); options of other formats than IN's and OUT's are
// ignored. The zero value converts with the defaults.
type ConvertOptions struct {
	// Compression of OUT: zstd, snappy, gzip, lz4 or none for Parquet;
	// zstd, lz4 or none for Arrow; deflate or none for .npz. "" is the
	// format's default: zstd for Parquet, none for .arrow and lz4 for
	// .feather (as pyarrow.ipc, Polars and pyarrow.feather write them),
	// none for .npz.
	Compression   string   `flag:"compression"`
	RowGroupRows  int      `flag:"row-group-rows"` // Parquet rows per row group (0: 1Mi rows, at most 128 MiB)
	PageSize      int      `flag:"page-size"`      // Parquet data page size in bytes (0: 1 MiB)
	TimestampUnit string   `flag:"timestamp-unit"` // Parquet datetime unit: ms, us or ns ("": numpy's)
	Dictionary    []string `flag:"dictionary"`     // Parquet columns to dictionary-encode
	BloomFilters  []string `flag:"bloom-filter"`   // Parquet columns to write bloom filters for
	Concurrency   int      `flag:"concurrency"`    // Parquet row groups encoded at once besides the one filling
	// Fill gives the values written where Parquet or Arrow columns are
	// null, as "column=value" items; Validity the columns that get a bool
	// field <column>_valid ("*": every nullable one); Decimal reads
	// decimals as f8 ("" or "f8") or exact scaled int64 ("scaled"). See
	// foreignReadFields (formats.go).
	Fill     []string `flag:"fill"`
	Validity []string `flag:"validity"`
	Decimal  string   `flag:"decimal"`
	// Columns are the Parquet or Arrow columns to read, in this order
	// (nil: every column): the others are not mapped, so a column numpy
	// has no type for does not stop the conversion.
	Columns []string `flag:"columns"`
	// Member picks one member of an .npz input.
	Member string `flag:"member"`
	// Dataset picks one dataset of an HDF5 input ("/group/data").
	Dataset string `flag:"dataset"`
	// Variable picks one variable (or array path, "s.a") of a MAT-file input.
	Variable string `flag:"variable"`
	// Strict makes a MAT-file value numpy cannot hold (a function handle,
	// an object) an error instead of a warning.
	Strict bool `flag:"strict"`
	// FortranOrder writes the arrays of a MAT-file input of two or more
	// dimensions to .npy or .npz as stored, in MATLAB's column-major order,
	// as Fortran-order .npy (np.load gives the same values). Nothing is
	// reordered, so every variable streams, a compressed (v7) one too.
	FortranOrder bool `flag:"fortran-order"`
	// MatVersion is the version of a .mat output: 7.3 (the default), 7 or 6.
	MatVersion string `flag:"mat-version"`
	// RenameInvalid renames array names that are not valid MATLAB
	// identifiers in a .mat output (each rename is a warning) instead of
	// refusing them.
	RenameInvalid bool `flag:"rename-invalid"`
	// Warn, if set, receives the conversion's warnings instead of WarnFunc.
	Warn func(msg string) `flag:"-"`
	// Name is the column name of a plain (non-structured) array
	// ("": IN's base name without its extension).
	Name string `flag:"name"`
	// Sync flushes OUT to disk before it is renamed into place.
	Sync bool `flag:"sync"`
	// Progress, if set, is told about the rows written.
	Progress ConvertProgress `flag:"-"`
	// Stdin is read for the input name [StdinName] ("-"); nil: os.Stdin.
	Stdin io.Reader `flag:"-"`
}

// ConvertProgress receives the progress of a conversion: Start once with
// the total rows and bytes (if known), Update with the rows done so far
// (from the writing goroutine), Stop at the end (ok if OUT is complete).
type ConvertProgress interface {
	Start(rows, bytes int64)
	Update(rows int64)
	Stop(ok bool)
}

// Result is what [Convert] did.
type Result struct {
	In, Out     string
	From, To    *Format
	Rows        int64 // rows of IN written (every member's for an .npz archive copy)
	OutputBytes int64 // size of OUT
}

// ErrOptions is wrapped by errors of [Convert] about its arguments (an
// unknown format, an option that does not apply) rather than the data.
var ErrOptions = errors.New("invalid conversion")

type optionError struct{ msg string }

func (e *optionError) Error() string        { return e.msg }
func (e *optionError) Is(target error) bool { return target == ErrOptions }

func optionErrorf(format string, args ...any) error {
	return &optionError{fmt.Sprintf(format, args...)}
}

// FileError is a failed conversion: the file the problem is in (OUT for
// an [OutputError], else IN), and the problem.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return storage.Redact(e.Path) + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// Convert converts the file in to the file out, each in the format of
// its extension (see [Formats]): .npy, .npz, .parquet and .arrow/.feather
// (IPC files) or .arrows (IPC streams) in any pair; in [StdinName] ("-")
// reads standard input, its format known by its first bytes. An .npz whose members have the same length along axis 0
// is one table (one column per member, in archive order; Member picks
// one); .npz to .npz copies every member whatever its shape. Parquet or
// Arrow back to .npy gives a structured array (one field per column), or
// the exact array for files npyflow wrote; to .npz, one member per
// column. The output is written to a temporary file beside out and
// renamed into place only on success; if ctx is cancelled, nothing is
// left. Errors about the data are a [*FileError] naming the file; errors
// about the arguments wrap [ErrOptions].
func Convert(ctx context.Context, in, out string, opts *ConvertOptions) (*Result, error) {
	if in == StdinName {
		tmp, cleanup, err := spoolStdin(ctx, opts)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		in = tmp
	}
	o := ConvertOptions{}
	if opts != nil {
		o = *opts
	}
	from, to := FormatOf(in), FormatOf(out)
	if from == nil {
		return nil, optionErrorf("%s: unknown input format (want %s)", in, formatList())
	}
	if to == nil {
		return nil, optionErrorf("%s: unknown output format (want %s)", out, formatList())
	}
	if o.Member != "" && from.Name != "npz" {
		return nil, optionErrorf("--member applies to .npz inputs only")
	}
	if o.Dataset != "" && from.Name != "hdf5" {
		return nil, optionErrorf("--dataset applies to HDF5 inputs only")
	}
	if o.Variable != "" && from.Name != "mat" {
		return nil, optionErrorf("--variable applies to .mat inputs only")
	}
	if o.FortranOrder && (from.Name != "mat" || to.Name != "npy" && to.Name != "npz") {
		return nil, optionErrorf("--fortran-order applies to .mat inputs converted to .npy or .npz only")
	}

	c := &converter{ctx: ctx, opts: &o, in: in, out: out}
	fo, err := foreignForInput(&o, from.Name)
	if err != nil {
		return nil, err
	}
	c.fo = fo
	switch to.Name {
	case "npz":
		switch strings.ToLower(o.Compression) {
		case "deflate", "zip":
			c.npzDeflate = true
		case "", "none", "stored", "uncompressed":
		default:
			return nil, optionErrorf("--compression %q is not available for .npz (deflate or none)", o.Compression)
		}
	case "parquet":
		if o.Compression == "" {
			o.Compression = "zstd"
		}
	case "arrow":
		if o.Compression == "" {
			o.Compression = "none"
			if arrowconv.DefaultIPCOptions(out).Compression == arrowconv.LZ4 {
				o.Compression = "lz4"
			}
		}
	case "mat", "hdf5":
		c.seekable = true // their writers patch sizes anywhere
		if err := checkContainerOutput(to.Name, &o); err != nil {
			return nil, err
		}
	}
	if absPath(in) == absPath(out) {
		return nil, optionErrorf("%s: input and output are the same file", in)
	}
	c.name = o.Name
	if c.name == "" {
		base := filepath.Base(storage.Path(in))
		c.name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	c.popts = &parquetio.Options{
		Compression:   o.Compression,
		RowGroupRows:  o.RowGroupRows,
		PageSize:      o.PageSize,
		TimestampUnit: o.TimestampUnit,
		Dictionary:    o.Dictionary,
		BloomFilters:  o.BloomFilters,
		Concurrency:   o.Concurrency,
	}
	var rows int64
	user := o.Progress
	o.Progress = &countRows{next: user, rows: &rows}
	c.bar = &convBar{p: o.Progress}
	if err := c.run(from.Name, to.Name); err != nil {
		return nil, fileError(in, out, err)
	}
	res := &Result{In: in, Out: out, From: from, To: to, Rows: rows}
	if st, err := storage.Stat(ctx, out); err == nil {
		res.OutputBytes = st.Size
	}
	return res, nil
}

// fileError names the file a conversion failed on.
func fileError(in, out string, err error) error {
	file := in
	var oe *OutputError
	if errors.As(err, &oe) {
		file = out
	}
	return &FileError{Path: file, Err: err}
}

// countRows keeps the last row count for the Result and passes the
// progress on.
type countRows struct {
	next ConvertProgress
	rows *int64
}

func (c *countRows) Start(rows, bytes int64) {
	if c.next != nil {
		c.next.Start(rows, bytes)
	}
}

func (c *countRows) Update(rows int64) {
	*c.rows = rows
	if c.next != nil {
		c.next.Update(rows)
	}
}

func (c *countRows) Stop(ok bool) {
	if c.next != nil {
		c.next.Stop(ok)
	}
}

// WriteFile writes path atomically with write, as [Convert] writes its
// output: to a temporary file beside path, renamed into place (after an
// fsync if sync) only if write succeeds. On failure, cancellation of ctx
// or a panic in write (returned as an [InternalError]) nothing is left at
// path or beside it and an earlier file at path is untouched. Errors
// creating or writing the file are [OutputError]s.
func WriteFile(ctx context.Context, path string, sync bool, write func(w io.Writer) error) error {
	c := &converter{ctx: ctx, opts: &ConvertOptions{Sync: sync}, out: path}
	return c.withOutput(write)
}

// projReader reads columns idx of the records of an IPC reader, as
// records of schema.
type projReader struct {
	array.RecordReader
	schema *arrow.Schema
	idx    []int
	rec    arrow.RecordBatch
}

// projectRecords returns rr's records with columns idx only, as records
// of schema (rr itself for idx nil).
func projectRecords(rr array.RecordReader, schema *arrow.Schema, idx []int) array.RecordReader {
	if idx == nil {
		return rr
	}
	return &projReader{RecordReader: rr, schema: schema, idx: idx}
}

func (r *projReader) Schema() *arrow.Schema { return r.schema }

func (r *projReader) Next() bool {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	if !r.RecordReader.Next() {
		return false
	}
	in := r.RecordReader.RecordBatch()
	cols := make([]arrow.Array, len(r.idx))
	for k, i := range r.idx {
		cols[k] = in.Column(i)
	}
	r.rec = array.NewRecordBatch(r.schema, cols, in.NumRows())
	return true
}

func (r *projReader) RecordBatch() arrow.RecordBatch { return r.rec }

func (r *projReader) Record() arrow.RecordBatch { return r.rec }

func (r *projReader) Release() {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	r.RecordReader.Release()
}
