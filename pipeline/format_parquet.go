package pipeline

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
	"github.com/npyflow/npyflow/pipeline/format"
	"github.com/npyflow/npyflow/pipeline/inspect"
	"github.com/npyflow/npyflow/pipeline/internal/foreign"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The Parquet format, on parquetio: files npyflow wrote read back with
// their numpy dtype and shape; files other tools wrote through the one
// Arrow-to-numpy mapping (options in package foreign). The sink writes a
// file per part or for all; with partition_by or dataset: true a Hive
// dataset (partition.go).

var parquetFormat = &Format{
	Name: "parquet", Exts: []string{".parquet"}, Aliases: []string{".pq"}, Summary: "Apache Parquet",
	Magic: []Magic{{Prefix: "PAR1"}},
	Caps:  format.Caps{Table: true},
	Source: fileSourceSpec("read Parquet files",
		"Reads Parquet files: files written by npyflow come back with their exact numpy dtype and shape; others become records (strings as fixed-width U/S columns sized by the longest value; decimals, INT96, TIME, INTERVAL and nulls as `npyflow inspect` shows).",
		func(*job.Component) (fileReader, error) { return &parquetReader{}, nil },
		parquetSourceOpts{}),
	Sink: &job.Spec{Kind: job.Sink, Summary: "write Parquet files or datasets",
		Doc:     "Writes Parquet with numpy's types mapped as arrowconv does (records become columns, subarrays lists, datetime64 timestamps), with the numpy dtype kept in the footer so the file reads back exactly. Row groups are encoded in parallel. With partition_by or dataset: true, path is a dataset directory that Spark, Trino and DuckDB read (hive_partitioning), published atomically when the run commits.",
		Options: parquetSinkOpts{}, Impl: builder(buildParquetOutput)},
	Inspect: func(_ context.Context, f storage.File, name string, src *job.Component) (inspect.Info, error) {
		return inspect.Parquet(f, f.Size(), name, foreignOf(src))
	},
}

// parquetReader reads Parquet files: each is one part. What a file's
// reader reads otherwise than the file says (parquetio.Reader.Warnings:
// an unknown logical type read as its physical type) is a warning of the
// plan, once per file.
type parquetReader struct {
	warned sync.Map // paths whose warnings were given
}

// warn gives the warnings of the reader r of the file at path, once.
func (pr *parquetReader) warn(s *fileSource, path string, r *parquetio.Reader) {
	w := r.Warnings()
	if len(w) == 0 || s.warn == nil {
		return
	}
	if _, done := pr.warned.LoadOrStore(path, true); done {
		return
	}
	for _, msg := range w {
		s.warn(fmt.Sprintf("%s: %s", storage.Redact(path), msg))
	}
}

