package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/npyflow/npyflow/internal/storage"

	"github.com/npyflow/npyflow/pipeline"
	"github.com/npyflow/npyflow/shardrun"
)

func init() {
	register("plan", "dry run: expand globs, read headers, print each output's schema, rows and paths", runPlan)
}

// planJSON is the machine-readable form of a plan (--json).
type planJSON struct {
	Sources []sourceJSON `json:"sources"`
	Outputs []outputJSON `json:"outputs"`
}

type sourceJSON struct {
	Name   string     `json:"name"`
	Type   string     `json:"type"`
	Schema string     `json:"schema"`
	Rows   int64      `json:"rows"`
	Bytes  int64      `json:"bytes"`
	Inputs []partJSON `json:"inputs"`
}

type partJSON struct {
	Path   string `json:"path"`
	Member string `json:"member,omitempty"`
	Size   int64  `json:"size"`
	Rows   int64  `json:"rows"`
}

type outputJSON struct {
	Sink      string   `json:"sink"`
	Type      string   `json:"type"`
	Schema    string   `json:"schema"`
	Columns   []string `json:"columns"`
	Rows      int64    `json:"rows"`
	RowsExact bool     `json:"rows_exact"`
	Paths     []string `json:"paths"`
}

// runPlan is a dry run: it validates the job, expands globs, reads only
// headers, and prints what each sink would write. It writes no file.
func runPlan(e *env) error {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	var set setFlags
	fs.Var(&set, "set", "override a job value: --set sinks.out.path=x.parquet (repeatable)")
	asJSON := fs.Bool("json", false, "print the plan as JSON")
	outFile := fs.String("out", "", "write a frozen plan for sharded runs (inputs with fingerprints, shard assignment, outputs) to this file")
	shards := fs.Int("shards", 0, "with --out: the number of shards (default $NPYFLOW_SHARD_COUNT, else 1)")
	args, err := parseFlags(fs, e.args)
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return usagef("want one job file: npyflow plan job.yaml")
	}
	job, err := loadJob(args[0], set)
	if err != nil {
		return err
	}
	plan, err := pipeline.NewPlan(e.ctx, job, &pipeline.PlanOptions{Warn: e.warn})
	if err != nil {
		return jobError(err)
	}
	defer plan.Close()
	if *outFile != "" {
		return freezePlan(e, plan, args[0], set, *outFile, *shards)
	}
	if *shards != 0 {
		return usagef("--shards goes with --out")
	}
	if !*asJSON {
		fmt.Fprint(e.stdout, plan.Describe())
		return nil
	}
	var out planJSON
	for _, s := range plan.Sources {
		sj := sourceJSON{Name: s.Name, Type: s.Type, Schema: s.Schema.String(), Rows: s.Rows, Bytes: s.Bytes, Inputs: []partJSON{}}
		for _, p := range s.Parts {
			sj.Inputs = append(sj.Inputs, partJSON{Path: p.Path, Member: p.Member, Size: p.Size, Rows: p.Rows})
		}
		out.Sources = append(out.Sources, sj)
	}
	for _, o := range plan.Outputs {
		out.Outputs = append(out.Outputs, outputJSON{Sink: o.Sink, Type: o.Type, Schema: o.Schema.String(), Columns: o.Schema.Columns(),
			Rows: o.Rows, RowsExact: o.RowsExact, Paths: o.Paths})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s\n", b)
	return nil
}

// freezePlan writes the frozen plan of a sharded run.
func freezePlan(e *env, plan *pipeline.Plan, jobFile string, set []string, out string, shards int) error {
	if shards == 0 {
		shards = 1
		if v := os.Getenv("NPYFLOW_SHARD_COUNT"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return usagef("NPYFLOW_SHARD_COUNT=%q is not an integer", v)
			}
			shards = n
		}
	}
	if shards < 1 || shards > shardrun.MaxShards {
		return usagef("--shards must be between 1 and %d", shardrun.MaxShards)
	}
	text, err := os.ReadFile(jobFile)
	if err != nil {
		return err
	}
	fp, err := plan.Freeze(e.ctx, shards, text, set)
	if err != nil {
		return usageError{err}
	}
	if err := fp.WriteFile(e.ctx, out); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "plan %s: run %s, %d input(s) in %d shard(s); state in %s\n", storage.Redact(out), fp.ID, len(fp.Inputs), fp.Shards, storage.Redact(fp.StateDir))
	for i := range fp.ShardBytes {
		if i == 10 && fp.Shards > 12 {
			fmt.Fprintf(e.stdout, "  ... %d more\n", fp.Shards-10)
			break
		}
		fmt.Fprintf(e.stdout, "  shard %d: %d input(s), %s\n", i, fp.ShardFiles[i], pipeline.HumanBytes(fp.ShardBytes[i]))
	}
	return nil
}
