// Package shardruntest holds the behaviour tests of sharded runs
// (package shardrun) as a function of a storage base URL, so the same
// tests run against every backend: the local filesystem (a temporary
// directory), the in-memory bucket of internal/storage/storagetest, and a
// real S3-compatible server (an s3://bucket/prefix?endpoint=... URL from
// the tests that start one).
//
// The tests drive shardrun.Run directly with small synthetic outputs (no
// job, no Parquet): a four-shard run committed by its last shard, a
// shard killed after a checkpoint and resumed, a shard run again from
// scratch, which must overwrite its own staged objects and nothing else,
// commits racing, and a commit interrupted by SIGINT.
package shardruntest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/shardrun"
)

// Run runs every behaviour test under a fresh prefix of base (a
// directory or a URL prefix; each test uses its own sub-prefix, and
// leaves its objects for inspection).
func Run(t *testing.T, base string) {
	// A fresh prefix per call, so that a server kept between runs starts
	// every test empty.
	base = shardrun.Join(base, fmt.Sprintf("run-%d", time.Now().UnixNano()))
	t.Run("FourShards", func(t *testing.T) { FourShards(t, shardrun.Join(base, "four")) })
	t.Run("KilledShardResumes", func(t *testing.T) { KilledShardResumes(t, shardrun.Join(base, "killed")) })
	t.Run("RerunOverwritesOwnStaging", func(t *testing.T) { RerunOverwritesOwnStaging(t, shardrun.Join(base, "rerun")) })
	t.Run("RacingCommits", func(t *testing.T) { RacingCommits(t, shardrun.Join(base, "race")) })
	t.Run("InterruptedCommit", func(t *testing.T) { InterruptedCommit(t, shardrun.Join(base, "sigint")) })
}

// job is a synthetic job: shards over inputs in0..inN-1 writing one
// dataset file per input, partitioned by the input number's parity.
type job struct {
	base   string
	root   string // the dataset
	state  string
	run    string
	shards int
	inputs int
}

func newJob(base string, shards, inputs int) *job {
	root := shardrun.Join(base, "ds")
	return &job{base: base, root: root, state: shardrun.Join(root, "_npyflow"), run: "testrun0123456789abc", shards: shards, inputs: inputs}
}

func (j *job) input(i int) shardrun.ManifestInput {
	return shardrun.ManifestInput{Source: "src", Path: fmt.Sprintf("/data/in%03d.npy", i), Fingerprint: fmt.Sprintf("fp1:%032x", i), Rows: int64(i + 1)}
}

// assigned lists shard s's inputs (round robin).
func (j *job) assigned(s int) []int {
	var out []int
	for i := s; i < j.inputs; i += j.shards {
		out = append(out, i)
	}
	return out
}

func (j *job) config(s int, resume bool) shardrun.Config {
	c := shardrun.Config{StateDir: j.state, Run: j.run, Shard: shardrun.Shard{Index: s, Count: j.shards}, Resume: resume,
		CheckpointBytes: 1, // a checkpoint after every input
		Sinks:           []shardrun.ManifestSink{{Name: "ds", Type: "parquet", Mode: "overwrite", Root: j.root, Dataset: true}}}
	for _, i := range j.assigned(s) {
		c.Assigned = append(c.Assigned, j.input(i))
	}
	return c
}

// content is what input i's file holds in version v.
func content(i int, v string) []byte {
	return []byte(fmt.Sprintf("input %d rows %d version %s\n", i, i+1, v))
}

