package parquetio

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/npyflow/npyflow/npyio"
)

// Column chunks are decoded by arrow-go's Parquet column readers
// (parquet/file): every encoding (PLAIN, RLE and bit-packed levels,
// dictionaries, DELTA_*, BYTE_STREAM_SPLIT) and codec of the format, data
// pages v1 and v2. They return the values and the repetition and
// definition levels of a batch of slots; a leafDecoder places them in the
// numpy rows by the leaf's layout (entries), converting each value to the
// leaf's numpy type. Levels and values are counted against the row
// group's rows: a run header that covers more slots than its page holds
// (DuckDB pads its last bit-packed run) is no error, since the readers
// stop at the page's value count.

// convKind is how a Parquet value becomes a numpy value.
type convKind uint8

const (
	cvCopy       convKind = iota // same representation (numeric of the same width)
	cvBool                       // BOOLEAN -> b1
	cvNarrow                     // INT32 -> 1 or 2 bytes
	cvFloat16                    // FIXED_LEN_BYTE_ARRAY(2) -> f2
	cvBytes                      // BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY -> S<n> / V<n>
	cvUnicode                    // UTF-8 BYTE_ARRAY -> U<n>
	cvTime                       // INT32/INT64 -> M8/m8 with a unit factor
	cvInt96                      // INT96 -> M8[ns|us|ms] (factor: the unit in ns)
	cvDecimal                    // DECIMAL on any physical type -> f8
	cvDecimalI64                 // DECIMAL (precision <= 18) -> exact scaled i8
)

// stepRows is the number of rows decoded per step of a row group: the
// row buffers grow by at most this many rows at a time (a small file can
// hold long runs that decode to much data), and the columns of a step are
// decoded in parallel.
const stepRows = 1 << 16

// planConv fixes how the values of file column c become the numpy values
// of leaf l.
func planConv(l *leaf, c *schema.Column, rc *readConv, npyflow bool) error {
	pt := c.PhysicalType()
	lt := c.LogicalType()
	dt := l.dt
	want := func(ts ...parquet.Type) error {
		for _, t := range ts {
			if pt == t {
				return nil
			}
		}
		return fmt.Errorf("stored as %s, cannot read it as numpy %s", pt, dt.TypeStr())
	}
	if dec, ok := lt.(schema.DecimalLogicalType); ok && !npyflow {
		rc.kind, rc.scale = cvDecimal, int(dec.Scale())
		if dt.Kind == npyio.Int && dt.Size == 8 {
			rc.kind = cvDecimalI64 // exact, value*10^scale
		} else if dt.Kind != npyio.Float || dt.Size != 8 {
			return fmt.Errorf("DECIMAL cannot be read as numpy %s", dt.TypeStr())
		}
		if rc.scale < 0 || rc.scale > 76 || dec.Precision() <= 0 {
			return corrupt("DECIMAL(%d,%d)", dec.Precision(), dec.Scale())
		}
		if pt == parquet.Types.FixedLenByteArray && (c.TypeLength() <= 0 || c.TypeLength() > 64) {
			return fmt.Errorf("DECIMAL stored in %d bytes: at most 64 are read", c.TypeLength())
		}
		return want(parquet.Types.Int32, parquet.Types.Int64, parquet.Types.FixedLenByteArray, parquet.Types.ByteArray)
	}
	switch dt.Kind {
	case npyio.Bool:
		rc.kind = cvBool
		return want(parquet.Types.Boolean)
	case npyio.Int, npyio.Uint:
		switch dt.Size {
		case 1, 2:
			rc.kind = cvNarrow
			return want(parquet.Types.Int32)
		case 4:
			return want(parquet.Types.Int32)
		}
		return want(parquet.Types.Int64)
	case npyio.Float:
		switch dt.Size {
		case 2:
			rc.kind = cvFloat16
			if pt == parquet.Types.FixedLenByteArray && c.TypeLength() != 2 {
				return fmt.Errorf("FIXED_LEN_BYTE_ARRAY(%d) cannot be read as numpy %s", c.TypeLength(), dt.TypeStr())
			}
			return want(parquet.Types.FixedLenByteArray)
		case 4:
			return want(parquet.Types.Float)
		}
		return want(parquet.Types.Double)
	case npyio.Bytes, npyio.Void:
		rc.kind = cvBytes
		if dt.Kind == npyio.Void && dt.Size > 0 {
			if pt == parquet.Types.FixedLenByteArray && c.TypeLength() != dt.Size {
				return fmt.Errorf("FIXED_LEN_BYTE_ARRAY(%d) cannot be read as numpy %s", c.TypeLength(), dt.TypeStr())
			}
			return want(parquet.Types.FixedLenByteArray)
		}
		return want(parquet.Types.ByteArray)
	case npyio.Unicode:
		rc.kind = cvUnicode
		return want(parquet.Types.ByteArray)
	case npyio.Datetime, npyio.Timedelta:
		if pt == parquet.Types.Int96 {
			rc.kind = cvInt96
			for _, u := range int96Units {
				if dt.Unit == u.name && dt.UnitMult <= 1 && dt.Kind == npyio.Datetime {
					rc.factor = u.nanos
					return nil
				}
			}
			return fmt.Errorf("INT96 cannot be read as numpy %s", dt.TypeStr())
		}
		rc.kind = cvTime
		f, err := timeFactor(dt, lt)
		if err != nil {
			return err
		}
		rc.factor = f
		return want(parquet.Types.Int32, parquet.Types.Int64)
	}
	return fmt.Errorf("cannot read numpy %s", dt.TypeStr())
}

