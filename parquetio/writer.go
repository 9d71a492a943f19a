package parquetio

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/npyflow/npyflow/internal/buildinfo"
	"github.com/npyflow/npyflow/internal/hugepage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
)

// Options configure a [Writer]. The zero value (or nil) means the defaults.
type Options struct {
	// Compression is the codec of every column: "zstd" (the default),
	// "snappy", "gzip", "lz4" (LZ4_RAW) or "none".
	Compression string
	// RowGroupRows is the number of rows per row group. 0 means 1Mi rows,
	// fewer if that would exceed 128 MiB of numpy data.
	RowGroupRows int
	// PageSize is the target size of a data page in bytes; 0 means 1 MiB.
	PageSize int
	// TimestampUnit converts datetime64 columns stored as TIMESTAMP to
	// "ms", "us" (what Spark reads) or "ns"; "" keeps numpy's unit (s, m
	// and h become ms). Converting to a coarser unit rounds down.
	TimestampUnit string
	// Dictionary lists columns to dictionary-encode, by name or dotted
	// Parquet path ("s", "pts.list.element.x"); a name covers its children.
	// Boolean columns stay plain (arrow-go cannot read them dictionary-
	// encoded).
	Dictionary []string
	// UTC lists datetime64 columns, named like Dictionary, that hold UTC
	// instants: stored as TIMESTAMP they are isAdjustedToUTC=true (the
	// others false, wall-clock times).
	UTC []string
	// BloomFilters lists columns to write bloom filters for (10 bits per
	// value), named like Dictionary.
	BloomFilters []string
	// Nulls maps a top-level column (or a structured array's top-level
	// field) to the top-level bool column that is its validity: the
	// column is OPTIONAL and null in the rows where that column is false
	// (a list or struct column is null as a whole). Validity columns are
	// not written themselves. A file written with Nulls describes no
	// numpy layout in its footer ([MetaTable], numpy.descr): it reads back
	// as any Parquet file with nulls (ReadOptions.Validity or Fill).
	Nulls map[string]string
	// Concurrency is the number of row groups encoded at once while the
	// next one fills. 0 means as many as keep Threads goroutines busy with
	// one column each (Threads divided by the columns, rounded up), at
	// most 4 and at most 256 MiB of numpy rows: 1 wherever a table has at
	// least as many columns as there are threads. More row groups at once cost one more row group of memory
	// each. Row groups are committed to the file in order, so the file is
	// the same for every Concurrency and Threads.
	Concurrency int
	// Threads caps the goroutines encoding and compressing column chunks
	// at once, over every row group being encoded: 0 means GOMAXPROCS.
	Threads int
	// Metadata is extra key-value metadata for the file footer.
	Metadata map[string]string
}

// Default sizes.
const (
	DefaultRowGroupRows  = 1 << 20
	MaxRowGroupBytes     = 128 << 20
	DefaultPageSize      = 1 << 20
	valuesPerWrite       = 4096
	metaDescr            = "numpy:descr"
	metaShape            = "numpy:shape"
	metaFortran          = "numpy:fortran_order"
	metaColumns          = "npyflow:columns"
	metaTimeUnits        = "npyflow:time_units"
	arrowSchemaKey       = "ARROW:schema"
	defaultBloomBitsPerV = 10
)

func (o *Options) codec() (compress.Codec, error) {
	name := ""
	page := DefaultPageSize
	if o != nil {
		name = strings.ToLower(o.Compression)
		if o.PageSize > 0 {
			page = o.PageSize
		}
	}
	switch name {
	case "", "zstd":
		return zstdFor(page), nil
	case "snappy":
		return &parquet.Snappy, nil
	case "gzip":
		return &parquet.Gzip, nil
	case "lz4", "lz4_raw":
		return &parquet.Lz4Raw, nil
	case "none", "uncompressed":
		return &parquet.Uncompressed, nil
	}
	return nil, fmt.Errorf("parquetio: Options.Compression %q: want zstd, snappy, gzip, lz4 or none", o.Compression)
}

func matchColumn(list []string, path string) bool {
	for _, n := range list {
		if n == path || strings.HasPrefix(path, n+".") {
			return true
		}
	}
	return false
}

func (o *Options) hasDict(path string) bool { return o != nil && matchColumn(o.Dictionary, path) }

func (o *Options) isUTC(path string) bool { return o != nil && matchColumn(o.UTC, path) }

