package pipeline

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/internal/storage/storagetest"
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/shardrun"
	"github.com/npyflow/npyflow/shardrun/shardruntest"
)

// TestShardsToBucket runs the partitioned job of the e2e tests as four
// shards of a frozen plan whose plan file, state directory and dataset
// are in a bucket without rename (the in-memory test backend): nothing
// is visible before the last shard commits, then the dataset holds every
// row once (the same aggregates as the inputs) and no staging object is
// left.
func TestShardsToBucket(t *testing.T) {
	mem := storagetest.NewMem("memtest")
	copies, seekables := mem.Copies, mem.Seekables
	// A fresh prefix per run: the in-memory store outlives a test run
	// (go test -count=2).
	files := checkShardsToStore(t, fmt.Sprintf("memtest://bkt-pipeline/lake-%d", time.Now().UnixNano()))
	if mem.Copies-copies < files-1 {
		t.Errorf("%d objects published with %d server-side copies", files, mem.Copies-copies)
	}
	// The shards' Parquet files stream to their staging objects: none is
	// created seekable (which an object store's backend spools).
	if n := mem.Seekables - seekables; n != 0 {
		t.Errorf("%d staged outputs created seekable", n)
	}
}

// TestShardsToLocal is the same on the local filesystem.
func TestShardsToLocal(t *testing.T) {
	checkShardsToStore(t, t.TempDir())
}

// checkShardsToStore runs the test under base (a directory or a URL
// prefix; the S3 integration tests call it with a server's URL) and
// returns how many objects readers see in the dataset. Under a URL the
// inputs are objects too, planned, fingerprinted and read from the
// store. Shard 2 is interrupted after its second input and resumed.
func checkShardsToStore(t *testing.T, base string) int {
	ctx := context.Background()
	sj := planShardJob(t, base)
	ds, dir, want := sj.ds, sj.dir, sj.want
	run := func(i int, resume, stop bool) (*Summary, error) {
		return sj.run(t, i, &ShardOptions{Resume: resume}, stop)
	}
	done := 0
	for i := 0; i < 4; i++ {
		if i == 2 {
			// Interrupted after its second input: the first one's
			// checkpoint stays (the second's too where the store lets
			// it finish; S3 aborts the uploads of a cancelled context).
			_, err := run(i, false, true)
			var ie *shardrun.InterruptedError
			if !errors.As(err, &ie) || ie.Checkpoints < 1 || ie.Done < 1 || ie.Done > 2 || !errors.Is(err, context.Canceled) ||
				!strings.Contains(err.Error(), fmt.Sprintf("interrupted, %d checkpoint(s) kept for --resume (shard 2/4: %d of", ie.Checkpoints, ie.Done)) {
				t.Fatalf("shard 2 interrupted: %v", err)
			}
			done = ie.Done
		}
		sum, err := run(i, i == 2, false)
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
		if i == 2 && sum.Shard.Resumed != done {
			t.Errorf("shard 2 resumed %d inputs, its interruption kept %d", sum.Shard.Resumed, done)
		}
		if i < 3 {
			if f, _ := shardrun.FirstVisibleFile(ctx, ds); f != "" || shardrun.Exists(ctx, shardrun.Join(ds, "_SUCCESS")) || sum.Shard.Committed != nil {
				t.Fatalf("after shard %d of 4, readers see %q (committed %v)", i, f, sum.Shard.Committed)
			}
			continue
		}
		if sum.Shard.Committed == nil || sum.Shard.Committed.Inputs != 12 {
			t.Fatalf("the last shard did not commit: %+v", sum.Shard.Committed)
		}
	}
	// Mirror what readers see to a local directory and read it there.
	mirror := filepath.Join(dir, "mirror")
	files := 0
	for name, data := range shardruntest.Files(t, ds) {
		rel, ok := strings.CutPrefix(storage.Path(name), storage.Path(ds))
		if !ok {
			t.Fatalf("%s listed under %s", name, ds)
		}
		rel = strings.TrimLeft(filepath.ToSlash(rel), "/")
		if storage.Scheme(ds) != "" {
			// A URL's path is percent-encoded: the key is the file name.
			var err error
			if rel, err = url.PathUnescape(rel); err != nil {
				t.Fatal(err)
			}
		}
		if strings.Contains(rel, "/staging/") {
			t.Errorf("staging object left: %s", name)
		}
		if strings.HasPrefix(rel, "_npyflow/") {
			continue
		}
		p := filepath.Join(mirror, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o777)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files++
	}
	got, shards := readDataset(t, mirror)
	compareAgg(t, "bucket", got, want)
	// DuckDB (when installed) reads the objects the store shows readers
	// with hive_partitioning and must get the same aggregates.
	duckCheck(t, mirror, want)
	if len(shards) != 4 {
		t.Errorf("files from %d shards, want 4", len(shards))
	}
	if _, err := os.Stat(filepath.Join(mirror, "_SUCCESS")); err != nil || files < 9 {
		t.Errorf("%d objects, _SUCCESS: %v", files, err)
	}
	return files
}

