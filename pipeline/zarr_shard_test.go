package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/npyflow/npyflow/internal/storage/storagetest"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/shardrun"
	"github.com/npyflow/npyflow/zarr"
)

// writeShardInputs writes one .npy of rows[i] rows of 3 float64 per
// entry (in0.npy, ...), the values counting on across the files, and
// returns their names.
func writeShardInputs(t *testing.T, dir string, rows []int) []string {
	t.Helper()
	var names []string
	v := 0
	for i, n := range rows {
		data := make([]byte, n*3*8)
		for k := range n * 3 {
			binary.LittleEndian.PutUint64(data[8*k:], math.Float64bits(float64(v)/8))
			v++
		}
		name := fmt.Sprintf("in%d.npy", i)
		var buf bytes.Buffer
		w, err := npyio.NewWriter(&buf, &npyio.Header{DType: npyio.Float64Type, Shape: []int{n, 3}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

// zarrKeys reads every key of the store at path readers see (no hidden
// staging file, no _SUCCESS).
func zarrKeys(t *testing.T, path string) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	s := zarr.NewFSStore(path)
	keys, err := s.List(ctx, "")
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string][]byte{}
	for _, k := range keys {
		if slices.ContainsFunc(strings.Split(k, "/"), func(e string) bool {
			return strings.HasPrefix(e, ".") && strings.Contains(e, ".npyflow-") || strings.Contains(e, ".tmp-") || e == shardrun.SuccessFile
		}) {
			continue
		}
		n, err := s.Size(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, n)
		if err := s.ReadAt(ctx, k, b, 0); err != nil {
			t.Fatal(err)
		}
		out[k] = b
	}
	return out
}

// runShards runs the job as n tasks at once and returns their errors.
func runShards(t *testing.T, dir, jb string, n int) []error {
	errs := make([]error, n)
	done := make(chan struct{})
	for i := range n {
		go func() {
			_, errs[i] = runDataset(t, dir, jb, &ShardOptions{Shard: shardrun.Shard{Index: i, Count: n}})
			done <- struct{}{}
		}()
	}
	for range n {
		<-done
	}
	return errs
}

// TestZarrShardedSink: 1, 2 and 3 tasks write the same store as a single
// run, key for key and byte for byte (metadata, consolidated metadata and
// every chunk), in v2 and in v3 with shards, with inputs of whole chunks
// (shards) but the last; the values read back are the inputs'.
func TestZarrShardedSink(t *testing.T) {
	dir := t.TempDir()
	ins := writeShardInputs(t, dir, []int{40, 20, 40, 25})
	for _, tc := range []struct{ name, opts string }{
		{"v2", "zarr_format: 2\n    chunks: \"20\"\n    compression: blosc"},
		{"v3", "chunks: \"10\"\n    shards: \"20\""},
	} {
		t.Run(tc.name, func(t *testing.T) { checkZarrShardedSink(t, dir, ins, tc.name, tc.opts) })
	}
}

// checkZarrShardedSink runs the job writing ins into a store with the
// zarr sink's options opts, as one run and as 1, 2 and 3 tasks.
func checkZarrShardedSink(t *testing.T, dir string, ins []string, name, opts string) {
	t.Helper()
	jobText := func(out string) string {
		return `version: 1
sources:
  s:
    type: npy
    paths: [` + strings.Join(ins, ", ") + `]
sinks:
  z:
    type: zarr
    input: s
    path: ` + out + `
    array: grp/data
    ` + opts + "\n"
	}
	one := filepath.Join(name, "one.zarr")
	if _, err := runDataset(t, dir, jobText(one), nil); err != nil {
		t.Fatal(err)
	}
	want := zarrKeys(t, filepath.Join(dir, one))
	if len(want) < 8 {
		t.Fatalf("%s: the single run wrote %d keys", name, len(want))
	}
	for n := 1; n <= 3; n++ {
		out := filepath.Join(name, fmt.Sprintf("n%d.zarr", n))
		for i, err := range runShards(t, dir, jobText(out), n) {
			if err != nil {
				t.Fatalf("%s: task %d of %d: %v", name, i, n, err)
			}
		}
		got := zarrKeys(t, filepath.Join(dir, out))
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Errorf("%s, %d tasks: %s differs from the single run's (%d bytes, want %d)", name, n, k, len(got[k]), len(v))
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s, %d tasks: extra key %s", name, n, k)
			}
		}
	}
	// The values, read back.
	a, err := zarr.OpenArray(context.Background(), zarr.NewFSStore(filepath.Join(dir, name, "n3.zarr")), "grp/data")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Shape, []int64{125, 3}) {
		t.Fatalf("%s: shape %v", name, a.Shape)
	}
	buf := make([]byte, 125*3*8)
	if err := a.Read(context.Background(), []int64{0, 0}, []int64{125, 3}, buf); err != nil {
		t.Fatal(err)
	}
	for k := range 125 * 3 {
		if v := math.Float64frombits(binary.NativeEndian.Uint64(buf[8*k:])); v != float64(k)/8 {
			t.Fatalf("%s: element %d = %v", name, k, v)
		}
	}
}

