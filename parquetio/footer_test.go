package parquetio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// thriftLength is a length or count in a footer: where its varint (or
// the nibble of a short list header) is.
type thriftLength struct {
	pos   int
	short bool // a list header holding its size in its high nibble
	what  string
}

// footerLengths walks a Thrift compact struct (a footer) and returns
// where every list size and binary length is.
func footerLengths(t testing.TB, b []byte) []thriftLength {
	t.Helper()
	var out []thriftLength
	r := &tReader{b: b}
	var value func(typ byte) error
	value = func(typ byte) error {
		switch typ {
		case tBinary:
			out = append(out, thriftLength{pos: r.pos, what: "binary length"})
			_, err := r.binary()
			return err
		case tList, tSet:
			c := r.b[r.pos]
			out = append(out, thriftLength{pos: r.pos, short: c>>4 != 15, what: "list size"})
			et, n, err := r.listHeader()
			if err != nil {
				return err
			}
			for i := 0; i < n; i++ {
				if et == tTrue || et == tFalse {
					if _, err := r.byte(); err != nil {
						return err
					}
					continue
				}
				if err := value(et); err != nil {
					return err
				}
			}
			return nil
		case tStruct:
			return r.readStruct(func(_ int16, t byte) error { return value(t) })
		}
		return r.skip(typ)
	}
	if err := value(tStruct); err != nil {
		t.Fatal(err)
	}
	return out
}

// withLength returns the file b whose footer has the length at l set to
// n (the footer grows as the varint does).
func withLength(b []byte, start int, l thriftLength, n uint64) []byte {
	footer := b[start : len(b)-8]
	var v []byte
	skip := 0
	if l.short {
		v = append(v, 0xf0|footer[l.pos]&0x0f)
		skip = 1
	} else {
		_, k := binary.Uvarint(footer[l.pos:])
		skip = k
	}
	v = binary.AppendUvarint(v, n)
	nf := append(append(append([]byte{}, footer[:l.pos]...), v...), footer[l.pos+skip:]...)
	out := append(append([]byte{}, b[:start]...), nf...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(nf)))
	return append(out, "PAR1"...)
}

// TestDamagedFooters sets every list size and binary length of real
// footers (DuckDB, parquet-go, arrow-go, parquet-mr, Impala, parquet-rs
// files) to 0x7fffffff, 0x10000000 and 2**40: parquet-go's Thrift decoder
// allocated what such a footer claims (1.1 TiB: the process died of
// "fatal error: out of memory"); each is now refused, or read, having
// allocated little, and never with a panic.
func TestDamagedFooters(t *testing.T) {
	files := []string{"duck_types.parquet", "duck_struct_nulls.parquet", "pgo_crc.parquet", "pqa_nested_nulls.parquet",
		"pt_int96_from_spark.parquet", "pt_unknown_logical_type.parquet", "pt_column_chunk_key_value_metadata.parquet", "pt_repeated_no_annotation.parquet"}
	mutants := 0
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join("testdata", "foreign", name))
		if err != nil {
			t.Fatal(err)
		}
		n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
		start := len(b) - 8 - n
		lengths := footerLengths(t, b[start:len(b)-8])
		if len(lengths) < 5 {
			t.Fatalf("%s: %d lengths in the footer", name, len(lengths))
		}
		for _, l := range lengths {
			for _, huge := range []uint64{0x7fffffff, 0x10000000, 1 << 40} {
				m := withLength(b, start, l, huge)
				mutants++
				desc := fmt.Sprintf("%s: %s at footer byte %d set to %#x", name, l.what, l.pos, huge)
				var rerr, derr error
				alloc := allocated(func() {
					_, rerr = readParquet(m)
					_, derr = Describe(bytes.NewReader(m), int64(len(m)))
				})
				if alloc > 64<<20 {
					t.Errorf("%s: allocated %d MiB", desc, alloc>>20)
				}
				if rerr == nil || derr == nil {
					t.Errorf("%s: read without an error (%v, %v)", desc, rerr, derr)
					continue
				}
				for _, err := range []error{rerr, derr} {
					if msg := err.Error(); !strings.Contains(msg, "corrupt") || strings.Contains(msg, "\n") {
						t.Errorf("%s: %q is not one line calling the file corrupt", desc, msg)
					}
				}
			}
		}
	}
	t.Logf("%d damaged footers refused", mutants)
}

