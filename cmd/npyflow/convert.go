package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/internal/atomicfile"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

func init() {
	register("convert", "convert between .npy, .npz, .parquet and .arrow/.feather (by extension)", runConvert)
}

const convertUsage = `usage: npyflow convert [flags] IN OUT

IN and OUT are .npy, .npz, .parquet, .arrow or .feather files; the formats
follow the extensions. An .npz whose members have the same length along
axis 0 becomes one table (one column per member, in archive order); pick one
member with --member. An .npz to .npz copies every member (dtype, shape and
values, whatever the shapes; --compression deflate gives the format of
np.savez_compressed).
Parquet or Arrow back to .npy gives a structured array (one field per
column), or the exact source array for files npyflow wrote; to .npz, one
member per column.

flags:`

type convertFlags struct {
	compression, tsUnit, member, name string
	dict, bloom                       string
	rowGroup, pageSize, conc          int
	progress                          string
	npzDeflate                        bool // .npz output: Deflate members
	sync                              bool
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments. -h prints the usage (fs.Usage) and returns
// flag.ErrHelp; a bad flag returns one line saying so, with no usage dump.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	out := fs.Output()
	fs.SetOutput(io.Discard) // the flag package's own messages
	defer fs.SetOutput(out)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(out)
				fs.Usage()
				return nil, err
			}
			return nil, fmt.Errorf("%v (see npyflow %s -h)", err, fs.Name())
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func runConvert(e *env) error {
	var f convertFlags
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), convertUsage)
		fs.PrintDefaults()
	}
	fs.StringVar(&f.compression, "compression", "zstd", "compression: zstd, snappy, gzip, lz4, none for Parquet; zstd, lz4, none for Arrow; deflate or none for .npz (default there: none, like np.savez)")
	fs.IntVar(&f.rowGroup, "row-group-rows", 0, "rows per Parquet row group (0: 1Mi rows, at most 128 MiB)")
	fs.IntVar(&f.pageSize, "page-size", 0, "Parquet data page size in bytes (0: 1 MiB)")
	fs.StringVar(&f.tsUnit, "timestamp-unit", "", "store datetimes in this unit: ms, us (for Spark) or ns")
	fs.StringVar(&f.dict, "dictionary", "", "comma-separated columns to dictionary-encode")
	fs.StringVar(&f.bloom, "bloom-filter", "", "comma-separated columns to write bloom filters for")
	fs.StringVar(&f.member, "member", "", "use only this member of an .npz input")
	fs.StringVar(&f.name, "name", "", "column name of a plain (non-structured) array (default: the input's base name)")
	fs.IntVar(&f.conc, "concurrency", 0, "row groups encoded at once besides the one filling (0: 1; memory is this plus one row group)")
	fs.StringVar(&f.progress, "progress", "auto", "progress bar: auto (on a terminal), always, never")
	fs.BoolVar(&f.sync, "sync", false, "flush OUT to disk before renaming it into place, so it survives a power cut (waits for the disk); without it OUT is still all-or-nothing if npyflow dies")
	args, err := parseInterleaved(fs, e.args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	if len(args) != 2 {
		fs.Usage()
		return usagef("convert needs IN and OUT, got %d arguments", len(args))
	}
	in, out := args[0], args[1]
	inKind, outKind := formatOf(in), formatOf(out)
	if inKind == "" {
		return usagef("%s: unknown input format (want .npy, .npz, .parquet, .arrow or .feather)", in)
	}
	if outKind == "" {
		return usagef("%s: unknown output format (want .npy, .npz, .parquet, .arrow or .feather)", out)
	}
	if f.member != "" && inKind != "npz" {
		return usagef("--member applies to .npz inputs only")
	}
	switch f.progress {
	case "auto", "always", "never":
	default:
		return usagef("--progress %q: want auto, always or never", f.progress)
	}
	if outKind == "npz" {
		set := false
		fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == "compression" })
		switch strings.ToLower(f.compression) {
		case "deflate", "zip":
			f.npzDeflate = true
		case "none", "stored", "uncompressed":
		default:
			if set {
				return usagef("--compression %q is not available for .npz (deflate or none)", f.compression)
			}
		}
	}
	if abs(in) == abs(out) {
		return usagef("%s: input and output are the same file", in)
	}
	c := &converter{ctx: e.ctx, f: f, in: in, out: out, stderr: e.stderr}
	if f.name == "" {
		c.f.name = strings.TrimSuffix(filepath.Base(in), filepath.Ext(in))
	}
	c.popts = &parquetio.Options{
		Compression:   f.compression,
		RowGroupRows:  f.rowGroup,
		PageSize:      f.pageSize,
		TimestampUnit: f.tsUnit,
		Dictionary:    splitList(f.dict),
		BloomFilters:  splitList(f.bloom),
		Concurrency:   f.conc,
	}
	if err := c.run(inKind, outKind); err != nil {
		return convertError(in, out, err)
	}
	return nil
}

