package parquetio

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/npyflow/npyflow/npyio"
	"github.com/parquet-go/parquet-go/format"
)

// FileInfo describes a Parquet file from its footer alone (see [Describe]).
type FileInfo struct {
	Rows      int64
	RowGroups int
	CreatedBy string
	// Npyflow is set for files written by npyflow: their numpy dtypes come
	// from its metadata ([MetaTable]) and are exact.
	Npyflow bool
	// Warnings are what a [Reader] reads otherwise than the file says
	// ([Reader.Warnings]).
	Warnings []string
	// Columns are the file's leaf columns in order (with
	// ReadOptions.Columns: those of the columns read, in their order).
	Columns []ColumnInfo
	// Fields are the numpy fields a [Reader] with the same options
	// gives, flattened in order (struct fields as dotted paths), validity
	// fields included; nil for npyflow's own files read whole.
	Fields []FieldInfo
}

// FieldInfo is one numpy field of [FileInfo.Fields].
type FieldInfo struct {
	Name  string // dotted path of the field: "st.b.x", "price_x1e2", "st.a_valid"
	DType string // its numpy type; "<U" or "|S" when the width comes from the data
	Shape []int  // its subarray shape; a list's length is 0 until read from the data
	// Column is the index in [FileInfo.Columns] of the leaf it holds, -1
	// for a validity field, which records the nulls of ValidityOf (the
	// dotted path of a column or struct field; "l[]" for the element
	// validity field of list l, "l_items_valid", whose Shape is the
	// list's).
	Column     int
	ValidityOf string
	// Refused: the column it belongs to would be refused (see ColumnInfo).
	Refused bool
}

// ColumnInfo describes one leaf column of a Parquet file.
type ColumnInfo struct {
	Path     string // dotted path
	Type     string // its own Parquet type: DECIMAL(10,2), TIMESTAMP(us, UTC), INT96, STRING, ...
	Physical string // the physical type: INT64, FIXED_LEN_BYTE_ARRAY(16), ...
	Nullable bool   // OPTIONAL, or inside an OPTIONAL group
	Repeated bool   // repeated, or inside a repeated group or a LIST/MAP
	// NullCount is the number of nulls by the statistics of its column
	// chunks, -1 when some chunk has none.
	NullCount   int64
	Dictionary  bool     // some pages are dictionary-encoded
	Encodings   []string // encodings of its column chunks
	Compression []string // codecs of its column chunks
	// DType is the numpy type the column converts to ("" if refused for
	// its type; a column refused for its nulls keeps the dtype a fill
	// value or a validity field gives it). For
	// strings and binaries of foreign files the width is found by a pass
	// over the data when converting: DType is then "<U" or "|S" and
	// WidthFromData is set. So is the unit of INT96 timestamps: DType
	// "<M8" (datetime64[ns], or [us] or [ms] for values beyond its
	// range), WidthFromData set.
	DType         string
	WidthFromData bool
	// List is set for a leaf inside lists (at any depth: in structs, in
	// lists, a repeated group of the legacy 2-level form): it converts to
	// a subarray field of DType (a field of a subarray of structs, nested
	// subarrays for lists of lists) when every list at each place has one
	// length and none is null (found by a pass over the data), and is
	// refused otherwise.
	List bool
	// Refused says why the column would be refused, "" if it converts.
	Refused string
	// Fill is set when a fill value (ReadOptions.Fill) covers its nulls;
	// Validity names the validity field that records them, if any, and
	// ItemsValidity the element validity field of a list column.
	Fill          bool
	Validity      string
	ItemsValidity string
}

// Describe reads the footer of the Parquet file r of size size and
// describes each column: its Parquet type, the numpy dtype it converts to
// and whether and why it would be refused, without reading any data
// (null counts come from the statistics). The footer is checked as by
// [NewReader].
func Describe(r io.ReaderAt, size int64) (*FileInfo, error) {
	return DescribeOptions(r, size, nil)
}

