package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/inspect"
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/zarr"
)

// The Zarr format, on package zarr: a store is a directory (or a bucket
// prefix) named .zarr, its arrays named by their path in the group, like
// an HDF5 file's datasets. The source reads each array along its first
// axis, a band of chunks at a time; the sink writes a group of arrays
// (v3 by default, or v2), the chunks as rows arrive and every metadata
// document last, into a staging directory renamed into place at the
// commit.

var zarrFormat = &Format{
	Name: "zarr", Exts: []string{".zarr"}, Summary: "Zarr v2 or v3 store of chunked arrays (a directory or bucket prefix)",
	Archive: true, Dir: true,
	Source: fileSourceSpec("read arrays of Zarr stores",
		"Reads the arrays of Zarr v2 and v3 stores (zarr-python, xarray, dask, zarrita, TensorStore): a .zarr directory or bucket prefix holding a group (every array under it, by its consolidated metadata when it has some) or one array. Each array is one input part, its member the array's path (group/data), read along its first axis a band of chunks at a time; missing chunks read as the fill value. Variable-length string arrays are refused for now.",
		newZarrReader,
		job.Field{Name: "arrays", Type: job.StringList, Doc: "the array paths to read, group/data (default: every array of the group)",
			Flag: "array", FlagType: &flagString, FlagDoc: "use only this array of the Zarr store (group/data)"},
		tableField("arrays")),
	Sink: &job.Spec{Kind: job.Sink, Summary: "write a Zarr store",
		Doc: "Writes a Zarr group (a .zarr directory, or a bucket prefix) of one array per input part or one for all, read by zarr-python, xarray and zarrita: v3 by default (zarr_format: 2 for zarr-python 2), chunked (chunks, default about 4 MiB each), optionally sharded (v3), compressed with zstd, blosc (lz4 inside, byte shuffle), gzip, lz4 or zlib (v2) or none, with consolidated metadata. Chunks are written as the rows arrive and the metadata last; a local output is staged beside its name and renamed into place at the end.",
		Fields: append(fileSinkFields(),
			job.Field{Name: "array", Type: job.String, Default: "{member}", Check: checkTemplate, Flag: "name", ConvertDefault: "{array}",
				Doc: "the array's path in the group; with {stem} etc. in it, one array per input part; an empty name is the input file's stem"},
			job.Field{Name: "zarr_format", Type: job.Int, Default: int64(3), Min: ptr(2), Max: ptr(3), Flag: "zarr-format",
				Doc: "the Zarr format written: 3 (zarr.json) or 2 (.zarray, for zarr-python 2)"},
			job.Field{Name: "chunks", Type: job.String, Flag: "chunks",
				Doc: "the chunk shape, extents separated by commas (1000,100); fewer extents than axes leave the last axes whole; default: about 4 MiB chunks, whole trailing axes first"},
			job.Field{Name: "shards", Type: job.String, Flag: "shards",
				Doc: "the shard shape (v3 only), each extent a multiple of the chunk's: chunks are then inner chunks of shards of this shape; default: no sharding"},
			job.Field{Name: "compression", Type: job.String, Default: "zstd", Enum: zarr.Compressions,
				Doc:  "the codec compressing each chunk: zstd (level 1-22, default 3), blosc (lz4 inside with byte shuffle, level 1-9), gzip (1-9), lz4 and zlib (v2 only), none",
				Flag: "compression", FlagType: &flagString, FlagDoc: "zstd (the default), blosc, gzip, lz4 (v2), zlib (v2) or none"},
			job.Field{Name: "compression_level", Type: job.Int, Default: int64(0), Min: ptr(0), Max: ptr(22), Flag: "compression-level",
				Doc: "the compression level (0: the codec's default)"},
			job.Field{Name: "strings", Type: job.String, Default: "fixed", Enum: []string{"fixed", "vlen"},
				Doc:  "how numpy U and S strings are stored: fixed (the default, as zarr-python does) or vlen (v2 object arrays with numcodecs' vlen-utf8 or vlen-bytes, v3 the string data type with vlen-utf8; no trailing NULs)",
				Flag: "strings", FlagType: &flagString, FlagDoc: "fixed (the default) or vlen: how numpy U and S strings are stored"},
			job.Field{Name: "consolidated", Type: job.Bool, Default: true, Flag: "consolidated",
				Doc: "write consolidated metadata (.zmetadata in v2, inline in the group's zarr.json in v3), so readers list the arrays in one request"},
			job.Field{Name: "split_fields", Type: job.Bool, Default: false,
				Doc: "write each field of a record input as its own array, named by the field (Zarr v3 has no structured types; xarray's variables); npyflow convert does this for Parquet and Arrow inputs"}),
		Impl: builder(buildZarrSink)},
	InspectPath: inspectZarr,
}

