package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/format"
	"github.com/npyflow/npyflow/pipeline/inspect"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The HDF5 format, on the pure-Go hdf5 package: every dataset is an
// array named by its path (container.go reads them); the sink writes one
// dataset per part or for all, creating the groups of its path. netCDF-4
// files (.nc, .nc4) are HDF5 files and read the same way, their
// dimension-only datasets left out; with the dimension option the
// one-dimensional variables along one netCDF dimension read as one
// table (hdf5.DimTable). A variable along an unlimited dimension reads
// as long as the dimension, padded with its fill value, and netCDF-C's
// _nc4_non_coord_ variables by their netCDF names, as netCDF readers
// give them. netCDF-3 files start with their own magic, so that they are
// recognized and refused by name. A .nc or .nc4 output (or format:
// netcdf4) is written as netCDF-4 (hdf5_netcdf.go).

var hdf5Format = &Format{
	Name: "hdf5", Exts: []string{".h5", ".hdf5", ".he5", ".nc", ".nc4"}, Summary: "HDF5 file (h5py, netCDF-4; pure-Go reader and writer)",
	Magic: hdf5Magic(),
	Caps:  format.Caps{Archive: true, Seeks: format.SeeksAlways}, // the writer patches sizes anywhere
	Source: fileSourceSpec("read datasets of HDF5 and netCDF-4 files",
		"Reads datasets of HDF5 files (h5py, MATLAB v7.3, hdf5storage, PyTables, netCDF-4) through the pure-Go hdf5 package, in row batches. Each dataset is one input part, its member the path without the leading slash (group/data). Types map as h5py maps them: compound to structured, enum to its base integer, ASCII fixed strings to S, UTF-8 strings (fixed or variable-length) to U of the longest value (ASCII variable-length ones to S), h5py's opaque types tagged with a numpy dtype (NUMPY:<M8[ms]>, how h5py stores datetime64 and timedelta64) to that dtype; references, other opaque types, HDF5 time and variable-length sequences are refused, and so are datasets whose chunks need a filter without a decoder (lossy sz, an unknown id; zfp is decoded): when every dataset is read, such datasets are skipped with a warning naming the dataset and the type or filter (an error with strict). Values are kept as stored: a netCDF variable's _FillValue, scale_factor and add_offset are not applied (inspect shows them). netCDF's dimension-only datasets (a dimension without a coordinate variable) hold no values and are left out. netCDF-3 files are refused as such (they are not HDF5).",
		newHDF5Reader, hdf5SourceOpts{}),
	Sink: &job.Spec{Kind: job.Sink, Summary: "write an HDF5 file",
		Doc:     "Writes an HDF5 file h5py and h5dump read: one dataset per input part or one for all (dataset, a path: group/data creates the groups), chunked, shuffled and compressed with deflate (every HDF5 reader has it), lz4 or zstd (h5py reads them with `import hdf5plugin`), or stored uncompressed (compression: none). Datasets of at most 4 KiB are stored compact, uncompressed. Types as h5py writes them: numbers in this machine's byte order (big-endian input is converted, and its type says so), bool as h5py's enum, complex as the compound {r, i}, S as fixed-length ASCII, U as UTF-8 strings (strings), datetime64 and timedelta64 as h5py's opaque type tagged NUMPY:<dtype> (times), records as compounds (their datatype message must fit in 64 KiB); void and object arrays are refused. A .nc or .nc4 file (or format: netcdf4) is netCDF-4 as netCDF-C writes it (ncdump, netCDF4-python and xarray read it): a table is one dimension with one variable per field (nested fields joined with _), another array one variable over one dimension per axis (named by dims, else dim_0, dim_1...), datetime64 CF time (units \"<unit> since 1970-01-01\", calendar proleptic_gregorian), bool int8 with xarray's dtype: bool; one group, no strings yet (refused naming the variable).",
		Options: hdf5SinkOpts{},
		Impl:    builder(buildHDF5Sink)},
	Inspect: func(_ context.Context, f storage.File, name string, _ *job.Component) (inspect.Info, error) {
		return inspect.HDF5(f, f.Size(), name)
	},
}

