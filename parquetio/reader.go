package parquetio

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/npyflow/npyflow/npyio"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Reader reads a Parquet file back into numpy rows.
//
// A file written by [Writer] carries npyflow's metadata ([MetaTable]) and
// comes back exactly: same dtype (byte order, titles, padding included),
// same shape. Any other file is mapped from its Parquet schema: BOOLEAN
// -> b1, INT(8..64) -> i1..i8 / u1..u8 (plain INT32/INT64 -> i4/i8), FLOAT
// -> f4, DOUBLE -> f8, FLOAT16 -> f2, TIMESTAMP(unit) -> M8[unit], DATE ->
// M8[D], STRING -> U<n> and BYTE_ARRAY -> S<n> with n the longest value
// (found by a first pass over those columns), FIXED_LEN_BYTE_ARRAY(n) ->
// V<n>, groups -> nested structs. Nulls become NaT in time columns and NaN
// in float columns and are refused elsewhere. LIST columns need npyflow's
// metadata.
//
// Rows are decoded one row group at a time, so memory is bounded by the
// largest row group. A Reader is not safe for concurrent use.
type Reader struct {
	f      *parquet.File
	ra     io.ReaderAt
	scan   chunkScanner
	leaves []*parquet.Column // the file's leaf columns, by index
	shadow []*parquet.Column // the same columns without a codec, for rawPages
	raw    rawBuffers
	values [][]int64 // data-page values per row group and file column, -1 until scanned
	s      *Schema
	meta   *TableMeta
	dtype  *npyio.DType // the table's row dtype (source byte order)
	shape  []int
	rows   int64
	next   int64
	rg     int
	bufs   [][]byte // decoded rows of the current row group, per source
	bufRow int64    // first row held in bufs
	bufN   int
	groupN int // rows of the row group being decoded
	conv   []readConv
	vals   []parquet.Value
	err    error
	out    [][]byte
}

type readConv struct {
	fileCol int
	maxDef  int
	factor  int64 // stored = numpy*factor (factor>0) or numpy = stored*(-factor)
	nullNaN bool
}

// NewReader opens the Parquet file r of size size.
//
// The sizes the file declares are checked before anything is allocated by
// them: the footer's column chunks must lie within the file, and before a
// column chunk is read each of its page headers is checked against the
// chunk (page sizes, value counts; compressed pages at most [MaxPageSize]
// uncompressed) and its pages must hold exactly the values of the row
// group's rows.
func NewReader(r io.ReaderAt, size int64) (*Reader, error) {
	flen, err := checkFooter(r, size)
	if err != nil {
		return nil, err
	}
	f, err := parquet.OpenFile(r, size, parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		return nil, fmt.Errorf("parquetio: %w", err)
	}
	if err := checkFooterChunks(f.Metadata(), size-8-flen, len(fileLeaves(f.Root(), nil))); err != nil {
		return nil, fmt.Errorf("parquetio: %w", err)
	}
	rd := &Reader{f: f, ra: r, rows: f.NumRows(), vals: make([]parquet.Value, 4096)}
	rd.values = make([][]int64, len(f.Metadata().RowGroups))
	if err := rd.planRaw(); err != nil {
		return nil, err
	}
	if err := rd.plan(); err != nil {
		return nil, err
	}
	return rd, nil
}

// checkFooter checks the footer length against the file size before
// parquet-go allocates a buffer of that length, and returns it.
func checkFooter(r io.ReaderAt, size int64) (int64, error) {
	if size < 12 {
		return 0, fmt.Errorf("parquetio: not a Parquet file: %d bytes", size)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return 0, fmt.Errorf("parquetio: reading the footer: %w", err)
	}
	if string(tail[4:]) != "PAR1" {
		return 0, nil // parquet-go reports the bad magic
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 {
		return 0, fmt.Errorf("parquetio: corrupt footer: its length field says %d bytes, but the file has %d", n, size)
	}
	// parquet-go trusts the schema's child counts (a negative one
	// panics in OpenFile): check them on a decoding of our own.
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return 0, fmt.Errorf("parquetio: reading the footer: %w", err)
	}
	var md format.FileMetaData
	if err := thrift.Unmarshal(&compact, footer, &md); err == nil {
		if err := checkSchemaTree(md.Schema); err != nil {
			return 0, fmt.Errorf("parquetio: %w", err)
		}
	}
	return n, nil
}