// runShard runs shard s over its inputs, writing version v; stop >= 0
// abandons the attempt (as a kill would) after stop inputs, with the next
// input's file half written.
func runShard(t *testing.T, j *job, s int, resume bool, v string, stop int, noCommit bool) *shardrun.Summary {
	t.Helper()
	cfg := j.config(s, resume)
	cfg.NoCommit = noCommit
	ctx := t.Context()
	r, err := shardrun.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("shard %d: %v", s, err)
	}
	if r.Summary().Done != "" {
		if err := r.MaybeCommit(ctx); err != nil {
			t.Fatalf("shard %d: %v", s, err)
		}
		return r.Summary()
	}
	n := 0
	for _, i := range j.assigned(s) {
		in := j.input(i)
		if r.Skip(in) {
			continue
		}
		final := shardrun.Join(j.root, fmt.Sprintf("odd=%d", i%2), r.PartName()+".txt")
		f, err := r.Stage(ctx, final)
		if err != nil {
			t.Fatalf("shard %d: %v", s, err)
		}
		data := content(i, v)
		if n == stop {
			f.Write(data[:len(data)/2])
			return r.Summary() // killed: nothing cleaned up
		}
		if _, err := f.Write(data); err != nil {
			t.Fatal(err)
		}
		n++
		if r.Done(in, int64(len(data))) {
			if err := r.Checkpoint(ctx, []shardrun.Output{{Sink: "ds", Final: final, Rows: in.Rows}}, false); err != nil {
				t.Fatalf("shard %d: checkpoint: %v", s, err)
			}
		}
	}
	if err := r.Finish(ctx, nil); err != nil {
		t.Fatalf("shard %d: finish: %v", s, err)
	}
	return r.Summary()
}

// Files lists every file (object) under root, hidden ones included, with
// their contents.
func Files(t *testing.T, root string) map[string][]byte {
	t.Helper()
	ctx := t.Context()
	out := map[string][]byte{}
	var walk func(dir string)
	walk = func(dir string) {
		after := ""
		for {
			page, more, err := storage.List(ctx, dir, after, 100)
			if errors.Is(err, fs.ErrNotExist) {
				return
			}
			if err != nil {
				t.Fatalf("list %s: %v", dir, err)
			}
			for _, e := range page {
				after = e.Name
				if e.IsDir {
					walk(e.Name)
					continue
				}
				b, err := storage.ReadFile(ctx, e.Name, 1<<30)
				if err != nil {
					t.Fatalf("read %s: %v", e.Name, err)
				}
				out[e.Name] = b
			}
			if !more || len(page) == 0 {
				return
			}
		}
	}
	walk(root)
	return out
}

// visible is what a reader of the dataset that skips hidden names
// (Spark, Hive, DuckDB) sees: rel name -> contents.
func visible(t *testing.T, j *job) map[string][]byte {
	out := map[string][]byte{}
	for name, b := range Files(t, j.root) {
		rel := strings.TrimPrefix(bareName(name), bareName(j.root)+"/")
		hidden := false
		for _, el := range strings.Split(rel, "/") {
			if shardrun.HiddenName(el) {
				hidden = true
			}
		}
		if !hidden {
			out[rel] = b
		}
	}
	return out
}

func bareName(n string) string {
	if i := strings.IndexByte(n, '?'); i >= 0 && storage.Scheme(n) != "" {
		n = n[:i]
	}
	if s := storage.Scheme(n); s != "" {
		n = n[len(s)+3:]
	}
	return strings.TrimLeft(strings.ReplaceAll(n, "\\", "/"), "/")
}

var partRE = regexp.MustCompile(`^odd=[01]/part-(\d{5})-\d{5}\.txt$`)

