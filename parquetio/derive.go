package parquetio

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
)

// deriveSchema maps a Parquet schema without npyflow metadata to numpy.
//
// A column's numpy type is arrowconv's mapping (the one Arrow -> numpy
// mapping of npyflow) of the Arrow type arrow-go's pqarrow reads it as
// (arrowColumn), after the checks that are Parquet's own (checkColumn):
// the shapes the reader decodes, lists only at the top. String widths and
// list lengths come from a pass over the column chunks (measure).
func (r *Reader) deriveSchema() (*Schema, error) {
	root := r.pf.MetaData().Schema.Root()
	order, err := r.selectColumns(root)
	if err != nil {
		return nil, err
	}
	if r.byTop == nil {
		r.byTop = leavesByTop(r.leaves, root)
	}
	var cols []Column
	for _, i := range order {
		c := root.Field(i)
		col, err := r.mapColumn(c, r.byTop[i])
		if err != nil {
			return nil, err
		}
		if p, ok := c.(*schema.PrimitiveNode); ok && isInterval(p) {
			// Decoded as its 12 bytes (V12), shown as the struct of the
			// three little-endian uint32 the format defines.
			if r.ext == nil {
				r.ext = map[int]*npyio.DType{}
			}
			r.ext[len(cols)] = intervalDType
		}
		cols = append(cols, col)
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
				if l.path[0] == leaves[i].ColumnPath()[0] && hasRepeated(r.tops[l.src]) {
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
// it (correctly rounded, ties to even), as arrowconv rounds decimals.
func (d *leafDecoder) decimal(j int) (float64, error) {
	scale := int32(d.rc.scale)
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
				return arrowconv.DecimalToFloat(x.Int64(), scale), nil
			}
			return arrowconv.BigDecimalToFloat(x, scale), nil
		}
		for _, c := range b {
			u = u<<8 | int64(c)
		}
		if sh := 64 - 8*len(b); sh > 0 {
			u = u << sh >> sh // sign-extend
		}
	}
	return arrowconv.DecimalToFloat(u, scale), nil
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

// checkColumn refuses top-level column c where the reader cannot decode
// its shape (or the file's types contradict each other): maps, groups
// without fields, INTERVAL inside a group, a column of the null type.
// Lists may be at any depth (in structs, in lists): their lengths are
// measured from the data (listLength), and numpy takes them when every
// list at a place has one length.
func checkColumn(c schema.Node) error {
	if err := checkNull(c, c); err != nil {
		return err
	}
	return checkNode(c, 0)
}

// checkNull refuses column top when a leaf of n is of the null type
// (Parquet's NULL annotation: Arrow's Null type, which arrow-rs writes as
// INT32 values that are never there): numpy has no type without values,
// and reading the physical type would make up zeros.
func checkNull(top, n schema.Node) error {
	switch n := n.(type) {
	case *schema.GroupNode:
		for i := 0; i < n.NumFields(); i++ {
			if err := checkNull(top, n.Field(i)); err != nil {
				return err
			}
		}
	case *schema.PrimitiveNode:
		switch n.LogicalType().(type) {
		case schema.NullLogicalType, *schema.NullLogicalType:
			where := ""
			if n != top {
				where = " (its values " + n.Path() + ")"
			}
			return &RefusedError{Column: top.Path(), Type: physName(n) + " NULL", Reason: "values of the null type (Arrow Null)" + where + ": a column that holds only nulls, no values; numpy has no type for it; " + varyingHint}
		}
	}
	return nil
}

// checkNode refuses what no field can be: a map, a group without
// fields, an INTERVAL inside a group.
func checkNode(c schema.Node, depth int) error {
	name := c.Path()
	if depth > 64 {
		return &RefusedError{Column: name, Type: nodeKind(c), Reason: "nested too deeply; " + listHint}
	}
	g, ok := c.(*schema.GroupNode)
	if !ok {
		if p := c.(*schema.PrimitiveNode); isInterval(p) && depth > 0 {
			return &RefusedError{Column: name, Type: "INTERVAL", Reason: "an INTERVAL inside a group; only top-level INTERVAL columns become a (months, days, milliseconds) struct: " + listHint}
		}
		return nil
	}
	switch g.LogicalType().(type) {
	case schema.MapLogicalType, *schema.MapLogicalType:
		return &RefusedError{Column: name, Type: "MAP", Reason: "a map column; " + listHint}
	}
	if g.NumFields() == 0 {
		return &RefusedError{Column: name, Type: "group", Reason: "a group without fields"}
	}
	for i := 0; i < g.NumFields(); i++ {
		if err := checkNode(g.Field(i), depth+1); err != nil {
			return err
		}
	}
	return nil
}

// isListOrMap reports whether lt is the LIST or MAP annotation.
func isListOrMap(lt schema.LogicalType) bool {
	switch lt.(type) {
	case schema.ListLogicalType, *schema.ListLogicalType, schema.MapLogicalType, *schema.MapLogicalType:
		return true
	}
	return false
}

// hasRepeated reports whether n or a node below it is repeated (a list).
func hasRepeated(n schema.Node) bool {
	if n.RepetitionType() == parquet.Repetitions.Repeated {
		return true
	}
	if g, ok := n.(*schema.GroupNode); ok {
		for i := 0; i < g.NumFields(); i++ {
			if hasRepeated(g.Field(i)) {
				return true
			}
		}
	}
	return false
}

// arrowCol is the Arrow field of a Parquet column, and the index of the
// leaf (among the column's leaves) of each value path arrowconv names:
// "a", "a.b", "a[]".
type arrowCol struct {
	field arrow.Field
	leaf  map[string]int
	// list gives, for the path of each list, the leaf (index among the
	// column's leaves) its lengths are measured from, and the
	// repetition level of its repeated node.
	list map[string]listAt
}

// listAt locates a list of a column: see arrowCol.
type listAt struct {
	leaf int
	rep  int16
}

// arrowColumn returns the Arrow field arrow-go's pqarrow reads column c as,
// with two readings that are npyflow's: ENUM and JSON are text (Arrow
// utf8, numpy U, as STRING), and an annotation npyflow does not interpret
// (unknown to the format, NULL, GEOMETRY, ...) leaves the physical type.
// c is copied into a schema of its own, so that one column pqarrow cannot
// map does not stop the others.
func arrowColumn(c schema.Node) (arrowCol, error) {
	var ac arrowCol
	cp, err := copyNode(c)
	if err != nil {
		return ac, corruptCol(c.Path(), "%v", err)
	}
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, schema.FieldList{cp}, -1)
	if err != nil {
		return ac, corruptCol(c.Path(), "%v", err)
	}
	var man *pqarrow.SchemaManifest
	err = guard(func() error {
		var err error
		man, err = pqarrow.NewSchemaManifest(schema.NewSchema(root), nil, &pqarrow.ArrowReadProperties{})
		return err
	})
	if err != nil {
		return ac, corruptCol(c.Path(), "arrow-go maps no Arrow type to it: %v", err)
	}
	sf := man.Fields[0]
	ac.field, ac.leaf, ac.list = *sf.Field, map[string]int{}, map[string]listAt{}
	var walk func(sf pqarrow.SchemaField, path string)
	walk = func(sf pqarrow.SchemaField, path string) {
		if sf.IsLeaf() {
			ac.leaf[path] = sf.ColIndex
		}
		t := sf.Field.Type
		if ext, ok := t.(arrow.ExtensionType); ok {
			t = ext.StorageType()
		}
		if _, ok := t.(arrow.ListLikeType); ok && len(sf.Children) == 1 {
			first := sf.Children[0]
			for !first.IsLeaf() && len(first.Children) > 0 {
				first = first.Children[0]
			}
			if first.IsLeaf() {
				// Each Arrow list above is one repeated node.
				ac.list[path] = listAt{leaf: first.ColIndex, rep: int16(strings.Count(path, "[]") + 1)}
			}
		}
		for _, ch := range sf.Children {
			if _, ok := t.(arrow.ListLikeType); ok {
				walk(ch, path+"[]")
			} else {
				walk(ch, path+"."+ch.Field.Name)
			}
		}
	}
	walk(sf, sf.Field.Name)
	return ac, nil
}