// chunkValues checks the page headers of a column chunk (once) and
// returns the number of values its data pages hold.
func (r *Reader) chunkValues(rg, col int) (int64, error) {
	vs := r.values[rg]
	if vs == nil {
		vs = make([]int64, len(r.f.Metadata().RowGroups[rg].Columns))
		for i := range vs {
			vs[i] = -1
		}
		r.values[rg] = vs
	}
	if vs[col] >= 0 {
		return vs[col], nil
	}
	m := &r.f.Metadata().RowGroups[rg].Columns[col].MetaData
	n, err := r.scan.scan(r.ra, m)
	if err != nil {
		return 0, fmt.Errorf("parquetio: column %s, row group %d: %w", strings.Join(m.PathInSchema, "."), rg, err)
	}
	vs[col] = n
	return n, nil
}

// planRaw opens the shadow columns rawPages decodes with (see rawPages:
// every column chunk is read by it).
func (r *Reader) planRaw() error {
	r.leaves = fileLeaves(r.f.Root(), nil)
	s, err := shadowLeaves(r.f.Metadata())
	if err != nil {
		return fmt.Errorf("parquetio: reading the schema: %w", err)
	}
	if len(s) != len(r.leaves) {
		return fmt.Errorf("parquetio: reading the schema: %d columns, then %d", len(r.leaves), len(s))
	}
	r.shadow = s
	return nil
}

// pages returns the pages of column chunk col of row group rg.
func (r *Reader) pages(rg, col int) pageSource {
	m := &r.f.Metadata().RowGroups[rg].Columns[col].MetaData
	return newRawPages(r.ra, &r.raw, r.shadow[col], rg, m)
}

// fileLeaves lists the leaf columns of the file in order.
func fileLeaves(c *parquet.Column, out []*parquet.Column) []*parquet.Column {
	if c.Leaf() {
		return append(out, c)
	}
	for _, ch := range c.Columns() {
		out = fileLeaves(ch, out)
	}
	return out
}

func (r *Reader) plan() error {
	leaves := fileLeaves(r.f.Root(), nil)
	if v, ok := r.f.Lookup(MetaTable); ok {
		var tm TableMeta
		if err := json.Unmarshal([]byte(v), &tm); err == nil && len(tm.Columns) > 0 {
			s, err := schemaFromMeta(&tm)
			if errors.Is(err, errMetaMismatch) || errors.Is(err, errRowValues) {
				return metaError(err)
			}
			if err == nil && samePaths(s, leaves) {
				if err := r.checkMeta(&tm, s, leaves); err != nil {
					return metaError(err)
				}
				r.meta, r.s = &tm, s
			}
		}
	}
	if r.s == nil {
		s, err := r.deriveSchema(leaves)
		if err != nil {
			return err
		}
		r.s = s
	}
	r.s.index()
	if r.meta != nil && r.meta.Kind == "array" {
		c := r.meta.Columns[0]
		dt, _ := npyio.ParseDescr(c.Descr)
		r.dtype, r.shape = dt, append([]int(nil), c.Shape...)
		if len(r.shape) > 0 {
			r.shape[0] = int(r.rows)
		} else if r.rows != 1 {
			return fmt.Errorf("parquetio: a 0-d array with %d rows", r.rows)
		}
	} else {
		r.dtype, r.shape = r.tableDType(), []int{int(r.rows)}
	}
	r.conv = make([]readConv, len(r.s.leaves))
	for i, l := range r.s.leaves {
		rc := readConv{fileCol: leaves[i].Index(), factor: 1, maxDef: leaves[i].MaxDefinitionLevel()}
		l.optional = rc.maxDef > int(l.maxDef)
		if l.isTime {
			f, err := timeFactor(l.dt, leaves[i].Type())
			if err != nil {
				return fmt.Errorf("parquetio: column %s: %w", strings.Join(l.path, "."), err)
			}
			rc.factor = f
		}
		rc.nullNaN = l.dt.Kind == npyio.Float
		r.conv[i] = rc
		if err := checkLeafType(l, leaves[i]); err != nil {
			return err
		}
	}
	return nil
}

