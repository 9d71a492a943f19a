package arrowconv_test

import (
	"bytes"
	"encoding/binary"
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
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
)

// foreignExpect is the JSON a producer wrote next to an IPC file
// (testdata/gen_foreign.go, testdata/gen_arrowjs.mjs).
type foreignExpect struct {
	Producer string `json:"producer"`
	Batches  int    `json:"batches"`
	Columns  []struct {
		Name   string `json:"name"`
		Type   string `json:"type"`
		Values []any  `json:"values"`
	} `json:"columns"`
}

func loadExpect(t *testing.T, path string) *foreignExpect {
	t.Helper()
	b, err := os.ReadFile(path + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var e foreignExpect
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&e); err != nil {
		t.Fatal(err)
	}
	return &e
}

// readForeign reads every record of an IPC file through arrowconv's
// reader and converts them with a Mapping (a scan pass first).
func readForeign(t *testing.T, path string, opts *arrowconv.MapOptions, slice bool) (*arrowconv.Mapping, []byte, int, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	open := func() array.RecordReader {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		rr, err := arrowconv.NewIPCReader(f, mem)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return rr
	}
	rr := open()
	m, err := arrowconv.MapSchema(rr.Schema(), opts)
	if err != nil {
		rr.Release()
		return nil, nil, 0, err
	}
	if m.NeedsScan() {
		err := arrowconv.ScanRecords(m, rr)
		rr.Release()
		if err != nil {
			return m, nil, 0, err
		}
		rr = open()
	}
	defer rr.Release()
	var out []byte
	rows := 0
	for rr.Next() {
		rec := rr.RecordBatch()
		if slice && rec.NumRows() > 1 {
			// Slices with offsets: two pieces.
			k := rec.NumRows() / 2
			for _, r := range [][2]int64{{0, k}, {k, rec.NumRows()}} {
				s := rec.NewSlice(r[0], r[1])
				out, err = m.Encode(s, out)
				s.Release()
				if err != nil {
					return m, nil, 0, err
				}
			}
		} else if out, err = m.Encode(rec, out); err != nil {
			return m, nil, 0, err
		}
		rows += int(rec.NumRows())
	}
	return m, out, rows, rr.Err()
}

// checkForeign compares every value of the converted rows with the
// producer's expectation; nullWant gives the expected bytes of a null in
// columns that are not float or datetime (fill values), by column.
func checkForeign(t *testing.T, path string, opts *arrowconv.MapOptions, slice bool) *arrowconv.Mapping {
	t.Helper()
	exp := loadExpect(t, path)
	m, out, rows, err := readForeign(t, path, opts, slice)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	dt, err := m.DType()
	if err != nil {
		t.Fatal(err)
	}
	size, _ := m.RowSize()
	if len(out) != rows*size {
		t.Fatalf("%s: %d bytes for %d rows of %d", path, len(out), rows, size)
	}
	for ci, c := range exp.Columns {
		if len(c.Values) != rows {
			t.Fatalf("%s: column %s: %d expected values, %d rows", path, c.Name, len(c.Values), rows)
		}
		var f npyio.Field
		if dt.Kind == npyio.Struct && len(exp.Columns) > 1 || opts != nil && (opts.ValidityFields || len(opts.Validity) > 0) {
			f = fieldNamed(t, dt, c.Name)
		} else {
			f = npyio.Field{Type: dt, Shape: m.RowShape()}
		}
		for r, want := range c.Values {
			b := out[r*size+f.Offset:][:f.Size()]
			if err := checkNumpy(f.Type, f.Shape, b, want, fillOf(opts, c.Name)); err != nil {
				t.Errorf("%s: column %d %s (%s) row %d: %v", filepath.Base(path), ci, c.Name, c.Type, r, err)
			}
		}
	}
	return m
}

func fillOf(opts *arrowconv.MapOptions, name string) any {
	if opts == nil {
		return nil
	}
	return opts.Fill[name]
}

func fieldNamed(t *testing.T, dt *npyio.DType, name string) npyio.Field {
	t.Helper()
	for _, f := range dt.Fields {
		if f.Name == name || strings.HasPrefix(f.Name, name+"_x1e") {
			return f
		}
	}
	t.Fatalf("no field %q in %s", name, dt)
	return npyio.Field{}
}

