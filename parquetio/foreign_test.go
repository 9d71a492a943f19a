package parquetio

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/npyflow/npyflow/npyio"
)

// corpusFile is the JSON next to each file of testdata/foreign: the values
// as the producer reads them back (see gen_duckdb.mjs, gen_pqarrow.go).
type corpusFile struct {
	File     string `json:"file"`
	Producer string `json:"producer"`
	Rows     int    `json:"rows"`
	Note     string `json:"note"`
	Columns  []struct {
		Name     string `json:"name"`
		Type     string `json:"duck_type"` // the producer's type name (DuckDB)
		PType    string `json:"type"`      // the same (other producers)
		Unit     string `json:"unit"`      // the unit of time values, if not implied by the type
		Nulls    int    `json:"nulls"`
		Values   []any  `json:"values"`
		Expected string `json:"numpy"` // optional: the numpy dtype npyflow must map to
	} `json:"columns"`
}

func loadForeign(t *testing.T, prefix string) []corpusFile {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "foreign", prefix+"*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no %s*.json in testdata/foreign: %v", prefix, err)
	}
	var out []corpusFile
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var f corpusFile
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, f)
	}
	return out
}

// foreignRefusals are the columns of the corpus that must be refused, and
// a word of the reason.
var foreignRefusals = map[string]struct{ column, why string }{
	"duck_list.parquet":      {"l", "varying length (row 0 holds 0 values, row 1 holds 1)"},
	"duck_map.parquet":       {"m", "map"},
	"duck_int_nulls.parquet": {"i4n", "30 nulls"},
	// Nested nulls: read with validity fields in TestValidityNested.
	"duck_struct_nulls.parquet":    {"st.a", "18 nulls"},
	"duck_list_nulls.parquet":      {"l3", "10 nulls"},
	"duck_list_item_nulls.parquet": {"l3", "18 nulls"},
	"pqa_nested_nulls.parquet":     {"st.a", "first in row 1"},
}

// TestForeignDuckDB reads every DuckDB file of the corpus and compares
// every value with DuckDB's own reading of it, or checks the refusal.
func TestForeignDuckDB(t *testing.T) {
	for _, ff := range loadForeign(t, "duck_") {
		t.Run(ff.File, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "foreign", ff.File))
			if err != nil {
				t.Fatal(err)
			}
			if checkRefusal(t, b, ff.File) {
				return
			}
			checkForeign(t, b, &ff)
		})
	}
}

// checkRefusal checks the refusal of a file of foreignRefusals (true),
// or reports that the file is not one (false).
func checkRefusal(t *testing.T, b []byte, name string) bool {
	t.Helper()
	ref, ok := foreignRefusals[name]
	if !ok {
		return false
	}
	_, _, err := readAllColumns(b)
	if err == nil {
		t.Fatalf("read without an error, want column %s refused", ref.column)
	}
	if !strings.Contains(err.Error(), "column "+ref.column+" ") || !strings.Contains(err.Error(), ref.why) {
		t.Fatalf("error %q does not name column %s and %q", err, ref.column, ref.why)
	}
	if strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("a valid file called corrupt: %v", err)
	}
	t.Log(err)
	return true
}

// readAllColumns reads a whole file as one byte slice per column.
func readAllColumns(b []byte) (*Reader, [][]byte, error) {
	return readAllColumnsOptions(b, nil)
}

// readAllColumnsOptions reads a whole file under opts as one byte slice
// per column.
func readAllColumnsOptions(b []byte, opts *ReadOptions) (*Reader, [][]byte, error) {
	rd, err := NewReaderOptions(bytes.NewReader(b), int64(len(b)), opts)
	if err != nil {
		return nil, nil, err
	}
	cols := make([][]byte, len(rd.Columns()))
	for {
		_, cs, err := rd.NextColumns(1000)
		if err == io.EOF {
			return rd, cols, nil
		}
		if err != nil {
			return nil, nil, err
		}
		for i, c := range cs {
			cols[i] = append(cols[i], c...)
		}
	}
}