// checkDataset checks the committed dataset holds every input once, in
// version want[shard], plus _SUCCESS listing exactly the files.
func checkDataset(t *testing.T, j *job, want map[int]string) {
	t.Helper()
	vis := visible(t, j)
	succ, err := storage.ReadFile(t.Context(), shardrun.Join(j.root, shardrun.SuccessFile), 1<<20)
	if err != nil {
		t.Fatalf("no %s in %s (%v); visible: %v", shardrun.SuccessFile, j.root, err, keys(vis))
	}
	var sd struct {
		Run       string   `json:"run"`
		Files     int      `json:"files"`
		Published []string `json:"published"`
	}
	if err = json.Unmarshal(succ, &sd); err != nil {
		t.Fatalf("_SUCCESS: %v", err)
	}
	if sd.Run != j.run || sd.Files != j.inputs || strings.Join(sd.Published, ",") != strings.Join(keys(vis), ",") {
		t.Errorf("_SUCCESS says run %s, %d files %v; the dataset holds %v", sd.Run, sd.Files, sd.Published, keys(vis))
	}
	seen := map[int]bool{}
	for rel, b := range vis {
		m := partRE.FindStringSubmatch(rel)
		if m == nil {
			t.Errorf("unexpected file %s", rel)
			continue
		}
		var i int
		var v string
		var rows int
		if _, err := fmt.Sscanf(string(b), "input %d rows %d version %s\n", &i, &rows, &v); err != nil {
			t.Errorf("%s holds %q", rel, b)
			continue
		}
		shard := i % j.shards
		if m[1] != fmt.Sprintf("%05d", shard) || !strings.HasPrefix(rel, fmt.Sprintf("odd=%d/", i%2)) {
			t.Errorf("%s holds input %d of shard %d", rel, i, shard)
		}
		if seen[i] {
			t.Errorf("input %d published twice", i)
		}
		seen[i] = true
		if v != want[shard] {
			t.Errorf("%s: version %s, want %s", rel, v, want[shard])
		}
	}
	if len(seen) != j.inputs {
		t.Errorf("published %d of %d inputs", len(seen), j.inputs)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// FourShards runs four shards one after the other: nothing is visible
// until the last one commits, then the whole dataset and _SUCCESS; a
// second commit does nothing.
func FourShards(t *testing.T, base string) {
	j := newJob(base, 4, 14)
	for s := 0; s < 4; s++ {
		sum := runShard(t, j, s, false, "a", -1, false)
		if s < 3 {
			if sum.Committed != nil {
				t.Fatalf("shard %d committed before the others finished", s)
			}
			if vis := visible(t, j); len(vis) != 0 {
				t.Fatalf("after shard %d of 4, readers see %v", s, keys(vis))
			}
			if shardrun.Exists(t.Context(), shardrun.Join(j.root, shardrun.SuccessFile)) {
				t.Fatalf("_SUCCESS after shard %d of 4", s)
			}
			continue
		}
		if sum.Committed == nil || sum.Committed.Files != 14 || sum.Committed.Inputs != 14 || sum.Committed.Shards != 4 {
			t.Fatalf("last shard's commit: %+v", sum.Committed)
		}
		var rows int64
		for i := 0; i < j.inputs; i++ {
			rows += int64(i + 1)
		}
		if sum.Committed.Rows["ds"] != rows {
			t.Errorf("committed %d rows, want %d", sum.Committed.Rows["ds"], rows)
		}
	}
	checkDataset(t, j, map[int]string{0: "a", 1: "a", 2: "a", 3: "a"})
	checkNoStaging(t, j)
	runDir, err := shardrun.FindRun(t.Context(), j.state, "")
	if err != nil || shardrun.Base(runDir) != j.run {
		t.Fatalf("FindRun: %s, %v", runDir, err)
	}
	cs, err := shardrun.CommitRun(t.Context(), runDir, nil)
	if err != nil || !cs.Already || cs.Files != 14 {
		t.Errorf("second commit: %+v, %v", cs, err)
	}
}

// checkNoStaging checks that no staged or temporary file is left.
func checkNoStaging(t *testing.T, j *job) {
	t.Helper()
	for name := range Files(t, j.base) {
		b := shardrun.Base(name)
		if strings.Contains(name, "/staging/") || strings.Contains(b, ".tmp-") || strings.Contains(b, ".npyflow-") {
			t.Errorf("left behind: %s", name)
		}
	}
}

// KilledShardResumes kills shard 1 of 2 after two checkpoints with a file
// half written: the commit refuses, readers see nothing, and the shard
// run again with resume skips the two inputs and commits the run.
func KilledShardResumes(t *testing.T, base string) {
	j := newJob(base, 2, 9)
	runShard(t, j, 0, false, "a", -1, false)
	runShard(t, j, 1, false, "a", 2, false) // killed
	if vis := visible(t, j); len(vis) != 0 {
		t.Fatalf("after the kill, readers see %v", keys(vis))
	}
	if shardrun.Exists(t.Context(), shardrun.Join(j.root, shardrun.SuccessFile)) {
		t.Fatal("_SUCCESS after a killed shard")
	}
	runDir := shardrun.Join(j.state, j.run)
	m, err := shardrun.ReadManifest(t.Context(), shardrun.ManifestName(runDir, 1))
	if err != nil || m.Complete || len(m.Inputs) != 2 || len(m.Outputs) != 2 || m.Checkpoints != 2 {
		t.Fatalf("killed shard's manifest: %+v, %v", m, err)
	}
	if _, err := shardrun.CommitRun(t.Context(), runDir, nil); err == nil || !strings.Contains(err.Error(), "not finished") {
		t.Fatalf("commit with a killed shard: %v", err)
	}
	sum := runShard(t, j, 1, true, "a", -1, false)
	if sum.Resumed != 2 || sum.Committed == nil {
		t.Fatalf("resume: %+v", sum)
	}
	checkDataset(t, j, map[int]string{0: "a", 1: "a"})
	checkNoStaging(t, j)
	// Resuming a committed run does nothing.
	if sum := runShard(t, j, 1, true, "b", -1, false); !strings.Contains(sum.Done, "already committed") {
		t.Errorf("resume after commit: %+v", sum)
	}
}

// RerunOverwritesOwnStaging runs both shards of two without committing,
// then shard 1 again from scratch (no resume) writing other data: every
// object but shard 1's staged files and manifest is unchanged, shard 1's
// staged names are the same, and the commit publishes the new data.
func RerunOverwritesOwnStaging(t *testing.T, base string) {
	j := newJob(base, 2, 8)
	runShard(t, j, 0, false, "a", -1, true)
	runShard(t, j, 1, false, "a", -1, true)
	runDir := shardrun.Join(j.state, j.run)
	staged := func(s int) map[string]bool {
		m, err := shardrun.ReadManifest(t.Context(), shardrun.ManifestName(runDir, s))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, o := range m.Outputs {
			out[bareName(o.Staged)] = true
		}
		return out
	}
	before := Files(t, base)
	own := staged(1)
	if len(own) != 4 {
		t.Fatalf("shard 1 staged %d files, want 4", len(own))
	}
	for n := range own {
		// Beside the final name where the storage renames, else under
		// the shard's staging prefix, by sink and name under its root.
		besides := strings.HasPrefix(shardrun.Base(n), ".part-00001-") && strings.HasSuffix(n, ".npyflow-"+j.run)
		prefixed := strings.Contains(n, "/_npyflow/"+j.run+"/staging/shard-00001/ds/odd=")
		if besides == prefixed {
			t.Errorf("staged as %s", n)
		}
	}
	runShard(t, j, 1, false, "b", -1, true)
	after := Files(t, base)
	if got := staged(1); fmt.Sprint(keys(toBytes(got))) != fmt.Sprint(keys(toBytes(own))) {
		t.Errorf("the re-run staged %v, the first run %v", keys(toBytes(got)), keys(toBytes(own)))
	}
	man1 := bareName(shardrun.ManifestName(runDir, 1))
	for name, b := range before {
		n := bareName(name)
		a, ok := after[name]
		switch {
		case own[n]:
			if !ok || bytes.Equal(a, b) {
				t.Errorf("%s: not rewritten by the re-run", n)
			}
		case n == man1:
		case !ok:
			t.Errorf("%s: removed by the re-run of shard 1", n)
		case !bytes.Equal(a, b):
			t.Errorf("%s: changed by the re-run of shard 1", n)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("%s: new after the re-run", bareName(name))
		}
	}
	cs, err := shardrun.CommitRun(t.Context(), runDir, nil)
	if err != nil || cs.Files != 8 {
		t.Fatalf("commit: %+v, %v", cs, err)
	}
	checkDataset(t, j, map[int]string{0: "a", 1: "b"})
	checkNoStaging(t, j)
}

func toBytes(m map[string]bool) map[string][]byte {
	out := map[string][]byte{}
	for k := range m {
		out[k] = nil
	}
	return out
}

// RacingCommits commits a finished run from four goroutines at once (as
// `npyflow commit` started twice, or on a store without exclusive
// create): every commit succeeds and the dataset is the run's, once.
func RacingCommits(t *testing.T, base string) {
	j := newJob(base, 2, 40)
	runShard(t, j, 0, false, "a", -1, true)
	runShard(t, j, 1, false, "a", -1, true)
	runDir := shardrun.Join(j.state, j.run)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = shardrun.CommitRun(t.Context(), runDir, nil)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("commit %d: %v", i, err)
		}
	}
	checkDataset(t, j, map[int]string{0: "a", 1: "a"})
	checkNoStaging(t, j)
}