// checkNumpy compares one numpy value (native order) with a JSON value.
func checkNumpy(dt *npyio.DType, shape []int, b []byte, want any, fill any) error {
	if len(shape) > 0 {
		list, ok := want.([]any)
		if want == nil {
			list = make([]any, shape[0])
		} else if !ok || len(list) != shape[0] {
			return fmt.Errorf("subarray of %d, want %v", shape[0], want)
		}
		sub := len(b) / shape[0]
		for i, w := range list {
			if err := checkNumpy(dt, shape[1:], b[i*sub:(i+1)*sub], w, fill); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	}
	le := binary.LittleEndian
	uintOf := func() uint64 {
		switch dt.Size {
		case 1:
			return uint64(b[0])
		case 2:
			return uint64(le.Uint16(b))
		case 4:
			return uint64(le.Uint32(b))
		}
		return le.Uint64(b)
	}
	intOf := func() int64 {
		u := uintOf()
		sh := 64 - 8*dt.Size
		return int64(u<<sh) >> sh
	}
	if want == nil && fill != nil {
		want = fmt.Sprint(fill)
	}
	if want == nil && (dt.Kind == npyio.Int || dt.Kind == npyio.Uint) {
		want = "0" // a validity field records the null
	}
	switch dt.Kind {
	case npyio.Struct:
		switch w := want.(type) {
		case map[string]any:
			for _, f := range dt.Fields {
				if err := checkNumpy(f.Type, f.Shape, b[f.Offset:f.Offset+f.Size()], w[f.Name], nil); err != nil {
					return fmt.Errorf(".%s: %w", f.Name, err)
				}
			}
		case []any:
			if len(w) != len(dt.Fields) {
				return fmt.Errorf("%d fields, want %v", len(dt.Fields), w)
			}
			for k, f := range dt.Fields {
				if err := checkNumpy(f.Type, f.Shape, b[f.Offset:f.Offset+f.Size()], w[k], nil); err != nil {
					return fmt.Errorf(".%s: %w", f.Name, err)
				}
			}
		case nil:
			if !bytes.Equal(b, make([]byte, len(b))) {
				return fmt.Errorf("null struct is % x, want zeros", b)
			}
		default:
			return fmt.Errorf("struct, want %v", want)
		}
	case npyio.Int:
		w, err := strconv.ParseInt(str(want), 10, 64)
		if err != nil || intOf() != w {
			return fmt.Errorf("%d, want %v", intOf(), want)
		}
	case npyio.Uint:
		w, err := strconv.ParseUint(str(want), 10, 64)
		if err != nil || uintOf() != w {
			return fmt.Errorf("%d, want %v", uintOf(), want)
		}
	case npyio.Bool:
		w := want
		if s, ok := want.(string); ok {
			w, _ = strconv.ParseBool(s)
		}
		if w == nil {
			w = false
		}
		if (b[0] == 1) != w.(bool) || b[0] > 1 {
			return fmt.Errorf("%d, want %v", b[0], want)
		}
	case npyio.Float:
		if m, ok := want.(map[string]any); ok {
			if bits, ok := m["f16bits"]; ok {
				if dt.Size != 2 || float64(le.Uint16(b)) != bits.(float64) {
					return fmt.Errorf("bits %#x, want %v", le.Uint16(b), bits)
				}
				return nil
			}
			want = m["decimal"]
		}
		var got float64
		switch dt.Size {
		case 2:
			if want == nil {
				if v := le.Uint16(b); v&0x7c00 != 0x7c00 || v&0x3ff == 0 {
					return fmt.Errorf("f2 bits %#x, want NaN", v)
				}
				return nil
			}
			return fmt.Errorf("f2 value %v without bits", want)
		case 4:
			got = float64(math.Float32frombits(le.Uint32(b)))
		case 8:
			got = math.Float64frombits(le.Uint64(b))
		}
		if want == nil {
			if !math.IsNaN(got) {
				return fmt.Errorf("%v, want NaN", got)
			}
			return nil
		}
		w, err := strconv.ParseFloat(str(want), 8*dt.Size)
		if err != nil || math.Float64bits(got) != math.Float64bits(w) {
			return fmt.Errorf("%v, want %v (%v)", got, want, err)
		}
	case npyio.Datetime, npyio.Timedelta:
		got := int64(le.Uint64(b))
		if want == nil {
			if got != math.MinInt64 {
				return fmt.Errorf("%d, want NaT", got)
			}
			return nil
		}
		w, err := strconv.ParseInt(str(want), 10, 64)
		if err != nil || got != w {
			return fmt.Errorf("%d, want %v", got, want)
		}
	case npyio.Unicode:
		var sb strings.Builder
		for i := 0; i+4 <= len(b); i += 4 {
			r := rune(le.Uint32(b[i:]))
			if r == 0 {
				if !bytes.Equal(b[i:], make([]byte, len(b)-i)) {
					return fmt.Errorf("bytes after the NUL: % x", b)
				}
				break
			}
			sb.WriteRune(r)
		}
		w := ""
		if want != nil {
			w = want.(string)
		}
		if sb.String() != w || !utf8.ValidString(sb.String()) {
			return fmt.Errorf("%q, want %q", sb.String(), w)
		}
	case npyio.Bytes, npyio.Void:
		var w []byte
		switch v := want.(type) {
		case map[string]any:
			w, _ = hex.DecodeString(v["hex"].(string))
		case string:
			w = []byte(v)
		}
		pad := append(append([]byte{}, w...), make([]byte, len(b)-min(len(w), len(b)))...)
		if !bytes.Equal(b, pad) {
			return fmt.Errorf("% x, want % x", b, w)
		}
	default:
		return fmt.Errorf("unexpected dtype %s", dt)
	}
	return nil
}

func str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// TestForeignArrowGo converts every file arrow-go's IPC writer wrote
// (testdata/gen_foreign.go): every mappable type, file and stream, LZ4
// and ZSTD bodies, Feather v2, whole records and slices with offsets.
func TestForeignArrowGo(t *testing.T) {
	for _, name := range []string{"every_type.arrow", "every_type_lz4.arrows", "every_type_zstd.arrow", "every_type.feather"} {
		for _, slice := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/slice=%v", name, slice), func(t *testing.T) {
				m := checkForeign(t, filepath.Join("testdata", "foreign", name), nil, slice)
				dt, _ := m.DType()
				want := map[string]string{
					"i8": "|i1", "u64": "<u8", "f16": "<f2", "b": "|b1", "s": "<U7", "ls": "<U3", "sv": "<U33",
					"bin": "|S3", "bv": "|S20", "fsb": "|V3", "uuid": "|V16", "d32": "<f8", "d256": "<f8",
					"date32": "<M8[D]", "date64": "<M8[ms]", "ts_us_tz": "<M8[us]", "t32s": "<m8[s]", "t64ns": "<m8[ns]",
					"dur_s": "<m8[s]",
				}
				for _, f := range dt.Fields {
					if w, ok := want[f.Name]; ok && f.Type.TypeStr() != w {
						t.Errorf("field %s is %s, want %s", f.Name, f.Type.TypeStr(), w)
					}
				}
				for name, shape := range map[string][]int{"fsl": {3}, "fsl2": {2, 2}, "list": {2}, "llist": {1}, "listview": {3}} {
					if f := fieldNamed(t, dt, name); fmt.Sprint(f.Shape) != fmt.Sprint(shape) {
						t.Errorf("field %s has shape %v, want %v", name, f.Shape, shape)
					}
				}
				if got := fieldNamed(t, dt, "iv_mdn").Type.String(); got != "[('months', '<i4'), ('days', '<i4'), ('nanoseconds', '<i8')]" {
					t.Errorf("iv_mdn is %s", got)
				}
			})
		}
	}
}

