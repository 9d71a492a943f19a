package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/format"
	"github.com/npyflow/npyflow/pipeline/inspect"
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/zarr"
)

// The Zarr format, on package zarr: a store is a directory (or a bucket
// prefix) named .zarr, its arrays named by their path in the group, like
// an HDF5 file's datasets. The source reads each array along its first
// axis, a band of chunks at a time (with band_rows, each band of whole
// chunks an input part of its own, which sharded runs spread over their
// tasks); the sink writes a group of arrays (v3 by default, or v2), the
// chunks as rows arrive and every metadata document last, into a
// staging directory renamed into place at the commit; in a sharded run
// its tasks write one store, each its own chunks, and the commit
// publishes the metadata last (zarr_shard.go). zarr_zip is the same in
// one .zip file.

var zarrFormat = &Format{
	Name: "zarr", Exts: []string{".zarr"}, Summary: "Zarr v2 or v3 store of chunked arrays (a directory or bucket prefix)",
	Caps: format.Caps{Archive: true, Dir: true},
	Source: fileSourceSpec("read arrays of Zarr stores",
		"Reads the arrays of Zarr v2 and v3 stores (zarr-python, xarray, dask, zarrita, TensorStore): a .zarr directory or bucket prefix holding a group (every array under it, by its consolidated metadata when it has some) or one array. Each array is one input part, its member the array's path (group/data), read along its first axis a band of chunks at a time; missing chunks read as the fill value. Variable-length string arrays (vlen-utf8, vlen-bytes, v3 string) read as numpy U (S) of their longest item, found by reading every chunk once when the parts are listed.",
		newZarrReader, zarrSourceOpts{}),
	Sink: &job.Spec{Kind: job.Sink, Summary: "write a Zarr store",
		Doc:     "Writes a Zarr group (a .zarr directory, or a bucket prefix) of one array per input part or one for all, read by zarr-python, xarray and zarrita: v3 by default (zarr_format: 2 for zarr-python 2), chunked (chunks, default about 4 MiB each), optionally sharded (v3), compressed with zstd, blosc (lz4 inside, byte shuffle), gzip, lz4 or zlib (v2) or none, with consolidated metadata. Chunks are written as the rows arrive and the metadata last; a local output is staged beside its name and renamed into place at the end. The tasks of a sharded run write one store together, each its own chunks, published with the metadata last when the run is committed: every input must then start on a chunk (shard) boundary of its array.",
		Options: zarrSinkOpts{}, Impl: builder(buildZarrSink)},
	InspectPath: inspectZarr,
}

// zarrZipFormat is a Zarr store in one .zip file, as zarr-python's
// ZipStore writes it (each key an entry, stored uncompressed): the same
// source and sink options as a .zarr directory. Any .zip names one (no
// other format claims .zip), so y.zarr.zip and y.zip both work; reading
// one that holds no Zarr metadata (an .npz renamed, a zip of other
// files) is refused as not a Zarr store.
var zarrZipFormat = &Format{
	Name: "zarr_zip", Exts: []string{".zip"}, Summary: "Zarr v2 or v3 store in a .zip file (zarr-python's ZipStore)",
	Caps: format.Caps{Archive: true},
	Source: fileSourceSpec("read arrays of Zarr stores in .zip files",
		"Reads the arrays of a Zarr v2 or v3 store kept in a .zip file (zarr-python's ZipStore: each key an entry), as the zarr source reads a .zarr directory. Entries may be stored or deflated; a zip whose directory lies about sizes or offsets, or holds no Zarr metadata, is refused.",
		newZarrReader, zarrSourceOpts{}),
	Sink: &job.Spec{Kind: job.Sink, Summary: "write a Zarr store into a .zip file",
		Doc:     "Writes a Zarr group into one .zip file the way zarr-python's ZipStore does (each key an entry, stored uncompressed; zarr.ZipStore(path, mode='r') reads it), with the zarr sink's options. Chunks are written as the rows arrive, the metadata and the zip's directory last.",
		Options: zarrSinkOpts{}, Impl: builder(buildZarrZipSink)},
	Inspect: inspectZarrZip,
}

