//go:build ignore

// gen_foreign writes Arrow IPC files with arrow-go's own IPC writer (not
// npyflow's) and, next to each, a JSON file of the values arrow-go reads
// back from the arrays it wrote. arrowconv's foreign tests convert the IPC
// files to numpy and compare every value with the JSON.
//
//	cd arrowconv/testdata && go run gen_foreign.go
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/endian"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var mem = memory.NewGoAllocator()

const dir = "foreign"

// column is one column of a batch: its field and each batch's JSON values.
type column struct {
	field   arrow.Field
	batches []string // FromJSON input per batch
}

func fromJSON(t arrow.DataType, js string) arrow.Array {
	a, _, err := array.FromJSON(mem, t, strings.NewReader(js), array.WithUseNumber())
	if err != nil {
		panic(fmt.Sprintf("%s: %v: %s", t, err, js))
	}
	return a
}

func decType(p int32, s int32, bits int) arrow.DataType {
	switch bits {
	case 32:
		return &arrow.Decimal32Type{Precision: p, Scale: s}
	case 64:
		return &arrow.Decimal64Type{Precision: p, Scale: s}
	case 128:
		return &arrow.Decimal128Type{Precision: p, Scale: s}
	}
	return &arrow.Decimal256Type{Precision: p, Scale: s}
}