// shardJob is a frozen 4-shard plan of the e2e tests' partitioned job
// (12 inputs), its plan in base and its dataset at ds.
type frozenShardJob struct {
	fp   *FrozenPlan
	ds   string
	dir  string // the local data directory (the inputs under a local base)
	in   string // where the inputs are: dir, or base/in
	want map[string]*dsAgg
}

// planShardJob writes the job's inputs (under a URL base, as objects
// under base/in) and plans it as 4 shards into base/plan.json.
func planShardJob(t *testing.T, base string) *frozenShardJob {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	sj := &frozenShardJob{dir: dir, in: dir, want: shardData(t, dir, 2, 6)}
	// The dataset's URL is one variable: a URL's ?query stays at its end.
	sj.ds = shardrun.Join(base, "ds")
	vars := map[string]string{"DS": sj.ds}
	text := strings.Replace(shardJob, "path: ${OUT}/ds", "path: ${DS}", 1)
	if storage.Scheme(base) != "" {
		// The inputs' pattern is one variable too, its query at its end.
		sj.in = shardrun.Join(base, "in")
		files, _ := filepath.Glob(filepath.Join(dir, "runs", "*", "*.npy"))
		for _, f := range files {
			rel, _ := filepath.Rel(dir, f)
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := storage.WriteFile(ctx, shardrun.Join(sj.in, filepath.ToSlash(rel)), b); err != nil {
				t.Fatal(err)
			}
			os.Remove(f) // read from the store only
		}
		vars["IN"] = storage.Path(sj.in) + "/runs/{run}/f{k:int}.npy" + strings.TrimPrefix(sj.in, storage.Path(sj.in))
		text = strings.Replace(text, "paths: runs/{run}/f{k:int}.npy", "paths: ${IN}", 1)
	}
	j, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(text), &job.LoadOptions{LookupEnv: env(vars)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(context.Background(), j, nil)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := p.Freeze(ctx, 4, []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	if fp.StateDir != shardrun.Join(sj.ds, "_npyflow") || fp.Sinks[0].Root != sj.ds {
		t.Fatalf("plan: state %s, root %s", fp.StateDir, fp.Sinks[0].Root)
	}
	if len(fp.Inputs) != 12 || len(fp.Sources) != 1 || fp.Env["DS"] != sj.ds {
		t.Fatalf("plan: %d inputs, sources %+v, env %v", len(fp.Inputs), fp.Sources, fp.Env)
	}
	for _, in := range fp.Inputs {
		if !strings.HasPrefix(in.Fingerprint, "fp1:") || in.ModTime.IsZero() || (storage.Scheme(base) != "") != (storage.Scheme(in.Path) != "") {
			t.Errorf("plan input %+v", in)
		}
	}
	planURL := shardrun.Join(base, "plan.json")
	if err := fp.WriteFile(ctx, planURL); err != nil {
		t.Fatal(err)
	}
	if sj.fp, err = LoadFrozenPlan(ctx, planURL); err != nil {
		t.Fatal(err)
	}
	return sj
}

// run runs shard i of the plan in this process, as npyflow run --plan
// does (the job's ${VAR}s from the plan), with a checkpoint after every
// input; stop cancels it after its second input.
func (sj *frozenShardJob) run(t *testing.T, i int, so *ShardOptions, stop bool) (*Summary, error) {
	t.Helper()
	jb, err := sj.fp.LoadJob(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(context.Background(), jb, &PlanOptions{Frozen: sj.fp})
	if err != nil {
		t.Fatalf("shard %d: plan: %v", i, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := *so
	o.Shard, o.CheckpointBytes = shardrun.Shard{Index: i}, 1
	if stop {
		n := 0
		o.AfterPart = func(*Part) {
			if n++; n == 2 {
				cancel()
			}
		}
	}
	return p.Run(ctx, &RunOptions{Workers: 2, Shard: &o})
}