// Writer writes a table of numpy columns to a Parquet file, streaming:
// rows are buffered until a row group is full, then the row group is
// encoded (its columns in parallel) while the next one fills, and row
// groups are committed to the output in order. Memory is bounded by
// Concurrency+1 row groups of numpy data (2 by default) plus their
// encoded pages; the row-group buffers grow as rows arrive, so a file
// of few rows costs memory for those rows only.
//
// Errors are sticky. Close writes the footer; it does not close the
// underlying io.Writer. A Writer is not safe for concurrent use.
type Writer struct {
	s       *Schema
	pw      *parquet.GenericWriter[any]
	groupN  int
	conc    int
	cur     *slot
	free    []*slot
	nslots  int
	pending []*job
	rows    int64
	err     error
	closed  bool
	tsUnit  string
	onGroup func(rows int64)
	extra   map[string]string
	threads int
	sem     chan struct{} // a token per column being encoded (threads)

	out   io.Writer
	opts  Options
	codec compress.Codec
	spec  bool     // see newWriter
	obs   [][]byte // scratch of arrived
}

type slot struct {
	rg    *parquet.ConcurrentRowGroupWriter
	bufs  [][]byte // numpy rows per source; grown as rows arrive
	cap   int      // rows bufs hold
	rows  int
	start int64
	work  []encoder
}

// encoder is the scratch of one goroutine encoding columns.
type encoder struct {
	vals  []parquet.Value
	arena []byte
}

type job struct {
	s    *slot
	done chan error
}

// NewWriter starts a Parquet file on w for the table s. Call s.Observe on
// all the data first for the best time-column layout (see [Schema]).
// meta is added to the footer's key-value metadata.
func NewWriter(w io.Writer, s *Schema, opts *Options) (*Writer, error) {
	return newWriter(w, s, opts, false)
}