// everyType: one column per mappable type; two batches; nulls only where
// numpy has NaN/NaT, nullable fields elsewhere without nulls.
func everyType() []column {
	f := func(name string, t arrow.DataType, nullable bool, b ...string) column {
		return column{arrow.Field{Name: name, Type: t, Nullable: nullable}, b}
	}
	tsTZ := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "America/New_York"}
	return []column{
		f("i8", arrow.PrimitiveTypes.Int8, true, `[-128, 0, 127]`, `[5]`),
		f("i16", arrow.PrimitiveTypes.Int16, false, `[-32768, 1, 32767]`, `[-5]`),
		f("i32", arrow.PrimitiveTypes.Int32, true, `[-2147483648, 2, 2147483647]`, `[7]`),
		f("i64", arrow.PrimitiveTypes.Int64, false, `[-9223372036854775808, 3, 9223372036854775807]`, `[9007199254740993]`),
		f("u8", arrow.PrimitiveTypes.Uint8, false, `[0, 1, 255]`, `[128]`),
		f("u16", arrow.PrimitiveTypes.Uint16, false, `[0, 1, 65535]`, `[4096]`),
		f("u32", arrow.PrimitiveTypes.Uint32, false, `[0, 1, 4294967295]`, `[65536]`),
		f("u64", arrow.PrimitiveTypes.Uint64, false, `[0, 1, 18446744073709551615]`, `[4294967296]`),
		f("f16", arrow.FixedWidthTypes.Float16, true, `[1.5, null, -0.0001]`, `[65504]`),
		f("f32", arrow.PrimitiveTypes.Float32, true, `[1.5, null, 3.4028235e38]`, `[-1e-45]`),
		f("f64", arrow.PrimitiveTypes.Float64, true, `[0.1, null, -1.7976931348623157e308]`, `[5e-324]`),
		f("b", arrow.FixedWidthTypes.Boolean, true, `[true, false, true]`, `[false]`),
		f("s", arrow.BinaryTypes.String, true, `["a", "héllo", ""]`, `["日本語テキスト"]`),
		f("ls", arrow.BinaryTypes.LargeString, false, `["x", "yy", "zzz"]`, `["🙂"]`),
		f("sv", arrow.BinaryTypes.StringView, false, `["short", "a string longer than twelve bytes", ""]`, `["v"]`),
		f("bin", arrow.BinaryTypes.Binary, false, `["AAEC", "", "/w=="]`, `["AQ=="]`),
		f("lbin", arrow.BinaryTypes.LargeBinary, false, `["AAEC", "", "/w=="]`, `["AQ=="]`),
		f("bv", arrow.BinaryTypes.BinaryView, false, `["AAEC", "AAECAwQFBgcICQoLDA0ODxAREhM=", "/w=="]`, `["AQ=="]`),
		f("fsb", &arrow.FixedSizeBinaryType{ByteWidth: 3}, false, `["AAEC", "AAAA", "////"]`, `["AQID"]`),
		f("uuid", extensions.NewUUIDType(), false, `["00112233-4455-6677-8899-aabbccddeeff", "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"]`, `["12345678-1234-5678-1234-567812345678"]`),
		f("d32", decType(9, 2, 32), true, `["0.33", null, "-9999999.99"]`, `["0.01"]`),
		f("d64", decType(18, 4, 64), false, `["0.3333", "12345678901234.5678", "-0.0001"]`, `["1.0001"]`),
		f("d128", decType(38, 10, 128), false, `["0.1000000000", "1234567890123456789012345678.0123456789", "-0.0000000001"]`, `["9007199254740993.0000000000"]`),
		f("d128neg", decType(10, -3, 128), false, `["12345000", "0", "-1000"]`, `["9999999999000"]`),
		f("d256", decType(76, 20, 256), false, `["1.00000000000000000001", "123456789012345678901234567890123456789012345678901234.56789012345678901234", "-0.5"]`, `["0.1"]`),
		f("date32", arrow.FixedWidthTypes.Date32, true, `[0, null, -719162]`, `[2932896]`),
		f("date64", arrow.FixedWidthTypes.Date64, false, `[0, 86400000, -86400000]`, `[1700000000000]`),
		f("ts_s", &arrow.TimestampType{Unit: arrow.Second}, true, `[0, null, -1]`, `[1700000000]`),
		f("ts_ms", &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, false, `[0, 1, -1]`, `[1700000000123]`),
		f("ts_us_tz", tsTZ, false, `[0, 1, -1]`, `[1700000000123456]`),
		f("ts_ns", &arrow.TimestampType{Unit: arrow.Nanosecond}, false, `[0, 1, -1]`, `[1700000000123456789]`),
		f("t32s", arrow.FixedWidthTypes.Time32s, true, `[0, null, 86399]`, `[3600]`),
		f("t32ms", arrow.FixedWidthTypes.Time32ms, false, `[0, 1, 86399999]`, `[3600000]`),
		f("t64us", arrow.FixedWidthTypes.Time64us, false, `[0, 1, 86399999999]`, `[3600000000]`),
		f("t64ns", arrow.FixedWidthTypes.Time64ns, false, `[0, 1, 86399999999999]`, `[3600000000000]`),
		f("dur_s", &arrow.DurationType{Unit: arrow.Second}, true, `[0, null, -5]`, `[86400]`),
		f("dur_ns", &arrow.DurationType{Unit: arrow.Nanosecond}, false, `[0, 1, -1]`, `[123456789]`),
		f("iv_m", arrow.FixedWidthTypes.MonthInterval, false, `[{"months": 1}, {"months": -2}, {"months": 0}]`, `[{"months": 120}]`),
		f("iv_dt", arrow.FixedWidthTypes.DayTimeInterval, false, `[{"days": 1, "milliseconds": 2}, {"days": -3, "milliseconds": 0}, {"days": 0, "milliseconds": 86399999}]`, `[{"days": 7, "milliseconds": 7}]`),
		f("iv_mdn", arrow.FixedWidthTypes.MonthDayNanoInterval, false, `[{"months": 1, "days": 2, "nanoseconds": 3}, {"months": -1, "days": 0, "nanoseconds": -9223372036854775808}, {"months": 0, "days": 0, "nanoseconds": 0}]`, `[{"months": 12, "days": 31, "nanoseconds": 1000}]`),
		f("st", arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32}, arrow.Field{Name: "y", Type: arrow.PrimitiveTypes.Float64, Nullable: true}, arrow.Field{Name: "name", Type: arrow.BinaryTypes.String}), true,
			`[{"x": 1, "y": 0.5, "name": "ab"}, {"x": 2, "y": null, "name": ""}, {"x": 3, "y": -1, "name": "abcd"}]`, `[{"x": 4, "y": 2, "name": "z"}]`),
		f("fsl", arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float32), true, `[[1, 2, 3], [4, null, 6], [7, 8, 9]]`, `[[0, 0, 0]]`),
		f("fsl2", arrow.FixedSizeListOf(2, arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int16)), false, `[[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]]`, `[[[0, 1], [2, 3]]]`),
		f("list", arrow.ListOf(arrow.PrimitiveTypes.Int64), true, `[[1, 2], [3, 4], [5, 6]]`, `[[7, 8]]`),
		f("llist", arrow.LargeListOf(arrow.BinaryTypes.String), false, `[["a"], ["bc"], ["def"]]`, `[["g"]]`),
		f("listview", arrow.ListViewOf(arrow.PrimitiveTypes.Uint8), false, `[[1, 2, 3], [4, 5, 6], [7, 8, 9]]`, `[[10, 11, 12]]`),
	}
}