// unitNanos is the length of numpy's linear time units in nanoseconds.
var unitNanos = map[string]int64{"W": 604800e9, "D": 86400e9, "h": 3600e9, "m": 60e9, "s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1}

// timeFactor relates the stored column type to the numpy unit: stored =
// numpy*f for f > 0, numpy = stored*(-f) for f < 0.
func timeFactor(dt *npyio.DType, lt schema.LogicalType) (int64, error) {
	var stored int64
	unit := func(u schema.TimeUnitType) int64 {
		switch u {
		case schema.TimeUnitMillis:
			return 1e6
		case schema.TimeUnitMicros:
			return 1e3
		}
		return 1
	}
	switch v := lt.(type) {
	case *schema.TimestampLogicalType:
		stored = unit(v.TimeUnit())
	case schema.TimestampLogicalType:
		stored = unit(v.TimeUnit())
	case *schema.TimeLogicalType:
		stored = unit(v.TimeUnit())
	case schema.TimeLogicalType:
		stored = unit(v.TimeUnit())
	case schema.DateLogicalType, *schema.DateLogicalType:
		stored = 86400e9
	}
	if stored == 0 {
		return 1, nil // plain INT64 in numpy's unit
	}
	un, ok := unitNanos[dt.Unit]
	if !ok {
		return 0, fmt.Errorf("cannot convert %s to numpy unit %s", lt, dt.TypeStr())
	}
	un, ok = mulOK(un, max(dt.UnitMult, 1))
	if !ok {
		return 0, fmt.Errorf("unit %s too large", dt.TypeStr())
	}
	if un >= stored {
		return un / stored, nil
	}
	return -(stored / un), nil
}

func (r *Reader) loadGroup() error {
	groups := r.fmd.RowGroups
	for r.rg < len(groups) && groups[r.rg].NumRows == 0 {
		r.rg++
	}
	if r.rg >= len(groups) {
		return fmt.Errorf("parquetio: %w: row groups hold fewer rows than the footer's %d", io.ErrUnexpectedEOF, r.rows)
	}
	if r.bufs == nil {
		r.layout(false)
	}
	if a := r.ahead; a != nil {
		// The window decoded ahead (prefetch) starts here.
		r.ahead = nil
		<-a.done
		if a.err != nil {
			return a.err
		}
		r.spare, r.bufs = r.bufs, a.bufs
		r.bufRow, r.bufN, r.rg = r.next, a.n, a.g1
		r.prefetch()
		return nil
	}
	g0, g1 := r.rg, r.window(r.rg)
	if g1 > g0+1 {
		bufs, n, err := r.loadWindow(g0, g1, r.bufs, r.next)
		r.bufs = bufs
		if err != nil {
			return err
		}
		r.bufRow, r.bufN, r.rg = r.next, n, g1
		r.prefetch()
		return nil
	}
	// The pages of every column must hold the values of the row group's
	// rows: a row count the pages do not back is refused before anything
	// is sized by it (and buffers grow as rows decode, step by step).
	r.held.drop() // chunks held for a row group not read
	if err := r.checkChunks(g0, g1); err != nil {
		r.held.drop()
		return err
	}
	r.spare = nil // read-ahead buffers: not for a large row group
	n := int(groups[r.rg].NumRows)
	r.groupN = n
	for i := range r.bufs {
		r.bufs[i] = r.bufs[i][:0]
	}
	for i := range r.masks {
		r.masks[i] = r.masks[i][:0]
	}
	if r.decs == nil {
		r.decs = make([]*leafDecoder, len(r.s.leaves))
		for i := range r.s.leaves {
			r.decs[i] = r.newDecoder(i)
		}
	}
	for i, d := range r.decs {
		cr, err := r.columnReader(r.rg, r.conv[i].fileCol)
		if err != nil {
			return fmt.Errorf("parquetio: column %s, row group %d: %w", strings.Join(d.l.path, "."), r.rg, err)
		}
		d.start(cr, r.rg, r.next)
	}
	r.held.drop()
	defer func() {
		for _, d := range r.decs {
			d.cr = nil
		}
	}()
	workers := min(r.opts.threads(), len(r.decs))
	for row := 0; row < n; row += stepRows {
		k := min(stepRows, n-row)
		for i := range r.bufs {
			r.grow(i, row+k)
		}
		r.growMasks(row + k)
		if err := r.step(workers, row, k); err != nil {
			return err
		}
	}
	for _, d := range r.decs {
		if err := d.finish(); err != nil {
			return err
		}
	}
	r.bufRow = r.next
	r.bufN = n
	r.rg++
	return nil
}

// newDecoder makes the decoder of leaf i (no scratch buffers yet).
func (r *Reader) newDecoder(i int) *leafDecoder {
	l := r.s.leaves[i]
	d := &leafDecoder{l: l, rc: r.conv[i], col: r.leaves[r.conv[i].fileCol], buf: l.src}
	if r.interleaved {
		d.buf, d.base = 0, r.dtype.Fields[l.src].Offset
	}
	if r.vrec != nil {
		for _, v := range r.vrec[i] {
			if v.items {
				d.items, d.itemsW = &r.masks[v.mask], r.maskW[v.mask]
				continue
			}
			d.vm = append(d.vm, vmask{m: &r.masks[v.mask], level: v.level})
		}
		d.explain = r.explain[i]
	}
	return d
}

// Row groups of few rows (DuckDB writes 122,880 rows a group, Spark and
// pyarrow often fewer) are decoded several at once: the row groups of a
// window, at most windowBytes(threads) of numpy rows and of column chunks
// and at most windowGroups groups, go into one row buffer, each (row group,
// column) pair a task of the decoding goroutines, with no barrier
// between them. A larger row group is decoded alone, its columns in
// parallel in steps of stepRows rows (the buffers grow step by step).
//
// A window is 16 MiB, 2 MiB a thread beyond 8 threads, at most 64 MiB:
// enough tasks (4-5 DuckDB row groups of a 5-column table on 2 cores)
// with two windows held (the one read, the one decoded ahead).
func windowBytes(threads int) int64 {
	return min(max(16<<20, int64(threads)*2<<20), 64<<20)
}

// windowGroups is the most row groups of a window (a variable for tests).
var windowGroups = 64

// window returns the end of the row groups decoded together from g0
// (g0+1: the row group alone).
func (r *Reader) window(g0 int) int {
	groups := r.fmd.RowGroups
	g := g0
	if len(r.masks) > 0 || r.opts.threads() == 1 {
		return g + 1
	}
	rowBytes := int64(0)
	for _, s := range r.strides {
		rowBytes += int64(s)
	}
	var rows, stored int64
	limit := windowBytes(r.opts.threads())
	for ; g < len(groups) && g-g0 < windowGroups; g++ {
		n := groups[g].NumRows
		var chunks int64
		for i := range r.conv {
			chunks += groups[g].Columns[r.conv[i].fileCol].MetaData.TotalCompressedSize
		}
		if n > int64(stepRows)*2 || (rows+n)*max(rowBytes, 1) > limit || stored+chunks > limit {
			break
		}
		rows += n
		stored += chunks
	}
	return max(g, g0+1)
}

// ahead is a window of row groups decoded ahead, on other goroutines,
// while the rows before it are read: bounded read-ahead of one window.
type ahead struct {
	g0, g1 int
	bufs   [][]byte
	n      int // rows
	err    error
	done   chan struct{}
}

// prefetch starts decoding the window after the rows held (r.rg on), if
// it is a window of several row groups, into the spare row buffers (those
// of the rows before the ones held, which the caller no longer reads).
// loadGroup waits for it. Nothing else the goroutine touches changes
// meanwhile: the footer, the plan, the chunk values of its own row groups.
func (r *Reader) prefetch() {
	groups := r.fmd.RowGroups
	g := r.rg
	for g < len(groups) && groups[g].NumRows == 0 {
		g++
	}
	if g >= len(groups) || r.opts.threads() == 1 {
		return
	}
	g1 := r.window(g)
	if g1 <= g+1 {
		return // a large row group: decoded when it is read, step by step
	}
	bufs := r.spare
	r.spare = nil
	if bufs == nil {
		bufs = make([][]byte, len(r.bufs))
	}
	a := &ahead{g0: g, g1: g1, done: make(chan struct{})}
	row0 := r.bufRow + int64(r.bufN)
	go func() {
		defer close(a.done)
		a.bufs, a.n, a.err = r.loadWindow(g, g1, bufs, row0)
	}()
	r.ahead = a
}

// loadWindow checks the chunks of row groups [g0, g1) and decodes them
// into bufs (one per row buffer, reused), their first row row0 of the
// file; it returns the buffers and the rows.
func (r *Reader) loadWindow(g0, g1 int, bufs [][]byte, row0 int64) ([][]byte, int, error) {
	r.held.drop()
	defer r.held.drop()
	if err := r.checkChunks(g0, g1); err != nil {
		return bufs, 0, err
	}
	return r.decodeWindow(g0, g1, bufs, row0)
}

// checkChunks checks the page headers of the chunks read of row groups
// [g0, g1) (in parallel) and that their pages hold the row groups' rows.
func (r *Reader) checkChunks(g0, g1 int) error {
	groups := r.fmd.RowGroups
	nl := len(r.s.leaves)
	for g := g0; g < g1; g++ {
		if r.values[g] == nil && groups[g].NumRows > 0 {
			vs := make([]int64, len(groups[g].Columns))
			for i := range vs {
				vs[i] = -1
			}
			r.values[g] = vs
		}
	}
	tasks := (g1 - g0) * nl
	workers := min(r.opts.threads(), tasks)
	scans := make([]chunkScanner, workers)
	err := runTasks(workers, tasks, func(w, t int) error {
		g, i := g0+t/nl, t%nl
		n := int(groups[g].NumRows)
		if n == 0 {
			return nil
		}
		l := r.s.leaves[i]
		got, err := r.chunkValuesWith(&scans[w], g, r.conv[i].fileCol)
		if err != nil {
			return err
		}
		want, ok := mulInt(n, len(l.entries))
		if r.conv[i].nullList > 0 && ok && got >= int64(n) && got <= int64(want) {
			return nil // null rows of a list column are one value each
		}
		if !ok || int64(want) != got {
			return fmt.Errorf("parquetio: corrupt Parquet file: row group %d claims %d rows, but the pages of column %s hold %d values (%d per row expected)", g, n, strings.Join(l.path, "."), got, len(l.entries))
		}
		return nil
	})
	return err
}

// runTasks runs f for tasks [0, n) on up to workers goroutines (the
// caller's included; w is the goroutine's index, below workers), each
// taking the next task as it finishes one. After a failure no task is
// started; runTasks waits for the running ones and returns the error of
// the first task (in task order) that failed.
func runTasks(workers, n int, f func(w, t int) error) error {
	if n == 0 {
		return nil
	}
	workers = max(1, min(workers, n))
	errs := make([]error, n)
	var next atomic.Int64
	var failed atomic.Bool
	run := func(w int) {
		for !failed.Load() {
			t := int(next.Add(1) - 1)
			if t >= n {
				return
			}
			if errs[t] = f(w, t); errs[t] != nil {
				failed.Store(true)
			}
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(w)
		}()
	}
	run(0)
	wg.Wait()
	if !failed.Load() {
		return nil
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// decodeWindow decodes row groups [g0, g1), checked, into bufs (one per
// row buffer, reused; row0 the file row of the first): one task per row
// group and column, on a fixed set of goroutines, each with its decoding
// scratch. It returns the buffers and the rows.
func (r *Reader) decodeWindow(g0, g1 int, bufs [][]byte, row0 int64) ([][]byte, int, error) {
	groups := r.fmd.RowGroups
	nl := len(r.s.leaves)
	offs := make([]int, g1-g0+1) // first row of each row group in the buffers
	for g := g0; g < g1; g++ {
		offs[g-g0+1] = offs[g-g0] + int(groups[g].NumRows)
	}
	n := offs[g1-g0]
	for i, b := range bufs {
		need := n * r.strides[i]
		if cap(b) < need {
			b = alignedBytes(need)
		}
		b = b[:need]
		clear(b)
		bufs[i] = b
	}
	tasks := (g1 - g0) * nl
	workers := min(r.opts.threads(), tasks)
	last := make([]*leafDecoder, workers) // each goroutine's scratch
	var stop atomic.Bool
	err := runTasks(workers, tasks, func(w, t int) error {
		g, i := g0+t/nl, t%nl
		rows := int(groups[g].NumRows)
		if rows == 0 {
			return nil
		}
		d := r.newDecoder(i)
		if p := last[w]; p != nil {
			d.takeScratch(p)
		}
		last[w] = d
		cr, err := r.columnReader(g, r.conv[i].fileCol)
		if err != nil {
			stop.Store(true)
			return fmt.Errorf("parquetio: column %s, row group %d: %w", strings.Join(d.l.path, "."), g, err)
		}
		d.start(cr, g, row0+int64(offs[g-g0]))
		defer func() { d.cr = nil }()
		stride := r.strides[d.buf]
		buf := bufs[d.buf][offs[g-g0]*stride+d.base:]
		for row := 0; row < rows; row += stepRows {
			if stop.Load() {
				return nil // another task failed
			}
			if err := d.decode(buf, stride, row, min(stepRows, rows-row)); err != nil {
				stop.Store(true)
				var ne *NullError
				if errors.As(err, &ne) {
					ne.Nulls = r.nullCount(r.conv[i].fileCol)
				}
				return err
			}
		}
		if err := d.finish(); err != nil {
			stop.Store(true)
			return err
		}
		return nil
	})
	return bufs, n, err
}

// takeScratch moves the value and level buffers of p to d.
func (d *leafDecoder) takeScratch(p *leafDecoder) {
	d.def, d.rep, d.arena = p.def, p.rep, p.arena
	d.vb, d.v32, d.v64, d.vf32, d.vf64 = p.vb, p.v32, p.v64, p.vf32, p.vf64
	d.v96, d.vba, d.vfl = p.v96, p.vba, p.vfl
	*p = leafDecoder{}
}

// step decodes rows [row, row+k) of the row group into the row buffers,
// the columns in parallel on up to workers goroutines.
func (r *Reader) step(workers, row, k int) error {
	errs := make([]error, len(r.decs))
	if workers <= 1 {
		for i, d := range r.decs {
			if errs[i] = d.decode(r.bufs[d.buf][d.base:], r.strides[d.buf], row, k); errs[i] != nil {
				break
			}
		}
	} else {
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1) - 1)
					if i >= len(r.decs) {
						return
					}
					d := r.decs[i]
					errs[i] = d.decode(r.bufs[d.buf][d.base:], r.strides[d.buf], row, k)
				}
			}()
		}
		wg.Wait()
	}
	for i, err := range errs {
		if err != nil {
			var ne *NullError
			if errors.As(err, &ne) {
				ne.Nulls = r.nullCount(r.conv[i].fileCol)
			}
			return err
		}
	}
	return nil
}

