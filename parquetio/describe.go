package parquetio

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/npyflow/npyflow/npyio"
)

// FileInfo describes a Parquet file from its footer alone (see [Describe]).
type FileInfo struct {
	Rows      int64
	RowGroups int
	CreatedBy string
	// Npyflow is set for files written by npyflow: their numpy dtypes come
	// from its metadata ([MetaTable]) and are exact.
	Npyflow bool
	// Columns are the file's leaf columns in order.
	Columns []ColumnInfo
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
	// WidthFromData is set.
	DType         string
	WidthFromData bool
	// List is set for a list of primitives at the top level: it converts
	// to a subarray field of DType when every row's list has one length
	// (found by a pass over the data), and is refused otherwise.
	List bool
	// Refused says why the column would be refused, "" if it converts.
	Refused string
}

// Describe reads the footer of the Parquet file r of size size and
// describes each column: its Parquet type, the numpy dtype it converts to
// and whether and why it would be refused, without reading any data
// (null counts come from the statistics). The footer is checked as by
// [NewReader].
func Describe(r io.ReaderAt, size int64) (*FileInfo, error) {
	fmd, flen, err := checkFooter(r, size)
	if err != nil {
		return nil, err
	}
	pf, err := openArrowFile(r, size)
	if err != nil {
		return nil, err
	}
	leaves := fileLeaves(pf)
	if err := checkFooterChunks(fmd, size-8-flen, len(leaves)); err != nil {
		return nil, fmt.Errorf("parquetio: %w", err)
	}
	rd := &Reader{ra: r, size: size, fmd: fmd, pf: pf, leaves: leaves, rows: pf.NumRows(), noData: true}
	rd.values = make([][]int64, len(fmd.RowGroups))
	md := pf.MetaData()
	info := &FileInfo{Rows: pf.NumRows(), RowGroups: md.NumRowGroups(), CreatedBy: md.GetCreatedBy()}
	// npyflow's own files: the exact dtypes of its metadata.
	var metaLeaves []*leaf
	if rd.plan() == nil && rd.meta != nil {
		info.Npyflow = true
		metaLeaves = rd.s.leaves
	}
	for i, c := range leaves {
		ci := ColumnInfo{Path: strings.Join(c.ColumnPath(), "."), Physical: physName(c.SchemaNode().(*schema.PrimitiveNode)), NullCount: rd.nullCount(i)}
		ci.Type = parquetType(c)
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
			describeForeign(&ci, c)
		}
		info.Columns = append(info.Columns, ci)
	}
	return info, nil
}

// describeForeign fills in the numpy side of a column of a foreign file.
func describeForeign(ci *ColumnInfo, c *schema.Column) {
	top := c.SchemaNode()
	for top.Parent() != nil && top.Parent().Parent() != nil {
		top = top.Parent()
	}
	if elem, ok := listElement(top); ok && elem == c.SchemaNode() {
		ci.List = true
		describeElement(ci, elem)
		return
	}
	// Any other list, map or repeated field on the path is refused (named
	// by its outermost LIST or MAP, if any).
	for n := c.SchemaNode(); n != nil && n.Parent() != nil; n = n.Parent() {
		if n.RepetitionType() == parquet.Repetitions.Repeated && ci.Refused == "" {
			ci.Refused = fmt.Sprintf("inside the repeated field %s (a list); %s", n.Path(), listHint)
		}
		switch n.LogicalType().(type) {
		case schema.ListLogicalType, *schema.ListLogicalType:
			ci.Refused = fmt.Sprintf("inside the LIST %s; %s", n.Path(), listHint)
			return
		case schema.MapLogicalType, *schema.MapLogicalType:
			ci.Refused = fmt.Sprintf("inside the MAP %s; %s", n.Path(), listHint)
			return
		}
	}
	if ci.Refused != "" {
		return
	}
	describeElement(ci, c.SchemaNode().(*schema.PrimitiveNode))
}

// describeElement fills in the numpy type of a primitive.
func describeElement(ci *ColumnInfo, p *schema.PrimitiveNode) {
	dt, err := primitiveDType(p, false, func(bool) (int, error) {
		ci.WidthFromData = true
		return 0, nil
	})
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
		ci.DType = strings.TrimSuffix(ci.DType, "0")
	}
	switch dt.Kind {
	case npyio.Float, npyio.Datetime, npyio.Timedelta:
		return // NaN, NaT
	}
	if ci.Nullable && ci.NullCount != 0 && !ci.List { // a list's statistics count empty lists as nulls
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
func parquetType(c *schema.Column) string {
	p := c.SchemaNode().(*schema.PrimitiveNode)
	unit := func(u schema.TimeUnitType) string {
		return map[schema.TimeUnitType]string{schema.TimeUnitMillis: "ms", schema.TimeUnitMicros: "us", schema.TimeUnitNanos: "ns"}[u]
	}
	utc := func(adj bool) string {
		if adj {
			return ", UTC"
		}
		return ""
	}
	switch v := c.LogicalType().(type) {
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