func main() {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		panic(err)
	}
	cols := everyType()
	write("every_type.arrow", cols, "file", "", false)
	write("every_type_lz4.arrows", cols, "stream", "lz4", false)
	write("every_type_zstd.arrow", cols, "file", "zstd", false)
	write("every_type.feather", cols, "file", "lz4", false)
	// Nulls where numpy has none.
	nulls := []column{
		{arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64}, []string{`[1, 2, 3, 4]`}},
		{arrow.Field{Name: "n_i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, []string{`[1, null, 3, null]`}},
		{arrow.Field{Name: "n_bool", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}, []string{`[true, null, false, true]`}},
		{arrow.Field{Name: "n_str", Type: arrow.BinaryTypes.String, Nullable: true}, []string{`["a", "bb", null, "d"]`}},
		{arrow.Field{Name: "n_bin", Type: arrow.BinaryTypes.Binary, Nullable: true}, []string{`[null, "AQ==", "Ag==", "Aw=="]`}},
		{arrow.Field{Name: "n_f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true}, []string{`[null, 1.5, null, 2.5]`}},
		{arrow.Field{Name: "n_ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true}, []string{`[null, 1, 2, null]`}},
	}
	write("nulls.arrow", nulls, "file", "", false)
	// Lists of varying lengths, maps and unions: refused.
	refused := []column{
		{arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64}, []string{`[1, 2, 3]`, `[4, 5]`}},
		{arrow.Field{Name: "ragged", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)}, []string{`[[1, 2], [3, 4], [5, 6]]`, `[[1, 2], [1, 2, 3]]`}},
	}
	write("ragged.arrow", refused, "file", "", false)
	mapCol := []column{
		{arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64}, []string{`[1]`}},
		{arrow.Field{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32)}, []string{`[[{"key": "a", "value": 1}]]`}},
	}
	write("map.arrow", mapCol, "file", "", false)
	// Zero batches.
	write("zero_batches.arrow", cols[:3], "file", "", true)
	write("zero_batches.arrows", cols[:3], "stream", "", true)
	writeDict()
	writeUnion()
	writeBigEndian("big_endian.arrow", "file", bigEndianColumns)
	writeBigEndian("big_endian.arrows", "stream", bigEndianColumns)
	// One column each: the files ConvertIPC maps into memory (its copy
	// as stored is for one little-endian column), with an empty batch
	// between two others.
	for _, c := range []column{
		{arrow.Field{Name: "i32", Type: arrow.PrimitiveTypes.Int32}, []string{`[7, -9, 2147483647]`, `[]`, `[-2147483648, 0]`}},
		{arrow.Field{Name: "f64", Type: arrow.PrimitiveTypes.Float64}, []string{`[1.5, -2.25e300, 0.1]`, `[]`, `[5e-324, -0.0]`}},
		{arrow.Field{Name: "dur", Type: &arrow.DurationType{Unit: arrow.Millisecond}}, []string{`[10, -20, 9223372036854775807]`, `[]`, `[0, 86400000]`}},
	} {
		writeBigEndian("big_endian_"+c.field.Name+".arrow", "file", []column{c})
	}
}