// nullCount is the number of nulls of file column col by the statistics
// of its column chunks, -1 where a chunk has none.
func (r *Reader) nullCount(col int) int64 {
	n := int64(-1)
	_ = guard(func() error {
		n = r.statsNulls(col)
		return nil
	})
	return n
}

func (r *Reader) statsNulls(col int) int64 {
	var n int64
	md := r.pf.MetaData()
	for g := 0; g < md.NumRowGroups(); g++ {
		cc, err := md.RowGroup(g).ColumnChunk(col)
		if err != nil {
			return -1
		}
		set, err := cc.StatsSet()
		if err != nil || !set {
			return -1
		}
		st, err := cc.Statistics()
		if err != nil || st == nil || !st.HasNullCount() {
			return -1
		}
		n += st.NullCount()
	}
	return n
}

// layout sets up the row buffers: one per column source, or (interleaved)
// one of whole rows of the table's dtype, which [Reader.Next] returns
// without copying.
func (r *Reader) layout(interleaved bool) {
	r.interleaved = interleaved && len(r.s.srcs) > 1
	if r.interleaved {
		r.bufs, r.strides = make([][]byte, 1), []int{r.dtype.Size}
		return
	}
	r.bufs, r.strides = make([][]byte, len(r.s.srcs)), r.s.srcs
}

