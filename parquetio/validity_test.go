package parquetio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// jsonValue decodes a value DuckDB wrote as JSON (to_json), numbers kept
// as their text; nil for SQL NULL.
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		return nil
	}
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return out
}

// checkShown compares one element b of dt (validity fields included)
// with the producer's value v (nil: null): a field f followed by f_valid
// must have f_valid false exactly where the producer reads a null, and
// its null slots hold NaN (floats) or zeros (fill: the fill's bytes).
func checkShown(dt *npyio.DType, shape []int, b []byte, v any, fill []byte) error {
	if len(shape) > 0 {
		items, _ := v.([]any)
		if v != nil && len(items) != shape[0] {
			return fmt.Errorf("%d items for shape %v", len(items), shape)
		}
		for k := 0; k < shape[0]; k++ {
			var it any
			if v != nil {
				it = items[k]
			}
			if err := checkShown(dt, nil, b[k*dt.Size:(k+1)*dt.Size], it, fill); err != nil {
				return fmt.Errorf("item %d: %w", k, err)
			}
		}
		return nil
	}
	if dt.Kind == npyio.Struct {
		m, _ := v.(map[string]any)
		for k, f := range dt.Fields {
			if k > 0 && f.Name == dt.Fields[k-1].Name+"_valid" {
				continue
			}
			var sub any
			if m != nil {
				sub = m[f.Name]
			}
			fb := b[f.Offset : f.Offset+f.Type.Size*prod(f.Shape)]
			if k+1 < len(dt.Fields) && dt.Fields[k+1].Name == f.Name+"_valid" {
				want := byte(0)
				if sub != nil {
					want = 1
				}
				if got := b[dt.Fields[k+1].Offset]; got != want {
					return fmt.Errorf("%s_valid %d, want %d (producer: %v)", f.Name, got, want, sub)
				}
			}
			if err := checkShown(f.Type, f.Shape, fb, sub, nil); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
		return nil
	}
	if v == nil {
		switch {
		case fill != nil:
			if !bytes.Equal(b, fill) {
				return fmt.Errorf("null as % x, want the fill % x", b, fill)
			}
		case dt.Kind == npyio.Float:
			if !math.IsNaN(math.Float64frombits(le(b))) {
				return fmt.Errorf("null as % x, want NaN", b)
			}
		default:
			if !bytes.Equal(b, make([]byte, len(b))) {
				return fmt.Errorf("null as % x, want zeros", b)
			}
		}
		return nil
	}
	want := v
	switch x := v.(type) {
	case json.Number:
		want = x.String()
	case bool:
		want = fmt.Sprint(x)
	}
	pt := "BIGINT"
	if dt.Kind == npyio.Float {
		pt = "DOUBLE"
	}
	return checkForeignValue(dt, pt, b, want)
}

// TestValidityNested: DuckDB's struct column whose rows, nested struct
// and fields are null (duck_struct_nulls) and its lists of one length
// (LIST and fixed-size ARRAY) with null rows (duck_list_nulls), read with
// validity fields: st_valid after the struct, x_valid after each OPTIONAL
// field x inside it (at every depth), l_valid after a list; every value
// and every validity byte is DuckDB's reading (to_json of the row), read
// as records (Next) and as columns (NextColumns).
func TestValidityNested(t *testing.T) {
	for _, tc := range []struct {
		file     string
		validity []string
		dtype    string
	}{
		{"duck_struct_nulls.parquet", []string{"st"}, "[('k', '<i8'), ('st', [('a', '<i8'), ('a_valid', '|b1'), ('b', [('x', '<f8'), ('x_valid', '|b1'), ('y', '|b1'), ('y_valid', '|b1')]), ('b_valid', '|b1'), ('s', '<U3'), ('s_valid', '|b1')]), ('st_valid', '|b1')]"},
		{"duck_struct_nulls.parquet", []string{"*"}, "[('k', '<i8'), ('k_valid', '|b1'), ('st', [('a', '<i8'), ('a_valid', '|b1'), ('b', [('x', '<f8'), ('x_valid', '|b1'), ('y', '|b1'), ('y_valid', '|b1')]), ('b_valid', '|b1'), ('s', '<U3'), ('s_valid', '|b1')]), ('st_valid', '|b1')]"},
		{"duck_list_nulls.parquet", []string{"l3", "a2"}, "[('k', '<i8'), ('l3', '<i8', (3,)), ('l3_valid', '|b1'), ('l2f', '<f8', (2,)), ('a2', '<i4', (2,)), ('a2_valid', '|b1')]"},
		{"duck_list_nulls.parquet", []string{"*"}, "[('k', '<i8'), ('k_valid', '|b1'), ('l3', '<i8', (3,)), ('l3_valid', '|b1'), ('l2f', '<f8', (2,)), ('l2f_valid', '|b1'), ('a2', '<i4', (2,)), ('a2_valid', '|b1')]"},
	} {
		for _, records := range []bool{true, false} {
			ff, rd, data := readCorpus(t, tc.file, &ReadOptions{Validity: tc.validity}, records)
			dt := rd.Header().DType
			if got := dt.String(); got != tc.dtype {
				t.Fatalf("%s %v: dtype %s, want %s", tc.file, tc.validity, got, tc.dtype)
			}
			if !records {
				// The columns of NextColumns, interleaved, are the records.
				cols := rd.Columns()
				if len(cols) != len(dt.Fields) {
					t.Fatalf("%d columns for %d fields", len(cols), len(dt.Fields))
				}
				rec := make([]byte, ff.Rows*dt.Size)
				for k, f := range dt.Fields {
					w := cols[k].RowSize()
					if len(data[k]) != ff.Rows*w {
						t.Fatalf("column %s: %d bytes", f.Name, len(data[k]))
					}
					for r := 0; r < ff.Rows; r++ {
						copy(rec[r*dt.Size+f.Offset:], data[k][r*w:(r+1)*w])
					}
				}
				data = [][]byte{rec}
			}
			nulls, checked := 0, 0
			for r := 0; r < ff.Rows; r++ {
				row := map[string]any{}
				for _, c := range ff.Columns {
					v := c.Values[r]
					if c.Type != "BIGINT" {
						v = jsonValue(t, v)
					}
					row[c.Name] = v
					if v == nil {
						nulls++
					}
				}
				if err := checkShown(dt, nil, data[0][r*dt.Size:(r+1)*dt.Size], row, nil); err != nil {
					t.Fatalf("%s %v (records %v) row %d: %v", tc.file, tc.validity, records, r, err)
				}
				checked++
			}
			if nulls == 0 || checked != ff.Rows {
				t.Fatalf("%s: %d null rows, %d rows checked", tc.file, nulls, checked)
			}
		}
	}
}

// TestListNullRows: without a validity field, the null rows of a list
// of floats are NaN values (DuckDB's l2f), a list of integers with null
// rows is refused naming it and its first null row, and with a fill value
// a null row holds the fill in every place.
func TestListNullRows(t *testing.T) {
	ff, rd, data := readCorpus(t, "duck_list_nulls.parquet", &ReadOptions{Columns: []string{"l2f", "a2"}, Fill: map[string]any{"a2": -9}}, true)
	dt := rd.Header().DType
	if got := dt.String(); got != "[('l2f', '<f8', (2,)), ('a2', '<i4', (2,))]" {
		t.Fatalf("dtype %s", got)
	}
	fill := []byte{0xf7, 0xff, 0xff, 0xff}
	for r := 0; r < ff.Rows; r++ {
		row := map[string]any{}
		for _, c := range ff.Columns {
			row[c.Name] = jsonValue(t, c.Values[r])
		}
		b := data[0][r*dt.Size : (r+1)*dt.Size]
		if err := checkShown(dt.Fields[0].Type, dt.Fields[0].Shape, b[:16], row["l2f"], nil); err != nil {
			t.Fatalf("row %d l2f: %v", r, err)
		}
		if err := checkShown(dt.Fields[1].Type, dt.Fields[1].Shape, b[16:], row["a2"], fill); err != nil {
			t.Fatalf("row %d a2: %v", r, err)
		}
	}
	b := readFile(t, "duck_list_nulls.parquet")
	rd, err := NewReaderOptions(bytes.NewReader(b), int64(len(b)), &ReadOptions{Columns: []string{"a2"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = rd.Next(100)
	if err == nil || !strings.Contains(err.Error(), "column a2.list.element holds 12 nulls") || !strings.Contains(err.Error(), "first in row 4") {
		t.Fatalf("a2 without options: %v", err)
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "foreign", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