// zarrStore opens the store at path (a directory or bucket prefix).
func zarrStore(path string) *zarr.FSStore { return zarr.NewFSStore(path) }

// errNotZarrZip is the error for a .zip that holds no Zarr store.
var errNotZarrZip = errors.New("not a Zarr store: a zip archive without zarr.json, .zgroup or .zarray (an .npz must be named .npz)")

// openedStore is a store being read, and what to close after.
type openedStore interface {
	zarr.Store
	Close() error
}

// zipFileStore is a .zip store and its file.
type zipFileStore struct {
	*zarr.ZipStore
	f storage.File
}

func (z *zipFileStore) Close() error { return z.f.Close() }

// openZarrStore opens the store at path: a .zip file (FormatOf says
// zarr_zip), else a directory or bucket prefix.
func openZarrStore(ctx context.Context, path string) (openedStore, error) {
	if FormatOf(path) != zarrZipFormat {
		return zarrStore(path), nil
	}
	f, err := storage.Open(ctx, path)
	if err != nil {
		return nil, bare(err)
	}
	z, err := zarr.OpenZip(f, f.Size())
	if err != nil {
		f.Close()
		if errors.Is(err, zarr.ErrNotZarrZip) {
			return nil, errNotZarrZip
		}
		return nil, err
	}
	return &zipFileStore{ZipStore: z, f: f}, nil
}

// zarrHeader is the npy header of an array's rows (C order), or an error
// saying why npyflow cannot stream it.
//
// A variable-length string array (numcodecs vlen-utf8/vlen-bytes, v3
// string) reads as numpy U (S) of its longest item, as numpy and h5py
// read such strings: width is that length when known (>= 0), else it is
// found by reading every chunk (StringWidth) and returned.
func zarrHeader(ctx context.Context, a *zarr.Array, width int) (*npyio.Header, int, error) {
	zt := a.DType
	if zt.VarString {
		if width < 0 {
			w, err := a.StringWidth(ctx)
			if err != nil {
				return nil, 0, err
			}
			width = w
		}
		zt = a.FixedType(width)
	}
	descr, err := zarrDescr(zt)
	if err != nil {
		return nil, 0, fmt.Errorf("array %s: %v", a.Path, err)
	}
	dt, err := npyio.ParseDescr(descr)
	if err != nil {
		return nil, 0, fmt.Errorf("array %s: %v", a.Path, err)
	}
	shape := make([]int, len(a.Shape))
	for i, n := range a.Shape {
		if n > 1<<53 {
			return nil, 0, fmt.Errorf("array %s: shape %v too large", a.Path, a.Shape)
		}
		shape[i] = int(n)
	}
	return &npyio.Header{Major: 1, DType: dt, Shape: shape}, width, nil
}

// zarrDescr is numpy's descr of a zarr type, as an npy header writes it.
func zarrDescr(d zarr.DType) (string, error) {
	if d.Fields == nil {
		return "'" + d.Descr + "'", nil
	}
	var sb strings.Builder
	sb.WriteString("[")
	for i, f := range d.Fields {
		if i > 0 {
			sb.WriteString(", ")
		}
		t, err := zarrDescr(f.Type)
		if err != nil {
			return "", err
		}
		sb.WriteString("(" + strconv.Quote(f.Name) + ", " + t)
		if f.Shape != nil {
			sb.WriteString(", (")
			for _, n := range f.Shape {
				sb.WriteString(strconv.FormatInt(n, 10) + ",")
			}
			sb.WriteString(")")
		}
		sb.WriteString(")")
	}
	sb.WriteString("]")
	return sb.String(), nil
}

