package shardrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseShard(t *testing.T) {
	cases := []struct {
		in    string
		count int
		want  Shard
		err   string
	}{
		{"0/4", 0, Shard{0, 4}, ""},
		{"3/4", 4, Shard{3, 4}, ""},
		{" 2 ", 3, Shard{2, 3}, ""},
		{"2", 0, Shard{}, "count is unknown"},
		{"4/4", 0, Shard{}, "want 0 to 3"},
		{"-1/4", 0, Shard{}, "want 0 to 3"},
		{"1/0", 0, Shard{}, "at least 1"},
		{"1/3", 4, Shard{}, "has 4 shards, not 3"},
		{"a/b", 0, Shard{}, "want i/n"},
		{"1/x", 0, Shard{}, "want i/n"},
		{"0/100000", 0, Shard{}, "at most 99999"},
	}
	for _, tc := range cases {
		got, err := ParseShard(tc.in, tc.count)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseShard(%q, %d) = %v, %v; want error with %q", tc.in, tc.count, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseShard(%q, %d) = %v, %v; want %v", tc.in, tc.count, got, err, tc.want)
		}
	}
}

// TestShardFromEnv: each scheduler's variables as it sets them for a
// first submission and for a re-submission of some of its tasks; the
// shard is always the task's index (less the index base), of the plan's
// count, whatever the array the task was submitted in.
func TestShardFromEnv(t *testing.T) {
	type vars = map[string]string
	slurm := func(id, min, max, count string) vars {
		return vars{"SLURM_ARRAY_TASK_ID": id, "SLURM_ARRAY_TASK_MIN": min, "SLURM_ARRAY_TASK_MAX": max,
			"SLURM_ARRAY_TASK_COUNT": count, "SLURM_ARRAY_JOB_ID": "77"}
	}
	valid := []struct {
		name  string
		env   vars
		count int // the plan's
		base  int
		want  Shard
		from  string
	}{
		{"none", nil, 4, 0, Shard{}, ""},
		// Slurm, --array=0-15.
		{"slurm 0-based first task", slurm("0", "0", "15", "16"), 16, 0, Shard{0, 16}, "SLURM_ARRAY_TASK_ID"},
		{"slurm 0-based last task", slurm("15", "0", "15", "16"), 16, 0, Shard{15, 16}, "SLURM_ARRAY_TASK_ID"},
		{"slurm 0-based requeued", slurm("7", "0", "15", "16"), 16, 0, Shard{7, 16}, "SLURM_ARRAY_TASK_ID"},
		// sbatch --array=1 re-runs task 1: Slurm sets MIN=MAX=1, COUNT=1.
		{"slurm 0-based resubmit --array=1", slurm("1", "1", "1", "1"), 16, 0, Shard{1, 16}, "SLURM_ARRAY_TASK_ID"},
		{"slurm 0-based resubmit --array=3,9", slurm("9", "3", "9", "2"), 16, 0, Shard{9, 16}, "SLURM_ARRAY_TASK_ID"},
		{"slurm 0-based resubmit --array=15", slurm("15", "15", "15", "1"), 16, 0, Shard{15, 16}, "SLURM_ARRAY_TASK_ID"},
		// Slurm, --array=1-16 with --index-base 1.
		{"slurm 1-based first task", slurm("1", "1", "16", "16"), 16, 1, Shard{0, 16}, "SLURM_ARRAY_TASK_ID"},
		{"slurm 1-based last task", slurm("16", "1", "16", "16"), 16, 1, Shard{15, 16}, "SLURM_ARRAY_TASK_ID"},
		{"slurm 1-based resubmit --array=1", slurm("1", "1", "1", "1"), 16, 1, Shard{0, 16}, "SLURM_ARRAY_TASK_ID"},
		{"slurm 1-based resubmit --array=4-5", slurm("5", "4", "5", "2"), 16, 1, Shard{4, 16}, "SLURM_ARRAY_TASK_ID"},
		{"slurm without MAX", vars{"SLURM_ARRAY_TASK_ID": "2"}, 4, 0, Shard{2, 4}, "SLURM_ARRAY_TASK_ID"},
		// Kubernetes Indexed Job: the same index on a retry; a re-created
		// job with fewer completions still runs by index.
		{"k8s", vars{"JOB_COMPLETION_INDEX": "5"}, 8, 0, Shard{5, 8}, "JOB_COMPLETION_INDEX"},
		{"k8s count from NPYFLOW_SHARD_COUNT", vars{"JOB_COMPLETION_INDEX": "2", "NPYFLOW_SHARD_COUNT": "5"}, 0, 0, Shard{2, 5}, "JOB_COMPLETION_INDEX"},
		// AWS Batch: the array's size is not the plan's count once a
		// subset is re-submitted as a smaller array.
		{"aws batch", vars{"AWS_BATCH_JOB_ARRAY_INDEX": "7", "AWS_BATCH_JOB_ARRAY_SIZE": "8"}, 8, 0, Shard{7, 8}, "AWS_BATCH_JOB_ARRAY_INDEX"},
		{"aws batch smaller array", vars{"AWS_BATCH_JOB_ARRAY_INDEX": "1", "AWS_BATCH_JOB_ARRAY_SIZE": "2"}, 8, 0, Shard{1, 8}, "AWS_BATCH_JOB_ARRAY_INDEX"},
		// A single Batch job (no array) re-running index 6.
		{"aws batch single job", vars{"NPYFLOW_SHARD_INDEX": "6"}, 8, 0, Shard{6, 8}, "NPYFLOW_SHARD_INDEX"},
		{"cloud run", vars{"CLOUD_RUN_TASK_INDEX": "0", "CLOUD_RUN_TASK_COUNT": "1"}, 3, 0, Shard{0, 3}, "CLOUD_RUN_TASK_INDEX"},
		// A shell loop: for i in 0 1 2 3; do NPYFLOW_SHARD_INDEX=$i ...
		{"shell loop", vars{"NPYFLOW_SHARD_INDEX": "3", "NPYFLOW_SHARD_COUNT": "4"}, 0, 0, Shard{3, 4}, "NPYFLOW_SHARD_INDEX"},
		{"shell loop from 1", vars{"NPYFLOW_SHARD_INDEX": "4"}, 4, 1, Shard{3, 4}, "NPYFLOW_SHARD_INDEX"},
		// NPYFLOW_SHARD_INDEX overrides the scheduler's index.
		{"npyflow first", vars{"NPYFLOW_SHARD_INDEX": "1", "CLOUD_RUN_TASK_INDEX": "0", "CLOUD_RUN_TASK_COUNT": "9"}, 2, 0, Shard{1, 2}, "NPYFLOW_SHARD_INDEX"},
		{"npyflow over slurm", vars{"NPYFLOW_SHARD_INDEX": "2", "SLURM_ARRAY_TASK_ID": "0"}, 4, 0, Shard{2, 4}, "NPYFLOW_SHARD_INDEX"},
	}
	for _, tc := range valid {
		t.Run(tc.name, func(t *testing.T) {
			got, from, ok, err := ShardFromEnv(EnvOptions{Lookup: env(tc.env), Count: tc.count, Base: tc.base})
			if err != nil {
				t.Fatal(err)
			}
			if ok != (tc.from != "") || got != tc.want || from != tc.from {
				t.Errorf("got %v from %q (ok %v), want %v from %q", got, from, ok, tc.want, tc.from)
			}
		})
	}
	invalid := []struct {
		name  string
		env   vars
		count int
		base  int
		err   string
	}{
		// --array=1-16 without --index-base 1: refused in every task,
		// before task 1..15 run the wrong shards.
		{"slurm 1-based without base", slurm("3", "1", "16", "16"), 16, 0, "needs --index-base 1"},
		{"slurm array too long", slurm("3", "0", "20", "21"), 16, 0, "past the last of 16 shards"},
		{"slurm 0 with base 1", slurm("0", "0", "0", "1"), 16, 1, "want 0 to 15"},
		{"k8s no count", vars{"JOB_COMPLETION_INDEX": "2"}, 0, 0, "NPYFLOW_SHARD_COUNT"},
		// The scheduler's count is never a count.
		{"slurm count is not used", slurm("1", "0", "3", "4"), 0, 0, "shard count is not"},
		{"aws size is not used", vars{"AWS_BATCH_JOB_ARRAY_INDEX": "1", "AWS_BATCH_JOB_ARRAY_SIZE": "8"}, 0, 0, "shard count is not"},
		{"count mismatch", vars{"NPYFLOW_SHARD_INDEX": "1", "NPYFLOW_SHARD_COUNT": "8"}, 4, 0, "plan has 4 shards"},
		{"index too big", vars{"CLOUD_RUN_TASK_INDEX": "3"}, 3, 0, "want 0 to 2"},
		{"not a number", vars{"SLURM_ARRAY_TASK_ID": "x"}, 4, 0, "not an integer"},
	}
	for _, tc := range invalid {
		t.Run(tc.name, func(t *testing.T) {
			got, _, _, err := ShardFromEnv(EnvOptions{Lookup: env(tc.env), Count: tc.count, Base: tc.base})
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("got %v, %v; want error with %q", got, err, tc.err)
			}
		})
	}
}