// hdf5Magic is how HDF5 files start (the signature, at 0 or after a user
// block), and netCDF-3 files: those are no HDF5, but their magic sends
// them to this format, whose reader refuses them by name.
func hdf5Magic() []Magic {
	m := []Magic{{Prefix: "\x89HDF\r\n\x1a\n", UserBlock: true}}
	for _, p := range hdf5.NetCDF3Magics {
		m = append(m, Magic{Prefix: string(p), Ext: ".nc"})
	}
	return m
}

func hdf5CompressionNames() []string {
	var out []string
	for _, c := range hdf5.Compressions {
		out = append(out, string(c))
	}
	return out
}

// hdf5CompressionFlag reads --compression for an HDF5 output, with the
// spellings of the other formats' flags (zlib, gzip, uncompressed).
func hdf5CompressionFlag(text string) (any, error) {
	switch t := strings.ToLower(text); t {
	case "":
		return string(hdf5.CompressionDeflate), nil
	case "zlib", "gzip":
		return string(hdf5.CompressionDeflate), nil
	case "uncompressed":
		return string(hdf5.CompressionNone), nil
	default:
		c, err := hdf5.ParseCompression(t)
		if err != nil {
			names := hdf5CompressionNames()
			return nil, fmt.Errorf("want %s or %s", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
		}
		return string(c), nil
	}
}

func newHDF5Reader(c *job.Component) (fileReader, error) {
	o := job.Options[hdf5SourceOpts](c)
	strict, dim := o.Strict, o.Dimension
	if dim != "" && len(o.Datasets) > 0 {
		return nil, c.Errorf("dimension", "dimension and datasets exclude each other: a dimension's table holds the variables along it")
	}
	list := func(name string, r io.ReaderAt, size int64, pick []string, warn func(string), threads int) ([]containerMember, error) {
		ms, err := hdf5Members(name, r, size, pick, strict, warn, threads)
		return ms, hdf5Error(name, err)
	}
	hint := "--dataset /PATH"
	if dim != "" {
		list = func(name string, r io.ReaderAt, size int64, _ []string, warn func(string), threads int) ([]containerMember, error) {
			ms, err := hdf5DimMembers(name, r, size, dim, strict, warn, threads)
			return ms, hdf5Error(name, err)
		}
		hint = "--dimension NAME"
	}
	return &containerReader{list: list, pick: o.Datasets, hint: hint}, nil
}

// hdf5Error is err of the hdf5 package about the file name without the
// package and file in front (the engine names the file); a netCDF-3
// file's says how to make it netCDF-4.
func hdf5Error(name string, err error) error {
	if err == nil {
		return nil
	}
	msg := strings.TrimPrefix(err.Error(), "hdf5: ")
	msg = strings.TrimPrefix(msg, name+": ")
	if errors.Is(err, hdf5.ErrNetCDF3) {
		msg += " (nccopy -k nc4 IN OUT makes a netCDF-4 copy)"
	}
	return &hdf5FileError{msg: msg, err: err}
}

// hdf5FileError is an hdf5 error reworded by hdf5Error.
type hdf5FileError struct {
	msg string
	err error
}

func (e *hdf5FileError) Error() string { return e.msg }
func (e *hdf5FileError) Unwrap() error { return e.err }

// hdf5DimMembers reads the table of the netCDF dimension dim (group/dim
// for a subgroup's) of an HDF5 file as its one member, named dim.
func hdf5DimMembers(name string, r io.ReaderAt, size int64, dim string, strict bool, warn func(string), threads int) ([]containerMember, error) {
	f, err := hdf5.Open(r, size, &hdf5.Options{Name: name, Threads: threads})
	if err != nil {
		return nil, err
	}
	group, d := "/", strings.Trim(dim, "/")
	if i := strings.LastIndex(d, "/"); i >= 0 {
		group, d = "/"+d[:i], d[i+1:]
	}
	t, err := f.DimensionTable(group, d)
	if errors.Is(err, hdf5.ErrNotFound) {
		return nil, fmt.Errorf("no table of a dimension %q: no one-dimensional variable of group %s is along it%s", dim, group, hdf5DimHint(f))
	}
	if err != nil {
		return nil, err
	}
	for _, e := range t.Skipped {
		msg := strings.TrimPrefix(e.Error(), "hdf5: "+name+": ")
		if strict {
			return nil, fmt.Errorf("%s (skipped with a warning without strict)", msg)
		}
		warn(fmt.Sprintf("%s: %s: skipped", name, msg))
	}
	if len(t.Columns) == 0 {
		return nil, fmt.Errorf("no variable along dimension %q can be read", dim)
	}
	dt, err := t.DType()
	if err != nil {
		return nil, err
	}
	h := &npyio.Header{DType: dt, Shape: []int{int(t.Rows())}}
	open := func() (io.ReadCloser, error) {
		tr, err := t.NewReader(max(1, containerBatchBytes/max(dt.Size, 1)))
		if err != nil {
			return nil, err
		}
		return &batchStream{read: tr.Read}, nil
	}
	member := strings.TrimPrefix(strings.TrimSuffix(group, "/")+"/"+d, "/")
	return []containerMember{{name: member, header: h, open: open}}, nil
}

// hdf5DimHint lists the dimensions that have a table, for a message.
func hdf5DimHint(f *hdf5.File) string {
	tabs, err := f.DimensionTables()
	if err != nil || len(tabs) == 0 {
		return " (the file has no dimension scales)"
	}
	var names []string
	for _, t := range tabs {
		n := strings.TrimPrefix(strings.TrimSuffix(t.Group, "/")+"/"+t.Dim.Name, "/")
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return " (dimensions: " + strings.Join(names, ", ") + ")"
}

// batchStream is a reader of byte batches (read returns io.EOF at the
// end) as one stream.
type batchStream struct {
	read func() ([]byte, error)
	buf  []byte
	eof  bool
}

func (s *batchStream) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.eof {
			return 0, io.EOF
		}
		b, err := s.read()
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

func (s *batchStream) Close() error { return nil }

func buildHDF5Sink(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	o := job.Options[hdf5SinkOpts](c)
	opts, err := hdf5SinkOptions(c)
	if err != nil {
		return nil, err
	}
	if hdf5WritesNetCDF(c) {
		dims := o.Dims
		s, err := newMemberSink(c, in, env, "dataset", o.Dataset, func(_ *memberSink, f *sinkFile) (arrayFile, error) {
			w, err := hdf5.NewNetCDFWriter(f, &hdf5.WriterOptions{Threads: env.libThreads("hdf5 writer")})
			if err != nil {
				return nil, err
			}
			return &ncFile{w: w, dims: dims, opts: opts}, nil
		})
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	if len(o.Dims) > 0 {
		return nil, c.Errorf("dims", "dims names netCDF dimensions: write a .nc or .nc4 file, or format: netcdf4")
	}
	strs, times := hdf5.Strings(o.Strings), o.Times
	s, err := newMemberSink(c, in, env, "dataset", o.Dataset, func(s *memberSink, f *sinkFile) (arrayFile, error) {
		w, err := hdf5.NewWriter(f, &hdf5.WriterOptions{Threads: env.libThreads("hdf5 writer")})
		if err != nil {
			return nil, err
		}
		scratch := func() (*os.File, error) { return s.env.out.scratchNear(s.curP) }
		return &hdf5File{w: w, groups: map[string]*hdf5.GroupWriter{}, opts: opts, strings: strs, int64Times: times == "int64", scratch: scratch}, nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// hdf5SinkOptions are the dataset options of an hdf5 sink's compressed
// datasets (nil: none are compressed), its options checked.
func hdf5SinkOptions(c *job.Component) (*hdf5.DatasetOptions, error) {
	o := job.Options[hdf5SinkOpts](c)
	comp := hdf5.CompressionDeflate // the option's default
	if o.Compression != nil {
		comp = hdf5.Compression(*o.Compression)
	}
	if !o.Compressed {
		if o.Compression != nil && comp != hdf5.CompressionNone {
			return nil, c.Errorf("compressed", "compressed: false is compression: none, but compression is %s", comp)
		}
		comp = hdf5.CompressionNone
	}
	level := int(o.CompressionLevel)
	var lo, hi int
	switch comp {
	case hdf5.CompressionDeflate:
		lo, hi = 1, 9
	case hdf5.CompressionZstd:
		lo, hi = 1, 22
	}
	if level != 0 && (level < lo || level > hi) {
		if hi == 0 {
			return nil, c.Errorf("compression_level", "compression %s has no level", comp)
		}
		return nil, c.Errorf("compression_level", "%s levels are %d to %d, not %d", comp, lo, hi, level)
	}
	if comp == hdf5.CompressionNone {
		return nil, nil
	}
	return &hdf5.DatasetOptions{Compression: comp, Level: level, Shuffle: true}, nil
}

// hdf5File is an HDF5 file being written, as an arrayFile: a dataset
// named group/data is created in its groups.
type hdf5File struct {
	w          *hdf5.Writer
	groups     map[string]*hdf5.GroupWriter // by path, created
	opts       *hdf5.DatasetOptions         // of compressed datasets; nil: none
	strings    hdf5.Strings                 // how U values are stored
	int64Times bool                         // times as int64 with units
	scratch    func() (*os.File, error)     // a scratch file for rows with U values
}

func (f *hdf5File) create(name string, h *npyio.Header) (arrayWriter, error) {
	path := strings.Split(strings.Trim(name, "/"), "/")
	g := f.w.Root()
	for i, p := range path[:len(path)-1] {
		key := strings.Join(path[:i+1], "/")
		if f.groups[key] == nil {
			ng, err := g.CreateGroup(p)
			if err != nil {
				return nil, err
			}
			f.groups[key] = ng
		}
		g = f.groups[key]
	}
	shape := make([]uint64, len(h.Shape))
	for k, d := range h.Shape {
		shape[k] = uint64(d)
	}
	var o hdf5.DatasetOptions
	if f.opts != nil && len(shape) > 0 && h.DataSize() > hdf5.CompactAuto {
		o = *f.opts
	}
	o.Strings = f.strings
	// Rows reach a sink in native byte order, whatever the input's: the
	// dataset's type says so (a big-endian input is stored little-endian
	// on this machine), never the input's order over native bytes.
	dt := h.DType.Native()
	var units []hdf5Units
	if f.int64Times {
		var err error
		if dt, units, err = hdf5TimesAsInt64(dt, ""); err != nil {
			return nil, err
		}
	}
	leaf := path[len(path)-1]
	if hdf5.HasUnicode(dt) && f.strings != hdf5.StringsVlen || hdf5.HasUnicode(dt) && dt.Kind == npyio.Struct {
		// Fixed-length UTF-8 strings are as wide as the longest value:
		// the rows are spooled and measured, the dataset made at Close.
		sz, err := hdf5.NewUnicodeSizer(dt)
		if err != nil {
			return nil, err
		}
		return &hdf5Spool{g: g, name: leaf, dt: dt, shape: shape, opts: o, units: units, sizer: sz, scratch: f.scratch, rowSize: int(max(h.RowSize(), 1))}, nil
	}
	d, err := g.CreateDataset(leaf, dt, shape, &o)
	if err != nil {
		return nil, err
	}
	if err := hdf5SetUnits(d, units); err != nil {
		return nil, err
	}
	return d, nil
}

// hdf5Units is the units attribute of an int64 time (attr "units", or
// "f.units" for a record's field f).
type hdf5Units struct{ attr, units string }

// hdf5TimesAsInt64 is dt with every datetime64 and timedelta64 as int64
// (the same bytes) and their CF units: "ms since 1970-01-01" for a
// datetime64[ms], "ms" for a timedelta64[ms]. Calendar months and years
// and generic times have no such unit and are refused.
func hdf5TimesAsInt64(dt *npyio.DType, field string) (*npyio.DType, []hdf5Units, error) {
	switch dt.Kind {
	case npyio.Datetime, npyio.Timedelta:
		what := "the array"
		attr := "units"
		if field != "" {
			what, attr = fmt.Sprintf("field %q", field), field+".units"
		}
		u := dt.Unit
		switch u {
		case "", "M", "Y":
			return nil, nil, fmt.Errorf("%s is %s, whose unit has no fixed length for a units attribute: times int64 cannot store it (the default times: opaque can)", what, dt.TypeStr())
		}
		if dt.UnitMult != 1 && dt.UnitMult != 0 {
			u = fmt.Sprintf("%d %s", dt.UnitMult, u)
		}
		if u == "m" {
			u = "min" // m is the metre in CF units
		}
		if u == "D" {
			u = "days"
		}
		if u == "W" {
			u = "weeks"
		}
		if dt.Kind == npyio.Datetime {
			u += " since 1970-01-01"
		}
		return &npyio.DType{Kind: npyio.Int, Order: dt.Order, Size: 8}, []hdf5Units{{attr, u}}, nil
	case npyio.Struct:
		var fields []npyio.Field
		var units []hdf5Units
		for i, fd := range dt.Fields {
			name := fd.Name
			if field != "" {
				name = field + "." + fd.Name
			}
			t, u, err := hdf5TimesAsInt64(fd.Type, name)
			if err != nil {
				return nil, nil, err
			}
			if t != fd.Type {
				if fields == nil {
					fields = slices.Clone(dt.Fields)
				}
				fields[i].Type = t
			}
			units = append(units, u...)
		}
		if fields == nil {
			return dt, units, nil
		}
		c := *dt
		c.Fields = fields
		return &c, units, nil
	}
	return dt, nil, nil
}

func hdf5SetUnits(d *hdf5.DatasetWriter, units []hdf5Units) error {
	for _, u := range units {
		if err := d.SetAttr(u.attr, hdf5.StringAttr(u.units)); err != nil {
			return err
		}
	}
	return nil
}

// hdf5Spool is a dataset with fixed-length UTF-8 strings being written:
// its rows go to a scratch file while the longest value of each string
// is measured; Close creates the dataset and copies them in.
type hdf5Spool struct {
	g       *hdf5.GroupWriter
	name    string
	dt      *npyio.DType
	shape   []uint64
	opts    hdf5.DatasetOptions
	units   []hdf5Units
	sizer   *hdf5.UnicodeSizer
	scratch func() (*os.File, error)
	rowSize int
	f       *os.File
	rows    int64
}

func (s *hdf5Spool) Write(rows []byte) error {
	if err := s.sizer.Add(rows); err != nil {
		return err // the caller names the dataset
	}
	if s.f == nil {
		var err error
		if s.f, err = s.scratch(); err != nil {
			return err
		}
	}
	_, err := s.f.Write(rows)
	return err
}

func (s *hdf5Spool) Close() error {
	if s.f != nil {
		defer func() {
			s.f.Close()
			os.Remove(s.f.Name())
		}()
	}
	s.opts.UnicodeBytes = s.sizer.Widths()
	d, err := s.g.CreateDataset(s.name, s.dt, s.shape, &s.opts)
	if err != nil {
		return err
	}
	if err := hdf5SetUnits(d, s.units); err != nil {
		return err
	}
	if s.f != nil {
		if _, err := s.f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		buf := make([]byte, max(1, containerBatchBytes/s.rowSize)*s.rowSize)
		for {
			n, err := io.ReadFull(s.f, buf)
			if n > 0 {
				if werr := d.Write(buf[:n]); werr != nil {
					return werr
				}
			}
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			if err != nil {
				return err
			}
		}
	}
	return d.Close()
}

func (f *hdf5File) close() error { return f.w.Close() }

// containerReader reads HDF5 files and MAT-files: each array read is a
// part (see container.go).
type containerReader struct {
	// list lists the arrays picked (all when pick is empty) of the file
	// r of size bytes, named name, warning about those it skips, their
	// data to be read on threads goroutines (0: GOMAXPROCS).
	list    func(name string, r io.ReaderAt, size int64, pick []string, warn func(string), threads int) ([]containerMember, error)
	pick    []string
	hint    string // how to pick one array: "--dataset /PATH"
	fortran bool   // fortran_order: matrices go to .npy as stored
	// asStored are the parts that go as stored (fortran_order), by
	// path and member, with their stored headers.
	asStored map[[2]string]*npyio.Header
	mu       sync.Mutex // guards asStored
	// files are the files opened, each listed once (r.pick) for all
	// its parts.
	files handles[*containerFile]
}

func (r *containerReader) pickHint() string { return r.hint }

// containerFile is an HDF5 file or MAT-file with its arrays listed once
// (every array picked; see containerReader.files).
type containerFile struct {
	members []containerMember
	byName  map[string]int // index in members
}

func (r *containerReader) closeHandles() { r.files.close() }

// file returns the open, listed file at path and the function that
// releases it; warn hears the warnings of listing it (when the cache does
// not hold it yet); its arrays are read on threads goroutines.
func (r *containerReader) file(ctx context.Context, path string, warn func(string), threads int) (*containerFile, func(), error) {
	return r.files.get(ctx, path, func(ctx context.Context, path string) (*containerFile, io.Closer, error) {
		f, err := storage.Open(ctx, path)
		if err != nil {
			return nil, nil, err
		}
		members, err := r.list(path, f, f.Size(), r.pick, warn, threads)
		if err != nil {
			f.Close()
			return nil, nil, &FileError{Path: path, Err: err}
		}
		cf := &containerFile{members: members, byName: make(map[string]int, len(members))}
		for i, m := range members {
			if _, ok := cf.byName[m.name]; !ok {
				cf.byName[m.name] = i
			}
		}
		return cf, f, nil
	})
}

func (r *containerReader) parts(ctx context.Context, s *fileSource, path string) ([]partHead, error) {
	cf, release, err := r.file(ctx, path, s.warn, s.threads())
	if err != nil {
		return nil, err
	}
	defer release()
	var out []partHead
	for _, m := range cf.members {
		h := *m.header
		h.FortranOrder = false // rows arrive in C order
		out = append(out, partHead{member: m.name, header: &h})
		if r.fortran && fortranMember(m) {
			r.mu.Lock()
			if r.asStored == nil {
				r.asStored = map[[2]string]*npyio.Header{}
			}
			r.asStored[[2]string{path, m.name}] = m.header
			r.mu.Unlock()
		}
	}
	return out, nil
}

// member finds the array of part p in its file (opened and listed once
// for all its parts, its arrays read on threads goroutines); release
// releases the file.
func (r *containerReader) member(ctx context.Context, p *Part, threads int) (containerMember, func(), error) {
	cf, release, err := r.file(ctx, p.Path, func(string) {}, threads)
	if err != nil {
		return containerMember{}, nil, err
	}
	if i, ok := cf.byName[p.Member]; ok {
		return cf.members[i], release, nil
	}
	release()
	return containerMember{}, nil, fmt.Errorf("%s: %q disappeared", p.Path, p.Member)
}

func (r *containerReader) openNPY(ctx context.Context, s *fileSource, p *Part) (*npyio.Reader, io.Closer, error) {
	m, release, err := r.member(ctx, p, s.threads())
	if err != nil {
		return nil, nil, err
	}
	rd, rc, err := memberReader(m)
	if err != nil {
		release()
		return nil, nil, &FileError{Path: p.Path, Err: err}
	}
	return rd, closers{rc, releaseCloser(release)}, nil
}

func (r *containerReader) stores() bool { return r.fortran }

// stored returns a Fortran-order matrix as stored (fortran_order).
func (r *containerReader) stored(p *Part) (*npyio.Header, func(context.Context) (io.ReadCloser, error), bool) {
	r.mu.Lock()
	h := r.asStored[[2]string{p.Path, p.Member}]
	r.mu.Unlock()
	if h == nil {
		return nil, nil, false
	}
	open := func(ctx context.Context) (io.ReadCloser, error) {
		m, release, err := r.member(ctx, p, 0) // MAT-files only: their reader has no Threads
		if err != nil {
			return nil, err
		}
		rc, err := m.open()
		if err != nil {
			release()
			return nil, err
		}
		return struct {
			io.Reader
			io.Closer
		}{rc, closers{rc, releaseCloser(release)}}, nil
	}
	return h, open, true
}
