package parquetio

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
	"github.com/parquet-go/parquet-go/format"
)

// Reader reads a Parquet file back into numpy rows.
//
// A file written by [Writer] carries npyflow's metadata ([MetaTable]) and
// comes back exactly: same dtype (byte order, titles, padding included),
// same shape. Any other file is mapped from its Parquet schema (see the
// package documentation's table): BOOLEAN -> b1, INT(8..64) and the legacy
// INT_8.. converted types -> i1..i8 / u1..u8 (plain INT32/INT64 -> i4/i8),
// FLOAT -> f4, DOUBLE -> f8, FLOAT16 -> f2, DECIMAL(p,s) -> f8 correctly
// rounded, TIMESTAMP(unit) -> M8[unit], INT96 -> M8[ns] (M8[us] or M8[ms]
// for values beyond its range), DATE -> M8[D],
// TIME(unit) -> m8[unit], STRING/ENUM/JSON -> U<n> and BYTE_ARRAY -> S<n>
// with n the longest value (found by a first pass over those columns),
// FIXED_LEN_BYTE_ARRAY(n) and UUID -> V<n>, groups -> nested structs,
// top-level lists of primitives of one length -> subarrays. Nulls become
// NaT in time columns and NaN in float columns and are refused elsewhere
// (a [*NullError]; see [ReadOptions] for fill values and validity
// fields). INTERVAL becomes a (months, days, milliseconds) struct of u4.
// MAP and other list columns of foreign files are refused with an error
// naming the column.
//
// Rows are decoded one row group at a time, or a window of small row
// groups at a time (the next window decoded ahead), so memory is bounded
// by the largest row group or two windows of 16 MiB (up to 64 MiB with
// more than 8 threads); columns and row groups are decoded in parallel
// (up to ReadOptions.Threads goroutines, GOMAXPROCS by default). A Reader
// left before its last row may still be decoding the window after the
// rows read, on its goroutines, which end when that window is done (its
// rows dropped). A Reader is not safe for concurrent use.
type Reader struct {
	ra     io.ReaderAt
	size   int64
	fmd    *format.FileMetaData // the footer as npyflow decoded and checked it
	pf     *file.Reader         // arrow-go's reader of the same footer
	scan   chunkScanner
	held   *heldReader      // what arrow-go reads through (nil: ra)
	leaves []*schema.Column // the file's leaf columns, by index
	values [][]int64        // data-page values per row group and file column, -1 until scanned
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
	sel    []int   // ReadOptions.Columns: the file leaf of each leaf read
	byTop  [][]int // the file's leaves of each top-level field (leavesByTop), once needed
	err    error
	out    [][]byte
	decs   []*leafDecoder
	ahead  *ahead   // the window decoded ahead (prefetch), if any
	spare  [][]byte // row buffers of the rows before those held, for it
	noData bool     // Describe: read no data (string widths unknown)
	// warnings are what was read differently from what the file says
	// (Reader.Warnings).
	warnings []string
	opts     *ReadOptions
	// interleaved: the row buffer holds whole rows of dtype (chosen by a
	// first call of Next on a table of several columns), strides the row
	// size of each buffer.
	interleaved bool
	strides     []int

	// The rows as shown (foreign files): INTERVAL columns (ext, by
	// column) are decoded as V12 and shown as structs; validity fields
	// (validity.go) come from masks (maskW[i] bytes per row of the row
	// group, 0 where null: one, or one per list element) that leaves
	// record (vrec, by leaf); a leaf's nulls below level explain[leaf]
	// are recorded by a validity field.
	ext       map[int]*npyio.DType
	tops      []schema.Node // foreign files: the file's node of each column
	masks     [][]byte
	maskW     []int
	vrec      [][]vrec
	srcLeaves [][]int // by column: its leaves (indexes in s.leaves)
	explain   []int16
	shown     []shownCol // nil: the rows as decoded (or same bytes)
	outDT     *npyio.DType
	outCols   []Column
}

