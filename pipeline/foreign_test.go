package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/parquet-go/parquet-go"
)

// Files other tools wrote (DuckDB, arrow-go) with the values the producer
// reads back; see parquetio/testdata/foreign/gen_duckdb.mjs and
// arrowconv/testdata/gen_foreign.go.
const (
	duckNulls  = "../parquetio/testdata/foreign/duck_int_nulls.parquet"
	duckTypes  = "../parquetio/testdata/foreign/duck_types.parquet"
	arrowNulls = "../arrowconv/testdata/foreign/nulls.arrow"
)

func abs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// producerColumns reads the column values of a corpus expectation file.
func producerColumns(t *testing.T, path string) map[string][]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Columns []struct {
			Name   string `json:"name"`
			Values []any  `json:"values"`
		} `json:"columns"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	out := map[string][]any{}
	for _, c := range f.Columns {
		out[c.Name] = c.Values
	}
	return out
}

// fieldInt reads field name of row r of an .npy array as an integer.
func fieldInt(t *testing.T, a *npyio.Array, name string, r int) int64 {
	t.Helper()
	for _, f := range a.Header.DType.Fields {
		if f.Name == name {
			b := a.CData()[r*a.Header.DType.Size+f.Offset:]
			switch f.Type.Size {
			case 1:
				return int64(int8(b[0]))
			case 4:
				return int64(int32(binary.LittleEndian.Uint32(b)))
			case 8:
				return int64(binary.LittleEndian.Uint64(b))
			}
			t.Fatalf("field %s of %d bytes", name, f.Type.Size)
		}
	}
	t.Fatalf("no field %s in %s", name, a.Header.DType)
	return 0
}

// TestConvertForeignOptions: convert and a one-source job read DuckDB's
// int/bool/string columns with nulls the same way: refused by default
// naming the column and its first null row; with --fill and --validity
// every value is DuckDB's, nulls are the fill or flagged in <col>_valid,
// and the job (fill/validity on its source) writes the same bytes.
func TestConvertForeignOptions(t *testing.T) {
	dir := t.TempDir()
	_, err := Convert(context.Background(), duckNulls, filepath.Join(dir, "x.npy"), nil)
	if err == nil || !strings.Contains(err.Error(), "column i4n") || !strings.Contains(err.Error(), "row 0") || !strings.Contains(err.Error(), "--fill") {
		t.Fatalf("%v, want i4n's nulls refused from row 0, naming --fill", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.npy")); err == nil {
		t.Fatal("a refused conversion left its output")
	}
	opts := &ConvertOptions{Flags: map[string]string{"fill": "i4n=-7", "validity": "*"}}
	conv := filepath.Join(dir, "conv.npy")
	if _, err := Convert(context.Background(), duckNulls, conv, opts); err != nil {
		t.Fatal(err)
	}
	a, err := npyio.ReadFile(conv, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := producerColumns(t, strings.TrimSuffix(duckNulls, ".parquet")+".json")
	nulls := 0
	for r, v := range want["i4n"] {
		got, valid := fieldInt(t, a, "i4n", r), fieldInt(t, a, "i4n_valid", r)
		w := int64(-7)
		if v != nil {
			w, _ = strconv.ParseInt(v.(string), 10, 64)
		} else {
			nulls++
		}
		if got != w || (valid == 1) != (v != nil) {
			t.Fatalf("row %d: i4n %d valid %d, DuckDB reads %v", r, got, valid, v)
		}
	}
	for r, v := range want["bn"] {
		got, valid := fieldInt(t, a, "bn", r), fieldInt(t, a, "bn_valid", r)
		if (valid == 1) != (v != nil) || v != nil && (got == 1) != (v == "true") {
			t.Fatalf("row %d: bn %d valid %d, DuckDB reads %v", r, got, valid, v)
		}
	}
	if nulls != 30 {
		t.Fatalf("%d nulls in i4n", nulls)
	}
	// The same options on a job's source.
	jobMatchesConvert(t, dir, fmt.Sprintf("{type: parquet, paths: %q, fill: {i4n: '-7'}, validity: ['*']}", abs(t, duckNulls)), conv)
	for _, bad := range []*ConvertOptions{{Flags: map[string]string{"fill": "i4n"}}, {Flags: map[string]string{"decimal": "int"}}} {
		if _, err := Convert(context.Background(), duckNulls, filepath.Join(dir, "bad.npy"), bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if _, err := Convert(context.Background(), conv, filepath.Join(dir, "bad.parquet"), &ConvertOptions{Flags: map[string]string{"validity": "*"}}); err == nil {
		t.Error("--validity accepted for an .npy input")
	}
}

// TestConvertForeignArrow: arrow-go's IPC file with nulls in int, bool,
// string, binary columns: refused by default naming the column; with
// --validity and --fill the values are arrow-go's, strings as wide as the
// longest (a pass over the data); the job source gives the same bytes.
func TestConvertForeignArrow(t *testing.T) {
	dir := t.TempDir()
	_, err := Convert(context.Background(), arrowNulls, filepath.Join(dir, "x.npy"), nil)
	if err == nil || !strings.Contains(err.Error(), `"n_i32"`) {
		t.Fatalf("%v, want n_i32's nulls refused", err)
	}
	opts := &ConvertOptions{Flags: map[string]string{"validity": "n_i32,n_bool,n_bin", "fill": "n_str=?"}}
	conv := filepath.Join(dir, "conv.npy")
	if _, err := Convert(context.Background(), arrowNulls, conv, opts); err != nil {
		t.Fatal(err)
	}
	a, err := npyio.ReadFile(conv, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := producerColumns(t, arrowNulls+".json")
	for r, v := range want["n_i32"] {
		got, valid := fieldInt(t, a, "n_i32", r), fieldInt(t, a, "n_i32_valid", r)
		if v == nil {
			if valid != 0 {
				t.Fatalf("row %d: null marked valid", r)
			}
			continue
		}
		if w, _ := strconv.ParseInt(v.(string), 10, 64); got != w || valid != 1 {
			t.Fatalf("row %d: %d (valid %d), arrow-go %v", r, got, valid, v)
		}
	}
	var strField *npyio.Field
	for i, f := range a.Header.DType.Fields {
		if f.Name == "n_str" {
			strField = &a.Header.DType.Fields[i]
		}
		if f.Name == "n_str_valid" || f.Name == "id_valid" {
			t.Errorf("field %s without asking", f.Name)
		}
	}
	if strField == nil || strField.Type.Kind != npyio.Unicode {
		t.Fatalf("dtype %s", a.Header.DType)
	}
	longest := 1
	for _, v := range want["n_str"] {
		if s, ok := v.(string); ok {
			longest = max(longest, len([]rune(s)))
		}
	}
	if strField.Type.Size != 4*longest {
		t.Errorf("n_str is %s, the longest value has %d characters", strField.Type, longest)
	}
	for r, v := range want["n_str"] {
		b := a.CData()[r*a.Header.DType.Size+strField.Offset:][:strField.Type.Size]
		var sb strings.Builder
		for k := 0; k < len(b); k += 4 {
			if c := binary.LittleEndian.Uint32(b[k:]); c != 0 {
				sb.WriteRune(rune(c))
			}
		}
		w := "?"
		if v != nil {
			w = v.(string)
		}
		if sb.String() != w {
			t.Fatalf("n_str row %d: %q, want %q", r, sb.String(), w)
		}
	}
	jobMatchesConvert(t, dir, fmt.Sprintf("{type: arrow, paths: %q, fill: {n_str: '?'}, validity: [n_i32, n_bool, n_bin]}", abs(t, arrowNulls)), conv)
}

// TestInspectForeign: inspect shows each column's own type, its numpy
// dtype, and refusals with reasons, from the footer or schema alone.
func TestInspectForeign(t *testing.T) {
	ins, err := Inspect(context.Background(), duckTypes, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	ins.WriteText(&sb)
	text := sb.String()
	for _, want := range []string{
		"dec10_2          DECIMAL(10,2) (INT64) -> <f8",
		"dec21_1          DECIMAL(21,1) (FIXED_LEN_BYTE_ARRAY(16)) -> <f8",
		"t                TIME(us) (INT64) -> <m8[us]",
		"tstz             TIMESTAMP(us, UTC) (INT64) -> <M8[us]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no line %q in\n%s", want, text)
		}
	}
	ins, err = Inspect(context.Background(), duckNulls, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := asTable(ins).Columns[0]
	if c.Name != "i4n" || c.NullCount == nil || *c.NullCount != 30 || !strings.Contains(c.Refused, "30 nulls") {
		t.Errorf("%+v", c)
	}
	ins, err = Inspect(context.Background(), "../parquetio/testdata/foreign/duck_map.parquet", nil)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, c := range asTable(ins).Columns {
		if strings.HasPrefix(c.Name, "m.") && strings.Contains(c.Refused, "MAP") {
			refused++
		}
	}
	if refused == 0 {
		t.Errorf("map not refused: %+v", asTable(ins).Columns)
	}
	ins, err = Inspect(context.Background(), arrowNulls, nil)
	if err != nil {
		t.Fatal(err)
	}
	sb.Reset()
	ins.WriteText(&sb)
	for _, want := range []string{"n_i32            int32 REFUSED: holds 2 nulls and numpy <i4 has no null", "n_f64            float64 -> <f8  [nullable, 2 nulls]\n", "id               int64 -> <i8\n"} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("no %q in\n%s", want, sb.String())
		}
	}
}

// TestConvertBadCRC: a page whose CRC does not match (parquet-go's file
// with one bit flipped; parquet-go refuses it too) is refused naming the
// file, the column and the CRC; nothing is written.
func TestConvertBadCRC(t *testing.T) {
	in := "../parquetio/testdata/foreign/pgo_crc_bad.parquet"
	out := filepath.Join(t.TempDir(), "x.npy")
	_, err := Convert(context.Background(), in, out, nil)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != in || !strings.Contains(err.Error(), "column id") || !strings.Contains(err.Error(), "CRC") {
		t.Fatalf("%v, want the CRC mismatch of column id in %s", err, in)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("output left")
	}
}

// TestConvertArrowDefaults: .arrow is written uncompressed by default (as
// pyarrow.ipc and Polars write it: memory-mappable), .feather with LZ4 (as
// pyarrow.feather); both read back equal.
func TestConvertArrowDefaults(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "z.npy")
	data := make([]byte, 8<<20) // 1Mi zeros, float64
	var buf bytes.Buffer
	if err := npyio.WriteArray(&buf, &npyio.Array{Header: &npyio.Header{DType: npyio.Float64Type, Shape: []int{1 << 20}}, DType: npyio.Float64Type, Data: data}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for ext, small := range map[string]bool{".arrow": false, ".feather": true} {
		out := filepath.Join(dir, "z"+ext)
		if _, err := Convert(context.Background(), in, out, nil); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		if (st.Size() < 1<<20) != small {
			t.Errorf("%s: %d bytes for 8 MiB of zeros (compressed: %v wanted)", ext, st.Size(), small)
		}
		back := filepath.Join(dir, "back"+ext+".npy")
		if _, err := Convert(context.Background(), out, back, nil); err != nil {
			t.Fatal(err)
		}
		a, err := npyio.ReadFile(back, nil)
		if err != nil || !bytes.Equal(a.CData(), data) {
			t.Errorf("%s: not read back equal (%v)", ext, err)
		}
	}
}

// TestConvertColumns: --columns reads only the named columns, in that
// order, so a column numpy has no type for (DuckDB's MAP, arrow-go's map)
// does not stop the rest; the job source's columns option gives the same
// bytes; the refusal of the whole file points at the option.
func TestConvertColumns(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ in, keep string }{
		{"../parquetio/testdata/foreign/duck_map.parquet", "k"},
		{"../arrowconv/testdata/foreign/map.arrow", "id"},
	} {
		out := filepath.Join(dir, "x.npy")
		_, err := Convert(context.Background(), c.in, out, nil)
		if err == nil || !strings.Contains(err.Error(), "--columns") {
			t.Fatalf("%s: %v, want the map refused, pointing at --columns", c.in, err)
		}
		if _, err := Convert(context.Background(), c.in, out, &ConvertOptions{Flags: map[string]string{"columns": strings.Join([]string{c.keep}, ",")}}); err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		a, err := npyio.ReadFile(out, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := producerColumns(t, strings.TrimSuffix(c.in, ".parquet")+".json")
		if strings.HasSuffix(c.in, ".arrow") {
			want = producerColumns(t, c.in+".json")
		}
		vals := want[c.keep]
		if a.Header.DType.Kind != npyio.Int || len(a.Header.Shape) != 1 || a.Header.Shape[0] != len(vals) {
			t.Fatalf("%s: %s %v for %d values", c.in, a.Header.DType, a.Header.Shape, len(vals))
		}
		for r, v := range vals {
			if got := int64(binary.LittleEndian.Uint64(a.CData()[8*r:])); strconv.FormatInt(got, 10) != v.(string) {
				t.Fatalf("%s row %d: %d, want %v", c.in, r, got, v)
			}
		}
	}
	// Reordered, and the same bytes from a job.
	conv := filepath.Join(dir, "conv.npy")
	if _, err := Convert(context.Background(), arrowNulls, conv, &ConvertOptions{Flags: map[string]string{"columns": "n_f64,id"}}); err != nil {
		t.Fatal(err)
	}
	a, err := npyio.ReadFile(conv, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Header.DType.String(); got != "[('n_f64', '<f8'), ('id', '<i8')]" {
		t.Fatalf("dtype %s", got)
	}
	jobMatchesConvert(t, dir, fmt.Sprintf("{type: arrow, paths: %q, columns: [n_f64, id]}", abs(t, arrowNulls)), conv)
	if _, err := Convert(context.Background(), arrowNulls, conv, &ConvertOptions{Flags: map[string]string{"columns": "nope"}}); err == nil || !strings.Contains(err.Error(), "n_i32") {
		t.Errorf("unknown column: %v", err)
	}
}

// TestParquetSourceWidths: two Parquet files parquet-go wrote whose longest
// strings differ (2 and 6 characters) are one source: every row reads at
// the widest, the shorter strings padded, values as written.
func TestParquetSourceWidths(t *testing.T) {
	dir := t.TempDir()
	type row struct {
		ID int64  `parquet:"id"`
		S  string `parquet:"s"`
	}
	parts := [][]row{{{1, "ab"}, {2, "c"}}, {{3, "abcdef"}, {4, ""}, {5, "xyz"}}}
	for i, rows := range parts {
		var buf bytes.Buffer
		w := parquet.NewGenericWriter[row](&buf)
		if _, err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%d.parquet", i)), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := fmt.Sprintf("version: 1\nsources:\n  s: {type: parquet, paths: [%q]}\nsinks:\n  o: {type: npy, input: s, path: %q}\n", filepath.Join(dir, "p*.parquet"), filepath.Join(dir, "out.npy"))
	jb, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(context.Background(), jb, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Run(context.Background(), &RunOptions{}); err != nil {
		t.Fatal(err)
	}
	a, err := npyio.ReadFile(filepath.Join(dir, "out.npy"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Header.DType.String(); got != "[('id', '<i8'), ('s', '<U6')]" {
		t.Fatalf("dtype %s", got)
	}
	r := 0
	for _, rows := range parts {
		for _, want := range rows {
			b := a.CData()[r*a.Header.DType.Size:][:a.Header.DType.Size]
			var sb strings.Builder
			for k := 8; k < len(b); k += 4 {
				if c := rune(binary.LittleEndian.Uint32(b[k:])); c != 0 {
					sb.WriteRune(c)
				}
			}
			if id := int64(binary.LittleEndian.Uint64(b)); id != want.ID || sb.String() != want.S {
				t.Fatalf("row %d: %d %q, want %d %q", r, id, sb.String(), want.ID, want.S)
			}
			r++
		}
	}
}

// jobMatchesConvert runs a job of one source (source: its YAML flow
// mapping) and an npy sink, and requires the bytes the convert call wrote
// to conv.
func jobMatchesConvert(t *testing.T, dir, source, conv string) {
	t.Helper()
	out := filepath.Join(dir, "job.npy")
	text := fmt.Sprintf("version: 1\nsources:\n  s: %s\nsinks:\n  o: {type: npy, input: s, path: %q}\n", source, out)
	runJobText(t, dir, text)
	w, _ := os.ReadFile(conv)
	g, _ := os.ReadFile(out)
	if !bytes.Equal(w, g) {
		t.Fatalf("the job wrote %d bytes, convert %d: they differ", len(g), len(w))
	}
}
