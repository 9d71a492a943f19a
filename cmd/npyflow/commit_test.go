package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShardCLI checks sharded runs through the CLI: the frozen plan, the
// shard from flags or a scheduler's variables, usage errors (exit 2) and
// the commit.
func TestShardCLI(t *testing.T) {
	for _, k := range []string{"JOB_COMPLETION_INDEX", "NPYFLOW_SHARD_INDEX", "NPYFLOW_SHARD_COUNT", "SLURM_ARRAY_TASK_ID",
		"SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "AWS_BATCH_JOB_ARRAY_INDEX", "AWS_BATCH_JOB_ARRAY_SIZE", "CLOUD_RUN_TASK_INDEX", "CLOUD_RUN_TASK_COUNT"} {
		t.Setenv(k, "")
	}
	data, _ := filepath.Abs("../../testdata/demo/stations")
	out := t.TempDir()
	job := writeJob(t, "version: 1\nsources:\n  r: {type: npy, paths: \""+data+"/{station}/readings_{day:int}.npy\"}\n"+
		"sinks:\n  ds: {type: parquet, input: r, path: "+out+"/ds, partition_by: [station]}\n")
	plan := filepath.Join(t.TempDir(), "plan.json")
	oneFile := writeJob(t, "version: 1\nsources:\n  r: {type: npy, paths: "+data+"/*/*.npy}\nsinks:\n  o: {type: npy, input: r, path: "+out+"/all.npy}\n")

	steps := []struct {
		name   string
		env    map[string]string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"plan", nil, []string{"plan", job, "--out", plan, "--shards", "3"}, 0, "6 input(s) in 3 shard(s)", ""},
		{"plan one-file sink", nil, []string{"plan", oneFile, "--out", plan + "x", "--shards", "2"}, 2, "", "writes one file for all inputs"},
		{"shards without out", nil, []string{"plan", job, "--shards", "3"}, 2, "", "--shards goes with --out"},
		{"bad shard", nil, []string{"run", "--plan", plan, "--shard", "3"}, 2, "", "want 0 to 2"},
		{"count mismatch", nil, []string{"run", "--plan", plan, "--shard", "1/4"}, 2, "", "has 3 shards, not 4"},
		{"no shard", nil, []string{"run", "--plan", plan}, 2, "", "which shard of 3?"},
		{"set with plan", nil, []string{"run", "--plan", plan, "--shard", "0", "--set", "sinks.ds.mode=append"}, 2, "", "--set cannot change a frozen plan"},
		{"k8s without count", map[string]string{"JOB_COMPLETION_INDEX": "1"}, []string{"run", job}, 2, "", "NPYFLOW_SHARD_COUNT"},
		{"commit too early", nil, []string{"commit", "--plan", plan}, 1, "", "no shard has started"},
		{"shard 0", nil, []string{"run", "--plan", plan, "--shard", "0"}, 0, "shard 0/3 of run", ""},
		{"shard 1 from k8s", map[string]string{"JOB_COMPLETION_INDEX": "1"}, []string{"run", "--plan", plan, "--no-commit"}, 0, "  staged ", "shard 1/3 from JOB_COMPLETION_INDEX=1"},
		// --array=1-3 needs --index-base 1: every task refuses.
		{"slurm from 1 without base", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "3", "SLURM_ARRAY_TASK_COUNT": "3"},
			[]string{"run", "--plan", plan, "--resume", "--no-commit"}, 2, "", "(--array=1-3) needs --index-base 1"},
		// sbatch --array=2 re-runs task 2 of that array (shard 1): Slurm sets MIN=MAX=2, COUNT=1.
		{"slurm re-submitted", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "2", "SLURM_ARRAY_TASK_MAX": "2", "SLURM_ARRAY_TASK_COUNT": "1"},
			[]string{"run", "--plan", plan, "--resume", "--no-commit", "--index-base", "1"}, 0, "shard 1/3 of run", "shard 1/3 from SLURM_ARRAY_TASK_ID=2"},
		{"commit missing shard", nil, []string{"commit", "--plan", plan}, 1, "", "no manifest from shard(s) 2 of 3"},
		{"shard 2 from aws", map[string]string{"AWS_BATCH_JOB_ARRAY_INDEX": "2", "AWS_BATCH_JOB_ARRAY_SIZE": "3"}, []string{"run", "--plan", plan, "--no-commit"}, 0, "", "staged, not published (--no-commit)"},
		{"commit", nil, []string{"commit", "--plan", plan}, 0, "3 shard(s), 6 input(s)", ""},
		{"commit again", nil, []string{"commit", job}, 0, "already committed", ""},
		{"resume committed", nil, []string{"run", "--plan", plan, "--shard", "2", "--resume"}, 0, "already committed", ""},
		{"rerun committed", nil, []string{"run", "--plan", plan, "--shard", "2"}, 1, "", "already committed"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			for k, v := range s.env {
				t.Setenv(k, v)
			}
			code, stdout, stderr := run(t, s.args...)
			if code != s.code || !strings.Contains(stdout, s.stdout) || !strings.Contains(stderr, s.stderr) {
				t.Errorf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, s.code, stdout, stderr)
			}
		})
	}
	for _, st := range []string{"north", "south"} {
		files, _ := filepath.Glob(filepath.Join(out, "ds", "station="+st, "part-*.parquet"))
		if len(files) == 0 {
			t.Errorf("no files in partition station=%s", st)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "ds", "_SUCCESS")); err != nil {
		t.Error(err)
	}
}