// firstRows is the smallest buffer a row group starts with; buffers
// double as rows decode, up to the row group's row count.
const firstRows = 1 << 14

// grow makes source src's buffer hold at least rows rows (zeroed beyond
// the rows it held), at most the row group's rows.
func (r *Reader) grow(src, rows int) []byte {
	rs := r.strides[src]
	b := r.bufs[src]
	need := rows * rs
	if need <= len(b) {
		return b
	}
	if need > cap(b) {
		nc := min(max(need, 2*cap(b), firstRows*rs), r.groupN*rs)
		nb := alignedBytes(nc)
		copy(nb, b)
		b = nb[:len(b)]
	}
	old := len(b)
	b = b[:need]
	clear(b[old:])
	r.bufs[src] = b
	return b
}

// leafDecoder reads one leaf column of a row group into numpy rows.
type leafDecoder struct {
	buf  int // the row buffer it fills
	base int // the leaf's source row within that buffer's rows
	l    *leaf
	rc   readConv
	col  *schema.Column
	cr   file.ColumnChunkReader
	rg   int
	row0 int64 // the file row of the row group's first row

	def, rep []int16
	vb       []bool
	v32      []int32
	v64      []int64
	vf32     []float32
	vf64     []float64
	v96      []parquet.Int96
	vba      []parquet.ByteArray
	vfl      []parquet.FixedLenByteArray
	arena    []byte // copies of byte-array values of earlier pages of a batch

	// validity fields: the masks it records (rows of the row group), and
	// the level below which a null is recorded by one (its slot may
	// hold zeros)
	vm      []vmask
	explain int16
	// a list's element validity mask (itemsW bytes a row), nil if none:
	// 1 where the element has a value (its slot's level is maxDef)
	items  *[]byte
	itemsW int

	// within the row group
	pi, pn, pvi, pnv int  // slots [pi, pn) and values [pvi, pnv) of the batch not placed yet
	nullRow          bool // the current row is a null list
	row              int  // rows started
	ei               int  // next entry of the current row
	vals             int  // values read
	nulls            int64
}