func checkForeign(t *testing.T, b []byte, ff *corpusFile) {
	t.Helper()
	rd, data, err := readAllColumns(b)
	if err != nil {
		t.Fatal(err)
	}
	if rd.Rows() != int64(ff.Rows) {
		t.Fatalf("%d rows, the producer reads %d", rd.Rows(), ff.Rows)
	}
	cols := rd.Columns()
	if len(cols) != len(ff.Columns) {
		t.Fatalf("%d columns, the producer reads %d", len(cols), len(ff.Columns))
	}
	checked := 0
	for i, c := range cols {
		fc := ff.Columns[i]
		if c.Name != fc.Name {
			t.Fatalf("column %d is %q, the producer's %q", i, c.Name, fc.Name)
		}
		if fc.Expected != "" && c.DType.String() != fc.Expected {
			t.Errorf("column %s: numpy %s, want %s", c.Name, c.DType, fc.Expected)
		}
		rs := c.RowSize()
		ptype := fc.Type + fc.PType
		if fc.Unit != "" {
			ptype += "/" + fc.Unit
		}
		for r, want := range fc.Values {
			if len(c.Shape) > 0 {
				// A list of one length: a subarray; the producer gives
				// the list as JSON.
				var items []any
				d := json.NewDecoder(strings.NewReader(want.(string)))
				d.UseNumber()
				if err := d.Decode(&items); err != nil || len(items) != c.Shape[0] {
					t.Fatalf("column %s, row %d: %q for shape %v (%v)", c.Name, r, want, c.Shape, err)
				}
				es := c.DType.Size
				for k, it := range items {
					w := any(nil)
					if it != nil {
						w = it.(json.Number).String()
					}
					if err := checkForeignValue(c.DType, "DOUBLE", data[i][r*rs+k*es:r*rs+(k+1)*es], w); err != nil {
						t.Errorf("column %s, row %d, item %d: %v", c.Name, r, k, err)
					}
					checked++
				}
				continue
			}
			if err := checkForeignValue(c.DType, ptype, data[i][r*rs:(r+1)*rs], want); err != nil {
				t.Errorf("column %s (%s -> %s), row %d: %v", c.Name, fc.Type, c.DType, r, err)
				if checked > 20 {
					t.FailNow()
				}
			}
			checked++
		}
	}
	t.Logf("%d values of %d columns", checked, len(cols))
}