// zarrStore opens the store at path (a directory or bucket prefix).
func zarrStore(path string) *zarr.FSStore { return zarr.NewFSStore(path) }

// zarrHeader is the npy header of an array's rows (C order), or an error
// saying why npyflow cannot stream it.
func zarrHeader(a *zarr.Array) (*npyio.Header, error) {
	if a.DType.VarString {
		return nil, fmt.Errorf("array %s: variable-length strings are not supported by the engine yet", a.Path)
	}
	descr, err := zarrDescr(a.DType)
	if err != nil {
		return nil, fmt.Errorf("array %s: %v", a.Path, err)
	}
	dt, err := npyio.ParseDescr(descr)
	if err != nil {
		return nil, fmt.Errorf("array %s: %v", a.Path, err)
	}
	shape := make([]int, len(a.Shape))
	for i, n := range a.Shape {
		if n > 1<<53 {
			return nil, fmt.Errorf("array %s: shape %v too large", a.Path, a.Shape)
		}
		shape[i] = int(n)
	}
	return &npyio.Header{Major: 1, DType: dt, Shape: shape}, nil
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

// zarrReader reads Zarr stores: each array read is a part.
type zarrReader struct {
	c      *job.Component
	arrays []string
}

func newZarrReader(c *job.Component) (fileReader, error) {
	return &zarrReader{c: c, arrays: c.Strings("arrays")}, nil
}

func (r *zarrReader) pickHint() string { return "--array PATH" }

// zarrArrays opens the store at path and lists its arrays (a store that
// is one array: that array, path "").
func zarrArrays(ctx context.Context, path string) (*zarr.FSStore, *zarr.Group, []string, error) {
	s := zarrStore(path)
	g, gerr := zarr.OpenGroup(ctx, s, "")
	if gerr == nil {
		return s, g, g.Arrays, nil
	}
	_, aerr := zarr.OpenArray(ctx, s, "")
	if aerr == nil {
		return s, nil, []string{""}, nil
	}
	s.Close()
	if strings.Contains(gerr.Error(), "not a Zarr group") && strings.Contains(aerr.Error(), "not a Zarr array") {
		return nil, nil, nil, errors.New("not a Zarr store: no zarr.json, .zgroup or .zarray")
	}
	if strings.Contains(gerr.Error(), "not a Zarr group") {
		return nil, nil, nil, aerr
	}
	return nil, nil, nil, gerr
}

func openZarrArray(ctx context.Context, s *zarr.FSStore, g *zarr.Group, name string) (*zarr.Array, error) {
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
		h, err := zarrHeader(a)
		if err != nil {
			if len(r.arrays) == 0 && src.warn != nil && len(pick) > 1 {
				src.warn(fmt.Sprintf("%s: skipping %v", path, err))
				continue
			}
			return nil, &FileError{Path: path, Err: err}
		}
		out = append(out, partHead{member: n, header: h})
	}
	if len(out) == 0 {
		return nil, &FileError{Path: path, Err: errors.New("the store has no arrays npyflow can read")}
	}
	return out, nil
}

func (r *zarrReader) open(ctx context.Context, _ *fileSource, p *Part) (rowReader, *npyio.Header, io.Closer, error) {
	s, g, _, err := zarrArrays(ctx, p.Path)
	if err != nil {
		return nil, nil, nil, &FileError{Path: p.Path, Err: err}
	}
	a, err := openZarrArray(ctx, s, g, p.Member)
	if err != nil {
		s.Close()
		return nil, nil, nil, &FileError{Path: p.Path, Err: err}
	}
	h, err := zarrHeader(a)
	if err != nil {
		s.Close()
		return nil, nil, nil, &FileError{Path: p.Path, Err: err}
	}
	rb := int64(h.DType.Size)
	for _, n := range a.Shape[min(1, len(a.Shape)):] {
		rb *= n
	}
	return &zarrRows{ctx: ctx, a: a, rowBytes: rb, rows: h.Rows(), path: p.Path}, h, s, nil
}

