package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/pipeline"
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/shardrun"
)

func init() {
	register("commit", "commit a sharded run: verify every shard's manifest, publish the outputs, write _SUCCESS", runCommit)
}

// runCommit commits a sharded run. The run is the plan's (--plan), or the
// latest uncommitted run in the state directory (--state, or the job's
// default: _npyflow in its first sink's root).
func runCommit(e *env) error {
	fs := flag.NewFlagSet("commit", flag.ContinueOnError)
	var set setFlags
	fs.Var(&set, "set", "override a job value, as given to run (repeatable)")
	planFile := fs.String("plan", "", "the frozen plan the shards ran")
	state := fs.String("state", "", "the state directory the shards used (default: the plan's, or _npyflow in the job's first sink's root)")
	quiet := fs.Bool("quiet", false, "print nothing but errors")
	args, err := parseFlags(fs, e.args)
	if err != nil {
		return err
	}
	dir := *state
	var frozen *pipeline.FrozenPlan
	id := ""
	switch {
	case *planFile != "":
		var jb *job.Job
		if jb, frozen, err = loadJobOrPlan(e.ctx, args, set, *planFile, "commit"); err != nil {
			return err
		}
		id = frozen.ID
		if dir == "" {
			dir = frozen.StateDir
			if dir == "" {
				dir = pipeline.DefaultStateDir(jb)
			}
		}
	case len(args) == 1:
		job, err := loadJob(args[0], set)
		if err != nil {
			return err
		}
		if dir == "" {
			dir = pipeline.DefaultStateDir(job)
		}
	case len(args) > 1:
		return usagef("want one job file: npyflow commit job.yaml")
	case dir == "":
		return usagef("which run? npyflow commit job.yaml, --plan plan.json or --state DIR")
	}
	runDir, err := shardrun.FindRun(e.ctx, dir, id)
	if err != nil {
		return err
	}
	opts := &shardrun.CommitOptions{}
	if frozen != nil {
		opts.Expect = frozen.Expected()
	}
	cs, err := shardrun.CommitRun(e.ctx, runDir, opts)
	var ie *shardrun.CommitInterruptedError
	if errors.As(err, &ie) {
		return err // one line, naming the run
	}
	if err != nil {
		return fmt.Errorf("run %s not committed:\n%w", storage.Redact(runDir), err)
	}
	if !*quiet {
		if cs.Already {
			fmt.Fprintf(e.stdout, "run %s was already committed\n", cs.Run)
		} else {
			fmt.Fprintf(e.stdout, "committed run %s: %d shard(s), %d input(s), %d file(s)", cs.Run, cs.Shards, cs.Inputs, cs.Files)
			if cs.Removed > 0 {
				fmt.Fprintf(e.stdout, ", %d earlier file(s) removed", cs.Removed)
			}
			fmt.Fprintln(e.stdout)
		}
		for sink, rows := range cs.Rows {
			fmt.Fprintf(e.stdout, "  sink %s: %d rows\n", sink, rows)
		}
	}
	return nil
}
