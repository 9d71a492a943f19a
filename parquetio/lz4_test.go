package parquetio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/npyio"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// lz4Descr is the table of the LZ4 tests: floats and integers that
// compress poorly, strings, bools, datetimes with NaT, complex numbers, a
// subarray (a LIST column), a nested struct and a column that compresses
// well.
const lz4Descr = "[('f', '<f8'), ('i', '<i8'), ('u', '<U6'), ('s', 'S5'), ('b', '|b1'), ('t', '<M8[ms]'), ('c', '<c16'), ('a', '<f4', (3,)), ('n', [('x', '<i4'), ('y', '<f8')]), ('k', '<i8')]"

// lz4Data fills rows rows of the lz4Descr table with seeded random values.
func lz4Data(t testing.TB, rows int) (*npyio.Header, []byte) {
	dt, err := npyio.ParseDescr(lz4Descr)
	if err != nil {
		t.Fatal(err)
	}
	off := map[string]int{}
	for _, f := range dt.Fields {
		off[f.Name] = f.Offset
	}
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, rows*dt.Size)
	letters := []rune("abcdéfghij€xyz")
	for r := 0; r < rows; r++ {
		row := data[r*dt.Size:]
		store(row[off["f"]:], rng.NormFloat64()*1e6)
		store(row[off["i"]:], int64(rng.Uint64()))
		for k, n := 0, rng.IntN(7); k < n; k++ {
			store(row[off["u"]+4*k:], uint32(letters[rng.IntN(len(letters))]))
		}
		for k, n := 0, rng.IntN(6); k < n; k++ {
			row[off["s"]+k] = byte(1 + rng.IntN(255))
		}
		row[off["b"]] = byte(rng.IntN(2))
		ts := int64(1.7e12) + rng.Int64N(1e10)
		if r%17 == 3 {
			ts = math.MinInt64 // NaT: a null
		}
		store(row[off["t"]:], ts)
		store(row[off["c"]:], rng.Float64())
		store(row[off["c"]+8:], -rng.Float64())
		for k := 0; k < 3; k++ {
			store(row[off["a"]+4*k:], rng.Float32())
		}
		store(row[off["n"]:], rng.Int32())
		store(row[off["n"]+4:], rng.ExpFloat64())
		store(row[off["k"]:], int64(r/1000))
	}
	return &npyio.Header{DType: dt, Shape: []int{rows}}, data
}

// minLZ4Ratio walks every LZ4_RAW page of the file and returns the lowest
// compression ratio of its data (levels excluded) and the number of pages.
func minLZ4Ratio(t testing.TB, b []byte) (float64, int) {
	md, _ := footerOf(t, b)
	ra := bytes.NewReader(b)
	var cs chunkScanner
	lowest, pages := math.Inf(1), 0
	for _, g := range md.RowGroups {
		for _, c := range g.Columns {
			m := &c.MetaData
			if m.Codec != format.Lz4Raw {
				continue
			}
			start, _ := chunkStart(m)
			for off := start; off < start+m.TotalCompressedSize; {
				var h format.PageHeader
				hl, _, err := cs.header(ra, off, start+m.TotalCompressedSize, &h)
				if err != nil {
					t.Fatal(err)
				}
				var levels int32
				if h.Type == format.DataPageV2 {
					levels = h.DataPageHeaderV2.V.RepetitionLevelsByteLength + h.DataPageHeaderV2.V.DefinitionLevelsByteLength
				}
				if h.CompressedPageSize > levels {
					lowest = min(lowest, float64(h.UncompressedPageSize-levels)/float64(h.CompressedPageSize-levels))
				}
				pages++
				off += int64(hl) + int64(h.CompressedPageSize)
			}
		}
	}
	return lowest, pages
}

// numpyGo is the value of a numpy element as arrowGo gives it for the
// column it is written to.
func numpyGo(dt *npyio.DType, b []byte) any {
	switch dt.Kind {
	case npyio.Float:
		if dt.Size == 4 {
			return float64(load[float32](b, 0))
		}
		return load[float64](b, 0)
	case npyio.Int:
		if dt.Size == 4 {
			return int64(load[int32](b, 0))
		}
		return load[int64](b, 0)
	case npyio.Bool:
		return b[0] != 0
	case npyio.Bytes:
		return strings.TrimRight(string(b[:dt.Size]), "\x00")
	case npyio.Unicode:
		var s []rune
		for k := 0; k < dt.Size/4; k++ {
			if c := load[uint32](b, 4*k); c != 0 {
				s = append(s, rune(c))
			}
		}
		return string(s)
	case npyio.Datetime:
		if v := load[int64](b, 0); v != math.MinInt64 {
			return v
		}
		return nil
	case npyio.Complex:
		h := dt.Size / 2
		return []any{numpyGo(&npyio.DType{Kind: npyio.Float, Size: h}, b), numpyGo(&npyio.DType{Kind: npyio.Float, Size: h}, b[h:])}
	case npyio.Struct:
		var out []any
		for _, f := range dt.Fields {
			out = append(out, numpyField(&f, b[f.Offset:]))
		}
		return out
	}
	panic("numpyGo: " + dt.String())
}

