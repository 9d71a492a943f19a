package main

import (
	"flag"
	"fmt"
)

func init() {
	register("validate", "check job files and report every problem: npyflow validate job.yaml...", runValidate)
}

// runValidate checks job files without reading any data. It reports all
// problems of all files, as file:line:col: path: message, and exits 2 if
// there were any.
func runValidate(e *env) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	var set setFlags
	fs.Var(&set, "set", "override a job value: --set sinks.out.path=x.parquet (repeatable)")
	args, err := parseFlags(fs, e.args)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		return usagef("want at least one job file: npyflow validate job.yaml")
	}
	bad := 0
	for _, name := range args {
		if _, err := loadJob(name, set); err != nil {
			bad++
			fmt.Fprintln(e.stderr, err)
			continue
		}
		fmt.Fprintf(e.stdout, "%s: ok\n", name)
	}
	if bad > 0 {
		return usagef("%d of %d job file(s) invalid", bad, len(args))
	}
	return nil
}