type readConv struct {
	fileCol int
	maxDef  int
	maxRep  int
	factor  int64 // stored = numpy*factor (factor>0) or numpy = stored*(-factor)
	kind    convKind
	scale   int    // DECIMAL scale
	fill    []byte // the value of a null, if a fill value is given
	// nullList: a list column whose rows are null below this definition
	// level (0: not a nullable list).
	nullList int16
	list     string // a list column of a foreign file: its name (for null errors)
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
	return newReader(r, size, nil)
}

func newReader(r io.ReaderAt, size int64, opts *ReadOptions) (*Reader, error) {
	if opts != nil && opts.Threads < 0 {
		return nil, fmt.Errorf("parquetio: ReadOptions.Threads %d: want 0 (GOMAXPROCS) or more", opts.Threads)
	}
	held := newHeldReader(r)
	f, err := openParquet(held, size)
	if err != nil {
		return nil, err
	}
	rd := &Reader{ra: r, held: held, size: size, fmd: f.fmd, pf: f.pf, leaves: f.leaves, rows: f.rows, warnings: f.warnings, opts: opts}
	rd.values = make([][]int64, len(f.fmd.RowGroups))
	if err := rd.plan(); err != nil {
		return nil, err
	}
	return rd, nil
}

// parquetFile is a file's footer as npyflow decoded and checked it, and
// arrow-go's reader of the same footer.
type parquetFile struct {
	fmd      *format.FileMetaData
	pf       *file.Reader
	leaves   []*schema.Column // the file's leaf columns, by index
	rows     int64            // the rows of the row groups
	warnings []string
}

// openParquet checks and decodes the footer of r (of size size) and
// opens it with arrow-go's Parquet reader, reading through ra (r, or a
// heldReader of r).
func openParquet(r io.ReaderAt, size int64) (*parquetFile, error) {
	src := r
	if h, ok := r.(*heldReader); ok {
		src = h.src
	}
	footer, err := readFooter(src, size)
	if err != nil {
		return nil, err
	}
	fmd, unknown, err := decodeFooter(footer)
	if errors.Is(err, errEncryptedColumn) {
		return nil, fmt.Errorf("parquetio: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("parquetio: %w: undecodable footer: %v", errCorrupt, err)
	}
	if err := checkSchemaTree(fmd.Schema); err != nil {
		return nil, fmt.Errorf("parquetio: %w", err)
	}
	var warnings []string
	if len(unknown) > 0 {
		// The Parquet spec: a reader ignores a logical type it does not
		// know and reads the physical type. arrow-go refuses it (it
		// panics), so it gets the footer without them.
		paths := schemaPaths(fmd.Schema)
		for _, u := range unknown {
			warnings = append(warnings, fmt.Sprintf("column %s: %s ignored, as the Parquet format says: read as its physical type %s", paths[u.element], u.what, physicalName(&fmd.Schema[u.element])))
		}
		footer = patchFooter(footer, unknown)
		if _, again, err := decodeFooter(footer); err != nil || len(again) > 0 {
			return nil, fmt.Errorf("parquetio: %w: column %s: a logical type that cannot be ignored", errCorrupt, paths[unknown[0].element])
		}
	}
	pf, err := openArrowFile(r, size, footer)
	if err != nil {
		return nil, err
	}
	leaves := fileLeaves(pf)
	rows, err := checkFooterChunks(fmd, size-8-int64(len(footer)), len(leaves))
	if err != nil {
		return nil, fmt.Errorf("parquetio: %w", err)
	}
	if rows != fmd.NumRows {
		// DuckDB reads the row groups' rows too.
		warnings = append(warnings, fmt.Sprintf("the footer says %d rows, its row groups hold %d: reading the row groups' rows", fmd.NumRows, rows))
	}
	return &parquetFile{fmd: fmd, pf: pf, leaves: leaves, rows: rows, warnings: warnings}, nil
}

// openArrowFile opens r with arrow-go's Parquet reader, with the footer
// bytes footer (checked and decoded by npyflow first).
func openArrowFile(r io.ReaderAt, size int64, footer []byte) (pf *file.Reader, err error) {
	props := parquet.NewReaderProperties(nil)
	props.MaxUncompressedPageSize = pageSizeLimit
	err = guard(func() error {
		md, err := metadata.NewFileMetaData(footer, nil)
		if err != nil {
			return err
		}
		md.SetSourceFileSize(size)
		pf, err = file.NewParquetReader(io.NewSectionReader(r, 0, size), file.WithReadProps(props), file.WithMetadata(md))
		if err == nil {
			// Cached on the first call: made here, before goroutines
			// open row groups at once (RowGroup reads it).
			pf.WriterVersion()
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("parquetio: %w", err)
	}
	return pf, nil
}

// guard runs f, a call into arrow-go's Parquet decoders, and turns a panic
// of theirs into a corrupt-data error. Only calls that run arrow-go code
// alone are guarded: a panic in npyflow's own code is never recovered.
func guard(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = corrupt("arrow-go cannot decode it: %v", p)
		}
	}()
	return f()
}

// readFooter checks the magic bytes and the footer length against the
// file size and returns the footer's bytes.
func readFooter(r io.ReaderAt, size int64) ([]byte, error) {
	if size < 12 {
		return nil, fmt.Errorf("parquetio: not a Parquet file: %d bytes", size)
	}
	var head, tail [4]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, fmt.Errorf("parquetio: reading the header: %w", err)
	}
	var t8 [8]byte
	if _, err := r.ReadAt(t8[:], size-8); err != nil {
		return nil, fmt.Errorf("parquetio: reading the footer: %w", err)
	}
	copy(tail[:], t8[4:])
	if string(head[:]) != "PAR1" || string(tail[:]) != "PAR1" {
		if string(head[:]) == "PAR1" && string(tail[:]) == "PARE" {
			return nil, fmt.Errorf("parquetio: an encrypted footer (Parquet modular encryption is not read)")
		}
		return nil, fmt.Errorf("parquetio: not a Parquet file (no PAR1 magic at both ends)")
	}
	n := int64(binary.LittleEndian.Uint32(t8[:4]))
	if n > size-12 {
		return nil, fmt.Errorf("parquetio: corrupt footer: its length field says %d bytes, but the file has %d", n, size)
	}
	footer := make([]byte, n)
	if k, err := r.ReadAt(footer, size-8-n); int64(k) < n {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("parquetio: reading the footer: %w", err)
	}
	return footer, nil
}

