package parquetio

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// nestedFile is the JSON next to each file gen_nested.mjs writes: the
// values as DuckDB reads them, and what parquetio must make of the file.
type nestedFile struct {
	File   string `json:"file"`
	Rows   int    `json:"rows"`
	Note   string `json:"note"`
	Expect struct {
		DType  json.RawMessage `json:"dtype"`
		Shape  []int           `json:"shape"`
		Refuse *struct {
			Column string `json:"column"`
			Row    *int   `json:"row"`
			Word   string `json:"word"`
		} `json:"refuse"`
	} `json:"expect"`
	Columns []struct {
		Name     string `json:"name"`
		DuckType string `json:"duck_type"`
		Values   []any  `json:"values"`
	} `json:"columns"`
}

// pyDescr turns the JSON form of a numpy descr (a type string, or a list
// of [name, descr] or [name, descr, shape]) into numpy's own text.
func pyDescr(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return "'" + v + "'", nil
	case []any:
		var parts []string
		for _, f := range v {
			fl, ok := f.([]any)
			if !ok || len(fl) < 2 {
				return "", fmt.Errorf("bad field %v", f)
			}
			sub, err := pyDescr(fl[1])
			if err != nil {
				return "", err
			}
			p := fmt.Sprintf("('%s', %s", fl[0], sub)
			if len(fl) == 3 {
				var dims []string
				for _, d := range fl[2].([]any) {
					dims = append(dims, fmt.Sprint(d))
				}
				p += ", (" + strings.Join(dims, ", ") + ",)"
			}
			parts = append(parts, p+")")
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	}
	return "", fmt.Errorf("bad descr %v", v)
}

// checkNumpyValue compares one element of dt with shape (at b) with a
// value as DuckDB shows it: lists as arrays, structs as objects, an
// INTERVAL as [months, days, microseconds].
func checkNumpyValue(dt *npyio.DType, shape []int, b []byte, want any) error {
	if want == nil && dt.Kind == npyio.Float && dt.Size == 8 {
		// A null list: NaN in every place.
		n := 1
		for _, d := range shape {
			n *= d
		}
		for i := 0; i < n; i++ {
			if v := math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])); !math.IsNaN(v) {
				return fmt.Errorf("%v in a null list, want NaN", v)
			}
		}
		return nil
	}
	if len(shape) > 0 {
		l, ok := want.([]any)
		if !ok || len(l) != shape[0] {
			return fmt.Errorf("numpy holds %d values along an axis, DuckDB reads %v", shape[0], want)
		}
		stride := dt.Size
		for _, d := range shape[1:] {
			stride *= d
		}
		for i, w := range l {
			if err := checkNumpyValue(dt, shape[1:], b[i*stride:], w); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	}
	switch dt.Kind {
	case npyio.Struct:
		if isIntervalDT(dt) {
			l, ok := want.([]any)
			if !ok || len(l) != 3 {
				return fmt.Errorf("an INTERVAL, DuckDB reads %v", want)
			}
			got := []float64{float64(binary.LittleEndian.Uint32(b)), float64(binary.LittleEndian.Uint32(b[4:])), float64(binary.LittleEndian.Uint32(b[8:])) * 1000}
			for i := range got {
				if got[i] != l[i].(float64) {
					return fmt.Errorf("INTERVAL %v (months, days, microseconds), DuckDB reads %v", got, l)
				}
			}
			return nil
		}
		m, ok := want.(map[string]any)
		if !ok {
			return fmt.Errorf("a struct, DuckDB reads %v", want)
		}
		for _, f := range dt.Fields {
			if err := checkNumpyValue(f.Type, f.Shape, b[f.Offset:], m[f.Name]); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
		}
		return nil
	case npyio.Float:
		if dt.Size != 8 {
			return fmt.Errorf("unexpected %s", dt)
		}
		got := math.Float64frombits(binary.LittleEndian.Uint64(b))
		if w, ok := want.(float64); !ok || got != w {
			return fmt.Errorf("%v, DuckDB reads %v", got, want)
		}
		return nil
	case npyio.Int:
		var got int64
		switch dt.Size {
		case 4:
			got = int64(int32(binary.LittleEndian.Uint32(b)))
		case 8:
			got = int64(binary.LittleEndian.Uint64(b))
		default:
			return fmt.Errorf("unexpected %s", dt)
		}
		w, ok := want.(float64)
		if !ok || float64(got) != w || math.Abs(w) > 1<<52 {
			return fmt.Errorf("%d, DuckDB reads %v", got, want)
		}
		return nil
	}
	return fmt.Errorf("no check for %s", dt)
}