func (d *leafDecoder) start(cr file.ColumnChunkReader, rg int, row0 int64) {
	d.cr, d.rg, d.row0 = cr, rg, row0
	d.row, d.ei, d.vals, d.nulls = -1, 0, 0, 0
	d.pi, d.pn, d.pvi, d.pnv = 0, 0, 0, 0
}

func (d *leafDecoder) name() string { return strings.Join(d.l.path, ".") }

func (d *leafDecoder) errf(format string, args ...any) error {
	return fmt.Errorf("parquetio: column %s, row group %d: %w", d.name(), d.rg, fmt.Errorf(format, args...))
}

// finish checks that the row group's column held exactly its rows.
func (d *leafDecoder) finish() error {
	if d.row >= 0 && d.ei != len(d.l.entries) {
		return d.errf("%w: %v", errCorrupt, errShape)
	}
	return nil
}

// read reads the next k level slots (and their values) of the column.
func (d *leafDecoder) read(k int) (int, int, error) {
	n, nv, err := d.readSome(k)
	if err == nil && n != k {
		return 0, 0, d.errf("%w: its pages end after %d of the row group's values", errCorrupt, d.vals+n)
	}
	return n, nv, err
}

// readSome reads up to k level slots (and their values); fewer only at
// the end of the column chunk.
func (d *leafDecoder) readSome(k int) (int, int, error) {
	if cap(d.def) < k {
		d.def = make([]int16, k)
		d.rep = make([]int16, k)
	}
	def, rep := d.def[:k], d.rep[:k]
	if d.rc.maxDef == 0 {
		def = nil
	}
	if d.rc.maxRep == 0 {
		rep = nil
	}
	switch d.cr.(type) {
	case *file.BooleanColumnChunkReader:
		d.vb = grown(d.vb, k)
	case *file.Int32ColumnChunkReader:
		d.v32 = grown(d.v32, k)
	case *file.Int64ColumnChunkReader:
		d.v64 = grown(d.v64, k)
	case *file.Int96ColumnChunkReader:
		d.v96 = grown(d.v96, k)
	case *file.Float32ColumnChunkReader:
		d.vf32 = grown(d.vf32, k)
	case *file.Float64ColumnChunkReader:
		d.vf64 = grown(d.vf64, k)
	case *file.ByteArrayColumnChunkReader:
		d.vba = grown(d.vba, k)
	case *file.FixedLenByteArrayColumnChunkReader:
		d.vfl = grown(d.vfl, k)
	}
	// Page by page (ReadBatchInPage), not ReadBatch: arrow-go's ReadBatch
	// loops forever on a page whose values end before its value count
	// (it makes no progress and reports nothing); here no progress on a
	// page that has values left is a corrupt page.
	var total int64
	var nv int
	// BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY values point into the page's
	// buffer, which the next page may overwrite: before moving on (HasNext
	// loads the next page), the values read so far are copied out.
	d.arena = d.arena[:0]
	kept := 0
	err := guard(func() error {
		for total < int64(k) {
			if nv > kept {
				d.keep(kept, nv)
				kept = nv
			}
			if !d.cr.HasNext() {
				return d.cr.Err()
			}
			lv, got, err := d.readInPage(int64(k)-total, nv, sub(def, total), sub(rep, total))
			if err != nil {
				return err
			}
			if lv <= 0 {
				return corrupt("a page's levels or values end before its value count")
			}
			total += lv
			nv += got
		}
		return nil
	})
	if err != nil {
		return 0, 0, d.errf("%v", err)
	}
	if total < 0 || total > int64(k) || nv < 0 || nv > k {
		return 0, 0, d.errf("%w: %d values for %d slots", errCorrupt, nv, total)
	}
	return int(total), nv, nil
}