// convertError is the one-line message of a failed conversion: the file
// the problem is in (OUT for an *outputError, else IN), once, then the
// problem. Library errors say which file only where they were given a
// name, and convert gives them none: inputs are read through inputFile and
// outputs written through outputFile, which drop the *os.PathError's name.
func convertError(in, out string, err error) error {
	file := in
	var oe *outputError
	if errors.As(err, &oe) {
		file = out
	}
	return fmt.Errorf("%s: %w", file, trimPrefix(err))
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

// outputError is a problem with the output file (or a scratch file next
// to it): creating, writing or renaming it.
type outputError struct{ err error }

func (e *outputError) Error() string { return e.err.Error() }
func (e *outputError) Unwrap() error { return e.err }

// internalError is a panic in convert's writer goroutine: a bug, reported
// as main reports a panic in a command.
type internalError struct{ p any }

func (e internalError) Error() string {
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
type inputFile struct{ f *os.File }

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
		err = &outputError{bare(err)}
	}
	return n, err
}

func (o outputFile) Seek(off int64, whence int) (int64, error) {
	n, err := o.f.Seek(off, whence)
	if err != nil {
		err = &outputError{bare(err)}
	}
	return n, err
}

// openInput opens IN (or takes c.inFile) and returns it with its size and
// a function closing it.
func (c *converter) openInput() (inputFile, int64, func(), error) {
	fh := c.inFile
	if fh == nil {
		var err error
		if fh, err = os.Open(c.in); err != nil {
			return inputFile{}, 0, nil, bare(err)
		}
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return inputFile{}, 0, nil, bare(err)
	}
	if st.IsDir() {
		fh.Close()
		return inputFile{}, 0, nil, errors.New("is a directory")
	}
	return inputFile{fh}, st.Size(), func() { fh.Close() }, nil
}

// scratch creates a temporary file next to OUT for intermediate data. It
// has no name: it is removed as soon as it is created (Unix), so nothing is
// left behind whatever happens to the process.
func (c *converter) scratch() (*os.File, error) {
	f, err := os.CreateTemp(filepath.Dir(c.out), "."+filepath.Base(c.out)+".npyflow-scratch-*")
	if err != nil {
		return nil, &outputError{bare(err)}
	}
	os.Remove(f.Name())
	return f, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func formatOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		return "npy"
	case ".npz":
		return "npz"
	case ".parquet", ".pq":
		return "parquet"
	case ".arrow", ".feather", ".ipc":
		return "arrow"
	}
	return ""
}

type converter struct {
	ctx      context.Context
	f        convertFlags
	popts    *parquetio.Options
	in, out  string
	inFile   *os.File // IN already open, or a scratch copy standing for it
	stderr   io.Writer
	bar      *mpb.Bar
	progress *mpb.Progress
}

// source is an input seen as numpy: either one array or a table of
// columns, each opened as an npyio.Reader (possibly several times).
type source struct {
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
	case "parquet":
		return c.fromParquet(outKind)
	case "arrow":
		return c.fromArrow(outKind)
	}
	return nil
}

