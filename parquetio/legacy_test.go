package parquetio

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLegacyList reads the legacy 2-level list parquet-go writes for a
// slice of structs (a repeated group without LIST annotation, as old
// parquet-mr and Hive write lists): three points in every row read as a
// subarray of structs, as arrowconv maps pqarrow's list<struct>, every
// value as parquet-go reads it back (a null y as NaN); the same file with
// a row of two points is refused naming the rows.
func TestLegacyList(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "foreign", "pgo_legacy_list.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		Rows    int `json:"rows"`
		Columns []struct {
			Name   string `json:"name"`
			Values []any  `json:"values"`
		} `json:"columns"`
	}
	j, err := os.ReadFile(filepath.Join("testdata", "foreign", "pgo_legacy_list.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(j, &exp); err != nil {
		t.Fatal(err)
	}
	width := 0
	for _, row := range exp.Columns[1].Values {
		for _, p := range row.([]any) {
			width = max(width, utf8.RuneCountInString(p.(map[string]any)["tag"].(string)))
		}
	}
	rd, cols, err := readAllColumns(b)
	if err != nil {
		t.Fatal(err)
	}
	got := rd.Columns()
	if len(got) != 2 || got[0].DType.TypeStr() != "<i8" || got[1].Name != "points" || len(got[1].Shape) != 1 || got[1].Shape[0] != 3 {
		t.Fatalf("columns %+v", got)
	}
	if s, want := got[1].DType.String(), "[('x', '<i4'), ('y', '<f8'), ('tag', '<U"+strconv.Itoa(width)+"')]"; s != want {
		t.Fatalf("points is %s, want %s", s, want)
	}
	if rd.Rows() != int64(exp.Rows) || len(cols[0]) != 8*exp.Rows {
		t.Fatalf("%d rows, want %d", rd.Rows(), exp.Rows)
	}
	dt := got[1].DType
	size := got[1].RowSize()
	for r := 0; r < exp.Rows; r++ {
		if id := int64(binary.LittleEndian.Uint64(cols[0][8*r:])); strconv.FormatInt(id, 10) != exp.Columns[0].Values[r] {
			t.Errorf("row %d: id %d, want %v", r, id, exp.Columns[0].Values[r])
		}
		for k, p := range exp.Columns[1].Values[r].([]any) {
			want := p.(map[string]any)
			e := cols[1][r*size+k*dt.Size:][:dt.Size]
			x := int32(binary.LittleEndian.Uint32(e[dt.Fields[0].Offset:]))
			y := math.Float64frombits(binary.LittleEndian.Uint64(e[dt.Fields[1].Offset:]))
			var tag strings.Builder
			for i := dt.Fields[2].Offset; i < dt.Fields[2].Offset+dt.Fields[2].Type.Size; i += 4 {
				if c := rune(binary.LittleEndian.Uint32(e[i:])); c != 0 {
					tag.WriteRune(c)
				}
			}
			wy, isNull := math.NaN(), want["y"] == nil
			if !isNull {
				wy, _ = strconv.ParseFloat(want["y"].(string), 64)
			}
			if strconv.Itoa(int(x)) != want["x"] || isNull != math.IsNaN(y) || !isNull && y != wy || tag.String() != want["tag"] {
				t.Errorf("row %d, point %d: (%d, %v, %q), want %v", r, k, x, y, tag.String(), want)
			}
		}
	}
	bad, err := os.ReadFile(filepath.Join("testdata", "foreign", "pgo_legacy_list_ragged.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = readAllColumns(bad)
	var re *RefusedError
	if !errors.As(err, &re) || re.Column != "points" || !strings.Contains(err.Error(), "lists of varying length (row 0 holds 3 values, row 5 holds 2)") {
		t.Fatalf("ragged lists: %v", err)
	}
}