// bigEndianColumns are the columns of big_endian.arrow(s).
var bigEndianColumns = []column{
	{arrow.Field{Name: "i64", Type: arrow.PrimitiveTypes.Int64}, []string{`[1, -2, 300000000000, 9007199254740993]`}},
	{arrow.Field{Name: "i32", Type: arrow.PrimitiveTypes.Int32}, []string{`[7, -9, 2147483647, 0]`}},
	{arrow.Field{Name: "u16", Type: arrow.PrimitiveTypes.Uint16}, []string{`[1, 65535, 256, 2]`}},
	{arrow.Field{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true}, []string{`[1.5, null, -2.25e300, 0.1]`}},
	{arrow.Field{Name: "f32", Type: arrow.PrimitiveTypes.Float32}, []string{`[0.1, -3.5, 1e30, 2]`}},
	{arrow.Field{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true}, []string{`[0, -1, null, 1700000000123]`}},
	{arrow.Field{Name: "d32", Type: arrow.FixedWidthTypes.Date32}, []string{`[0, -1, 19000, 2932896]`}},
	{arrow.Field{Name: "b", Type: arrow.FixedWidthTypes.Boolean}, []string{`[true, false, true, true]`}},
}

// writeBigEndian writes an IPC file or stream as arrow-go writes it on a
// big-endian machine: the schema says big-endian and every buffer holds
// big-endian values (arrow-go writes buffers as they are; here they are
// swapped from the arrays built on this little-endian machine). Fixed-width
// types only: arrow-go's writer reads string offsets natively. The JSON
// holds the values arrow-go's reader gives back (it swaps big-endian IPC
// data to native order).
func writeBigEndian(name, format string, cols []column) {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = c.field
	}
	schema := arrow.NewSchemaWithEndian(fields, nil, endian.BigEndian)
	fh, w := writer(name, format, "", schema)
	exp := expectation{Producer: "arrow-go v18.8.0 ipc, big-endian", Format: format}
	for b := range cols[0].batches {
		writeSwapped(w, schema, cols, b)
		exp.Batches++
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	fh.Close()
	// arrow-go reads it back (swapping to native order).
	rf, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		panic(err)
	}
	defer rf.Close()
	var rr interface {
		Next() bool
		RecordBatch() arrow.RecordBatch
	}
	if format == "stream" {
		r, err := ipc.NewReader(rf)
		if err != nil {
			panic(err)
		}
		rr = r
	} else {
		r, err := ipc.NewFileReader(rf)
		if err != nil {
			panic(err)
		}
		rr = &fileRecords{r: r}
	}
	for _, c := range cols {
		exp.Columns = append(exp.Columns, expectedColumn{Name: c.field.Name, Type: c.field.Type.String(), Values: []any{}})
	}
	for rr.Next() {
		rec := rr.RecordBatch()
		if !rec.Schema().IsNativeEndian() {
			panic("arrow-go did not swap to native order")
		}
		for i := range cols {
			a := rec.Column(i)
			for r := 0; r < a.Len(); r++ {
				exp.Columns[i].Values = append(exp.Columns[i].Values, value(a, r))
			}
		}
	}
	js, err := json.MarshalIndent(exp, "", " ")
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), append(js, '\n'), 0o644); err != nil {
		panic(err)
	}
}

// writeSwapped writes batch b of cols with every value buffer byte-swapped
// to big-endian order.
func writeSwapped(w interface{ Write(arrow.RecordBatch) error }, schema *arrow.Schema, cols []column, b int) {
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		le := fromJSON(c.field.Type, c.batches[b]).Data()
		bufs := le.Buffers()
		swapped := make([]*memory.Buffer, len(bufs))
		copy(swapped, bufs)
		if width := c.field.Type.(arrow.FixedWidthDataType).BitWidth() / 8; width > 1 && bufs[1] != nil {
			v := append([]byte(nil), bufs[1].Bytes()...)
			for k := 0; k+width <= len(v); k += width {
				slices.Reverse(v[k : k+width])
			}
			swapped[1] = memory.NewBufferBytes(v)
		}
		arrs[i] = array.MakeFromData(array.NewData(c.field.Type, le.Len(), swapped, nil, le.NullN(), le.Offset()))
	}
	if err := w.Write(array.NewRecordBatch(schema, arrs, int64(arrs[0].Len()))); err != nil {
		panic(err)
	}
}

// fileRecords walks the record batches of an IPC file.
type fileRecords struct {
	r   *ipc.FileReader
	i   int
	rec arrow.RecordBatch
}

