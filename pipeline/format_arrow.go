package pipeline

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/format"
	"github.com/npyflow/npyflow/pipeline/inspect"
	"github.com/npyflow/npyflow/pipeline/internal/foreign"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The Arrow IPC format (files, .arrow and .feather v2, and streams,
// .arrows), on arrowconv: planning reads only the schema and the row
// counts in the IPC metadata; the source streams record batches through
// the one Arrow-to-numpy mapping straight into the batch buffers. A file
// of one column stored as the .npy data is copied to .npy by the kernel
// (npyCopier). The sink writes record batches of batch_rows rows.

var arrowFormat = &Format{
	Name: "arrow", Exts: []string{".arrow", ".arrows", ".feather"}, Aliases: []string{".ipc"},
	Summary: "Arrow IPC file (Feather v2) or stream (.arrows)",
	Magic:   []Magic{{Prefix: "ARROW1"}, {Prefix: "\xff\xff\xff\xff", Ext: ".arrows"}},
	Caps:    format.Caps{Table: true},
	Source: fileSourceSpec("read Arrow IPC files or streams",
		"Reads Arrow IPC files (.arrow, .feather v2) or streams: files npyflow wrote come back with their exact numpy dtype and shape; others become records (one field per column). Planning reads only the schema and row counts from the IPC metadata (and string lengths, by a pass over the data, when no width is known).",
		func(*job.Component) (fileReader, error) { return &arrowReader{copyable: map[string]bool{}}, nil },
		arrowSourceOpts{}),
	Sink: &job.Spec{Kind: job.Sink, Summary: "write Arrow IPC files or streams",
		Doc:     "Writes Arrow IPC with numpy's types mapped by arrowconv (records become struct columns, subarrays fixed-size lists or fixed_shape_tensor, numpy dtypes kept in field metadata).",
		Options: arrowSinkOpts{}, Impl: builder(buildArrowSink)},
	Inspect: func(_ context.Context, f storage.File, name string, src *job.Component) (inspect.Info, error) {
		return inspect.Arrow(f, f.Size(), name, foreignOf(src))
	},
}

// arrowReader reads Arrow IPC files and streams: each is one part.
type arrowReader struct {
	// copyable are the files that look like one column stored as the
	// .npy data (see copiesNPY), from what planning read.
	copyable map[string]bool
}

// header returns the .npy header the rows of an IPC file or stream would
// have, mapped with the options fo: from its metadata, plus a pass over
// the data when string widths are not known; and the IPC metadata.
func (r *arrowReader) header(ctx context.Context, path string, fo *foreign.Options) (*npyio.Header, *arrowconv.IPCInfo, error) {
	f, info, err := openIPC(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	// Options naming a column of the file that is not read are left out
	// (as a Parquet reader leaves them).
	err = fo.CheckArrowNames(info.Schema)
	schema, proj, perr := fo.Project(info.Schema)
	if err == nil {
		err = perr
	}
	if err != nil {
		return nil, nil, &FileError{Path: path, Err: err}
	}
	m, err := fo.ArrowMapping(schema, reread(ctx, path, schema, proj, fo.Threads))
	if err != nil {
		return nil, nil, &FileError{Path: path, Err: err}
	}
	h, err := m.Header(info.Rows)
	if err != nil {
		return nil, nil, &FileError{Path: path, Err: err}
	}
	if len(h.Shape) == 0 && info.Rows != 1 {
		return nil, nil, &FileError{Path: path, Err: fmt.Errorf("the schema describes a 0-d array, which needs exactly one row, not %d", info.Rows)}
	}
	return h, info, nil
}

func (r *arrowReader) parts(ctx context.Context, s *fileSource, path string) ([]partHead, error) {
	fo := s.foreign()
	h, info, err := r.header(ctx, path, fo)
	if err != nil {
		return nil, err
	}
	ph := partHead{header: h}
	if info.Schema.NumFields() == 1 && h.DType.Kind != npyio.Struct {
		ph.array = info.Schema.Field(0).Name
		nulls := false
		for _, n := range info.NullCounts {
			nulls = nulls || n != 0
		}
		plainOpts := len(fo.Columns) == 0 && len(fo.Fill) == 0 && len(fo.Validity) == 0 && !fo.Scaled
		switch h.DType.Kind {
		case npyio.Int, npyio.Uint, npyio.Float, npyio.Datetime, npyio.Timedelta:
			r.copyable[path] = !nulls && plainOpts && info.Format == arrowconv.IPCFile
		}
	}
	return []partHead{ph}, nil
}

func (r *arrowReader) headerWith(ctx context.Context, path string, fo *foreign.Options) (*npyio.Header, error) {
	h, _, err := r.header(ctx, path, fo)
	return h, err
}

// openIPC opens the IPC file or stream at path and reads its metadata;
// closing the file is the caller's.
func openIPC(ctx context.Context, path string) (storage.File, *arrowconv.IPCInfo, error) {
	f, err := storage.Open(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	info, err := arrowconv.ReadIPCInfo(f, f.Size())
	if err != nil {
		f.Close()
		return nil, nil, &FileError{Path: path, Err: err}
	}
	return f, info, nil
}

// columnNames returns the top-level column names of an IPC file or
// stream, from its schema.
func (r *arrowReader) columnNames(ctx context.Context, path string) ([]string, error) {
	f, info, err := openIPC(ctx, path)
	if err != nil {
		return nil, err
	}
	f.Close()
	var names []string
	for _, fl := range info.Schema.Fields() {
		names = append(names, fl.Name)
	}
	return names, nil
}

func (r *arrowReader) open(ctx context.Context, s *fileSource, p *Part) (rowReader, *npyio.Header, io.Closer, error) {
	f, err := storage.Open(ctx, p.Path)
	if err != nil {
		return nil, nil, nil, err
	}
	fo := s.foreign()
	in, err := arrowconv.NewIPCReaderThreads(f, nil, fo.Threads)
	if err != nil {
		f.Close()
		return nil, nil, nil, &FileError{Path: p.Path, Err: err}
	}
	schema, proj, err := fo.Project(in.Schema())
	if err != nil {
		in.Release()
		f.Close()
		return nil, nil, nil, &FileError{Path: p.Path, Err: err}
	}
	rr := projectRecords(in, schema, proj)
	m, err := fo.ArrowMapping(schema, reread(ctx, p.Path, schema, proj, fo.Threads))
	closer := closeFunc(func() error {
		rr.Release()
		return f.Close()
	})
	if err != nil {
		closer.Close()
		return nil, nil, nil, &FileError{Path: p.Path, Err: err}
	}
	dt, _ := m.DType()
	h := s.wrapProjected(&npyio.Header{DType: dt, Shape: append([]int{0}, m.RowShape()...)})
	return &arrowRows{rr: rr, m: m, rowSize: int(rowsSchema(h).RowSize())}, h, closer, nil
}

func (r *arrowReader) copiesNPY(p *Part) bool { return r.copyable[p.Path] }

// copyNPY writes the IPC file of p to w as cp would, when both are
// local files and the file is one column stored as the .npy data
// (arrowconv.CopyIPCAsStored decides); ok false with nothing written
// otherwise.
func (r *arrowReader) copyNPY(ctx context.Context, s *fileSource, p *Part, w io.Writer) (bool, error) {
	f, info, err := openIPC(ctx, p.Path)
	if err != nil {
		return false, nil // the rows path reports it
	}
	defer f.Close()
	inf, ok := storage.OSFile(f)
	if !ok {
		return false, nil
	}
	_, _, ok, err = arrowconv.CopyIPCAsStored(w, inf, s.foreign().Arrow(info.Schema), memory.DefaultAllocator)
	if err != nil {
		err = &FileError{Path: p.Path, Err: err}
	}
	if ok {
		arrowCopies.Add(1)
	}
	return ok, err
}

// arrowCopies counts the Arrow -> .npy copies made as stored (a test
// hook).
var arrowCopies atomic.Int64

// reread returns a function reading the records of the file at path
// again, projected (for a mapping's pass over string widths), decoded
// on threads goroutines.
func reread(ctx context.Context, path string, schema *arrow.Schema, proj []int, threads int) func() (array.RecordReader, error) {
	return func() (array.RecordReader, error) {
		g, err := storage.Open(ctx, path)
		if err != nil {
			return nil, err
		}
		sr, err := arrowconv.NewIPCReaderThreads(g, nil, threads)
		if err != nil {
			g.Close()
			return nil, err
		}
		return closingReader{projectRecords(sr, schema, proj), g}, nil
	}
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

// The Arrow IPC sink: each batch becomes record batches of exactly
// batch_rows rows (the last one fewer), converted without copying where
// the layout allows and written before the batch's memory is reused;
// rows short of a record batch wait for the next batch (copied).

func buildArrowSink(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	o := job.Options[arrowSinkOpts](c)
	s, col, err := newTableSink(c, in, env, "Arrow", o.Column, func(h *npyio.Header, col string) error {
		_, err := arrowconv.Schema(h, col)
		return err
	})
	if err != nil {
		return nil, err
	}
	path := o.Path
	opts := arrowconv.IPCOptions{}
	if o.Format != nil && *o.Format == "stream" || o.Format == nil && arrowconv.DefaultIPCOptions(path).Format == arrowconv.IPCStream {
		opts.Format = arrowconv.IPCStream
	}
	switch o.Compression {
	case "zstd":
		opts.Compression = arrowconv.Zstd
	case "lz4":
		opts.Compression = arrowconv.LZ4
	case "":
		opts.Compression = arrowconv.DefaultIPCOptions(path).Compression
	}
	maxRows := int(o.BatchRows)
	as := &arrowSink{fileSink: s}
	s.open = func(f *sinkFile, p *Part) (batchWriter, error) {
		name := col.name(p)
		dt := storedDType(in, p, as.stored && as.onePerFile())
		h := &npyio.Header{DType: dt, Shape: append([]int{0}, in.Shape...)}
		switch {
		case as.zeroD && p != nil && p.zeroD && as.onePerFile() && len(in.Shape) == 0:
			h.Shape = []int{} // one 0-d input: a 0-d array, as numpy has it
		case as.known && !as.hasZeroD: // a 0-d input's shape is (), not its one row
			// The schema's metadata records the array's shape, as
			// numpy has it: the rows are known from the plan.
			h.Shape[0] = int(as.rowsOf(p))
		}
		schema, err := arrowconv.Schema(h, name)
		if err != nil {
			return nil, err
		}
		if schema, err = in.arrowSchemaMeta(schema); err != nil { // fieldmeta.go
			return nil, err
		}
		w, err := arrowconv.NewIPCWriter(f, schema, opts, memory.DefaultAllocator)
		if err != nil {
			return nil, err
		}
		return &arrowWriter{w: w, in: in, stored: dt, name: name, maxRows: maxRows, schema: schema}, nil
	}
	return as, nil
}

// arrowSink is the Arrow file sink; it records each output's row count
// in the schema's metadata when the plan knows it exactly.
type arrowSink struct{ *fileSink }

type arrowWriter struct {
	w       arrowconv.IPCWriter
	in      *Schema
	stored  *npyio.DType  // the dtype the schema records (byte order included)
	schema  *arrow.Schema // written: with the input's field metadata (fieldmeta.go)
	name    string
	maxRows int
	pend    []byte // rows short of a record batch
	mem     *recycler
}

// recycler allocates the record batches' buffers, reusing those of the
// batches written (a record is released once written).
type recycler struct{ free [][]byte }

func (r *recycler) Allocate(n int) []byte {
	for i, b := range r.free {
		if len(b) == n {
			r.free = append(r.free[:i], r.free[i+1:]...)
			return b
		}
	}
	return memory.DefaultAllocator.Allocate(n)
}

func (r *recycler) Reallocate(n int, b []byte) []byte {
	return memory.DefaultAllocator.Reallocate(n, b)
}

func (r *recycler) Free(b []byte) {
	if len(r.free) < 64 {
		r.free = append(r.free, b)
	}
}

func (w *arrowWriter) Write(b Batch) error {
	rs := int(w.in.RowSize())
	if rs == 0 {
		// Rows of no bytes: record batches by count alone.
		for start := 0; start < b.Rows; start += w.maxRows {
			if err := w.record(nil, min(w.maxRows, b.Rows-start)); err != nil {
				return err
			}
		}
		return nil
	}
	data, rows := b.Data, b.Rows
	if len(w.pend) > 0 {
		k := min(rows, w.maxRows-len(w.pend)/max(rs, 1))
		w.pend = append(w.pend, data[:k*rs]...)
		data, rows = data[k*rs:], rows-k
		if len(w.pend)/max(rs, 1) < w.maxRows {
			return nil
		}
		if err := w.record(w.pend, w.maxRows); err != nil {
			return err
		}
		w.pend = w.pend[:0]
	}
	for rows >= w.maxRows {
		if err := w.record(data[:w.maxRows*rs], w.maxRows); err != nil {
			return err
		}
		data, rows = data[w.maxRows*rs:], rows-w.maxRows
	}
	if rows > 0 {
		w.pend = append(w.pend, data[:rows*rs]...)
	}
	return nil
}

// record writes n rows as one record batch.
func (w *arrowWriter) record(data []byte, n int) error {
	a := &npyio.Array{
		Header: &npyio.Header{DType: w.stored, Shape: append([]int{n}, w.in.Shape...)},
		DType:  w.in.DType,
		Data:   data,
	}
	if w.mem == nil {
		w.mem = &recycler{}
	}
	rec, err := arrowconv.NewRecordBatch(a, w.name, w.mem)
	if err != nil {
		return err
	}
	if rec, err = w.in.arrowRecordMeta(rec, w.schema, w.mem); err != nil {
		return err
	}
	err = w.w.Write(rec)
	rec.Release()
	return err
}

func (w *arrowWriter) Close() error {
	if rs := int(w.in.RowSize()); len(w.pend) > 0 && rs > 0 {
		if err := w.record(w.pend, len(w.pend)/rs); err != nil {
			return err
		}
	}
	return w.w.Close()
}
