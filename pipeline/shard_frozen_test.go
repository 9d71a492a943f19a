package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/shardrun"
)

// TestFrozenMatchesPlain: a shard of a frozen plan opens only its own
// inputs, taking every other input's rows and the files' layout from the
// plan, and writes what a plain run writes: per-input .npy files from
// Parquet files parquet-go wrote whose strings differ in width (every
// file read at the widest, which only the other shard's file holds) with
// one column selected (a projection), and from members of numpy's .npz
// checkpoints, 0-d ones included.
func TestFrozenMatchesPlain(t *testing.T) {
	dir := t.TempDir()
	type row struct {
		ID int64  `parquet:"id"`
		S  string `parquet:"s"`
		X  float64
	}
	parts := [][]row{{{1, "ab", 0.5}, {2, "c", 1}}, {{3, "abcdef", 2}, {4, "", 3}, {5, "xyz", 4}}}
	for i, rows := range parts {
		var buf bytes.Buffer
		w := parquet.NewGenericWriter[row](&buf)
		if _, err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%d.parquet", i)), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, sub := range []string{"w", "lr"} {
		for _, f := range []string{"ckpt_1.npz", "ckpt_2.npz"} {
			b, err := os.ReadFile(filepath.Join("testdata", "npz0d", f))
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Join(dir, sub), 0o777)
			if err := os.WriteFile(filepath.Join(dir, sub, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	jobText := fmt.Sprintf(`version: 1
sources:
  pq: {type: parquet, paths: %q}
  w: {type: npz, paths: %q, members: [w]}
  lr: {type: npz, paths: %q, members: [lr]}
transforms:
  s: {type: select, input: pq, fields: [s]}
sinks:
  a: {type: npy, input: s, path: "${OUT}/pq/{stem}.npy"}
  b: {type: npy, input: w, path: "${OUT}/ck/{stem}_{member}.npy"}
  c: {type: npy, input: lr, path: "${OUT}/ck/{stem}_{member}.npy"}
`, filepath.Join(dir, "p*.parquet"), filepath.Join(dir, "w", "ckpt_*.npz"), filepath.Join(dir, "lr", "ckpt_*.npz"))
	load := func(out string) *job.Job {
		j, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(jobText), &job.LoadOptions{LookupEnv: env(map[string]string{"OUT": out})})
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	plain := filepath.Join(dir, "plain")
	p, err := NewPlan(context.Background(), load(plain), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	sharded := filepath.Join(dir, "sharded")
	p, err = NewPlan(context.Background(), load(sharded), nil)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := p.Freeze(context.Background(), 2, []byte(jobText), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range fp.Inputs {
		want := map[string]string{"pq": "a", "w": "b", "lr": "c"}[in.Source]
		if _, ok := in.Outputs[want]; len(in.Outputs) != 1 || !ok {
			t.Errorf("planned input %s:%s has outputs %v, want one of sink %s", in.Source, in.Path, in.Outputs, want)
		}
	}
	if len(fp.Sources) != 3 || fp.Sources[0].DType != "[('s', '<U6')]" || len(fp.Sources[0].Columns) != 1 {
		t.Fatalf("planned sources %+v", fp.Sources)
	}
	for i := range 2 {
		// The other shard's inputs are gone: this shard must not need them.
		hidden := map[string]string{}
		for _, in := range fp.Inputs {
			if in.Shard != i {
				hidden[in.Path] = in.Path + ".away"
			}
		}
		for _, in := range fp.Inputs {
			if in.Shard == i {
				delete(hidden, in.Path)
			}
		}
		if len(hidden) == 0 {
			t.Fatalf("shard %d: every file holds one of its inputs", i)
		}
		for from, to := range hidden {
			os.Rename(from, to)
		}
		jb, err := fp.LoadJob(nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlan(context.Background(), jb, &PlanOptions{Frozen: fp})
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
		_, err = p.Run(context.Background(), &RunOptions{Shard: &ShardOptions{Shard: shardrun.Shard{Index: i}}})
		for from, to := range hidden {
			os.Rename(to, from)
		}
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	for _, name := range []string{"pq/p0.npy", "pq/p1.npy", "ck/ckpt_1_w.npy", "ck/ckpt_1_lr.npy", "ck/ckpt_2_w.npy", "ck/ckpt_2_lr.npy"} {
		want, err := os.ReadFile(filepath.Join(plain, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(sharded, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: the shards wrote %d bytes (%v), a plain run %d: they differ", name, len(got), err, len(want))
		}
	}
}
