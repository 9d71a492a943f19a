package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestSchedulerRetryCommits runs a frozen 4-shard plan as each scheduler
// runs its tasks, with one input of shard 1 missing: only task 1 fails,
// naming the input and the shard; no task commits and `npyflow commit`
// refuses. With the input back, the task is run again the scheduler's
// way, and the run is committed once with every row:
//
//   - Kubernetes: the Job created again, every index with --resume (the
//     finished shards return at once, shard 1 resumes and commits);
//   - Slurm, an array numbered from 1 (--index-base 1), re-submitted as
//     `sbatch --array=2`: Slurm sets MIN=MAX=2 and COUNT=1 then;
//   - AWS Batch: the array job, then one plain job with
//     NPYFLOW_SHARD_INDEX=1 (a Batch array has at least two tasks).
func TestSchedulerRetryCommits(t *testing.T) {
	type env = []string
	cases := []struct {
		name  string
		task  func(i int) env // a task of the first submission
		retry func() []env    // the tasks run again
		args  []string
	}{
		{"kubernetes",
			func(i int) env { return env{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)} },
			func() []env {
				return []env{{"JOB_COMPLETION_INDEX=0"}, {"JOB_COMPLETION_INDEX=1"}, {"JOB_COMPLETION_INDEX=2"}, {"JOB_COMPLETION_INDEX=3"}}
			}, nil},
		{"slurm from 1",
			func(i int) env {
				return env{fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", i+1), "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=4", "SLURM_ARRAY_TASK_COUNT=4"}
			},
			func() []env {
				return []env{{"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_MIN=2", "SLURM_ARRAY_TASK_MAX=2", "SLURM_ARRAY_TASK_COUNT=1"}}
			}, []string{"--index-base", "1"}},
		{"aws batch",
			func(i int) env {
				return env{fmt.Sprintf("AWS_BATCH_JOB_ARRAY_INDEX=%d", i), "AWS_BATCH_JOB_ARRAY_SIZE=4"}
			},
			func() []env { return []env{{"NPYFLOW_SHARD_INDEX=1"}} }, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			want := shardData(t, dir, 2, 4)
			if err := os.WriteFile(filepath.Join(dir, "job.yaml"), []byte(shardJob), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			if o, err := cli(t, dir, []string{"OUT=" + out}, "plan", "job.yaml", "--out", "plan.json", "--shards", "4"); err != nil {
				t.Fatalf("plan: %v\n%s", err, o)
			}
			fp, err := LoadFrozenPlan(context.Background(), filepath.Join(dir, "plan.json"))
			if err != nil {
				t.Fatal(err)
			}
			victim := ""
			for _, in := range fp.Inputs {
				if in.Shard == 1 {
					victim = in.Path
				}
			}
			if err := os.Rename(victim, victim+".away"); err != nil { // keeps the mtime
				t.Fatal(err)
			}
			args := append([]string{"run", "--plan", "plan.json", "--resume"}, tc.args...)
			outs := make([]string, 4)
			errs := make([]error, 4)
			var wg sync.WaitGroup
			for i := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					outs[i], errs[i] = cli(t, dir, tc.task(i), args...)
				}()
			}
			wg.Wait()
			for i := range 4 {
				switch {
				case i == 1 && (errs[i] == nil || !strings.Contains(outs[i], "shard 1/4: planned input "+victim+": no such file or directory")):
					t.Fatalf("task 1: %v\n%s", errs[i], outs[i])
				case i != 1 && errs[i] != nil:
					t.Fatalf("task %d failed for another shard's input: %v\n%s", i, errs[i], outs[i])
				case strings.Contains(outs[i], "committed run"):
					t.Fatalf("task %d committed without shard 1:\n%s", i, outs[i])
				}
			}
			if o, err := cli(t, dir, nil, "commit", "--plan", "plan.json"); err == nil || !strings.Contains(o, "no manifest from shard(s) 1 of 4") {
				t.Fatalf("commit without shard 1: %v\n%s", err, o)
			}
			if err := os.Rename(victim+".away", victim); err != nil {
				t.Fatal(err)
			}
			commits := 0
			for _, e := range tc.retry() {
				o, err := cli(t, dir, e, args...)
				if err != nil {
					t.Fatalf("retry %v: %v\n%s", e, err, o)
				}
				commits += strings.Count(o, "committed run")
			}
			if commits != 1 {
				t.Errorf("%d commits after the retry, want 1", commits)
			}
			got, shards := readDataset(t, filepath.Join(out, "ds"))
			compareAgg(t, tc.name, got, want)
			if len(shards) != 4 {
				t.Errorf("files from shards %v, want 4", shards)
			}
		})
	}
}