// InterruptedCommit runs four shards that leave the commit to npyflow
// commit, then commits the run and sends this process SIGINT (caught by
// signal.NotifyContext, as the command does) while the third file is
// being published: CommitRun returns promptly with the cancellation,
// _SUCCESS and COMMITTED are absent, and committing again publishes
// every file once: the two published before the signal are not published
// again (their modification times stay).
func InterruptedCommit(t *testing.T, base string) {
	j := newJob(base, 4, 14)
	for s := 0; s < 4; s++ {
		runShard(t, j, s, false, "a", -1, true)
	}
	runDir := shardrun.Join(j.state, j.run)
	ctx, stop := signal.NotifyContext(t.Context(), os.Interrupt)
	defer stop()
	self, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var sent time.Time
	var published []string // before the signal
	opts := &shardrun.CommitOptions{BeforePublish: func(final string) {
		if n++; n != 3 {
			published = append(published, final)
			return
		}
		sent = time.Now()
		if err := self.Signal(os.Interrupt); err != nil {
			t.Skipf("cannot send SIGINT here: %v", err)
		}
		select { // the signal arrives asynchronously
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Error("SIGINT did not cancel the context")
		}
	}}
	cs, err := shardrun.CommitRun(ctx, runDir, opts)
	took := time.Since(sent)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("commit after SIGINT: %+v, %v", cs, err)
	}
	if took > 2*time.Second {
		t.Errorf("CommitRun returned %v after SIGINT", took)
	}
	bg := t.Context()
	if shardrun.Exists(bg, shardrun.Join(j.root, shardrun.SuccessFile)) || shardrun.Exists(bg, shardrun.Join(runDir, shardrun.CommittedFile)) {
		t.Error("_SUCCESS or COMMITTED after an interrupted commit")
	}
	var ie *shardrun.CommitInterruptedError
	if !errors.As(err, &ie) || ie.Published < 2 || ie.Published > 3 || ie.Files != j.inputs {
		t.Errorf("interrupted commit: %v (want 2, or 3 if the third copy finished, of %d files published)", err, j.inputs)
	}
	mod := map[string]time.Time{}
	for _, f := range published {
		st, err := storage.Stat(bg, f)
		if err != nil {
			t.Fatalf("%s, published before the signal: %v", f, err)
		}
		mod[f] = st.ModTime
	}
	if s := storage.Scheme(base); s != "" && s != "mem" && s != "memtest" {
		time.Sleep(1100 * time.Millisecond) // a store's times may be whole seconds: a copy again must show
	}
	cs, err = shardrun.CommitRun(bg, runDir, nil)
	if err != nil || cs.Already || cs.Files != j.inputs {
		t.Fatalf("commit again: %+v, %v", cs, err)
	}
	for f, m := range mod {
		if st, err := storage.Stat(bg, f); err != nil || !st.ModTime.Equal(m) {
			t.Errorf("%s published again by the second commit (modified %v, then %v, %v)", f, m, st.ModTime, err)
		}
	}
	checkDataset(t, j, map[int]string{0: "a", 1: "a", 2: "a", 3: "a"})
	checkNoStaging(t, j)
}