// tableDType is the row dtype of a table: one field per column, or the
// column's own type for a single plain column.
func (r *Reader) tableDType() *npyio.DType {
	cols := r.s.cols
	if len(cols) == 1 && cols[0].DType.Kind != npyio.Struct && len(cols[0].Shape) == 0 {
		return cols[0].DType
	}
	fs := make([]npyio.Field, len(cols))
	for i, c := range cols {
		fs[i] = npyio.Field{Name: c.Name, Type: c.DType, Shape: c.Shape}
	}
	dt, err := npyio.NewStruct(fs)
	if err != nil {
		return nil
	}
	return dt
}

func metaError(err error) error {
	return fmt.Errorf("parquetio: npyflow metadata (%s) does not fit the file: %s", MetaTable, strings.TrimPrefix(err.Error(), "parquetio: "))
}

// errMetaMismatch marks metadata that parses but does not describe the
// file (rather than metadata npyflow cannot use, which is ignored).
var errMetaMismatch = errors.New("metadata mismatch")

// checkMeta checks the rows and values per row of the metadata against
// the file's footer, before any row is read.
func (r *Reader) checkMeta(tm *TableMeta, s *Schema, leaves []*parquet.Column) error {
	for _, c := range tm.Columns {
		switch {
		case tm.Kind == "array" && len(c.Shape) == 0:
			if r.rows != 1 {
				return fmt.Errorf("%w: a 0-d array, but the file has %d rows", errMetaMismatch, r.rows)
			}
		case len(c.Shape) == 0 || int64(c.Shape[0]) != r.rows:
			return fmt.Errorf("%w: column %q has shape %v, but the file has %d rows", errMetaMismatch, c.Name, c.Shape, r.rows)
		}
	}
	md := r.f.Metadata()
	for i, l := range s.leaves {
		col := leaves[i].Index()
		for g := range md.RowGroups {
			rows := md.RowGroups[g].NumRows
			got := md.RowGroups[g].Columns[col].MetaData.NumValues
			want, ok := mulInt(int(rows), len(l.entries))
			if !ok || int64(want) != got {
				return fmt.Errorf("%w: the shape gives column %s %d values per row, but row group %d holds %d values for %d rows", errMetaMismatch, strings.Join(l.path, "."), len(l.entries), g, got, rows)
			}
		}
	}
	return nil
}

func schemaFromMeta(tm *TableMeta) (*Schema, error) {
	if tm.Kind == "array" {
		if len(tm.Columns) != 1 {
			return nil, errors.New("bad metadata")
		}
		c := tm.Columns[0]
		dt, err := npyio.ParseDescr(c.Descr)
		if err != nil {
			return nil, err
		}
		return NewArraySchema(&npyio.Header{DType: dt, Shape: c.Shape, FortranOrder: c.FortranOrder}, c.Name)
	}
	cols := make([]Column, len(tm.Columns))
	for i, c := range tm.Columns {
		dt, err := npyio.ParseDescr(c.Descr)
		if err != nil {
			return nil, err
		}
		if len(c.Shape) == 0 {
			return nil, fmt.Errorf("%w: table column %q without rows", errMetaMismatch, c.Name)
		}
		cols[i] = Column{Name: c.Name, DType: dt, Shape: c.Shape[1:], FortranOrder: c.FortranOrder}
	}
	return NewSchema(cols)
}

func samePaths(s *Schema, leaves []*parquet.Column) bool {
	if len(s.leaves) != len(leaves) {
		return false
	}
	for i, l := range s.leaves {
		if strings.Join(l.path, "\x00") != strings.Join(leaves[i].Path(), "\x00") {
			return false
		}
	}
	return true
}

// Header returns the header of the array the file reads back as: the
// source's dtype and shape for files written by npyflow, otherwise a
// structured dtype with one field per column (a plain array for a single
// scalar column).
func (r *Reader) Header() *npyio.Header {
	fo := false
	if r.meta != nil && r.meta.Kind == "array" {
		fo = r.meta.Columns[0].FortranOrder
	}
	return &npyio.Header{DType: r.dtype, Shape: append([]int(nil), r.shape...), FortranOrder: fo}
}

