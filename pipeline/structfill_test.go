package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// TestStructFill: a fill value for a struct column fills every field of
// it, at any depth (a null field, or every field of a null struct), in
// Parquet and Arrow alike: pqarrow's file with null rows, a null nested
// struct and null fields, and the same table written as an Arrow IPC file
// by arrow-go (pqarrow.ReadTable, ipc.NewFileWriter), convert to the same
// bytes, each value the producer's or the fill. With validity fields too,
// both give the same bytes.
func TestStructFill(t *testing.T) {
	dir := t.TempDir()
	pq := "../parquetio/testdata/foreign/pqa_nested_nulls.parquet"
	ar := filepath.Join(dir, "nested.arrow")
	tbl := readPQArrow(t, pq)
	defer tbl.Release()
	writeIPCFile(t, ar, tbl, 25) // several batches

	for _, opts := range []ConvertOptions{
		{Flags: map[string]string{"columns": "k,st", "fill": "st=1"}},
		{Flags: map[string]string{"columns": "k,st", "fill": "st=1", "validity": "st"}},
	} {
		var outs [][]byte
		for _, in := range []string{pq, ar} {
			out := filepath.Join(dir, filepath.Base(in)+".npy")
			o := opts
			if _, err := Convert(context.Background(), in, out, &o); err != nil {
				t.Fatalf("%s %+v: %v", in, opts, err)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			outs = append(outs, b)
			if opts.Flags["validity"] == "" {
				checkStructFill(t, out)
			}
		}
		if !bytes.Equal(outs[0], outs[1]) {
			a, _ := npyio.ReadFile(filepath.Join(dir, filepath.Base(pq)+".npy"), nil)
			b, _ := npyio.ReadFile(filepath.Join(dir, filepath.Base(ar)+".npy"), nil)
			t.Errorf("%+v: Parquet and Arrow differ:\n%s\n%s", opts, a.Header.DType, b.Header.DType)
		}
	}

	// st alone: one field st in both, the same bytes (issue 30).
	var alone [][]byte
	for _, in := range []string{pq, ar} {
		out := filepath.Join(dir, filepath.Base(in)+".st.npy")
		if _, err := Convert(context.Background(), in, out, &ConvertOptions{Flags: map[string]string{"columns": "st", "fill": "st=1"}}); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		a, err := npyio.ReadFile(out, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Header.DType.String(); got != "[('st', [('a', '<i4'), ('b', [('x', '<f8'), ('y', '|b1')])])]" || len(a.Header.Shape) != 1 || a.Header.Shape[0] != 60 {
			t.Errorf("%s, st alone: %s %v", in, got, a.Header.Shape)
		}
		alone = append(alone, a.CData())
	}
	if !bytes.Equal(alone[0], alone[1]) {
		t.Errorf("st alone: Parquet and Arrow rows differ")
	}

	// A string field of a struct (Arrow JS's file) holds the fill's text
	// where it or the struct is null.
	js := "../arrowconv/testdata/foreign/arrowjs_nested_nulls.arrow"
	out := filepath.Join(dir, "js.npy")
	if _, err := Convert(context.Background(), js, out, &ConvertOptions{Flags: map[string]string{"columns": "st", "fill": "st=1"}}); err != nil {
		t.Fatal(err)
	}
	a, err := npyio.ReadFile(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	// One struct column keeps its name, as in Parquet: a record of one
	// field st (issue 30).
	top := a.Header.DType.Fields
	if len(top) != 1 || top[0].Name != "st" || top[0].Offset != 0 || top[0].Type.Kind != npyio.Struct || len(top[0].Type.Fields) != 3 {
		t.Fatalf("%s: %s, want one field st", js, a.Header.DType)
	}
	sf := top[0].Type.Fields[2]
	if sf.Name != "s" || sf.Type.Kind != npyio.Unicode || sf.Type.Chars() != 3 {
		t.Fatalf("%s: %s", js, a.Header.DType)
	}
	var jsWant struct {
		Columns []struct {
			Name   string
			Values []json.RawMessage
		}
	}
	b, err := os.ReadFile(js + ".json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &jsWant); err != nil {
		t.Fatal(err)
	}
	vals := jsWant.Columns[1].Values
	if jsWant.Columns[1].Name != "st" || len(vals) != a.Header.Shape[0] {
		t.Fatalf("%s: %d rows, want %d", js, a.Header.Shape[0], len(vals))
	}
	for r, raw := range vals {
		var v *struct{ S *string }
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		want := "1"
		if v != nil && v.S != nil {
			want = *v.S
		}
		var got []rune
		for k := 0; k < 3; k++ {
			if c := binary.LittleEndian.Uint32(a.CData()[r*a.Header.DType.Size+sf.Offset+4*k:]); c != 0 {
				got = append(got, rune(c))
			}
		}
		if string(got) != want {
			t.Fatalf("%s row %d: st.s %q, want %q", js, r, string(got), want)
		}
	}

	// Without a fill, the struct's null int field is refused in both.
	for _, in := range []string{pq, ar} {
		if _, err := Convert(context.Background(), in, filepath.Join(dir, "x.npy"), &ConvertOptions{Flags: map[string]string{"columns": "st"}}); err == nil {
			t.Errorf("%s: nulls of st.a not refused", in)
		}
	}
}

// checkStructFill checks the k and st fields of path against the
// producer's values, nulls (of a field or of a struct around it) as the
// fill value 1: st.a int32, st.b.x float64, st.b.y bool.
func checkStructFill(t *testing.T, path string) {
	t.Helper()
	a, err := npyio.ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := producerColumns(t, "../parquetio/testdata/foreign/pqa_nested_nulls.json")
	if got := a.Header.DType.String(); got != "[('k', '<i8'), ('st', [('a', '<i4'), ('b', [('x', '<f8'), ('y', '|b1')])])]" {
		t.Fatalf("%s: dtype %s", path, got)
	}
	data, rs := a.CData(), a.Header.DType.Size
	if len(want["st"]) != 60 || a.Header.Shape[0] != 60 {
		t.Fatalf("%s: %v rows", path, a.Header.Shape)
	}
	fills := 0
	for r, v := range want["st"] {
		row := data[r*rs:]
		if k := int64(binary.LittleEndian.Uint64(row)); k != int64(r) {
			t.Fatalf("%s row %d: k %d", path, r, k)
		}
		var st struct {
			A *int32
			B *struct {
				X *float64
				Y *bool
			}
		}
		if v != nil {
			if err := json.Unmarshal([]byte(v.(string)), &st); err != nil {
				t.Fatal(err)
			}
		}
		wa, wx, wy := int32(1), 1.0, true
		if st.A != nil {
			wa = *st.A
		} else {
			fills++
		}
		if st.B != nil && st.B.X != nil {
			wx = *st.B.X
		} else {
			fills++
		}
		if st.B != nil && st.B.Y != nil {
			wy = *st.B.Y
		} else {
			fills++
		}
		ga := int32(binary.LittleEndian.Uint32(row[8:]))
		gx := math.Float64frombits(binary.LittleEndian.Uint64(row[12:]))
		gy := row[20] == 1
		if ga != wa || gx != wx || gy != wy || row[20] > 1 {
			t.Fatalf("%s row %d: st (%d, (%v, %v)), want (%d, (%v, %v)) from %v", path, r, ga, gx, gy, wa, wx, wy, v)
		}
	}
	if fills < 20 {
		t.Errorf("only %d nulls filled", fills)
	}
}
