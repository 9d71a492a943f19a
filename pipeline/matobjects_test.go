package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/matfile"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
	"github.com/npyflow/npyflow/pipeline/inspect"
	pq "github.com/parquet-go/parquet-go"
)

// MATLAB objects through the engine, against the values MATLAB wrote
// (matfile/testdata/objects/expected.json, transcribed from the scripts
// that wrote the files, not from npyflow).

const matObjects = "../matfile/testdata/objects"

type matExpCol struct {
	Name     string            `json:"name"`
	Class    string            `json:"class"`
	DType    string            `json:"dtype"`
	Shape    []int             `json:"shape"`
	Index    bool              `json:"index"`
	Values   []json.RawMessage `json:"values"`
	Valid    []bool            `json:"valid"`
	TimeZone string            `json:"timezone"`
}

type matExpMember struct {
	Class    string            `json:"class"`
	DType    string            `json:"dtype"`
	Shape    []int             `json:"shape"`
	Values   []json.RawMessage `json:"values"`
	Valid    []bool            `json:"valid"`
	TimeZone string            `json:"timezone"`
	Table    *matExpTable      `json:"table"`
}

type matExpTable struct {
	Rows    int          `json:"rows"`
	Dims    []int        `json:"dims"`
	Columns []*matExpCol `json:"columns"`
}

func matExpected(t *testing.T, file string) map[string]*matExpMember {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(matObjects, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]struct {
		Members map[string]*matExpMember `json:"members"`
	}
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	m := all[file].Members
	if len(m) == 0 {
		t.Fatalf("no expectations for %s", file)
	}
	return m
}

// matTables are the fixtures' table-like variables converted to Arrow
// and Parquet: every table_* and timetable_* variable, and a v7.3 table.
func matTables(t *testing.T) [][2]string {
	var out [][2]string
	for name, m := range matExpected(t, "test_tables_v7.mat") {
		if m.Table != nil && (strings.HasPrefix(name, "table_") || strings.HasPrefix(name, "timetable_")) {
			out = append(out, [2]string{"test_tables_v7.mat", name})
		}
	}
	return append(out, [2]string{"synth_objects_v73.mat", "tbl"})
}

func matConvert(t *testing.T, file, variable, out string, flags map[string]string) []string {
	t.Helper()
	var warns []string
	fl := map[string]string{"variable": variable}
	for k, v := range flags {
		fl[k] = v
	}
	if variable == "" {
		delete(fl, "variable")
	}
	_, err := Convert(context.Background(), filepath.Join(matObjects, file), out, &ConvertOptions{Flags: fl, Warn: func(s string) { warns = append(warns, s) }})
	if err != nil {
		t.Fatalf("%s %s -> %s: %v", file, variable, filepath.Base(out), err)
	}
	return warns
}