// newWriter is NewWriter; with spec, the time columns are planned from
// the first row group instead, each later row group is observed before it
// is encoded, and the write fails with errReplan if one of them would
// change the plan (see write).
func newWriter(out io.Writer, s *Schema, opts *Options, spec bool) (*Writer, error) {
	if s.planned {
		return nil, errors.New("parquetio: schema already used by a writer")
	}
	codec, err := opts.codec()
	if err != nil {
		return nil, err
	}
	o := Options{}
	if opts != nil {
		o = *opts
	}
	switch o.TimestampUnit {
	case "", "ms", "us", "ns":
	default:
		return nil, fmt.Errorf("parquetio: Options.TimestampUnit %q: want ms, us or ns", o.TimestampUnit)
	}
	if o.RowGroupRows < 0 || o.PageSize < 0 || o.Concurrency < 0 || o.Threads < 0 {
		return nil, errors.New("parquetio: Options.RowGroupRows, PageSize, Concurrency and Threads must not be negative")
	}
	for _, list := range [][]string{o.Dictionary, o.BloomFilters} {
		for _, name := range list {
			if !s.hasColumn(name) {
				return nil, fmt.Errorf("parquetio: no column %q (columns: %s)", name, strings.Join(s.ColumnPaths(), ", "))
			}
		}
	}
	if err := s.applyNulls(o.Nulls); err != nil {
		return nil, err
	}
	rowBytes := 0
	for _, n := range s.srcs {
		rowBytes += n
	}
	g := o.RowGroupRows
	if g == 0 {
		g = DefaultRowGroupRows
		if rowBytes > 0 && g*rowBytes > MaxRowGroupBytes {
			g = max(1, MaxRowGroupBytes/rowBytes)
		}
	}
	threads := o.Threads
	if threads == 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	conc := o.Concurrency
	if conc == 0 {
		conc = min(maxAutoConcurrency, (threads+len(s.leaves)-1)/max(len(s.leaves), 1))
		if rowBytes > 0 {
			conc = min(conc, autoConcurrencyBytes/(g*rowBytes))
		}
		conc = max(conc, 1)
	}
	s.planned = true
	w := &Writer{s: s, groupN: g, conc: conc, tsUnit: o.TimestampUnit, extra: o.Metadata, out: out, opts: o, codec: codec, spec: spec,
		threads: threads, sem: make(chan struct{}, threads)}
	if !spec {
		if err := w.start(); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// start plans the time columns from what s has observed and starts the
// parquet-go writer.
func (w *Writer) start() error {
	s, o := w.s, &w.opts
	if err := s.plan(o.TimestampUnit); err != nil {
		return err
	}
	for _, l := range s.leaves {
		l.conv = s.converter(l)
	}
	page := o.PageSize
	if page == 0 {
		page = DefaultPageSize
	}
	pq := s.parquetSchema(o)
	wopts := []parquet.WriterOption{
		pq,
		parquet.Compression(w.codec),
		parquet.PageBufferSize(page),
		parquet.WriteBufferSize(1 << 20),
		parquet.ColumnPageBuffers(&pagePool{}),
	}
	for _, l := range s.leaves {
		if l.dt.Kind == npyio.Float && l.dt.Size == 2 {
			// Bounds computed bytewise are wrong for FLOAT16.
			wopts = append(wopts, parquet.SkipPageBounds(l.path...))
		}
		if matchColumn(o.BloomFilters, strings.Join(l.path, ".")) {
			wopts = append(wopts, parquet.BloomFilters(parquet.SplitBlockFilter(defaultBloomBitsPerV, l.path...)))
		}
	}
	if _, err := s.metaFor(0); err != nil {
		return err
	}
	cfg, err := parquet.NewWriterConfig(wopts...)
	if err != nil {
		return fmt.Errorf("parquetio: %w", err)
	}
	// Set directly: parquet.CreatedBy leaves out the space before
	// "(build", which Arrow's and parquet-mr's parsers expect.
	cfg.CreatedBy = buildinfo.CreatedBy()
	w.pw = parquet.NewGenericWriter[any](w.out, cfg)
	return nil
}

// Rows returns the number of rows written so far.
func (w *Writer) Rows() int64 { return w.rows }

// RowGroupRows returns the number of rows per row group.
func (w *Writer) RowGroupRows() int { return w.groupN }

// OnRowGroup sets a function called (on the writer's goroutine) after each
// row group is committed with the total rows committed so far.
func (w *Writer) OnRowGroup(f func(rows int64)) { w.onGroup = f }

// WriteColumns writes rows rows given as one byte slice per data source
// (rows*RowSize bytes each, native byte order, C order, as npyio's Reader
// delivers them). The bytes are copied; the caller may reuse them.
func (w *Writer) WriteColumns(cols [][]byte, rows int) error {
	if err := w.check(); err != nil {
		return err
	}
	if len(cols) != len(w.s.srcs) {
		w.err = fmt.Errorf("parquetio: %d column sources given, the schema has %d", len(cols), len(w.s.srcs))
		return w.err
	}
	for i, c := range cols {
		if len(c) < rows*w.s.srcs[i] {
			w.err = fmt.Errorf("parquetio: source %d has %d bytes, %d rows need %d", i, len(c), rows, rows*w.s.srcs[i])
			return w.err
		}
	}
	done := 0
	for done < rows {
		sl, err := w.slot()
		if err != nil {
			return err
		}
		n := min(rows-done, w.groupN-sl.rows)
		w.grow(sl, sl.rows+n)
		for i, c := range cols {
			rs := w.s.srcs[i]
			copy(sl.bufs[i][sl.rows*rs:(sl.rows+n)*rs], c[done*rs:(done+n)*rs])
		}
		w.arrived(sl, n)
		sl.rows += n
		done += n
		if sl.rows == w.groupN {
			if err := w.dispatch(); err != nil {
				return err
			}
		}
	}
	return nil
}

// Write writes whole rows of a single-source table (a table from
// [NewArraySchema]); len(p) must be a multiple of the row size.
func (w *Writer) Write(p []byte) (int, error) {
	if len(w.s.srcs) != 1 {
		return 0, errors.New("parquetio: Write needs a single-source schema; use WriteColumns")
	}
	rs := w.s.srcs[0]
	if rs == 0 {
		return 0, errors.New("parquetio: rows of zero size: use WriteColumns with a row count")
	}
	if len(p)%rs != 0 {
		return 0, fmt.Errorf("parquetio: %d bytes is not a whole number of %d-byte rows", len(p), rs)
	}
	if err := w.WriteColumns([][]byte{p}, len(p)/rs); err != nil {
		return 0, err
	}
	return len(p), nil
}

// ReadFrom writes every remaining row of r, reading them straight into
// the row-group buffers (no intermediate copy). The schema must be the
// single-source schema of r's array.
func (w *Writer) ReadFrom(r *npyio.Reader) (int64, error) {
	if len(w.s.srcs) != 1 || int64(w.s.srcs[0]) != r.RowSize() {
		return 0, errors.New("parquetio: ReadFrom needs the array schema of the reader")
	}
	rs := w.s.srcs[0]
	var total int64
	for r.Remaining() > 0 {
		if err := w.check(); err != nil {
			return total, err
		}
		sl, err := w.slot()
		if err != nil {
			return total, err
		}
		var n int
		if rs == 0 {
			n = int(min(r.Remaining(), int64(w.groupN-sl.rows)))
			if _, err := r.Next(n); err != nil {
				w.err = err
				return total, err
			}
		} else {
			// The rows left are known: size the row group for them
			// (a few rows cost little, a large file no regrowth).
			w.grow(sl, int(min(int64(w.groupN), int64(sl.rows)+r.Remaining())))
			// A few hundred KiB at a time: npyio's fixes (byte
			// swaps, bools) then run on bytes still in cache.
			end := min(sl.cap, sl.rows+max(1, readChunk/rs))
			n, err = r.ReadRows(sl.bufs[0][sl.rows*rs : end*rs])
			if err != nil {
				w.err = err
				return total, err
			}
			w.arrived(sl, n)
		}
		sl.rows += n
		total += int64(n)
		if sl.rows == w.groupN {
			if err := w.dispatch(); err != nil {
				return total, err
			}
		}
	}
	return total, nil
}

func (w *Writer) check() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("parquetio: writer closed")
	}
	return nil
}

