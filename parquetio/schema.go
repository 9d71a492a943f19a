package parquetio

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"unsafe"

	"github.com/npyflow/npyflow/npyio"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"
)

// Column is one top-level column of a table: an array whose rows (index
// along axis 0) are elements of DType with shape Shape (the array's axes
// after the first; nil for a 1-d array).
type Column struct {
	Name  string
	DType *npyio.DType // any byte order; data is always given in native order
	Shape []int
	// FortranOrder records the source file's fortran_order in the footer
	// metadata; the data is always given in C order.
	FortranOrder bool
}

// RowSize is the size in bytes of one row of the column.
func (c *Column) RowSize() int {
	n := c.DType.Size
	for _, d := range c.Shape {
		n *= d
	}
	return n
}

// Schema is the Parquet layout of a table of numpy columns, as arrowconv
// maps it: a structured dtype is a group with one field per numpy field in
// numpy's order, a subarray or extra axes is a LIST of the flattened C-order
// values, complex is a group {real, imag}.
//
// Datetime and timedelta columns are planned from the data: [Schema.Observe]
// records whether NaT occurs (the column is OPTIONAL only then) and whether
// the values fit the Parquet logical type after unit conversion (if not,
// they are stored as INT64 in numpy's unit, which is always exact). Without
// observation, time columns are OPTIONAL and values out of range for the
// logical type fail the write with an error naming the column.
//
// A Schema is used by one Writer and is not safe for concurrent use while
// it is being observed.
type Schema struct {
	cols     []Column
	srcs     []int // row size of each data source
	fields   []*node
	leaves   []*leaf
	observed bool
	array    bool // built by NewArraySchema
	zeroD    bool // a 0-d array
	tsUnit   string
	root     parquet.Node
	pq       *parquet.Schema
	planned  bool
	nulls    bool // Options.Nulls applied: the footer describes no numpy layout

	rowValues int // values per row over all leaves (see MaxRowValues)
}

// node is a column of the schema tree.
type node struct {
	name     string
	dt       *npyio.DType // element type (source byte order)
	title    string
	count    int     // values per parent element (product of dims); 1 if scalar
	dims     []int   // flattened shape (nil if scalar)
	children []*node // struct fields or complex parts
	leaf     *leaf   // for leaves
	complex  bool
	nullable bool // OPTIONAL above its list or group (Options.Nulls)
}

// entry is one value position of a leaf within a row.
type entry struct {
	off  int  // byte offset in the source row; -1 for an empty list marker
	rep  byte // repetition level
	def  byte // definition level when present (or of the empty list)
	null bool // empty list marker
}

// time plans.
const (
	timeRaw  = iota // INT64 in numpy's unit
	timeTS          // TIMESTAMP(target unit)
	timeDate        // DATE (INT32 days)
)

// leaf is one Parquet leaf column and how to fill it from row bytes.
type leaf struct {
	path    []string
	src     int
	dt      *npyio.DType // element type (native order), or the part type for complex
	orig    *npyio.DType // element type as given (source byte order); nil for complex parts
	entries []entry
	maxRep  byte
	maxDef  byte // not counting the optional level of a time leaf
	index   int

	// datetime / timedelta
	isTime    bool
	needRange bool // Observe tracks min and max (see needRange)
	hasNaT    bool
	min, max  int64 // over non-NaT values (observed)
	seen      bool
	optional  bool
	plan      int
	mul, div  int64  // value*mul/div converts to the target unit
	unit      string // target unit: "ms", "us", "ns" (timeTS)

	conv func(b []byte, arena *[]byte) (parquet.Value, bool) // set by NewWriter

	// Options.Nulls: valid locates the row's validity byte (a null row
	// is one slot at level 0); nullable makes the leaf itself OPTIONAL
	// (a scalar top-level column), its values one level up.
	valid    *validRef
	nullable bool
}