// npyToZarr is the zarr type of an npy type: packed records only (Zarr's
// structured types have no padding).
func npyToZarr(d *npyio.DType) (zarr.DType, error) {
	if d.Kind != npyio.Struct {
		if d.Kind == npyio.Object {
			return zarr.DType{}, errors.New("object arrays have no Zarr type")
		}
		if (d.Kind == npyio.Datetime || d.Kind == npyio.Timedelta) && (d.Unit == "" || d.Unit == "generic") {
			// zarr-python refuses these ("generic units are not supported").
			return zarr.DType{}, fmt.Errorf("%s has no unit (generic), which Zarr readers refuse: cast it to one (M8[s], m8[ns])", d.TypeStr())
		}
		return zarr.DType{Descr: d.TypeStr()}, nil
	}
	out := zarr.DType{Fields: []zarr.Field{}}
	off := 0
	for _, f := range d.Fields {
		if f.Offset != off {
			return zarr.DType{}, fmt.Errorf("field %q is at offset %d after %d bytes of fields: Zarr's structured types have no padding", f.Name, f.Offset, off)
		}
		t, err := npyToZarr(f.Type)
		if err != nil {
			return zarr.DType{}, fmt.Errorf("field %q: %v", f.Name, err)
		}
		zf := zarr.Field{Name: f.Name, Type: t}
		n := f.Type.Size
		for _, s := range f.Shape {
			zf.Shape = append(zf.Shape, int64(s))
			n *= s
		}
		off += n
		out.Fields = append(out.Fields, zf)
	}
	if off != d.Size {
		return zarr.DType{}, fmt.Errorf("the record has %d bytes of padding: Zarr's structured types have none", d.Size-off)
	}
	return out, nil
}

// zarrReader reads Zarr stores: each array read is a part, or with
// band_rows each band of whole chunks along its first axis.
type zarrReader struct {
	c      *job.Component
	arrays []string
	band   int64 // band_rows: 0 one part per array

	// widths are the string widths of the variable-length string arrays
	// found when the parts were listed (by store path and array), so
	// that opening a part does not read every chunk again.
	mu     sync.Mutex
	widths map[[2]string]int
}

// width returns the string width found for array name of the store at
// path, or -1.
func (r *zarrReader) width(path, name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w, ok := r.widths[[2]string{path, name}]; ok {
		return w
	}
	return -1
}

func (r *zarrReader) setWidth(path, name string, w int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.widths == nil {
		r.widths = map[[2]string]int{}
	}
	r.widths[[2]string{path, name}] = w
}

func newZarrReader(c *job.Component) (fileReader, error) {
	o := job.Options[zarrSourceOpts](c)
	return &zarrReader{c: c, arrays: o.Arrays, band: o.BandRows}, nil
}

// zarrBand is a band's member: the array's path and its rows, as a
// numpy slice (data[0:1000]).
func zarrBand(name string, r0, r1 int64) string { return fmt.Sprintf("%s[%d:%d]", name, r0, r1) }

// parseZarrBand splits a band's member into the array's path and rows.
func parseZarrBand(member string) (name string, r0, r1 int64, ok bool) {
	i := strings.LastIndexByte(member, '[')
	if i < 0 || !strings.HasSuffix(member, "]") {
		return "", 0, 0, false
	}
	a, b, found := strings.Cut(member[i+1:len(member)-1], ":")
	r0, e0 := strconv.ParseInt(a, 10, 64)
	r1, e1 := strconv.ParseInt(b, 10, 64)
	if !found || e0 != nil || e1 != nil || r0 < 0 || r1 < r0 {
		return "", 0, 0, false
	}
	return member[:i], r0, r1, true
}

// bands splits the rows of array a (header h) into bands of whole outer
// chunks (shards, when sharded) of about r.band rows.
func (r *zarrReader) bands(name string, a *zarr.Array, h *npyio.Header) []partHead {
	rows := h.Rows()
	if r.band <= 0 || len(a.Shape) == 0 || rows == 0 {
		return []partHead{{member: name, header: h}}
	}
	c := max(a.Chunks[0], 1)
	step := (r.band + c - 1) / c * c
	var out []partHead
	for r0 := int64(0); r0 < rows; r0 += step {
		r1 := min(rows, r0+step)
		bh := *h
		bh.Shape = append([]int{int(r1 - r0)}, h.Shape[1:]...)
		out = append(out, partHead{member: zarrBand(name, r0, r1), header: &bh, size: bh.DataSize()})
	}
	return out
}