func TestAssignShards(t *testing.T) {
	cases := []struct {
		sizes []int64
		n     int
		want  []int
	}{
		{[]int64{5, 5, 5, 5}, 2, []int{0, 1, 0, 1}},
		// Largest first: 100 alone on shard 0, the small ones fill shard 1.
		{[]int64{10, 100, 20, 30, 40}, 2, []int{1, 0, 1, 1, 1}},
		{[]int64{1, 2, 3}, 1, []int{0, 0, 0}},
		{[]int64{7, 7}, 4, []int{0, 1}},
		{nil, 3, []int{}},
	}
	for _, tc := range cases {
		got := AssignShards(tc.sizes, tc.n)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("AssignShards(%v, %d) = %v, want %v", tc.sizes, tc.n, got, tc.want)
		}
	}
	// Balance: the spread of byte totals never exceeds the largest item.
	sizes := make([]int64, 500)
	var largest int64
	for i := range sizes {
		sizes[i] = int64((i*7919)%1000 + 1)
		largest = max(largest, sizes[i])
	}
	for _, n := range []int{2, 3, 7, 16} {
		load := make([]int64, n)
		for i, s := range AssignShards(sizes, n) {
			load[s] += sizes[i]
		}
		lo, hi := slicesMinMax(load)
		if hi-lo > largest {
			t.Errorf("%d shards: loads %v spread %d > largest %d", n, load, hi-lo, largest)
		}
	}
}

