package parquetio

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/parquet-go/parquet-go/format"
)

// ptFile is the JSON next to each pt_*.parquet of testdata/foreign, files
// of the Apache parquet-testing repository (gen_parquet_testing.mjs): the
// values as DuckDB reads them, the read options parquetio needs, and a
// word of each warning the Reader must give.
type ptFile struct {
	corpusFile
	Read struct {
		Columns  []string `json:"columns"`
		Validity []string `json:"validity"`
	} `json:"read"`
	Warnings []string `json:"warnings"`
}

// TestForeignParquetTesting reads the files of parquet-testing that
// other readers read and npyflow refused or misread (issue 22): a footer
// whose column chunks carry key-value metadata, empty compressed data
// pages v2 (SNAPPY, ZSTD), a SNAPPY file of one null (an empty dictionary
// page), Spark's INT96 timestamps beyond datetime64[ns], a logical type
// of a newer writer, a footer row count of 0 over a row group of 6,
// dictionary indexes of bit width 0 (one dictionary value; Impala's
// pages of one repeated value over a dictionary of 730): every value as
// DuckDB reads it (Spark's where its documentation says DuckDB is wrong).
func TestForeignParquetTesting(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "foreign", "pt_*.json"))
	if err != nil || len(paths) < 9 {
		t.Fatalf("%d pt_*.json in testdata/foreign: %v", len(paths), err)
	}
	for _, p := range paths {
		var ff ptFile
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &ff); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		t.Run(ff.File, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "foreign", ff.File))
			if err != nil {
				t.Fatal(err)
			}
			opts := &ReadOptions{Columns: ff.Read.Columns, Validity: ff.Read.Validity}
			rd, cols, err := readAllColumnsOptions(data, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkWarnings(t, rd.Warnings(), ff.Warnings)
			info, err := DescribeOptions(bytes.NewReader(data), int64(len(data)), opts)
			if err != nil {
				t.Fatal(err)
			}
			checkWarnings(t, info.Warnings, ff.Warnings)
			if info.Rows != int64(ff.Rows) {
				t.Errorf("Describe: %d rows, DuckDB reads %d", info.Rows, ff.Rows)
			}
			if rd.Rows() != int64(ff.Rows) {
				t.Fatalf("%d rows, DuckDB reads %d", rd.Rows(), ff.Rows)
			}
			byName := map[string]int{}
			for i, c := range rd.Columns() {
				byName[c.Name] = i
			}
			checked := 0
			for _, fc := range ff.Columns {
				i, ok := byName[fc.Name]
				if !ok {
					t.Fatalf("no column %q (have %v)", fc.Name, rd.Columns())
				}
				c := rd.Columns()[i]
				if fc.Expected != "" && c.DType.TypeStr() != fc.Expected {
					t.Errorf("column %s: numpy %s, want %s", c.Name, c.DType, fc.Expected)
				}
				valid, hasValid := byName[fc.Name+"_valid"]
				rs := c.RowSize()
				for r, want := range fc.Values {
					if hasValid {
						if got := cols[valid][r] != 0; got != (want != nil) {
							t.Fatalf("column %s, row %d: valid %v, DuckDB reads %v", c.Name, r, got, want)
						}
						if want == nil {
							continue
						}
					}
					if err := checkForeignValue(c.DType, fc.Type, cols[i][r*rs:(r+1)*rs], want); err != nil {
						t.Fatalf("column %s (%s -> %s), row %d: %v", c.Name, fc.Type, c.DType, r, err)
					}
					checked++
				}
			}
			t.Logf("%s: %d values; warnings %q", ff.Note, checked, rd.Warnings())
		})
	}
}

// checkWarnings checks that the warnings are those the JSON names (a
// word of each), and no others.
func checkWarnings(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("warnings %q, want %d holding %q", got, len(want), want)
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("warning %q does not say %q", got[i], want[i])
		}
	}
}