// DescribeOptions is [Describe] under read options: the columns are
// those opts selects, and each is mapped as a [Reader] opened with opts
// ([NewReaderOptions]) maps it (the same code: scaled decimals, fill
// values, validity fields), one column at a time so that one refused
// column does not hide the others. Options that a Reader would refuse
// (a column that does not exist, a fill value that does not fit) are
// errors. No data is read: string widths and list lengths stay unknown.
func DescribeOptions(r io.ReaderAt, size int64, opts *ReadOptions) (*FileInfo, error) {
	f, err := openParquet(r, size)
	if err != nil {
		return nil, err
	}
	fmd, pf, leaves := f.fmd, f.pf, f.leaves
	md := pf.MetaData()
	rd := &Reader{ra: r, size: size, fmd: fmd, pf: pf, leaves: leaves, rows: f.rows, noData: true, opts: opts}
	rd.values = make([][]int64, len(fmd.RowGroups))
	root := md.Schema.Root()
	order, err := rd.selectColumns(root)
	if err != nil {
		return nil, err
	}
	if err := checkOptionNames(opts, root); err != nil {
		return nil, err
	}
	info := &FileInfo{Rows: f.rows, RowGroups: md.NumRowGroups(), CreatedBy: md.GetCreatedBy(), Warnings: f.warnings}
	// npyflow's own files: the exact dtypes of its metadata.
	var metaLeaves []*leaf
	if rd.plan() == nil && rd.meta != nil {
		info.Npyflow = true
		metaLeaves = rd.s.leaves
	}
	byTop := leavesByTop(leaves, root)
	var firstLeaf []int // by entry of order: its first entry in info.Columns
	var ordered []int
	for _, k := range order {
		firstLeaf = append(firstLeaf, len(ordered))
		ordered = append(ordered, byTop[k]...)
	}
	for _, i := range ordered {
		c := leaves[i]
		ci := ColumnInfo{Path: strings.Join(c.ColumnPath(), "."), Physical: physName(c.SchemaNode().(*schema.PrimitiveNode)), NullCount: rd.nullCount(i)}
		ci.Type = parquetType(c.SchemaNode().(*schema.PrimitiveNode))
		ci.Nullable, ci.Repeated = nodeFlags(c.SchemaNode())
		_ = guard(func() error {
			encs, codecs := map[string]bool{}, map[string]bool{}
			for g := 0; g < md.NumRowGroups(); g++ {
				cc, err := md.RowGroup(g).ColumnChunk(i)
				if err != nil {
					return err
				}
				if cc.HasDictionaryPage() {
					ci.Dictionary = true
				}
				for _, e := range cc.Encodings() {
					if e == parquet.Encodings.PlainDict || e == parquet.Encodings.RLEDict {
						ci.Dictionary = true
					}
					if s := e.String(); !encs[s] {
						encs[s] = true
						ci.Encodings = append(ci.Encodings, s)
					}
				}
				if s := strings.ToUpper(cc.Compression().String()); !codecs[s] {
					codecs[s] = true
					ci.Compression = append(ci.Compression, s)
				}
			}
			return nil
		})
		if metaLeaves != nil {
			l := metaLeaves[i]
			ci.DType = l.dt.TypeStr()
			if l.orig != nil {
				ci.DType = l.orig.TypeStr()
			}
		} else {
			describeForeign(&ci, c, opts)
		}
		info.Columns = append(info.Columns, ci)
	}
	if metaLeaves != nil {
		return info, nil
	}
	for j, k := range order {
		if err := describeFields(info, r, size, fmd, pf, leaves, byTop, root.Field(k), firstLeaf[j], len(byTop[k]), opts); err != nil {
			return nil, err
		}
	}
	return info, nil
}