// slot returns the row group being filled, waiting for a free one.
func (w *Writer) slot() (*slot, error) {
	if w.cur != nil {
		return w.cur, nil
	}
	for len(w.free) == 0 && w.nslots >= w.conc+1 {
		if err := w.commitOldest(); err != nil {
			return nil, err
		}
	}
	var sl *slot
	if n := len(w.free); n > 0 {
		sl, w.free = w.free[n-1], w.free[:n-1]
	} else {
		sl = &slot{}
		sl.bufs = make([][]byte, len(w.s.srcs))
		w.grow(sl, 1)
		w.nslots++
	}
	sl.rows = 0
	sl.start = w.rows
	w.cur = sl
	return sl, nil
}

// readChunk is the most bytes ReadFrom reads at once.
const readChunk = 512 << 10

// firstBytes is the size a row-group buffer starts at; it doubles as rows
// arrive, up to the row group.
const firstBytes = 64 << 10

// grow makes sl's buffers hold at least rows rows (at most a row group).
func (w *Writer) grow(sl *slot, rows int) {
	if rows <= sl.cap {
		return
	}
	rowBytes := 0
	for _, rs := range w.s.srcs {
		rowBytes += rs
	}
	c := max(rows, 2*sl.cap)
	if rowBytes > 0 {
		c = max(c, firstBytes/rowBytes)
	}
	c = min(c, w.groupN)
	for i, rs := range w.s.srcs {
		nb := alignedBytes(c * rs)
		hugepage.Advise(nb) // a row group's buffer: fewer first-touch faults
		copy(nb, sl.bufs[i][:sl.rows*rs])
		sl.bufs[i] = nb
	}
	sl.cap = c
}

// dispatch hands the current row group to an encoder goroutine.
func (w *Writer) dispatch() error {
	sl := w.cur
	w.cur = nil
	if sl == nil || sl.rows == 0 {
		if sl != nil {
			w.free = append(w.free, sl)
		}
		return nil
	}
	if w.spec {
		if err := w.observe(sl); err != nil {
			w.free = append(w.free, sl)
			w.err = err
			return err
		}
	}
	if sl.rg == nil {
		sl.rg = w.pw.BeginRowGroup()
	}
	w.rows += int64(sl.rows)
	j := &job{s: sl, done: make(chan error, 1)}
	w.pending = append(w.pending, j)
	go func() { j.done <- w.s.encode(sl, w.threads, w.sem) }()
	for len(w.pending) > w.conc {
		if err := w.commitOldest(); err != nil {
			return err
		}
	}
	return nil
}

// errReplan is the error of a speculative writer (see newWriter) whose
// row group holds what the first did not show: a NaT, or a time value
// out of the planned type's range.
var errReplan = errors.New("parquetio: the time columns need another layout")

// arrived observes the n rows just put in sl after its sl.rows rows,
// while they are in cache, when the time columns are planned from the
// first row group (see newWriter).
func (w *Writer) arrived(sl *slot, n int) {
	if !w.spec || n == 0 {
		return
	}
	if w.obs == nil {
		w.obs = make([][]byte, len(sl.bufs))
	}
	for i, b := range sl.bufs {
		w.obs[i] = b[sl.rows*w.s.srcs[i]:]
	}
	w.s.Observe(w.obs, n)
}