func ExampleAssignShards() {
	// Input sizes in bytes; each goes to the least loaded shard, largest first.
	fmt.Println(AssignShards([]int64{300, 100, 200, 100, 100}, 2))
	// Output: [0 1 1 0 1]
}

func ExampleParseShard() {
	s, err := ParseShard("2/8", 0)
	fmt.Println(s.Index, s.Count, err)
	// Output: 2 8 <nil>
}

func TestFingerprint(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "a.bin")
	data := make([]byte, 300<<10)
	for i := range data {
		data[i] = byte(i * 31)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	base, mt, err := Fingerprint(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	again, _, _ := Fingerprint(ctx, p)
	if st, err := os.Stat(p); err != nil || !mt.Equal(st.ModTime()) {
		t.Errorf("mtime %v, the file's %v", mt, st.ModTime())
	}
	if again != base || !strings.HasPrefix(base, "fp1:") || len(base) != 4+32 {
		t.Fatalf("fingerprint %q then %q", base, again)
	}
	mtime := time.Now().Add(-time.Hour)
	os.Chtimes(p, mtime, mtime)
	touched, _, _ := Fingerprint(ctx, p)
	changes := map[string]func(b []byte) []byte{
		"header byte": func(b []byte) []byte { b[10] ^= 1; return b },
		"last byte":   func(b []byte) []byte { b[len(b)-1] ^= 1; return b },
		"appended":    func(b []byte) []byte { return append(b, 0) },
	}
	seen := map[string]string{base: "original", touched: "touched"}
	if touched == base {
		t.Error("changing mtime kept the fingerprint")
	}
	for name, f := range changes {
		b := f(append([]byte(nil), data...))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, mtime, mtime) // same mtime as "touched": the content must tell
		got, _, _ := Fingerprint(ctx, p)
		if prev, dup := seen[got]; dup {
			t.Errorf("%s: same fingerprint as %s", name, prev)
		}
		seen[got] = name
	}
	if _, _, err := Fingerprint(ctx, filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func slicesMinMax(v []int64) (int64, int64) {
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}
