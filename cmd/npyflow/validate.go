package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/npyflow/npyflow/pipeline"
	"github.com/npyflow/npyflow/pipeline/job"
)

func init() {
	register("validate", "check job files and report every problem: npyflow validate job.yaml...", runValidate)
}

// runValidate checks job files. It reports all problems of all files, as
// file:line:col: path: message, and exits 2 if there were any.
//
// Beyond the job file itself, it reads the headers of the inputs that
// exist (never their data), as plan does, so that field names and types
// are checked against what the transforms and sinks get. Inputs that are
// missing or unreadable are not the job's fault: the job is then reported
// as valid, with a note that it was checked without them. --static skips
// the inputs altogether.
func runValidate(e *env) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	var set setFlags
	fs.Var(&set, "set", "override a job value: --set sinks.out.path=x.parquet (repeatable)")
	static := fs.Bool("static", false, "check the job file only, without reading the inputs' headers")
	args, err := parseFlags(fs, e.args)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		return usagef("want at least one job file: npyflow validate job.yaml")
	}
	bad := 0
	for _, name := range args {
		jb, err := loadJob(name, set)
		if err != nil {
			bad++
			fmt.Fprintln(e.stderr, err)
			continue
		}
		if *static {
			fmt.Fprintf(e.stdout, "%s: ok\n", name)
			continue
		}
		plan, err := pipeline.NewPlan(e.ctx, jb, &pipeline.PlanOptions{Warn: e.warn})
		switch {
		case err == nil:
			plan.Close()
			n := 0
			for _, s := range plan.Sources {
				n += len(s.Parts)
			}
			fmt.Fprintf(e.stdout, "%s: ok (checked against the headers of %d input(s))\n", name, n)
		case job.IsJobError(err):
			bad++
			fmt.Fprintln(e.stderr, err)
		default:
			msg := strings.ReplaceAll(trimPrefix(err).Error(), "\n", "; ")
			fmt.Fprintf(e.stdout, "%s: ok as a job file; not checked against its inputs: %s\n", name, msg)
		}
	}
	if bad > 0 {
		return usagef("%d of %d job file(s) invalid", bad, len(args))
	}
	return nil
}