// Columns describes the table's columns (for writing them as separate
// .npz members); their data comes from [Reader.NextColumns].
func (r *Reader) Columns() []Column { return append([]Column(nil), r.s.cols...) }

// IsArray reports whether the file holds one array written by npyflow
// (rather than a table of columns).
func (r *Reader) IsArray() bool { return r.s.array }

// Rows returns the number of rows.
func (r *Reader) Rows() int64 { return r.rows }

// Remaining returns the number of rows not read yet.
func (r *Reader) Remaining() int64 { return r.rows - r.next }

// NextColumns reads up to maxRows rows and returns them as one byte slice
// per column source (native order, C order), valid until the next call.
// At the end it returns io.EOF.
func (r *Reader) NextColumns(maxRows int) (int, [][]byte, error) {
	if r.err != nil {
		return 0, nil, r.err
	}
	if r.next >= r.rows {
		return 0, nil, io.EOF
	}
	if r.next >= r.bufRow+int64(r.bufN) {
		if err := r.loadGroup(); err != nil {
			r.err = err
			return 0, nil, err
		}
	}
	start := int(r.next - r.bufRow)
	n := min(max(maxRows, 1), r.bufN-start)
	if r.out == nil {
		r.out = make([][]byte, len(r.bufs))
	}
	for i, b := range r.bufs {
		rs := r.s.srcs[i]
		r.out[i] = b[start*rs : (start+n)*rs]
	}
	r.next += int64(n)
	return n, r.out, nil
}

// Next reads up to maxRows rows of the dtype of [Reader.Header] (native
// order): for a table of several columns, the columns are interleaved
// into records.
func (r *Reader) Next(maxRows int) (npyio.Batch, error) {
	start := r.next
	n, cols, err := r.NextColumns(maxRows)
	if err != nil {
		return npyio.Batch{}, err
	}
	if len(cols) == 1 {
		return npyio.Batch{Start: start, Rows: n, Data: cols[0]}, nil
	}
	rs := r.dtype.Size
	out := make([]byte, n*rs)
	for i, c := range cols {
		off := r.dtype.Fields[i].Offset
		w := r.s.srcs[i]
		for k := 0; k < n; k++ {
			copy(out[k*rs+off:k*rs+off+w], c[k*w:(k+1)*w])
		}
	}
	return npyio.Batch{Start: start, Rows: n, Data: out}, nil
}

func (r *Reader) loadGroup() error {
	groups := r.f.RowGroups()
	for r.rg < len(groups) && groups[r.rg].NumRows() == 0 {
		r.rg++
	}
	if r.rg >= len(groups) {
		return fmt.Errorf("parquetio: %w: row groups hold fewer rows than the footer's %d", io.ErrUnexpectedEOF, r.rows)
	}
	g := groups[r.rg]
	n := int(g.NumRows())
	if r.bufs == nil {
		r.bufs = make([][]byte, len(r.s.srcs))
	}
	// The pages of every column must hold the values of n rows: a row
	// count the pages do not back is refused before anything is sized
	// by it (and buffers grow as rows decode, see readLeaf).
	for i, l := range r.s.leaves {
		got, err := r.chunkValues(r.rg, r.conv[i].fileCol)
		if err != nil {
			return err
		}
		if want, ok := mulInt(n, len(l.entries)); !ok || int64(want) != got {
			return fmt.Errorf("parquetio: corrupt Parquet file: row group %d claims %d rows, but the pages of column %s hold %d values (%d per row expected)", r.rg, n, strings.Join(l.path, "."), got, len(l.entries))
		}
	}
	r.groupN = n
	for i := range r.bufs {
		r.bufs[i] = r.bufs[i][:0]
	}
	for i, l := range r.s.leaves {
		col := r.conv[i].fileCol
		if err := r.readLeaf(l, r.conv[i], r.pages(r.rg, col), n); err != nil {
			return fmt.Errorf("parquetio: column %s: %w", strings.Join(l.path, "."), err)
		}
	}
	for i := range r.bufs {
		r.grow(i, n)
	}
	r.bufRow = r.next
	r.bufN = n
	r.rg++
	return nil
}

// firstRows is the smallest buffer a row group starts with; buffers
// double as rows decode, up to the row group's row count.
const firstRows = 1 << 14