// NewSchema builds the Parquet layout of a table with the given top-level
// columns, each read from its own data source (see [Writer.WriteColumns]).
// Column names must be unique.
func NewSchema(cols []Column) (*Schema, error) {
	s := &Schema{}
	seen := map[string]bool{}
	for i, c := range cols {
		if c.DType == nil {
			return nil, fmt.Errorf("parquetio: column %q has no dtype", c.Name)
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("parquetio: duplicate column name %q", c.Name)
		}
		seen[c.Name] = true
		if !c.DType.IsSupported() {
			return nil, fmt.Errorf("parquetio: column %q: unsupported dtype %s", c.Name, c.DType)
		}
		s.cols = append(s.cols, c)
		s.srcs = append(s.srcs, c.RowSize())
		f, err := s.buildField(c.Name, "", c.DType, c.Shape, nil, 0, 0, nil, i, 1)
		if err != nil {
			return nil, err
		}
		s.fields = append(s.fields, f)
	}
	if len(s.fields) == 0 {
		return nil, errors.New("parquetio: a table needs at least one column")
	}
	s.index()
	return s, nil
}

// NewArraySchema builds the layout of one array: a structured array (of
// any shape) becomes one column per field, with the extra axes folded into
// each field's list; any other array becomes a single column called name.
// Its data is one source of h.RowSize() bytes per row.
func NewArraySchema(h *npyio.Header, name string) (*Schema, error) {
	dt := h.DType
	if dt.Kind != npyio.Struct {
		var shape []int
		if len(h.Shape) > 1 {
			shape = h.Shape[1:]
		}
		s, err := NewSchema([]Column{{Name: name, DType: dt, Shape: shape, FortranOrder: h.FortranOrder}})
		if err != nil {
			return nil, err
		}
		s.array, s.zeroD = true, len(h.Shape) == 0
		return s, nil
	}
	if !dt.IsSupported() {
		return nil, fmt.Errorf("parquetio: unsupported dtype %s", h.DType)
	}
	if len(dt.Fields) == 0 {
		return nil, errors.New("parquetio: a structured dtype without fields has no columns")
	}
	s := &Schema{array: true, zeroD: len(h.Shape) == 0}
	var outer []int
	if len(h.Shape) > 1 {
		outer = h.Shape[1:]
	}
	s.cols = []Column{{Name: name, DType: dt, Shape: outer, FortranOrder: h.FortranOrder}}
	s.srcs = []int{int(h.RowSize())}
	for i := range dt.Fields {
		f := &dt.Fields[i]
		n, err := s.buildField(f.Name, f.Title, f.Type, f.Shape, outer, dt.Size, f.Offset, nil, 0, 1)
		if err != nil {
			return nil, err
		}
		s.fields = append(s.fields, n)
	}
	s.index()
	return s, nil
}