func (r *zarrReader) pickHint() string { return "--array PATH" }

// zarrArrays opens the store at path and lists its arrays (a store that
// is one array: that array, path "").
func zarrArrays(ctx context.Context, path string) (openedStore, *zarr.Group, []string, error) {
	s, err := openZarrStore(ctx, path)
	if err != nil {
		return nil, nil, nil, err
	}
	g, names, err := zarrList(ctx, s)
	if err != nil {
		s.Close()
		return nil, nil, nil, err
	}
	return s, g, names, nil
}

// zarrList lists the arrays of the store s: its root group's, or the
// root itself (path "") when s is one array.
func zarrList(ctx context.Context, s zarr.Store) (*zarr.Group, []string, error) {
	g, gerr := zarr.OpenGroup(ctx, s, "")
	if gerr == nil {
		return g, g.Arrays, nil
	}
	_, aerr := zarr.OpenArray(ctx, s, "")
	if aerr == nil {
		return nil, []string{""}, nil
	}
	if strings.Contains(gerr.Error(), "not a Zarr group") && strings.Contains(aerr.Error(), "not a Zarr array") {
		return nil, nil, errors.New("not a Zarr store: no zarr.json, .zgroup or .zarray")
	}
	if strings.Contains(gerr.Error(), "not a Zarr group") {
		return nil, nil, aerr
	}
	return nil, nil, gerr
}

func openZarrArray(ctx context.Context, s zarr.Store, g *zarr.Group, name string) (*zarr.Array, error) {
	if g != nil {
		return g.OpenArray(ctx, name)
	}
	return zarr.OpenArray(ctx, s, name)
}

func (r *zarrReader) parts(ctx context.Context, src *fileSource, path string) ([]partHead, error) {
	s, g, names, err := zarrArrays(ctx, path)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	defer s.Close()
	pick := names
	if len(r.arrays) > 0 {
		pick = nil
		for i, n := range r.arrays {
			n = strings.Trim(n, "/")
			found := false
			for _, m := range names {
				found = found || m == n
			}
			if !found {
				return nil, &dataError{pos: r.c.PosOfItem("arrays", i), path: r.c.Path() + ".arrays",
					err: fmt.Errorf("%s has no array %q (arrays: %s)", path, n, strings.Join(names, ", "))}
			}
			pick = append(pick, n)
		}
	}
	var out []partHead
	for _, n := range pick {
		a, err := openZarrArray(ctx, s, g, n)
		if err != nil {
			return nil, &FileError{Path: path, Err: err}
		}
		a.Threads = src.threads() // a string array's widths are read now
		h, w, err := zarrHeader(ctx, a, -1)
		if err != nil {
			if len(r.arrays) == 0 && src.warn != nil && len(pick) > 1 {
				src.warn(fmt.Sprintf("%s: skipping %v", path, err))
				continue
			}
			return nil, &FileError{Path: path, Err: err}
		}
		if a.DType.VarString {
			r.setWidth(path, n, w)
		}
		out = append(out, r.bands(n, a, h)...)
	}
	if len(out) == 0 {
		return nil, &FileError{Path: path, Err: errors.New("the store has no arrays npyflow can read")}
	}
	return out, nil
}