// TestZarrShardedSinkRefusals: inputs that do not start on chunk
// boundaries are refused before anything is written, with the chunk rows
// that would fit; a task that fails leaves no metadata at the output,
// whatever the others wrote.
func TestZarrShardedSinkRefusals(t *testing.T) {
	dir := t.TempDir()
	ins := writeShardInputs(t, dir, []int{30, 45, 40})
	jobText := func(out, chunks string) string {
		return `version: 1
sources:
  s:
    type: npy
    paths: [` + strings.Join(ins, ", ") + `]
sinks:
  z:
    type: zarr
    input: s
    path: ` + out + `
    array: data
    chunks: "` + chunks + `"
`
	}
	errs := runShards(t, dir, jobText("bad.zarr", "20"), 2)
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "starts at row 30, inside a chunk of 20 rows") || !strings.Contains(err.Error(), "chunks of 15 rows") {
			t.Errorf("task %d: %v", i, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.zarr")); !os.IsNotExist(err) {
		t.Errorf("a refused run left bad.zarr (%v)", err)
	}
	// One task writes any layout, as a single run does.
	if _, err := runDataset(t, dir, jobText("single.zarr", "20"), nil); err != nil {
		t.Fatal(err)
	}
	if errs := runShards(t, dir, jobText("task.zarr", "20"), 1); errs[0] != nil {
		t.Fatal(errs[0])
	}
	want, got := zarrKeys(t, filepath.Join(dir, "single.zarr")), zarrKeys(t, filepath.Join(dir, "task.zarr"))
	if len(want) != 8 || len(got) != len(want) {
		t.Errorf("one task wrote %d keys, the single run %d, want 8", len(got), len(want))
	}
	for k, v := range want {
		if !bytes.Equal(got[k], v) {
			t.Errorf("one task: %s differs from the single run's", k)
		}
	}
	// A Zarr source read in bands of 100 rows by 3 tasks, into chunks of
	// 50: the task reading the band with a damaged chunk fails after the
	// others wrote theirs, and readers see nothing of the output.
	writeZarrRows(t, filepath.Join(dir, "src.zarr"), 300, 50, 0)
	if err := os.WriteFile(filepath.Join(dir, "src.zarr", "x", "4.0"), []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	bands := `version: 1
sources:
  s:
    type: zarr
    paths: [src.zarr]
    band_rows: 100
sinks:
  z:
    type: zarr
    input: s
    path: fail.zarr
    array: x
    chunks: "50"
`
	var failed []string
	for _, err := range runShards(t, dir, bands, 3) {
		if err != nil {
			failed = append(failed, err.Error())
		}
	}
	if len(failed) != 1 || !strings.Contains(failed[0], "x[200:300]") {
		t.Fatalf("want task 2 alone to fail, got %q", failed)
	}
	if vis := visibleFiles(t, filepath.Join(dir, "fail.zarr")); len(vis) != 0 {
		t.Errorf("a failed run left %v at the output", vis)
	}
	var staged int
	filepath.WalkDir(filepath.Join(dir, "fail.zarr"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(d.Name(), ".npyflow-") {
			staged++
		}
		return nil
	})
	if staged < 3 {
		t.Errorf("the tasks that succeeded staged %d files, want their chunks and metadata", staged)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "fail.zarr", ".zarr.json.npyflow-*")); len(m) != 1 {
		t.Errorf("the task with the first band staged %d group documents, want 1", len(m))
	}
}

