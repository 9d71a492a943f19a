package parquetio

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
)

// Footer key-value metadata written by a [Writer].
const (
	// MetaTable is npyflow's description of the source, a JSON object
	// {"kind": "array"|"table", "columns": [{"name", "descr", "shape",
	// "fortran_order"}]} with each column's numpy descr (byte order
	// included) and full shape; [Reader] uses it to restore the exact
	// array. For kind "array" there is one entry: the whole array.
	MetaTable = "npyflow.table"
	// MetaDescr and MetaShape repeat the source array's numpy descr and
	// shape (as a JSON list), for readers that know nothing of npyflow.
	MetaDescr = arrowconv.MetaDescr
	MetaShape = arrowconv.MetaShape
	// MetaTimeUnits maps the dotted path of each time column stored as
	// plain INT64 to its numpy dtype ("<m8[s]"), a JSON object.
	MetaTimeUnits = "npyflow.int64_time_units"
	// ArrowSchemaKey holds the Arrow schema, base64 of the IPC schema
	// message, as pyarrow writes it.
	ArrowSchemaKey = "ARROW:schema"
)

// TableMeta is the value of [MetaTable].
type TableMeta struct {
	Kind    string       `json:"kind"`
	Columns []ColumnMeta `json:"columns"`
}

// ColumnMeta describes one source array in [TableMeta].
type ColumnMeta struct {
	Name         string `json:"name"`
	Descr        string `json:"descr"`
	Shape        []int  `json:"shape"`
	FortranOrder bool   `json:"fortran_order,omitempty"`
}

// metaFor builds the footer metadata for rows rows.
func (s *Schema) metaFor(rows int64) (map[string]string, error) {
	md := map[string]string{}
	tm := TableMeta{Kind: "table"}
	if s.array {
		tm.Kind = "array"
	}
	for _, c := range s.cols {
		dt, fo := c.DType, c.FortranOrder
		shape := append([]int{int(rows)}, c.Shape...)
		if s.array && s.zeroD {
			shape = []int{}
		}
		tm.Columns = append(tm.Columns, ColumnMeta{Name: c.Name, Descr: dt.String(), Shape: shape, FortranOrder: fo})
	}
	b, err := json.Marshal(tm)
	if err != nil {
		return nil, err
	}
	if s.nulls {
		// Nullable columns and left-out validity columns: the rows no
		// longer read back as the source's numpy layout.
		tm = TableMeta{}
	} else {
		md[MetaTable] = string(b)
	}
	if s.array && !s.nulls {
		md[MetaDescr] = tm.Columns[0].Descr
		md[MetaShape] = jsonInts(tm.Columns[0].Shape)
	}
	units := map[string]string{}
	for _, l := range s.leaves {
		if l.isTime && l.plan == timeRaw {
			units[strings.Join(l.path, ".")] = l.dt.TypeStr()
		}
	}
	if len(units) > 0 {
		b, _ := json.Marshal(units)
		md[MetaTimeUnits] = string(b)
	}
	as, err := s.ArrowSchema(tm)
	if err != nil {
		return nil, err
	}
	md[ArrowSchemaKey], err = encodeArrowSchema(as)
	if err != nil {
		return nil, err
	}
	return md, nil
}