// checkOptionNames refuses fill values and validity fields for columns
// the file does not have, as a Reader does.
func checkOptionNames(opts *ReadOptions, root *schema.GroupNode) error {
	if opts == nil {
		return nil
	}
	has := func(k string) bool {
		for i := 0; i < root.NumFields(); i++ {
			if n := root.Field(i).Name(); k == n || strings.HasPrefix(k, n+".") {
				return true
			}
		}
		return false
	}
	for k := range opts.Fill {
		if !has(k) {
			return fmt.Errorf("parquetio: a fill value for %q, which is no column of the file", k)
		}
	}
	for _, k := range opts.Validity {
		if k != "*" && !has(k) {
			return fmt.Errorf("parquetio: a validity field for %q, which is no column of the file", k)
		}
	}
	return nil
}

// columnOptions are the options of opts that concern column top alone.
func columnOptions(opts *ReadOptions, top string) *ReadOptions {
	o := &ReadOptions{Columns: []string{top}}
	if opts == nil {
		return o
	}
	o.Decimal = opts.Decimal
	for k, v := range opts.Fill {
		if k == top || strings.HasPrefix(k, top+".") {
			if o.Fill == nil {
				o.Fill = map[string]any{}
			}
			o.Fill[k] = v
		}
	}
	for _, v := range opts.Validity {
		if v == top || v == "*" {
			o.Validity = append(o.Validity, v)
		}
	}
	return o
}

// describeFields maps column top as a Reader with opts does (from the
// footer alone) and appends its numpy fields to info.Fields, matching
// them with its n leaves in info.Columns from first on; its validity
// fields mark the leaves whose nulls they record.
func describeFields(info *FileInfo, r io.ReaderAt, size int64, fmd *format.FileMetaData, pf *file.Reader, leaves []*schema.Column, byTop [][]int, top schema.Node, first, n int, opts *ReadOptions) error {
	if n == 0 {
		return nil
	}
	rd := &Reader{ra: r, size: size, fmd: fmd, pf: pf, leaves: leaves, byTop: byTop, rows: info.Rows, noData: true, opts: columnOptions(opts, top.Name())}
	rd.values = make([][]int64, len(fmd.RowGroups))
	err := rd.plan()
	var re *RefusedError
	switch {
	case errors.As(err, &re):
		// Refused for its type: one field per leaf, as the leaves say.
		for k := first; k < first+n; k++ {
			c := info.Columns[k]
			info.Fields = append(info.Fields, FieldInfo{Name: c.Path, DType: c.DType, Column: k, Refused: true})
		}
		return nil
	case err != nil:
		return err
	}
	// The fields of the column as shown, flattened.
	var flat []FieldInfo
	var walk func(prefix string, f npyio.Field)
	walk = func(prefix string, f npyio.Field) {
		name := prefix + f.Name
		if f.Type.Kind == npyio.Struct && len(f.Type.Fields) > 0 && !isIntervalDT(f.Type) {
			for _, sf := range f.Type.Fields {
				walk(name+".", sf)
			}
			return
		}
		dt := f.Type.TypeStr()
		if f.Type.Kind == npyio.Struct {
			dt = f.Type.String()
		}
		flat = append(flat, FieldInfo{Name: name, DType: dt, Shape: f.Shape, Column: -1})
	}
	h := rd.Header().DType
	if h.Kind == npyio.Struct && !isIntervalDT(h) {
		for _, f := range h.Fields {
			walk("", f)
		}
	} else {
		walk("", npyio.Field{Name: rd.Columns()[0].Name, Type: h, Shape: rd.Columns()[0].Shape})
	}
	// Validity fields follow what they record: "x_valid" after x.
	k := first
	var valid []string // dotted paths of the nodes with a validity field
	for j := range flat {
		f := &flat[j]
		if j > 0 && f.DType == "|b1" && len(f.Shape) == 1 && k > first && strings.HasSuffix(f.Name, "_items_valid") {
			if base := strings.TrimSuffix(f.Name, "_items_valid"); info.Columns[k-1].List && (validityAfter(flat[:j], base) || flat[j-1].Name == base+"_valid") {
				f.ValidityOf = base + "[]"
				info.Columns[k-1].ItemsValidity = f.Name
				if c := &info.Columns[k-1]; c.Refused != "" && strings.Contains(c.Refused, "nulls") {
					c.Refused = ""
				}
				continue
			}
		}
		if j > 0 && f.DType == "|b1" && strings.HasSuffix(f.Name, "_valid") && k > first && validityAfter(flat[:j], strings.TrimSuffix(f.Name, "_valid")) {
			f.ValidityOf = strings.TrimSuffix(f.Name, "_valid")
			valid = append(valid, f.ValidityOf)
			continue
		}
		if k >= first+n {
			return fmt.Errorf("parquetio: column %s: %d numpy fields for its %d leaves", top.Name(), len(flat), n)
		}
		f.Column = k
		if c := &info.Columns[k]; c.WidthFromData {
			f.DType = c.DType
		}
		k++
	}
	for j := range flat {
		f := flat[j]
		if f.Column < 0 {
			continue
		}
		c := &info.Columns[f.Column]
		best := ""
		for _, v := range valid {
			if (c.Path == v || strings.HasPrefix(c.Path, v+".")) && len(v) > len(best) {
				best = v
			}
		}
		if best != "" {
			c.Validity = best + "_valid"
			if c.Refused != "" && strings.Contains(c.Refused, "nulls") {
				c.Refused = ""
			}
		}
	}
	info.Fields = append(info.Fields, flat...)
	return nil
}