// TestZarrShardedSinkBands: a Zarr store read in bands by 3 tasks and
// written as a sharded v3 store is the store a single run writes.
func TestZarrShardedSinkBands(t *testing.T) {
	dir := t.TempDir()
	writeZarrRows(t, filepath.Join(dir, "src.zarr"), 330, 30, 0)
	jobText := func(out string) string {
		return `version: 1
sources:
  s:
    type: zarr
    paths: [src.zarr]
    band_rows: 100
sinks:
  z:
    type: zarr
    input: s
    path: ` + out + `
    array: x
    chunks: "15"
    shards: "60"
`
	}
	if _, err := runDataset(t, dir, jobText("one.zarr"), nil); err != nil {
		t.Fatal(err)
	}
	want := zarrKeys(t, filepath.Join(dir, "one.zarr"))
	for i, err := range runShards(t, dir, jobText("n3.zarr"), 3) {
		if err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
	}
	got := zarrKeys(t, filepath.Join(dir, "n3.zarr"))
	if len(got) != len(want) || len(want) != 8 { // 6 shards, 2 documents
		t.Errorf("%d keys, the single run %d, want 8", len(got), len(want))
	}
	for k, v := range want {
		if !bytes.Equal(got[k], v) {
			t.Errorf("%s differs from the single run's", k)
		}
	}
}

// TestZarrShardedSinkPerInput: a store per input ({stem}.zarr), each
// written whole by the task of its input, metadata included.
func TestZarrShardedSinkPerInput(t *testing.T) {
	dir := t.TempDir()
	ins := writeShardInputs(t, dir, []int{7, 12, 5})
	jobText := func(out string) string {
		return `version: 1
sources:
  s:
    type: npy
    paths: [` + strings.Join(ins, ", ") + `]
sinks:
  z:
    type: zarr
    input: s
    path: ` + out + `/{stem}.zarr
    array: v
    chunks: "4"
`
	}
	if _, err := runDataset(t, dir, jobText("one"), nil); err != nil {
		t.Fatal(err)
	}
	for i, err := range runShards(t, dir, jobText("n2"), 2) {
		if err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
	}
	for _, in := range ins {
		st := strings.TrimSuffix(in, ".npy") + ".zarr"
		want, got := zarrKeys(t, filepath.Join(dir, "one", st)), zarrKeys(t, filepath.Join(dir, "n2", st))
		if len(want) < 3 || len(got) != len(want) {
			t.Errorf("%s: %d keys, the single run %d", st, len(got), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Errorf("%s: %s differs from the single run's", st, k)
			}
		}
	}
}

// TestZarrShardedSinkBucket: 2 tasks write a store into a bucket (the
// storage layer's in-memory backend, which cannot rename): the same keys
// and bytes as a single run to a directory, nothing visible before the
// commit.
func TestZarrShardedSinkBucket(t *testing.T) {
	mem := storagetest.NewMem("zshard")
	defer mem.Reset()
	dir := t.TempDir()
	ins := writeShardInputs(t, dir, []int{20, 20, 17})
	out := fmt.Sprintf("zshard://b/run-%d/out.zarr", time.Now().UnixNano())
	jobText := func(out string) string {
		return `version: 1
sources:
  s:
    type: npy
    paths: [` + strings.Join(ins, ", ") + `]
sinks:
  z:
    type: zarr
    input: s
    path: "` + out + `"
    array: data
    chunks: "10"
    zarr_format: 2
`
	}
	if _, err := runDataset(t, dir, jobText("one.zarr"), nil); err != nil {
		t.Fatal(err)
	}
	want := zarrKeys(t, filepath.Join(dir, "one.zarr"))
	if _, err := runDataset(t, dir, jobText(out), &ShardOptions{Shard: shardrun.Shard{Index: 0, Count: 2}}); err != nil {
		t.Fatal(err)
	}
	if got := zarrKeys(t, out); len(got) != 0 {
		t.Fatalf("before the commit, readers see %d keys", len(got))
	}
	if _, err := runDataset(t, dir, jobText(out), &ShardOptions{Shard: shardrun.Shard{Index: 1, Count: 2}}); err != nil {
		t.Fatal(err)
	}
	got := zarrKeys(t, out)
	if len(got) != len(want) {
		t.Errorf("%d keys, want %d", len(got), len(want))
	}
	for k, v := range want {
		if !bytes.Equal(got[k], v) {
			t.Errorf("%s differs from the single run's", k)
		}
	}
}