// buildField builds the node of a field whose values are element dt with
// subarray shape, repeated over outer axes of stride outerStride, at offset
// off within the parent element, then computes its leaves' entries later.
// above is the number of values of the field's parent per row (the product
// of the enclosing axes); the values of every leaf per row are counted
// against [MaxRowValues] before any offset is listed.
func (s *Schema) buildField(name, title string, dt *npyio.DType, shape, outer []int, outerStride, off int, path []string, src int, above int) (*node, error) {
	if len(path) > 64 {
		return nil, errors.New("parquetio: struct nesting too deep")
	}
	n := &node{name: name, title: title, dt: dt, count: 1}
	dims := append(append([]int(nil), outer...), shape...)
	p := append(append([]string(nil), path...), name)
	total := above
	if len(dims) > 0 {
		n.dims = dims
		c, ok := elementCount(dims)
		if !ok {
			return nil, fmt.Errorf("parquetio: column %s: shape %v overflows: %w", strings.Join(p, "."), dims, errRowValues)
		}
		n.count = c
		if total, ok = mulInt(above, c); !ok {
			return nil, fmt.Errorf("parquetio: column %s: %s values per row overflow: %w", strings.Join(p, "."), countString(above, dims), errRowValues)
		}
	}
	if total > MaxRowValues {
		return nil, fmt.Errorf("parquetio: column %s: %s values per row: %w (the limit is %d values in one row of a Parquet table)", strings.Join(p, "."), countString(above, dims), errRowValues, MaxRowValues)
	}
	// Count the values of the leaves (all the leaves of the table) before
	// listing offsets; struct fields count their own.
	if dt.Kind != npyio.Struct {
		k := 1
		if dt.Kind == npyio.Complex {
			k = 2
		}
		v, ok := mulInt(total, k)
		if ok {
			v, ok = addInt(s.rowValues, v)
		}
		if !ok || v > MaxRowValues {
			return nil, fmt.Errorf("parquetio: column %s: %s values per row, more with the columns before: %w (the limit is %d values in one row of a Parquet table)", strings.Join(p, "."), countString(above, dims), errRowValues, MaxRowValues)
		}
		s.rowValues = v
	}
	// offsets of the flattened values relative to the parent element; a
	// field without values in a row (an axis of length 0 here or above)
	// needs none: its leaves get one empty-list marker per row.
	var offs []int
	if total > 0 || len(n.dims) == 0 {
		offs = flatOffsets(outer, outerStride, shape, dt.Size, off)
	}
	switch dt.Kind {
	case npyio.Struct:
		for i := range dt.Fields {
			f := &dt.Fields[i]
			c, err := s.buildField(f.Name, f.Title, f.Type, f.Shape, nil, 0, f.Offset, s.childPath(p, n), src, total)
			if err != nil {
				return nil, err
			}
			n.children = append(n.children, c)
		}
	case npyio.Complex:
		n.complex = true
		half := dt.Size / 2
		part := npyio.Float32Type
		if half == 8 {
			part = npyio.Float64Type
		}
		for i, nm := range []string{"real", "imag"} {
			n.children = append(n.children, &node{name: nm, dt: part, count: 1,
				leaf: &leaf{path: append(s.childPath(p, n), nm), src: src, dt: part, entries: []entry{{off: i * half}}}})
		}
	default:
		n.leaf = &leaf{path: s.leafPath(p, n), src: src, dt: dt.Native(), orig: dt, entries: []entry{{}},
			isTime: dt.Kind == npyio.Datetime || dt.Kind == npyio.Timedelta}
		n.leaf.needRange = n.leaf.isTime && needRange(dt, "", false)
	}
	// Expand the entries of every leaf below n by n's own value offsets.
	n.walkLeaves(func(l *leaf) { l.entries = expand(l.entries, offs, len(n.dims) > 0) })
	return n, nil
}

// errRowValues marks a row layout over MaxRowValues.
var errRowValues = errors.New("too large")

// MaxRowValues is the largest number of values one row may hold across
// all the Parquet columns of a table (the product of a column's extra
// axes and subarray shapes, summed over its leaves): a numpy row is one
// Parquet row, and both reading and writing keep the layout of a row in
// memory (16 bytes per value).
const MaxRowValues = 1 << 24

// elementCount is the product of dims, false on overflow or a negative
// length.
func elementCount(dims []int) (int, bool) {
	c := 1
	for _, d := range dims {
		if d < 0 {
			return 0, false
		}
		var ok bool
		if c, ok = mulInt(c, d); !ok {
			return 0, false
		}
	}
	return c, true
}

func mulInt(a, b int) (int, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	if a == 0 || b == 0 {
		return 0, true
	}
	if a > math.MaxInt/b {
		return 0, false
	}
	return a * b, true
}

func addInt(a, b int) (int, bool) {
	if a < 0 || b < 0 || a > math.MaxInt-b {
		return 0, false
	}
	return a + b, true
}

// countString describes the values per row of a field: its dims, times
// the enclosing count when there is one.
func countString(above int, dims []int) string {
	var sb strings.Builder
	if above != 1 {
		fmt.Fprintf(&sb, "%d x ", above)
	}
	for i, d := range dims {
		if i > 0 {
			sb.WriteString(" x ")
		}
		fmt.Fprint(&sb, d)
	}
	if len(dims) == 0 && above == 1 {
		sb.WriteString("1")
	}
	if c, ok := elementCount(dims); ok && len(dims) > 1 {
		if t, ok := mulInt(above, c); ok {
			fmt.Fprintf(&sb, " = %d", t)
		}
	}
	return sb.String()
}

// childPath is the Parquet path prefix of n's children.
func (s *Schema) childPath(p []string, n *node) []string {
	if len(n.dims) > 0 {
		return append(append([]string(nil), p...), "list", "element")
	}
	return p
}

func (s *Schema) leafPath(p []string, n *node) []string {
	if len(n.dims) > 0 {
		return append(append([]string(nil), p...), "list", "element")
	}
	return p
}

func (n *node) walkLeaves(f func(*leaf)) {
	if n.leaf != nil {
		f(n.leaf)
	}
	for _, c := range n.children {
		c.walkLeaves(f)
	}
}

