package shardrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fileRun is a 2-shard run over real local input files, each shard
// writing one output per input under root.
type fileRun struct {
	dir, root, state string
	inputs           []ManifestInput // shard i has inputs i and i+2
}

func newFileRun(t *testing.T) *fileRun {
	t.Helper()
	dir := t.TempDir()
	r := &fileRun{dir: dir, root: filepath.Join(dir, "ds"), state: filepath.Join(dir, "ds", "_npyflow")}
	for i := range 4 {
		p := filepath.Join(dir, fmt.Sprintf("in%d.npy", i))
		if err := os.WriteFile(p, bytes.Repeat([]byte{byte(i)}, 100+i), 0o644); err != nil {
			t.Fatal(err)
		}
		fp, _, err := Fingerprint(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		r.inputs = append(r.inputs, ManifestInput{Source: "s", Path: p, Fingerprint: fp, Rows: 1})
	}
	return r
}

func (r *fileRun) config(shard int, log *bytes.Buffer) Config {
	var w io.Writer
	if log != nil {
		w = log
	}
	return Config{StateDir: r.state, Run: "run0", Shard: Shard{shard, 2}, Resume: true, Recheck: true, Log: w,
		Sinks:    []ManifestSink{{Name: "ds", Type: "parquet", Mode: "overwrite", Root: r.root, Dataset: true}},
		Assigned: []ManifestInput{r.inputs[shard], r.inputs[shard+2]}}
}

// run runs a shard to its end: one output per input.
func (r *fileRun) run(t *testing.T, shard int, log *bytes.Buffer) (*Summary, error) {
	t.Helper()
	ru, err := Start(context.Background(), r.config(shard, log))
	if err != nil {
		return nil, err
	}
	if ru.Summary().Done != "" {
		return ru.Summary(), ru.MaybeCommit(context.Background())
	}
	var outs []Output
	for _, in := range r.config(shard, nil).Assigned {
		final := filepath.Join(r.root, ru.PartName()+".txt")
		f, err := ru.Stage(context.Background(), final)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "%s\n", in.Path)
		ru.Done(in, 1)
		outs = append(outs, Output{Sink: "ds", Final: final, Rows: 1})
	}
	return ru.Summary(), ru.Finish(context.Background(), outs)
}

// TestStartChecksOwnInputs: a shard re-fingerprints its own inputs (and
// only those) before it starts; a missing or changed one is an
// InputError naming the input and the shard, and nothing is written.
func TestStartChecksOwnInputs(t *testing.T) {
	r := newFileRun(t)
	missing := r.inputs[3].Path // shard 1's
	if err := os.Rename(missing, missing+".away"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.run(t, 0, nil); err != nil {
		t.Fatalf("shard 0 failed for shard 1's input: %v", err)
	}
	_, err := r.run(t, 1, nil)
	var ie *InputError
	want := "shard 1/2: planned input " + missing + ": no such file or directory"
	if !errors.As(err, &ie) || ie.Path != missing || !errors.Is(err, fs.ErrNotExist) || err.Error() != want {
		t.Fatalf("shard 1: %v; want %q", err, want)
	}
	if _, err := os.Stat(ManifestName(filepath.Join(r.state, "run0"), 1)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a manifest after a failed start: %v", err)
	}
	os.Rename(missing+".away", missing)
	later := time.Now().Add(time.Hour)
	os.Chtimes(r.inputs[1].Path, later, later) // shard 1's other input: touched
	_, err = r.run(t, 1, nil)
	if !errors.As(err, &ie) || !errors.Is(err, ErrChanged) ||
		!strings.HasPrefix(err.Error(), "shard 1/2: planned input "+r.inputs[1].Path+": changed since planning (fingerprint fp1:") {
		t.Fatalf("touched input: %v", err)
	}
}

// TestMaybeCommitLog: each shard says whether its files were published,
// and the lock of a failed commit is removed so that a later attempt
// commits.
func TestMaybeCommitLog(t *testing.T) {
	r := newFileRun(t)
	var log0, log1 bytes.Buffer
	if _, err := r.run(t, 0, &log0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log0.String(), "shard 0/2 of run run0 finished: 2 file(s) staged, published when the run is committed: waiting for shard(s) 1") {
		t.Errorf("shard 0 says:\n%s", log0.String())
	}
	// A commit that fails (a staged file gone) leaves no lock behind.
	cfg := r.config(1, &log1)
	ru, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	final := filepath.Join(r.root, ru.PartName()+".txt")
	f, _ := ru.Stage(context.Background(), final)
	f.Write([]byte("x"))
	ru.Done(cfg.Assigned[0], 1)
	ru.Done(cfg.Assigned[1], 1)
	if err := ru.Checkpoint(context.Background(), []Output{{Sink: "ds", Final: final, Rows: 2}}, true); err != nil {
		t.Fatal(err)
	}
	m, _ := ReadManifest(context.Background(), ManifestName(filepath.Join(r.state, "run0"), 1))
	os.Remove(m.Outputs[0].Staged)
	if err := ru.MaybeCommit(context.Background()); err == nil || !strings.Contains(err.Error(), "is missing") {
		t.Fatalf("commit with a staged file gone: %v", err)
	}
	lock := filepath.Join(r.state, "run0", lockFile)
	if _, err := os.Stat(lock); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("lock after a failed commit: %v", err)
	}
	// Shard 1 run again from scratch commits; its log says so once.
	log1.Reset()
	cfg.Resume = false
	sum, err := r.runWith(t, cfg)
	if err != nil || sum.Committed == nil {
		t.Fatalf("shard 1 again: %+v, %v", sum, err)
	}
	if n := strings.Count(log1.String(), "committed run run0"); n != 1 {
		t.Errorf("%d committed lines:\n%s", n, log1.String())
	}
	// A commit lock held by a process that died: later shards say so.
	os.Remove(filepath.Join(r.state, "run0", CommittedFile))
	os.WriteFile(lock, []byte("shard 1 pid 4242 host h1 2026-01-01T00:00:00Z\n"), 0o644)
	var log2 bytes.Buffer
	if _, err := r.run(t, 0, &log2); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log2.String(), "another process is committing the run (commit.lock: shard 1 pid 4242 host h1") {
		t.Errorf("with a lock held, shard 0 says:\n%s", log2.String())
	}
}

