package parquetio

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
)

// deriveSchema maps a Parquet schema without npyflow metadata to numpy.
func (r *Reader) deriveSchema() (*Schema, error) {
	root := r.pf.MetaData().Schema.Root()
	order, err := r.selectColumns(root)
	if err != nil {
		return nil, err
	}
	var cols []Column
	for _, i := range order {
		c := root.Field(i)
		if elem, ok := listElement(c); ok {
			// A list of primitives: a subarray when every row's list
			// has the same length.
			dt, n, err := r.listColumn(c, elem)
			if err != nil {
				return nil, err
			}
			cols = append(cols, Column{Name: c.Name(), DType: dt, Shape: []int{n}})
			r.tops = append(r.tops, c)
			continue
		}
		dt, err := r.deriveType(c, 0)
		if err != nil {
			return nil, err
		}
		name := c.Name()
		if p, ok := c.(*schema.PrimitiveNode); ok {
			if isInterval(p) {
				// Decoded as its 12 bytes, shown as the struct of the
				// three little-endian uint32 the format defines.
				if r.ext == nil {
					r.ext = map[int]*npyio.DType{}
				}
				r.ext[len(cols)] = dt
				dt, _ = npyio.NewString(npyio.Void, 12)
			}
			if sc, ok := scaledDecimal(p, r.opts); ok {
				name = arrowconv.ScaledName(name, sc)
			}
		}
		cols = append(cols, Column{Name: name, DType: dt})
		r.tops = append(r.tops, c)
	}
	s, err := NewSchema(cols)
	if err != nil {
		return nil, err
	}
	// List levels may have any names (list/element, array, bag/array_element,
	// a repeated primitive): the leaves read the file's own paths.
	// The file's leaves of the columns read, in their order.
	leaves := r.leaves
	if r.opts.selects() {
		leaves = nil
		r.sel = nil
		if r.byTop == nil {
			r.byTop = leavesByTop(r.leaves, root)
		}
		for _, i := range order {
			for _, j := range r.byTop[i] {
				leaves = append(leaves, r.leaves[j])
				r.sel = append(r.sel, j)
			}
		}
	}
	if len(s.leaves) == len(leaves) {
		for i, l := range s.leaves {
			if len(l.path) > 1 || len(leaves[i].ColumnPath()) > 1 {
				if l.path[0] == leaves[i].ColumnPath()[0] && len(cols[l.src].Shape) > 0 {
					l.path = append([]string(nil), leaves[i].ColumnPath()...)
				}
			}
			// Scaled decimals are renamed ("price_x1e2"): the leaf
			// reads the file's column.
			if fp := leaves[i].ColumnPath(); r.opts.scaled() && len(fp) == len(l.path) && strings.Join(unscaledPath(l.path), ".") == strings.Join(fp, ".") {
				l.path = append([]string(nil), fp...)
			}
		}
	}
	if !samePaths(s, leaves) {
		return nil, errors.New("parquetio: cannot map this Parquet schema to a numpy dtype")
	}
	return s, nil
}

// leavesByTop lists, for each top-level field of root, the indexes of its
// leaves among leaves, in order.
func leavesByTop(leaves []*schema.Column, root *schema.GroupNode) [][]int {
	top := make(map[schema.Node]int, root.NumFields())
	for i := 0; i < root.NumFields(); i++ {
		top[root.Field(i)] = i
	}
	out := make([][]int, root.NumFields())
	for j, l := range leaves {
		n := l.SchemaNode()
		for n != nil && n.Parent() != nil && n.Parent().Parent() != nil {
			n = n.Parent()
		}
		if i, ok := top[n]; ok {
			out[i] = append(out[i], j)
		}
	}
	return out
}

