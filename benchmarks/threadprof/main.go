// Command threadprof runs one conversion (pipeline.Convert, as `npyflow
// convert` runs it) under a CPU profile, to split its CPU into stages
// for the model of benchmarks/NOTES.md "1 -> 2 cores":
//
//	threadprof -cpuprofile FILE [-threads N] [-flag name=value]... IN OUT
//
// It prints the wall seconds of the conversion; `go tool pprof -top
// -focus REGEX FILE` then gives the CPU of one stage.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/npyflow/npyflow/pipeline"
)

type flags map[string]string

func (f flags) String() string { return fmt.Sprint(map[string]string(f)) }
func (f flags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("want name=value, got %q", v)
	}
	f[k] = val
	return nil
}

func main() {
	prof := flag.String("cpuprofile", "", "write the CPU profile of the conversion to `file`")
	threads := flag.Int("threads", 0, "ConvertOptions.Threads (0: GOMAXPROCS)")
	opts := flags{}
	flag.Var(opts, "flag", "a conversion flag as `name=value` (compression=zstd; repeatable)")
	flag.Parse()
	if err := run(*prof, *threads, opts, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "threadprof:", err)
		os.Exit(1)
	}
}

func run(prof string, threads int, opts flags, args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("want IN OUT, got %d arguments", len(args))
	}
	if prof != "" {
		f, err := os.Create(prof)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	_, err := pipeline.Convert(context.Background(), args[0], args[1], &pipeline.ConvertOptions{Threads: threads, Flags: opts})
	fmt.Printf("wall %.3f s\n", time.Since(start).Seconds())
	return err
}