// keep copies byte-array values [from, to) of the batch into d.arena.
func (d *leafDecoder) keep(from, to int) {
	switch d.cr.(type) {
	case *file.ByteArrayColumnChunkReader:
		for i := from; i < to; i++ {
			d.vba[i] = d.stash(d.vba[i])
		}
	case *file.FixedLenByteArrayColumnChunkReader:
		for i := from; i < to; i++ {
			d.vfl[i] = d.stash(d.vfl[i])
		}
	}
}

// stash appends v to the arena and returns the copy. Earlier copies stay
// valid when the arena grows (they keep the old array).
func (d *leafDecoder) stash(v []byte) []byte {
	if v == nil {
		return nil
	}
	n := len(d.arena)
	d.arena = append(d.arena, v...)
	return d.arena[n:len(d.arena):len(d.arena)]
}

// readInPage reads up to n level slots of the current page, the values
// from index vOff of the value buffer on.
func (d *leafDecoder) readInPage(n int64, vOff int, def, rep []int16) (int64, int, error) {
	switch c := d.cr.(type) {
	case *file.BooleanColumnChunkReader:
		return c.ReadBatchInPage(n, d.vb[vOff:], def, rep)
	case *file.Int32ColumnChunkReader:
		return c.ReadBatchInPage(n, d.v32[vOff:], def, rep)
	case *file.Int64ColumnChunkReader:
		return c.ReadBatchInPage(n, d.v64[vOff:], def, rep)
	case *file.Int96ColumnChunkReader:
		return c.ReadBatchInPage(n, d.v96[vOff:], def, rep)
	case *file.Float32ColumnChunkReader:
		return c.ReadBatchInPage(n, d.vf32[vOff:], def, rep)
	case *file.Float64ColumnChunkReader:
		return c.ReadBatchInPage(n, d.vf64[vOff:], def, rep)
	case *file.ByteArrayColumnChunkReader:
		return c.ReadBatchInPage(n, d.vba[vOff:], def, rep)
	case *file.FixedLenByteArrayColumnChunkReader:
		return c.ReadBatchInPage(n, d.vfl[vOff:], def, rep)
	}
	return 0, 0, fmt.Errorf("no reader for %s", d.col.PhysicalType())
}

func sub(b []int16, off int64) []int16 {
	if b == nil {
		return nil
	}
	return b[off:]
}

func grown[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// decode reads rows [row, row+k) of the row group into buf (stride bytes
// a row; the buffer holds at least row+k rows).
func (d *leafDecoder) decode(buf []byte, stride, row, k int) error {
	l := d.l
	slots, ok := mulInt(k, len(l.entries))
	if !ok {
		return d.errf("too many values")
	}
	// Flat leaf: one slot per row.
	if d.rc.maxRep == 0 && len(l.entries) == 1 && !l.entries[0].null {
		n, nv, err := d.read(slots)
		if err != nil {
			return err
		}
		d.row = row + n - 1
		d.ei = 1
		if d.rc.maxDef == 0 {
			if nv != n {
				return d.errf("%w: %d values for %d rows", errCorrupt, nv, n)
			}
			d.vals += nv
			return d.dense(buf[row*stride+l.entries[0].off:], stride, nv)
		}
		return d.sparse(buf, stride, row, n, nv)
	}
	if d.rc.nullList > 0 {
		return d.decodeNullable(buf, stride, row+k)
	}
	// Nested (lists): walk the levels.
	left := slots
	for left > 0 {
		want := min(left, 1<<16)
		n, nv, err := d.read(want)
		if err != nil {
			return err
		}
		i, j, err := d.nested(buf, stride, row+k, 0, n, 0, nv)
		if err != nil {
			return err
		}
		if i < n {
			return d.errf("%w: more rows than the row group's", errCorrupt)
		}
		if j != nv {
			return d.errf("%w: %d values for %d defined levels", errCorrupt, nv, j)
		}
		d.vals += nv
		left -= n
	}
	return nil
}

// decodeNullable reads the rows up to end of a list column whose rows
// may be null: a null row is one slot, so the slots of the rows are
// found by reading on to the slot that starts row end (kept for the next
// step) or to the end of the column chunk.
func (d *leafDecoder) decodeNullable(buf []byte, stride, end int) error {
	for {
		if d.pi == d.pn {
			n, nv, err := d.readSome(1 << 16)
			if err != nil {
				return err
			}
			if n == 0 {
				break
			}
			d.pi, d.pn, d.pvi, d.pnv = 0, n, 0, nv
		}
		i, j, err := d.nested(buf, stride, end, d.pi, d.pn, d.pvi, d.pnv)
		if err != nil {
			return err
		}
		d.vals += j - d.pvi
		d.pi, d.pvi = i, j
		if i == d.pn && j != d.pnv {
			return d.errf("%w: %d values for %d defined levels", errCorrupt, d.pnv, j)
		}
		if i < d.pn {
			break // row end starts here
		}
	}
	if d.row != end-1 {
		return d.errf("%w: its pages end after %d of the row group's rows", errCorrupt, d.row+1)
	}
	return nil
}

// dense stores nv values of a required flat column into consecutive rows.
func (d *leafDecoder) dense(dst []byte, stride, nv int) error {
	if nv == 0 {
		return nil
	}
	if d.l.dt.Size > 0 {
		_ = dst[(nv-1)*stride+d.l.dt.Size-1]
	}
	switch d.rc.kind {
	case cvCopy:
		switch c := d.cr.(type) {
		case *file.Int32ColumnChunkReader:
			copyStrided(dst, stride, d.v32[:nv])
			return nil
		case *file.Int64ColumnChunkReader:
			copyStrided(dst, stride, d.v64[:nv])
			return nil
		case *file.Float32ColumnChunkReader:
			copyStrided(dst, stride, d.vf32[:nv])
			return nil
		case *file.Float64ColumnChunkReader:
			copyStrided(dst, stride, d.vf64[:nv])
			return nil
		default:
			_ = c
		}
	case cvBool:
		for i, v := range d.vb[:nv] {
			dst[i*stride] = b2u(v)
		}
		return nil
	}
	for j := 0; j < nv; j++ {
		if err := d.put(dst[j*stride:], j); err != nil {
			return d.rowErr(d.row+1-nv+j, err)
		}
	}
	return nil
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// copyStrided stores vals at dst, dst+stride, ...
func copyStrided[T int32 | int64 | float32 | float64](dst []byte, stride int, vals []T) {
	size := int(unsafe.Sizeof(vals[0]))
	if stride == size {
		copy(dst[:len(vals)*size], unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), len(vals)*size))
		return
	}
	base := unsafe.Pointer(unsafe.SliceData(dst))
	for i, v := range vals {
		*(*T)(unsafe.Add(base, i*stride)) = v
	}
}

