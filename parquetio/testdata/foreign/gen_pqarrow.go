//go:build ignore

// gen_pqarrow.go writes the arrow-go pqarrow part of parquetio's
// foreign-file corpus, and next to each file X.parquet X.json: the values
// as pqarrow itself reads the file back (ReadTable), never computed by
// npyflow. Run from this folder:
//
//	go run gen_pqarrow.go
//
// Files: nulls and dictionaries with data pages v1 and GZIP; data pages v2
// with DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and
// BYTE_STREAM_SPLIT and BROTLI; LZ4_RAW; INT96 timestamps; decimals stored
// as INT32, INT64 and FIXED_LEN_BYTE_ARRAY; TIME(ms) and TIME(us).
package main

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log"
	"math"
	"math/big"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	pformat "github.com/parquet-go/parquet-go/format"
)

type column struct {
	Name   string `json:"name"`
	Type   string `json:"type"` // a DuckDB-like name the test knows (FLOAT, DOUBLE, DATE, TIMESTAMP_NS, ...)
	Unit   string `json:"unit,omitempty"`
	Nulls  int    `json:"nulls"`
	Values []any  `json:"values"`
}

type manifest struct {
	File     string   `json:"file"`
	Producer string   `json:"producer"`
	Rows     int      `json:"rows"`
	Note     string   `json:"note"`
	Columns  []column `json:"columns"`
}

var mem = memory.DefaultAllocator