func numpyField(f *npyio.Field, b []byte) any {
	if len(f.Shape) == 0 {
		return numpyGo(f.Type, b)
	}
	n := 1
	for _, d := range f.Shape {
		n *= d
	}
	out := make([]any, n)
	for k := range out {
		out[k] = numpyGo(f.Type, b[k*f.Type.Size:])
	}
	return out
}

// arrowGo is element i of arr as a Go value: float64, int64, bool, string,
// nil for null, []any for structs and lists.
func arrowGo(arr arrow.Array, i int) any {
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	if arr.IsNull(i) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Float64:
		return a.Value(i)
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Boolean:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return string(a.Value(i))
	case *array.Timestamp:
		return int64(a.Value(i))
	case *array.Struct:
		out := make([]any, a.NumField())
		for k := range out {
			out[k] = arrowGo(a.Field(k), i)
		}
		return out
	case array.ListLike:
		s, e := a.ValueOffsets(i)
		out := make([]any, 0, e-s)
		for k := s; k < e; k++ {
			out = append(out, arrowGo(a.ListValues(), int(k)))
		}
		return out
	}
	panic(fmt.Sprintf("arrowGo: %T", arr))
}

// checkLZ4File reads b with npyflow's reader (it must give back data, byte
// for byte) and with pqarrow (every value must be the source's).
func checkLZ4File(t *testing.T, b []byte, h *npyio.Header, data []byte) {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if got := rd.Header().DType.String(); got != h.DType.String() {
		t.Fatalf("dtype %s, want %s", got, h.DType)
	}
	got := readAll(t, rd)
	if len(got) != len(data) {
		t.Fatalf("%d bytes, want %d", len(got), len(data))
	}
	rs := h.DType.Size
	for r := 0; r*rs < len(data); r++ {
		if !bytes.Equal(got[r*rs:(r+1)*rs], data[r*rs:(r+1)*rs]) {
			t.Fatalf("row %d: npyflow read %v, want %v", r, numpyGo(h.DType, got[r*rs:]), numpyGo(h.DType, data[r*rs:]))
		}
	}
	mem := memory.NewGoAllocator()
	tbl := readPQArrow(t, b, mem)
	defer tbl.Release()
	if int(tbl.NumCols()) != len(h.DType.Fields) || tbl.NumRows() != int64(len(data)/rs) {
		t.Fatalf("pqarrow: %d columns, %d rows", tbl.NumCols(), tbl.NumRows())
	}
	for c := range h.DType.Fields {
		f := &h.DType.Fields[c]
		arr, err := array.Concatenate(tbl.Column(c).Data().Chunks(), mem)
		if err != nil {
			t.Fatal(err)
		}
		for r := 0; r*rs < len(data); r++ {
			want := numpyField(f, got[r*rs+f.Offset:])
			if a := arrowGo(arr, r); !reflect.DeepEqual(a, want) {
				t.Fatalf("column %s row %d: pqarrow read %v, npyflow %v", f.Name, r, a, want)
			}
		}
		arr.Release()
	}
}

