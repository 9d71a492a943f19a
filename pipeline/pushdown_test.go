package pipeline

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/job"
)

// foreignValues checks the columns cols of the .npy file path against the
// producer's values (from its corpus JSON): ints and floats, scalars or
// lists (JSON text "[1,2]"); a null is fill (ints) or NaN (floats). One
// column may come as a plain array or as a one-field record.
func foreignValues(t *testing.T, path string, want map[string][]any, cols []string, fill int64) {
	t.Helper()
	a, err := npyio.ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	dt := a.Header.DType
	var names []string
	for _, f := range dt.Fields {
		names = append(names, f.Name)
	}
	if dt.Kind == npyio.Struct && strings.Join(names, ",") != strings.Join(cols, ",") {
		t.Fatalf("%s: fields %v, want %v", path, names, cols)
	}
	if dt.Kind != npyio.Struct && len(cols) != 1 {
		t.Fatalf("%s: a plain %s array, want fields %v", path, dt, cols)
	}
	for k, name := range cols {
		f := npyio.Field{Name: name, Type: dt}
		if dt.Kind == npyio.Struct {
			f = dt.Fields[k]
		}
		vals := want[name]
		if len(a.Header.Shape) != 1 || a.Header.Shape[0] != len(vals) {
			t.Fatalf("%s: shape %v for %d values", path, a.Header.Shape, len(vals))
		}
		n := f.Count()
		for r, v := range vals {
			var exp []float64
			switch {
			case v == nil:
			case strings.HasPrefix(v.(string), "["):
				if err := json.Unmarshal([]byte(v.(string)), &exp); err != nil {
					t.Fatal(err)
				}
			default:
				x, err := strconv.ParseFloat(v.(string), 64)
				if err != nil {
					t.Fatal(err)
				}
				exp = []float64{x}
			}
			if v != nil && len(exp) != n {
				t.Fatalf("%s %s row %d: %d values, want %v", path, name, r, n, v)
			}
			for i := 0; i < n; i++ {
				b := a.CData()[r*dt.Size+f.Offset+i*f.Type.Size:]
				var got float64
				switch {
				case f.Type.Kind == npyio.Float && f.Type.Size == 8:
					got = math.Float64frombits(binary.LittleEndian.Uint64(b))
				case f.Type.Kind == npyio.Int && f.Type.Size == 8:
					got = float64(int64(binary.LittleEndian.Uint64(b)))
				case f.Type.Kind == npyio.Int && f.Type.Size == 4:
					got = float64(int32(binary.LittleEndian.Uint32(b)))
				default:
					t.Fatalf("%s: field %s of type %s", path, name, f.Type)
				}
				switch {
				case v != nil && got != exp[i]:
					t.Fatalf("%s %s row %d [%d]: %v, want %v", path, name, r, i, got, v)
				case v == nil && f.Type.Kind == npyio.Float && !math.IsNaN(got):
					t.Fatalf("%s %s row %d (null): %v, want NaN", path, name, r, got)
				case v == nil && f.Type.Kind == npyio.Int && got != float64(fill):
					t.Fatalf("%s %s row %d (null): %v, want the fill %d", path, name, r, got, fill)
				}
			}
		}
	}
}