func (r *fileRun) runWith(t *testing.T, cfg Config) (*Summary, error) {
	t.Helper()
	ru, err := Start(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	var outs []Output
	for _, in := range cfg.Assigned {
		final := filepath.Join(r.root, ru.PartName()+".txt")
		f, _ := ru.Stage(context.Background(), final)
		fmt.Fprintf(f, "%s\n", in.Path)
		ru.Done(in, 1)
		outs = append(outs, Output{Sink: "ds", Final: final, Rows: 1})
	}
	return ru.Summary(), ru.Finish(context.Background(), outs)
}

// TestInterrupted: a cancellation becomes an InterruptedError saying what
// the manifest keeps; other errors pass through.
func TestInterrupted(t *testing.T) {
	r := newFileRun(t)
	cfg := r.config(0, nil)
	ru, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = ru.Interrupted(context.Background(), fmt.Errorf("reading x: %w", context.Canceled))
	if want := "interrupted before the first checkpoint of shard 0/2 (0 of 2 inputs kept; --resume starts it over): context canceled"; err == nil || err.Error() != want {
		t.Errorf("before a checkpoint: %v", err)
	}
	f, _ := ru.Stage(context.Background(), filepath.Join(r.root, ru.PartName()+".txt"))
	f.Write([]byte("x"))
	ru.Done(cfg.Assigned[0], 1)
	if err := ru.Checkpoint(context.Background(), []Output{{Sink: "ds", Final: f.final, Rows: 1}}, false); err != nil {
		t.Fatal(err)
	}
	err = ru.Interrupted(context.Background(), context.DeadlineExceeded)
	var ie *InterruptedError
	if want := "interrupted, 1 checkpoint(s) kept for --resume (shard 0/2: 1 of 2 inputs done): context deadline exceeded"; !errors.As(err, &ie) ||
		err.Error() != want || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("after a checkpoint: %v", err)
	}
	other := errors.New("disk full")
	if ru.Interrupted(context.Background(), other) != other {
		t.Error("an error that is not a cancellation was changed")
	}
}

// TestCommitPublishesLastAfter: the commit publishes every output of a
// lower Last before any of a higher one, whichever shard staged them (a
// Zarr store's chunks, then its arrays' metadata, then its group's), and
// the manifest keeps Last.
func TestCommitPublishesLastAfter(t *testing.T) {
	r := newFileRun(t)
	last := map[string]int{"group.json": 2, "array.json": 1, "a0": 0, "a1": 0, "b0": 0, "b1": 0}
	names := [][]string{{"group.json", "a0", "array.json", "a1"}, {"b0", "b1"}}
	for shard := range 2 {
		cfg := r.config(shard, nil)
		cfg.NoCommit = true
		ru, err := Start(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var outs []Output
		for _, n := range names[shard] {
			final := filepath.Join(r.root, n)
			f, err := ru.Stage(context.Background(), final)
			if err != nil {
				t.Fatal(err)
			}
			f.Write([]byte(n))
			outs = append(outs, Output{Sink: "ds", Final: final, Last: last[n]})
		}
		for _, in := range cfg.Assigned {
			ru.Done(in, 1)
		}
		if err := ru.Finish(context.Background(), outs); err != nil {
			t.Fatal(err)
		}
	}
	m, err := ReadManifest(context.Background(), ManifestName(filepath.Join(r.state, "run0"), 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range m.Outputs {
		if o.Last != last[filepath.Base(o.Path)] {
			t.Errorf("manifest: %s has Last %d", o.Path, o.Last)
		}
	}
	var order []string
	_, err = CommitRun(context.Background(), filepath.Join(r.state, "run0"), &CommitOptions{BeforePublish: func(final string) {
		order = append(order, filepath.Base(final))
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != 6 || order[4] != "array.json" || order[5] != "group.json" {
		t.Fatalf("published in the order %v", order)
	}
}
