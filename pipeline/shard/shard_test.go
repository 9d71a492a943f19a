package shard_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	_ "github.com/npyflow/npyflow/pipeline" // registers the component types jobs name
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/pipeline/shard"
	"github.com/npyflow/npyflow/shardrun"
)

// TestPlanRoundTrip: a plan written by WriteFile loads back equal, and
// the commit's expectations come from its inputs.
func TestPlanRoundTrip(t *testing.T) {
	ctx := context.Background()
	name := filepath.Join(t.TempDir(), "plan.json")
	fp := &shard.Plan{Format: shard.Format, ID: "abc", Job: "version: 1\n", Shards: 2,
		Inputs: []shard.Input{{Source: "s", Path: "/d/a.npz", Member: "x", Shard: 1}, {Source: "s", Path: "/d/b.npy"}}}
	if err := fp.WriteFile(ctx, name); err != nil {
		t.Fatal(err)
	}
	got, err := shard.LoadPlan(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "abc" || got.Shards != 2 || len(got.Inputs) != 2 || got.Inputs[0].Member != "x" || got.Inputs[0].Shard != 1 {
		t.Errorf("loaded %+v", got)
	}
	e := got.Expected()
	want := []shardrun.ManifestInput{{Source: "s", Path: "/d/a.npz", Member: "x"}, {Source: "s", Path: "/d/b.npy"}}
	if e.Run != "abc" || e.Shards != 2 || len(e.Inputs) != 2 || e.Inputs[0] != want[0] || e.Inputs[1] != want[1] {
		t.Errorf("expected %+v", e)
	}
}

// TestLoadPlanErrors: files that are not complete plans are refused with
// the file's name and what is wrong.
func TestLoadPlanErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, text, want string }{
		{"notjson", "{", "notjson: not an npyflow plan: unexpected end of JSON input"},
		{"format", `{"npyflow_plan": 99, "id": "a", "shards": 1, "job": "j"}`, "format: not an npyflow plan (format 99, want "},
		{"noid", `{"npyflow_plan": FORMAT, "shards": 1, "job": "j"}`, "noid: incomplete npyflow plan"},
		{"shard", `{"npyflow_plan": FORMAT, "id": "a", "shards": 2, "job": "j", "inputs": [{"path": "x.npy", "shard": 2}]}`,
			"shard: input 0 (x.npy) has shard 2 of 2"},
	} {
		name := filepath.Join(dir, tc.name)
		text := strings.ReplaceAll(tc.text, "FORMAT", strconv.Itoa(shard.Format))
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := shard.LoadPlan(context.Background(), name)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestFingerprints: each path's fingerprint, in order, taken once for a
// repeated path; a known one is used as given, a missing file fails.
func TestFingerprints(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("one"), 0o644)
	os.WriteFile(b, []byte("two!"), 0o644)
	wantA, _, err := shardrun.Fingerprint(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	wantB, _, _ := shardrun.Fingerprint(ctx, b)
	if wantA == wantB {
		t.Fatal("two files of other contents share a fingerprint")
	}
	known := map[string]shard.Fingerprint{filepath.Join(dir, "c"): {Sum: "given"}}
	got, err := shard.Fingerprints(ctx, []string{a, b, a, filepath.Join(dir, "c")}, known)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[0].Sum != wantA || got[1].Sum != wantB || got[2].Sum != wantA || got[3].Sum != "given" {
		t.Errorf("got %+v, want %s %s %s given", got, wantA, wantB, wantA)
	}
	if _, err := shard.Fingerprints(ctx, []string{a, filepath.Join(dir, "missing")}, nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: err = %v", err)
	}
}

// TestJobVocabulary: which jobs shard, and where their sinks and state
// go.
func TestJobVocabulary(t *testing.T) {
	load := func(body string) *job.Job {
		t.Helper()
		j, err := job.Load(filepath.Join("/jobs", "job.yaml"), []byte("version: 1\nsources:\n  s: {type: npy, paths: x.npy}\n"+body), nil)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	j := load("transforms:\n  f: {type: filter, input: s, where: 'a > 1'}\nsinks:\n  o: {type: parquet, input: f, path: out/ds, partition_by: [a]}\n")
	if why := shard.Shardable(j); why != "" {
		t.Errorf("a filter job: %s", why)
	}
	if !shard.IsDataset(j.Component("o")) {
		t.Error("a parquet sink with partition_by is not a dataset")
	}
	if got := shard.SinkRoot(j.Component("o")); got != "/jobs/out/ds" {
		t.Errorf("dataset root %s", got)
	}
	if got := shard.DefaultStateDir(j); got != "/jobs/out/ds/_npyflow" {
		t.Errorf("state dir %s", got)
	}
	j = load("transforms:\n  l: {type: limit, input: s, rows: 3}\nsinks:\n  o: {type: npy, input: l, path: 'out/{stem}/x.npy'}\n")
	if why := shard.Shardable(j); !strings.Contains(why, "limit transform") {
		t.Errorf("a limit job: %q", why)
	}
	if shard.IsDataset(j.Component("o")) {
		t.Error("an npy sink is a dataset")
	}
	if got := shard.SinkRoot(j.Component("o")); got != "/jobs/out" {
		t.Errorf("root before the placeholder: %s", got)
	}
}

// TestRunID: the same work gets the same ID, whatever the working
// directory makes of relative paths; each input field counted, the
// outputs and the shard count change it.
func TestRunID(t *testing.T) {
	j, err := job.Load("/jobs/job.yaml", []byte("version: 1\nsources:\n  s: {type: npy, paths: x.npy}\nsinks:\n  o: {type: npy, input: s, path: y.npy}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	in := shard.Input{Source: "s", Path: "x.npy", Member: "", Size: 128, Rows: 4, Fingerprint: "f1", Shard: 1}
	out := shard.RunOutput{Sink: "o", Schema: "<f8", Paths: []string{"y.npy"}}
	base := shard.RunID(j, []shard.Input{in}, []shard.RunOutput{out}, 2)
	if len(base) != 20 {
		t.Fatalf("ID %q: want 20 hex digits", base)
	}
	abs := in
	abs.Path = filepath.Join(wd, "x.npy")
	absOut := out
	absOut.Paths = []string{filepath.Join(wd, "y.npy")}
	notCounted := in
	notCounted.Shard, notCounted.Captures = 0, map[string]string{"k": "v"}
	for name, id := range map[string]string{
		"absolute paths":  shard.RunID(j, []shard.Input{abs}, []shard.RunOutput{absOut}, 2),
		"shard, captures": shard.RunID(j, []shard.Input{notCounted}, []shard.RunOutput{out}, 2),
		"computed again":  shard.RunID(j, []shard.Input{in}, []shard.RunOutput{out}, 2),
	} {
		if id != base {
			t.Errorf("%s: ID %s, want %s", name, id, base)
		}
	}
	changed := func(f func(*shard.Input, *shard.RunOutput) int) string {
		i, o := in, out
		n := f(&i, &o)
		return shard.RunID(j, []shard.Input{i}, []shard.RunOutput{o}, n)
	}
	for name, id := range map[string]string{
		"fingerprint": changed(func(i *shard.Input, _ *shard.RunOutput) int { i.Fingerprint = "f2"; return 2 }),
		"size":        changed(func(i *shard.Input, _ *shard.RunOutput) int { i.Size++; return 2 }),
		"rows":        changed(func(i *shard.Input, _ *shard.RunOutput) int { i.Rows++; return 2 }),
		"member":      changed(func(i *shard.Input, _ *shard.RunOutput) int { i.Member = "m"; return 2 }),
		"source":      changed(func(i *shard.Input, _ *shard.RunOutput) int { i.Source = "t"; return 2 }),
		"schema":      changed(func(_ *shard.Input, o *shard.RunOutput) int { o.Schema = "<f4"; return 2 }),
		"output path": changed(func(_ *shard.Input, o *shard.RunOutput) int { o.Paths = []string{"z.npy"}; return 2 }),
		"shards":      changed(func(*shard.Input, *shard.RunOutput) int { return 3 }),
	} {
		if id == base {
			t.Errorf("%s changed, the ID did not", name)
		}
	}
}