// observe checks the row group of sl, observed as it arrived, before it
// is encoded, when the time columns are planned from the first row group:
// the first plans them and starts the file, a later one fails with
// errReplan if the plan made from every row group so far differs.
func (w *Writer) observe(sl *slot) error {
	if w.pw == nil {
		return w.start()
	}
	if w.s.planChanged() {
		return errReplan
	}
	return nil
}

func (w *Writer) commitOldest() error {
	if len(w.pending) == 0 {
		return nil
	}
	j := w.pending[0]
	w.pending = w.pending[1:]
	err := <-j.done
	if err == nil {
		_, err = j.s.rg.Commit()
		if err != nil {
			err = fmt.Errorf("parquetio: writing row group: %w", err)
		}
	}
	if err != nil {
		w.err = err
		w.drain()
		return err
	}
	w.free = append(w.free, j.s)
	if w.onGroup != nil {
		w.onGroup(j.s.start + int64(j.s.rows))
	}
	return nil
}

// drain waits for every encoder so none outlives a failed writer.
func (w *Writer) drain() {
	for _, j := range w.pending {
		<-j.done
	}
	w.pending = nil
}

// Close flushes the last row group, waits for all of them to be written
// and writes the footer. It does not close the underlying io.Writer.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	if w.err != nil {
		w.closed = true
		w.drain()
		return w.err
	}
	if err := w.dispatch(); err != nil {
		w.closed = true
		return err
	}
	for len(w.pending) > 0 {
		if err := w.commitOldest(); err != nil {
			w.closed = true
			return err
		}
	}
	w.closed = true
	if w.pw == nil { // speculative, no rows: plan as unobserved
		if err := w.start(); err != nil {
			w.err = err
			return err
		}
	}
	md, err := w.s.metaFor(w.rows)
	if err != nil {
		w.err = err
		return err
	}
	for k, v := range w.extra {
		md[k] = v
	}
	for _, k := range sortedKeys(md) {
		w.pw.SetKeyValueMetadata(k, md[k])
	}
	if err := w.pw.Close(); err != nil {
		w.err = fmt.Errorf("parquetio: writing footer: %w", err)
		return w.err
	}
	return nil
}

// Abort stops the writer after a failure elsewhere, waiting for encoders;
// the output is left incomplete.
func (w *Writer) Abort() {
	if w.err == nil {
		w.err = errors.New("parquetio: writer aborted")
	}
	w.closed = true
	w.drain()
}

// maxAutoConcurrency and autoConcurrencyBytes bound the row groups
// encoded at once by default: at most 4, and more than one only while
// they hold at most 256 MiB of numpy data.
const (
	maxAutoConcurrency   = 4
	autoConcurrencyBytes = 256 << 20
)