// openParquet opens the Parquet file at path, mapped with the options fo;
// closing the file is the caller's.
func openParquet(ctx context.Context, path string, fo *foreign.Options) (*parquetio.Reader, storage.File, error) {
	f, err := storage.Open(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	r, err := parquetio.NewReaderOptions(f, f.Size(), fo.Parquet())
	if err != nil {
		f.Close()
		return nil, nil, &FileError{Path: path, Err: err}
	}
	return r, f, nil
}

func (pr *parquetReader) parts(ctx context.Context, s *fileSource, path string) ([]partHead, error) {
	r, f, err := openParquet(ctx, path, s.foreign())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pr.warn(s, path, r)
	ph := partHead{header: r.Header()}
	if r.IsArray() && ph.header.DType.Kind != npyio.Struct {
		ph.array = r.Columns()[0].Name
	}
	return []partHead{ph}, nil
}

func (*parquetReader) headerWith(ctx context.Context, path string, fo *foreign.Options) (*npyio.Header, error) {
	r, f, err := openParquet(ctx, path, fo)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return r.Header(), nil
}

// columnNames returns the top-level column names of a Parquet file.
func (*parquetReader) columnNames(ctx context.Context, path string) ([]string, error) {
	f, err := storage.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := parquetio.ColumnNames(f, f.Size())
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	return names, nil
}

func (pr *parquetReader) open(ctx context.Context, s *fileSource, p *Part) (rowReader, *npyio.Header, io.Closer, error) {
	r, f, err := openParquet(ctx, p.Path, s.foreign())
	if err != nil {
		return nil, nil, nil, err
	}
	pr.warn(s, p.Path, r) // a projected or frozen plan lists no parts
	h := s.wrapProjected(r.Header())
	return &parquetRows{r: r, rowSize: int(rowsSchema(h).RowSize())}, h, f, nil
}

// parquetRows adapts a parquetio.Reader to ReadRows.
type parquetRows struct {
	r       *parquetio.Reader
	rowSize int
}

func (p *parquetRows) ReadRows(dst []byte) (int, error) {
	if p.rowSize == 0 {
		// Rows of no bytes (a column of lists that are all empty: numpy
		// shape (rows, 0)): counted, in steps, as npyio's reader does.
		b, err := p.r.Next(1 << 16)
		if err != nil {
			return 0, err
		}
		return b.Rows, nil
	}
	n := len(dst) / p.rowSize
	if n == 0 {
		return 0, io.ErrShortBuffer
	}
	b, err := p.r.Next(n)
	if err != nil {
		return 0, err
	}
	copy(dst, b.Data)
	return b.Rows, nil
}

// parquetSink is a parquet sink writing files (not a dataset).
type parquetSink struct {
	*fileSink
	column *template
	opts   *parquetio.Options
}

func buildParquetSink(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	fs, col, err := newTableSink(c, in, env, "Parquet", job.Options[parquetSinkOpts](c).Column, func(h *npyio.Header, col string) error {
		_, err := parquetio.NewArraySchema(h, col)
		return err
	})
	if err != nil {
		return nil, err
	}
	if in.RowSize() == 0 {
		return nil, c.Errorf("input", "rows of zero bytes cannot be written to Parquet")
	}
	s := &parquetSink{fileSink: fs, column: col, opts: parquetOptions(c, env)}
	fs.open = func(f *sinkFile, p *Part) (batchWriter, error) {
		h, name := s.header(p), s.column.name(p)
		opts := in.parquetMeta(s.opts, name)
		var cols []parquetio.Column
		var sc *parquetio.Schema
		var err error
		if s.stored && s.onePerFile() && p != nil && s.from.asColumns(p) {
			// An archive's members read as one table: a table of
			// them, as a copy writes it (parquetio.WriteTable).
			cols = tableColumns(h.DType)
			sc, err = parquetio.NewSchema(cols)
		} else {
			sc, err = parquetio.NewArraySchema(h, name)
		}
		if err != nil {
			return nil, err
		}
		if sc.HasTime() {
			return s.spoolTimes(f, h, cols, name, opts)
		}
		w, err := parquetio.NewWriter(f, sc, opts)
		if err != nil {
			return nil, err
		}
		return &parquetWriter{w: w, dt: in.DType, cols: cols}, nil
	}
	return s, nil
}

// tableColumns are the columns of a table of records of dt: one per
// field.
func tableColumns(dt *npyio.DType) []parquetio.Column {
	cols := make([]parquetio.Column, len(dt.Fields))
	for i, f := range dt.Fields {
		cols[i] = parquetio.Column{Name: f.Name, DType: f.Type, Shape: f.Shape}
	}
	return cols
}

// splitColumns returns the bytes of each column (cols, the fields of dt)
// of n records of dt held in data, packed, in bufs (grown as needed).
func splitColumns(dt *npyio.DType, cols []parquetio.Column, data []byte, n int, bufs [][]byte) [][]byte {
	if len(bufs) < len(cols) {
		bufs = make([][]byte, len(cols))
	}
	for i, c := range cols {
		size, off := c.RowSize(), dt.Fields[i].Offset
		b := slices.Grow(bufs[i][:0], n*size)[:n*size]
		for r := range n {
			copy(b[r*size:(r+1)*size], data[r*dt.Size+off:])
		}
		bufs[i] = b
	}
	return bufs
}

// header is the header (zero rows) the file whose first part is p
// records, as a copy of p records it (copyPart, from the reader of p)
// when the rows are p's own: its dtype as stored, 0-d, fortran_order.
func (s *parquetSink) header(p *Part) *npyio.Header {
	own := s.stored && s.onePerFile() && p != nil
	h := &npyio.Header{DType: storedDType(s.schema, p, own), Shape: append([]int{0}, s.schema.Shape...)}
	if own && s.zeroD && p.zeroD && len(s.schema.Shape) == 0 {
		h.Shape = []int{}
	}
	h.FortranOrder = own && p.fortran
	return h
}

// spoolTimes returns the writer of the file f of rows of header h (zero
// rows) with time columns, a table of columns cols (nil: an array named
// name). How a time column is stored (TIMESTAMP, DATE or plain INT64;
// REQUIRED or OPTIONAL) depends on every value it holds (see
// parquetio.Schema), so the rows pushed are spooled to scratch .npy
// files (one per column of a table) and written at Close by
// parquetio.WriteArrayAs or WriteTable, from all of them: the file a copy
// of the same rows writes (copyPart), whether they came through
// transforms or not.
func (s *parquetSink) spoolTimes(f *sinkFile, h *npyio.Header, cols []parquetio.Column, name string, opts *parquetio.Options) (batchWriter, error) {
	w := &parquetSpool{out: f, h: h, cols: cols, dt: s.schema.DType, name: name, opts: opts}
	spools := []parquetio.Column{{DType: h.DType, Shape: s.schema.Shape}}
	if cols != nil {
		spools = cols
	}
	for _, c := range spools {
		scratch, err := s.env.out.scratchNear(s.curP)
		if err != nil {
			return nil, err
		}
		sw, err := npyio.NewStreamWriter(scratch, c.DType, c.Shape)
		if err != nil {
			return nil, err
		}
		w.scratch, w.ws = append(w.scratch, scratch), append(w.ws, sw)
	}
	return w, nil
}

// parquetSpool is the writer of a Parquet file with time columns from
// rows (see parquetSink.spoolTimes).
type parquetSpool struct {
	out     io.Writer
	h       *npyio.Header      // what the file records (parquetSink.header)
	cols    []parquetio.Column // a table's columns; nil for an array
	dt      *npyio.DType       // the rows' dtype
	name    string
	opts    *parquetio.Options
	scratch []*os.File // one per column; removed at the end of the run (outputs)
	ws      []*npyio.Writer
	bufs    [][]byte
}

func (w *parquetSpool) Write(b Batch) error {
	if w.cols == nil {
		_, err := w.ws[0].Write(b.Data)
		return err
	}
	w.bufs = splitColumns(w.dt, w.cols, b.Data, b.Rows, w.bufs)
	for i, sw := range w.ws {
		if _, err := sw.Write(w.bufs[i]); err != nil {
			return err
		}
	}
	return nil
}

func (w *parquetSpool) Close() error {
	for _, sw := range w.ws {
		if err := sw.Close(); err != nil {
			return err
		}
	}
	rds := make([]*bufio.Reader, len(w.scratch))
	open := func() ([]*npyio.Reader, error) {
		rs := make([]*npyio.Reader, len(w.scratch))
		for i, f := range w.scratch {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return nil, err
			}
			if rds[i] == nil {
				rds[i] = bufio.NewReaderSize(f, 1<<20)
			} else {
				rds[i].Reset(f)
			}
			r, err := npyio.NewReader(rds[i], nil)
			if err != nil {
				return nil, err
			}
			rs[i] = r
		}
		return rs, nil
	}
	var err error
	if w.cols != nil {
		_, err = parquetio.WriteTable(w.out, w.cols, open, w.opts, nil)
	} else {
		h := *w.h
		h.Shape = slices.Clone(h.Shape)
		if len(h.Shape) > 0 {
			h.Shape[0] = w.ws[0].Header().Shape[0]
		}
		_, err = parquetio.WriteArrayAs(w.out, &h, open, w.name, w.opts, nil)
	}
	return err
}