// flatOffsets lists the byte offsets of the C-order values of a field with
// extra outer axes (stride outerStride) and subarray shape (element size
// size), starting at off.
func flatOffsets(outer []int, outerStride int, shape []int, size, off int) []int {
	offs := []int{off}
	// strides of outer axes: the last outer axis has stride outerStride.
	ostr := make([]int, len(outer))
	st := outerStride
	for i := len(outer) - 1; i >= 0; i-- {
		ostr[i] = st
		st *= outer[i]
	}
	sstr := make([]int, len(shape))
	st = size
	for i := len(shape) - 1; i >= 0; i-- {
		sstr[i] = st
		st *= shape[i]
	}
	strides := append(ostr, sstr...)
	dims := append(append([]int(nil), outer...), shape...)
	for i, d := range dims {
		next := make([]int, 0, len(offs)*d)
		for _, o := range offs {
			for k := 0; k < d; k++ {
				next = append(next, o+k*strides[i])
			}
		}
		offs = next
	}
	return offs
}

// expand applies a node's value offsets to the entries of a leaf below it
// (relative to the node's element). If list is set, the node is a LIST
// level: one more repetition and definition level.
func expand(inner []entry, offs []int, list bool) []entry {
	if !list {
		out := make([]entry, len(inner))
		for i, e := range inner {
			out[i] = e
			if !e.null {
				out[i].off = e.off + offs[0]
			}
		}
		return out
	}
	if len(offs) == 0 {
		// Empty list: one marker at this level.
		return []entry{{off: -1, rep: 0, def: 0, null: true}}
	}
	out := make([]entry, 0, len(offs)*len(inner))
	for k, o := range offs {
		for j, e := range inner {
			ne := e
			if !e.null {
				ne.off = e.off + o
			}
			ne.def = e.def + 1
			switch {
			case j == 0 && k == 0:
				ne.rep = 0
			case j == 0:
				ne.rep = 1
			default:
				ne.rep = e.rep + 1
			}
			out = append(out, ne)
		}
	}
	return out
}

// index numbers the leaves and computes their maximum levels.
func (s *Schema) index() {
	s.leaves = s.leaves[:0]
	var walk func(n *node, rep, def byte)
	walk = func(n *node, rep, def byte) {
		if len(n.dims) > 0 {
			rep++
			def++
		}
		if n.leaf != nil {
			n.leaf.maxRep, n.leaf.maxDef = rep, def
			n.leaf.index = len(s.leaves)
			s.leaves = append(s.leaves, n.leaf)
		}
		for _, c := range n.children {
			walk(c, rep, def)
		}
	}
	for _, f := range s.fields {
		walk(f, 0, 0)
	}
}

// Observe records what the rows of a batch hold in the time columns: NaT,
// and the range of the other values where a conversion could overflow.
// cols holds one byte slice per data source with rows rows each (native
// order, as npyio delivers them); the slices of sources without time
// columns are not read (they may be nil). Call it on every batch of the
// data before [NewWriter] to get REQUIRED time columns where no NaT
// occurs and logical types where values fit.
//
// Only the time columns' bytes are read, in one tight loop per column: a
// datetime64 in ms, us or ns (not converted to a finer unit), a
// timedelta64 or a datetime stored as plain INT64 needs only the NaT
// check, and once a column has shown a NaT it needs nothing more.
func (s *Schema) Observe(cols [][]byte, rows int) {
	s.observed = true
	for _, l := range s.leaves {
		if !l.isTime || (l.hasNaT && !l.needRange) {
			continue
		}
		src := cols[l.src]
		stride := s.srcs[l.src]
		if rows <= 0 || len(src) < rows*stride {
			continue
		}
		if len(l.entries) > 1 {
			s.observeRows(l, src, stride, rows)
			continue
		}
		for _, e := range l.entries {
			if e.null {
				continue
			}
			if !l.needRange {
				if hasNaT(src, e.off, stride, rows) {
					l.hasNaT = true
					break
				}
				continue
			}
			lo, hi, nat, seen := timeRange(src, e.off, stride, rows)
			l.hasNaT = l.hasNaT || nat
			if !seen {
				continue
			}
			if !l.seen {
				l.min, l.max, l.seen = lo, hi, true
			} else {
				l.min, l.max = min(l.min, lo), max(l.max, hi)
			}
		}
	}
}

