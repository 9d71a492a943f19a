package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
	"github.com/npyflow/npyflow/pipeline/job"
)

// runJob loads, plans and runs a job file with OUT set to a fresh
// directory, which it returns.
func runJob(t *testing.T, path string, opts *RunOptions, set ...string) (string, *Summary, error) {
	t.Helper()
	out := t.TempDir()
	jb, err := job.LoadFile(path, &job.LoadOptions{Set: set, LookupEnv: env(map[string]string{"OUT": out})})
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	plan, err := NewPlan(context.Background(), jb, nil)
	if err != nil {
		t.Fatalf("plan %s: %v", path, err)
	}
	sum, err := plan.Run(context.Background(), opts)
	return out, sum, err
}

type demoExpect struct {
	Readings struct {
		Rows      int64   `json:"rows"`
		TempSum   float64 `json:"temp_sum"`
		HotOKRows int64   `json:"hot_ok_rows"`
	} `json:"readings"`
	Matrix []map[string]float64 `json:"matrix"`
}

func loadExpect(t *testing.T) *demoExpect {
	b, err := os.ReadFile("../testdata/demo/expect.json")
	if err != nil {
		t.Fatal(err)
	}
	var e demoExpect
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return &e
}

// listFiles returns every file under dir, relative, sorted.
func listFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			r, _ := filepath.Rel(dir, p)
			out = append(out, r)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func close64(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}