// copyNode copies a schema node, with the annotations Arrow would read
// otherwise replaced (see arrowColumn).
func copyNode(n schema.Node) (schema.Node, error) {
	if g, ok := n.(*schema.GroupNode); ok {
		fields := make(schema.FieldList, g.NumFields())
		for i := range fields {
			f, err := copyNode(g.Field(i))
			if err != nil {
				return nil, err
			}
			fields[i] = f
		}
		lt := g.LogicalType()
		if lt != nil && lt.IsNone() {
			lt = nil // a group without annotation
		}
		if isListOrMap(lt) && g.RepetitionType() != parquet.Repetitions.Repeated && len(fields) == 1 {
			if rg, ok := fields[0].(*schema.GroupNode); ok && rg.RepetitionType() == parquet.Repetitions.Repeated && isListOrMap(rg.LogicalType()) {
				// A legacy 2-level list whose repeated group is itself a
				// list (or map): that group is the element, as the
				// format's rules say and parquet-java wrote it
				// (old_list_structure.parquet), not a struct of one
				// field, which pqarrow would make of it. Wrapped in the
				// 3-level form: a REQUIRED group adds no level, so the
				// leaves keep their levels.
				inner := make(schema.FieldList, rg.NumFields())
				for i := range inner {
					inner[i] = rg.Field(i)
				}
				elem, err := schema.NewGroupNodeLogical(rg.Name(), parquet.Repetitions.Required, inner, rg.LogicalType(), rg.FieldID())
				if err != nil {
					return nil, err
				}
				rep, err := schema.NewGroupNode("list", parquet.Repetitions.Repeated, schema.FieldList{elem}, -1)
				if err != nil {
					return nil, err
				}
				fields = schema.FieldList{rep}
			}
		}
		return schema.NewGroupNodeLogical(g.Name(), g.RepetitionType(), fields, lt, g.FieldID())
	}
	p := n.(*schema.PrimitiveNode)
	lt := p.LogicalType()
	switch lt.(type) {
	case schema.EnumLogicalType, *schema.EnumLogicalType, schema.JSONLogicalType, *schema.JSONLogicalType:
		lt = schema.StringLogicalType{}
	case schema.IntLogicalType, *schema.IntLogicalType, schema.Float16LogicalType, *schema.Float16LogicalType,
		schema.DateLogicalType, *schema.DateLogicalType, schema.TimestampLogicalType, *schema.TimestampLogicalType,
		schema.TimeLogicalType, *schema.TimeLogicalType, schema.DecimalLogicalType, *schema.DecimalLogicalType,
		schema.StringLogicalType, *schema.StringLogicalType, schema.UUIDLogicalType, *schema.UUIDLogicalType,
		schema.IntervalLogicalType, *schema.IntervalLogicalType:
	default:
		lt = schema.NoLogicalType{}
	}
	return schema.NewPrimitiveNodeLogical(p.Name(), p.RepetitionType(), lt, p.PhysicalType(), p.TypeLength(), p.FieldID())
}