// TestLZ4RoundTrip writes LZ4_RAW files with npyflow's Writer (small pages,
// several row groups, with and without dictionaries) from data that mostly
// compresses less than 3:1, which parquet-go v0.32.0 alone reads as zeros
// (its issue #608), and reads them back.
func TestLZ4RoundTrip(t *testing.T) {
	rows := 12000
	if testing.Short() {
		rows = 3000
	}
	h, data := lz4Data(t, rows)
	cases := []struct {
		name string
		opts Options
	}{
		{"pages", Options{Compression: "lz4", RowGroupRows: rows/3 + 7, PageSize: 8 << 10}},
		{"one page", Options{Compression: "LZ4_RAW", PageSize: 1 << 20}},
		{"dictionaries", Options{Compression: "lz4", RowGroupRows: rows / 2, PageSize: 4 << 10, Dictionary: []string{"u", "s", "b", "t", "n", "k"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := writeMem(t, h, data, &c.opts)
			if err != nil {
				t.Fatal(err)
			}
			ratio, pages := minLZ4Ratio(t, b)
			if ratio >= 3 || pages < 10 {
				t.Fatalf("%d LZ4_RAW pages, the lowest ratio %.2f: not the case parquet-go misreads", pages, ratio)
			}
			t.Logf("%d pages, lowest ratio %.2f", pages, ratio)
			checkLZ4File(t, b, h, data)
		})
	}
}

// TestLZ4Foreign reads LZ4_RAW files parquet-go writes (data pages v1 and
// v2, an optional column, a dictionary): values equal the source and
// pqarrow's reading.
func TestLZ4Foreign(t *testing.T) {
	const rows = 6000
	for _, v2 := range []bool{false, true} {
		t.Run(fmt.Sprintf("v2=%v", v2), func(t *testing.T) {
			b := foreignFile(t, rows, 2500, parquet.Compression(&parquet.Lz4Raw), v2)
			if ratio, _ := minLZ4Ratio(t, b); ratio >= 3 {
				t.Fatalf("lowest ratio %.2f", ratio)
			}
			rd, err := NewReader(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			got := readAll(t, rd)
			tbl := readPQArrow(t, b, memory.NewGoAllocator())
			defer tbl.Release()
			cols := make([]arrow.Array, 3)
			for c := range cols {
				arr, err := array.Concatenate(tbl.Column(c).Data().Chunks(), memory.NewGoAllocator())
				if err != nil {
					t.Fatal(err)
				}
				defer arr.Release()
				cols[c] = arr
			}
			rs := rd.Header().DType.Size
			if len(got) != rows*rs {
				t.Fatalf("%d bytes", len(got))
			}
			for r := 0; r < rows; r++ {
				row := got[r*rs:]
				want := foreignValue(r)
				x, y := load[int64](row, 0), load[float64](row, 8)
				s := string([]byte{row[16], row[20]})
				if x != want.X || (want.Y == nil) != math.IsNaN(y) || (want.Y != nil && *want.Y != y) || strings.TrimRight(s, "\x00") != want.S {
					t.Fatalf("row %d: %d %v %q, want %+v", r, x, y, s, want)
				}
				var wy any
				if want.Y != nil {
					wy = y
				}
				if a := []any{arrowGo(cols[0], r), arrowGo(cols[1], r), arrowGo(cols[2], r)}; !reflect.DeepEqual(a, []any{x, wy, want.S}) {
					t.Fatalf("row %d: pqarrow %v, npyflow %d %v %q", r, a, x, y, s)
				}
			}
		})
	}
}

// spliceRowGroups appends the row groups of file b to file a (same
// schema, no npyflow metadata): the result has a's codec in its first row
// groups and b's in the others.
func spliceRowGroups(t testing.TB, a, b []byte) []byte {
	ma, enda := footerOf(t, a)
	mb, endb := footerOf(t, b)
	out := append(bytes.Clone(a[:enda]), b[4:endb]...)
	shift := int64(enda - 4)
	for _, g := range mb.RowGroups {
		g.FileOffset += shift
		for j := range g.Columns {
			c := &g.Columns[j]
			c.FileOffset += shift
			c.ColumnIndexOffset, c.ColumnIndexLength, c.OffsetIndexOffset, c.OffsetIndexLength = 0, 0, 0, 0
			c.MetaData.DataPageOffset += shift
			if c.MetaData.DictionaryPageOffset != 0 {
				c.MetaData.DictionaryPageOffset += shift
			}
		}
		g.Ordinal = int16(len(ma.RowGroups))
		ma.RowGroups = append(ma.RowGroups, g)
	}
	for _, g := range ma.RowGroups {
		for j := range g.Columns {
			c := &g.Columns[j]
			c.ColumnIndexOffset, c.ColumnIndexLength, c.OffsetIndexOffset, c.OffsetIndexLength = 0, 0, 0, 0
		}
	}
	ma.NumRows += mb.NumRows
	f, err := thrift.Marshal(compactProto, ma)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, f...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(f)))
	return append(out, "PAR1"...)
}