// checkForeignValue compares one numpy value (native order) with the
// producer's reading of it (see gen_duckdb.mjs for the forms).
func checkForeignValue(dt *npyio.DType, ptype string, b []byte, want any) error {
	ws, _ := want.(string)
	if ptype == "INTERVAL" {
		return checkInterval(dt, b, ws)
	}
	switch dt.Kind {
	case npyio.Float:
		var got float64
		switch dt.Size {
		case 2:
			got = float64(float16.FromBits(uint16(le(b[:2]))).Float32())
		case 4:
			got = float64(math.Float32frombits(uint32(le(b[:4]))))
		case 8:
			got = math.Float64frombits(le(b[:8]))
		default:
			return fmt.Errorf("float of %d bytes", dt.Size)
		}
		if want == nil {
			if !math.IsNaN(got) {
				return fmt.Errorf("%v, want NaN for null", got)
			}
			return nil
		}
		bits := 64
		if ptype == "FLOAT" || ptype == "HALF" {
			bits = 32 // the producer printed the float32 (of a float16)
		}
		// DuckDB prints floats in their shortest form and decimals
		// exactly: parsing rounds correctly, so the values must be equal.
		w, err := strconv.ParseFloat(ws, bits)
		if err != nil {
			return err
		}
		if got != w {
			return fmt.Errorf("%v, want %v (%s)", got, w, ws)
		}
	case npyio.Int, npyio.Uint:
		if want == nil {
			return fmt.Errorf("a null came back as a number")
		}
		var got string
		x := le(b[:dt.Size])
		if dt.Kind == npyio.Int {
			sh := 64 - 8*dt.Size
			got = strconv.FormatInt(int64(x<<sh)>>sh, 10)
		} else {
			got = strconv.FormatUint(x, 10)
		}
		if got != ws {
			return fmt.Errorf("%s, want %s", got, ws)
		}
	case npyio.Bool:
		got := "false"
		if b[0] != 0 {
			got = "true"
		}
		if got != ws {
			return fmt.Errorf("%s, want %s", got, ws)
		}
	case npyio.Unicode:
		var sb strings.Builder
		for k := 0; k+4 <= len(b); k += 4 {
			sb.WriteRune(rune(le(b[k : k+4])))
		}
		got := strings.TrimRight(sb.String(), "\x00")
		if got != ws {
			return fmt.Errorf("%q, want %q", got, ws)
		}
	case npyio.Bytes:
		// numpy's S drops trailing NULs (its own semantics): so does the
		// comparison.
		got := strings.ToUpper(hex.EncodeToString(bytes.TrimRight(b, "\x00")))
		w, err := hex.DecodeString(ws)
		if err != nil {
			return err
		}
		if got != strings.ToUpper(hex.EncodeToString(bytes.TrimRight(w, "\x00"))) {
			return fmt.Errorf("%s, want %s", got, ws)
		}
	case npyio.Void:
		if ptype == "UUID" {
			h := hex.EncodeToString(b)
			got := h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
			if got != ws {
				return fmt.Errorf("%s, want %s", got, ws)
			}
			return nil
		}
		if ptype == "FIXED" {
			if got := strings.ToUpper(hex.EncodeToString(b)); got != ws {
				return fmt.Errorf("%s, want %s", got, ws)
			}
			return nil
		}
		return fmt.Errorf("no check for V%d of %s", dt.Size, ptype)
	case npyio.Datetime, npyio.Timedelta:
		got := int64(le(b[:8]))
		if want == nil {
			if got != math.MinInt64 {
				return fmt.Errorf("%d, want NaT for null", got)
			}
			return nil
		}
		w, err := strconv.ParseInt(ws, 10, 64)
		if err != nil {
			return err
		}
		// the producer's unit
		wu := "us"
		switch {
		case strings.Contains(ptype, "/"):
			wu = ptype[strings.Index(ptype, "/")+1:]
		case strings.HasPrefix(ptype, "TIMESTAMP_NS"):
			wu = "ns"
		case strings.HasPrefix(ptype, "TIMESTAMP_MS"), strings.HasPrefix(ptype, "TIMESTAMP_S"):
			wu = "ms"
		case ptype == "DATE":
			wu = "D"
		}
		if dt.Unit == wu { // exact beyond int64 nanoseconds too
			if got != w {
				return fmt.Errorf("%d %s, want %d %s", got, dt.Unit, w, wu)
			}
			return nil
		}
		gn, ok := mulOK(got, unitNanos[dt.Unit])
		wn, ok2 := mulOK(w, unitNanos[wu])
		if !ok || !ok2 || gn != wn {
			return fmt.Errorf("%d %s, want %d %s", got, dt.Unit, w, wu)
		}
	case npyio.Struct:
		var m map[string]any
		if err := json.Unmarshal([]byte(ws), &m); err != nil {
			return err
		}
		for _, f := range dt.Fields {
			v, ok := m[f.Name]
			if !ok {
				return fmt.Errorf("field %s missing in %s", f.Name, ws)
			}
			var sub any
			ft := "BIGINT"
			switch x := v.(type) {
			case map[string]any:
				j, _ := json.Marshal(x)
				sub = string(j)
			case float64:
				sub = strconv.FormatFloat(x, 'g', -1, 64)
				if f.Type.Kind == npyio.Float {
					ft = "DOUBLE"
				}
			case bool:
				sub = strconv.FormatBool(x)
			default:
				sub = fmt.Sprint(x)
			}
			if err := checkForeignValue(f.Type, ft, b[f.Offset:f.Offset+f.Type.Size], sub); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
	default:
		return fmt.Errorf("no check for %s", dt)
	}
	return nil
}

func le(b []byte) uint64 {
	var x uint64
	for i := len(b) - 1; i >= 0; i-- {
		x = x<<8 | uint64(b[i])
	}
	return x
}

// TestForeignPQArrow reads the files arrow-go's pqarrow wrote (see
// gen_pqarrow.go) and compares every value with pqarrow's own reading; the
// encodings and physical types the generator asked for are checked with
// Describe.
func TestForeignPQArrow(t *testing.T) {
	want := map[string][]string{
		"pqa_nulls_dict.parquet":                {"i8 RLE_DICTIONARY", "s RLE_DICTIONARY"},
		"pqa_v2_delta_bss.parquet":              {"i8 DELTA_BINARY_PACKED", "i4 DELTA_BINARY_PACKED", "s_dlba DELTA_LENGTH_BYTE_ARRAY", "s_dba DELTA_BYTE_ARRAY", "f8_bss BYTE_STREAM_SPLIT", "f4_bss BYTE_STREAM_SPLIT"},
		"pqa_lz4raw_int96_decimal_time.parquet": {"ts96 INT96", "dec9_2 INT32", "dec18_6 INT64", "dec30_5 FIXED_LEN_BYTE_ARRAY(13)"},
	}
	for _, ff := range loadForeign(t, "pqa_") {
		t.Run(ff.File, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "foreign", ff.File))
			if err != nil {
				t.Fatal(err)
			}
			info, err := Describe(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			if checkRefusal(t, b, ff.File) {
				return
			}
			for _, w := range want[ff.File] {
				col, what, _ := strings.Cut(w, " ")
				found := false
				for _, c := range info.Columns {
					if c.Path == col && (c.Physical == what || slices.Contains(c.Encodings, what)) {
						found = true
					}
				}
				if !found {
					t.Errorf("column %s: no %s in %+v", col, what, info.Columns)
				}
			}
			checkForeign(t, b, &ff)
		})
	}
}