// encode fills the row group's column writers from its buffers: up to
// threads goroutines take the columns one at a time (a column writer is
// used by one goroutine; different columns are independent), each holding
// a token of sem, shared by the row groups encoded at once, while it
// encodes a column.
func (s *Schema) encode(sl *slot, threads int, sem chan struct{}) error {
	cws := sl.rg.ColumnWriters()
	workers := max(1, min(threads, len(s.leaves)))
	if len(sl.work) < workers {
		sl.work = make([]encoder, workers)
	}
	var next atomic.Int64
	errs := make([]error, len(s.leaves))
	run := func(e *encoder) {
		if e.vals == nil {
			e.vals = make([]parquet.Value, valuesPerWrite)
		}
		for {
			i := int(next.Add(1) - 1)
			if i >= len(s.leaves) {
				return
			}
			l := s.leaves[i]
			sem <- struct{}{}
			err := s.encodeLeaf(l, cws[l.index], sl, e, 0, sl.rows)
			if err == nil {
				if err = cws[l.index].Flush(); err != nil {
					err = fmt.Errorf("parquetio: encoding column %s: %w", strings.Join(l.path, "."), err)
				}
			}
			<-sem
			if err != nil {
				errs[i] = err
				next.Store(int64(len(s.leaves))) // stop taking columns
				return
			}
		}
	}
	var wg sync.WaitGroup
	for k := 1; k < workers; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(&sl.work[k])
		}()
	}
	run(&sl.work[0])
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// encodeLeaf writes rows [r0, r0+n) of the row group to one column.
func (s *Schema) encodeLeaf(l *leaf, cw *parquet.ColumnWriter, sl *slot, e *encoder, r0, n int) error {
	src := sl.bufs[l.src]
	stride := s.srcs[l.src]
	vals := e.vals
	simple := len(l.entries) == 1 && l.maxRep == 0 && l.maxDef == 0 && !l.optional && l.valid == nil
	if simple && l.isTime {
		// REQUIRED (observed, no NaT): convert in a tight loop.
		off := l.entries[0].off
		date := l.plan == timeDate
		for r := r0; r < r0+n; {
			k := min(r0+n-r, len(vals))
			if bad := fillTime(vals[:k], src, r*stride+off, stride, l.mul, l.div, date); bad >= 0 {
				return s.valueErr(l, src[(r+bad)*stride+off:], sl.start+int64(r+bad))
			}
			if _, err := cw.WriteRowValues(vals[:k]); err != nil {
				return s.colErr(l, err)
			}
			r += k
		}
		return nil
	}
	if simple && fastFill(l, vals[:0], src, 0, 0, 0) {
		off := l.entries[0].off
		for r := r0; r < r0+n; {
			k := min(r0+n-r, len(vals))
			fastFill(l, vals[:k], src, r*stride+off, stride, k)
			if _, err := cw.WriteRowValues(vals[:k]); err != nil {
				return s.colErr(l, err)
			}
			r += k
		}
		return nil
	}
	conv := l.conv
	per := len(l.entries)
	rowsPer := max(1, len(vals)/max(per, 1))
	if rowsPer*per > len(vals) {
		vals = make([]parquet.Value, rowsPer*per)
		e.vals = vals
	}
	for r := r0; r < r0+n; {
		k := min(r0+n-r, rowsPer)
		e.arena = e.arena[:0]
		m := 0
		for i := 0; i < k; i++ {
			if v := l.valid; v != nil && sl.bufs[v.src][(r+i)*s.srcs[v.src]+v.off] == 0 {
				vals[m] = parquet.Value{} // a null row: one slot at level 0
				m++
				continue
			}
			row := src[(r+i)*stride:]
			for _, en := range l.entries {
				var v parquet.Value
				def := int(en.def)
				if !en.null {
					var ok bool
					v, ok = conv(row[en.off:], &e.arena)
					if ok {
						if l.optional || l.nullable {
							def++
						}
					} else if err := s.valueErr(l, row[en.off:], sl.start+int64(r+i)); err != nil {
						return err
					}
				}
				v.SetRepetitionLevel(int(en.rep))
				v.SetDefinitionLevel(def)
				vals[m] = v
				m++
			}
		}
		if _, err := cw.WriteRowValues(vals[:m]); err != nil {
			return s.colErr(l, err)
		}
		r += k
	}
	return nil
}

func (s *Schema) colErr(l *leaf, err error) error {
	return fmt.Errorf("parquetio: column %s: %w", strings.Join(l.path, "."), err)
}

// valueErr explains a value conv refused; nil means it is a null (NaT in
// an optional column).
func (s *Schema) valueErr(l *leaf, b []byte, row int64) error {
	name := strings.Join(l.path, ".")
	switch l.dt.Kind {
	case npyio.Datetime, npyio.Timedelta:
		v := load[int64](b, 0)
		if v == math.MinInt64 {
			if l.optional {
				return nil
			}
			return fmt.Errorf("parquetio: column %s, row %d: NaT in a column planned without nulls (observe all the data before writing)", name, row)
		}
		return fmt.Errorf("parquetio: column %s, row %d: %s value %d out of range for %s (observe the data first to store it as INT64)", name, row, l.dt.TypeStr(), v, l.targetName())
	case npyio.Unicode:
		for i := 0; i+4 <= l.dt.Size; i += 4 {
			c := load[uint32](b, i)
			if c > utf8.MaxRune || (c >= 0xD800 && c < 0xE000) {
				return fmt.Errorf("parquetio: column %s, row %d: code point U+%04X cannot be encoded as UTF-8", name, row, c)
			}
		}
	}
	return fmt.Errorf("parquetio: column %s, row %d: value not representable", name, row)
}

func (l *leaf) targetName() string {
	switch l.plan {
	case timeTS:
		return "TIMESTAMP(" + l.unit + ")"
	case timeDate:
		return "DATE"
	}
	return "INT64"
}