func main() {
	const n = 700
	// Nulls and dictionaries, data pages v1, GZIP, two row groups.
	write("pqa_nulls_dict.parquet", "nulls (NaN, NaT), dictionaries, page v1, GZIP, 2 row groups", n, 400,
		parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Gzip), parquet.WithDictionaryDefault(true),
			parquet.WithDataPageVersion(parquet.DataPageV1), parquet.WithMaxRowGroupLength(400), parquet.WithDataPageSize(1024)),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()),
		[]arrow.Field{
			{Name: "f8n", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
			{Name: "f4n", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
			{Name: "tsn", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
			{Name: "dn", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
			{Name: "i8", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			{Name: "u1", Type: arrow.PrimitiveTypes.Uint8},
			{Name: "i2", Type: arrow.PrimitiveTypes.Int16},
			{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
			{Name: "b", Type: arrow.FixedWidthTypes.Boolean},
		}, func(b *array.RecordBuilder, i int) {
			null := func(k int) bool { return i%k == 3 }
			appendF64(b.Field(0), float64(i)*1.25-7, null(7))
			if null(5) {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.Float32Builder).Append(float32(i) / 3)
			}
			if null(11) {
				b.Field(2).AppendNull()
			} else {
				b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(1700000000000000 + int64(i)*987654321))
			}
			if null(13) {
				b.Field(3).AppendNull()
			} else {
				b.Field(3).(*array.Date32Builder).Append(arrow.Date32(-3000 + i*17))
			}
			b.Field(4).(*array.Int64Builder).Append(int64(i%9) * 1000000007)
			b.Field(5).(*array.Uint8Builder).Append(uint8(i % 4))
			b.Field(6).(*array.Int16Builder).Append(int16(i%3 - 1))
			b.Field(7).(*array.StringBuilder).Append([]string{"alpha", "beta", "γάμμα", ""}[i%4])
			b.Field(8).(*array.BooleanBuilder).Append(i%3 == 0)
		})

	// Data pages v2, DELTA_* and BYTE_STREAM_SPLIT, no dictionaries, BROTLI.
	props := []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Brotli), parquet.WithDictionaryDefault(false),
		parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithDataPageSize(2048),
		parquet.WithEncodingFor("i8", parquet.Encodings.DeltaBinaryPacked),
		parquet.WithEncodingFor("i4", parquet.Encodings.DeltaBinaryPacked),
		parquet.WithEncodingFor("s_dlba", parquet.Encodings.DeltaLengthByteArray),
		parquet.WithEncodingFor("s_dba", parquet.Encodings.DeltaByteArray),
		parquet.WithEncodingFor("f8_bss", parquet.Encodings.ByteStreamSplit),
		parquet.WithEncodingFor("f4_bss", parquet.Encodings.ByteStreamSplit),
	}
	write("pqa_v2_delta_bss.parquet", "data page v2, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT, BROTLI", n, n,
		parquet.NewWriterProperties(props...), pqarrow.DefaultWriterProps(),
		[]arrow.Field{
			{Name: "i8", Type: arrow.PrimitiveTypes.Int64},
			{Name: "i4", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			{Name: "s_dlba", Type: arrow.BinaryTypes.String},
			{Name: "s_dba", Type: arrow.BinaryTypes.String},
			{Name: "f8_bss", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
			{Name: "f4_bss", Type: arrow.PrimitiveTypes.Float32},
		}, func(b *array.RecordBuilder, i int) {
			b.Field(0).(*array.Int64Builder).Append(int64(i)*int64(i)*31 - 5000000)
			b.Field(1).(*array.Int32Builder).Append(int32(i*7 - 100))
			b.Field(2).(*array.StringBuilder).Append(strings.Repeat("x", i%13) + strconv.Itoa(i))
			b.Field(3).(*array.StringBuilder).Append("prefix/shared/" + strconv.Itoa(i/10) + "/" + strconv.Itoa(i))
			appendF64(b.Field(4), math.Sqrt(float64(i))*1e-3, i%17 == 0)
			b.Field(5).(*array.Float32Builder).Append(float32(math.Sin(float64(i))))
		})

	// LZ4_RAW; INT96 timestamps; decimals on INT32, INT64 and
	// FIXED_LEN_BYTE_ARRAY; TIME(ms), TIME(us).
	write("pqa_lz4raw_int96_decimal_time.parquet", "LZ4_RAW, INT96 timestamps, decimals as INT32/INT64/FIXED_LEN_BYTE_ARRAY, TIME(ms), TIME(us)", 300, 300,
		parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Lz4Raw), parquet.WithStoreDecimalAsInteger(true)),
		pqarrow.NewArrowWriterProperties(pqarrow.WithDeprecatedInt96Timestamps(true)),
		[]arrow.Field{
			{Name: "ts96", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}},
			{Name: "dec9_2", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}},
			{Name: "dec18_6", Type: &arrow.Decimal128Type{Precision: 18, Scale: 6}},
			{Name: "dec30_5", Type: &arrow.Decimal128Type{Precision: 30, Scale: 5}},
			{Name: "t_ms", Type: arrow.FixedWidthTypes.Time32ms},
			{Name: "t_us", Type: arrow.FixedWidthTypes.Time64us},
		}, func(b *array.RecordBuilder, i int) {
			b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i-150) * 86399999999937))
			b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i*i*37 - 1000000)))
			b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i)*123456789012345 - 99999999999999999))
			big := decimal128.FromI64(int64(i) * 7919).Mul(decimal128.FromI64(1000000000000000007))
			if i%2 == 1 {
				big = big.Negate()
			}
			b.Field(3).(*array.Decimal128Builder).Append(big)
			b.Field(4).(*array.Time32Builder).Append(arrow.Time32((i * 287999) % 86400000))
			b.Field(5).(*array.Time64Builder).Append(arrow.Time64((int64(i) * 287999999937) % 86400000000))
		})

	writeLegacy("pqlow_legacy_types.parquet", 50)

	// Nulls in nested columns (validity fields): a struct whose rows,
	// nested struct and fields are null in different rows, a
	// fixed_size_list, a list of one length with null rows.
	inner := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}, arrow.Field{Name: "y", Type: arrow.FixedWidthTypes.Boolean, Nullable: true})
	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, arrow.Field{Name: "b", Type: inner, Nullable: true})
	write("pqa_nested_nulls.parquet", "struct with null rows, a null nested struct and null fields; a fixed_size_list; a list of one length with null rows", 60, 25,
		parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(25)), pqarrow.DefaultWriterProps(),
		[]arrow.Field{
			{Name: "k", Type: arrow.PrimitiveTypes.Int64},
			{Name: "st", Type: st, Nullable: true},
			{Name: "fsl", Type: arrow.FixedSizeListOfField(3, arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Int16, Nullable: true}), Nullable: true},
			{Name: "l2", Type: arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Float64, Nullable: true}), Nullable: true},
		}, func(b *array.RecordBuilder, i int) {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			sb := b.Field(1).(*array.StructBuilder)
			if i%5 == 2 {
				sb.AppendNull()
			} else {
				sb.Append(true)
				ab := sb.FieldBuilder(0).(*array.Int32Builder)
				if i%3 == 1 {
					ab.AppendNull()
				} else {
					ab.Append(int32(i * 2))
				}
				bb := sb.FieldBuilder(1).(*array.StructBuilder)
				if i%7 == 3 {
					bb.AppendNull()
				} else {
					bb.Append(true)
					appendF64(bb.FieldBuilder(0), float64(i)/4, i%4 == 0)
					bb.FieldBuilder(1).(*array.BooleanBuilder).Append(i%2 == 0)
				}
			}
			// pqarrow writes no null fixed_size_list ("lists with
			// non-zero length null components are not supported").
			fb := b.Field(2).(*array.FixedSizeListBuilder)
			fb.Append(true)
			fb.ValueBuilder().(*array.Int16Builder).AppendValues([]int16{int16(i), int16(i + 1), int16(-i)}, nil)
			lb := b.Field(3).(*array.ListBuilder)
			if i%3 == 0 {
				lb.AppendNull()
			} else {
				lb.Append(true)
				lb.ValueBuilder().(*array.Float64Builder).AppendValues([]float64{float64(i) / 2, -float64(i) / 2}, nil)
			}
		})
}