func (c *converter) numpySource(kind, outKind string) (*source, error) {
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
		return &source{array: true, name: c.f.name, open: open, rows: rs[0].Rows(), bytes: h.DataSize(), header: h, close: closeIn}, nil
	}
	// npyio.OpenNPZ would name the file in its errors, and convert names it.
	z, err := npyio.NewNPZReader(fh, size, nil)
	if err != nil {
		closeIn()
		return nil, err
	}
	closeZ := closeIn
	var members []*npyio.Member
	if c.f.member != "" {
		m := z.Member(c.f.member)
		if m == nil {
			closeZ()
			return nil, fmt.Errorf("no member %q (members: %s)", c.f.member, strings.Join(z.Keys(), ", "))
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
	if len(members) == 1 {
		h := rs[0].Header()
		return &source{array: true, name: members[0].Key, open: open, rows: rs[0].Rows(), bytes: h.DataSize(), header: h, close: closeZ}, nil
	}
	src := &source{open: open, close: closeZ, rows: rs[0].Rows()}
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
	if outKind == "npz" {
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
	if st, err := os.Stat(c.out); err == nil && st.IsDir() {
		return &outputError{errors.New("is a directory")}
	}
	f, err := atomicfile.Create(c.out)
	if err != nil {
		return &outputError{bare(err)}
	}
	f.NoSync = !c.f.sync
	defer f.Abort() // after Commit, nothing
	errc := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				errc <- internalError{p}
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
		return &outputError{bare(err)}
	}
	return nil
}

func (c *converter) startBar(rows, bytes int64) {
	show := c.f.progress == "always"
	if c.f.progress == "auto" {
		if f, ok := c.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) && rows > 0 {
			show = true
		}
	}
	if !show || rows <= 0 {
		return
	}
	rowBytes := float64(bytes) / float64(rows)
	c.progress = mpb.New(mpb.WithOutput(c.stderr), mpb.WithWidth(40), mpb.WithRefreshRate(200*time.Millisecond))
	c.bar = c.progress.AddBar(rows,
		mpb.PrependDecorators(decor.Name(filepath.Base(c.in)+" "), decor.CountersNoUnit("%d/%d rows")),
		mpb.AppendDecorators(
			decor.Any(func(st decor.Statistics) string {
				return fmt.Sprintf("%.1f/%.1f MiB", float64(st.Current)*rowBytes/(1<<20), float64(st.Total)*rowBytes/(1<<20))
			}),
			decor.Name(" "), decor.AverageSpeed(0, "%.0f rows/s"),
			decor.Name(" ETA "), decor.AverageETA(decor.ET_STYLE_GO),
		),
	)
}

func (c *converter) setProgress(rows int64) {
	if c.bar != nil {
		c.bar.SetCurrent(rows)
	}
}

func (c *converter) stopBar(ok bool) {
	if c.bar == nil {
		return
	}
	if !ok {
		c.bar.Abort(false)
	} else {
		c.bar.SetTotal(-1, true)
	}
	c.progress.Wait()
	c.bar = nil
}