// TestInt96Units checks the unit INT96 timestamps read in: us for the
// Spark file (TestForeignParquetTesting), refused for a damaged copy
// whose first value has a nanosecond (no unit holds both it and year
// 290000 exactly), ns for values with nanoseconds within range.
func TestInt96Units(t *testing.T) {
	spark, err := os.ReadFile(filepath.Join("testdata", "foreign", "pt_int96_from_spark.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	// The dictionary page (SNAPPY, with a CRC) starts with a literal that
	// holds the first value from byte 25: nanoseconds of the day, Julian
	// day.
	const dict = 25
	value := func(b []byte, i int) []byte { return b[dict+12*i : dict+12*i+12] }
	if !bytes.Equal(value(spark, 0), []byte{0x00, 0x2a, 0x1e, 0xd9, 0x63, 0x43, 0, 0, 0x97, 0x8a, 0x25, 0}) {
		t.Fatalf("the dictionary is not where it was: % x", value(spark, 0))
	}
	read := func(b []byte) (*Reader, []byte, error) {
		// The dictionary page has a CRC: give it the damaged data's.
		var h format.PageHeader
		hl, err := decodePageHeader(b[4:], &h)
		if err != nil {
			t.Fatal(err)
		}
		crc := crc32.ChecksumIEEE(b[4+hl : 4+hl+int(h.CompressedPageSize)])
		b = editFirstPage(t, b, 0, func(h *format.PageHeader) { h.CRC = int32(crc) })
		rd, cols, err := readAllColumns(b)
		if err != nil {
			return nil, nil, err
		}
		return rd, cols[0], nil
	}
	t.Run("nanosecond", func(t *testing.T) {
		b := bytes.Clone(spark)
		value(b, 0)[0]++
		_, _, err := read(b)
		if err == nil || !strings.Contains(err.Error(), "column a: INT96 timestamps") || !strings.Contains(err.Error(), "no numpy unit holds both exactly") {
			t.Fatalf("got %v, want a refusal naming column a and both values", err)
		}
		if strings.Contains(err.Error(), "corrupt") {
			t.Fatalf("valid values called corrupt: %v", err)
		}
		t.Log(err)
	})
	t.Run("within ns", func(t *testing.T) {
		// arrow-go's INT96 values with nanoseconds, within range: ns
		// (TestForeignPQArrow compares every value in ns).
		b, err := os.ReadFile(filepath.Join("testdata", "foreign", "pqa_lz4raw_int96_decimal_time.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		rd, err := NewReaderOptions(bytes.NewReader(b), int64(len(b)), &ReadOptions{Columns: []string{"ts96"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := rd.Columns()[0].DType.TypeStr(); got != "<M8[ns]" {
			t.Fatalf("%s, want <M8[ns]", got)
		}
	})
}

func TestInt96In(t *testing.T) {
	mk := func(nanos int64, julian int32) parquet.Int96 {
		var v parquet.Int96
		binary.LittleEndian.PutUint64(v[:8], uint64(nanos))
		binary.LittleEndian.PutUint32(v[8:], uint32(julian))
		return v
	}
	for _, c := range []struct {
		name           string
		v              parquet.Int96
		unit           int64
		x              int64
		inRange, exact bool
	}{
		{"epoch ns", mk(0, julianUnixEpoch), 1, 0, true, true},
		{"one ns before the epoch, in us", mk(-1, julianUnixEpoch), 1e3, -1, true, false},
		{"day before the epoch, in ms", mk(43200e9, julianUnixEpoch-1), 1e6, -43200e3, true, true},
		{"year 9999 in ns", mk(10800e9, 5373484), 1, 0, false, true},
		{"year 9999 in us", mk(10800e9, 5373484), 1e3, 253402225200000000, true, true},
		{"Spark's year 290000 (wrapped) in us", mk(-32509551616000, -105862232), 1e3, 9089380393200000000, true, true},
		{"Spark's year 290000 (wrapped) in ms", mk(-32509551616000, -105862232), 1e6, 9089380393200000, true, true},
		{"the far end of the Julian days in us", mk(0, math.MaxInt32), 1e3, 0, false, true},
		{"the far end of the Julian days in ms", mk(0, math.MaxInt32), 1e6, (math.MaxInt32 - julianUnixEpoch) * 86400e3, true, true},
	} {
		x, in, exact := int96In(c.v, c.unit)
		if in != c.inRange || exact != c.exact || (in && x != c.x) {
			t.Errorf("%s: %d %v %v, want %d %v %v", c.name, x, in, exact, c.x, c.inRange, c.exact)
		}
	}
}