// writeLegacy writes, with arrow-go's low-level Parquet writer, the
// types the Arrow writer does not produce: integer, date and timestamp
// columns annotated by the legacy converted types alone (TIMESTAMP_MILLIS
// and TIMESTAMP_MICROS without a logical type), FLOAT16, a
// FIXED_LEN_BYTE_ARRAY without logical type, a DECIMAL on BYTE_ARRAY, a
// legacy UTF8 string, a 2-level LIST (repeated primitive inside the LIST
// group) and a repeated primitive without LIST annotation.
func writeLegacy(name string, rows int) {
	must := func(n schema.Node, err error) schema.Node {
		if err != nil {
			log.Fatal(err)
		}
		return n
	}
	req, rep := parquet.Repetitions.Required, parquet.Repetitions.Repeated
	list2 := must(schema.NewGroupNodeConverted("l2", req, schema.FieldList{
		must(schema.NewPrimitiveNode("array", rep, parquet.Types.Int32, -1, -1))}, schema.ConvertedTypes.List, -1))
	root := must(schema.NewGroupNode("schema", req, schema.FieldList{
		must(schema.NewPrimitiveNodeConverted("i8c", req, parquet.Types.Int32, schema.ConvertedTypes.Int8, 0, 0, 0, -1)),
		must(schema.NewPrimitiveNodeConverted("u16c", req, parquet.Types.Int32, schema.ConvertedTypes.Uint16, 0, 0, 0, -1)),
		must(schema.NewPrimitiveNodeConverted("tsm", req, parquet.Types.Int64, schema.ConvertedTypes.TimestampMillis, 0, 0, 0, -1)),
		must(schema.NewPrimitiveNodeConverted("tsu", req, parquet.Types.Int64, schema.ConvertedTypes.TimestampMicros, 0, 0, 0, -1)),
		must(schema.NewPrimitiveNodeConverted("dc", req, parquet.Types.Int32, schema.ConvertedTypes.Date, 0, 0, 0, -1)),
		must(schema.NewPrimitiveNodeLogical("f16", req, schema.Float16LogicalType{}, parquet.Types.FixedLenByteArray, 2, -1)),
		must(schema.NewPrimitiveNode("flba", req, parquet.Types.FixedLenByteArray, -1, 5)),
		must(schema.NewPrimitiveNodeConverted("decba", req, parquet.Types.ByteArray, schema.ConvertedTypes.Decimal, 0, 20, 3, -1)),
		must(schema.NewPrimitiveNodeConverted("su", req, parquet.Types.ByteArray, schema.ConvertedTypes.UTF8, 0, 0, 0, -1)),
		list2,
		must(schema.NewPrimitiveNode("rp", rep, parquet.Types.Int64, -1, -1)),
	}, -1)).(*schema.GroupNode)
	f, err := os.Create(name)
	if err != nil {
		log.Fatal(err)
	}
	w := file.NewParquetWriter(f, root, file.WithWriterProps(parquet.NewWriterProperties(parquet.WithDictionaryDefault(false), parquet.WithStats(true))))
	rg := w.AppendRowGroup()
	col := func() file.ColumnChunkWriter {
		c, err := rg.NextColumn()
		if err != nil {
			log.Fatal(err)
		}
		return c
	}
	ints := func(f func(i int) int32) []int32 {
		out := make([]int32, rows)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	i64s := func(f func(i int) int64) []int64 {
		out := make([]int64, rows)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	check := func(_ int64, err error) {
		if err != nil {
			log.Fatal(err)
		}
	}
	check(col().(*file.Int32ColumnChunkWriter).WriteBatch(ints(func(i int) int32 { return int32(i%256 - 128) }), nil, nil))
	check(col().(*file.Int32ColumnChunkWriter).WriteBatch(ints(func(i int) int32 { return int32(i * 1311 % 65536) }), nil, nil))
	check(col().(*file.Int64ColumnChunkWriter).WriteBatch(i64s(func(i int) int64 { return int64(i)*86400123 - 1e12 }), nil, nil))
	check(col().(*file.Int64ColumnChunkWriter).WriteBatch(i64s(func(i int) int64 { return int64(i)*3600000001 + 1.6e15 }), nil, nil))
	check(col().(*file.Int32ColumnChunkWriter).WriteBatch(ints(func(i int) int32 { return int32(i*37 - 500) }), nil, nil))
	var f16, flba []parquet.FixedLenByteArray
	var dec, su []parquet.ByteArray
	for i := 0; i < rows; i++ {
		h := float16.New(float32(i)*0.125 - 3).Uint16()
		f16 = append(f16, parquet.FixedLenByteArray{byte(h), byte(h >> 8)})
		flba = append(flba, parquet.FixedLenByteArray{byte(i), 0, byte(255 - i), 7, 0})
		// Unscaled value, big-endian two's complement, as few bytes as
		// the value needs (9 for the large ones).
		u := new(big.Int).Mul(big.NewInt(int64(i)*7919-200000), big.NewInt(1000000007))
		if i%3 == 0 {
			u = big.NewInt(int64(-i))
		}
		dec = append(dec, twos(u))
		su = append(su, parquet.ByteArray("ü"+strconv.Itoa(i*i)))
	}
	check(col().(*file.FixedLenByteArrayColumnChunkWriter).WriteBatch(f16, nil, nil))
	check(col().(*file.FixedLenByteArrayColumnChunkWriter).WriteBatch(flba, nil, nil))
	check(col().(*file.ByteArrayColumnChunkWriter).WriteBatch(dec, nil, nil))
	check(col().(*file.ByteArrayColumnChunkWriter).WriteBatch(su, nil, nil))
	// Lists of three values a row: repetition 0, 1, 1.
	var lv []int32
	var l64 []int64
	var lrep, ldef []int16
	for i := 0; i < rows; i++ {
		for k := 0; k < 3; k++ {
			lv = append(lv, int32(i*10+k))
			l64 = append(l64, int64(i)*1000000007*int64(k+1))
			lrep = append(lrep, int16(min(k, 1)))
			ldef = append(ldef, 1)
		}
	}
	check(col().(*file.Int32ColumnChunkWriter).WriteBatch(lv, ldef, lrep))
	check(col().(*file.Int64ColumnChunkWriter).WriteBatch(l64, ldef, lrep))
	if err := rg.Close(); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	// arrow-go writes a logical type next to the converted type of an
	// integer, DATE, DECIMAL or UTF8 column; writers before format 2.4
	// (parquet-mr 1.10, Impala, old Hive) wrote the converted type alone:
	// the footer is rewritten without those logical types.
	dropLogicalTypes(name, "i8c", "u16c", "dc", "decba", "su")
	readBack(name, "legacy converted types alone (INT_8, UINT_16, TIMESTAMP_MILLIS/MICROS, DATE, UTF8), FLOAT16, FIXED_LEN_BYTE_ARRAY(5) without logical type, DECIMAL(20,3) on BYTE_ARRAY, a 2-level LIST, a repeated primitive without LIST")
}

// dropLogicalTypes rewrites the footer of the Parquet file name without
// the logical types of the named columns (their converted types stay).
func dropLogicalTypes(name string, cols ...string) {
	b, err := os.ReadFile(name)
	if err != nil {
		log.Fatal(err)
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	start := len(b) - 8 - n
	var md pformat.FileMetaData
	var proto thrift.CompactProtocol
	if err := thrift.Unmarshal(&proto, b[start:len(b)-8], &md); err != nil {
		log.Fatal(err)
	}
	dropped := 0
	for i := range md.Schema {
		if slices.Contains(cols, md.Schema[i].Name) {
			md.Schema[i].LogicalType = pformat.LogicalType{}
			dropped++
		}
	}
	if dropped != len(cols) {
		log.Fatalf("%s: %d of the columns %v found", name, dropped, cols)
	}
	footer, err := thrift.Marshal(&proto, &md)
	if err != nil {
		log.Fatal(err)
	}
	out := append(append([]byte(nil), b[:start]...), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	out = append(out, "PAR1"...)
	if err := os.WriteFile(name, out, 0o644); err != nil {
		log.Fatal(err)
	}
}

// twos is x as big-endian two's complement in the fewest bytes.
func twos(x *big.Int) []byte {
	n := x.BitLen()/8 + 1
	b := make([]byte, n)
	m := new(big.Int).Set(x)
	if x.Sign() < 0 {
		m.Add(m, new(big.Int).Lsh(big.NewInt(1), uint(8*n)))
	}
	m.FillBytes(b)
	return b
}

// jsonOf is value k of a nested array as JSON values (numbers exact, nil
// for null), for the JSON text of struct and list values.
func jsonOf(arr arrow.Array, k int) any {
	if arr.IsNull(k) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Struct:
		m := map[string]any{}
		for j := 0; j < a.NumField(); j++ {
			m[a.DataType().(*arrow.StructType).Field(j).Name] = jsonOf(a.Field(j), k)
		}
		return m
	case array.ListLike:
		s, e := a.ValueOffsets(k)
		out := []any{}
		for j := s; j < e; j++ {
			out = append(out, jsonOf(a.ListValues(), int(j)))
		}
		return out
	case *array.Float64:
		return json.Number(strconv.FormatFloat(a.Value(k), 'g', -1, 64))
	case *array.Int64:
		return json.Number(strconv.FormatInt(a.Value(k), 10))
	case *array.Int32:
		return json.Number(strconv.FormatInt(int64(a.Value(k)), 10))
	case *array.Int16:
		return json.Number(strconv.FormatInt(int64(a.Value(k)), 10))
	case *array.Int8:
		return json.Number(strconv.FormatInt(int64(a.Value(k)), 10))
	case *array.Boolean:
		return a.Value(k)
	}
	log.Fatalf("no JSON form for %s", arr.DataType())
	return nil
}

func appendF64(b array.Builder, v float64, null bool) {
	if null {
		b.AppendNull()
		return
	}
	b.(*array.Float64Builder).Append(v)
}

func write(name, note string, rows, group int, props *parquet.WriterProperties, aprops pqarrow.ArrowWriterProperties, fields []arrow.Field, row func(*array.RecordBuilder, int)) {
	sc := arrow.NewSchema(fields, nil)
	f, err := os.Create(name)
	if err != nil {
		log.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(sc, f, props, aprops)
	if err != nil {
		log.Fatal(err)
	}
	b := array.NewRecordBuilder(mem, sc)
	for r0 := 0; r0 < rows; r0 += group {
		for i := r0; i < min(rows, r0+group); i++ {
			row(b, i)
		}
		rec := b.NewRecordBatch()
		if err := w.WriteBuffered(rec); err != nil {
			log.Fatal(err)
		}
		rec.Release()
		if r0+group < rows {
			w.NewBufferedRowGroup()
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	readBack(name, note)
}

// readBack reads the file with pqarrow and writes its values as JSON.
func readBack(name, note string) {
	pf, err := file.OpenParquetFile(name, false)
	if err != nil {
		log.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		log.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	defer tbl.Release()
	m := manifest{File: name, Producer: "arrow-go pqarrow v18.8.0", Rows: int(tbl.NumRows()), Note: note}
	for i := 0; i < int(tbl.NumCols()); i++ {
		c := tbl.Column(i)
		col := column{Name: c.Name()}
		for _, arr := range c.Data().Chunks() {
			for k := 0; k < arr.Len(); k++ {
				if arr.IsNull(k) {
					col.Nulls++
					col.Values = append(col.Values, nil)
					continue
				}
				var v string
				switch a := arr.(type) {
				case *array.Float64:
					col.Type, v = "DOUBLE", strconv.FormatFloat(a.Value(k), 'g', -1, 64)
				case *array.Float32:
					col.Type, v = "FLOAT", strconv.FormatFloat(float64(a.Value(k)), 'g', -1, 32)
				case *array.Int64:
					col.Type, v = "BIGINT", strconv.FormatInt(a.Value(k), 10)
				case *array.Int32:
					col.Type, v = "INTEGER", strconv.FormatInt(int64(a.Value(k)), 10)
				case *array.Int16:
					col.Type, v = "SMALLINT", strconv.FormatInt(int64(a.Value(k)), 10)
				case *array.Int8:
					col.Type, v = "TINYINT", strconv.FormatInt(int64(a.Value(k)), 10)
				case *array.Uint16:
					col.Type, v = "USMALLINT", strconv.FormatUint(uint64(a.Value(k)), 10)
				case *array.Float16:
					col.Type, v = "HALF", strconv.FormatFloat(float64(a.Value(k).Float32()), 'g', -1, 32)
				case *array.FixedSizeBinary:
					col.Type, v = "FIXED", strings.ToUpper(hex.EncodeToString(a.Value(k)))
				case *array.Uint8:
					col.Type, v = "UTINYINT", strconv.FormatUint(uint64(a.Value(k)), 10)
				case *array.Boolean:
					col.Type, v = "BOOLEAN", strconv.FormatBool(a.Value(k))
				case *array.String:
					col.Type, v = "VARCHAR", a.Value(k)
				case *array.Binary:
					col.Type, v = "BLOB", strings.ToUpper(hex.EncodeToString(a.Value(k)))
				case *array.Date32:
					col.Type, v = "DATE", strconv.FormatInt(int64(a.Value(k)), 10)
				case *array.Timestamp:
					u := a.DataType().(*arrow.TimestampType).Unit
					col.Type, col.Unit, v = "TIMESTAMP", []string{"s", "ms", "us", "ns"}[u], strconv.FormatInt(int64(a.Value(k)), 10)
				case *array.Time32:
					u := a.DataType().(*arrow.Time32Type).Unit
					col.Type, col.Unit, v = "TIME", []string{"s", "ms", "us", "ns"}[u], strconv.FormatInt(int64(a.Value(k)), 10)
				case *array.Time64:
					u := a.DataType().(*arrow.Time64Type).Unit
					col.Type, col.Unit, v = "TIME", []string{"s", "ms", "us", "ns"}[u], strconv.FormatInt(int64(a.Value(k)), 10)
				case *array.Struct, array.ListLike:
					j, err := json.Marshal(jsonOf(arr, k))
					if err != nil {
						log.Fatal(err)
					}
					col.Type, v = "STRUCT", string(j)
					if _, ok := a.(array.ListLike); ok {
						col.Type = "LIST"
					}
				case *array.Decimal256:
					t := a.DataType().(*arrow.Decimal256Type)
					col.Type, v = fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale), a.Value(k).ToString(t.Scale)
				case *array.Decimal128:
					t := a.DataType().(*arrow.Decimal128Type)
					col.Type, v = fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale), a.Value(k).ToString(t.Scale)
				default:
					log.Fatalf("%s: column %s: no JSON form for %s", name, c.Name(), arr.DataType())
				}
				col.Values = append(col.Values, v)
			}
		}
		m.Columns = append(m.Columns, col)
	}
	b, err := json.Marshal(m)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(strings.TrimSuffix(name, ".parquet")+".json", append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Println("wrote", name)
}