// TestDemo runs examples/demo.yaml (with outputs synced to disk) and
// checks the Parquet table with arrow's pqarrow reader and the describe
// output against numpy's values.
func TestDemo(t *testing.T) {
	exp := loadExpect(t)
	out, sum, err := runJob(t, "../examples/demo.yaml", &RunOptions{Sync: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := listFiles(t, out); strings.Join(got, " ") != "matrix_describe.npy readings.parquet" {
		t.Fatalf("outputs: %v", got)
	}
	if sum.Sinks[0].Rows != exp.Readings.Rows || sum.Sinks[1].Rows != 4 {
		t.Errorf("sink rows %d, %d", sum.Sinks[0].Rows, sum.Sinks[1].Rows)
	}

	// Not a checked allocator: arrow-go v18.8.0's DELTA_BINARY_PACKED
	// decoder leaks 64 bytes per column chunk (deltaBitPackDecoder.initBlock).
	mem := memory.DefaultAllocator
	f, err := os.Open(filepath.Join(out, "readings.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tbl, err := pqarrow.ReadTable(context.Background(), f, parquet.NewReaderProperties(mem), pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if tbl.NumRows() != exp.Readings.Rows {
		t.Errorf("parquet rows = %d, numpy %d", tbl.NumRows(), exp.Readings.Rows)
	}
	var names []string
	for _, fl := range tbl.Schema().Fields() {
		names = append(names, fl.Name)
	}
	want := "time temperature_c humidity pressure sensor ok label wind_u wind_v station day"
	if strings.Join(names, " ") != want {
		t.Fatalf("columns %v, want %s", names, want)
	}
	col := func(name string) *arrow.Chunked {
		return tbl.Column(tbl.Schema().FieldIndices(name)[0]).Data()
	}
	var tempSum float64
	for _, ch := range col("temperature_c").Chunks() {
		for _, v := range ch.(*array.Float32).Float32Values() {
			tempSum += float64(v)
		}
	}
	if math.Abs(tempSum-exp.Readings.TempSum) > 1e-9*math.Abs(exp.Readings.TempSum) {
		t.Errorf("sum of temperature_c = %v, numpy %v", tempSum, exp.Readings.TempSum)
	}
	// Captures: station from the directory, day from the file name; files
	// are read in path order (north 1..3, then south 1..3), 50, 60, 70 rows.
	counts := map[string]int{}
	row := 0
	st, dayC := col("station").Chunks(), col("day").Chunks()
	for i := range st {
		s, d := st[i].(*array.String), dayC[i].(*array.Int64)
		for j := 0; j < s.Len(); j++ {
			key := s.Value(j) + "/" + string(rune('0'+d.Value(j)))
			counts[key]++
			if row == 0 && key != "north/1" {
				t.Errorf("first row from %s", key)
			}
			row++
		}
	}
	wantCounts := map[string]int{"north/1": 50, "north/2": 60, "north/3": 70, "south/1": 50, "south/2": 60, "south/3": 70}
	for k, v := range wantCounts {
		if counts[k] != v {
			t.Errorf("rows from %s = %d, want %d", k, counts[k], v)
		}
	}
	if tm := col("time").DataType(); tm.ID() != arrow.TIMESTAMP {
		t.Errorf("time column is %s", tm)
	}

	a, err := npyio.ReadFile(filepath.Join(out, "matrix_describe.npy"), nil)
	if err != nil {
		t.Fatal(err)
	}
	dt := a.DType
	for i, m := range exp.Matrix {
		rowb := a.Data[i*dt.Size : (i+1)*dt.Size]
		for k, v := range m {
			fi := rowbytes.FieldIndex(dt, k)
			if fi < 0 {
				t.Fatalf("no column %q in %s", k, dt)
			}
			var got float64
			if k == "count" {
				got = float64(rowbytes.Load[int64](rowb, dt.Fields[fi].Offset))
			} else {
				got = rowbytes.Load[float64](rowb, dt.Fields[fi].Offset)
			}
			if !close64(got, v) {
				t.Errorf("column %d %s = %v, numpy %v", i, k, got, v)
			}
		}
	}
}

// reading is one row of the demo readings, decoded for checks.
type reading struct {
	time  int64
	temp  float32
	ok    bool
	label string
}

func readReadings(t *testing.T, path string) []reading {
	a, err := npyio.ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	dt := a.DType
	off := func(n string) int { return dt.Fields[rowbytes.FieldIndex(dt, n)].Offset }
	lab := dt.Fields[rowbytes.FieldIndex(dt, "label")]
	var out []reading
	for r := 0; r < a.Header.Shape[0]; r++ {
		b := a.Data[r*dt.Size:]
		out = append(out, reading{time: rowbytes.Load[int64](b, off("time")), temp: rowbytes.Load[float32](b, off("temp")),
			ok: b[off("ok")] != 0, label: rowbytes.UCS4String(b[lab.Offset : lab.Offset+lab.Type.Size])})
	}
	return out
}

// TestFilterExample checks examples/filter.yaml against the same filter
// done by hand on the numpy-written inputs.
func TestFilterExample(t *testing.T) {
	out, _, err := runJob(t, "../examples/filter.yaml", &RunOptions{Workers: 3, BatchBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var all []byte
	for _, st := range []string{"north", "south"} {
		for _, day := range []string{"1", "2"} {
			in := readReadings(t, "../testdata/demo/stations/"+st+"/readings_"+day+".npy")
			name := st + "_readings_" + day + "_hot.npy"
			a, err := npyio.ReadFile(filepath.Join(out, name), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.DType.String(); got != "[('time', '<M8[s]'), ('temp', '<f8'), ('label', '<U6')]" {
				t.Fatalf("%s dtype %s", name, got)
			}
			var want []reading
			from := time.Date(2024, 6, 1, 2, 0, 0, 0, time.UTC).Unix()
			for _, r := range in {
				if r.temp > 25 && r.ok && r.time >= from {
					want = append(want, r)
				}
			}
			if a.Header.Shape[0] != len(want) {
				t.Fatalf("%s: %d rows, want %d", name, a.Header.Shape[0], len(want))
			}
			for i, w := range want {
				b := a.Data[i*a.DType.Size:]
				if rowbytes.Load[int64](b, 0) != w.time || rowbytes.Load[float64](b, 8) != float64(w.temp) || rowbytes.UCS4String(b[16:40]) != w.label {
					t.Errorf("%s row %d differs", name, i)
				}
			}
			all = append(all, a.Data...)
		}
	}
	z, err := npyio.OpenNPZ(filepath.Join(out, "hot.npz"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if got := strings.Join(z.Keys(), " "); got != "north_readings_1 north_readings_2 south_readings_1 south_readings_2" {
		t.Errorf("npz members %s", got)
	}
	var zall []byte
	for _, m := range z.Members {
		if !m.Compressed() {
			t.Errorf("member %s stored, want deflated", m.Key)
		}
		a, err := m.ReadArray()
		if err != nil {
			t.Fatal(err)
		}
		zall = append(zall, a.Data...)
	}
	if !bytes.Equal(all, zall) {
		t.Error("npz members differ from the npy outputs")
	}
}

func TestFramesExample(t *testing.T) {
	out, _, err := runJob(t, "../examples/frames.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := npyio.ReadFile(filepath.Join(out, "rows.npy"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Header.Shape) != 1 || a.Header.Shape[0] != 6 || len(a.DType.Fields) != 5 || a.DType.Fields[4].Name != "px_4" {
		t.Fatalf("got %v %s", a.Header.Shape, a.DType)
	}
	v, _ := npyio.View[uint16](a.Data)
	for i, x := range v {
		// numpy: np.arange(60).reshape(12, 5)[::2].ravel()
		if r, c := i/5, i%5; int(x) != 2*r*5+c {
			t.Fatalf("value %d = %d, want %d", i, x, 2*r*5+c)
		}
	}

	// The Arrow IPC file, read with arrow's own reader.
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f, err := os.Open(filepath.Join(out, "rows.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fr, err := ipc.NewFileReader(f, ipc.WithAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	rows := 0
	for i := 0; i < fr.NumRecords(); i++ {
		rec, err := fr.RecordBatch(i)
		if err != nil {
			t.Fatal(err)
		}
		if rec.NumCols() != 5 || rec.Schema().Field(4).Name != "px_4" {
			t.Fatalf("schema %s", rec.Schema())
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			for c := 0; c < 5; c++ {
				// numpy: np.arange(60).reshape(12, 5)
				if got := rec.Column(c).(*array.Uint16).Value(r); int(got) != (rows+r)*5+c {
					t.Fatalf("arrow row %d col %d = %d", rows+r, c, got)
				}
			}
		}
		rows += int(rec.NumRows())
	}
	if rows != 12 {
		t.Errorf("arrow rows = %d, want 12", rows)
	}
}

// TestWorkersDeterministic runs the same job with 1 and 4 workers and
// tiny batches: the outputs must be byte-identical.
func TestWorkersDeterministic(t *testing.T) {
	var first map[string][]byte
	for _, w := range []int{1, 4} {
		out, _, err := runJob(t, "../examples/filter.yaml", &RunOptions{Workers: w, BatchBytes: 300},
			"sources.readings.exclude=nothing.npy")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]byte{}
		for _, f := range listFiles(t, out) {
			got[f], _ = os.ReadFile(filepath.Join(out, f))
		}
		if len(got) != 7 {
			t.Fatalf("%d workers: %d files", w, len(got))
		}
		if first == nil {
			first = got
			continue
		}
		for k, v := range first {
			if !bytes.Equal(v, got[k]) {
				t.Errorf("%s differs between 1 and %d workers", k, w)
			}
		}
	}
}

// cancelAfter cancels the run after n progress updates.
type cancelAfter struct {
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Start(int, int64, int64) {}
func (c *cancelAfter) Done(bool)               {}
func (c *cancelAfter) Update(int, int64, int64) {
	if c.n--; c.n == 0 {
		c.cancel()
	}
}

// TestInterruptLeavesNothing cancels runs at different points: no output
// or temporary file may remain, and the error says why.
func TestInterruptLeavesNothing(t *testing.T) {
	for _, n := range []int{1, 5, 20} {
		out := filepath.Join(t.TempDir(), "out")
		jb, err := job.LoadFile("../examples/filter.yaml", &job.LoadOptions{LookupEnv: env(map[string]string{"OUT": out})})
		if err != nil {
			t.Fatal(err)
		}
		plan, err := NewPlan(context.Background(), jb, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		_, err = plan.Run(ctx, &RunOptions{Workers: 2, BatchBytes: 200, Progress: &cancelAfter{n: n, cancel: cancel}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("after %d updates: err = %v", n, err)
		}
		if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("after %d updates: %s left behind: %v", n, out, listFiles(t, out))
		}
	}
}

// TestFailureLeavesNothing makes a late input fail (a cast overflow in
// north/readings_3): the outputs already finished for earlier inputs must
// not be committed.
func TestFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	data, _ := filepath.Abs("../testdata/demo/stations")
	jb := `version: 1
sources:
  r: {type: npy, paths: "` + data + `/{station}/readings_{day:int}.npy"}
transforms:
  f: {type: filter, input: r, where: "day == 3 or sensor < 100"}
  c: {type: cast, input: f, fields: {sensor: int8}}
sinks:
  o: {type: npy, input: c, path: "` + dir + `/out/{station}_{day}.npy"}
`
	j, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(jb), nil)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(context.Background(), j, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = plan.Run(context.Background(), &RunOptions{Workers: 2})
	if err == nil || !strings.Contains(err.Error(), `field "sensor"`) || !strings.Contains(err.Error(), `does not fit '|i1'`) {
		t.Fatalf("err = %v", err)
	}
	if got := listFiles(t, dir); len(got) != 0 {
		t.Errorf("left behind: %v", got)
	}
}

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}