func (c *converter) fromNumpy(src *source, outKind string) error {
	c.startBar(src.rows, src.bytes)
	switch outKind {
	case "parquet":
		return c.withOutput(func(f io.Writer) error {
			var err error
			if src.array {
				_, err = parquetio.WriteArray(f, src.open, src.name, c.popts, c.setProgress)
			} else {
				_, err = parquetio.WriteTable(f, src.cols, src.open, c.popts, c.setProgress)
			}
			return err
		})
	case "npy":
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
		return c.withOutput(func(f io.Writer) error {
			rs, err := src.open()
			if err != nil {
				return err
			}
			z := npyio.NewNPZWriter(f, c.f.npzDeflate)
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
	}
	return nil
}

// tableToArrow writes the members rs of an .npz table as one Arrow table:
// their rows are interleaved into the records of a structured array (one
// field per member, as for Parquet) on a pipe, which is read as an .npy
// stream.
func (c *converter) tableToArrow(w io.Writer, cols []parquetio.Column, rs []*npyio.Reader) error {
	pr, pw := io.Pipe()
	go func() {
		defer func() {
			if p := recover(); p != nil {
				pw.CloseWithError(internalError{p})
			}
		}()
		pw.CloseWithError(copyTableNPY(pw, cols, rs, c.setProgress))
	}()
	defer pr.CloseWithError(errors.New("the Arrow writer stopped")) // unblocks the goroutine
	r, err := npyio.NewReader(pr, nil)
	if err != nil {
		return err
	}
	return c.npyToArrow(w, r, "")
}

func (c *converter) ipcOptions() (arrowconv.IPCOptions, error) {
	o := arrowconv.IPCOptions{Format: arrowconv.IPCFile}
	switch strings.ToLower(c.f.compression) {
	case "zstd":
		o.Compression = arrowconv.Zstd
	case "lz4":
		o.Compression = arrowconv.LZ4
	case "none", "uncompressed":
	default:
		return o, fmt.Errorf("compression %q is not available for Arrow IPC (zstd, lz4 or none)", c.f.compression)
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
	for {
		b, err := r.Next(1 << 16)
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
		rows := make([]byte, n*dt.Size)
		for i, p := range parts {
			off, sz := dt.Fields[i].Offset, dt.Fields[i].Size()
			for k := 0; k < n; k++ {
				copy(rows[k*dt.Size+off:k*dt.Size+off+sz], p[k*sz:(k+1)*sz])
			}
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

func (c *converter) openParquet() (*parquetio.Reader, func(), error) {
	fh, size, closeIn, err := c.openInput()
	if err != nil {
		return nil, nil, err
	}
	r, err := parquetio.NewReader(fh, size)
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
			z := npyio.NewNPZWriter(f, c.f.npzDeflate)
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
			go func() {
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
			name := c.f.name
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
	in, err := os.Open(c.in)
	if err != nil {
		return bare(err)
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return bare(err)
	}
	c.inFile = in
	if !st.Mode().IsRegular() && !st.IsDir() {
		// A pipe or device: the conversion reads the input more than once
		// (metadata, then rows, then columns), so copy it next to OUT.
		tmp, err := c.scratch()
		if err != nil {
			return err
		}
		defer tmp.Close()
		if _, err := io.Copy(outputFile{tmp}, inputFile{in}); err != nil {
			return err
		}
		c.inFile = tmp
	}
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
	enc, err := arrowconv.NewRowEncoder(info.Schema, nil)
	if err != nil {
		return err
	}
	switch outKind {
	case "npy":
		c.startBar(info.Rows, info.Rows*int64(enc.RowSize()))
		return c.withOutput(func(f io.Writer) error {
			wr, err := npyio.NewWriter(f, enc.Header(info.Rows))
			if err != nil {
				return err
			}
			return c.pumpArrow(fh, enc, -1, wr)
		})
	case "npz":
		// The exact array for a plain one, else one member per column.
		c.startBar(info.Rows, info.Rows*int64(enc.RowSize()))
		return c.withOutput(func(f io.Writer) error {
			z := npyio.NewNPZWriter(f, c.f.npzDeflate)
			if info.Schema.NumFields() == 1 && enc.DType().Kind != npyio.Struct {
				wr, err := z.Create(info.Schema.Field(0).Name, enc.Header(info.Rows))
				if err == nil {
					err = c.pumpArrow(fh, enc, -1, wr)
				}
				if err != nil {
					return err
				}
				return z.Close()
			}
			for k, fld := range info.Schema.Fields() {
				ce, err := arrowconv.NewRowEncoder(arrow.NewSchema([]arrow.Field{fld}, nil), nil)
				if err != nil {
					return err
				}
				wr, err := z.Create(fld.Name, ce.Header(info.Rows))
				if err == nil {
					err = c.pumpArrow(fh, ce, k, wr)
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
		if _, err := fh.Seek(0, io.SeekStart); err != nil {
			return err
		}
		rr, err := arrowconv.NewIPCReader(fh, memory.DefaultAllocator)
		if err != nil {
			return err
		}
		_, err = arrowconv.WriteNPY(outputFile{tmp}, rr, nil)
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

// pumpArrow streams the IPC input through enc into wr (column col only,
// if col >= 0) in chunks of at most 64Ki rows, and closes wr.
func (c *converter) pumpArrow(fh inputFile, enc *arrowconv.RowEncoder, col int, wr *npyio.Writer) error {
	if _, err := fh.Seek(0, io.SeekStart); err != nil {
		return err
	}
	rr, err := arrowconv.NewIPCReader(fh, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	defer rr.Release()
	var buf []byte
	var done int64
	for rr.Next() {
		rec := rr.RecordBatch()
		if col >= 0 {
			rec = array.NewRecordBatch(enc.Schema(), []arrow.Array{rec.Column(col)}, rec.NumRows())
		}
		n := int(rec.NumRows())
		for start := 0; start < n && err == nil; start += 1 << 16 {
			buf, err = enc.EncodeRows(rec, start, min(n, start+1<<16), buf[:0])
			if err == nil {
				_, err = wr.Write(buf)
			}
		}
		if col >= 0 {
			rec.Release()
		}
		if err != nil {
			return err
		}
		done += int64(n)
		if col < 0 {
			c.setProgress(done)
		}
	}
	if err := rr.Err(); err != nil {
		return err
	}
	return wr.Close()
}
