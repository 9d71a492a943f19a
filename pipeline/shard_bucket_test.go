package pipeline

import (
	"context"
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
// returns how many objects readers see in the dataset.
func checkShardsToStore(t *testing.T, base string) int {
	dir := t.TempDir()
	want := shardData(t, dir, 2, 6)
	// The dataset's URL is one variable: a URL's ?query stays at its end.
	ds := shardrun.Join(base, "ds")
	lookup := env(map[string]string{"DS": ds})
	text := []byte(strings.Replace(shardJob, "path: ${OUT}/ds", "path: ${DS}", 1))
	j, err := job.Load(filepath.Join(dir, "job.yaml"), text, &job.LoadOptions{LookupEnv: lookup})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(context.Background(), j, nil)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := p.Freeze(context.Background(), 4, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fp.StateDir != shardrun.Join(ds, "_npyflow") || fp.Sinks[0].Root != ds {
		t.Fatalf("plan: state %s, root %s", fp.StateDir, fp.Sinks[0].Root)
	}
	planURL := shardrun.Join(base, "plan.json")
	if err := fp.WriteFile(planURL); err != nil {
		t.Fatal(err)
	}
	if fp, err = LoadFrozenPlan(planURL); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		jb, err := fp.LoadJob(&job.LoadOptions{LookupEnv: lookup})
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlan(context.Background(), jb, &PlanOptions{Frozen: fp})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := p.Run(context.Background(), &RunOptions{Workers: 2, Shard: &ShardOptions{Shard: Shard{Index: i}, CheckpointBytes: 5000}})
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
		if i < 3 {
			if f, _ := shardrun.FirstVisibleFile(ds); f != "" || shardrun.Exists(shardrun.Join(ds, "_SUCCESS")) || sum.Shard.Committed != nil {
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