func (r *zarrReader) open(ctx context.Context, src *fileSource, p *Part) (rowReader, *npyio.Header, io.Closer, error) {
	name, first, last := p.Member, int64(0), int64(-1)
	if r.band > 0 {
		// A band, or a whole array that has none (0-d, or no rows).
		if n, r0, r1, ok := parseZarrBand(p.Member); ok {
			name, first, last = n, r0, r1
		}
	}
	s, g, _, err := zarrArrays(ctx, p.Path)
	if err != nil {
		return nil, nil, nil, &FileError{Path: p.Path, Err: err}
	}
	a, err := openZarrArray(ctx, s, g, name)
	if err != nil {
		s.Close()
		return nil, nil, nil, &FileError{Path: p.Path, Err: err}
	}
	a.Threads = src.threads()
	h, width, err := zarrHeader(ctx, a, r.width(p.Path, name))
	if err != nil {
		s.Close()
		return nil, nil, nil, &FileError{Path: p.Path, Err: err}
	}
	rb := int64(h.DType.Size)
	for _, n := range a.Shape[min(1, len(a.Shape)):] {
		rb *= n
	}
	zr := &zarrRows{ctx: ctx, a: a, rowBytes: rb, rows: h.Rows(), path: p.Path, width: width}
	if last >= 0 {
		if len(a.Shape) == 0 || last > h.Rows() {
			s.Close()
			return nil, nil, nil, &FileError{Path: p.Path, Err: fmt.Errorf("array %s of shape %v has no rows %d to %d", name, a.Shape, first, last)}
		}
		zr.next, zr.rows = first, last
		h.Shape[0] = int(last - first)
		a.ReadAheadTo = last // a band's task fetches no chunk past it
	}
	return zr, h, s, nil
}

// zarrRows reads an array's rows in order.
type zarrRows struct {
	ctx      context.Context
	a        *zarr.Array
	rowBytes int64
	rows     int64
	next     int64
	path     string
	width    int // of a variable-length string array's items, read fixed
}

func (z *zarrRows) ReadRows(dst []byte) (int, error) {
	if z.next >= z.rows {
		return 0, io.EOF
	}
	n := z.rows - z.next
	if z.rowBytes > 0 {
		n = min(n, int64(len(dst))/z.rowBytes)
	}
	if n == 0 {
		return 0, fmt.Errorf("%s: a buffer of %d bytes holds no row of %d", z.path, len(dst), z.rowBytes)
	}
	var start, count []int64
	if len(z.a.Shape) > 0 {
		start = make([]int64, len(z.a.Shape))
		count = append([]int64(nil), z.a.Shape...)
		start[0], count[0] = z.next, n
	} else {
		n = 1
	}
	var err error
	if z.a.DType.VarString {
		err = z.a.ReadFixed(z.ctx, start, count, z.width, dst[:n*z.rowBytes])
	} else {
		err = z.a.Read(z.ctx, start, count, dst[:n*z.rowBytes])
	}
	if err != nil {
		return 0, err // the engine names the file and array
	}
	z.next += n
	return int(n), nil
}

// zarrSinkOptions are a zarr sink's array options, checked.
func zarrSinkOptions(c *job.Component) (zarr.CreateOptions, bool, error) {
	zo := job.Options[zarrSinkOpts](c)
	o := zarr.CreateOptions{Format: int(zo.ZarrFormat), Compression: zo.Compression, Level: int(zo.CompressionLevel), Strings: zo.Strings}
	parse := func(field, text string) ([]int64, error) {
		text = strings.TrimSpace(text)
		if text == "" {
			return nil, nil
		}
		var out []int64
		for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == 'x' || r == ' ' }) {
			n, err := strconv.ParseInt(f, 10, 64)
			if err != nil || n < 1 {
				return nil, c.Errorf(field, "%q is not a shape of positive integers (1000,100)", text)
			}
			out = append(out, n)
		}
		return out, nil
	}
	var err error
	if o.Chunks, err = parse("chunks", zo.Chunks); err != nil {
		return o, false, err
	}
	if o.Shards, err = parse("shards", zo.Shards); err != nil {
		return o, false, err
	}
	if o.Shards != nil && o.Format != 3 {
		return o, false, c.Errorf("shards", "sharding needs zarr_format 3")
	}
	if (o.Compression == "lz4" || o.Compression == "zlib") && o.Format == 3 {
		return o, false, c.Errorf("compression", "%s is not a Zarr v3 codec: use zstd, blosc or gzip, or zarr_format 2", o.Compression)
	}
	return o, zo.Consolidated, nil
}

