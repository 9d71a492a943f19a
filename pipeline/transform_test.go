package pipeline

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
	"github.com/npyflow/npyflow/pipeline/job"
)

// collect is a node that keeps what it receives.
type collect struct {
	schema *Schema
	data   []byte
	rows   int
}

func (c *collect) Schema() *Schema   { return c.schema }
func (c *collect) Begin(*Part) error { return nil }
func (c *collect) End(*Part) error   { return nil }
func (c *collect) Finish() error     { return nil }
func (c *collect) Push(b Batch) error {
	c.rows += b.Rows
	c.data = append(c.data, b.Data...)
	return nil
}

// component makes a job.Component of a transform from YAML options.
func component(t *testing.T, typ, opts string) *job.Component {
	t.Helper()
	jb := "version: 1\nsources:\n  s: {type: npy, paths: x.npy}\ntransforms:\n  t:\n    type: " + typ + "\n    input: s\n" + opts +
		"sinks:\n  o: {type: npy, input: t, path: o.npy}\n"
	j, err := job.Load("job.yaml", []byte(jb), nil)
	if err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	return j.Component("t")
}

// apply runs rows through one transform and returns its output.
func apply(t *testing.T, c *job.Component, in *Schema, data []byte) (*collect, error) {
	t.Helper()
	n, err := build(c, in, nil)
	if err != nil {
		return nil, err
	}
	out := &collect{schema: n.Schema()}
	n.(producer).connect(out)
	rs := int(in.RowSize())
	rows := len(data) / rs
	// Two batches, to cross a batch boundary.
	for _, r := range [][2]int{{0, rows / 2}, {rows / 2, rows}} {
		if err := n.Push(Batch{Rows: r[1] - r[0], Data: data[r[0]*rs : r[1]*rs]}); err != nil {
			return out, err
		}
	}
	return out, n.Finish()
}

func plain(dt *npyio.DType) *Schema { return &Schema{DType: dt} }

func TestCast(t *testing.T) {
	f64 := npyio.AsBytes([]float64{0, 2.9, -2.9, 127.99, -128.5, 1e3})
	valid := []struct {
		name, opts string
		in         *Schema
		data       []byte
		want       []byte
	}{
		// numpy: np.array([0, 2.9, -2.9, 127.99, -128.5, 1e3]).astype('i4')
		{"float to int truncates", "    to: int32\n", plain(npyio.Float64Type), f64, npyio.AsBytes([]int32{0, 2, -2, 127, -128, 1000})},
		{"int to float", "    to: float32\n", plain(npyio.Int64Type), npyio.AsBytes([]int64{-3, 1 << 40}), npyio.AsBytes([]float32{-3, 1 << 40})},
		{"uint64 to float64", "    to: float64\n", plain(npyio.Uint64Type), npyio.AsBytes([]uint64{math.MaxUint64}), npyio.AsBytes([]float64{math.MaxUint64})},
		{"to bool", "    to: bool\n", plain(npyio.Float32Type), npyio.AsBytes([]float32{0, -0.5, float32(math.NaN())}), []byte{0, 1, 1}},
		{"saturate ints", "    to: int8\n    on_overflow: saturate\n", plain(npyio.Int16Type), npyio.AsBytes([]int16{300, -300, 5}), []byte{127, 128, 5}},
		{"saturate unsigned", "    to: uint8\n    on_overflow: saturate\n", plain(npyio.Float64Type), npyio.AsBytes([]float64{-1, 256.5, math.NaN(), 255.9}), []byte{0, 255, 0, 255}},
		{"saturate float32", "    to: float32\n    on_overflow: saturate\n", plain(npyio.Float64Type), npyio.AsBytes([]float64{1e39, -1e39, math.Inf(1)}),
			npyio.AsBytes([]float32{math.MaxFloat32, -math.MaxFloat32, float32(math.Inf(1))})},
	}
	for _, tc := range valid {
		t.Run(tc.name, func(t *testing.T) {
			out, err := apply(t, component(t, "cast", tc.opts), tc.in, tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.data, tc.want) {
				t.Errorf("got % x, want % x", out.data, tc.want)
			}
		})
	}
	invalid := []struct {
		name, opts string
		in         *Schema
		data       []byte
		msg        string
	}{
		{"int overflow", "    to: int8\n", plain(npyio.Int16Type), npyio.AsBytes([]int16{1, 2, 3, 300}), "cast: row 3: value 300 does not fit '|i1' (set on_overflow: saturate to clamp)"},
		{"negative to unsigned", "    to: uint32\n", plain(npyio.Int64Type), npyio.AsBytes([]int64{-1, 0}), "cast: row 0: value -1 does not fit '<u4'"},
		{"nan to int", "    to: int64\n", plain(npyio.Float64Type), npyio.AsBytes([]float64{1, math.NaN()}), "cast: row 1: value NaN does not fit '<i8'"},
		{"float64 to float32", "    to: float32\n", plain(npyio.Float64Type), npyio.AsBytes([]float64{1, 2, 1e300}), "cast: row 2: value 1e+300 does not fit '<f4'"},
		{"uint64 to int64", "    to: int64\n", plain(npyio.Uint64Type), npyio.AsBytes([]uint64{1 << 63}), "cast: row 0: value 9223372036854775808 does not fit '<i8'"},
	}
	for _, tc := range invalid {
		t.Run(tc.name, func(t *testing.T) {
			_, err := apply(t, component(t, "cast", tc.opts), tc.in, tc.data)
			if err == nil || !strings.HasPrefix(err.Error(), tc.msg) {
				t.Errorf("err = %v, want %s", err, tc.msg)
			}
		})
	}
}

