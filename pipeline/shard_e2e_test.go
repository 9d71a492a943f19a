package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"

	"github.com/npyflow/npyflow/shardrun"
)

// The sharding tests run the real CLI as separate processes, built once.

var (
	cliOnce sync.Once
	cliPath string
	cliErr  error
)

func buildCLI(t *testing.T) string {
	t.Helper()
	cliOnce.Do(func() {
		dir, err := os.MkdirTemp("", "npyflow-cli-")
		if err != nil {
			cliErr = err
			return
		}
		cliPath = filepath.Join(dir, "npyflow")
		out, err := exec.Command("go", "build", "-o", cliPath, "../cmd/npyflow").CombinedOutput()
		if err != nil {
			cliErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if cliErr != nil {
		t.Fatal(cliErr)
	}
	return cliPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if cliPath != "" {
		os.RemoveAll(filepath.Dir(cliPath))
	}
	os.Exit(code)
}

// cli runs the CLI in dir with extra environment variables.
func cli(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(buildCLI(t), args...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// cleanEnv is the environment without any scheduler's shard variables.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		skip := strings.HasPrefix(k, "NPYFLOW_") || strings.HasPrefix(k, "SLURM_")
		for _, e := range shardrun.EnvVars() {
			skip = skip || k == e.Index || k == e.Count
		}
		if !skip {
			out = append(out, kv)
		}
	}
	return out
}

// shardData writes runs/<run>/f<k>.npy files of records (station U3, id
// int64, temp float64, ok bool) with uneven row counts, ids unique across
// all files, and returns the expected aggregates per (run, station).
func shardData(t *testing.T, dir string, runs, files int) map[string]*dsAgg {
	t.Helper()
	u3, _ := npyio.NewString(npyio.Unicode, 3)
	dt, err := npyio.NewStruct([]npyio.Field{{Name: "station", Type: u3}, {Name: "id", Type: npyio.Int64Type},
		{Name: "temp", Type: npyio.Float64Type}, {Name: "ok", Type: npyio.BoolType}})
	if err != nil {
		t.Fatal(err)
	}
	stations := []string{"A", "B/x", "C=1", "é%"}
	want := map[string]*dsAgg{}
	id := int64(0)
	for r := 0; r < runs; r++ {
		for k := 0; k < files; k++ {
			n := 40 + (r*files+k)*37%300 // uneven sizes
			data := make([]byte, n*dt.Size)
			for i := 0; i < n; i++ {
				row := data[i*dt.Size : (i+1)*dt.Size]
				st := stations[(i*7+k)%len(stations)]
				rowbytes.PutUCS4(row[0:12], st)
				binary.NativeEndian.PutUint64(row[12:], uint64(id))
				temp := float64(id%97) * 0.25
				binary.NativeEndian.PutUint64(row[20:], math.Float64bits(temp))
				ok := id%3 == 0
				if ok {
					row[28] = 1
				}
				runName := fmt.Sprintf("r%d", r)
				want[runName+"|"+st] = want[runName+"|"+st].add(id, temp, ok, int64(k))
				id++
			}
			p := filepath.Join(dir, "runs", fmt.Sprintf("r%d", r), fmt.Sprintf("f%d.npy", k))
			if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			w, err := npyio.NewWriter(&buf, &npyio.Header{DType: dt, Shape: []int{n}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(data); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return want
}

// dsAgg is a partition's row count and order-independent checksums.
type dsAgg struct {
	Rows    int64
	IDSum   int64
	IDXor   int64  // with IDSum, catches a duplicate plus a missing row
	TempSum uint64 // sum of the float64 bit patterns
	OK      int64
	KSum    int64
}

func (a *dsAgg) add(id int64, temp float64, ok bool, k int64) *dsAgg {
	if a == nil {
		a = &dsAgg{}
	}
	a.Rows++
	a.IDSum += id
	a.IDXor ^= id * 0x5851F42D4C957F2D
	a.TempSum += math.Float64bits(temp)
	if ok {
		a.OK++
	}
	a.KSum += k
	return a
}

// readDataset reads every visible .parquet file of a Hive-partitioned
// dataset with arrow's pqarrow and aggregates it by (run, station), the
// partition values coming from the directory names. It also returns the
// shard numbers in the file names and fails on hidden leftovers.
func readDataset(t *testing.T, root string) (map[string]*dsAgg, map[string]bool) {
	t.Helper()
	got := map[string]*dsAgg{}
	shards := map[string]bool{}
	// Not a CheckedAllocator: arrow-go v18.8.0's pqarrow delta decoder
	// leaks 64 bytes per column chunk (see readParquetTable in e2e_test.go).
	mem := memory.DefaultAllocator
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "_npyflow" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.Contains(d.Name(), ".tmp-") || strings.Contains(d.Name(), ".npyflow-") {
			t.Errorf("leftover file %s", p)
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".parquet") {
			return nil
		}
		shards[strings.Split(d.Name(), "-")[1]] = true
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		vals := map[string]string{}
		for _, seg := range strings.Split(rel, string(filepath.Separator)) {
			k, v, _ := strings.Cut(seg, "=")
			vals[hiveUnescape(k)] = hiveUnescape(v)
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		tbl, err := pqarrow.ReadTable(context.Background(), f, parquet.NewReaderProperties(mem), pqarrow.ArrowReadProperties{}, mem)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		defer tbl.Release()
		var names []string
		for _, fl := range tbl.Schema().Fields() {
			names = append(names, fl.Name)
		}
		if strings.Join(names, " ") != "id temp ok k" {
			t.Errorf("%s: columns %v, want id temp ok k (partition columns not stored)", p, names)
			return nil
		}
		key := vals["run"] + "|" + vals["station"]
		col := func(i int) []any {
			var out []any
			for _, ch := range tbl.Column(i).Data().Chunks() {
				for j := 0; j < ch.Len(); j++ {
					out = append(out, ch.(interface{ GetOneForMarshal(int) any }).GetOneForMarshal(j))
				}
			}
			return out
		}
		ids, temps, oks, ks := col(0), col(1), col(2), col(3)
		for i := range ids {
			got[key] = got[key].add(ids[i].(int64), temps[i].(float64), oks[i].(bool), ks[i].(int64))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, shards
}

const shardJob = `version: 1
sources:
  raw:
    type: npy
    paths: runs/{run}/f{k:int}.npy
sinks:
  ds:
    type: parquet
    input: raw
    path: ${OUT}/ds
    partition_by: [run, station]
    max_rows_per_file: 150
    compression: snappy
`

func compareAgg(t *testing.T, what string, got, want map[string]*dsAgg) {
	t.Helper()
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if want[k] == nil {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		g, w := got[k], want[k]
		if g == nil || w == nil || *g != *w {
			t.Errorf("%s: partition %q: got %+v, want %+v", what, k, g, w)
		}
	}
}

// TestShardsEqualOneShard runs a job as one process and as four shard
// processes (each finding its shard another way: flag, Kubernetes, a
// Slurm array numbered from 1, Cloud Run variables) from a frozen plan
// made with OUT set (the shards run without it), commits, and checks both
// datasets hold exactly the input's rows (counts and checksums per
// partition), that shards wrote disjoint files, that nothing is visible
// before the commit, and that DuckDB reads the same aggregates.
func TestShardsEqualOneShard(t *testing.T) {
	dir := t.TempDir()
	want := shardData(t, dir, 3, 6)
	if err := os.WriteFile(filepath.Join(dir, "job.yaml"), []byte(shardJob), 0o644); err != nil {
		t.Fatal(err)
	}
	one, four := filepath.Join(dir, "one"), filepath.Join(dir, "four")

	if out, err := cli(t, dir, []string{"OUT=" + one}, "run", "job.yaml", "--quiet"); err != nil {
		t.Fatalf("single run: %v\n%s", err, out)
	}
	got1, _ := readDataset(t, filepath.Join(one, "ds"))
	compareAgg(t, "one shard", got1, want)
	if _, err := os.Stat(filepath.Join(one, "ds", "_SUCCESS")); err != nil {
		t.Errorf("single run: no _SUCCESS: %v", err)
	}

	out, err := cli(t, dir, []string{"OUT=" + four}, "plan", "job.yaml", "--out", "plan.json", "--shards", "4")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	fp, err := LoadFrozenPlan(context.Background(), filepath.Join(dir, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	var largest int64
	for _, in := range fp.Inputs {
		largest = max(largest, in.Size)
		if !strings.HasPrefix(in.Fingerprint, "fp1:") || in.Captures["run"] == "" {
			t.Errorf("plan input %+v: no fingerprint or capture", in)
		}
	}
	lo, hi := slicesMinMax(fp.ShardBytes)
	if len(fp.Inputs) != 18 || hi-lo > largest {
		t.Errorf("plan: %d inputs, shard bytes %v: spread %d exceeds the largest input %d", len(fp.Inputs), fp.ShardBytes, hi-lo, largest)
	}
	envs := [][]string{
		{"NPYFLOW_X=1"}, // --shard 0 below
		{"JOB_COMPLETION_INDEX=1"},
		{"SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=4", "SLURM_ARRAY_TASK_COUNT=4"}, // --index-base 1 below
		{"CLOUD_RUN_TASK_INDEX=3", "CLOUD_RUN_TASK_COUNT=4"},
	}
	var wg sync.WaitGroup
	outs := make([]string, 4)
	errs := make([]error, 4)
	for i, env := range envs {
		args := []string{"run", "--plan", "plan.json", "--no-commit"}
		switch i {
		case 0:
			args = append(args, "--shard", "0")
		case 2:
			args = append(args, "--index-base", "1")
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = cli(t, dir, env, args...)
		}()
	}
	wg.Wait()
	for i := range errs {
		if errs[i] != nil {
			t.Fatalf("shard %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	for i, want := range []string{"", "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "CLOUD_RUN_TASK_INDEX"} {
		if want != "" && !strings.Contains(outs[i], fmt.Sprintf("shard %d/4 from %s=", i, want)) {
			t.Errorf("shard %d: output %q does not say it came from %s", i, outs[i], want)
		}
	}
	ds := filepath.Join(four, "ds")
	if f, _ := shardrun.FirstVisibleFile(context.Background(), ds); f != "" {
		t.Errorf("before commit, readers can see %s", f)
	}
	if out, err := cli(t, dir, nil, "commit", "--plan", "plan.json"); err != nil || !strings.Contains(out, "committed run "+fp.ID) {
		t.Fatalf("commit: %v\n%s", err, out)
	}
	got4, shards := readDataset(t, ds)
	compareAgg(t, "four shards", got4, want)
	compareAgg(t, "four shards vs one", got4, got1)
	if len(shards) != 4 {
		t.Errorf("files came from shards %v, want 4 shards", shards)
	}
	if out, err := cli(t, dir, []string{"OUT=" + four}, "commit", "--plan", "plan.json"); err != nil || !strings.Contains(out, "already committed") {
		t.Errorf("second commit: %v\n%s", err, out)
	}
	duckCheck(t, ds, want)
}

func slicesMinMax(v []int64) (int64, int64) {
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

// duckCheck has DuckDB read the dataset with hive_partitioning and
// compares its aggregates per partition with want. It is skipped unless
// node and @duckdb/node-api (in $NPYFLOW_DUCKDB_MODULES, default /tmp/duck)
// are installed.
func duckCheck(t *testing.T, root string, want map[string]*dsAgg) {
	node, mods, err := fixtures.DuckDB()
	if err != nil {
		t.Logf("DuckDB check skipped: %v", err)
		return
	}
	out, err := exec.Command(node, filepath.Join("testdata", "duckhive.mjs"), root, mods).CombinedOutput()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, out)
	}
	var rows []struct {
		Run, Station       string
		N, IDSum, OK, KSum int64
	}
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("duckdb output %s: %v", out, err)
	}
	if len(rows) != len(want) {
		t.Errorf("DuckDB sees %d partitions, want %d", len(rows), len(want))
	}
	for _, r := range rows {
		w := want[r.Run+"|"+r.Station]
		if w == nil {
			t.Errorf("DuckDB partition %s|%s unexpected", r.Run, r.Station)
			continue
		}
		if r.N != w.Rows || r.IDSum != w.IDSum || r.OK != w.OK || r.KSum != w.KSum {
			t.Errorf("DuckDB %s|%s: %+v, want %+v", r.Run, r.Station, r, w)
		}
	}
	t.Logf("DuckDB read %d partitions with hive_partitioning; aggregates match", len(rows))
}

// TestKillResume SIGKILLs a shard in the middle of its run, checks it
// left nothing visible, then resumes it and checks the committed dataset
// has every row exactly once and no partial or staged file.
func TestKillResume(t *testing.T) {
	dir := t.TempDir()
	want := shardData(t, dir, 2, 6)
	if err := os.WriteFile(filepath.Join(dir, "job.yaml"), []byte(shardJob), 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(dir, "out")
	env := []string{"OUT=" + outDir}
	// Shard 0 of 2 runs to the end; it cannot commit alone.
	if out, err := cli(t, dir, env, "run", "job.yaml", "--shard", "0/2"); err != nil || strings.Contains(out, "committed run") {
		t.Fatalf("shard 0: %v\n%s", err, out)
	}
	// Shard 1 checkpoints every 2 inputs or so and pauses after each input.
	cmd := exec.Command(buildCLI(t), "run", "job.yaml", "--shard", "1/2", "--checkpoint-bytes", "5000", "--workers", "1")
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), append(env, "NPYFLOW_TEST_INPUT_DELAY=300ms")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ds := filepath.Join(outDir, "ds")
	var man *shardrun.Manifest
	deadline := time.Now().Add(20 * time.Second)
	for {
		// Kill once a checkpoint was taken and the next inputs are half
		// written (temporary files exist).
		ms, _ := filepath.Glob(filepath.Join(ds, "_npyflow", "*", "shard-00001.json"))
		if len(ms) == 1 {
			if m, err := shardrun.ReadManifest(context.Background(), ms[0]); err == nil && m.Checkpoints >= 1 && len(m.Inputs) > 0 && hasTemp(ds) {
				man = m
				break
			}
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("shard 1 never reached a checkpoint with files open:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	ms, _ := filepath.Glob(filepath.Join(ds, "_npyflow", "*", "shard-00001.json"))
	if m, err := shardrun.ReadManifest(context.Background(), ms[0]); err == nil {
		man = m // a checkpoint may have happened since
	}
	if man.Complete || len(man.Inputs) >= man.Assigned {
		t.Fatalf("killed too late: the manifest has %d of %d inputs", len(man.Inputs), man.Assigned)
	}
	if !hasTemp(ds) {
		t.Error("the kill left no partial file: the test did not kill mid-write")
	}
	if f, _ := shardrun.FirstVisibleFile(context.Background(), ds); f != "" {
		t.Errorf("after the kill, readers can see %s", f)
	}
	if _, err := os.Stat(filepath.Join(ds, "_SUCCESS")); err == nil {
		t.Error("_SUCCESS after a killed shard")
	}
	out, err := cli(t, dir, env, "commit", "job.yaml")
	if err == nil || !strings.Contains(out, "not finished") {
		t.Errorf("commit with a killed shard: %v\n%s", err, out)
	}
	out, err = cli(t, dir, env, "run", "job.yaml", "--shard", "1/2", "--resume", "--checkpoint-bytes", "5000")
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	if !strings.Contains(out, fmt.Sprintf("%d already committed", len(man.Inputs))) || !strings.Contains(out, "committed run") {
		t.Errorf("resume output does not report %d inputs skipped and the commit:\n%s", len(man.Inputs), out)
	}
	got, _ := readDataset(t, ds)
	compareAgg(t, "after resume", got, want)
	if _, err := os.Stat(filepath.Join(ds, "_SUCCESS")); err != nil {
		t.Errorf("no _SUCCESS after resume: %v", err)
	}
	// Resuming a committed run does nothing.
	out, err = cli(t, dir, env, "run", "job.yaml", "--shard", "1/2", "--resume")
	if err != nil || !strings.Contains(out, "already committed") {
		t.Errorf("resume after commit: %v\n%s", err, out)
	}
}

// hasTemp reports whether a temporary (partial) file exists under root.
func hasTemp(root string) bool {
	found := false
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			found = true
		}
		return nil
	})
	return found
}