func buildZarrSink(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	opts, consolidated, err := zarrSinkOptions(c)
	if err != nil {
		return nil, err
	}
	opts.Threads = env.libThreads("zarr writer")
	s, err := newMemberSink(c, in, env, "array", job.Options[zarrSinkOpts](c).Array, func(_ *memberSink, f *sinkFile) (arrayFile, error) {
		st := zarrStore(f.dir)
		if err := st.ShareRoot(); err != nil {
			return nil, err
		}
		return &zarrArchive{ctx: env.ctx, out: env.out, store: st, g: zarr.CreateGroup(st, "", opts.Format, consolidated, nil), opts: opts}, nil
	})
	if err != nil {
		return nil, err
	}
	s.dirOut = true
	// In a sharded run its tasks write their own chunks (zarr_shard.go).
	return &zarrSink{memberSink: s, opts: opts, consolidated: consolidated}, nil
}

// buildZarrZipSink is the zarr sink writing into a .zip file.
func buildZarrZipSink(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	opts, consolidated, err := zarrSinkOptions(c)
	if err != nil {
		return nil, err
	}
	opts.Threads = env.libThreads("zarr_zip writer")
	return newMemberSink(c, in, env, "array", job.Options[zarrSinkOpts](c).Array, func(_ *memberSink, f *sinkFile) (arrayFile, error) {
		st := zarr.NewZipWriter(f)
		return &zarrArchive{ctx: env.ctx, out: env.out, store: st, g: zarr.CreateGroup(st, "", opts.Format, consolidated, nil), opts: opts}, nil
	})
}

// zarrArchive is a Zarr group being written, as an arrayFile.
type zarrArchive struct {
	ctx   context.Context
	out   *outputs    // aborting the run stops its arrays' encoders
	store openedStore // closed (a zip's directory written) after the group
	g     *zarr.GroupWriter
	opts  zarr.CreateOptions
}

func (f *zarrArchive) create(name string, h *npyio.Header) (arrayWriter, error) {
	o, err := zarrArrayOptions(name, h, f.opts)
	if err != nil {
		return nil, err
	}
	w, err := f.g.CreateArray(f.ctx, name, o)
	if err != nil {
		return nil, err
	}
	return &zarrArrayWriter{ctx: f.ctx, w: w, unregister: f.out.onAbort(w.Abort)}, nil
}

// zarrArrayOptions are the options of the array name of header h, the
// sink's options o completed: its type, shape, and chunks and shards
// fitted to its axes.
func zarrArrayOptions(name string, h *npyio.Header, o zarr.CreateOptions) (zarr.CreateOptions, error) {
	// Rows arrive in native byte order (h.DType may be the input's, as
	// stored): the array is declared so.
	dt, err := npyToZarr(h.DType.Native())
	if err != nil {
		return o, fmt.Errorf("array %s: %v", name, err)
	}
	if dt.Fields != nil && o.Format == 3 {
		return o, fmt.Errorf("array %s: a record (structured) type has no Zarr v3 data type: write it with zarr_format 2 (--zarr-format 2), or one array per field (split_fields)", name)
	}
	o.DType = dt
	o.Shape = make([]int64, len(h.Shape))
	for i, n := range h.Shape {
		o.Shape[i] = int64(n)
	}
	fit := func(s []int64) []int64 {
		if s == nil {
			return nil
		}
		out := append([]int64(nil), o.Shape...)
		for i := range out {
			out[i] = max(out[i], 1)
			if i < len(s) {
				out[i] = s[i]
			}
		}
		return out
	}
	if len(o.Chunks) > len(o.Shape) || len(o.Shards) > len(o.Shape) {
		return o, fmt.Errorf("array %s of shape %v: chunks %v or shards %v have more axes", name, h.Shape, o.Chunks, o.Shards)
	}
	o.Chunks, o.Shards = fit(o.Chunks), fit(o.Shards)
	if o.Shards != nil && o.Chunks == nil {
		o.Chunks = zarr.DefaultChunks(o.Shape, dt.ItemSize())
		for i := range o.Chunks {
			o.Chunks[i] = min(o.Chunks[i], o.Shards[i])
			for o.Shards[i]%o.Chunks[i] != 0 {
				o.Chunks[i]--
			}
		}
	}
	return o, nil
}