// checkFooter decodes and checks the footer of r (tests).
func checkFooter(r io.ReaderAt, size int64) (*format.FileMetaData, int64, error) {
	f, err := openParquet(r, size)
	if err != nil {
		return nil, 0, err
	}
	return f.fmd, 0, nil
}

// schemaPaths gives the dotted path of each schema element (the root's
// is empty); the tree is checked (checkSchemaTree).
func schemaPaths(s []format.SchemaElement) []string {
	paths := make([]string, len(s))
	type open struct {
		prefix string
		left   int32
	}
	var stack []open
	for i := range s {
		prefix := ""
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			prefix = top.prefix
			top.left--
		}
		if i > 0 {
			paths[i] = prefix + s[i].Name
		}
		if c := s[i].NumChildren; c.Valid && c.V > 0 {
			p := paths[i]
			if p != "" {
				p += "."
			}
			stack = append(stack, open{p, c.V})
		}
		for len(stack) > 0 && stack[len(stack)-1].left == 0 {
			stack = stack[:len(stack)-1]
		}
	}
	return paths
}

// physicalName names the physical type of a schema element.
func physicalName(e *format.SchemaElement) string {
	if !e.Type.Valid {
		return "(none: a group)"
	}
	return e.Type.V.String()
}

// chunkValues checks the page headers of a column chunk (once) and
// returns the number of values its data pages hold.
func (r *Reader) chunkValues(rg, col int) (int64, error) {
	return r.chunkValuesWith(&r.scan, rg, col)
}

// chunkValuesWith is chunkValues with the scanner cs: goroutines checking
// different chunks at once, each with its scanner, may call it once
// r.values[rg] is allocated.
func (r *Reader) chunkValuesWith(cs *chunkScanner, rg, col int) (int64, error) {
	if r.fmd.RowGroups[rg].NumRows == 0 {
		return 0, nil // never read
	}
	vs := r.values[rg]
	if vs == nil {
		vs = make([]int64, len(r.fmd.RowGroups[rg].Columns))
		for i := range vs {
			vs[i] = -1
		}
		r.values[rg] = vs
	}
	if vs[col] >= 0 {
		return vs[col], nil
	}
	m := &r.fmd.RowGroups[rg].Columns[col].MetaData
	var n int64
	var err error
	if r.held != nil {
		n, err = cs.scanChunk(r.held, m)
	} else {
		n, err = cs.scan(r.ra, m)
	}
	if err != nil {
		return 0, fmt.Errorf("parquetio: column %s, row group %d: %w", strings.Join(m.PathInSchema, "."), rg, err)
	}
	vs[col] = n
	return n, nil
}