// TestFooterDecoder decodes real footers with decodeFooter and parquet-go's
// decoder and compares what npyflow uses of them.
func TestFooterDecoder(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "foreign", "*.parquet"))
	compared := 0
	for _, p := range paths {
		if strings.Contains(p, "pt_column_chunk_key_value_metadata") || strings.Contains(p, "pt_unknown_logical") {
			continue // parquet-go's decoder refuses them
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, start := footerOf(t, b)
		got, unknown, err := decodeFooter(b[start : len(b)-8])
		if err != nil || len(unknown) > 0 {
			t.Fatalf("%s: %v %v", p, err, unknown)
		}
		if got.NumRows != want.NumRows || len(got.Schema) != len(want.Schema) || len(got.RowGroups) != len(want.RowGroups) {
			t.Fatalf("%s: %d rows, %d elements, %d row groups; parquet-go %d, %d, %d", p, got.NumRows, len(got.Schema), len(got.RowGroups), want.NumRows, len(want.Schema), len(want.RowGroups))
		}
		for i := range want.Schema {
			g, w := &got.Schema[i], &want.Schema[i]
			if g.Name != w.Name || g.NumChildren != w.NumChildren || g.Type != w.Type || g.RepetitionType != w.RepetitionType || g.TypeLength != w.TypeLength {
				t.Fatalf("%s: schema element %d: %+v, parquet-go %+v", p, i, g, w)
			}
		}
		for i := range want.RowGroups {
			g, w := &got.RowGroups[i], &want.RowGroups[i]
			if g.NumRows != w.NumRows || len(g.Columns) != len(w.Columns) {
				t.Fatalf("%s: row group %d differs", p, i)
			}
			for j := range w.Columns {
				gc, wc := &g.Columns[j], &w.Columns[j]
				gm, wm := &gc.MetaData, &wc.MetaData
				if gc.FilePath != wc.FilePath || gc.FileOffset != wc.FileOffset ||
					strings.Join(gm.PathInSchema, ".") != strings.Join(wm.PathInSchema, ".") || gm.Codec != wm.Codec ||
					gm.NumValues != wm.NumValues || gm.TotalCompressedSize != wm.TotalCompressedSize ||
					gm.TotalUncompressedSize != wm.TotalUncompressedSize || gm.DataPageOffset != wm.DataPageOffset ||
					gm.DictionaryPageOffset != wm.DictionaryPageOffset || gm.Type != wm.Type {
					t.Fatalf("%s: row group %d column %d: %+v, parquet-go %+v", p, i, j, gm, wm)
				}
				compared++
			}
		}
	}
	if compared < 100 {
		t.Fatalf("only %d column chunks compared", compared)
	}
	t.Logf("%d column chunks agree", compared)
}

// BenchmarkPageHeaders decodes the page headers of a DuckDB file (with
// statistics) with decodePageHeader and with parquet-go's Thrift decoder,
// which npyflow used before (per page of every column chunk read).
func BenchmarkPageHeaders(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "foreign", "duck_types.parquet"))
	if err != nil {
		b.Fatal(err)
	}
	md, _ := footerOf(b, data)
	var headers [][]byte
	for _, g := range md.RowGroups {
		for _, c := range g.Columns {
			m := &c.MetaData
			start, _ := chunkStart(m)
			for off := start; off < start+m.TotalCompressedSize; {
				var h format.PageHeader
				hl, err := decodePageHeader(data[off:], &h)
				if err != nil {
					b.Fatal(err)
				}
				headers = append(headers, data[off:off+int64(hl)])
				off += int64(hl) + int64(h.CompressedPageSize)
			}
		}
	}
	b.Run("npyflow", func(b *testing.B) {
		b.ReportAllocs()
		var h format.PageHeader
		for b.Loop() {
			for _, p := range headers {
				if _, err := decodePageHeader(p, &h); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(headers)), "ns/header")
	})
	b.Run("parquet-go", func(b *testing.B) {
		b.ReportAllocs()
		var h format.PageHeader
		for b.Loop() {
			for _, p := range headers {
				h = format.PageHeader{}
				if err := thrift.NewDecoder(compactProto.NewReaderFromBytes(p)).Decode(&h); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(headers)), "ns/header")
	})
}