func (f *fileRecords) Next() bool {
	if f.i >= f.r.NumRecords() {
		return false
	}
	rec, err := f.r.RecordBatch(f.i)
	if err != nil {
		panic(err)
	}
	f.rec, f.i = rec, f.i+1
	return true
}

func (f *fileRecords) RecordBatch() arrow.RecordBatch { return f.rec }

func writer(name, format, codec string, schema *arrow.Schema, extra ...ipc.Option) (*os.File, interface {
	Write(arrow.RecordBatch) error
	Close() error
}) {
	fh, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		panic(err)
	}
	opts := append([]ipc.Option{ipc.WithSchema(schema), ipc.WithAllocator(mem)}, extra...)
	switch codec {
	case "lz4":
		opts = append(opts, ipc.WithLZ4())
	case "zstd":
		opts = append(opts, ipc.WithZstd())
	}
	if format == "stream" {
		return fh, ipc.NewWriter(fh, opts...)
	}
	w, err := ipc.NewFileWriter(fh, opts...)
	if err != nil {
		panic(err)
	}
	return fh, w
}

// expectation is the JSON written next to each IPC file.
type expectation struct {
	Producer    string           `json:"producer"`
	Format      string           `json:"format"`
	Compression string           `json:"compression"`
	Batches     int              `json:"batches"`
	Columns     []expectedColumn `json:"columns"`
}

type expectedColumn struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Values []any  `json:"values"`
}

func write(name string, cols []column, format, codec string, empty bool) {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = c.field
	}
	schema := arrow.NewSchema(fields, nil)
	fh, w := writer(name, format, codec, schema)
	exp := expectation{Producer: "arrow-go v18.8.0 ipc", Format: format, Compression: codec}
	for _, c := range cols {
		exp.Columns = append(exp.Columns, expectedColumn{Name: c.field.Name, Type: c.field.Type.String(), Values: []any{}})
	}
	if !empty {
		for b := range cols[0].batches {
			arrs := make([]arrow.Array, len(cols))
			for i, c := range cols {
				arrs[i] = fromJSON(c.field.Type, c.batches[b])
				for r := 0; r < arrs[i].Len(); r++ {
					exp.Columns[i].Values = append(exp.Columns[i].Values, value(arrs[i], r))
				}
			}
			rec := array.NewRecordBatch(schema, arrs, int64(arrs[0].Len()))
			if err := w.Write(rec); err != nil {
				panic(err)
			}
			exp.Batches++
		}
	}
	finish(fh, w, name, exp)
}

func finish(fh *os.File, w interface{ Close() error }, name string, exp expectation) {
	if err := w.Close(); err != nil {
		panic(err)
	}
	if err := fh.Close(); err != nil {
		panic(err)
	}
	js, err := json.MarshalIndent(exp, "", " ")
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), append(js, '\n'), 0o644); err != nil {
		panic(err)
	}
}

// writeDict writes a stream whose dictionary grows by deltas and is then
// replaced, and a file with a dictionary per column.
func writeDict() {
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
	dtf := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint8, ValueType: arrow.PrimitiveTypes.Float64}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "cat", Type: dt, Nullable: true},
		{Name: "fcat", Type: dtf, Nullable: true},
	}, nil)
	batches := []struct{ dict, idx, fdict, fidx string }{
		{`["red", "green"]`, `[0, 1, 1, 0]`, `[0.5, 1.5]`, `[1, 0, null, 1]`},
		{`["red", "green", "blue"]`, `[2, 0, 2]`, `[0.5, 1.5, 2.5]`, `[2, 2, 0]`},        // delta
		{`["cyan", "magenta-long"]`, `[1, 0, 1, 1, 0]`, `[-1, null]`, `[1, 0, 0, 1, 1]`}, // replacement
	}
	for _, name := range []string{"dict_delta.arrows"} {
		fh, w := writer(name, "stream", "", schema, ipc.WithDictionaryDeltas(true))
		exp := expectation{Producer: "arrow-go v18.8.0 ipc (dictionary deltas, replacement)", Format: "stream"}
		exp.Columns = []expectedColumn{{Name: "cat", Type: dt.String(), Values: []any{}}, {Name: "fcat", Type: dtf.String(), Values: []any{}}}
		for _, b := range batches {
			c := array.NewDictionaryArray(dt, fromJSON(dt.IndexType, b.idx), fromJSON(dt.ValueType, b.dict))
			f := array.NewDictionaryArray(dtf, fromJSON(dtf.IndexType, b.fidx), fromJSON(dtf.ValueType, b.fdict))
			for r := 0; r < c.Len(); r++ {
				exp.Columns[0].Values = append(exp.Columns[0].Values, value(c, r))
				exp.Columns[1].Values = append(exp.Columns[1].Values, value(f, r))
			}
			rec := array.NewRecordBatch(schema, []arrow.Array{c, f}, int64(c.Len()))
			if err := w.Write(rec); err != nil {
				panic(err)
			}
			exp.Batches++
		}
		finish(fh, w, name, exp)
	}
}