// TestForeignDropPushdown: a column numpy has no type for (DuckDB's list
// of varying length and MAP, arrow-go's ragged list and map) is refused,
// naming it and pointing at what works; a job whose source feeds a drop
// of it, or a select without it, reads the others with the producer's
// values (the column is never mapped), as convert --columns does.
func TestForeignDropPushdown(t *testing.T) {
	dir := t.TempDir()
	pq, ar := abs(t, "../parquetio/testdata/foreign")+"/", abs(t, "../arrowconv/testdata/foreign")+"/"
	for _, c := range []struct {
		typ, file, json, bad string
		keep                 []string
		fill                 string // a fill value for a2 (DuckDB's int list with null lists)
	}{
		{"parquet", pq + "duck_list_nulls.parquet", pq + "duck_list_nulls.json", "l3", []string{"k", "l2f", "a2"}, "a2"},
		{"parquet", pq + "duck_list.parquet", pq + "duck_list.json", "l", []string{"k"}, ""},
		{"parquet", pq + "duck_map.parquet", pq + "duck_map.json", "m", []string{"k"}, ""},
		{"arrow", ar + "ragged.arrow", ar + "ragged.arrow.json", "ragged", []string{"id"}, ""},
		{"arrow", ar + "map.arrow", ar + "map.arrow.json", "m", []string{"id"}, ""},
	} {
		want := producerColumns(t, c.json)
		src := fmt.Sprintf("version: 1\nsources:\n  t: {type: %s, paths: '%s'", c.typ, c.file)
		opts := &ConvertOptions{Flags: map[string]string{"columns": strings.Join(c.keep, ",")}}
		if c.fill != "" {
			src += ", fill: {" + c.fill + ": -1}"
			opts.Flags["fill"] = c.fill + "=-1"
		}
		src += "}\n"
		out := filepath.Join(dir, "out.npy")
		sink := fmt.Sprintf("sinks:\n  o: {type: npy, input: %%s, path: '%s'}\n", out)

		// Refused without (l3 for its nulls, the others for their type):
		// the column named, the advice the one that works.
		hint := []string{"column " + c.bad, "leave the column out"}
		if c.typ == "arrow" {
			hint[0] = fmt.Sprintf("column %q", c.bad)
		}
		if c.bad != "l3" {
			hint = append(hint, "--columns with convert", "a select or drop leaving it out on every path from the source")
		}
		for _, text := range []string{src + fmt.Sprintf(sink, "t"), src + "transforms:\n  r: {type: rename, input: t, fields: {" + c.keep[0] + ": x}}\n" + fmt.Sprintf(sink, "r")} {
			err := planAndRun(dir, text)
			for _, h := range hint {
				if err == nil || !strings.Contains(err.Error(), h) {
					t.Fatalf("%s without a drop: %v, want %q", c.file, err, h)
				}
			}
		}
		_, err := Convert(context.Background(), c.file, out, &ConvertOptions{Flags: map[string]string{"fill": opts.Flags["fill"]}})
		for _, h := range hint {
			if err == nil || !strings.Contains(err.Error(), h) {
				t.Fatalf("convert %s: %v, want %q", c.file, err, h)
			}
		}

		for _, tr := range []string{
			"drop, input: t, fields: [" + c.bad + "]",
			"select, input: t, fields: [" + strings.Join(c.keep, ", ") + "]",
		} {
			text := src + "transforms:\n  d: {type: " + tr + "}\n" + fmt.Sprintf(sink, "d")
			os.Remove(out)
			runJobText(t, dir, text)
			foreignValues(t, out, want, c.keep, -1)
		}
		os.Remove(out)
		if _, err := Convert(context.Background(), c.file, out, opts); err != nil {
			t.Fatalf("convert --columns %v %s: %v", c.keep, c.file, err)
		}
		foreignValues(t, out, want, c.keep, -1)
	}
}