func jsonInts(s []int) string {
	if s == nil {
		s = []int{}
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// ArrowSchema returns the Arrow schema of the table as written, the one
// stored under ARROW:schema: arrowconv's mapping of every column, except
// that time columns have the type they are stored as (Timestamp in the
// stored unit, Date32, or Int64 for timedelta64 and for datetimes stored
// as plain INT64), because arrow-go's Parquet reader refuses a stored
// Duration.
func (s *Schema) ArrowSchema(tm TableMeta) (*arrow.Schema, error) {
	fields := make([]arrow.Field, len(s.fields))
	for i, f := range s.fields {
		af, err := s.arrowField(f, true)
		if err != nil {
			return nil, err
		}
		fields[i] = af
	}
	var keys, vals []string
	if len(tm.Columns) > 0 {
		b, _ := json.Marshal(tm)
		keys, vals = []string{MetaTable}, []string{string(b)}
	}
	if s.array && len(tm.Columns) == 1 {
		keys = append(keys, arrowconv.MetaDescr, arrowconv.MetaShape, arrowconv.MetaFortranOrder)
		vals = append(vals, tm.Columns[0].Descr, jsonInts(tm.Columns[0].Shape), strconv.FormatBool(tm.Columns[0].FortranOrder))
	}
	meta := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(fields, &meta), nil
}

func (s *Schema) arrowField(n *node, top bool) (arrow.Field, error) {
	var elem arrow.DataType
	var err error
	switch {
	case n.leaf != nil && n.leaf.isTime:
		elem = s.timeArrowType(n.leaf)
	case n.leaf != nil:
		elem, err = arrowconv.FieldType(n.dt, nil)
	case n.complex:
		elem, err = arrowconv.FieldType(n.dt, nil)
	default:
		fs := make([]arrow.Field, len(n.children))
		for i, c := range n.children {
			if fs[i], err = s.arrowField(c, false); err != nil {
				return arrow.Field{}, err
			}
		}
		elem = arrow.StructOf(fs...)
	}
	if err != nil {
		return arrow.Field{}, fmt.Errorf("parquetio: column %q: %w", n.name, err)
	}
	t := elem
	switch {
	case len(n.dims) == 0:
	case n.count == 0:
		// No values in any row: arrow-go has no fixed-size list of
		// length 0 (FixedSizeListOf panics), so a list of none.
		t = arrow.ListOfNonNullable(elem)
	case len(n.dims) == 1:
		t = arrow.FixedSizeListOf(int32(n.count), elem)
	default:
		tt, err := arrowconv.NewFixedShapeTensorType(elem, n.dims, nil, nil)
		if err != nil {
			return arrow.Field{}, err
		}
		// The Parquet list elements are REQUIRED: say so in the storage,
		// which arrow-go's reader compares exactly.
		tt.Storage = arrow.FixedSizeListOfNonNullable(int32(n.count), elem)
		t = tt
	}
	keys := []string{arrowconv.MetaDescr}
	vals := []string{n.dt.String()}
	if len(n.dims) > 0 {
		keys = append(keys, arrowconv.MetaShape)
		vals = append(vals, jsonInts(n.dims))
	}
	if n.title != "" {
		keys = append(keys, arrowconv.MetaTitle)
		vals = append(vals, n.title)
	}
	return arrow.Field{Name: n.name, Type: t, Nullable: true, Metadata: arrow.NewMetadata(keys, vals)}, nil
}

func (s *Schema) timeArrowType(l *leaf) arrow.DataType {
	switch l.plan {
	case timeDate:
		return arrow.FixedWidthTypes.Date32
	case timeTS:
		u := map[string]arrow.TimeUnit{"ms": arrow.Millisecond, "us": arrow.Microsecond, "ns": arrow.Nanosecond}[l.unit]
		return &arrow.TimestampType{Unit: u}
	}
	return arrow.PrimitiveTypes.Int64
}

// encodeArrowSchema serializes a schema as pyarrow does for ARROW:schema:
// base64 of the IPC schema message (continuation marker, length,
// flatbuffer), without the end-of-stream marker.
func encodeArrowSchema(as *arrow.Schema) (string, error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(as), ipc.WithAllocator(memory.DefaultAllocator))
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("parquetio: serializing the Arrow schema: %w", err)
	}
	b := buf.Bytes()
	if len(b) >= 8 && bytes.Equal(b[len(b)-8:], []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}) {
		b = b[:len(b)-8]
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

func sortedKeys(m map[string]string) []string {
	k := make([]string, 0, len(m))
	for key := range m {
		k = append(k, key)
	}
	sort.Strings(k)
	return k
}