// TestMATTablesToArrow: each table converts to one Arrow table, a column
// per MATLAB variable (row names or times first) with its values:
// scalar columns for N-by-1 variables, fixed-size lists for N-by-k ones,
// timestamps, durations, <missing> strings null.
func TestMATTablesToArrow(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range matTables(t) {
		t.Run(tc[1], func(t *testing.T) {
			exp := matExpected(t, tc[0])[tc[1]].Table
			out := filepath.Join(dir, tc[1]+".arrow")
			matConvert(t, tc[0], tc[1], out, nil)
			f, err := os.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rr, err := arrowconv.NewIPCReader(f, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Release()
			var cols []*matExpCol
			for _, c := range exp.Columns {
				if c.Class != "struct" {
					cols = append(cols, c)
				}
			}
			sc := rr.Schema()
			rows := 0
			for rr.Next() {
				rec := rr.RecordBatch()
				for _, c := range cols {
					idx := sc.FieldIndices(c.Name)
					if len(idx) != 1 {
						t.Fatalf("no column %s in %s", c.Name, sc)
					}
					checkArrowColumn(t, c, rec.Column(idx[0]), rows)
				}
				rows += int(rec.NumRows())
			}
			if rows != exp.Rows {
				t.Errorf("%d rows, want %d", rows, exp.Rows)
			}
			for _, f := range sc.Fields() {
				if strings.HasSuffix(f.Name, "_valid") {
					t.Errorf("validity field %s written as a column, not as nulls", f.Name)
				}
			}
		})
	}
}

// checkArrowColumn compares the rows from row0 of an Arrow column with
// the expected values of a table column.
func checkArrowColumn(t *testing.T, c *matExpCol, col arrow.Array, row0 int) {
	t.Helper()
	wantType := map[string]arrow.Type{"double": arrow.FLOAT64, "string": arrow.STRING, "cell": arrow.STRING, "char": arrow.STRING,
		"datetime": arrow.TIMESTAMP, "duration": arrow.DURATION}[c.Class]
	got := col.DataType()
	if len(c.Shape) == 1 {
		fl, ok := got.(*arrow.FixedSizeListType)
		if !ok || int(fl.Len()) != c.Shape[0] {
			t.Fatalf("column %s: %s, want a fixed-size list of %d", c.Name, got, c.Shape[0])
		}
		got = fl.Elem()
	}
	if wantType != 0 && got.ID() != wantType {
		t.Errorf("column %s: Arrow type %s, want %s", c.Name, got, wantType)
	}
	if ts, ok := got.(*arrow.TimestampType); ok && ts.TimeZone != c.TimeZone {
		t.Errorf("column %s: time zone %q, want %q", c.Name, ts.TimeZone, c.TimeZone)
	}
	for r := 0; r < col.Len(); r++ {
		want := c.Values[row0+r]
		if len(c.Shape) == 1 {
			var elems []json.RawMessage
			json.Unmarshal(want, &elems)
			l := col.(*array.FixedSizeList)
			vals := l.ListValues()
			for k, w := range elems {
				checkArrowValue(t, fmt.Sprintf("%s[%d][%d]", c.Name, row0+r, k), vals, (l.Offset()+r)*c.Shape[0]+k, w, true)
			}
			continue
		}
		valid := c.Valid == nil || c.Valid[row0+r]
		checkArrowValue(t, fmt.Sprintf("%s[%d]", c.Name, row0+r), col, r, want, valid)
	}
}

func checkArrowValue(t *testing.T, where string, a arrow.Array, i int, want json.RawMessage, valid bool) {
	t.Helper()
	if !valid {
		if !a.IsNull(i) {
			t.Errorf("%s: %s, want null", where, a.ValueStr(i))
		}
		return
	}
	var w any
	json.Unmarshal(want, &w)
	switch a := a.(type) {
	case *array.Float64:
		x := a.Value(i)
		if s, ok := w.(string); ok && s == "NaN" {
			if !math.IsNaN(x) {
				t.Errorf("%s: %v, want NaN", where, x)
			}
			return
		}
		if wf, _ := w.(float64); a.IsNull(i) || x != wf {
			t.Errorf("%s: %v, want %v", where, x, w)
		}
	case *array.String:
		if a.IsNull(i) || a.Value(i) != w {
			t.Errorf("%s: %q (null %v), want %q", where, a.Value(i), a.IsNull(i), w)
		}
	case *array.Timestamp:
		ts, err := time.Parse("2006-01-02T15:04:05.999999999", w.(string))
		if err != nil {
			t.Fatalf("%s: expected %v: %v", where, w, err)
		}
		unit := a.DataType().(*arrow.TimestampType).Unit
		if got := time.Unix(0, int64(a.Value(i))*int64(unit.Multiplier())).UTC(); a.IsNull(i) || !got.Equal(ts) {
			t.Errorf("%s: %v, want %v", where, got, ts)
		}
	case *array.Duration:
		d, err := time.ParseDuration(w.(string))
		if err != nil {
			t.Fatalf("%s: expected %v: %v", where, w, err)
		}
		unit := a.DataType().(*arrow.DurationType).Unit
		if got := time.Duration(int64(a.Value(i)) * int64(unit.Multiplier())); a.IsNull(i) || got != d {
			t.Errorf("%s: %v, want %v", where, got, d)
		}
	default:
		t.Errorf("%s: unexpected Arrow array %s", where, a.DataType())
	}
}

// TestMATTableToParquet: a table to Parquet is the same table (read back
// as numpy records, values compared); a <missing> string's validity is
// the field after it; a datetime with a time zone is a UTC TIMESTAMP.
func TestMATTableToParquet(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range matTables(t) {
		t.Run(tc[1], func(t *testing.T) {
			exp := matExpected(t, tc[0])[tc[1]].Table
			if len(exp.Columns) == 0 {
				t.Skip("a table without columns has no Parquet form")
			}
			out := filepath.Join(dir, tc[1]+".parquet")
			matConvert(t, tc[0], tc[1], out, nil)
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			r, err := parquetio.NewReader(strings.NewReader(string(b)), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			h := r.Header()
			if h.Rows() != int64(exp.Rows) {
				t.Fatalf("%d rows, want %d", h.Rows(), exp.Rows)
			}
			var names, nullable []string
			for _, c := range exp.Columns {
				names = append(names, c.Name)
				if c.Valid != nil && c.Shape == nil {
					nullable = append(nullable, c.Name)
				}
			}
			var got []string
			for _, f := range h.DType.Fields {
				got = append(got, f.Name)
			}
			if strings.Join(got, ",") != strings.Join(names, ",") {
				t.Errorf("columns %v, want %v", got, names)
			}
			if len(nullable) > 0 {
				checkParquetNulls(t, b, exp, nullable)
			}
			for _, c := range exp.Columns {
				f, ok := fieldOf(h.DType, c.Name)
				if !ok {
					continue
				}
				if want := c.DType; c.Class != "struct" && f.Type.String() != want && !(c.Class == "duration") {
					t.Errorf("column %s: %s, want %s", c.Name, f.Type, want)
				}
				if len(c.Shape) != len(f.Shape) {
					t.Errorf("column %s: shape %v, want %v", c.Name, f.Shape, c.Shape)
				}
			}
		})
	}
	// The v7.3 struct s of a string and a zoned datetime (one row each):
	// a table of two scalar columns named by the fields, the datetime
	// TIMESTAMP isAdjustedToUTC=true.
	out := filepath.Join(dir, "s.parquet")
	matConvert(t, "synth_objects_v73.mat", "s", out, nil)
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := pq.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	fields := pf.Schema().Fields()
	if len(fields) != 2 || fields[0].Name() != "greet" || fields[1].Name() != "when" {
		t.Fatalf("struct s: columns %v, want greet, when", pf.Schema())
	}
	if lt := fields[1].Type().LogicalType(); !strings.Contains(lt.String(), "isAdjustedToUTC=true") {
		t.Errorf("s.when: %v, want TIMESTAMP isAdjustedToUTC=true", lt)
	}
	if lt := fields[0].Type().LogicalType(); !strings.Contains(lt.String(), "STRING") {
		t.Errorf("s.greet: %v, want STRING", lt)
	}
}

// checkParquetNulls reads the Parquet file b with validity fields for
// the columns cols and compares them with the expected missing values:
// a <missing> string is a Parquet null.
func checkParquetNulls(t *testing.T, b []byte, exp *matExpTable, cols []string) {
	t.Helper()
	r, err := parquetio.NewReaderOptions(strings.NewReader(string(b)), int64(len(b)), &parquetio.ReadOptions{Validity: cols})
	if err != nil {
		t.Fatal(err)
	}
	h := r.Header()
	batch, err := r.Next(exp.Rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range exp.Columns {
		if !slices.Contains(cols, c.Name) {
			continue
		}
		f, ok := fieldOf(h.DType, c.Name+"_valid")
		if !ok {
			t.Errorf("no validity field %s_valid in %s", c.Name, h.DType)
			continue
		}
		for i, want := range c.Valid {
			if got := batch.Data[i*h.DType.Size+f.Offset] != 0; got != want {
				t.Errorf("column %s row %d: valid %v, want %v", c.Name, i, got, want)
			}
		}
	}
}

func fieldOf(dt *npyio.DType, name string) (npyio.Field, bool) {
	for _, f := range dt.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return npyio.Field{}, false
}

// TestMATObjectsToNPZ: every variable is a member; a table one
// structured array of its columns (a <missing> string's validity in the
// field after it), a string array U of MATLAB's dims.
func TestMATObjectsToNPZ(t *testing.T) {
	dir := t.TempDir()
	for _, file := range []string{"test_tables_v7.mat", "test_string_v7.mat", "synth_objects_v73.mat", "test_time_v73.mat"} {
		t.Run(file, func(t *testing.T) {
			out := filepath.Join(dir, strings.TrimSuffix(file, ".mat")+".npz")
			matConvert(t, file, "", out, nil)
			z, err := npyio.OpenNPZ(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer z.Close()
			for name, m := range matExpected(t, file) {
				mem := z.Member(name)
				if mem == nil {
					t.Errorf("no member %s", name)
					continue
				}
				r, err := mem.Open()
				if err != nil {
					t.Fatal(err)
				}
				h := r.Header()
				shape := m.Shape
				if m.Table != nil {
					shape = []int{m.Table.Rows}
					var want []string
					for _, c := range m.Table.Columns {
						want = append(want, c.Name) // no validity fields unless asked
					}
					var got []string
					for _, f := range h.DType.Fields {
						got = append(got, f.Name)
					}
					if strings.Join(got, ",") != strings.Join(want, ",") {
						t.Errorf("%s: fields %v, want %v", name, got, want)
					}
				} else if m.DType != h.DType.String() {
					t.Errorf("%s: dtype %s, want %s", name, h.DType, m.DType)
				}
				if fmt.Sprint(h.Shape) != fmt.Sprint(shape) {
					t.Errorf("%s: shape %v, want %v", name, h.Shape, shape)
				}
				if m.Class == "string" && m.Table == nil {
					data := make([]byte, h.DataSize())
					if _, err := r.ReadRows(data); err != nil && err != io.EOF {
						t.Fatal(err)
					}
					checkUnicode(t, name, h, data, m)
				}
			}
		})
	}
}

// TestMATValidityToNPZ: --validity gives a table's string column its
// <name>_valid field in .npz (false at <missing>, whose value is ""),
// and only the columns named.
func TestMATValidityToNPZ(t *testing.T) {
	exp := matExpected(t, "synth_objects_v73.mat")["tbl"].Table
	var b *matExpCol
	for _, c := range exp.Columns {
		if c.Name == "B" {
			b = c
		}
	}
	if b == nil || b.Valid == nil {
		t.Fatal("expected.json: tbl.B with missing values")
	}
	for _, tc := range []struct{ validity, fields string }{
		{"*", "Row,A,B,B_valid"},
		{"B", "Row,A,B,B_valid"},
		{"A", "Row,A,B"}, // a double column misses no value
	} {
		t.Run(tc.validity, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "o.npz")
			matConvert(t, "synth_objects_v73.mat", "tbl", out, map[string]string{"validity": tc.validity})
			z, err := npyio.OpenNPZ(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer z.Close()
			r, err := z.Member("tbl").Open()
			if err != nil {
				t.Fatal(err)
			}
			h := r.Header()
			var got []string
			for _, f := range h.DType.Fields {
				got = append(got, f.Name)
			}
			if strings.Join(got, ",") != tc.fields {
				t.Fatalf("fields %v, want %s", got, tc.fields)
			}
			data := make([]byte, h.DataSize())
			if _, err := r.ReadRows(data); err != nil && err != io.EOF {
				t.Fatal(err)
			}
			vf, ok := fieldOf(h.DType, "B_valid")
			bf, _ := fieldOf(h.DType, "B")
			for i, want := range b.Valid {
				if ok {
					if got := data[i*h.DType.Size+vf.Offset] != 0; got != want {
						t.Errorf("row %d: B_valid %v, want %v", i, got, want)
					}
				}
				if !want && data[i*h.DType.Size+bf.Offset] != 0 {
					t.Errorf("row %d: a <missing> B is not \"\"", i)
				}
			}
		})
	}
}

// checkUnicode compares a U array (in its file's order) with the
// expected values (listed in the same order).
func checkUnicode(t *testing.T, name string, h *npyio.Header, data []byte, m *matExpMember) {
	t.Helper()
	w := h.DType.Size / 4
	for ci, raw := range m.Values {
		i := ci // the expected values are in MATLAB's (column-major) order
		if !h.FortranOrder && len(h.Shape) == 2 {
			i = ci%h.Shape[0]*h.Shape[1] + ci/h.Shape[0]
		}
		var want string
		json.Unmarshal(raw, &want)
		var sb strings.Builder
		for k := 0; k < w; k++ {
			off := (i*w + k) * 4
			c := rune(uint32(data[off]) | uint32(data[off+1])<<8 | uint32(data[off+2])<<16 | uint32(data[off+3])<<24)
			if c == 0 {
				break
			}
			sb.WriteRune(c)
		}
		if sb.String() != want {
			t.Errorf("%s[%d]: %q, want %q", name, ci, sb.String(), want)
		}
	}
}

// TestMATStructOfColumns: a 1x1 struct of N-by-1 fields converts to a
// table of scalar columns named by the fields (not s.a with a row shape
// (1,)), char matrices trimmed as cellstr trims; as a job's mat source
// with table: true too.
func TestMATStructOfColumns(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "s.mat")
	// A struct2table layout written by npyflow's MAT writer from
	// records: x f8, n i4, name char matrix.
	dt, _ := npyio.NewStruct([]npyio.Field{{Name: "x", Type: npyio.Float64Type}, {Name: "n", Type: npyio.Int32Type}, {Name: "name", Type: mustU(t, 5)}})
	a := newRecords(dt, 3)
	for i, s := range []string{"ab", "cde", "f"} {
		rec := a.Data[i*dt.Size:]
		putF64(rec[dt.Fields[0].Offset:], float64(i)+0.5)
		rec[dt.Fields[1].Offset] = byte(10 * i)
		for k, c := range s {
			rec[dt.Fields[2].Offset+4*k] = byte(c)
		}
	}
	src := filepath.Join(dir, "s.npy")
	f, _ := os.Create(src)
	if err := npyio.WriteArray(f, a); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := Convert(context.Background(), src, in, &ConvertOptions{Flags: map[string]string{"name": "s", "mat-version": "7"}}); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{filepath.Join(dir, "t.parquet"), filepath.Join(dir, "t.npy")} {
		if _, err := Convert(context.Background(), in, out, nil); err != nil {
			t.Fatal(err)
		}
		var h *npyio.Header
		var data []byte
		if strings.HasSuffix(out, ".npy") {
			got, err := npyio.ReadFile(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			h, data = got.Header, got.Data
		} else {
			b, _ := os.ReadFile(out)
			r, err := parquetio.NewReader(strings.NewReader(string(b)), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			h = r.Header()
			batch, err := r.Next(10)
			if err != nil {
				t.Fatal(err)
			}
			data = batch.Data
		}
		if got := h.DType.String(); got != "[('x', '<f8'), ('n', '<i4'), ('name', '<U3')]" || fmt.Sprint(h.Shape) != "[3]" {
			t.Fatalf("%s: %s %v, want scalar fields x, n, name (U3) of 3 rows", filepath.Base(out), got, h.Shape)
		}
		rs := h.DType.Size
		if x := math.Float64frombits(le64(data[rs*2:])); x != 2.5 {
			t.Errorf("%s: x[2] = %v", filepath.Base(out), x)
		}
		if n := data[rs*1+8]; n != 10 {
			t.Errorf("%s: n[1] = %v", filepath.Base(out), n)
		}
		if c := data[rs*1+12+8]; c != 'e' || data[rs*2+12+4] != 0 {
			t.Errorf("%s: name not trimmed as cellstr trims: % x", filepath.Base(out), data[rs*2+12:rs*2+24])
		}
	}
	// A job's mat source with table: true reads the struct as one table.
	job := fmt.Sprintf("version: 1\nsources:\n  in: {type: mat, paths: [%q], table: true}\nsinks:\n  out: {type: npy, input: in, path: %q}\n", in, filepath.Join(dir, "job.npy"))
	runJobText(t, dir, job)
	got, err := npyio.ReadFile(filepath.Join(dir, "job.npy"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.DType.String() != "[('x', '<f8'), ('n', '<i4'), ('name', '<U3')]" {
		t.Errorf("job: %s", got.DType)
	}
}

// TestMATDamagedObjects: a damaged subsystem costs only its variable: a
// warning naming it, the others convert; strict makes it an error;
// inspect lists it with the reason.
func TestMATDamagedObjects(t *testing.T) {
	dir := t.TempDir()
	// test_tables_v7 leaves two table variables out with warnings
	// naming them; strict refuses the file.
	warns := matConvert(t, "test_tables_v7.mat", "", filepath.Join(dir, "t.npz"), nil)
	if !strings.Contains(strings.Join(warns, "\n"), "table_from_cell.Var1") {
		t.Errorf("warnings %q do not name table_from_cell.Var1", warns)
	}
	_, err := Convert(context.Background(), filepath.Join(matObjects, "test_tables_v7.mat"), filepath.Join(dir, "s.npz"), &ConvertOptions{Flags: map[string]string{"strict": "true"}})
	if err == nil || !strings.Contains(err.Error(), "table_with_objects.Var2") {
		t.Errorf("strict: %v, want an error naming table_with_objects.Var2", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "s.npz")); err == nil {
		t.Error("strict conversion left an output")
	}
	// The damaged subsystem: its one variable is skipped with a warning.
	var w []string
	_, err = Convert(context.Background(), filepath.Join(matObjects, "test_corrupted_subsystem.mat"), filepath.Join(dir, "c.npz"), &ConvertOptions{Warn: func(s string) { w = append(w, s) }})
	if err == nil || len(w) != 1 || !strings.Contains(w[0], "var: skipped datetime") {
		t.Errorf("damaged: %v, warnings %q", err, w)
	}
	info, err := Inspect(context.Background(), filepath.Join(matObjects, "test_corrupted_subsystem.mat"), nil)
	if err != nil {
		t.Fatal(err)
	}
	mi := info.(*inspect.MATInfo)
	if len(mi.Variables) != 1 || mi.Variables[0].Class != "datetime" || !strings.Contains(mi.Variables[0].Error, "subsystem") {
		t.Errorf("inspect damaged: %+v", mi.Variables)
	}
}

// TestMATInspectTables: inspect gives each variable's class and true
// size, and a table's rows and columns with their types.
func TestMATInspectTables(t *testing.T) {
	for _, file := range []string{"test_tables_v7.mat", "synth_objects_v73.mat", "test_string_v7.mat", "test_time_v73.mat"} {
		info, err := Inspect(context.Background(), filepath.Join(matObjects, file), nil)
		if err != nil {
			t.Fatal(err)
		}
		mi := info.(*inspect.MATInfo)
		exp := matExpected(t, file)
		for _, v := range mi.Variables {
			m := exp[v.Name]
			if m == nil {
				continue
			}
			if v.Class != m.Class {
				t.Errorf("%s %s: class %s, want %s", file, v.Name, v.Class, m.Class)
			}
			if m.Table != nil {
				if fmt.Sprint(v.Size) != fmt.Sprint(m.Table.Dims) || v.Table == nil || v.Table.Rows != m.Table.Rows || len(v.Table.Columns) != len(m.Table.Columns) {
					t.Errorf("%s %s: size %v table %+v, want %v with %d rows, %d columns", file, v.Name, v.Size, v.Table, m.Table.Dims, m.Table.Rows, len(m.Table.Columns))
					continue
				}
				for i, c := range m.Table.Columns {
					g := v.Table.Columns[i]
					if g.Name != c.Name || g.Class != c.Class || g.DType != c.DType && c.Class != "struct" || g.Index != c.Index {
						t.Errorf("%s %s column %d: %+v, want %s %s %s", file, v.Name, i, g, c.Name, c.Class, c.DType)
					}
				}
			} else if !strings.ContainsAny(v.Name, ".{(") && fmt.Sprint(v.Size) != fmt.Sprint(m.Shape) && len(m.Shape) == 2 {
				t.Errorf("%s %s: size %v, want %v", file, v.Name, v.Size, m.Shape)
			}
		}
	}
}

// TestFieldMetaArrowDictionary: a categorical column (categories in
// order, "" for <undefined>) becomes an ordered dictionary with nulls;
// a validity field becomes its column's nulls and is left out.
func TestFieldMetaArrowDictionary(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	u := mustU(t, 3)
	dt, _ := npyio.NewStruct([]npyio.Field{{Name: "c", Type: u}, {Name: "s", Type: u}, {Name: "s_valid", Type: npyio.BoolType}})
	a := newRecords(dt, 3)
	put := func(r, f int, s string) {
		for k, c := range s {
			a.Data[r*dt.Size+dt.Fields[f].Offset+4*k] = byte(c)
		}
	}
	put(0, 0, "lo")
	put(2, 0, "hi")
	put(0, 1, "a")
	put(1, 1, "")
	a.Data[0*dt.Size+dt.Fields[2].Offset] = 1
	a.Data[1*dt.Size+dt.Fields[2].Offset] = 1
	s := &Schema{DType: dt, Meta: map[string]*FieldMeta{"c": {Categories: []string{"lo", "hi"}, Ordered: true}, "s_valid": {ValidityOf: "s"}}}
	sc, err := arrowconv.Schema(a.Header, "")
	if err != nil {
		t.Fatal(err)
	}
	if sc, err = s.arrowSchemaMeta(sc); err != nil {
		t.Fatal(err)
	}
	rec, err := arrowconv.NewRecordBatch(a, "", mem)
	if err != nil {
		t.Fatal(err)
	}
	rec, err = s.arrowRecordMeta(rec, sc, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if rec.NumCols() != 2 {
		t.Fatalf("columns %v, want c, s", rec.Schema())
	}
	d := rec.Column(0).(*array.Dictionary)
	if !d.DataType().(*arrow.DictionaryType).Ordered || d.Dictionary().(*array.String).Value(1) != "hi" || d.GetValueIndex(2) != 1 || !d.IsNull(1) || d.GetValueIndex(0) != 0 {
		t.Errorf("categorical: %v", d)
	}
	st := rec.Column(1).(*array.String)
	if st.Value(0) != "a" || st.IsNull(1) || !st.IsNull(2) {
		t.Errorf("strings: %v, want [a, \"\", null]", st)
	}
}

func newRecords(dt *npyio.DType, n int) *npyio.Array {
	return &npyio.Array{Header: &npyio.Header{DType: dt, Shape: []int{n}}, DType: dt, Data: make([]byte, n*dt.Size)}
}

func mustU(t *testing.T, n int) *npyio.DType {
	d, err := npyio.NewString(npyio.Unicode, n)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func putF64(b []byte, x float64) {
	u := math.Float64bits(x)
	for i := 0; i < 8; i++ {
		b[i] = byte(u >> (8 * i))
	}
}

func le64(b []byte) uint64 {
	var u uint64
	for i := 0; i < 8; i++ {
		u |= uint64(b[i]) << (8 * i)
	}
	return u
}

// TestMATTablesDuckDB has DuckDB (through node and @duckdb/node-api)
// read the Parquet written from every table_* and timetable_* variable:
// column types and every value of the scalar columns
// (testdata/matduck.mjs). It is skipped unless node is installed and the
// module is in $NPYFLOW_DUCKDB_MODULES (default /tmp/duck: run `npm
// install @duckdb/node-api` there), as parquetio's TestDuckDB is.
func TestMATTablesDuckDB(t *testing.T) {
	node, modDir, err := fixtures.DuckDB()
	if err != nil {
		t.Skip(err)
	}
	type column struct {
		Name   string `json:"name"`
		Type   string `json:"type"`
		Values []any  `json:"values"`
		Select string `json:"select,omitempty"`
	}
	type entry struct {
		File    string   `json:"file"`
		Rows    int      `json:"rows"`
		Columns []column `json:"columns"`
		Absent  []string `json:"absent"` // columns that must not be there
	}
	duckType := map[string]string{"double": "DOUBLE", "string": "VARCHAR", "cell": "VARCHAR", "char": "VARCHAR", "datetime": "TIMESTAMP_NS", "duration": "BIGINT"}
	dir := t.TempDir()
	var manifest []entry
	for _, tc := range matTables(t) {
		exp := matExpected(t, tc[0])[tc[1]].Table
		if len(exp.Columns) == 0 {
			continue
		}
		out := filepath.Join(dir, tc[1]+".parquet")
		matConvert(t, tc[0], tc[1], out, nil)
		e := entry{File: out, Rows: exp.Rows, Columns: []column{}}
		for _, c := range exp.Columns {
			typ, ok := duckType[c.Class]
			if !ok || c.Shape != nil {
				continue
			}
			col := column{Name: c.Name, Type: typ, Values: []any{}}
			for i, raw := range c.Values {
				var v any
				json.Unmarshal(raw, &v)
				switch c.Class {
				case "datetime":
					v = strings.Replace(v.(string), "T", " ", 1)
				case "duration":
					d, err := time.ParseDuration(v.(string))
					if err != nil {
						t.Fatal(err)
					}
					v = fmt.Sprint(d.Nanoseconds())
				}
				if c.Valid != nil && !c.Valid[i] {
					v = nil // a <missing> string: NULL
				}
				col.Values = append(col.Values, v)
			}
			e.Columns = append(e.Columns, col)
			if c.Valid != nil {
				e.Absent = append(e.Absent, c.Name+"_valid")
			}
		}
		manifest = append(manifest, e)
	}
	// Plain arrays with missing values: a 3-by-1 string array's first
	// (only) list element is NULL in the row MATLAB has <missing>; a
	// 1-by-4 categorical keeps "" with its element validity as a list
	// column.
	for _, tc := range matPlainMissing {
		m := matExpected(t, tc.file)[tc.variable]
		out := filepath.Join(dir, strings.NewReplacer("{", "", "}", "").Replace(tc.variable)+".parquet")
		matConvert(t, tc.file, tc.variable, out, nil)
		e := entry{File: out, Rows: m.Shape[0], Columns: []column{}}
		if m.Shape[1] == 1 {
			col := column{Name: tc.variable, Type: "VARCHAR[]", Select: fmt.Sprintf("%q[1]", tc.variable)}
			for i := 0; i < m.Shape[0]; i++ {
				s, ok := matElement(m, i, 0)
				col.Values = append(col.Values, map[bool]any{true: s, false: nil}[ok])
			}
			e.Columns = append(e.Columns, col)
			e.Absent = []string{arrowconv.ValidityName(tc.variable)}
		} else {
			vn := arrowconv.ItemsValidityName(tc.variable)
			col := column{Name: vn, Type: "BOOLEAN[]", Select: fmt.Sprintf("CAST(%q AS VARCHAR)", vn)}
			for i := 0; i < m.Shape[0]; i++ {
				var v []string
				for j := 0; j < m.Shape[1]; j++ {
					_, ok := matElement(m, i, j)
					v = append(v, fmt.Sprint(ok))
				}
				col.Values = append(col.Values, "["+strings.Join(v, ", ")+"]")
			}
			e.Columns = append(e.Columns, col)
		}
		manifest = append(manifest, e)
	}
	mf := filepath.Join(dir, "manifest.json")
	b, _ := json.Marshal(manifest)
	if err := os.WriteFile(mf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	outp, err := exec.Command(node, filepath.Join("testdata", "matduck.mjs"), mf, modDir).CombinedOutput()
	if err != nil {
		t.Fatalf("DuckDB: %v\n%s", err, outp)
	}
	t.Logf("%s", outp)
}

// TestMATObjectWarnedOnce: a class object read as its properties is
// warned about once per variable, whatever the output (the matfile
// reader keeps one warning per variable; the engine lists a file once).
func TestMATObjectWarnedOnce(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ variable, out string }{
		{"", "all.npz"}, {"enum_nested", "one.npz"}, {"enum_nested", "one.parquet"}, {"enum_nested", "one.arrow"},
	} {
		w := matConvert(t, "test_enum_v73.mat", tc.variable, filepath.Join(dir, tc.out), nil)
		if len(w) != 1 || !strings.Contains(w[0], "enum_nested: TestClasses.BasicClass") {
			t.Errorf("%s %s: warnings %q, want one naming enum_nested", tc.variable, tc.out, w)
		}
	}
}

// matPlainMissing are the fixtures' plain (non-table) arrays with
// <missing> or <undefined> values: a 1-by-4 categorical and a 3-by-1
// string array in a cell.
var matPlainMissing = []struct{ file, variable string }{
	{"test_tables_v7.mat", "cat_missing"},
	{"synth_objects_v73.mat", "c{1}"},
}

// matElement is the expected value and validity of element (i, j) of a
// 2-D MATLAB array m (expected.json lists them in column-major order).
func matElement(m *matExpMember, i, j int) (string, bool) {
	k := i + j*m.Shape[0]
	var s string
	json.Unmarshal(m.Values[k], &s)
	return s, m.Valid == nil || m.Valid[k]
}

// TestMATPlainMissingToArrow: a plain string or categorical array
// converted to Arrow has nulls exactly where MATLAB has <missing> or
// <undefined> (read with arrow-go's IPC reader): a column vector's rows
// (lists of one) are null, a wider array's list elements are; no
// validity column is written.
func TestMATPlainMissingToArrow(t *testing.T) {
	for _, tc := range matPlainMissing {
		t.Run(tc.variable, func(t *testing.T) {
			m := matExpected(t, tc.file)[tc.variable]
			if len(m.Shape) != 2 || m.Valid == nil {
				t.Fatalf("expected.json: %s is not a 2-D array with missing values", tc.variable)
			}
			rows, k := m.Shape[0], m.Shape[1]
			out := filepath.Join(t.TempDir(), "o.arrow")
			matConvert(t, tc.file, tc.variable, out, nil)
			f, err := os.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rr, err := ipc.NewFileReader(f, ipc.WithAllocator(mem))
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Close()
			if sc := rr.Schema(); sc.NumFields() != 1 || sc.Field(0).Name != tc.variable {
				t.Fatalf("schema %s, want the one column %s", sc, tc.variable)
			}
			if rr.NumRecords() != 1 {
				t.Fatalf("%d record batches, want 1", rr.NumRecords())
			}
			rec, err := rr.RecordAt(0)
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Release()
			if int(rec.NumRows()) != rows {
				t.Fatalf("%d rows, want %d", rec.NumRows(), rows)
			}
			l, ok := rec.Column(0).(*array.FixedSizeList)
			if !ok {
				t.Fatalf("column %s, want a fixed-size list", rec.Column(0).DataType())
			}
			items := l.ListValues().(*array.String)
			for i := 0; i < rows; i++ {
				rowValid := true
				for j := 0; j < k; j++ {
					_, ok := matElement(m, i, j)
					rowValid = rowValid && ok
				}
				if wantNull := k == 1 && !rowValid; l.IsNull(i) != wantNull {
					t.Errorf("row %d: null %v, want %v", i, l.IsNull(i), wantNull)
				}
				for j := 0; j < k; j++ {
					want, ok := matElement(m, i, j)
					at := i*k + j
					switch {
					case k == 1 && !ok:
					case !ok:
						if !items.IsNull(at) {
							t.Errorf("(%d,%d): %q, want null", i, j, items.Value(at))
						}
					case items.IsNull(at) || items.Value(at) != want:
						t.Errorf("(%d,%d): %q (null %v), want %q", i, j, items.Value(at), items.IsNull(at), want)
					}
				}
			}
		})
	}
}

// TestMATPlainMissingToParquet: a column vector of strings to Parquet is
// null in the rows MATLAB has <missing> (read with arrow-go's pqarrow),
// without a validity column; a wider array keeps "" there with its
// element validity as the list column <name>_items_valid (parquetio
// writes no element nulls).
func TestMATPlainMissingToParquet(t *testing.T) {
	for _, tc := range matPlainMissing {
		t.Run(tc.variable, func(t *testing.T) {
			m := matExpected(t, tc.file)[tc.variable]
			rows, k := m.Shape[0], m.Shape[1]
			out := filepath.Join(t.TempDir(), "o.parquet")
			matConvert(t, tc.file, tc.variable, out, nil)
			tbl := readPQArrow(t, out)
			defer tbl.Release()
			var names []string
			for _, f := range tbl.Schema().Fields() {
				names = append(names, f.Name)
			}
			want := []string{tc.variable}
			if k > 1 {
				want = append(want, arrowconv.ItemsValidityName(tc.variable))
			}
			if !slices.Equal(names, want) {
				t.Fatalf("columns %v, want %v", names, want)
			}
			if int(tbl.NumRows()) != rows {
				t.Fatalf("%d rows, want %d", tbl.NumRows(), rows)
			}
			whole := func(c int) array.ListLike {
				a, err := array.Concatenate(tbl.Column(c).Data().Chunks(), memory.DefaultAllocator)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(a.Release)
				return a.(array.ListLike)
			}
			l := whole(0)
			items := l.ListValues().(*array.String)
			var valid *array.Boolean
			if k > 1 {
				valid = whole(1).ListValues().(*array.Boolean)
			}
			for i := 0; i < rows; i++ {
				for j := 0; j < k; j++ {
					want, ok := matElement(m, i, j)
					if k == 1 {
						if l.IsNull(i) == ok {
							t.Errorf("row %d: null %v, want %v", i, l.IsNull(i), !ok)
						}
						if !ok {
							continue
						}
					}
					start, _ := l.ValueOffsets(i)
					at := int(start) + j
					if items.IsNull(at) || items.Value(at) != want {
						t.Errorf("(%d,%d): %q (null %v), want %q", i, j, items.Value(at), items.IsNull(at), want)
					}
					if valid != nil && valid.Value(at) != ok {
						t.Errorf("(%d,%d): %s %v, want %v", i, j, names[1], valid.Value(at), ok)
					}
				}
			}
		})
	}
}

// TestMATPlainValidityToNPZ: to .npz a plain string array keeps "" at
// <missing> and gets no validity member unless --validity names it;
// then c{1} (3-by-1) gets c{1}_valid of 3 rows and cat_missing
// (1-by-4) cat_missing_items_valid of its shape, false at the values
// MATLAB misses.
func TestMATPlainValidityToNPZ(t *testing.T) {
	for _, tc := range matPlainMissing {
		m := matExpected(t, tc.file)[tc.variable]
		for _, asked := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/validity=%v", tc.variable, asked), func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "o.npz")
				flags := map[string]string{}
				if asked {
					flags["validity"] = tc.variable
				}
				matConvert(t, tc.file, tc.variable, out, flags)
				z, err := npyio.OpenNPZ(out, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer z.Close()
				vname, vshape := arrowconv.ValidityName(tc.variable), []int{m.Shape[0]}
				if m.Shape[1] > 1 {
					vname, vshape = arrowconv.ItemsValidityName(tc.variable), m.Shape
				}
				want := []string{tc.variable}
				if asked {
					want = append(want, vname)
				}
				if got := z.Keys(); !slices.Equal(got, want) {
					t.Fatalf("members %v, want %v", got, want)
				}
				if !asked {
					return
				}
				r, err := z.Member(vname).Open()
				if err != nil {
					t.Fatal(err)
				}
				h := r.Header()
				if h.DType.Kind != npyio.Bool || !slices.Equal(h.Shape, vshape) {
					t.Fatalf("%s: %s %v, want bool %v", vname, h.DType, h.Shape, vshape)
				}
				data := make([]byte, h.DataSize())
				if _, err := r.ReadRows(data); err != nil && err != io.EOF {
					t.Fatal(err)
				}
				for i := 0; i < m.Shape[0]; i++ {
					for j := 0; j < m.Shape[1]; j++ {
						k := i*m.Shape[1] + j // C order
						if h.FortranOrder {
							k = i + j*m.Shape[0]
						}
						if _, ok := matElement(m, i, j); (data[k] != 0) != ok {
							t.Errorf("(%d,%d): valid %v, want %v", i, j, data[k] != 0, ok)
						}
					}
				}
			})
		}
	}
}

// TestMATPlainMissingJob: a job's mat source with nulls: true gives the
// Arrow sink the <missing> string as a null with table: true, and adds
// no validity member without it (the one string array stays one part).
func TestMATPlainMissingJob(t *testing.T) {
	m := matExpected(t, "synth_objects_v73.mat")["c{1}"]
	in, _ := filepath.Abs(filepath.Join(matObjects, "synth_objects_v73.mat"))
	for _, table := range []bool{true, false} {
		t.Run(fmt.Sprint("table=", table), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "o.arrow")
			runJobText(t, dir, fmt.Sprintf("version: 1\nsources:\n  in: {type: mat, paths: [%q], variables: [\"c{1}\"], nulls: true, table: %v}\nsinks:\n  out: {type: arrow, input: in, path: %q}\n", in, table, out))
			f, err := os.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rr, err := ipc.NewFileReader(f)
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Close()
			if sc := rr.Schema(); sc.NumFields() != 1 {
				t.Fatalf("schema %s, want one column", sc)
			}
			rec, err := rr.RecordAt(0)
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Release()
			for i, ok := range m.Valid {
				if want := table && !ok; rec.Column(0).IsNull(i) != want {
					t.Errorf("row %d: null %v, want %v", i, rec.Column(0).IsNull(i), want)
				}
			}
		})
	}
}

// TestMATTableItemsNulls: an N-by-k string column of a table that misses
// values gets the element validity field <name>_items_valid in nulls
// mode; Arrow writes it as the nulls of the list's elements, Parquet
// keeps it as a column. (No MATLAB fixture has such a column.)
func TestMATTableItemsNulls(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	u := mustU(t, 2)
	data := make([]byte, 4*u.Size)
	for i, s := range []string{"a", "", "c", "d"} {
		for k, c := range s {
			data[i*u.Size+4*k] = byte(c)
		}
	}
	tbl := &matfile.Table{Name: "t", Class: "table", Rows: 2, Columns: []*matfile.Column{
		{Name: "s", Class: "string", DType: u, Shape: []int{2}, Data: data, Valid: []bool{true, false, true, true}},
	}}
	r := &matReader{nulls: true}
	cm, meta := r.tableMember("t", tbl)
	if f := cm.header.DType.Fields; len(f) != 2 || f[1].Name != "s_items_valid" || !slices.Equal(f[1].Shape, []int{2}) {
		t.Fatalf("fields %s, want s and s_items_valid (2,)", cm.header.DType)
	}
	s := &Schema{DType: cm.header.DType, Meta: meta}
	if o := s.parquetMeta(&parquetio.Options{}, ""); len(o.Nulls) != 0 {
		t.Errorf("Parquet nulls %v for a list column, want none (parquetio has no element nulls)", o.Nulls)
	}
	rc, err := cm.open()
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	a := &npyio.Array{Header: cm.header, DType: cm.header.DType, Data: b}
	sc, err := arrowconv.Schema(a.Header, "")
	if err != nil {
		t.Fatal(err)
	}
	if sc, err = s.arrowSchemaMeta(sc); err != nil {
		t.Fatal(err)
	}
	rec, err := arrowconv.NewRecordBatch(a, "", mem)
	if err != nil {
		t.Fatal(err)
	}
	if rec, err = s.arrowRecordMeta(rec, sc, mem); err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if rec.NumCols() != 1 {
		t.Fatalf("columns %v, want s", rec.Schema())
	}
	l := rec.Column(0).(*array.FixedSizeList)
	items := l.ListValues().(*array.String)
	if l.NullN() != 0 || items.Len() != 4 || items.Value(0) != "a" || !items.IsNull(1) || items.Value(2) != "c" || items.Value(3) != "d" || items.NullN() != 1 {
		t.Errorf("s: %v, want [[a null] [c d]]", l)
	}
}