// selectColumns returns the indexes of the top-level fields to read:
// ReadOptions.Columns in their order, or every field.
func (r *Reader) selectColumns(root *schema.GroupNode) ([]int, error) {
	if !r.opts.selects() {
		out := make([]int, root.NumFields())
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	var out []int
	for _, name := range r.opts.Columns {
		i := root.FieldIndexByName(name)
		if i < 0 {
			var names []string
			for k := 0; k < root.NumFields(); k++ {
				names = append(names, root.Field(k).Name())
			}
			return nil, fmt.Errorf("parquetio: no column %q to read (columns: %s)", name, strings.Join(names, ", "))
		}
		if slices.Contains(out, i) {
			return nil, fmt.Errorf("parquetio: column %q selected twice", name)
		}
		out = append(out, i)
	}
	return out, nil
}

// RefusedError is the error for a column numpy has no faithful type for.
type RefusedError struct {
	Column string // dotted Parquet path
	Type   string // its Parquet type
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("parquetio: column %s (%s): %s", e.Column, e.Type, e.Reason)
}

// listHint is what a refused nested column can do instead.
const listHint = "numpy has no type for it; " + varyingHint

// varyingHint says what works with a column numpy has no type for.
const varyingHint = "leave the column out and read the others (--columns with convert or inspect; in a job, the source's columns option, or a select or drop leaving it out on every path from the source, through filter and cast)"

func (r *Reader) deriveType(c schema.Node, depth int) (*npyio.DType, error) {
	name := c.Path()
	if c.RepetitionType() == parquet.Repetitions.Repeated || depth > 64 {
		return nil, &RefusedError{Column: name, Type: "repeated " + nodeType(c), Reason: "a repeated field (list); " + listHint}
	}
	lt := c.LogicalType()
	if g, ok := c.(*schema.GroupNode); ok {
		switch lt.(type) {
		case schema.ListLogicalType, *schema.ListLogicalType:
			return nil, &RefusedError{Column: name, Type: "LIST", Reason: "a list column; " + listHint}
		case schema.MapLogicalType, *schema.MapLogicalType:
			return nil, &RefusedError{Column: name, Type: "MAP", Reason: "a map column; " + listHint}
		}
		if g.NumFields() == 0 {
			return nil, &RefusedError{Column: name, Type: "group", Reason: "a group without fields"}
		}
		var fs []npyio.Field
		for i := 0; i < g.NumFields(); i++ {
			ch := g.Field(i)
			dt, err := r.deriveType(ch, depth+1)
			if err != nil {
				return nil, err
			}
			fname := ch.Name()
			if p, ok := ch.(*schema.PrimitiveNode); ok {
				if sc, ok := scaledDecimal(p, r.opts); ok {
					fname = arrowconv.ScaledName(fname, sc)
				}
			}
			fs = append(fs, npyio.Field{Name: fname, Type: dt})
		}
		return npyio.NewStruct(fs)
	}
	p, ok := c.(*schema.PrimitiveNode)
	if !ok {
		return nil, fmt.Errorf("parquetio: column %s: unknown schema node", name)
	}
	return r.primitive(p, func(chars bool) (int, error) {
		n, err := r.maxLen(p, chars)
		if v, ok := r.opts.fillFor(strings.Split(name, ".")); ok {
			n = max(n, fillWidth(v, chars))
		}
		return n, err
	})
}

// primitiveDType maps a leaf of a foreign file to numpy; width gives the
// longest value of a BYTE_ARRAY column (characters for strings).
func primitiveDType(p *schema.PrimitiveNode, scaled bool, width func(chars bool) (int, error)) (*npyio.DType, error) {
	name := p.Path()
	lt := p.LogicalType()
	pt := p.PhysicalType()
	switch v := lt.(type) {
	case schema.IntLogicalType:
		return intDType(name, pt, int(v.BitWidth()), v.IsSigned())
	case *schema.IntLogicalType:
		return intDType(name, pt, int(v.BitWidth()), v.IsSigned())
	case schema.Float16LogicalType, *schema.Float16LogicalType:
		if pt != parquet.Types.FixedLenByteArray || p.TypeLength() != 2 {
			return nil, corruptCol(name, "FLOAT16 on %s", physName(p))
		}
		return npyio.Float16Type, nil
	case schema.DateLogicalType, *schema.DateLogicalType:
		if pt != parquet.Types.Int32 {
			return nil, corruptCol(name, "DATE on %s", physName(p))
		}
		return npyio.NewDatetime("D", 1, false)
	case schema.TimestampLogicalType:
		return timeDType(name, p, v.TimeUnit(), false)
	case *schema.TimestampLogicalType:
		return timeDType(name, p, v.TimeUnit(), false)
	case schema.TimeLogicalType:
		return timeDType(name, p, v.TimeUnit(), true)
	case *schema.TimeLogicalType:
		return timeDType(name, p, v.TimeUnit(), true)
	case schema.DecimalLogicalType:
		return decimalDType(name, v.Precision(), v.Scale(), scaled)
	case *schema.DecimalLogicalType:
		return decimalDType(name, v.Precision(), v.Scale(), scaled)
	case schema.StringLogicalType, *schema.StringLogicalType, schema.EnumLogicalType, *schema.EnumLogicalType, schema.JSONLogicalType, *schema.JSONLogicalType:
		if pt != parquet.Types.ByteArray {
			return nil, corruptCol(name, "%s on %s", lt, physName(p))
		}
		n, err := width(true)
		if err != nil {
			return nil, err
		}
		return npyio.NewString(npyio.Unicode, n)
	case schema.IntervalLogicalType, *schema.IntervalLogicalType:
		if pt != parquet.Types.FixedLenByteArray || p.TypeLength() != 12 {
			return nil, corruptCol(name, "INTERVAL on %s", physName(p))
		}
		if p.Parent() != nil && p.Parent().Parent() != nil {
			return nil, &RefusedError{Column: name, Type: "INTERVAL", Reason: "an INTERVAL inside a group; only top-level INTERVAL columns become a (months, days, milliseconds) struct: " + listHint}
		}
		return intervalDType, nil
	}
	switch pt {
	case parquet.Types.Boolean:
		return npyio.BoolType, nil
	case parquet.Types.Int32:
		return npyio.Int32Type, nil
	case parquet.Types.Int64:
		return npyio.Int64Type, nil
	case parquet.Types.Int96:
		// Spark and Impala timestamps: nanoseconds in UTC.
		return npyio.NewDatetime("ns", 1, false)
	case parquet.Types.Float:
		return npyio.Float32Type, nil
	case parquet.Types.Double:
		return npyio.Float64Type, nil
	case parquet.Types.FixedLenByteArray:
		if p.TypeLength() < 0 {
			return nil, corruptCol(name, "FIXED_LEN_BYTE_ARRAY(%d)", p.TypeLength())
		}
		return npyio.NewString(npyio.Void, p.TypeLength())
	case parquet.Types.ByteArray:
		n, err := width(false)
		if err != nil {
			return nil, err
		}
		return npyio.NewString(npyio.Bytes, n)
	}
	return nil, fmt.Errorf("parquetio: column %s: no numpy type for %s", name, physName(p))
}

// intervalDType is a Parquet INTERVAL: three little-endian unsigned
// 32-bit integers, as the format defines it.
var intervalDType, _ = npyio.NewStruct([]npyio.Field{
	{Name: "months", Type: npyio.Uint32Type}, {Name: "days", Type: npyio.Uint32Type}, {Name: "milliseconds", Type: npyio.Uint32Type}})

func isInterval(p *schema.PrimitiveNode) bool {
	switch p.LogicalType().(type) {
	case schema.IntervalLogicalType, *schema.IntervalLogicalType:
		return p.PhysicalType() == parquet.Types.FixedLenByteArray && p.TypeLength() == 12
	}
	return false
}

// decimalDType is the numpy type of DECIMAL(prec, scale): f8, or int64
// holding value*10^scale when scaled (precision 18 at most).
func decimalDType(name string, prec, scale int32, scaled bool) (*npyio.DType, error) {
	if !scaled {
		return npyio.Float64Type, nil
	}
	if prec > 18 || scale < 0 {
		return nil, &RefusedError{Column: name, Type: fmt.Sprintf("DECIMAL(%d,%d)", prec, scale),
			Reason: "more than 18 digits do not fit an exact scaled int64; read it as f8 (decimal mode f8), or leave the column out"}
	}
	return npyio.Int64Type, nil
}

// scaledDecimal reports whether p is a DECIMAL read as scaled int64, and
// its scale.
func scaledDecimal(p *schema.PrimitiveNode, o *ReadOptions) (int32, bool) {
	if !o.scaled() {
		return 0, false
	}
	switch v := p.LogicalType().(type) {
	case schema.DecimalLogicalType:
		return v.Scale(), true
	case *schema.DecimalLogicalType:
		return v.Scale(), true
	}
	return 0, false
}

// unscaledPath undoes the renames of scaled decimals ("_x1e<scale>").
func unscaledPath(path []string) []string {
	out := make([]string, len(path))
	for i, p := range path {
		if k := strings.LastIndex(p, "_x1e"); k > 0 {
			if _, err := strconv.Atoi(p[k+4:]); err == nil {
				p = p[:k]
			}
		}
		out[i] = p
	}
	return out
}

func corruptCol(name, format string, args ...any) error {
	return fmt.Errorf("parquetio: column %s: %w", name, corrupt(format, args...))
}

func physName(p *schema.PrimitiveNode) string {
	if p.PhysicalType() == parquet.Types.FixedLenByteArray {
		return fmt.Sprintf("FIXED_LEN_BYTE_ARRAY(%d)", p.TypeLength())
	}
	return p.PhysicalType().String()
}

func nodeType(n schema.Node) string {
	if p, ok := n.(*schema.PrimitiveNode); ok {
		return physName(p)
	}
	return "group"
}

func intDType(name string, pt parquet.Type, bits int, signed bool) (*npyio.DType, error) {
	if bits != 8 && bits != 16 && bits != 32 && bits != 64 {
		return nil, corruptCol(name, "INT(%d) is not an integer type", bits)
	}
	if (bits == 64) != (pt == parquet.Types.Int64) || (pt != parquet.Types.Int32 && pt != parquet.Types.Int64) {
		return nil, corruptCol(name, "INT(%d) on %s", bits, pt)
	}
	size := bits / 8
	k := npyio.Uint
	if signed {
		k = npyio.Int
	}
	return &npyio.DType{Kind: k, Order: orderFor(size), Size: size}, nil
}

func timeDType(name string, p *schema.PrimitiveNode, u schema.TimeUnitType, delta bool) (*npyio.DType, error) {
	unit := map[schema.TimeUnitType]string{schema.TimeUnitMillis: "ms", schema.TimeUnitMicros: "us", schema.TimeUnitNanos: "ns"}[u]
	if unit == "" {
		return nil, corruptCol(name, "unknown time unit")
	}
	pt := p.PhysicalType()
	if pt != parquet.Types.Int64 && !(delta && unit == "ms" && pt == parquet.Types.Int32) {
		return nil, corruptCol(name, "time type on %s", physName(p))
	}
	return npyio.NewDatetime(unit, 1, delta)
}

func orderFor(size int) byte {
	if size == 1 {
		return npyio.NotApplicable
	}
	return npyio.NativeOrder
}

// maxLen finds the longest value of a BYTE_ARRAY column, in bytes or (for
// strings) characters.
func (r *Reader) maxLen(p *schema.PrimitiveNode, chars bool) (int, error) {
	if r.noData {
		return 0, nil
	}
	col := r.pf.MetaData().Schema.ColumnIndexByNode(p)
	if col < 0 {
		return 0, fmt.Errorf("parquetio: column %s: not a leaf of the schema", p.Path())
	}
	longest := 0
	for g := range r.fmd.RowGroups {
		if r.fmd.RowGroups[g].NumRows == 0 {
			continue // nothing to read (writers leave its offsets unset)
		}
		if _, err := r.chunkValues(g, col); err != nil {
			return 0, err
		}
		var cr file.ColumnChunkReader
		err := guard(func() error {
			var err error
			cr, err = r.pf.RowGroup(g).Column(col)
			return err
		})
		if err != nil {
			return 0, fmt.Errorf("parquetio: column %s, row group %d: %w", p.Path(), g, err)
		}
		if _, ok := cr.(*file.ByteArrayColumnChunkReader); !ok {
			return 0, fmt.Errorf("parquetio: column %s: not a BYTE_ARRAY column", p.Path())
		}
		lc := r.leaves[col]
		d := &leafDecoder{cr: cr, col: lc, rg: g, l: &leaf{path: lc.ColumnPath()}, rc: readConv{maxDef: int(lc.MaxDefinitionLevel()), maxRep: int(lc.MaxRepetitionLevel())}}
		for {
			n, nv, err := d.readSome(4096)
			if err != nil {
				return 0, err
			}
			if n == 0 {
				break
			}
			for _, v := range d.vba[:nv] {
				n := len(v)
				if chars {
					n = utf8.RuneCount(v)
				}
				longest = max(longest, n)
			}
		}
	}
	return longest, nil
}

// decimal returns DECIMAL value j of the batch as the float64 nearest to
// it (correctly rounded, ties to even).
func (d *leafDecoder) decimal(j int) (float64, error) {
	var u int64
	switch d.col.PhysicalType() {
	case parquet.Types.Int32:
		u = int64(d.v32[j])
	case parquet.Types.Int64:
		u = d.v64[j]
	default:
		var b []byte
		if d.col.PhysicalType() == parquet.Types.FixedLenByteArray {
			b = d.vfl[j]
		} else {
			b = d.vba[j]
		}
		if len(b) == 0 {
			return 0, errors.New("a DECIMAL value of no bytes")
		}
		if len(b) > 64 {
			return 0, fmt.Errorf("a DECIMAL value of %d bytes", len(b))
		}
		if len(b) > 8 {
			x := new(big.Int).SetBytes(b)
			if b[0]&0x80 != 0 { // two's complement
				x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
			}
			if x.IsInt64() {
				return decimalFloat(x.Int64(), d.rc.scale), nil
			}
			return bigDecimalFloat(x, d.rc.scale), nil
		}
		for _, c := range b {
			u = u<<8 | int64(c)
		}
		if sh := 64 - 8*len(b); sh > 0 {
			u = u << sh >> sh // sign-extend
		}
	}
	return decimalFloat(u, d.rc.scale), nil
}

// unscaled returns DECIMAL value j of the batch as its unscaled integer,
// exactly, or an error if it does not fit int64.
func (d *leafDecoder) unscaled(j int) (int64, error) {
	switch d.col.PhysicalType() {
	case parquet.Types.Int32:
		return int64(d.v32[j]), nil
	case parquet.Types.Int64:
		return d.v64[j], nil
	}
	var b []byte
	if d.col.PhysicalType() == parquet.Types.FixedLenByteArray {
		b = d.vfl[j]
	} else {
		b = d.vba[j]
	}
	if len(b) == 0 || len(b) > 64 {
		return 0, fmt.Errorf("a DECIMAL value of %d bytes", len(b))
	}
	if len(b) <= 8 {
		var u int64
		for _, c := range b {
			u = u<<8 | int64(c)
		}
		sh := 64 - 8*len(b)
		return u << sh >> sh, nil // sign-extended
	}
	x := new(big.Int).SetBytes(b)
	if b[0]&0x80 != 0 { // two's complement
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	if !x.IsInt64() {
		return 0, fmt.Errorf("DECIMAL value %s (unscaled) does not fit int64", x)
	}
	return x.Int64(), nil
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// decimalFloat is u * 10^-scale correctly rounded: one IEEE division of
// two exact operands when both are exact (|u| < 2^53, scale <= 22), else
// through strconv, which rounds correctly.
func decimalFloat(u int64, scale int) float64 {
	if u > -(1<<53) && u < 1<<53 && scale < len(pow10) {
		return float64(u) / pow10[scale]
	}
	f, _ := strconv.ParseFloat(strconv.FormatInt(u, 10)+"e-"+strconv.Itoa(scale), 64)
	return f
}

func bigDecimalFloat(x *big.Int, scale int) float64 {
	f, err := strconv.ParseFloat(x.String()+"e-"+strconv.Itoa(scale), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return math.NaN()
	}
	return f
}

// fileColumn is the dotted path of file column i.
func (r *Reader) fileColumn(i int) string {
	return strings.Join(r.leaves[i].ColumnPath(), ".")
}

// listElement recognizes a top-level list of primitives under the Parquet
// format's list rules: a LIST group with a repeated group of one primitive
// field (3 levels) or a repeated primitive (2 levels), or a repeated
// primitive without LIST annotation. It returns the element node.
func listElement(c schema.Node) (*schema.PrimitiveNode, bool) {
	if p, ok := c.(*schema.PrimitiveNode); ok {
		return p, p.RepetitionType() == parquet.Repetitions.Repeated
	}
	g, ok := c.(*schema.GroupNode)
	if !ok || c.RepetitionType() == parquet.Repetitions.Repeated || g.NumFields() != 1 {
		return nil, false
	}
	switch c.LogicalType().(type) {
	case schema.ListLogicalType, *schema.ListLogicalType:
	default:
		return nil, false
	}
	rep := g.Field(0)
	if rep.RepetitionType() != parquet.Repetitions.Repeated {
		return nil, false
	}
	if p, ok := rep.(*schema.PrimitiveNode); ok {
		return p, true // 2-level list
	}
	rg, ok := rep.(*schema.GroupNode)
	if !ok || rg.NumFields() != 1 {
		return nil, false
	}
	p, ok := rg.Field(0).(*schema.PrimitiveNode)
	if !ok || p.RepetitionType() == parquet.Repetitions.Repeated {
		return nil, false
	}
	return p, true
}

// listColumn maps a list column of element elem: the element's dtype and
// the one length of every row's list, or a refusal naming the first row
// whose list differs in length.
func (r *Reader) listColumn(c schema.Node, elem *schema.PrimitiveNode) (*npyio.DType, int, error) {
	name := c.Path()
	dt, err := r.primitive(elem, func(chars bool) (int, error) { return r.maxLen(elem, chars) })
	if err != nil {
		return nil, 0, err
	}
	if r.noData {
		return dt, 0, nil
	}
	col := r.pf.MetaData().Schema.ColumnIndexByNode(elem)
	if col < 0 {
		return nil, 0, fmt.Errorf("parquetio: column %s: not a leaf of the schema", name)
	}
	// A slot is an element of the list when its definition level reaches
	// the repeated node's.
	var defRep int16
	for n := schema.Node(elem); n != nil && n.Parent() != nil; n = n.Parent() {
		if n.RepetitionType() != parquet.Repetitions.Required {
			defRep++
		}
		if n.RepetitionType() == parquet.Repetitions.Repeated {
			defRep = 0
			for m := n; m != nil && m.Parent() != nil; m = m.Parent() {
				if m.RepetitionType() != parquet.Repetitions.Required {
					defRep++
				}
			}
			break
		}
	}
	// A null list (the column is OPTIONAL) has no length: its row is
	// null, and its values are nulls (see ReadOptions).
	var nullDef int16 = -1
	if c.RepetitionType() == parquet.Repetitions.Optional {
		nullDef = defLevel(c)
	}
	length, row, cur, first := -1, int64(-1), 0, int64(-1)
	null := false
	var differ error
	check := func() {
		if row < 0 || differ != nil || null {
			return
		}
		if length < 0 {
			length, first = cur, row
		} else if cur != length {
			differ = &RefusedError{Column: name, Type: "LIST", Reason: fmt.Sprintf("lists of varying length (row %d holds %d values, row %d holds %d): numpy needs one length (a subarray field); %s", first, length, row, cur, varyingHint)}
		}
	}
	def := make([]int16, 4096)
	rep := make([]int16, 4096)
	for g := range r.fmd.RowGroups {
		if r.fmd.RowGroups[g].NumRows == 0 {
			continue // nothing to read (writers leave its offsets unset)
		}
		if _, err := r.chunkValues(g, col); err != nil {
			return nil, 0, err
		}
		var cr file.ColumnChunkReader
		if err := guard(func() error {
			var err error
			cr, err = r.pf.RowGroup(g).Column(col)
			return err
		}); err != nil {
			return nil, 0, fmt.Errorf("parquetio: column %s, row group %d: %w", name, g, err)
		}
		d := &leafDecoder{cr: cr, col: r.leaves[col], l: &leaf{path: strings.Split(name, ".")}, rc: readConv{maxDef: int(r.leaves[col].MaxDefinitionLevel()), maxRep: 1}}
		d.def, d.rep = def, rep
		for {
			n, _, err := d.readSome(len(def))
			if err != nil {
				return nil, 0, err
			}
			if n == 0 {
				break
			}
			for i := 0; i < n; i++ {
				if d.rep[i] == 0 {
					check()
					row++
					cur = 0
					null = d.def[i] < nullDef
				}
				if d.def[i] >= defRep {
					cur++
				}
			}
			if differ != nil {
				return nil, 0, differ
			}
		}
	}
	check()
	if differ != nil {
		return nil, 0, differ
	}
	return dt, max(length, 0), nil
}