// sparse stores the values of an optional flat column: n slots (rows)
// from row, nv of them non-null.
func (d *leafDecoder) sparse(buf []byte, stride, row, n, nv int) error {
	off := d.l.entries[0].off
	maxDef := int16(d.rc.maxDef)
	if nv == n && allEqual(d.def[:n], maxDef) {
		// No null in the batch (DuckDB declares every column OPTIONAL):
		// the values are stored as a required column's.
		d.vals += nv
		return d.dense(buf[row*stride+off:], stride, nv)
	}
	j := 0
	for i, lv := range d.def[:n] {
		dst := buf[(row+i)*stride+off:]
		if lv == maxDef {
			if j >= nv {
				return d.errf("%w: more defined levels than values", errCorrupt)
			}
			if err := d.put(dst, j); err != nil {
				return d.rowErr(row+i, err)
			}
			j++
			continue
		}
		d.record(row+i, lv)
		if err := d.setNull(dst, row+i, lv); err != nil {
			return err
		}
	}
	if j != nv {
		return d.errf("%w: %d values for %d defined levels", errCorrupt, nv, j)
	}
	d.vals += nv
	return nil
}

// allEqual reports whether every level is v.
func allEqual(levels []int16, v int16) bool {
	for _, l := range levels {
		if l != v {
			return false
		}
	}
	return true
}

// nested places slots [i, n) of a repeated leaf, their values from j on
// (nv in the batch); it stops before a slot that starts row end and
// returns the slot and value where it stopped.
func (d *leafDecoder) nested(buf []byte, stride, end, i, n, j, nv int) (int, int, error) {
	l := d.l
	maxDef := int16(d.rc.maxDef)
	for ; i < n; i++ {
		rep := int16(0)
		if d.rc.maxRep > 0 {
			rep = d.rep[i]
		}
		def := maxDef
		if d.rc.maxDef > 0 {
			def = d.def[i]
		}
		if rep == 0 {
			if d.row >= 0 && d.ei != len(l.entries) {
				return i, j, d.errf("%w: row %d: %v", errCorrupt, d.row0+int64(d.row), errShape)
			}
			if d.row+1 >= end {
				return i, j, nil
			}
			d.row++
			d.ei = 0
			d.nullRow = false
		} else if d.nullRow {
			// More slots of a null list: DuckDB writes a null ARRAY(n)
			// as n null slots.
			if def >= d.rc.nullList {
				return i, j, d.errf("%w: row %d: a value in a null list", errCorrupt, d.row0+int64(d.row))
			}
			continue
		}
		if d.row < 0 {
			return i, j, d.errf("%w: the column chunk starts inside a row (repetition level %d)", errCorrupt, rep)
		}
		if def < maxDef {
			d.record(d.row, def)
			if rep == 0 && def < d.rc.nullList {
				// A null list: every value of the row is null.
				if d.items != nil {
					clear((*d.items)[d.row*d.itemsW : (d.row+1)*d.itemsW])
				}
				for _, e := range l.entries {
					if !e.null {
						if err := d.setNull(buf[d.row*stride+e.off:], d.row, def); err != nil {
							return i, j, err
						}
					}
				}
				d.ei = len(l.entries)
				d.nullRow = true
				continue
			}
		}
		has := def == maxDef
		if d.ei >= len(l.entries) {
			return i, j, d.errf("%w: row %d: %v", errCorrupt, d.row0+int64(d.row), errShape)
		}
		e := l.entries[d.ei]
		if d.items != nil && !e.null {
			(*d.items)[d.row*d.itemsW+d.ei] = b2u(has)
		}
		d.ei++
		if has && j >= nv {
			return i, j, d.errf("%w: more defined levels than values", errCorrupt)
		}
		if e.null {
			if has {
				return i, j, d.errf("%w: row %d: %v", errCorrupt, d.row0+int64(d.row), errShape)
			}
			continue
		}
		dst := buf[d.row*stride+e.off:]
		if !has {
			if err := d.setNull(dst, d.row, def); err != nil {
				return i, j, err
			}
			continue
		}
		if err := d.put(dst, j); err != nil {
			return i, j, d.rowErr(d.row, err)
		}
		j++
	}
	return i, j, nil
}