// fileLeaves lists the leaf columns of the file in order.
func fileLeaves(pf *file.Reader) []*schema.Column {
	sc := pf.MetaData().Schema
	out := make([]*schema.Column, sc.NumColumns())
	for i := range out {
		out[i] = sc.Column(i)
	}
	return out
}

func (r *Reader) plan() error {
	leaves := r.leaves
	if v := r.pf.MetaData().KeyValueMetadata().FindValue(MetaTable); v != nil && !r.opts.selects() {
		var tm TableMeta
		if err := json.Unmarshal([]byte(*v), &tm); err == nil && len(tm.Columns) > 0 {
			s, err := schemaFromMeta(&tm)
			if errors.Is(err, errMetaMismatch) || errors.Is(err, errRowValues) {
				return metaError(err)
			}
			if err == nil && samePaths(s, leaves) {
				if err := r.checkMeta(&tm, s); err != nil {
					return metaError(err)
				}
				r.meta, r.s = &tm, s
			}
		}
	}
	if r.s == nil {
		s, err := r.deriveSchema()
		if err != nil {
			return err
		}
		r.s = s
	}
	r.s.index()
	if err := r.opts.checkFill(r.s); err != nil {
		return err
	}
	if r.meta != nil && r.meta.Kind == "array" {
		c := r.meta.Columns[0]
		dt, _ := npyio.ParseDescr(c.Descr)
		r.dtype, r.shape = dt, append([]int(nil), c.Shape...)
		if len(r.shape) > 0 {
			r.shape[0] = int(r.rows)
		} else if r.rows != 1 {
			return fmt.Errorf("parquetio: a 0-d array with %d rows", r.rows)
		}
	} else if c := r.s.cols; len(c) == 1 && c[0].DType.Kind != npyio.Struct && len(c[0].Shape) > 0 {
		// A single list column of one length reads as its elements, one
		// subarray per row, as arrowconv maps the same column.
		r.dtype, r.shape = c[0].DType, append([]int{int(r.rows)}, c[0].Shape...)
	} else {
		r.dtype, r.shape = r.tableDType(), []int{int(r.rows)}
	}
	r.conv = make([]readConv, len(r.s.leaves))
	for i, l := range r.s.leaves {
		fc := i
		if r.sel != nil {
			fc = r.sel[i]
		}
		c := leaves[fc]
		rc := readConv{fileCol: fc, factor: 1, maxDef: int(c.MaxDefinitionLevel()), maxRep: int(c.MaxRepetitionLevel())}
		l.optional = rc.maxDef > int(l.maxDef)
		if err := planConv(l, c, &rc, r.meta != nil); err != nil {
			return fmt.Errorf("parquetio: column %s: %w", strings.Join(l.path, "."), err)
		}
		if v, ok := r.opts.fillFor(l.path); ok {
			b, err := arrowconv.FillValue(l.dt, v)
			if err != nil {
				return fmt.Errorf("parquetio: column %s: fill value: %w", strings.Join(l.path, "."), err)
			}
			rc.fill = b
		}
		r.conv[i] = rc
	}
	if r.meta == nil {
		if err := r.planOutput(); err != nil {
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
func (r *Reader) checkMeta(tm *TableMeta, s *Schema) error {
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
	md := r.fmd
	for i, l := range s.leaves {
		for g := range md.RowGroups {
			rows := md.RowGroups[g].NumRows
			got := md.RowGroups[g].Columns[i].MetaData.NumValues
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

func samePaths(s *Schema, leaves []*schema.Column) bool {
	if len(s.leaves) != len(leaves) {
		return false
	}
	for i, l := range s.leaves {
		if strings.Join(l.path, "\x00") != strings.Join(leaves[i].ColumnPath(), "\x00") {
			return false
		}
	}
	return true
}

// Header returns the header of the array the file reads back as: the
// source's dtype and shape for files written by npyflow, otherwise a
// structured dtype with one field per column (a plain array for a single
// scalar column, and one of shape (rows, n...) for a single list column
// of one length).
func (r *Reader) Header() *npyio.Header {
	fo := false
	if r.meta != nil && r.meta.Kind == "array" {
		fo = r.meta.Columns[0].FortranOrder
	}
	dt, shape := r.dtype, r.shape
	if r.outDT != nil {
		dt, shape = r.outDT, shape[:1] // validity fields: one record per row
	}
	return &npyio.Header{DType: dt, Shape: append([]int(nil), shape...), FortranOrder: fo}
}

// Columns describes the table's columns (for writing them as separate
// .npz members), validity fields included; their data comes from
// [Reader.NextColumns].
func (r *Reader) Columns() []Column {
	if r.outCols != nil {
		return append([]Column(nil), r.outCols...)
	}
	return append([]Column(nil), r.s.cols...)
}

// IsArray reports whether the file holds one array written by npyflow
// (rather than a table of columns).
func (r *Reader) IsArray() bool { return r.s.array }

// Rows returns the number of rows: those of the file's row groups.
func (r *Reader) Rows() int64 { return r.rows }

// Warnings returns what the Reader read otherwise than the file says, one
// sentence each: a logical type it does not know (read as the physical
// type, as the Parquet format says), a footer row count its row groups
// do not hold (their rows are read, as DuckDB does).
func (r *Reader) Warnings() []string { return r.warnings }

// Remaining returns the number of rows not read yet.
func (r *Reader) Remaining() int64 { return r.rows - r.next }

// NextColumns reads up to maxRows rows and returns them as one byte slice
// per column source (native order, C order), valid until the next call.
// A Reader whose first call was [Reader.Next] decodes records, which
// NextColumns then splits (a copy).
// At the end it returns io.EOF.
func (r *Reader) NextColumns(maxRows int) (int, [][]byte, error) {
	if r.err != nil {
		return 0, nil, r.err
	}
	if r.bufs == nil {
		r.layout(false)
	}
	n, cols, err := r.nextRows(maxRows)
	if err == nil && r.shown != nil {
		return n, r.shownColumns(n, int(r.next-int64(n)-r.bufRow), cols), nil
	}
	if err != nil || !r.interleaved {
		return n, cols, err
	}
	// Rows decoded as records (Next came first): split them.
	rs := r.dtype.Size
	out := make([][]byte, len(r.s.srcs))
	for i, w := range r.s.srcs {
		off := r.dtype.Fields[i].Offset
		c := make([]byte, n*w)
		for k := 0; k < n; k++ {
			copy(c[k*w:(k+1)*w], cols[0][k*rs+off:k*rs+off+w])
		}
		out[i] = c
	}
	return n, out, nil
}

func (r *Reader) nextRows(maxRows int) (int, [][]byte, error) {
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
		rs := r.strides[i]
		r.out[i] = b[start*rs : (start+n)*rs]
	}
	r.next += int64(n)
	return n, r.out, nil
}

// Next reads up to maxRows rows of the dtype of [Reader.Header] (native
// order): for a table of several columns, the columns are decoded
// straight into records when Next is called before [Reader.NextColumns]
// (either may follow the other; the second one then copies). The batch's
// data is valid until the next call.
func (r *Reader) Next(maxRows int) (npyio.Batch, error) {
	if r.err != nil {
		return npyio.Batch{}, r.err
	}
	if r.bufs == nil {
		r.layout(r.shown == nil) // validity fields are added to column sources
	}
	start := r.next
	n, cols, err := r.nextRows(maxRows)
	if err != nil {
		return npyio.Batch{}, err
	}
	if r.shown != nil {
		return npyio.Batch{Start: start, Rows: n, Data: r.widen(n, int(start-r.bufRow), cols)}, nil
	}
	if len(cols) == 1 {
		return npyio.Batch{Start: start, Rows: n, Data: cols[0]}, nil
	}
	// Rows decoded by column (NextColumns came first): interleave them.
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