// TestZarrShardedSinkResume: a task stopped after its first input keeps
// the chunks it checkpointed; resumed, it writes only the rest, and the
// committed store is the single run's.
func TestZarrShardedSinkResume(t *testing.T) {
	dir := t.TempDir()
	ins := writeShardInputs(t, dir, []int{20, 20, 20, 20, 20, 13})
	jobText := func(out string) string {
		return `version: 1
sources:
  s:
    type: npy
    paths: [` + strings.Join(ins, ", ") + `]
sinks:
  z:
    type: zarr
    input: s
    path: ` + out + `
    array: data
    chunks: "10"
`
	}
	if _, err := runDataset(t, dir, jobText("one.zarr"), nil); err != nil {
		t.Fatal(err)
	}
	run := func(i int, resume, stop bool) (*Summary, error) {
		j, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(jobText("n2.zarr")), &job.LoadOptions{LookupEnv: env(nil)})
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlan(context.Background(), j, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		o := ShardOptions{Shard: shardrun.Shard{Index: i, Count: 2}, Resume: resume, CheckpointBytes: 1}
		if stop {
			o.AfterPart = func(*Part) { cancel() }
		}
		return p.Run(ctx, &RunOptions{Workers: 2, Shard: &o})
	}
	if _, err := run(0, false, true); err == nil {
		t.Fatal("task 0 was not stopped")
	}
	sum, err := run(0, true, false)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Shard.Resumed != 1 {
		t.Errorf("task 0 resumed %d inputs, want 1", sum.Shard.Resumed)
	}
	if _, err := run(1, false, false); err != nil {
		t.Fatal(err)
	}
	want, got := zarrKeys(t, filepath.Join(dir, "one.zarr")), zarrKeys(t, filepath.Join(dir, "n2.zarr"))
	if len(want) != 14 || len(got) != len(want) { // 12 chunks, 2 documents
		t.Errorf("%d keys, the single run %d, want 14", len(got), len(want))
	}
	for k, v := range want {
		if !bytes.Equal(got[k], v) {
			t.Errorf("%s differs from the single run's", k)
		}
	}
}

// TestZarrShardedSinkFrozen: planning refuses inputs off the chunk
// boundaries as a run does; the tasks of a frozen plan write the single
// run's store.
func TestZarrShardedSinkFrozen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ins := writeShardInputs(t, dir, []int{16, 8, 24, 3})
	jobText := func(chunks string) []byte {
		return []byte(`version: 1
sources:
  s:
    type: npy
    paths: [` + strings.Join(ins, ", ") + `]
sinks:
  z:
    type: zarr
    input: s
    path: planned.zarr
    array: data
    chunks: "` + chunks + `"
`)
	}
	plan := func(text []byte) (*Plan, error) {
		j, err := job.Load(filepath.Join(dir, "job.yaml"), text, &job.LoadOptions{LookupEnv: env(nil)})
		if err != nil {
			t.Fatal(err)
		}
		return NewPlan(ctx, j, nil)
	}
	p, err := plan(jobText("16"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Freeze(ctx, 2, jobText("16"), nil); err == nil || !strings.Contains(err.Error(), "starts at row 24, inside a chunk of 16 rows") || !strings.Contains(err.Error(), "chunks of 8 rows") {
		t.Fatalf("freezing inputs off the chunks: %v", err)
	}
	p, err = plan(jobText("8"))
	if err != nil {
		t.Fatal(err)
	}
	fp, err := p.Freeze(ctx, 2, jobText("8"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		jb, err := fp.LoadJob(&job.LoadOptions{LookupEnv: env(nil)})
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlan(ctx, jb, &PlanOptions{Frozen: fp})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Run(ctx, &RunOptions{Shard: &ShardOptions{Shard: shardrun.Shard{Index: i}}}); err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
	}
	got := zarrKeys(t, filepath.Join(dir, "planned.zarr"))
	if err := os.Rename(filepath.Join(dir, "planned.zarr"), filepath.Join(dir, "sharded.zarr")); err != nil {
		t.Fatal(err)
	}
	if _, err := runDataset(t, dir, string(jobText("8")), nil); err != nil {
		t.Fatal(err)
	}
	want := zarrKeys(t, filepath.Join(dir, "planned.zarr"))
	if len(want) != 9 || len(got) != len(want) { // 7 chunks, 2 documents
		t.Errorf("%d keys, the single run %d, want 9", len(got), len(want))
	}
	for k, v := range want {
		if !bytes.Equal(got[k], v) {
			t.Errorf("%s differs from the single run's", k)
		}
	}
}