// TestForeignNested reads the files of issue 30 (gen_nested.mjs): fixed
// length lists in structs, in lists and in fixed-size lists from
// polars, arrow-rs and hyparquet become nested subarrays, a one-column
// INTERVAL keeps its name, and every refusal (lists of varying length, a
// null inner list, a column of the Null type) names the column, the
// reason and the row; every value as DuckDB reads it.
func TestForeignNested(t *testing.T) {
	var paths []string
	for _, g := range []string{"pl_*.json", "rs_*.json", "hyp_*.json", "ptlist_*.json", "duckone_*.json"} {
		p, err := filepath.Glob(filepath.Join("testdata", "foreign", g))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p...)
	}
	if len(paths) < 16 {
		t.Fatalf("%d fixtures of gen_nested.mjs", len(paths))
	}
	for _, p := range paths {
		var nf nestedFile
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &nf); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		t.Run(nf.File, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "foreign", nf.File))
			if err != nil {
				t.Fatal(err)
			}
			got, h, err := readWhole(data)
			if ref := nf.Expect.Refuse; ref != nil {
				if err == nil {
					t.Fatalf("read as %s %v, want a refusal naming %s", h.DType, h.Shape, ref.Column)
				}
				msg := err.Error()
				if !strings.Contains(msg, "column "+ref.Column) || !strings.Contains(msg, ref.Word) {
					t.Errorf("refusal %q names not column %s and %q", msg, ref.Column, ref.Word)
				}
				if ref.Row != nil && !strings.Contains(msg, fmt.Sprintf("row %d ", *ref.Row)) {
					t.Errorf("refusal %q names not row %d", msg, *ref.Row)
				}
				if strings.Count(msg, "\n") > 0 || strings.Contains(msg, "corrupt") {
					t.Errorf("refusal %q: not one line, or calls the file corrupt", msg)
				}
				if ref.Word == "null type" {
					// inspect says so from the footer alone.
					info, err := Describe(bytes.NewReader(data), int64(len(data)))
					if err != nil {
						t.Fatal(err)
					}
					found := false
					for _, c := range info.Columns {
						if (c.Path == ref.Column || strings.HasPrefix(c.Path, ref.Column+".")) && strings.Contains(c.Refused, ref.Word) && c.DType == "" {
							found = true
						}
					}
					if !found {
						t.Errorf("Describe does not refuse %s for the null type: %+v", ref.Column, info.Columns)
					}
				}
				t.Logf("%s: %v", nf.Note, err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var dv any
			if err := json.Unmarshal(nf.Expect.DType, &dv); err != nil {
				t.Fatal(err)
			}
			ds, err := pyDescr(dv)
			if err != nil {
				t.Fatal(err)
			}
			want, err := npyio.ParseDescr(ds)
			if err != nil {
				t.Fatalf("descr %s: %v", ds, err)
			}
			if !h.DType.Equal(want) || !slices.Equal(h.Shape, nf.Expect.Shape) {
				t.Fatalf("read as %s %v, want %s %v", h.DType, h.Shape, want, nf.Expect.Shape)
			}
			rs := int(h.RowSize())
			if len(got) != rs*nf.Rows {
				t.Fatalf("%d bytes for %d rows of %d", len(got), nf.Rows, rs)
			}
			checked := 0
			for r := 0; r < nf.Rows; r++ {
				row := got[r*rs : (r+1)*rs]
				if h.DType.Kind == npyio.Struct && !isIntervalDT(h.DType) {
					m := map[string]any{}
					for _, c := range nf.Columns {
						m[c.Name] = c.Values[r]
					}
					err = checkNumpyValue(h.DType, nil, row, m)
				} else {
					if len(nf.Columns) != 1 {
						t.Fatalf("%d columns read as one array", len(nf.Columns))
					}
					err = checkNumpyValue(h.DType, h.Shape[1:], row, nf.Columns[0].Values[r])
				}
				if err != nil {
					t.Fatalf("row %d: %v", r, err)
				}
				checked++
			}
			t.Logf("%s: %d rows as %s %v", nf.Note, checked, h.DType, h.Shape)
		})
	}
}

// readWhole reads a file into its numpy header and rows.
func readWhole(data []byte) ([]byte, *npyio.Header, error) {
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, nil, err
	}
	h := rd.Header()
	var out []byte
	for {
		bt, err := rd.Next(4)
		if errors.Is(err, io.EOF) {
			return out, h, nil
		}
		if err != nil {
			return nil, h, err
		}
		out = append(out, bt.Data...)
	}
}