// validityAfter reports whether the fields before a validity field end
// with the one it records (path, or a field inside it).
func validityAfter(before []FieldInfo, path string) bool {
	last := before[len(before)-1].Name
	return last == path || strings.HasPrefix(last, path+".") || strings.HasPrefix(last, path+"_x1e")
}

func isIntervalDT(dt *npyio.DType) bool { return dt.Equal(intervalDType) }

// describeForeign fills in the numpy side of a column of a foreign file.
func describeForeign(ci *ColumnInfo, c *schema.Column, opts *ReadOptions) {
	if _, ok := opts.fillFor(c.ColumnPath()); ok {
		ci.Fill = true
	}
	// A leaf inside a MAP is refused (named by its outermost MAP); one
	// inside lists, at any depth, is an element of a subarray field when
	// every list at each place has one length (found by a pass over the
	// data), and is refused otherwise.
	for n := c.SchemaNode(); n != nil && n.Parent() != nil; n = n.Parent() {
		switch n.LogicalType().(type) {
		case schema.MapLogicalType, *schema.MapLogicalType:
			ci.Refused = fmt.Sprintf("inside the MAP %s; %s", n.Path(), listHint)
		}
		if n.RepetitionType() == parquet.Repetitions.Repeated {
			ci.List = true
		}
	}
	if ci.Refused != "" {
		return
	}
	describeElement(ci, c.SchemaNode().(*schema.PrimitiveNode), opts)
}

// describeElement fills in the numpy type of a primitive.
func describeElement(ci *ColumnInfo, p *schema.PrimitiveNode, opts *ReadOptions) {
	dt, err := leafDType(p, opts, func() { ci.WidthFromData = true })
	if err != nil {
		var re *RefusedError
		if errors.As(err, &re) {
			ci.Refused = re.Reason
		} else {
			ci.Refused = strings.TrimPrefix(err.Error(), "parquetio: ")
		}
		return
	}
	ci.DType = dt.TypeStr()
	if dt.Kind == npyio.Struct {
		ci.DType = dt.String()
	}
	if ci.WidthFromData {
		ci.DType = strings.TrimRight(ci.DType, "0123456789") // "<U": the width comes from the data
	}
	if p.PhysicalType() == parquet.Types.Int96 && dt.Kind == npyio.Datetime {
		ci.DType, ci.WidthFromData = "<M8", true // the unit comes from the values (int96.go)
	}
	switch dt.Kind {
	case npyio.Float, npyio.Datetime, npyio.Timedelta:
		return // NaN, NaT
	}
	if ci.Nullable && ci.NullCount != 0 && !ci.List && !ci.Fill { // a list's statistics count empty lists as nulls
		n := "may hold nulls (no statistics)"
		if ci.NullCount > 0 {
			n = fmt.Sprintf("holds %d nulls", ci.NullCount)
		}
		ci.Refused = fmt.Sprintf("%s and numpy %s has no null: give a fill value or a validity field, or leave the column out", n, ci.DType)
		if ci.NullCount < 0 {
			ci.Refused = "" // refused only if a null turns up
		}
	}
}