// observeRows observes a leaf with several values per row, row by row.
func (s *Schema) observeRows(l *leaf, src []byte, stride, rows int) {
	for r := 0; r < rows; r++ {
		row := src[r*stride:]
		for _, e := range l.entries {
			if e.null {
				continue
			}
			v := load[int64](row, e.off)
			if v == math.MinInt64 {
				l.hasNaT = true
				continue
			}
			if !l.needRange {
				continue
			}
			if !l.seen {
				l.min, l.max, l.seen = v, v, true
			} else {
				l.min, l.max = min(l.min, v), max(l.max, v)
			}
		}
	}
}

// hasNaT reports whether the n int64 values at b[off], b[off+stride], ...
// hold NaT.
func hasNaT(b []byte, off, stride, n int) bool {
	_ = b[off+(n-1)*stride+7]
	base := unsafe.Pointer(unsafe.SliceData(b))
	for i, o := 0, off; i < n; i, o = i+1, o+stride {
		if *(*int64)(unsafe.Add(base, o)) == math.MinInt64 {
			return true
		}
	}
	return false
}

// timeRange returns the range of the n int64 values at b[off],
// b[off+stride], ... other than NaT, whether NaT occurs and whether any
// other value does.
func timeRange(b []byte, off, stride, n int) (lo, hi int64, nat, seen bool) {
	_ = b[off+(n-1)*stride+7]
	base := unsafe.Pointer(unsafe.SliceData(b))
	lo, hi = math.MaxInt64, math.MinInt64
	for i, o := 0, off; i < n; i, o = i+1, o+stride {
		v := *(*int64)(unsafe.Add(base, o))
		if v == math.MinInt64 {
			nat = true
			continue
		}
		lo, hi = min(lo, v), max(hi, v)
		seen = true
	}
	return lo, hi, nat, seen
}

// observeDone reports whether observing more data could not change the
// layout: every time column has shown a NaT and needs no value range.
func (s *Schema) observeDone() bool {
	for _, l := range s.leaves {
		if l.isTime && (!l.hasNaT || l.needRange) {
			return false
		}
	}
	return true
}

// observeFor tells Observe the TimestampUnit the writer will use, so that
// it tracks value ranges only where a conversion multiplies. Without it,
// ms and us datetimes keep their range (a writer could convert them to
// ns).
func (s *Schema) observeFor(tsUnit string) {
	for _, l := range s.leaves {
		if l.isTime {
			l.needRange = needRange(l.dt, tsUnit, true)
		}
	}
}

// needRange reports whether storing time values of dt may overflow, so
// that their range must be observed.
func needRange(dt *npyio.DType, tsUnit string, known bool) bool {
	if dt.Kind != npyio.Datetime {
		return false // timedelta64: plain INT64
	}
	t, ok := timeTargets[dt.Unit]
	if !ok || dt.UnitMult < 1 {
		return false // plain INT64 in numpy's unit
	}
	if t.date || t.mul != 1 || dt.UnitMult != 1 {
		return true // scaled: s, m, h, D, W, multiples
	}
	if !known {
		return dt.Unit != "ns"
	}
	return tsUnit != "" && unitPerSecond[tsUnit] > unitPerSecond[t.unit]
}

// HasTime reports whether the table has datetime64 or timedelta64 values,
// for which observing the data first gives a better layout.
func (s *Schema) HasTime() bool {
	for _, l := range s.leaves {
		if l.isTime {
			return true
		}
	}
	return false
}

// unitNanos are the durations of numpy's linear units, in a common base
// (attoseconds would overflow; use a (unit -> target, factor) table).
var timeTargets = map[string]struct {
	unit string
	mul  int64
	date bool
}{
	"W":  {"D", 7, true},
	"D":  {"D", 1, true},
	"h":  {"ms", 3600000, false},
	"m":  {"ms", 60000, false},
	"s":  {"ms", 1000, false},
	"ms": {"ms", 1, false},
	"us": {"us", 1, false},
	"ns": {"ns", 1, false},
}

var unitPerSecond = map[string]int64{"ms": 1e3, "us": 1e6, "ns": 1e9}