// mapColumn maps top-level column c, whose leaves are leaves (indexes in
// r.leaves), to numpy through arrowconv.
func (r *Reader) mapColumn(c schema.Node, leaves []int) (Column, error) {
	if err := checkColumn(c); err != nil {
		return Column{}, err
	}
	if p, ok := c.(*schema.PrimitiveNode); ok && r.opts.scaled() {
		if d, ok := p.LogicalType().(schema.DecimalLogicalType); ok && d.Scale() < 0 {
			return Column{}, &RefusedError{Column: c.Path(), Type: parquetType(p), Reason: "a negative scale is no Parquet DECIMAL; read it as f8 (decimal mode f8), or leave the column out"}
		}
	}
	ac, err := arrowColumn(c)
	if err != nil {
		return Column{}, err
	}
	leafOf := func(path string) *schema.Column {
		if k, ok := ac.leaf[path]; ok && k < len(leaves) {
			return r.leaves[leaves[k]]
		}
		return nil
	}
	measure := func(path string, t arrow.DataType) (int, error) {
		if _, ok := t.(arrow.ListLikeType); ok {
			at, ok := ac.list[path]
			if !ok || at.leaf >= len(leaves) {
				return 0, fmt.Errorf("parquetio: column %s: no leaf for the list %s", c.Path(), path)
			}
			return r.listLength(c, path, leaves[at.leaf], at.rep)
		}
		lc := leafOf(path)
		if lc == nil {
			return 0, fmt.Errorf("parquetio: column %s: no leaf for %s", c.Path(), path)
		}
		chars := t.ID() == arrow.STRING || t.ID() == arrow.LARGE_STRING || t.ID() == arrow.STRING_VIEW
		n, err := r.maxLen(lc.SchemaNode().(*schema.PrimitiveNode), chars)
		if v, ok := r.opts.fillFor(lc.ColumnPath()); ok && !strings.Contains(path, "[]") {
			n = max(n, fillWidth(v, chars))
		}
		return n, err
	}
	mo := &arrowconv.MapOptions{Measure: measure}
	if r.opts != nil {
		mo.Decimal = r.opts.Decimal
	}
	field, err := r.int96Field(ac.field, ac.field.Name, leafOf)
	if err != nil {
		return Column{}, err
	}
	m, err := arrowconv.MapSchema(arrow.NewSchema([]arrow.Field{field}, nil), mo)
	var fs []npyio.Field
	if err == nil {
		fs, err = m.Fields()
	}
	var ue *arrowconv.UnsupportedError
	if errors.As(err, &ue) {
		// The refusal of a Parquet column names its Parquet path and type.
		col, typ := c.Path(), nodeKind(c)
		if lc := leafOf(ue.Column); lc != nil {
			col, typ = strings.Join(lc.ColumnPath(), "."), parquetType(lc.SchemaNode().(*schema.PrimitiveNode))
		}
		return Column{}, &RefusedError{Column: col, Type: typ, Reason: ue.Msg}
	}
	if err != nil {
		return Column{}, err
	}
	return Column{Name: fs[0].Name, DType: fs[0].Type, Shape: fs[0].Shape}, nil
}