// TestMixedCodecs reads files whose row groups use different codecs:
// parquet-go decodes every chunk of a column with the codec of its first
// chunk, npyflow reads the others itself.
func TestMixedCodecs(t *testing.T) {
	codecs := map[string]parquet.WriterOption{
		"lz4": parquet.Compression(&parquet.Lz4Raw), "snappy": parquet.Compression(&parquet.Snappy),
		"none": parquet.Compression(&parquet.Uncompressed), "zstd": parquet.Compression(&parquet.Zstd), "gzip": parquet.Compression(&parquet.Gzip),
	}
	pairs := [][2]string{{"lz4", "snappy"}, {"snappy", "lz4"}, {"none", "zstd"}, {"zstd", "gzip"}, {"lz4", "none"}}
	const rows = 3000
	for _, p := range pairs {
		t.Run(p[0]+"+"+p[1], func(t *testing.T) {
			b := spliceRowGroups(t, foreignFile(t, rows, 1200, codecs[p[0]], false), foreignFile(t, rows, 1000, codecs[p[1]], true))
			rd, err := NewReader(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			got := readAll(t, rd)
			rs := rd.Header().DType.Size
			if len(got) != 2*rows*rs {
				t.Fatalf("%d rows", len(got)/rs)
			}
			for r := 0; r < 2*rows; r++ {
				row := got[r*rs:]
				want := foreignValue(r % rows)
				x, y := load[int64](row, 0), load[float64](row, 8)
				s := string([]byte{row[16], row[20]})
				if x != want.X || (want.Y == nil) != math.IsNaN(y) || (want.Y != nil && *want.Y != y) || strings.TrimRight(s, "\x00") != want.S {
					t.Fatalf("row %d: %d %v %q, want %+v", r, x, y, s, want)
				}
			}
		})
	}
}

// TestCorruptLZ4 damages the first page of an LZ4_RAW column: the error
// names the page, nothing is allocated by the damage, no value is
// returned wrong.
func TestCorruptLZ4(t *testing.T) {
	h, data := lz4Data(t, 3000)
	b, err := writeMem(t, h, data, &Options{Compression: "lz4", PageSize: 8 << 10, Dictionary: []string{"u"}})
	if err != nil {
		t.Fatal(err)
	}
	md, _ := footerOf(t, b)
	pageData := func(col int) (int64, int64) { // first page's data
		m := &md.RowGroups[0].Columns[col].MetaData
		off, _ := chunkStart(m)
		var cs chunkScanner
		var ph format.PageHeader
		hl, _, err := cs.header(bytes.NewReader(b), off, off+m.TotalCompressedSize, &ph)
		if err != nil {
			t.Fatal(err)
		}
		return off + int64(hl), int64(ph.CompressedPageSize)
	}
	fill := func(col int, v byte) func([]byte) []byte {
		return func(b []byte) []byte {
			b = bytes.Clone(b)
			off, n := pageData(col)
			for k := off; k < off+n; k++ {
				b[k] = v
			}
			return b
		}
	}
	header := func(col int, edit func(h *format.PageHeader)) func([]byte) []byte {
		return func(b []byte) []byte { return editFirstPage(t, b, col, edit) }
	}
	// The pages carry CRCs (parquet-go writes them): damaged data is
	// refused for its CRC; with the CRC removed, by the decoder.
	noCRC := func(col int, damage func([]byte) []byte) func([]byte) []byte {
		return func(b []byte) []byte {
			return editFirstPage(t, damage(b), col, func(h *format.PageHeader) { h.CRC = 0 })
		}
	}
	const bad = "LZ4_RAW page data does not decompress to its"
	const badCRC = "the page is damaged"
	cases := []struct {
		name   string
		damage func([]byte) []byte
		want   string
	}{
		{"0xff data", fill(0, 0xff), badCRC},
		{"0xff data, no CRC", noCRC(0, fill(0, 0xff)), bad},
		{"zero data, no CRC", noCRC(0, fill(0, 0)), bad},
		{"zero dictionary", fill(2, 0), badCRC},
		{"zero dictionary, no CRC", noCRC(2, fill(2, 0)), bad},
		{"block cut", header(1, func(h *format.PageHeader) { h.CompressedPageSize -= 8; h.CRC = 0 }), "page 1: corrupt Parquet file: page header cut off"},
		{"uncompressed size +1", header(0, func(h *format.PageHeader) { h.UncompressedPageSize++ }), bad},
		{"uncompressed size -1", header(0, func(h *format.PageHeader) { h.UncompressedPageSize-- }), bad},
		{"uncompressed size 200 MiB", header(0, func(h *format.PageHeader) { h.UncompressedPageSize = 200 << 20 }), "more than LZ4_RAW can expand"},
		{"dictionary size", header(2, func(h *format.PageHeader) { h.UncompressedPageSize += 100 }), bad},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := c.damage(b)
			var err error
			if n := allocated(func() { _, err = readParquet(d) }); n > 16<<20 {
				t.Errorf("allocated %d MiB", n>>20)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "row group 0") {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			t.Log(err)
		})
	}
}
