package parquetio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// readCorpus opens a file of testdata/foreign with opts and returns its
// expectations, the reader and every row (read with Next if records, else
// with NextColumns as one slice per column).
func readCorpus(t *testing.T, name string, opts *ReadOptions, records bool) (*corpusFile, *Reader, [][]byte) {
	t.Helper()
	var ff *corpusFile
	for _, f := range loadForeign(t, strings.TrimSuffix(name, ".parquet")) {
		if f.File == name {
			ff = &f
		}
	}
	b, err := os.ReadFile(filepath.Join("testdata", "foreign", name))
	if err != nil {
		t.Fatal(err)
	}
	rd, err := NewReaderOptions(bytes.NewReader(b), int64(len(b)), opts)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	if records {
		out = [][]byte{nil}
		for {
			bt, err := rd.Next(77)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			out[0] = append(out[0], bt.Data...)
		}
		return ff, rd, out
	}
	out = make([][]byte, len(rd.Columns()))
	for {
		_, cs, err := rd.NextColumns(77)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cs {
			out[i] = append(out[i], c...)
		}
	}
	return ff, rd, out
}

// TestValidityFields: DuckDB's int, bool, string, UTINYINT and ENUM
// columns with nulls read with a validity field each ("*"): the field is
// false exactly where DuckDB reads a null, every other value is DuckDB's;
// with a fill value too, the null slots hold the fill. Records (Next) and
// columns (NextColumns) agree.
func TestValidityFields(t *testing.T) {
	for _, records := range []bool{false, true} {
		ff, rd, data := readCorpus(t, "duck_int_nulls.parquet", &ReadOptions{Validity: []string{"*"}, Fill: map[string]any{"i4n": -7}}, records)
		h := rd.Header()
		if len(h.DType.Fields) != 10 {
			t.Fatalf("dtype %s, want 5 columns each with a validity field", h.DType)
		}
		cols := rd.Columns()
		if len(cols) != 10 {
			t.Fatalf("%d columns", len(cols))
		}
		nulls := 0
		for k, fc := range ff.Columns {
			c, v := h.DType.Fields[2*k], h.DType.Fields[2*k+1]
			if c.Name != fc.Name || v.Name != arrowconv.ValidityName(fc.Name) || v.Type.Kind != npyio.Bool || cols[2*k+1].Name != v.Name {
				t.Fatalf("fields %q %q (%s), want %s and its validity", c.Name, v.Name, v.Type, fc.Name)
			}
			for r, want := range fc.Values {
				var val []byte
				var valid byte
				if records {
					row := data[0][r*h.DType.Size:]
					val, valid = row[c.Offset:c.Offset+c.Type.Size], row[v.Offset]
				} else {
					val, valid = data[2*k][r*c.Type.Size:(r+1)*c.Type.Size], data[2*k+1][r]
				}
				if want == nil {
					nulls++
					if valid != 0 {
						t.Fatalf("%s row %d: valid %d for a null", fc.Name, r, valid)
					}
					if fc.Name == "i4n" {
						want = "-7"
					} else {
						continue
					}
				} else if valid != 1 {
					t.Fatalf("%s row %d: valid %d for %v", fc.Name, r, valid, want)
				}
				if err := checkForeignValue(c.Type, fc.Type, val, want); err != nil {
					t.Fatalf("%s row %d: %v", fc.Name, r, err)
				}
			}
		}
		if nulls != 30+75+60+50+38 {
			t.Fatalf("%d nulls", nulls)
		}
	}
	// One column named: only it gets the field, and the next column's
	// nulls are still refused, naming it and its first null row.
	b, _ := os.ReadFile(filepath.Join("testdata", "foreign", "duck_int_nulls.parquet"))
	rd, err := NewReaderOptions(bytes.NewReader(b), int64(len(b)), &ReadOptions{Validity: []string{"i4n"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := rd.Header().DType.Fields[1].Name; got != "i4n_valid" {
		t.Fatalf("field 1 is %q", got)
	}
	_, err = rd.Next(1000)
	var ne *NullError
	if !errors.As(err, &ne) || ne.Column != "bn" || ne.Row != 1 || ne.Nulls != 75 {
		t.Fatalf("%v, want bn's 75 nulls refused from row 1", err)
	}
	for _, bad := range [][]string{{"nope"}} {
		if _, err := NewReaderOptions(bytes.NewReader(b), int64(len(b)), &ReadOptions{Validity: bad}); err == nil || !strings.Contains(err.Error(), "nope") {
			t.Errorf("validity %v: %v", bad, err)
		}
	}
	// A struct column named: a validity field after it (true: its rows
	// are never null) and after each of its OPTIONAL fields (see
	// TestValidityNested for the values).
	b, _ = os.ReadFile(filepath.Join("testdata", "foreign", "duck_struct.parquet"))
	rd, err = NewReaderOptions(bytes.NewReader(b), int64(len(b)), &ReadOptions{Validity: []string{"st"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := rd.Header().DType.String(); got != "[('k', '<i8'), ('st', [('a', '<i8'), ('a_valid', '|b1'), ('b', [('x', '<f8'), ('x_valid', '|b1'), ('y', '|b1'), ('y_valid', '|b1')]), ('b_valid', '|b1')]), ('st_valid', '|b1')]" {
		t.Errorf("validity for a group: %s", got)
	}
}

// TestScaledDecimals: with DecimalScaledInt64, pqarrow's DECIMAL(30,5) is
// refused naming the column; DuckDB's DECIMAL(10,2) (INT64) with nulls
// reads as exact int64 named decn_x1e2, equal to DuckDB's decimal text
// without its point, with a validity field named after the column.
func TestScaledDecimals(t *testing.T) {
	b, _ := os.ReadFile(filepath.Join("testdata", "foreign", "pqa_lz4raw_int96_decimal_time.parquet"))
	_, err := NewReaderOptions(bytes.NewReader(b), int64(len(b)), &ReadOptions{Decimal: arrowconv.DecimalScaledInt64})
	var re *RefusedError
	if !errors.As(err, &re) || re.Column != "dec30_5" || !strings.Contains(err.Error(), "18 digits") {
		t.Fatalf("%v, want dec30_5 refused", err)
	}
	ff, rd, data := readCorpus(t, "duck_nulls.parquet", &ReadOptions{Decimal: arrowconv.DecimalScaledInt64, Validity: []string{"decn"}}, false)
	checked := 0
	cols := rd.Columns()
	for i, c := range cols {
		if c.Name != "decn_x1e2" {
			continue
		}
		if c.DType.String() != "'<i8'" || cols[i+1].Name != "decn_valid" {
			t.Fatalf("%s %s, then %s", c.Name, c.DType, cols[i+1].Name)
		}
		for _, fc := range ff.Columns {
			if fc.Name != "decn" {
				continue
			}
			for r, v := range fc.Values {
				if v == nil {
					if data[i+1][r] != 0 {
						t.Fatalf("row %d: null marked valid", r)
					}
					continue
				}
				want, err := strconv.ParseInt(strings.Replace(v.(string), ".", "", 1), 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				if got := int64(le(data[i][r*8 : r*8+8])); got != want || data[i+1][r] != 1 {
					t.Fatalf("row %d: %d (valid %d), want %d (%s)", r, got, data[i+1][r], want, v)
				}
				checked++
			}
		}
	}
	if checked < 900 {
		t.Fatalf("%d values checked", checked)
	}
}

// TestPageCRC: parquet-go writes a CRC in every page header. Its file with
// valid CRCs reads with parquet-go's values; its file with one bit of a
// page flipped after writing (parquet-go refuses it too, see its JSON) is
// refused for that page's CRC, naming the column, as corrupt. The good
// file's strings (DELTA_LENGTH_BYTE_ARRAY in 8 KiB pages) are also the
// regression test of byte-array values kept across pages: they pointed
// into a page buffer the next page of the same batch overwrote ("3", "r"
// came back for "r0", "r1": wrong values, no error).
func TestPageCRC(t *testing.T) {
	for _, ff := range loadForeign(t, "pgo_crc") {
		b, err := os.ReadFile(filepath.Join("testdata", "foreign", ff.File))
		if err != nil {
			t.Fatal(err)
		}
		if ff.File == "pgo_crc.parquet" {
			checkForeign(t, b, &ff)
			continue
		}
		_, _, err = readAllColumns(b)
		if err == nil || !errors.Is(err, errCorrupt) || !strings.Contains(err.Error(), "column id") || !strings.Contains(err.Error(), "CRC") {
			t.Fatalf("%s: %v, want a CRC mismatch in column id", ff.File, err)
		}
		t.Log(err)
	}
}

// TestHadoopLZ4: the legacy LZ4 codec (id 5), which arrow-go cannot
// decode, is read as Hadoop frames it (several blocks in a page
// included) or as a bare LZ4 block; anything else is refused as corrupt.
func TestHadoopLZ4(t *testing.T) {
	plain := make([]byte, 5000)
	for i := range plain {
		plain[i] = byte(i * i >> 3)
	}
	block := func(p []byte) []byte {
		out := make([]byte, lz4.CompressBlockBound(len(p)))
		var c lz4.Compressor
		n, err := c.CompressBlock(p, out)
		if err != nil || n == 0 {
			t.Fatal(err)
		}
		return out[:n]
	}
	frame := func(p []byte) []byte {
		b := block(p)
		return append(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(len(p))), uint32(len(b))), b...)
	}
	two := append(frame(plain[:3000]), frame(plain[3000:])...)
	for name, src := range map[string][]byte{"one frame": frame(plain), "two frames": two, "bare block": block(plain)} {
		dst := make([]byte, len(plain))
		if err := decompress(format.Lz4, dst, src); err != nil || !bytes.Equal(dst, plain) {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, src := range map[string][]byte{"cut": two[:len(two)-3], "longer": frame(append(plain, 1))} {
		if err := decompress(format.Lz4, make([]byte, len(plain)), src); !errors.Is(err, errCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestColumns: ReadOptions.Columns reads only the named columns, in that
// order: DuckDB's file with a MAP column (refused) reads its other column
// with DuckDB's values; columns come back reordered; an unknown name is
// refused naming the file's columns.
func TestColumns(t *testing.T) {
	ff, rd, data := readCorpus(t, "duck_map.parquet", &ReadOptions{Columns: []string{"k"}}, false)
	if cols := rd.Columns(); len(cols) != 1 || cols[0].Name != "k" {
		t.Fatalf("columns %v", cols)
	}
	for r, v := range ff.Columns[0].Values {
		if err := checkForeignValue(rd.Columns()[0].DType, ff.Columns[0].Type, data[0][r*8:r*8+8], v); err != nil {
			t.Fatalf("row %d: %v", r, err)
		}
	}
	ff, rd, data = readCorpus(t, "duck_types.parquet", &ReadOptions{Columns: []string{"s", "i8", "dec10_2"}}, true)
	h := rd.Header()
	if len(h.DType.Fields) != 3 || h.DType.Fields[0].Name != "s" || h.DType.Fields[1].Name != "i8" || h.DType.Fields[2].Name != "dec10_2" {
		t.Fatalf("dtype %s", h.DType)
	}
	checked := 0
	for _, fc := range ff.Columns {
		for k, f := range h.DType.Fields {
			if f.Name != fc.Name {
				continue
			}
			for r, v := range fc.Values {
				b := data[0][r*h.DType.Size+f.Offset:][:f.Type.Size]
				if err := checkForeignValue(f.Type, fc.Type, b, v); err != nil {
					t.Fatalf("%s row %d: %v", f.Name, r, err)
				}
				checked++
			}
			_ = k
		}
	}
	if checked != 3*400 {
		t.Fatalf("%d values checked", checked)
	}
	b, _ := os.ReadFile(filepath.Join("testdata", "foreign", "duck_map.parquet"))
	if _, err := NewReaderOptions(bytes.NewReader(b), int64(len(b)), &ReadOptions{Columns: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "k, m") {
		t.Errorf("unknown column: %v", err)
	}
}

// TestHadoopLZ4File: a file arrow-go's pqarrow writes with the legacy LZ4
// codec (framed as Arrow C++ and parquet-mr frame it, by the codec npyflow
// registers, since arrow-go has none), data pages v1 and v2, several pages
// per column: every value reads back as written.
func TestHadoopLZ4File(t *testing.T) {
	const rows = 20000
	schema := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer bld.Release()
	for r := 0; r < rows; r++ {
		bld.Field(0).(*array.Int64Builder).Append(int64(r*r) - 7)
		bld.Field(1).(*array.StringBuilder).Append("v" + strconv.Itoa(r%1000))
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	for _, v2 := range []bool{false, true} {
		version := parquet.DataPageV1
		if v2 {
			version = parquet.DataPageV2
		}
		var buf bytes.Buffer
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Lz4), parquet.WithDataPageVersion(version), parquet.WithDataPageSize(16<<10), parquet.WithDictionaryDefault(false))
		w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		md, _ := footerOf(t, b)
		if c := md.RowGroups[0].Columns[0].MetaData.Codec; c != format.Lz4 {
			t.Fatalf("codec %v", c)
		}
		rd, data, err := readAllColumns(b)
		if err != nil {
			t.Fatalf("v2=%v: %v", v2, err)
		}
		if rd.Rows() != rows {
			t.Fatalf("%d rows", rd.Rows())
		}
		sw := rd.Columns()[1].DType.Size
		for r := 0; r < rows; r++ {
			if got := int64(le(data[0][8*r:])); got != int64(r*r)-7 {
				t.Fatalf("v2=%v row %d: i %d", v2, r, got)
			}
			var sb strings.Builder
			for k := 0; k < sw; k += 4 {
				if c := rune(le(data[1][r*sw+k : r*sw+k+4])); c != 0 {
					sb.WriteRune(c)
				}
			}
			if want := "v" + strconv.Itoa(r%1000); sb.String() != want {
				t.Fatalf("v2=%v row %d: s %q, want %q", v2, r, sb.String(), want)
			}
		}
	}
}