// nodeKind names the Parquet type of a node in a refusal.
func nodeKind(n schema.Node) string {
	switch n := n.(type) {
	case *schema.PrimitiveNode:
		return physName(n)
	case *schema.GroupNode:
		if !n.LogicalType().IsNone() {
			return n.LogicalType().String()
		}
	}
	return "group"
}

// leafDType is the numpy type of primitive p read on its own (see
// arrowColumn), as part of a column being described: no data is read;
// width is called for a string or binary, whose width comes from the data.
func leafDType(p *schema.PrimitiveNode, opts *ReadOptions, width func()) (*npyio.DType, error) {
	if err := checkNull(p, p); err != nil {
		return nil, err
	}
	if isInterval(p) {
		if p.Parent() != nil && p.Parent().Parent() != nil {
			return nil, checkNode(p, 1)
		}
		return intervalDType, nil
	}
	lone, err := schema.NewPrimitiveNodeLogical(p.Name(), parquet.Repetitions.Optional, p.LogicalType(), p.PhysicalType(), p.TypeLength(), p.FieldID())
	if err != nil {
		return nil, corruptCol(p.Path(), "%v", err)
	}
	ac, err := arrowColumn(lone)
	if err != nil {
		return nil, err
	}
	mo := &arrowconv.MapOptions{Measure: func(string, arrow.DataType) (int, error) {
		width()
		return 0, nil
	}}
	if opts != nil {
		mo.Decimal = opts.Decimal
	}
	m, err := arrowconv.MapSchema(arrow.NewSchema([]arrow.Field{ac.field}, nil), mo)
	if err != nil {
		var ue *arrowconv.UnsupportedError
		if errors.As(err, &ue) {
			return nil, &RefusedError{Column: p.Path(), Type: parquetType(p), Reason: ue.Msg}
		}
		return nil, err
	}
	fs, err := m.Fields()
	if err != nil {
		return nil, err
	}
	return fs[0].Type, nil
}