// TestDropPushdownPlan: which columns a source leaves out for its
// consumers; a drop naming a field the file lacks is still the drop's
// error, and drops with a select or a non-select consumer push down only
// what none of them needs.
func TestDropPushdownPlan(t *testing.T) {
	dir := t.TempDir()
	file := abs(t, "../parquetio/testdata/foreign/duck_list_nulls.parquet")
	head := fmt.Sprintf("version: 1\nsources:\n  t: {type: parquet, paths: '%s', fill: {a2: 0}}\ntransforms:\n", file)
	sinks := func(ins ...string) string {
		s := "sinks:\n"
		for i, in := range ins {
			s += fmt.Sprintf("  o%d: {type: npy, input: %s, path: '%s/o%d.npy'}\n", i, in, dir, i)
		}
		return s
	}
	for _, c := range []struct {
		text string
		push string // what is pushed down: "drop a,b", "keep a,b" or "" for none
		err  string
		rows int // rows of o0.npy, first k
		k0   int64
	}{
		{head + "  d: {type: drop, input: t, fields: [l3, l2f]}\n" + sinks("d"), "drop l3,l2f", "", 40, 0},
		{head + "  d: {type: drop, input: t, fields: [l3, l2f]}\n  e: {type: drop, input: t, fields: [l3]}\n" + sinks("d", "e"), "drop l3", "", 40, 0},
		{head + "  d: {type: drop, input: t, fields: [l3, l2f]}\n  s: {type: select, input: t, fields: [k, l2f]}\n" + sinks("d", "s"), "drop l3", "", 40, 0},
		// A filter needs its predicate's fields and what comes after it
		// needs: with a sink after it, everything.
		{head + "  d: {type: drop, input: t, fields: [l3]}\n  f: {type: filter, input: t, where: 'k > 2'}\n" + sinks("d", "f"), "", "column l3", 0, 0},
		{head + "  f: {type: filter, input: t, where: 'k > 2'}\n  d: {type: drop, input: f, fields: [l3]}\n" + sinks("d"), "drop l3", "", 37, 3},
		{head + "  f: {type: filter, input: t, where: 'k < 5'}\n  s: {type: select, input: f, fields: [a2]}\n" + sinks("s"), "keep a2,k", "", 5, -1},
		{head + "  c: {type: cast, input: t, fields: {k: int32}}\n  s: {type: select, input: c, fields: [a2, k]}\n" + sinks("s"), "keep a2,k", "", 40, 0},
		{head + "  c: {type: cast, input: t, fields: {k: int32}}\n  d: {type: drop, input: c, fields: [l3, k]}\n" + sinks("d"), "drop l3", "", 40, -1},
		// rename reads every field.
		{head + "  r: {type: rename, input: t, fields: {k: kk}}\n  d: {type: drop, input: r, fields: [l3]}\n" + sinks("d"), "", "column l3", 0, 0},
		{head + "  d: {type: drop, input: t, fields: [l3, zz]}\n" + sinks("d"), "drop l3,zz", "transforms.d.fields", 0, 0},
	} {
		j, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(c.text), nil)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if p := projections(j)["t"]; p != nil && p.keep != nil {
			got = "keep " + strings.Join(p.keep, ",")
		} else if p != nil {
			got = "drop " + strings.Join(p.drop, ",")
		}
		if got != c.push {
			t.Errorf("%s: pushed down %q, want %q", c.text, got, c.push)
		}
		err = planAndRun(dir, c.text)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want %q", c.text, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		a, err := npyio.ReadFile(filepath.Join(dir, "o0.npy"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if a.Header.Shape[0] != c.rows {
			t.Errorf("%s: %d rows, want %d", c.text, a.Header.Shape[0], c.rows)
		}
		if c.k0 >= 0 && fieldInt(t, a, "k", 0) != c.k0 {
			t.Errorf("%s: k %d in row 0, want %d", c.text, fieldInt(t, a, "k", 0), c.k0)
		}
	}
	// The two-consumer job: d got k and a2, s got k and l2f, with the values
	// of the file.
	if err := planAndRun(dir, head+"  d: {type: drop, input: t, fields: [l3, l2f]}\n  s: {type: select, input: t, fields: [k, l2f]}\n"+sinks("d", "s")); err != nil {
		t.Fatal(err)
	}
	want := producerColumns(t, strings.TrimSuffix(file, ".parquet")+".json")
	foreignValues(t, filepath.Join(dir, "o0.npy"), want, []string{"k", "a2"}, 0)
	foreignValues(t, filepath.Join(dir, "o1.npy"), want, []string{"k", "l2f"}, 0)

	// A select of a validity field reads its column (and not l3, whose
	// nulls would be refused): a2_valid is false where DuckDB's a2 is null,
	// and so is each element of a2_items_valid (DuckDB's a2 has null rows,
	// no null elements).
	for _, typ := range []string{"select, input: t, fields: [k, a2_valid]", "drop, input: t, fields: [l3, l2f, a2]", "select, input: t, fields: [k, a2_items_valid]", "drop, input: t, fields: [l3, l2f, a2, a2_valid]"} {
		text := fmt.Sprintf("version: 1\nsources:\n  t: {type: parquet, paths: '%s', validity: [a2]}\ntransforms:\n  s: {type: %s}\n", file, typ) + sinks("s")
		if err := planAndRun(dir, text); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		a, err := npyio.ReadFile(filepath.Join(dir, "o0.npy"), nil)
		if err != nil {
			t.Fatal(err)
		}
		wantDT := "[('k', '<i8'), ('a2_valid', '|b1')]"
		switch {
		case strings.Contains(typ, "a2_items_valid"), strings.Contains(typ, "a2, a2_valid]"):
			wantDT = "[('k', '<i8'), ('a2_items_valid', '|b1', (2,))]"
		case strings.HasPrefix(typ, "drop"):
			wantDT = "[('k', '<i8'), ('a2_valid', '|b1'), ('a2_items_valid', '|b1', (2,))]"
		}
		if got := a.Header.DType.String(); got != wantDT {
			t.Fatalf("%s: %s, want %s", typ, got, wantDT)
		}
		nulls := 0
		for r, v := range want["a2"] {
			if k := fieldInt(t, a, "k", r); k != int64(r) {
				t.Fatalf("%s row %d: k %d", typ, r, k)
			}
			if strings.Contains(wantDT, "a2_valid") {
				if valid := fieldInt(t, a, "a2_valid", r); valid != 0 != (v != nil) {
					t.Fatalf("%s row %d: a2_valid %d for %v", typ, r, valid, v)
				}
			}
			if strings.Contains(wantDT, "a2_items_valid") {
				b := a.CData()[r*a.Header.DType.Size+a.Header.DType.Fields[len(a.Header.DType.Fields)-1].Offset:]
				if want := b2u(v != nil); b[0] != want || b[1] != want {
					t.Fatalf("%s row %d: a2_items_valid %v for %v", typ, r, b[:2], v)
				}
			}
			if v == nil {
				nulls++
			}
		}
		if nulls == 0 {
			t.Fatal("no null in a2")
		}
	}
}

// planAndRun plans and runs a job, returning the first error.
func planAndRun(dir, text string) error {
	j, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(text), nil)
	if err != nil {
		return err
	}
	plan, err := NewPlan(context.Background(), j, nil)
	if err != nil {
		return err
	}
	_, err = plan.Run(context.Background(), &RunOptions{})
	return err
}
