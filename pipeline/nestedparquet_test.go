package pipeline

import (
	"context"
	"encoding/binary"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// TestConvertNestedParquet converts files of issue 30
// (parquetio/testdata/foreign/gen_nested.mjs) to .npy as the CLI does: a
// polars list<list<i32>> gives (rows, 2, 3) i4 with the values DuckDB
// reads, a one-column arrow-rs interval keeps its name, DuckDB's column
// of empty lists gives (rows, 0) (rows of no bytes), and a column of the
// Null type is refused naming it, leaving no output.
func TestConvertNestedParquet(t *testing.T) {
	dir := t.TempDir()
	foreign := func(name string) string {
		return abs(t, filepath.Join("..", "parquetio", "testdata", "foreign", name))
	}
	a := convertOne(t, dir, foreign("pl_list_list.parquet"), ConvertOptions{})
	if a.Header.DType.TypeStr() != "<i4" || !slices.Equal(a.Header.Shape, []int{6, 2, 3}) {
		t.Fatalf("pl_list_list: %s %v", a.Header.DType, a.Header.Shape)
	}
	want := producerColumns(t, foreign("pl_list_list.json"))["ll"]
	k := 0
	for r, row := range want {
		for _, inner := range row.([]any) {
			for _, v := range inner.([]any) {
				got := int32(binary.LittleEndian.Uint32(a.Data[4*k:]))
				if float64(got) != v.(float64) {
					t.Fatalf("pl_list_list row %d: %d, DuckDB reads %v", r, got, v)
				}
				k++
			}
		}
	}
	if k != 36 {
		t.Fatalf("%d values checked", k)
	}

	a = convertOne(t, dir, foreign("rs_interval_ym.parquet"), ConvertOptions{})
	if dt := a.Header.DType; dt.Kind != npyio.Struct || len(dt.Fields) != 1 || dt.Fields[0].Name != "ym" || dt.Fields[0].Type.Fields[0].Name != "months" {
		t.Fatalf("rs_interval_ym: %s", dt)
	}
	ym := producerColumns(t, foreign("rs_interval_ym.json"))["ym"]
	for r := range 6 {
		got := binary.LittleEndian.Uint32(a.Data[12*r:])
		if float64(got) != ym[r].([]any)[0].(float64) {
			t.Fatalf("rs_interval_ym row %d: %d months, DuckDB reads %v", r, got, ym[r])
		}
	}

	a = convertOne(t, dir, foreign("duckone_empty_lists.parquet"), ConvertOptions{})
	if a.Header.DType.TypeStr() != "<i4" || !slices.Equal(a.Header.Shape, []int{6, 0}) || len(a.Data) != 0 {
		t.Fatalf("duckone_empty_lists: %s %v, %d bytes", a.Header.DType, a.Header.Shape, len(a.Data))
	}

	out := filepath.Join(dir, "null.npy")
	_, err := Convert(context.Background(), foreign("rs_null_type.parquet"), out, &ConvertOptions{})
	if err == nil || !strings.Contains(err.Error(), "column nothing") || !strings.Contains(err.Error(), "null type") {
		t.Fatalf("rs_null_type: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "null*")); len(m) > 0 {
		t.Fatalf("output left: %v", m)
	}
}