// nodeFlags reports whether a node or one of its groups is OPTIONAL, and
// whether one is repeated or a LIST/MAP.
func nodeFlags(n schema.Node) (nullable, repeated bool) {
	for ; n != nil && n.Parent() != nil; n = n.Parent() {
		switch n.RepetitionType() {
		case parquet.Repetitions.Optional:
			nullable = true
		case parquet.Repetitions.Repeated:
			repeated = true
		}
	}
	return nullable, repeated
}

// parquetType names a column's Parquet type as the format does.
func parquetType(p *schema.PrimitiveNode) string {
	unit := func(u schema.TimeUnitType) string {
		return map[schema.TimeUnitType]string{schema.TimeUnitMillis: "ms", schema.TimeUnitMicros: "us", schema.TimeUnitNanos: "ns"}[u]
	}
	utc := func(adj bool) string {
		if adj {
			return ", UTC"
		}
		return ""
	}
	switch v := p.LogicalType().(type) {
	case schema.DecimalLogicalType:
		return fmt.Sprintf("DECIMAL(%d,%d)", v.Precision(), v.Scale())
	case *schema.DecimalLogicalType:
		return fmt.Sprintf("DECIMAL(%d,%d)", v.Precision(), v.Scale())
	case schema.TimestampLogicalType:
		return fmt.Sprintf("TIMESTAMP(%s%s)", unit(v.TimeUnit()), utc(v.IsAdjustedToUTC()))
	case *schema.TimestampLogicalType:
		return fmt.Sprintf("TIMESTAMP(%s%s)", unit(v.TimeUnit()), utc(v.IsAdjustedToUTC()))
	case schema.TimeLogicalType:
		return fmt.Sprintf("TIME(%s%s)", unit(v.TimeUnit()), utc(v.IsAdjustedToUTC()))
	case *schema.TimeLogicalType:
		return fmt.Sprintf("TIME(%s%s)", unit(v.TimeUnit()), utc(v.IsAdjustedToUTC()))
	case schema.IntLogicalType:
		return intName(v.BitWidth(), v.IsSigned())
	case *schema.IntLogicalType:
		return intName(v.BitWidth(), v.IsSigned())
	case schema.DateLogicalType, *schema.DateLogicalType:
		return "DATE"
	case schema.StringLogicalType, *schema.StringLogicalType:
		return "STRING"
	case schema.EnumLogicalType, *schema.EnumLogicalType:
		return "ENUM"
	case schema.JSONLogicalType, *schema.JSONLogicalType:
		return "JSON"
	case schema.BSONLogicalType, *schema.BSONLogicalType:
		return "BSON"
	case schema.UUIDLogicalType, *schema.UUIDLogicalType:
		return "UUID"
	case schema.Float16LogicalType, *schema.Float16LogicalType:
		return "FLOAT16"
	case schema.IntervalLogicalType, *schema.IntervalLogicalType:
		return "INTERVAL"
	}
	return physName(p)
}

func intName(bits int8, signed bool) string {
	if signed {
		return fmt.Sprintf("INT(%d)", bits)
	}
	return fmt.Sprintf("UINT(%d)", bits)
}

// ColumnNames returns the names of the top-level columns of the Parquet
// file r of size size, in file order, from its footer alone (checked as
// by [NewReader]): the names [ReadOptions.Columns] chooses from. No column
// is mapped, so a file with columns numpy has no type for has names too.
func ColumnNames(r io.ReaderAt, size int64) ([]string, error) {
	f, err := openParquet(r, size)
	if err != nil {
		return nil, err
	}
	root := f.pf.MetaData().Schema.Root()
	names := make([]string, root.NumFields())
	for i := range names {
		names[i] = root.Field(i).Name()
	}
	return names, nil
}