// zarrRows reads an array's rows in order.
type zarrRows struct {
	ctx      context.Context
	a        *zarr.Array
	rowBytes int64
	rows     int64
	next     int64
	path     string
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
	var err error
	if len(z.a.Shape) == 0 {
		err = z.a.Read(z.ctx, nil, nil, dst[:z.rowBytes])
	} else {
		start := make([]int64, len(z.a.Shape))
		count := append([]int64(nil), z.a.Shape...)
		start[0], count[0] = z.next, n
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
	o := zarr.CreateOptions{Format: int(c.Int("zarr_format")), Compression: c.String("compression"), Level: int(c.Int("compression_level")), Strings: c.String("strings")}
	parse := func(field string) ([]int64, error) {
		text := strings.TrimSpace(c.String(field))
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
	if o.Chunks, err = parse("chunks"); err != nil {
		return o, false, err
	}
	if o.Shards, err = parse("shards"); err != nil {
		return o, false, err
	}
	if o.Shards != nil && o.Format != 3 {
		return o, false, c.Errorf("shards", "sharding needs zarr_format 3")
	}
	if (o.Compression == "lz4" || o.Compression == "zlib") && o.Format == 3 {
		return o, false, c.Errorf("compression", "%s is not a Zarr v3 codec: use zstd, blosc or gzip, or zarr_format 2", o.Compression)
	}
	return o, c.Bool("consolidated"), nil
}

func buildZarrSink(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	opts, consolidated, err := zarrSinkOptions(c)
	if err != nil {
		return nil, err
	}
	s, err := newMemberSink(c, in, env, "array", func(_ *memberSink, f *sinkFile) (arrayFile, error) {
		st := zarrStore(f.dir)
		return &zarrArchive{ctx: env.ctx, store: st, g: zarr.CreateGroup(st, "", opts.Format, consolidated, nil), opts: opts}, nil
	})
	if err != nil {
		return nil, err
	}
	s.dirOut = true
	return s, nil
}

// zarrArchive is a Zarr group being written, as an arrayFile.
type zarrArchive struct {
	ctx   context.Context
	store *zarr.FSStore
	g     *zarr.GroupWriter
	opts  zarr.CreateOptions
}

func (f *zarrArchive) create(name string, h *npyio.Header) (arrayWriter, error) {
	dt, err := npyToZarr(h.DType)
	if err != nil {
		return nil, fmt.Errorf("array %s: %v", name, err)
	}
	if dt.Fields != nil && f.opts.Format == 3 {
		return nil, fmt.Errorf("array %s: a record (structured) type has no Zarr v3 data type: write it with zarr_format 2 (--zarr-format 2), or one array per field (split_fields)", name)
	}
	o := f.opts
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
		return nil, fmt.Errorf("array %s of shape %v: chunks %v or shards %v have more axes", name, h.Shape, o.Chunks, o.Shards)
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
	w, err := f.g.CreateArray(f.ctx, name, o)
	if err != nil {
		return nil, err
	}
	return &zarrArrayWriter{ctx: f.ctx, w: w}, nil
}

func (f *zarrArchive) close() error {
	defer f.store.Close()
	return f.g.Close(f.ctx)
}

type zarrArrayWriter struct {
	ctx context.Context
	w   *zarr.ArrayWriter
}

func (w *zarrArrayWriter) Write(rows []byte) error { return w.w.WriteRows(w.ctx, rows) }
func (w *zarrArrayWriter) Close() error            { return w.w.Close(w.ctx) }

// inspectZarr shows a Zarr store's arrays.
func inspectZarr(ctx context.Context, name, display string, _ *job.Component) (inspect.Info, error) {
	s, g, names, err := zarrArrays(ctx, name)
	if err != nil {
		return nil, err
	}
	defer s.Close()
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
		if a.Inner != nil {
			za.Shards, za.Chunks = a.Chunks, a.Inner
		}
		for _, c := range a.Codecs {
			za.Codecs = append(za.Codecs, c.Name)
		}
		info.Arrays = append(info.Arrays, za)
	}
	return info, nil
}

// fillText shows a fill value as the metadata's JSON gives it.
func fillText(a *zarr.Array) string {
	b, err := json.Marshal(a.FillValue())
	if err != nil {
		return fmt.Sprint(a.FillValue())
	}
	return string(b)
}
