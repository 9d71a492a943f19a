package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/npyflow/npyflow/internal/storage/storagetest"
)

// interruptJob writes a job over the six demo station files with two
// sinks under base (a bucket URL): a Parquet dataset partitioned by
// station (mode overwrite, the default), and one .npy per input in mode
// error_if_exists (which must not refuse the files an interrupted commit
// of the same run published),
// plans it as two shards and runs both with --no-commit, leaving the
// commit to `npyflow commit --plan`. It returns the plan file and the
// six .npy names the commit must publish, sorted; run is how a
// command is run (in-process, or a child process).
func interruptJob(t *testing.T, base string, run func(args ...string) (int, string, string)) (plan string, finals []string) {
	t.Helper()
	data, _ := filepath.Abs("../../testdata/demo/stations")
	job := writeJob(t, fmt.Sprintf(`version: 1
sources:
  r: {type: npy, paths: "%s/{station}/readings_{day:int}.npy"}
sinks:
  ds: {type: parquet, input: r, path: "%s/ds", partition_by: [station]}
  files: {type: npy, input: r, path: "%s/files/{station}_{stem}.npy", mode: error_if_exists}
`, data, base, base))
	plan = filepath.Join(t.TempDir(), "plan.json")
	for _, args := range [][]string{
		{"plan", job, "--out", plan, "--shards", "2"},
		{"run", "--plan", plan, "--shard", "0", "--no-commit"},
		{"run", "--plan", plan, "--shard", "1", "--no-commit"},
	} {
		if code, stdout, stderr := run(args...); code != 0 {
			t.Fatalf("npyflow %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	for _, st := range []string{"north", "south"} {
		for d := 1; d <= 3; d++ {
			finals = append(finals, fmt.Sprintf("%s/files/%s_readings_%d.npy", base, st, d))
		}
	}
	sort.Strings(finals)
	return plan, finals
}

// TestCommitInterruptedBucket interrupts `npyflow commit` (in-process, as
// main runs it) while the third object of a run in a bucket is being
// copied to its final name: the in-memory store's copy waits for the
// cancellation and returns its error, as a copy in flight does when
// Ctrl-C cancels its request. The command must return within 2 s of the
// cancellation with exit 1 and one line on stderr, publish no _SUCCESS
// and no COMMITTED; a second commit must succeed, copy every output not
// yet published exactly once (none twice: a reader of an object already
// published never sees it replaced), and write _SUCCESS in both sinks'
// roots listing every file.
func TestCommitInterruptedBucket(t *testing.T) {
	mem := storagetest.NewMem("sigmem")
	base := fmt.Sprintf("sigmem://b/t-%d", time.Now().UnixNano())
	plan, finals := interruptJob(t, base, func(args ...string) (int, string, string) { return run(t, args...) })

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	copied := map[string]int{} // completed copies by destination
	n := 0
	var cancelled time.Time
	mem.BeforeCopy = func(cctx context.Context, from, to string) error {
		mu.Lock()
		n++
		third := n == 3
		if !third {
			copied[to]++
		}
		mu.Unlock()
		if third {
			cancelled = time.Now()
			cancel() // Ctrl-C, caught by main's signal.NotifyContext
			select {
			case <-cctx.Done():
				return cctx.Err()
			case <-time.After(10 * time.Second):
				t.Error("the copy's context was not cancelled")
			}
		}
		return nil
	}
	defer func() { mem.BeforeCopy = nil }()

	var stdout, stderr bytes.Buffer
	code := runMain(ctx, []string{"commit", "--plan", plan}, &stdout, &stderr)
	took := time.Since(cancelled)
	if cancelled.IsZero() {
		t.Fatalf("the commit copied fewer than 3 objects: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	msg := stderr.String()
	if code != exitFailure || strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "npyflow commit: ") ||
		!strings.Contains(msg, "interrupted") || !strings.Contains(msg, "commit it again") {
		t.Errorf("interrupted commit: exit %d, stderr %q (want exit 1 and one line saying to commit again)", code, msg)
	}
	if took > 2*time.Second {
		t.Errorf("the commit returned %v after the cancellation", took)
	}
	t.Logf("returned %v after the cancellation, exit %d: %s", took.Round(time.Millisecond), code, msg)
	for _, name := range []string{base + "/ds/_SUCCESS", base + "/files/_SUCCESS"} {
		if mem.Bytes(name) != nil {
			t.Errorf("%s after an interrupted commit", name)
		}
	}
	for _, k := range mem.Keys(base) {
		if strings.HasSuffix(k, "/COMMITTED") {
			t.Errorf("%s after an interrupted commit", k)
		}
	}

	code, out, errs := run(t, "commit", "--plan", plan)
	if code != 0 || !strings.Contains(out, "committed run") || errs != "" {
		t.Fatalf("commit again: exit %d\n%s%s", code, out, errs)
	}
	var published []string
	for _, root := range []string{base + "/ds", base + "/files"} {
		var succ struct{ Published []string }
		if err := json.Unmarshal(mem.Bytes(root+"/_SUCCESS"), &succ); err != nil || len(succ.Published) == 0 {
			t.Fatalf("%s/_SUCCESS: %v, %d files listed", root, err, len(succ.Published))
		}
		for _, rel := range succ.Published {
			f := root + "/" + rel
			published = append(published, f)
			if copied[f] != 1 {
				t.Errorf("%s published %d times, want once", f, copied[f])
			}
			if len(mem.Bytes(f)) == 0 {
				t.Errorf("%s missing", f)
			}
		}
	}
	for _, f := range finals {
		if !slices.Contains(published, f) {
			t.Errorf("_SUCCESS does not list %s", f)
		}
	}
	if len(copied) != len(published) {
		t.Errorf("%d objects copied, %d published", len(copied), len(published))
	}
	for _, k := range mem.Keys(base) {
		if strings.Contains(k, "staging") || strings.Contains(k, ".npyflow-") {
			t.Errorf("left after the commit: %s", k)
		}
	}
}