// plan fixes the Parquet type of every time leaf.
func (s *Schema) plan(tsUnit string) error {
	s.tsUnit = tsUnit
	for _, l := range s.leaves {
		if l.isTime {
			p := s.timePlanOf(l, tsUnit)
			l.optional, l.plan, l.mul, l.div, l.unit = p.optional, p.plan, p.mul, p.div, p.unit
		}
	}
	return nil
}

// planChanged reports whether what has been observed since plan would
// give a time leaf another layout.
func (s *Schema) planChanged() bool {
	for _, l := range s.leaves {
		if l.isTime && s.timePlanOf(l, s.tsUnit) != (timePlan{l.optional, l.plan, l.mul, l.div, l.unit}) {
			return true
		}
	}
	return false
}

// timePlan is the layout of a time leaf.
type timePlan struct {
	optional bool
	plan     int
	mul, div int64
	unit     string
}

// timePlanOf plans time leaf l from what has been observed.
func (s *Schema) timePlanOf(l *leaf, tsUnit string) timePlan {
	raw := timePlan{optional: l.hasNaT || !s.observed, plan: timeRaw, mul: 1, div: 1}
	if l.dt.Kind != npyio.Datetime {
		return raw
	}
	t, ok := timeTargets[l.dt.Unit]
	if !ok || l.dt.UnitMult < 1 {
		return raw
	}
	mul, ok := mulOK(t.mul, l.dt.UnitMult)
	if !ok {
		return raw
	}
	plan, unit, div := timeTS, t.unit, int64(1)
	if t.date {
		plan = timeDate
	} else if tsUnit != "" && tsUnit != unit {
		from, to := unitPerSecond[unit], unitPerSecond[tsUnit]
		if to > from {
			if mul, ok = mulOK(mul, to/from); !ok {
				return raw
			}
		} else {
			div = from / to
		}
		unit = tsUnit
	}
	if s.observed && l.seen && !fits(l.min, l.max, mul, div, plan == timeDate) {
		return raw
	}
	return timePlan{optional: raw.optional, plan: plan, mul: mul, div: div, unit: unit}
}

func mulOK(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if c/b != a {
		return 0, false
	}
	return c, true
}

// fits reports whether every value in [lo, hi] converts without overflow.
func fits(lo, hi, mul, div int64, date bool) bool {
	for _, v := range []int64{lo, hi} {
		c, ok := convertTime(v, mul, div)
		if !ok || c == math.MinInt64 {
			return false
		}
		if date && (c < math.MinInt32 || c > math.MaxInt32) {
			return false
		}
	}
	return true
}

// convertTime computes v*mul/div (floor division), reporting overflow.
func convertTime(v, mul, div int64) (int64, bool) {
	if mul != 1 {
		c := v * mul
		if v != 0 && (c/mul != v || (v == -1 && mul == math.MinInt64)) {
			return 0, false
		}
		v = c
	}
	if div != 1 {
		q := v / div
		if v%div != 0 && v < 0 {
			q--
		}
		v = q
	}
	return v, true
}

// parquetSchema builds the parquet-go schema (after plan).
func (s *Schema) parquetSchema(opts *Options) *parquet.Schema {
	fields := make([]parquet.Field, len(s.fields))
	for i, f := range s.fields {
		fields[i] = namedField{Node: s.nodeOf(f, opts), name: f.name}
	}
	s.root = &group{fields: fields}
	s.pq = parquet.NewSchema("schema", s.root)
	return s.pq
}

func (s *Schema) nodeOf(n *node, opts *Options) parquet.Node {
	var pn parquet.Node
	if n.leaf != nil {
		pn = s.leafNode(n.leaf, opts)
	} else {
		fields := make([]parquet.Field, len(n.children))
		for i, c := range n.children {
			fields[i] = namedField{Node: s.nodeOf(c, opts), name: c.name}
		}
		pn = &group{fields: fields}
	}
	if len(n.dims) > 0 {
		pn = parquet.List(pn)
	}
	if n.nullable {
		pn = parquet.Optional(pn)
	}
	return pn
}