// listLength measures the lists at path (arrowconv's name: "a", "a.b",
// "a[]") of top-level column c, whose repeated node has repetition level
// rep, from leaf col (the first below that node): the one length of
// every such list in the file (0 without data), or a refusal naming the
// column, the place and the first row whose list differs in length. A
// null row of a top-level list column has no length: its row is null,
// and its values are nulls (see ReadOptions). A list inside a struct or
// a list must be there in every row: a null one is refused, naming its
// row, as is an empty list inside a list (numpy's layout has no place
// for it).
func (r *Reader) listLength(c schema.Node, path string, col int, rep int16) (int, error) {
	if r.noData {
		return 0, nil
	}
	name := c.Path()
	lc := r.leaves[col]
	// The nodes from the top down to the leaf, and the repeated ones.
	var chain []schema.Node
	for n := lc.SchemaNode(); n != nil && n.Parent() != nil; n = n.Parent() {
		chain = append(chain, n)
	}
	slices.Reverse(chain)
	var reps []schema.Node
	for _, n := range chain {
		if n.RepetitionType() == parquet.Repetitions.Repeated {
			reps = append(reps, n)
		}
	}
	if rep < 1 || int(rep) > len(reps) {
		return 0, fmt.Errorf("parquetio: column %s: no list at repetition level %d", name, rep)
	}
	rn := reps[rep-1]
	// Slots at or above defRep are elements of the list; the list is
	// there (maybe empty) at listDef; it has a place in the row at
	// ancDef (its enclosing list has an element there).
	defRep := defLevel(rn)
	list := rn
	if p := rn.Parent(); p != nil && p.Parent() != nil {
		switch p.LogicalType().(type) {
		case schema.ListLogicalType, *schema.ListLogicalType:
			list = p
		}
	}
	listDef := defRep - 1
	if list != rn {
		listDef = defLevel(list)
	}
	var ancDef int16
	if rep > 1 {
		ancDef = defLevel(reps[rep-2])
	}
	top := rep == 1 && list == c
	where := ""
	if !top {
		where = " at " + path
	}
	length, row, cur, first := -1, int64(-1), 0, int64(-1)
	in, at := false, int64(-1) // in a list whose length is counted, and its row
	var differ error
	check := func() {
		if !in || differ != nil {
			return
		}
		in = false
		if length < 0 {
			length, first = cur, at
		} else if cur != length {
			differ = &RefusedError{Column: name, Type: "LIST", Reason: fmt.Sprintf("lists of varying length%s (row %d holds %d values, row %d holds %d): numpy needs one length (a subarray field); %s", where, first, length, at, cur, varyingHint)}
		}
	}
	def := make([]int16, 4096)
	reps16 := make([]int16, 4096)
	for g := range r.fmd.RowGroups {
		if r.fmd.RowGroups[g].NumRows == 0 {
			continue // nothing to read (writers leave its offsets unset)
		}
		if _, err := r.chunkValues(g, col); err != nil {
			return 0, err
		}
		var cr file.ColumnChunkReader
		if err := guard(func() error {
			var err error
			cr, err = r.pf.RowGroup(g).Column(col)
			return err
		}); err != nil {
			return 0, fmt.Errorf("parquetio: column %s, row group %d: %w", name, g, err)
		}
		d := &leafDecoder{cr: cr, col: lc, l: &leaf{path: lc.ColumnPath()}, rc: readConv{maxDef: int(lc.MaxDefinitionLevel()), maxRep: int(lc.MaxRepetitionLevel())}}
		d.def, d.rep = def, reps16
		for {
			n, _, err := d.readSome(len(def))
			if err != nil {
				return 0, err
			}
			if n == 0 {
				break
			}
			for i := 0; i < n; i++ {
				rp, df := d.rep[i], d.def[i]
				if rp == 0 {
					row++
				}
				if rp >= rep {
					if rp == rep && in {
						cur++ // the next element of the list
					}
					continue
				}
				// A new place for a list (or none).
				check()
				if differ != nil {
					return 0, differ
				}
				if df < ancDef {
					continue // its enclosing list is empty or null
				}
				if df < listDef {
					if top {
						continue // a null row
					}
					return 0, &RefusedError{Column: name, Type: "LIST", Reason: fmt.Sprintf("a null list%s in row %d (it, or the struct holding it, is null): numpy has no null for a list inside a struct or a list; %s", where, row, varyingHint)}
				}
				in, at, cur = true, row, 0
				if df >= defRep {
					cur = 1
				}
			}
		}
	}
	check()
	if differ != nil {
		return 0, differ
	}
	if length == 0 && rep > 1 {
		return 0, &RefusedError{Column: name, Type: "LIST", Reason: fmt.Sprintf("empty lists%s inside a list (row %d): numpy has no place for them; %s", where, first, varyingHint)}
	}
	return max(length, 0), nil
}