// fastFill fills vals from n values at src[off], src[off+stride], ... for
// the common fixed-width types; with n == 0 it only reports whether the
// leaf has a fast path.
func fastFill(l *leaf, vals []parquet.Value, src []byte, off, stride, n int) bool {
	dt := l.dt
	switch dt.Kind {
	case npyio.Bool:
		fillBool(vals[:n], src, off, stride)
	case npyio.Int:
		switch dt.Size {
		case 1:
			fill32[int8](vals[:n], src, off, stride)
		case 2:
			fill32[int16](vals[:n], src, off, stride)
		case 4:
			fill32[int32](vals[:n], src, off, stride)
		default:
			fill64[int64](vals[:n], src, off, stride)
		}
	case npyio.Uint:
		switch dt.Size {
		case 1:
			fill32[uint8](vals[:n], src, off, stride)
		case 2:
			fill32[uint16](vals[:n], src, off, stride)
		case 4:
			fill32[uint32](vals[:n], src, off, stride)
		default:
			fill64[uint64](vals[:n], src, off, stride)
		}
	case npyio.Float:
		switch dt.Size {
		case 4:
			fillFloat(vals[:n], src, off, stride)
		case 8:
			fillDouble(vals[:n], src, off, stride)
		default:
			return false
		}
	default:
		return false
	}
	return true
}

// fillTime fills vals from n time values at src[off], src[off+stride],
// ... converted by mul/div to INT64 (or to INT32 days for date), and
// returns the index of the first value that is NaT or does not fit, or -1.
func fillTime(vals []parquet.Value, src []byte, off, stride int, mul, div int64, date bool) int {
	if mul == 1 && div == 1 && !date {
		for i := range vals {
			v := load[int64](src, off+i*stride)
			if v == math.MinInt64 {
				return i
			}
			vals[i] = parquet.Int64Value(v)
		}
		return -1
	}
	for i := range vals {
		v := load[int64](src, off+i*stride)
		c, ok := convertTime(v, mul, div)
		if v == math.MinInt64 || !ok || c == math.MinInt64 || (date && (c < math.MinInt32 || c > math.MaxInt32)) {
			return i
		}
		if date {
			vals[i] = parquet.Int32Value(int32(c))
		} else {
			vals[i] = parquet.Int64Value(c)
		}
	}
	return -1
}

func load[T any](b []byte, off int) T {
	_ = b[off+int(unsafe.Sizeof(*new(T)))-1]
	return *(*T)(unsafe.Pointer(unsafe.SliceData(b[off:])))
}

// boolValues are false and true; npyio delivers bools as 0 or 1.
var boolValues = [2]parquet.Value{parquet.BooleanValue(false), parquet.BooleanValue(true)}

func fillBool(vals []parquet.Value, src []byte, off, stride int) {
	for i := range vals {
		vals[i] = boolValues[src[off+i*stride]&1]
	}
}

func fill32[T int8 | int16 | int32 | uint8 | uint16 | uint32](vals []parquet.Value, src []byte, off, stride int) {
	for i := range vals {
		vals[i] = parquet.Int32Value(int32(load[T](src, off+i*stride)))
	}
}

func fill64[T int64 | uint64](vals []parquet.Value, src []byte, off, stride int) {
	for i := range vals {
		vals[i] = parquet.Int64Value(int64(load[T](src, off+i*stride)))
	}
}

func fillFloat(vals []parquet.Value, src []byte, off, stride int) {
	for i := range vals {
		vals[i] = parquet.FloatValue(load[float32](src, off+i*stride))
	}
}

func fillDouble(vals []parquet.Value, src []byte, off, stride int) {
	for i := range vals {
		vals[i] = parquet.DoubleValue(load[float64](src, off+i*stride))
	}
}