func (s *Schema) leafNode(l *leaf, opts *Options) parquet.Node {
	var pn parquet.Node
	dt := l.dt
	switch dt.Kind {
	case npyio.Bool:
		pn = parquet.Leaf(parquet.BooleanType)
	case npyio.Int:
		pn = parquet.Int(dt.Size * 8)
	case npyio.Uint:
		pn = parquet.Uint(dt.Size * 8)
	case npyio.Float:
		switch dt.Size {
		case 2:
			pn = parquet.Leaf(float16Type{parquet.FixedLenByteArrayType(2)})
		case 4:
			pn = parquet.Leaf(parquet.FloatType)
		default:
			pn = parquet.Leaf(parquet.DoubleType)
		}
	case npyio.Bytes:
		pn = parquet.Leaf(parquet.ByteArrayType)
	case npyio.Unicode:
		pn = parquet.String()
	case npyio.Void:
		if dt.Size == 0 {
			pn = parquet.Leaf(parquet.ByteArrayType)
		} else {
			pn = parquet.Leaf(parquet.FixedLenByteArrayType(dt.Size))
		}
	case npyio.Datetime, npyio.Timedelta:
		switch l.plan {
		case timeTS:
			u := map[string]parquet.TimeUnit{"ms": parquet.Millisecond, "us": parquet.Microsecond, "ns": parquet.Nanosecond}[l.unit]
			pn = parquet.TimestampAdjusted(u, opts.isUTC(strings.Join(l.path, ".")))
		case timeDate:
			pn = parquet.Date()
		default:
			pn = parquet.Leaf(parquet.Int64Type)
		}
	}
	name := strings.Join(l.path, ".")
	if opts != nil {
		// Booleans take one bit a value already, and arrow-go panics
		// on a dictionary-encoded BOOLEAN column.
		if opts.hasDict(name) && l.dt.Kind != npyio.Bool {
			pn = parquet.Encoded(pn, &parquet.RLEDictionary)
		}
	}
	if l.optional || l.nullable {
		pn = parquet.Optional(pn)
	}
	return pn
}

// float16Type is FIXED_LEN_BYTE_ARRAY(2) annotated FLOAT16; parquet-go has
// no constructor for it.
type float16Type struct{ parquet.Type }

var float16Logical = format.LogicalType{Value: new(format.Float16Type)}

func (float16Type) String() string                   { return "FIXED_LEN_BYTE_ARRAY(2) (FLOAT16)" }
func (float16Type) LogicalType() *format.LogicalType { return &float16Logical }

// group is a Parquet group node that keeps its fields in the given order
// (parquet.Group is a map and sorts them by name).
type group struct{ fields []parquet.Field }

func (g *group) ID() int { return 0 }
func (g *group) String() string {
	var sb strings.Builder
	sb.WriteString("group {")
	for i, f := range g.fields {
		if i > 0 {
			sb.WriteString("; ")
		}
		sb.WriteString(f.Name())
	}
	sb.WriteString("}")
	return sb.String()
}
func (g *group) Type() parquet.Type          { return parquet.Group{}.Type() }
func (g *group) Optional() bool              { return false }
func (g *group) Repeated() bool              { return false }
func (g *group) Required() bool              { return true }
func (g *group) Leaf() bool                  { return false }
func (g *group) Fields() []parquet.Field     { return g.fields }
func (g *group) Encoding() encoding.Encoding { return nil }
func (g *group) Compression() compress.Codec { return nil }
func (g *group) GoType() reflect.Type {
	sf := make([]reflect.StructField, len(g.fields))
	for i, f := range g.fields {
		sf[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: f.GoType(), Tag: reflect.StructTag(fmt.Sprintf("parquet:%q", f.Name()))}
	}
	return reflect.StructOf(sf)
}

type namedField struct {
	parquet.Node
	name string
}

func (f namedField) Name() string                           { return f.name }
func (f namedField) Value(base reflect.Value) reflect.Value { return reflect.Value{} }

// ColumnPaths lists the dotted Parquet paths of the leaf columns.
func (s *Schema) ColumnPaths() []string {
	out := make([]string, len(s.leaves))
	for i, l := range s.leaves {
		out[i] = strings.Join(l.path, ".")
	}
	return out
}

func (s *Schema) hasColumn(name string) bool {
	for _, p := range s.ColumnPaths() {
		if p == name || strings.HasPrefix(p, name+".") {
			return true
		}
	}
	return false
}