// TestForeignLegacyTypes reads the file arrow-go's low-level writer wrote
// with the types its Arrow writer does not produce (gen_pqarrow.go's
// writeLegacy): integer, date and timestamp columns annotated by the
// legacy converted types alone, FLOAT16, FIXED_LEN_BYTE_ARRAY without a
// logical type, DECIMAL on BYTE_ARRAY, legacy UTF8, a 2-level LIST and a
// repeated primitive without LIST annotation; every value is compared
// with pqarrow's reading of the file.
func TestForeignLegacyTypes(t *testing.T) {
	ff := loadForeign(t, "pqlow_legacy_types")[0]
	b, err := os.ReadFile(filepath.Join("testdata", "foreign", ff.File))
	if err != nil {
		t.Fatal(err)
	}
	info, err := Describe(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"i8c": "INT(8) |i1", "u16c": "UINT(16) <u2", "tsm": "TIMESTAMP(ms, UTC) <M8[ms]", "tsu": "TIMESTAMP(us, UTC) <M8[us]", "dc": "DATE <M8[D]",
		"f16": "FLOAT16 <f2", "flba": "FIXED_LEN_BYTE_ARRAY(5) |V5", "decba": "DECIMAL(20,3) <f8", "su": "STRING <U", "l2.array": "INT32 <i4", "rp": "INT64 <i8"}
	for _, c := range info.Columns {
		if w := want[c.Path]; c.Type+" "+c.DType != w {
			t.Errorf("%s: %s %s, want %s", c.Path, c.Type, c.DType, w)
		}
	}
	if len(info.Columns) != len(want) {
		t.Errorf("%d columns", len(info.Columns))
	}
	checkForeign(t, b, &ff)
}