func TestForeignScaledDecimals(t *testing.T) {
	_, _, _, err := readForeign(t, "testdata/foreign/every_type.arrow", &arrowconv.MapOptions{Decimal: arrowconv.DecimalScaledInt64}, false)
	var ue *arrowconv.UnsupportedError
	if !errors.As(err, &ue) || ue.Column != "d128" {
		t.Fatalf("decimal(38) as scaled int64: want an UnsupportedError for d128, got %v", err)
	}
}

func TestForeignDictionaryDeltas(t *testing.T) {
	m := checkForeign(t, "testdata/foreign/dict_delta.arrows", nil, false)
	dt, _ := m.DType()
	if got := dt.String(); got != "[('cat', '<U12'), ('fcat', '<f8')]" {
		t.Errorf("dtype %s", got)
	}
	checkForeign(t, "testdata/foreign/dict_delta.arrows", nil, true)
}

func TestForeignNulls(t *testing.T) {
	path := "testdata/foreign/nulls.arrow"
	_, _, _, err := readForeign(t, path, nil, false)
	var ne *arrowconv.NullError
	if !errors.As(err, &ne) || ne.Column != "n_i32" || ne.Nulls != 2 || ne.Row != 1 {
		t.Fatalf("want a NullError for n_i32 (2 nulls, row 1), got %v", err)
	}
	fill := map[string]any{"n_i32": -1, "n_bool": false, "n_str": "NA", "n_bin": "?"}
	checkForeign(t, path, &arrowconv.MapOptions{Fill: fill}, false)
	checkForeign(t, path, &arrowconv.MapOptions{Fill: fill}, true)
	m := checkForeign(t, path, &arrowconv.MapOptions{ValidityFields: true}, true)
	dt, _ := m.DType()
	want := "[('id', '<i8'), ('n_i32', '<i4'), ('n_i32_valid', '|b1'), ('n_bool', '|b1'), ('n_bool_valid', '|b1'), ('n_str', '<U2'), ('n_str_valid', '|b1'), ('n_bin', '|S1'), ('n_bin_valid', '|b1'), ('n_f64', '<f8'), ('n_f64_valid', '|b1'), ('n_ts', '<M8[ms]'), ('n_ts_valid', '|b1')]"
	if dt.String() != want {
		t.Errorf("dtype %s,\nwant  %s", dt, want)
	}
	_, out, _, err := readForeign(t, path, &arrowconv.MapOptions{ValidityFields: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	exp := loadExpect(t, path)
	for _, c := range exp.Columns[1:] {
		f := fieldNamed(t, dt, arrowconv.ValidityName(c.Name))
		for r, v := range c.Values {
			if got, w := out[r*dt.Size+f.Offset], v != nil; (got == 1) != w || got > 1 {
				t.Errorf("%s row %d: validity %d, want %v", c.Name, r, got, w)
			}
		}
	}
}

func TestForeignRefusals(t *testing.T) {
	_, _, _, err := readForeign(t, "testdata/foreign/ragged.arrow", nil, false)
	var ve *arrowconv.ValueError
	if !errors.As(err, &ve) || ve.Field != "ragged" || ve.Row != 4 || !strings.Contains(err.Error(), "--columns") {
		t.Errorf("ragged lists: want a ValueError for ragged at row 4, got %v", err)
	}
	for _, c := range []struct{ file, col string }{{"map.arrow", "m"}, {"union.arrow", "u"}} {
		_, _, _, err := readForeign(t, "testdata/foreign/"+c.file, nil, false)
		var ue *arrowconv.UnsupportedError
		if !errors.As(err, &ue) || ue.Column != c.col || !strings.Contains(err.Error(), "--columns") {
			t.Errorf("%s: want an UnsupportedError naming %s, got %v", c.file, c.col, err)
		}
	}
}

func TestForeignZeroBatches(t *testing.T) {
	for _, name := range []string{"zero_batches.arrow", "zero_batches.arrows"} {
		m, out, rows, err := readForeign(t, "testdata/foreign/"+name, nil, false)
		if err != nil || rows != 0 || len(out) != 0 {
			t.Fatalf("%s: %d rows, %d bytes, %v", name, rows, len(out), err)
		}
		dt, _ := m.DType()
		if got := dt.String(); got != "[('i8', '|i1'), ('i16', '<i2'), ('i32', '<i4')]" {
			t.Errorf("%s: dtype %s", name, got)
		}
	}
}

var _ = arrow.Null

// TestForeignArrowJS converts the files Arrow JS wrote
// (testdata/gen_arrowjs.mjs): every type it writes, file and stream,
// whole records and slices with offsets, a dictionary two columns share
// (one dictionary batch), and a stream with no batches.
func TestForeignArrowJS(t *testing.T) {
	for _, name := range []string{"arrowjs_every_type.arrow", "arrowjs_every_type.arrows", "arrowjs_shared_dict.arrow", "arrowjs_shared_dict.arrows"} {
		for _, slice := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/slice=%v", name, slice), func(t *testing.T) {
				m := checkForeign(t, filepath.Join("testdata", "foreign", name), nil, slice)
				dt, _ := m.DType()
				want := map[string]string{
					"i64": "<i8", "f16": "<f2", "s": "<U7", "bin": "|S3", "fsb": "|V3", "dec": "<f8", "dec38": "<f8",
					"date_day": "<M8[D]", "date_ms": "<M8[ms]", "ts_us_tz": "<M8[us]", "t_s": "<m8[s]", "t_ns": "<m8[ns]",
					"dur_ms": "<m8[ms]", "dict": "<U8", "from": "<U5", "to": "<U5",
				}
				for _, f := range dt.Fields {
					if w, ok := want[f.Name]; ok && f.Type.TypeStr() != w {
						t.Errorf("field %s is %s, want %s", f.Name, f.Type.TypeStr(), w)
					}
				}
			})
		}
	}
	m, out, rows, err := readForeign(t, "testdata/foreign/arrowjs_zero_batches.arrows", nil, false)
	if err != nil || rows != 0 || len(out) != 0 {
		t.Fatalf("zero batches: %d rows, %d bytes, %v", rows, len(out), err)
	}
	if dt, err := m.DType(); err != nil || len(dt.Fields) != 37 {
		t.Errorf("zero batches: dtype %v, %v", dt, err)
	}
}