// record builds rows of a (int32), b (float64), s (U3).
func records(t *testing.T) (*Schema, []byte) {
	u3, _ := npyio.NewString(npyio.Unicode, 3)
	dt, err := npyio.NewStruct([]npyio.Field{{Name: "a", Type: npyio.Int32Type}, {Name: "b", Type: npyio.Float64Type}, {Name: "s", Type: u3}})
	if err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		a int32
		b float64
		s string
	}{{1, 0.5, "x"}, {2, math.NaN(), "yy"}, {3, -1, "zzz"}, {4, 2.5, ""}, {5, 1e10, "x"}}
	var data []byte
	for _, r := range rows {
		row := make([]byte, dt.Size)
		rowbytes.Store(row, 0, r.a)
		rowbytes.Store(row, 4, r.b)
		rowbytes.PutUCS4(row[12:], r.s)
		data = append(data, row...)
	}
	return &Schema{DType: dt}, data
}

func keptA(out *collect) []int32 {
	var a []int32
	for i := 0; i < out.rows; i++ {
		a = append(a, rowbytes.Load[int32](out.data, i*out.schema.DType.Size))
	}
	return a
}

// TestFilter runs the filter transform in a job: rows of two batches
// kept, and a predicate's problem reported at its file:line:col. The
// language itself is tested in package expr.
func TestFilter(t *testing.T) {
	in, data := records(t)
	cases := []struct {
		where string
		want  []int32
	}{
		{"a > 2", []int32{3, 4, 5}},
		{"b < 1", []int32{1, 3}}, // NaN compares false
		{"s == 'x'", []int32{1, 5}},
		{"a == 1 or (b > 2 and not s == 'x')", []int32{1, 4}},
		{"2 < a < 5", []int32{3, 4}},
	}
	for _, tc := range cases {
		t.Run(tc.where, func(t *testing.T) {
			out, err := apply(t, component(t, "filter", "    where: "+yamlQuote(tc.where)+"\n"), in, data)
			if err != nil {
				t.Fatal(err)
			}
			if got := keptA(out); !equalInts(got, tc.want) {
				t.Errorf("kept %v, want %v", got, tc.want)
			}
		})
	}
	bad := []struct{ where, msg string }{
		{"c > 1", `job.yaml:8:13: transforms.t.where: no field "c" in the input (did you mean "a"?); fields: a, b, s`},
		{"a == 'x'", `job.yaml:8:18: transforms.t.where: field "a" holds '<i4' numbers; compare it with a number`},
		{"s > 1", `job.yaml:8:17: transforms.t.where: field "s" holds strings; compare it with a quoted string`},
		{"'x' == a", `job.yaml:8:13: transforms.t.where: field "a" holds '<i4' numbers; compare it with a number`},
		{"1 < s", `job.yaml:8:13: transforms.t.where: field "s" holds strings; compare it with a quoted string`},
		{"0 < a < 'z'", `job.yaml:8:21: transforms.t.where: field "a" holds '<i4' numbers; compare it with a number`},
		{"0 < c", `job.yaml:8:17: transforms.t.where: no field "c" in the input (did you mean "a"?); fields: a, b, s`},
	}
	for _, tc := range bad {
		_, err := apply(t, component(t, "filter", "    where: "+yamlQuote(tc.where)+"\n"), in, data)
		if err == nil || err.Error() != tc.msg {
			t.Errorf("%s: err = %v\nwant %s", tc.where, err, tc.msg)
		}
	}
}

func yamlQuote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