// TestDuckDBPaddedRuns: the files DuckDB 1.5 writes with nullable columns
// holding nulls, ENUM and low-cardinality dictionary columns, whose last
// bit-packed run of definition levels or dictionary indexes covers more
// slots than the page's values (npyflow's former decoder called them
// corrupt: "definition levels hold more values than the page's 1000",
// "dictionary indexes hold more values than the page's ..."), read in full.
func TestDuckDBPaddedRuns(t *testing.T) {
	for _, f := range []string{"duck_nulls.parquet", "duck_types.parquet", "duck_v2.parquet", "duck_codec_zstd.parquet", "duck_codec_uncompressed.parquet", "duck_rowgroups.parquet"} {
		b, err := os.ReadFile(filepath.Join("testdata", "foreign", f))
		if err != nil {
			t.Fatal(err)
		}
		rd, _, err := readAllColumns(b)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if rd.Rows() == 0 {
			t.Errorf("%s: no rows", f)
		}
	}
	// The integer columns with nulls are refused for their nulls, never as
	// corrupt: the error names the column and the statistics' null count.
	b, err := os.ReadFile(filepath.Join("testdata", "foreign", "duck_int_nulls.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = readAllColumns(b)
	var ne *NullError
	if !errors.As(err, &ne) || ne.Column != "i4n" || ne.Nulls != 30 || ne.Row != 0 {
		t.Fatalf("error %v (%+v), want a NullError for i4n with 30 nulls from row 0", err, ne)
	}
}

// TestFillValues: with fill values, the int, bool, string and enum columns
// holding nulls convert, nulls as the fill and every other value as DuckDB
// reads it; a fill for no column, or one that does not fit, is refused.
func TestFillValues(t *testing.T) {
	var ff *corpusFile
	for _, f := range loadForeign(t, "duck_int_nulls") {
		ff = &f
	}
	b, err := os.ReadFile(filepath.Join("testdata", "foreign", ff.File))
	if err != nil {
		t.Fatal(err)
	}
	fill := map[string]any{"i4n": -1, "bn": "false", "sn": "<missing>", "u1n": uint64(255), "en": "none"}
	rd, err := NewReaderOptions(bytes.NewReader(b), int64(len(b)), &ReadOptions{Fill: fill})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"i4n": "-1", "bn": "false", "sn": "<missing>", "u1n": "255", "en": "none"}
	cols := make([][]byte, len(rd.Columns()))
	for {
		_, cs, err := rd.NextColumns(100)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cs {
			cols[i] = append(cols[i], c...)
		}
	}
	nulls := 0
	for i, c := range rd.Columns() {
		fc := ff.Columns[i]
		rs := c.RowSize()
		for r, v := range fc.Values {
			if v == nil {
				v = want[c.Name]
				nulls++
			}
			if err := checkForeignValue(c.DType, fc.Type, cols[i][r*rs:(r+1)*rs], v); err != nil {
				t.Fatalf("column %s, row %d: %v", c.Name, r, err)
			}
		}
	}
	if nulls == 0 {
		t.Fatal("no nulls filled")
	}
	if c := rd.Columns()[2]; c.DType.String() != "'<U9'" {
		t.Errorf("sn is %s, want <U9 (its fill is 9 characters)", c.DType)
	}
	for _, bad := range []map[string]any{{"nope": 1}, {"u1n": 256}, {"i4n": "x"}, {"bn": 2}} {
		if _, err := NewReaderOptions(bytes.NewReader(b), int64(len(b)), &ReadOptions{Fill: bad}); err == nil {
			t.Errorf("fill %v accepted", bad)
		}
	}
}

// TestNextAndNextColumns: Next (records decoded in place) and NextColumns
// may be mixed on one Reader, in either order, and give the same rows.
func TestNextAndNextColumns(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "foreign", "duck_rowgroups.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	_, cols, err := readAllColumns(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, nextFirst := range []bool{true, false} {
		rd, err := NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		dt := rd.Header().DType
		for call := 0; ; call++ {
			start := rd.Rows() - rd.Remaining()
			var rows [][]byte // per column
			n := 0
			if (call%2 == 0) == nextFirst {
				bt, err := rd.Next(333)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				n = bt.Rows
				for _, f := range dt.Fields {
					var c []byte
					for k := 0; k < n; k++ {
						c = append(c, bt.Data[k*dt.Size+f.Offset:k*dt.Size+f.Offset+f.Type.Size]...)
					}
					rows = append(rows, c)
				}
			} else {
				var cs [][]byte
				n, cs, err = rd.NextColumns(500)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				rows = cs
			}
			for i, f := range dt.Fields {
				w := f.Type.Size
				if !bytes.Equal(rows[i], cols[i][int(start)*w:(int(start)+n)*w]) {
					t.Fatalf("nextFirst %v, call %d, column %s: rows differ", nextFirst, call, f.Name)
				}
			}
		}
		if rd.Remaining() != 0 {
			t.Fatalf("%d rows left", rd.Remaining())
		}
	}
}

// checkInterval compares a (months, days, milliseconds) struct with
// DuckDB's text of an INTERVAL: "1 year 2 months 3 days 00:00:01.234".
func checkInterval(dt *npyio.DType, b []byte, ws string) error {
	if dt.String() != "[('months', '<u4'), ('days', '<u4'), ('milliseconds', '<u4')]" {
		return fmt.Errorf("INTERVAL as %s", dt)
	}
	var months, days, ms int64
	f := strings.Fields(ws)
	for k := 0; k < len(f); k++ {
		if strings.Contains(f[k], ":") {
			var h, m int64
			var sec float64
			if _, err := fmt.Sscanf(f[k], "%d:%d:%f", &h, &m, &sec); err != nil {
				return fmt.Errorf("DuckDB's %q: %v", ws, err)
			}
			ms = (h*3600+m*60)*1000 + int64(math.Round(sec*1000))
			continue
		}
		n, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil || k+1 >= len(f) {
			return fmt.Errorf("DuckDB's %q", ws)
		}
		k++
		switch strings.TrimSuffix(f[k], "s") {
		case "year":
			months += 12 * n
		case "month", "mon":
			months += n
		case "day":
			days += n
		default:
			return fmt.Errorf("DuckDB's %q: unit %q", ws, f[k])
		}
	}
	got := [3]int64{int64(le(b[0:4])), int64(le(b[4:8])), int64(le(b[8:12]))}
	if got != [3]int64{months, days, ms} {
		return fmt.Errorf("(months, days, ms) %v, want %v (%s)", got, [3]int64{months, days, ms}, ws)
	}
	return nil
}