func (d *leafDecoder) rowErr(row int, err error) error {
	return d.errf("row %d: %v", d.row0+int64(row), err)
}

// setNull stores the null (of definition level def) of the leaf's numpy
// type: the fill value, NaN, NaT, zeros where a validity field records
// it, or a refusal.
func (d *leafDecoder) setNull(dst []byte, row int, def int16) error {
	if def < d.explain && d.rc.fill == nil && d.l.dt.Kind != npyio.Float && d.l.dt.Kind != npyio.Datetime && d.l.dt.Kind != npyio.Timedelta {
		clear(dst[:d.l.dt.Size])
		return nil
	}
	if d.rc.fill != nil {
		copy(dst[:len(d.rc.fill)], d.rc.fill)
		return nil
	}
	switch d.l.dt.Kind {
	case npyio.Datetime, npyio.Timedelta:
		store(dst, int64(math.MinInt64))
		return nil
	case npyio.Float:
		switch d.l.dt.Size {
		case 2:
			store(dst, uint16(0x7e00))
		case 4:
			store(dst, float32(math.NaN()))
		default:
			store(dst, math.NaN())
		}
		return nil
	}
	col := d.name()
	if d.rc.list != "" {
		col = d.rc.list
	}
	return &NullError{Column: col, DType: d.l.dt.TypeStr(), Row: d.row0 + int64(row), Nulls: -1}
}

func store[T any](b []byte, v T) {
	_ = b[int(unsafe.Sizeof(v))-1]
	*(*T)(unsafe.Pointer(unsafe.SliceData(b))) = v
}

// put stores value j of the current batch at dst.
func (d *leafDecoder) put(dst []byte, j int) error {
	dt := d.l.dt
	switch d.rc.kind {
	case cvCopy:
		switch d.col.PhysicalType() {
		case parquet.Types.Int32:
			store(dst, d.v32[j])
		case parquet.Types.Int64:
			store(dst, d.v64[j])
		case parquet.Types.Float:
			store(dst, d.vf32[j])
		case parquet.Types.Double:
			store(dst, d.vf64[j])
		}
	case cvBool:
		dst[0] = b2u(d.vb[j])
	case cvNarrow:
		v := d.v32[j]
		if dt.Size == 1 {
			dst[0] = byte(v)
		} else {
			store(dst, uint16(v))
		}
	case cvFloat16:
		b := d.vfl[j]
		if len(b) != 2 {
			return fmt.Errorf("FLOAT16 value of %d bytes", len(b))
		}
		dst[0], dst[1] = b[0], b[1]
	case cvBytes, cvUnicode:
		var b []byte
		if d.col.PhysicalType() == parquet.Types.FixedLenByteArray {
			b = d.vfl[j]
		} else {
			b = d.vba[j]
		}
		if d.rc.kind == cvBytes {
			if len(b) > dt.Size {
				return fmt.Errorf("%d-byte value does not fit %s", len(b), dt.TypeStr())
			}
			copy(dst[:dt.Size], b)
			return nil
		}
		return putUnicode(dst, b, dt)
	case cvTime:
		var x int64
		if d.col.PhysicalType() == parquet.Types.Int32 {
			x = int64(d.v32[j])
		} else {
			x = d.v64[j]
		}
		switch f := d.rc.factor; {
		case f > 1:
			q := x / f
			if x%f != 0 && x < 0 {
				q--
			}
			x = q
		case f < -1:
			c, ok := convertTime(x, -f, 1)
			if !ok || c == math.MinInt64 {
				return fmt.Errorf("time value %d overflows %s", x, dt.TypeStr())
			}
			x = c
		}
		store(dst, x)
	case cvInt96:
		x, in, exact := int96In(d.v96[j], d.rc.factor)
		if !in || !exact {
			return fmt.Errorf("INT96 timestamp %s does not fit %s", int96Date(d.v96[j]), dt.TypeStr())
		}
		store(dst, x)
	case cvDecimal:
		f, err := d.decimal(j)
		if err != nil {
			return err
		}
		store(dst, f)
	case cvDecimalI64:
		u, err := d.unscaled(j)
		if err != nil {
			return err
		}
		store(dst, u)
	default:
		return fmt.Errorf("cannot read %s", dt.TypeStr())
	}
	return nil
}

func putUnicode(dst, s []byte, dt *npyio.DType) error {
	i := 0
	for len(s) > 0 {
		c, sz := utf8.DecodeRune(s)
		if c == utf8.RuneError && sz <= 1 {
			return fmt.Errorf("invalid UTF-8 in a STRING value")
		}
		if (i+1)*4 > dt.Size {
			return fmt.Errorf("string longer than %d characters does not fit %s", dt.Size/4, dt.TypeStr())
		}
		store(dst[i*4:], uint32(c))
		i++
		s = s[sz:]
	}
	return nil
}

// julianUnixEpoch is the Julian day number of 1970-01-01.
const julianUnixEpoch = 2440588

var errShape = errors.New("values do not match the numpy shape")