func writeUnion() {
	ut := arrow.SparseUnionOf([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int32}, {Name: "s", Type: arrow.BinaryTypes.String}}, []arrow.UnionTypeCode{0, 1})
	schema := arrow.NewSchema([]arrow.Field{{Name: "u", Type: ut, Nullable: true}}, nil)
	fh, w := writer("union.arrow", "file", "", schema)
	finish(fh, w, "union.arrow", expectation{Producer: "arrow-go v18.8.0 ipc", Format: "file", Columns: []expectedColumn{{Name: "u", Type: ut.String(), Values: []any{}}}})
}

// value is arrow-go's reading of value i of a: the JSON expectation.
func value(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case array.ExtensionArray:
		return value(a.Storage(), i)
	case *array.Dictionary:
		return value(a.Dictionary(), a.GetValueIndex(i))
	case *array.Int8:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Uint8:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint16:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint32:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint64:
		return strconv.FormatUint(a.Value(i), 10)
	case *array.Float16:
		return map[string]any{"f16bits": a.Value(i).Uint16()}
	case *array.Float32:
		return strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 32)
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.Boolean:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.StringView:
		return a.Value(i)
	case *array.Binary:
		return map[string]any{"hex": hex.EncodeToString(a.Value(i))}
	case *array.LargeBinary:
		return map[string]any{"hex": hex.EncodeToString(a.Value(i))}
	case *array.BinaryView:
		return map[string]any{"hex": hex.EncodeToString(a.Value(i))}
	case *array.FixedSizeBinary:
		return map[string]any{"hex": hex.EncodeToString(a.Value(i))}
	case *array.Decimal32:
		return map[string]any{"decimal": a.Value(i).ToString(a.DataType().(arrow.DecimalType).GetScale())}
	case *array.Decimal64:
		return map[string]any{"decimal": a.Value(i).ToString(a.DataType().(arrow.DecimalType).GetScale())}
	case *array.Decimal128:
		return map[string]any{"decimal": a.Value(i).ToString(a.DataType().(arrow.DecimalType).GetScale())}
	case *array.Decimal256:
		return map[string]any{"decimal": a.Value(i).ToString(a.DataType().(arrow.DecimalType).GetScale())}
	case *array.Date32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Date64:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Timestamp:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Time32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Time64:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Duration:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.MonthInterval:
		return []any{strconv.Itoa(int(a.Value(i)))}
	case *array.DayTimeInterval:
		v := a.Value(i)
		return []any{strconv.Itoa(int(v.Days)), strconv.Itoa(int(v.Milliseconds))}
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		return []any{strconv.Itoa(int(v.Months)), strconv.Itoa(int(v.Days)), strconv.FormatInt(v.Nanoseconds, 10)}
	case *array.Struct:
		o := map[string]any{}
		st := a.DataType().(*arrow.StructType)
		for k := 0; k < a.NumField(); k++ {
			o[st.Field(k).Name] = value(a.Field(k), i)
		}
		return o
	case array.ListLike:
		s, e := a.ValueOffsets(i)
		out := []any{}
		for j := s; j < e; j++ {
			out = append(out, value(a.ListValues(), int(j)))
		}
		return out
	}
	panic(fmt.Sprintf("no expectation for %s", a.DataType()))
}

var _ = decimal.Decimal32(0)