func (f *zarrArchive) close() error {
	if err := f.g.Close(f.ctx); err != nil {
		f.store.Close()
		return err
	}
	return f.store.Close()
}

type zarrArrayWriter struct {
	ctx        context.Context
	w          *zarr.ArrayWriter
	unregister func() // its abort hook (outputs.onAbort)
}

func (w *zarrArrayWriter) Write(rows []byte) error { return w.w.WriteRows(w.ctx, rows) }

func (w *zarrArrayWriter) Close() error {
	defer w.unregister()
	return w.w.Close(w.ctx)
}

// inspectZarrZip shows the arrays of a Zarr store in a .zip file.
func inspectZarrZip(ctx context.Context, f storage.File, name string, _ *job.Component) (inspect.Info, error) {
	z, err := zarr.OpenZip(f, f.Size())
	if err != nil {
		if errors.Is(err, zarr.ErrNotZarrZip) {
			return nil, errNotZarrZip
		}
		return nil, err
	}
	g, names, err := zarrList(ctx, z)
	if err != nil {
		return nil, err
	}
	return zarrInfo(ctx, z, g, names, name), nil
}

// inspectZarr shows a Zarr store's arrays.
func inspectZarr(ctx context.Context, name, display string, _ *job.Component) (inspect.Info, error) {
	s, g, names, err := zarrArrays(ctx, name)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return zarrInfo(ctx, s, g, names, display), nil
}

// zarrInfo describes a store's arrays (names, of the group g or, when g
// is nil, the one array at the root).
func zarrInfo(ctx context.Context, s zarr.Store, g *zarr.Group, names []string, display string) inspect.Info {
	info := &inspect.ZarrInfo{Format: "zarr", File: display}
	if g != nil {
		info.ZarrFormat, info.Consolidated = g.Format, g.Consolidated
		info.Attrs = g.Attrs
	}
	for _, n := range names {
		a, err := openZarrArray(ctx, s, g, n)
		if err != nil {
			info.Arrays = append(info.Arrays, inspect.ZarrArray{Path: n, Error: err.Error()})
			continue
		}
		if g == nil {
			info.ZarrFormat = a.Format
		}
		za := inspect.ZarrArray{Path: n, Shape: a.Shape, Chunks: a.Chunks, Shards: nil, DType: a.DType.Descr,
			FillValue: fillText(a), Attrs: a.Attrs, DimensionNames: a.DimensionNames}
		if a.DType.Fields != nil {
			za.DType, _ = zarrDescr(a.DType)
		}
		if a.DType.VarString {
			// Its width is the longest item's, known only by reading
			// every chunk: convert reads it as U (S) of that width.
			za.DType = "variable-length text (read as <U of the longest item)"
			if a.DType.Kind() == 'S' {
				za.DType = "variable-length bytes (read as |S of the longest item)"
			}
		}
		if a.Inner != nil {
			za.Shards, za.Chunks = a.Chunks, a.Inner
		}
		for _, c := range a.Codecs {
			za.Codecs = append(za.Codecs, c.Name)
		}
		info.Arrays = append(info.Arrays, za)
	}
	return info
}

// fillText shows a fill value as the metadata's JSON gives it.
func fillText(a *zarr.Array) string {
	b, err := json.Marshal(a.FillValue())
	if err != nil {
		return fmt.Sprint(a.FillValue())
	}
	return string(b)
}