// takesStored: Parquet records no Fortran order of its data.
func (s *parquetSink) takesStored() bool { return false }

// copies: every part of a source feeding the sink directly, alone in its
// file, is written in one pass from its arrays (see copy.go).
func (s *parquetSink) copies(src source, p *Part) bool {
	_, ok := src.(*fileSource)
	return ok && s.direct && s.onePerFile()
}

func (s *parquetSink) copyPart(ctx context.Context, src source, p *Part, progress func(int64)) (bool, int64, error) {
	cols, open, done, err := src.(*fileSource).arrays(ctx, p)
	if err != nil {
		return false, 0, err
	}
	defer done()
	var n int64
	opts := src.Schema().parquetMeta(s.opts, s.column.name(p))
	if cols == nil {
		n, err = parquetio.WriteArray(s.curF, open, s.column.name(p), opts, progress)
	} else {
		n, err = parquetio.WriteTable(s.curF, cols, open, opts, progress)
	}
	if err != nil {
		return false, 0, copyError(err, p, s.curP)
	}
	s.copiedRows(n)
	return true, n, nil
}

// parquetOptions are the writer options of a parquet sink.
func parquetOptions(c *job.Component, env *buildEnv) *parquetio.Options {
	o := job.Options[parquetSinkOpts](c)
	return &parquetio.Options{
		Compression:   o.Compression,
		RowGroupRows:  int(o.RowGroupRows),
		PageSize:      int(o.PageSize),
		TimestampUnit: o.TimestampUnit,
		Dictionary:    o.Dictionary,
		BloomFilters:  o.BloomFilters,
		Concurrency:   int(o.Concurrency),
		Threads:       env.libThreads("parquet writer"),
	}
}

// parquetWriter writes rows to a Parquet file: an array's, or records
// of dt as a table of its fields (cols).
type parquetWriter struct {
	w    *parquetio.Writer
	dt   *npyio.DType
	cols []parquetio.Column
	bufs [][]byte
}

func (w *parquetWriter) Write(b Batch) error {
	if w.cols != nil {
		w.bufs = splitColumns(w.dt, w.cols, b.Data, b.Rows, w.bufs)
		return w.w.WriteColumns(w.bufs, b.Rows)
	}
	_, err := w.w.Write(b.Data)
	return err
}

func (w *parquetWriter) Close() error { return w.w.Close() }