// converter returns the function making one value from its bytes; false
// means the value is null (NaT) or invalid (see valueErr).
func (s *Schema) converter(l *leaf) func(b []byte, arena *[]byte) (parquet.Value, bool) {
	dt := l.dt
	size := dt.Size
	switch dt.Kind {
	case npyio.Bool:
		return func(b []byte, _ *[]byte) (parquet.Value, bool) { return parquet.BooleanValue(b[0] != 0), true }
	case npyio.Int:
		switch size {
		case 1:
			return func(b []byte, _ *[]byte) (parquet.Value, bool) { return parquet.Int32Value(int32(int8(b[0]))), true }
		case 2:
			return func(b []byte, _ *[]byte) (parquet.Value, bool) {
				return parquet.Int32Value(int32(load[int16](b, 0))), true
			}
		case 4:
			return func(b []byte, _ *[]byte) (parquet.Value, bool) { return parquet.Int32Value(load[int32](b, 0)), true }
		}
		return func(b []byte, _ *[]byte) (parquet.Value, bool) { return parquet.Int64Value(load[int64](b, 0)), true }
	case npyio.Uint:
		switch size {
		case 1:
			return func(b []byte, _ *[]byte) (parquet.Value, bool) { return parquet.Int32Value(int32(b[0])), true }
		case 2:
			return func(b []byte, _ *[]byte) (parquet.Value, bool) {
				return parquet.Int32Value(int32(load[uint16](b, 0))), true
			}
		case 4:
			return func(b []byte, _ *[]byte) (parquet.Value, bool) {
				return parquet.Int32Value(int32(load[uint32](b, 0))), true
			}
		}
		return func(b []byte, _ *[]byte) (parquet.Value, bool) {
			return parquet.Int64Value(int64(load[uint64](b, 0))), true
		}
	case npyio.Float:
		switch size {
		case 2:
			if npyio.NativeOrder == npyio.BigEndian {
				return func(b []byte, arena *[]byte) (parquet.Value, bool) {
					a := append(*arena, b[1], b[0])
					*arena = a
					return parquet.FixedLenByteArrayValue(a[len(a)-2:]), true
				}
			}
			return func(b []byte, _ *[]byte) (parquet.Value, bool) { return parquet.FixedLenByteArrayValue(b[:2]), true }
		case 4:
			return func(b []byte, _ *[]byte) (parquet.Value, bool) { return parquet.FloatValue(load[float32](b, 0)), true }
		}
		return func(b []byte, _ *[]byte) (parquet.Value, bool) { return parquet.DoubleValue(load[float64](b, 0)), true }
	case npyio.Bytes:
		return func(b []byte, _ *[]byte) (parquet.Value, bool) {
			e := size
			for e > 0 && b[e-1] == 0 {
				e--
			}
			return parquet.ByteArrayValue(b[:e:e]), true
		}
	case npyio.Void:
		if size == 0 {
			return func(b []byte, _ *[]byte) (parquet.Value, bool) { return parquet.ByteArrayValue([]byte{}), true }
		}
		return func(b []byte, _ *[]byte) (parquet.Value, bool) {
			return parquet.FixedLenByteArrayValue(b[:size:size]), true
		}
	case npyio.Unicode:
		return func(b []byte, arena *[]byte) (parquet.Value, bool) {
			a := *arena
			start := len(a)
			chars := size / 4
			for chars > 0 && load[uint32](b, (chars-1)*4) == 0 {
				chars--
			}
			for i := 0; i < chars; i++ {
				c := load[uint32](b, i*4)
				if c < utf8.RuneSelf {
					a = append(a, byte(c))
					continue
				}
				if c > utf8.MaxRune || (c >= 0xD800 && c < 0xE000) {
					return parquet.Value{}, false
				}
				a = utf8.AppendRune(a, rune(c))
			}
			*arena = a
			return parquet.ByteArrayValue(a[start:len(a):len(a)]), true
		}
	case npyio.Datetime, npyio.Timedelta:
		mul, div := l.mul, l.div
		switch l.plan {
		case timeDate:
			return func(b []byte, _ *[]byte) (parquet.Value, bool) {
				v := load[int64](b, 0)
				if v == math.MinInt64 {
					return parquet.Value{}, false
				}
				c, ok := convertTime(v, mul, div)
				if !ok || c < math.MinInt32 || c > math.MaxInt32 {
					return parquet.Value{}, false
				}
				return parquet.Int32Value(int32(c)), true
			}
		case timeTS:
			return func(b []byte, _ *[]byte) (parquet.Value, bool) {
				v := load[int64](b, 0)
				if v == math.MinInt64 {
					return parquet.Value{}, false
				}
				c, ok := convertTime(v, mul, div)
				if !ok || c == math.MinInt64 {
					return parquet.Value{}, false
				}
				return parquet.Int64Value(c), true
			}
		}
		return func(b []byte, _ *[]byte) (parquet.Value, bool) {
			v := load[int64](b, 0)
			if v == math.MinInt64 {
				return parquet.Value{}, false
			}
			return parquet.Int64Value(v), true
		}
	}
	panic("parquetio: no converter for " + dt.String())
}

// alignedBytes allocates n bytes aligned for 8-byte values.
func alignedBytes(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	w := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), n)
}