func equalInts(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRowTransforms(t *testing.T) {
	in, data := records(t)
	cases := []struct {
		typ, opts string
		want      []int32
	}{
		{"slice", "    start: 1\n    stop: 5\n    step: 2\n", []int32{2, 4}},
		{"slice", "    start: 3\n", []int32{4, 5}},
		{"limit", "    rows: 3\n", []int32{1, 2, 3}},
		{"limit", "    rows: 0\n", nil},
		{"sample", "    fraction: 1\n", []int32{1, 2, 3, 4, 5}},
		{"sample", "    fraction: 0\n", nil},
		{"select", "    fields: [a]\n", []int32{1, 2, 3, 4, 5}},
		{"drop", "    fields: [b, s]\n", []int32{1, 2, 3, 4, 5}},
	}
	for _, tc := range cases {
		t.Run(tc.typ+" "+strings.ReplaceAll(strings.TrimSpace(tc.opts), "\n", ","), func(t *testing.T) {
			out, err := apply(t, component(t, tc.typ, tc.opts), in, data)
			if err != nil {
				t.Fatal(err)
			}
			if got := keptA(out); !equalInts(got, tc.want) {
				t.Errorf("kept %v, want %v", got, tc.want)
			}
		})
	}
	// select reorders and packs: s then a.
	out, err := apply(t, component(t, "select", "    fields: [s, a]\n"), in, data)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.schema.DType.String(); got != "[('s', '<U3'), ('a', '<i4')]" {
		t.Errorf("select dtype %s", got)
	}
	if got := rowbytes.Load[int32](out.data, 2*16+12); got != 3 || rowbytes.UCS4String(out.data[2*16:2*16+12]) != "zzz" {
		t.Errorf("select row 2 = %d %q", got, rowbytes.UCS4String(out.data[2*16:2*16+12]))
	}
}

// TestSampleDeterministic: which rows sample keeps depends on the seed and
// the row's position only, not on batching.
func TestSampleDeterministic(t *testing.T) {
	in := plain(npyio.Int64Type)
	v := make([]int64, 10000)
	for i := range v {
		v[i] = int64(i)
	}
	c := component(t, "sample", "    fraction: 0.25\n    seed: 7\n")
	a, err := apply(t, c, in, npyio.AsBytes(v))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := build(c, in, nil)
	b := &collect{schema: in}
	n.(producer).connect(b)
	for i := 0; i < len(v); i += 37 {
		n.Push(Batch{Rows: min(37, len(v)-i), Data: npyio.AsBytes(v[i:min(i+37, len(v))])})
	}
	if !bytes.Equal(a.data, b.data) {
		t.Error("sample depends on batching")
	}
	if a.rows < 2300 || a.rows > 2700 {
		t.Errorf("kept %d of 10000 at 0.25", a.rows)
	}
}

func TestGlob(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"runs/r1/frame_1.npy", "runs/r1/frame_10.npy", "runs/r2/frame_2.npy", "runs/r2/sub/frame_3.npy",
		"runs/r2/frame_x.npy", "runs/.hidden/frame_4.npy", "top.npy", "runs/r1/.frame_5.npy.tmp-1"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	cases := []struct {
		pattern string
		want    string
	}{
		{"runs/{run}/frame_{step:int}.npy", "runs/r1/frame_1.npy[run=r1 step=1] runs/r1/frame_10.npy[run=r1 step=10] runs/r2/frame_2.npy[run=r2 step=2]"},
		{"runs/**/frame_*.npy", "runs/r1/frame_1.npy runs/r1/frame_10.npy runs/r2/frame_2.npy runs/r2/frame_x.npy runs/r2/sub/frame_3.npy"},
		{"**/*.npy", "runs/r1/frame_1.npy runs/r1/frame_10.npy runs/r2/frame_2.npy runs/r2/frame_x.npy runs/r2/sub/frame_3.npy top.npy"},
		{"runs/r[2]/frame_?.npy", "runs/r2/frame_2.npy runs/r2/frame_x.npy"},
		{"top.npy", "top.npy"},
	}
	for _, tc := range cases {
		pt, _, err := compilePattern(filepath.Join(dir, tc.pattern), true)
		if err != nil {
			t.Fatalf("%s: %v", tc.pattern, err)
		}
		ms, err := pt.glob(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range ms {
			r, _ := filepath.Rel(dir, m.Path)
			if len(m.Caps) > 0 {
				r += "[run=" + m.Caps["run"] + " step=" + m.Caps["step"] + "]"
			}
			got = append(got, r)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.pattern, strings.Join(got, " "), tc.want)
		}
	}
	ex, _, _ := compilePattern("frame_1*.npy", false)
	if !excluded(filepath.Join(dir, "runs/r1/frame_10.npy"), []*pattern{ex}) || excluded(filepath.Join(dir, "runs/r2/frame_2.npy"), []*pattern{ex}) {
		t.Error("base-name exclusion")
	}
}

// TestSchemaFile keeps examples/npyflow.schema.json in step with the
// registry (regenerate with: npyflow schema > examples/npyflow.schema.json).
func TestSchemaFile(t *testing.T) {
	want, err := job.JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../examples/npyflow.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(bytes.TrimSpace(got)) != string(want) {
		t.Error("examples/npyflow.schema.json is stale: run npyflow schema > examples/npyflow.schema.json")
	}
}