// TestWriteMappedNPY writes a foreign file through the pipelined writer
// and reads the .npy back with npyio: the same rows as Encode gives.
func TestWriteMappedNPY(t *testing.T) {
	path := "testdata/foreign/dict_delta.arrows"
	_, want, rows, err := readForeign(t, path, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rr, err := arrowconv.NewIPCReader(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	m, err := arrowconv.MapSchema(rr.Schema(), &arrowconv.MapOptions{StringWidths: map[string]int{"cat": 12}})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "x.npy")
	o, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	n, err := arrowconv.WriteMappedNPY(o, rr, m)
	o.Close()
	if err != nil || n != int64(rows) {
		t.Fatalf("%d rows, %v", n, err)
	}
	a, err := npyio.ReadFile(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Header.Shape[0] != rows || a.Header.DType.String() != "[('cat', '<U12'), ('fcat', '<f8')]" || !bytes.Equal(a.Data, want) {
		t.Errorf("read back %v %s, %d bytes; want %d rows, %d bytes", a.Header.Shape, a.Header.DType, len(a.Data), rows, len(want))
	}
}

// TestIPCFileRecordsOutliveNext keeps every record of a multi-batch IPC
// file (retained) and converts them after the reader has moved on: the
// recycled message bodies must not overwrite data still referenced.
func TestIPCFileRecordsOutliveNext(t *testing.T) {
	path := "testdata/foreign/every_type_lz4.arrows"
	_, want, _, err := readForeign(t, path, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"every_type.arrow", "arrowjs_every_type.arrow"} {
		path := "testdata/foreign/" + name
		_, want, _, err = readForeign(t, path, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rr, err := arrowconv.NewIPCReader(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		var recs []arrow.RecordBatch
		for rr.Next() {
			rec := rr.RecordBatch()
			rec.Retain()
			recs = append(recs, rec)
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
		if len(recs) < 2 {
			t.Fatalf("%s: %d batches, want several", name, len(recs))
		}
		m, err := arrowconv.MapSchema(recs[0].Schema(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			if err := m.Scan(rec); err != nil {
				t.Fatal(err)
			}
		}
		var got []byte
		for _, rec := range recs {
			if got, err = m.Encode(rec, got); err != nil {
				t.Fatal(err)
			}
			rec.Release()
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: records kept past Next convert differently", name)
		}
	}
}

// onlyReader hides Seek and ReadAt: a pipe or standard input.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// TestConvertIPC converts files and a non-seekable stream that needs a
// scan (string widths), through ConvertIPC, and reads the .npy back.
func TestConvertIPC(t *testing.T) {
	for _, c := range []struct {
		name string
		pipe bool
	}{{"every_type.arrow", false}, {"every_type_lz4.arrows", false}, {"every_type_lz4.arrows", true}, {"dict_delta.arrows", true}, {"arrowjs_every_type.arrows", true}, {"every_type.feather", false}} {
		path := "testdata/foreign/" + c.name
		_, want, rows, err := readForeign(t, path, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var in io.Reader = f
		if c.pipe {
			in = onlyReader{f}
		}
		out := filepath.Join(t.TempDir(), "x.npy")
		o, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		n, _, err := arrowconv.ConvertIPC(o, in, nil, t.TempDir(), nil)
		o.Close()
		f.Close()
		if err != nil || n != int64(rows) {
			t.Fatalf("%s (pipe %v): %d rows, %v", c.name, c.pipe, n, err)
		}
		a, err := npyio.ReadFile(out, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Data, want) {
			t.Errorf("%s (pipe %v): the .npy differs from the rows Encode gives", c.name, c.pipe)
		}
	}
}

// TestForeignBigEndian converts IPC files and streams arrow-go writes on a
// big-endian machine (schema marked big-endian, big-endian buffers;
// testdata/gen_foreign.go): every value comes back as arrow-go reads it,
// in native order, whole and sliced.
func TestForeignBigEndian(t *testing.T) {
	for _, name := range []string{"big_endian.arrow", "big_endian.arrows"} {
		for _, slice := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/slice=%v", name, slice), func(t *testing.T) {
				m := checkForeign(t, filepath.Join("testdata", "foreign", name), nil, slice)
				dt, _ := m.DType()
				if got := dt.String(); got != "[('i64', '<i8'), ('i32', '<i4'), ('u16', '<u2'), ('f64', '<f8'), ('f32', '<f4'), ('ts', '<M8[ms]'), ('d32', '<M8[D]'), ('b', '|b1')]" {
					t.Errorf("dtype %s", got)
				}
			})
		}
	}
}

// TestForeignBigEndianMapped converts one-column big-endian IPC files
// arrow-go wrote (int32, float64, duration, an empty batch between two
// others) through ConvertIPC on the file itself, which maps a one-column
// file into memory, and through MapIPC's reader: every value as arrow-go
// reads it, the same .npy as the general reader gives (arrow-go swaps
// big-endian bodies in place, so those must not be views of a read-only
// mapping).
func TestForeignBigEndianMapped(t *testing.T) {
	for _, c := range []struct{ name, dtype string }{
		{"big_endian_i32.arrow", "<i4"}, {"big_endian_f64.arrow", "<f8"}, {"big_endian_dur.arrow", "<m8[ms]"}, {"big_endian.arrow", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join("testdata", "foreign", c.name)
			m := checkForeign(t, path, nil, false)
			_, want, rows, err := readForeign(t, path, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if dt, _ := m.DType(); c.dtype != "" && dt.TypeStr() != c.dtype {
				t.Errorf("dtype %s, want %s", dt.TypeStr(), c.dtype)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			out := filepath.Join(t.TempDir(), "x.npy")
			o, err := os.Create(out)
			if err != nil {
				t.Fatal(err)
			}
			n, _, err := arrowconv.ConvertIPC(o, f, nil, t.TempDir(), nil)
			o.Close()
			if err != nil || n != int64(rows) {
				t.Fatalf("ConvertIPC: %d rows, %v", n, err)
			}
			a, err := npyio.ReadFile(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Data, want) {
				t.Errorf("ConvertIPC's .npy differs from the rows of the general reader")
			}
			mi, err := arrowconv.MapIPC(f, -1)
			if err != nil {
				t.Fatal(err)
			}
			defer mi.Close()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rr, err := mi.NewReader(mem)
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Release()
			var got []byte
			err = mi.Guard(func() error {
				for rr.Next() {
					if got, err = m.Encode(rr.RecordBatch(), got); err != nil {
						return err
					}
				}
				return rr.Err()
			})
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("MapIPC's reader: %v, or rows that differ", err)
			}
		})
	}
}

// TestIPCInfoNullCounts: ReadIPCInfo gives each top-level column's nulls
// from the record batches' metadata, equal to the nulls arrow-go and Arrow
// JS wrote (counted in their JSON), for files and streams, nested columns
// included; unknown (-1) for dictionary columns.
func TestIPCInfoNullCounts(t *testing.T) {
	for _, name := range []string{"nulls.arrow", "every_type.arrow", "every_type_lz4.arrows", "big_endian.arrows", "arrowjs_every_type.arrow", "dict_delta.arrows"} {
		path := filepath.Join("testdata", "foreign", name)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		info, err := arrowconv.ReadIPCInfo(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		exp := loadExpect(t, path)
		if len(info.NullCounts) != len(exp.Columns) {
			t.Fatalf("%s: %d null counts for %d columns", name, len(info.NullCounts), len(exp.Columns))
		}
		nonzero := 0
		for i, c := range exp.Columns {
			want := int64(0)
			for _, v := range c.Values {
				if v == nil {
					want++
				}
			}
			if strings.HasPrefix(c.Type, "dictionary") || strings.HasPrefix(c.Type, "Dictionary") {
				want = -1 // nulls in the dictionary are not counted by the batches
			}
			if info.NullCounts[i] != want {
				t.Errorf("%s: column %s: %d nulls, the producer wrote %d", name, c.Name, info.NullCounts[i], want)
			}
			if want > 0 {
				nonzero++
			}
		}
		if name == "nulls.arrow" && nonzero != 6 {
			t.Errorf("%s: %d columns with nulls", name, nonzero)
		}
	}
}

// TestForeignLoneRecord: Arrow JS's one-column files whose column maps to
// a numpy record (a struct, a day-time interval, a fixed-size list of
// structs; file and stream) keep the column's name, a record of one field
// holding it, as parquetio keeps a lone group's (issue 30): every value
// as Arrow JS reads it back, through Encode (whole and sliced) and
// through ConvertIPC's .npy.
func TestForeignLoneRecord(t *testing.T) {
	for _, c := range []struct{ name, dtype string }{
		{"arrowjs_lone_struct.arrow", "[('pt', [('x', '<i4'), ('y', '<f8')])]"},
		{"arrowjs_lone_struct.arrows", "[('pt', [('x', '<i4'), ('y', '<f8')])]"},
		{"arrowjs_lone_interval.arrow", "[('span', [('days', '<i4'), ('milliseconds', '<i4')])]"},
		{"arrowjs_lone_fsl_struct.arrow", "[('pairs', [('a', '<i2'), ('b', '<i2')], (2,))]"},
	} {
		for _, slice := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/slice=%v", c.name, slice), func(t *testing.T) {
				path := filepath.Join("testdata", "foreign", c.name)
				exp := loadExpect(t, path)
				m, out, rows, err := readForeign(t, path, nil, slice)
				if err != nil {
					t.Fatal(err)
				}
				dt, err := m.DType()
				if err != nil {
					t.Fatal(err)
				}
				if dt.String() != c.dtype || len(m.RowShape()) != 0 {
					t.Fatalf("dtype %s, row shape %v; want %s", dt, m.RowShape(), c.dtype)
				}
				col := exp.Columns[0]
				if len(exp.Columns) != 1 || len(col.Values) != rows || rows == 0 || len(out) != rows*dt.Size {
					t.Fatalf("%d rows, %d bytes; want %d rows of %d", rows, len(out), len(col.Values), dt.Size)
				}
				f := fieldNamed(t, dt, col.Name)
				for r, want := range col.Values {
					if err := checkNumpy(f.Type, f.Shape, out[r*dt.Size+f.Offset:][:f.Size()], want, nil); err != nil {
						t.Errorf("row %d: %v", r, err)
					}
				}
				if slice {
					return
				}
				in, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer in.Close()
				npy := filepath.Join(t.TempDir(), "x.npy")
				o, err := os.Create(npy)
				if err != nil {
					t.Fatal(err)
				}
				n, _, err := arrowconv.ConvertIPC(o, in, nil, t.TempDir(), nil)
				o.Close()
				if err != nil || n != int64(rows) {
					t.Fatalf("ConvertIPC: %d rows, %v", n, err)
				}
				a, err := npyio.ReadFile(npy, nil)
				if err != nil {
					t.Fatal(err)
				}
				if a.Header.DType.String() != c.dtype || !slices.Equal(a.Header.Shape, []int{rows}) || !bytes.Equal(a.Data, out) {
					t.Errorf("ConvertIPC: %s %v, not the rows of Encode", a.Header.DType, a.Header.Shape)
				}
			})
		}
	}
}