// grow makes source src's buffer hold at least rows rows (zeroed beyond
// the rows it held), at most the row group's rows.
func (r *Reader) grow(src, rows int) []byte {
	rs := r.s.srcs[src]
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

var errShape = errors.New("values do not match the numpy shape")

func (r *Reader) readLeaf(l *leaf, rc readConv, pages pageSource, n int) error {
	defer pages.Close()
	buf := r.bufs[l.src]
	stride := r.s.srcs[l.src]
	avail := 0 // rows buf holds
	if stride > 0 {
		avail = len(buf) / stride
	}
	row, ei := -1, 0
	maxDef := rc.maxDef
	for {
		p, err := pages.ReadPage()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		vr := p.Values()
		for {
			k, err := readValues(vr, r.vals)
			for _, v := range r.vals[:k] {
				if v.RepetitionLevel() == 0 {
					if row >= 0 && ei != len(l.entries) {
						parquet.Release(p)
						return errShape
					}
					row++
					ei = 0
					if row >= n {
						parquet.Release(p)
						return fmt.Errorf("more rows than the row group's %d", n)
					}
					if row >= avail && stride > 0 {
						buf = r.grow(l.src, min(n, max(row+1, 2*avail)))
						avail = len(buf) / stride
					}
				}
				if ei >= len(l.entries) {
					parquet.Release(p)
					return errShape
				}
				e := l.entries[ei]
				ei++
				if e.null {
					continue
				}
				dst := buf[row*stride+e.off:]
				if v.IsNull() || v.DefinitionLevel() < maxDef {
					if err := setNull(l, dst, rc); err != nil {
						parquet.Release(p)
						return fmt.Errorf("row %d: %w", r.next+int64(row), err)
					}
					continue
				}
				if err := setValue(l, dst, v, rc); err != nil {
					parquet.Release(p)
					return fmt.Errorf("row %d: %w", r.next+int64(row), err)
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				parquet.Release(p)
				return fmt.Errorf("%s: %w", pages.where(), err)
			}
		}
		parquet.Release(p)
	}
	if row+1 != n || (n > 0 && ei != len(l.entries)) {
		return fmt.Errorf("%d rows, the row group has %d", row+1, n)
	}
	return nil
}

func setNull(l *leaf, dst []byte, rc readConv) error {
	switch l.dt.Kind {
	case npyio.Datetime, npyio.Timedelta:
		store(dst, int64(math.MinInt64))
		return nil
	case npyio.Float:
		switch l.dt.Size {
		case 2:
			store(dst, uint16(0x7e00))
		case 4:
			store(dst, float32(math.NaN()))
		default:
			store(dst, math.NaN())
		}
		return nil
	}
	return fmt.Errorf("null value for numpy type %s, which has no null", l.dt.TypeStr())
}

func store[T any](b []byte, v T) {
	_ = b[int(unsafe.Sizeof(v))-1]
	*(*T)(unsafe.Pointer(unsafe.SliceData(b))) = v
}

func setValue(l *leaf, dst []byte, v parquet.Value, rc readConv) error {
	dt := l.dt
	switch dt.Kind {
	case npyio.Bool:
		if v.Boolean() {
			dst[0] = 1
		} else {
			dst[0] = 0
		}
	case npyio.Int, npyio.Uint:
		switch dt.Size {
		case 1:
			dst[0] = byte(v.Int32())
		case 2:
			store(dst, uint16(v.Int32()))
		case 4:
			store(dst, v.Int32())
		default:
			store(dst, v.Int64())
		}
	case npyio.Float:
		switch dt.Size {
		case 2:
			b := v.ByteArray()
			if len(b) != 2 {
				return errors.New("FLOAT16 value is not 2 bytes")
			}
			store(dst, uint16(b[0])|uint16(b[1])<<8)
		case 4:
			store(dst, v.Float())
		default:
			store(dst, v.Double())
		}
	case npyio.Bytes, npyio.Void:
		b := v.ByteArray()
		if len(b) > dt.Size {
			return fmt.Errorf("%d-byte value does not fit %s", len(b), dt.TypeStr())
		}
		copy(dst[:dt.Size], b)
	case npyio.Unicode:
		s := v.ByteArray()
		i := 0
		for len(s) > 0 {
			c, sz := utf8.DecodeRune(s)
			if c == utf8.RuneError && sz <= 1 {
				return errors.New("invalid UTF-8 in a STRING value")
			}
			if (i+1)*4 > dt.Size {
				return fmt.Errorf("string longer than %d characters does not fit %s", dt.Size/4, dt.TypeStr())
			}
			store(dst[i*4:], uint32(c))
			i++
			s = s[sz:]
		}
	case npyio.Datetime, npyio.Timedelta:
		var x int64
		if v.Kind() == parquet.Int32 {
			x = int64(v.Int32())
		} else {
			x = v.Int64()
		}
		switch {
		case rc.factor > 1:
			q := x / rc.factor
			if x%rc.factor != 0 && x < 0 {
				q--
			}
			x = q
		case rc.factor < -1:
			c, ok := convertTime(x, -rc.factor, 1)
			if !ok {
				return fmt.Errorf("time value %d overflows %s", x, dt.TypeStr())
			}
			x = c
		}
		store(dst, x)
	default:
		return fmt.Errorf("cannot read %s", dt.TypeStr())
	}
	return nil
}

// unitNanos is the length of numpy's linear time units in nanoseconds.
var unitNanos = map[string]int64{"W": 604800e9, "D": 86400e9, "h": 3600e9, "m": 60e9, "s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1}

// timeFactor relates the stored column type to the numpy unit: stored =
// numpy*f for f > 0, numpy = stored*(-f) for f < 0.
func timeFactor(dt *npyio.DType, t parquet.Type) (int64, error) {
	lt := t.LogicalType()
	var stored int64
	if lt != nil {
		switch v := lt.Value.(type) {
		case *format.TimestampType:
			switch v.Unit.Value.(type) {
			case *format.MilliSeconds:
				stored = 1e6
			case *format.MicroSeconds:
				stored = 1e3
			default:
				stored = 1
			}
		case *format.DateType:
			stored = 86400e9
		}
	}
	if stored == 0 {
		return 1, nil // plain INT64 in numpy's unit
	}
	un, ok := unitNanos[dt.Unit]
	if !ok {
		return 0, fmt.Errorf("cannot convert %s to numpy unit %s", t, dt.TypeStr())
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

// checkLeafType verifies that a file column can be read as the leaf's type.
func checkLeafType(l *leaf, c *parquet.Column) error {
	k := c.Type().Kind()
	var want parquet.Kind
	switch l.dt.Kind {
	case npyio.Bool:
		want = parquet.Boolean
	case npyio.Int, npyio.Uint:
		want = parquet.Int32
		if l.dt.Size == 8 {
			want = parquet.Int64
		}
	case npyio.Float:
		want = [...]parquet.Kind{2: parquet.FixedLenByteArray, 4: parquet.Float, 8: parquet.Double}[min(l.dt.Size, 8)]
	case npyio.Bytes, npyio.Unicode:
		want = parquet.ByteArray
	case npyio.Void:
		want = parquet.FixedLenByteArray
		if l.dt.Size == 0 {
			want = parquet.ByteArray
		}
	case npyio.Datetime, npyio.Timedelta:
		want = parquet.Int64
		if k == parquet.Int32 {
			want = parquet.Int32
		}
	}
	if k != want {
		return fmt.Errorf("parquetio: column %s is %s, cannot read it as numpy %s", strings.Join(l.path, "."), k, l.dt.TypeStr())
	}
	return nil
}

// deriveSchema maps a Parquet schema without npyflow metadata to numpy.
func (r *Reader) deriveSchema(leaves []*parquet.Column) (*Schema, error) {
	var cols []Column
	for _, c := range r.f.Root().Columns() {
		dt, err := r.deriveType(c, 0)
		if err != nil {
			return nil, err
		}
		cols = append(cols, Column{Name: c.Name(), DType: dt})
	}
	s, err := NewSchema(cols)
	if err != nil {
		return nil, err
	}
	if !samePaths(s, leaves) {
		return nil, errors.New("parquetio: cannot map this Parquet schema to a numpy dtype")
	}
	return s, nil
}

func (r *Reader) deriveType(c *parquet.Column, depth int) (*npyio.DType, error) {
	name := strings.Join(c.Path(), ".")
	if c.Repeated() || depth > 64 {
		return nil, fmt.Errorf("parquetio: column %s is repeated; LIST columns need npyflow's metadata to map to numpy", name)
	}
	t := c.Type()
	lt := t.LogicalType()
	if !c.Leaf() {
		if lt != nil {
			if _, ok := lt.Value.(*format.ListType); ok {
				return nil, fmt.Errorf("parquetio: column %s is a LIST; LIST columns need npyflow's metadata to map to numpy", name)
			}
		}
		var fs []npyio.Field
		for _, ch := range c.Columns() {
			dt, err := r.deriveType(ch, depth+1)
			if err != nil {
				return nil, err
			}
			fs = append(fs, npyio.Field{Name: ch.Name(), Type: dt})
		}
		return npyio.NewStruct(fs)
	}
	if lt != nil {
		switch v := lt.Value.(type) {
		case *format.IntType:
			if v.BitWidth != 8 && v.BitWidth != 16 && v.BitWidth != 32 && v.BitWidth != 64 {
				return nil, fmt.Errorf("parquetio: column %s: corrupt Parquet file: INT(%d) is not an integer type", name, v.BitWidth)
			}
			size := int(v.BitWidth) / 8
			k := npyio.Uint
			if v.IsSigned {
				k = npyio.Int
			}
			return &npyio.DType{Kind: k, Order: orderFor(size), Size: size}, nil
		case *format.Float16Type:
			return npyio.Float16Type, nil
		case *format.DateType:
			return npyio.NewDatetime("D", 1, false)
		case *format.TimestampType:
			u := "ns"
			switch v.Unit.Value.(type) {
			case *format.MilliSeconds:
				u = "ms"
			case *format.MicroSeconds:
				u = "us"
			}
			return npyio.NewDatetime(u, 1, false)
		case *format.StringType, *format.EnumType, *format.JsonType:
			n, err := r.maxLen(c, true)
			if err != nil {
				return nil, err
			}
			return npyio.NewString(npyio.Unicode, n)
		}
	}
	switch t.Kind() {
	case parquet.Boolean:
		return npyio.BoolType, nil
	case parquet.Int32:
		return npyio.Int32Type, nil
	case parquet.Int64:
		return npyio.Int64Type, nil
	case parquet.Float:
		return npyio.Float32Type, nil
	case parquet.Double:
		return npyio.Float64Type, nil
	case parquet.FixedLenByteArray:
		if t.Length() < 0 {
			return nil, fmt.Errorf("parquetio: column %s: corrupt Parquet file: FIXED_LEN_BYTE_ARRAY(%d)", name, t.Length())
		}
		return npyio.NewString(npyio.Void, t.Length())
	case parquet.ByteArray:
		n, err := r.maxLen(c, false)
		if err != nil {
			return nil, err
		}
		return npyio.NewString(npyio.Bytes, n)
	}
	return nil, fmt.Errorf("parquetio: column %s: no numpy type for %s", name, t)
}

func orderFor(size int) byte {
	if size == 1 {
		return npyio.NotApplicable
	}
	return npyio.NativeOrder
}

// maxLen finds the longest value of a BYTE_ARRAY column, in bytes or (for
// strings) characters.
func (r *Reader) maxLen(c *parquet.Column, chars bool) (int, error) {
	longest := 0
	for gi := range r.f.Metadata().RowGroups {
		if _, err := r.chunkValues(gi, c.Index()); err != nil {
			return 0, err
		}
		pages := r.pages(gi, c.Index())
		for {
			p, err := pages.ReadPage()
			if err == io.EOF {
				break
			}
			if err != nil {
				pages.Close()
				return 0, fmt.Errorf("parquetio: column %s: %w", c.Name(), err)
			}
			vr := p.Values()
			for {
				k, err := readValues(vr, r.vals)
				for _, v := range r.vals[:k] {
					n := len(v.ByteArray())
					if chars {
						n = utf8.RuneCount(v.ByteArray())
					}
					longest = max(longest, n)
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					parquet.Release(p)
					pages.Close()
					return 0, fmt.Errorf("parquetio: column %s: %s: %w", c.Name(), pages.where(), err)
				}
			}
			parquet.Release(p)
		}
		pages.Close()
	}
	return longest, nil
}
