package shardrun

import (
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

func TestShardFromEnv(t *testing.T) {
	cases := []struct {
		name  string
		env   map[string]string
		count int
		want  Shard
		from  string
		err   string
	}{
		{"none", nil, 0, Shard{}, "", ""},
		{"k8s", map[string]string{"JOB_COMPLETION_INDEX": "2", "NPYFLOW_SHARD_COUNT": "5"}, 0, Shard{2, 5}, "JOB_COMPLETION_INDEX", ""},
		{"k8s plan count", map[string]string{"JOB_COMPLETION_INDEX": "2"}, 3, Shard{2, 3}, "JOB_COMPLETION_INDEX", ""},
		{"k8s no count", map[string]string{"JOB_COMPLETION_INDEX": "2"}, 0, Shard{}, "", "NPYFLOW_SHARD_COUNT"},
		{"slurm from 0", map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "4"}, 0, Shard{0, 4}, "SLURM_ARRAY_TASK_ID", ""},
		{"slurm from 1", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4"}, 0, Shard{3, 4}, "SLURM_ARRAY_TASK_ID", ""},
		{"aws", map[string]string{"AWS_BATCH_JOB_ARRAY_INDEX": "7", "AWS_BATCH_JOB_ARRAY_SIZE": "8"}, 0, Shard{7, 8}, "AWS_BATCH_JOB_ARRAY_INDEX", ""},
		{"cloud run", map[string]string{"CLOUD_RUN_TASK_INDEX": "0", "CLOUD_RUN_TASK_COUNT": "1"}, 0, Shard{0, 1}, "CLOUD_RUN_TASK_INDEX", ""},
		{"npyflow first", map[string]string{"NPYFLOW_SHARD_INDEX": "1", "NPYFLOW_SHARD_COUNT": "2", "CLOUD_RUN_TASK_INDEX": "0", "CLOUD_RUN_TASK_COUNT": "9"}, 0, Shard{1, 2}, "NPYFLOW_SHARD_INDEX", ""},
		{"count mismatch", map[string]string{"AWS_BATCH_JOB_ARRAY_INDEX": "1", "AWS_BATCH_JOB_ARRAY_SIZE": "8"}, 4, Shard{}, "", "plan has 4 shards"},
		{"index too big", map[string]string{"CLOUD_RUN_TASK_INDEX": "3", "CLOUD_RUN_TASK_COUNT": "3"}, 0, Shard{}, "", "want 0 to 2"},
		{"not a number", map[string]string{"SLURM_ARRAY_TASK_ID": "x"}, 0, Shard{}, "", "not an integer"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, from, ok, err := ShardFromEnv(env(tc.env), tc.count)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, %v; want error with %q", got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ok != (tc.from != "") || got != tc.want || from != tc.from {
				t.Errorf("got %v from %q (ok %v), want %v from %q", got, from, ok, tc.want, tc.from)
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
	dir := t.TempDir()
	p := filepath.Join(dir, "a.bin")
	data := make([]byte, 300<<10)
	for i := range data {
		data[i] = byte(i * 31)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	base, err := Fingerprint(p)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Fingerprint(p)
	if again != base || !strings.HasPrefix(base, "fp1:") || len(base) != 4+32 {
		t.Fatalf("fingerprint %q then %q", base, again)
	}
	mtime := time.Now().Add(-time.Hour)
	os.Chtimes(p, mtime, mtime)
	touched, _ := Fingerprint(p)
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
		got, _ := Fingerprint(p)
		if prev, dup := seen[got]; dup {
			t.Errorf("%s: same fingerprint as %s", name, prev)
		}
		seen[got] = name
	}
	if _, err := Fingerprint(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
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
