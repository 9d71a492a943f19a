package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/pipeline/job"

	"github.com/npyflow/npyflow/pipeline"
	"github.com/npyflow/npyflow/shardrun"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

func init() {
	register("run", "run a job file: npyflow run job.yaml [--set k=v] [--workers N] [--threads N] [--quiet] [--shard i/n | --plan plan.json --shard i] [--resume]", runRun)
}

// setFlags collects repeated --set path=value flags.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, ",") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

// usages are the long usage texts of the commands that have one, ending
// "flags:".
var usages = map[string]string{}

// parseFlags parses fs allowing flags before, between or after the
// positional arguments ("run job.yaml --workers 2"); "--" ends the flags.
// -h is the command's usage (helpError); a bad flag is one line saying
// so (a usageError).
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, helpError{usageText(fs)}
			}
			var bad error // an option's value, refused naming its flag
			fs.VisitAll(func(f *flag.Flag) {
				if o, ok := f.Value.(interface{ refused() error }); ok && o.refused() != nil && bad == nil {
					bad = o.refused()
				}
			})
			if bad != nil {
				return nil, usageError{bad}
			}
			return nil, usagef("%v (see npyflow %s -h)", err, fs.Name())
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// usageText is the usage of the command of fs, with its flags.
func usageText(fs *flag.FlagSet) string {
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	if u := usages[fs.Name()]; u != "" {
		return u + "\n" + b.String()
	}
	text := "usage: npyflow " + commandLine(fs.Name()) + "\n"
	if b.Len() > 0 {
		text += "\nflags:\n" + b.String()
	}
	return text
}

// loadJob loads and validates a job; job errors become usage errors
// (exit code 2).
func loadJob(name string, set []string) (*job.Job, error) {
	jb, err := job.LoadFile(name, &job.LoadOptions{Set: set})
	return jb, jobError(err)
}

// jobError marks err, if it is about the job itself, as an invalid job
// (exit 2), printing every problem on its own line; other errors are
// returned as they are.
func jobError(err error) error {
	if !job.IsJobError(err) {
		return err
	}
	var l job.ErrorList
	if errors.As(err, &l) && len(l) > 1 {
		return usageError{fmt.Errorf("%d problems:\n%w", len(l), err)}
	}
	return usageError{err}
}

func runRun(e *env) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var set setFlags
	fs.Var(&set, "set", "override a job value: --set sinks.out.path=x.parquet (repeatable)")
	workers := fs.Int("workers", 0, "input files read at once (default: the number of cores, at most --threads)")
	var threads threadsFlag
	fs.Var(&threads, "threads", threadsDoc)
	quiet := fs.Bool("quiet", false, "print nothing but errors")
	noProgress := fs.Bool("no-progress", false, "no progress bar, even on a terminal")
	batch := fs.Int("batch-bytes", pipeline.DefaultBatchBytes, "bytes per batch")
	sync := fs.Bool("sync", false, "flush each output to disk before renaming it into place, so it survives a power cut (sharded runs always do)")
	var sf shardFlags
	sf.register(fs)
	args, err := parseFlags(fs, e.args)
	if err != nil {
		return err
	}
	if *workers < 0 {
		return usagef("--workers must be positive")
	}
	defer threads.limit()()
	jb, frozen, err := loadJobOrPlan(e.ctx, args, set, sf.plan, "run")
	if err != nil {
		return err
	}
	plan, err := pipeline.NewPlan(e.ctx, jb, &pipeline.PlanOptions{Frozen: frozen, Warn: e.warn, Threads: threads.n})
	if err != nil {
		return jobError(err)
	}
	defer plan.Close()
	opts := &pipeline.RunOptions{Workers: *workers, BatchBytes: *batch, Sync: *sync}
	if opts.Shard, err = sf.options(frozen, e, *quiet); err != nil {
		return err
	}
	if !*quiet {
		if f, ok := e.stderr.(*os.File); ok && !*noProgress && term.IsTerminal(int(f.Fd())) {
			opts.Progress = newBarProgress(f)
		} else {
			opts.Progress = &logProgress{w: e.stderr}
		}
	}
	sum, err := plan.Run(e.ctx, opts)
	if err != nil {
		return err
	}
	if !*quiet {
		printSummary(e.stdout, sum)
	}
	return nil
}

// shardFlags are run's flags for sharded runs.
type shardFlags struct {
	plan, shard, state string
	shards, indexBase  int
	resume, noCommit   bool
	checkpoint         int64
}

func (f *shardFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.plan, "plan", "", "run the frozen plan written by `npyflow plan --out` (its inputs, shard assignment and job)")
	fs.StringVar(&f.shard, "shard", "", "run shard i of n: --shard i/n, or --shard i with --plan or --shards (default: from the scheduler's environment)")
	fs.IntVar(&f.shards, "shards", 0, "the shard count, with --shard i or a scheduler's task index and no plan")
	fs.IntVar(&f.indexBase, "index-base", 0, "the scheduler's task index of shard 0: 1 for a Slurm array numbered from 1 (--array=1-N)")
	fs.BoolVar(&f.resume, "resume", false, "skip the inputs this shard already committed in an earlier attempt")
	fs.StringVar(&f.state, "state", "", "directory of the runs' manifests (default: _npyflow in the first sink's root, or the plan's)")
	fs.BoolVar(&f.noCommit, "no-commit", false, "do not commit the run when this is the last shard to finish (run `npyflow commit` later)")
	fs.Int64Var(&f.checkpoint, "checkpoint-bytes", shardrun.DefaultCheckpointBytes, "input bytes between checkpoints of a sharded run (negative: only at the end)")
}

// options returns the run's ShardOptions: nil for a plain run (no plan,
// no shard flag or scheduler variable, no resume).
func (f *shardFlags) options(frozen *pipeline.FrozenPlan, e *env, quiet bool) (*pipeline.ShardOptions, error) {
	count := f.shards
	if f.shards < 0 {
		return nil, usagef("--shards must be positive")
	}
	if f.indexBase < 0 {
		return nil, usagef("--index-base must be 0 or more")
	}
	if frozen != nil {
		if count > 0 && count != frozen.Shards {
			return nil, usagef("--shards %d, but the plan has %d shards", count, frozen.Shards)
		}
		count = frozen.Shards
	}
	var sh shardrun.Shard
	sharded := frozen != nil || f.resume || f.state != "" || f.noCommit
	switch {
	case f.shard != "":
		s, err := shardrun.ParseShard(f.shard, count)
		if err != nil {
			return nil, usagef("--shard: %v", err)
		}
		sh, sharded = s, true
	default:
		s, from, ok, err := shardrun.ShardFromEnv(shardrun.EnvOptions{Count: count, Base: f.indexBase})
		if err != nil {
			return nil, usagef("%v", err)
		}
		if ok {
			sh, sharded = s, true
			if !quiet {
				fmt.Fprintf(e.stderr, "shard %s from %s=%s\n", sh, from, os.Getenv(from))
			}
		} else if count > 1 {
			return nil, usagef("which shard of %d? give --shard i, or run under a scheduler that sets JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX or CLOUD_RUN_TASK_INDEX", count)
		}
	}
	if !sharded {
		return nil, nil
	}
	o := &pipeline.ShardOptions{Shard: sh, Resume: f.resume, StateDir: f.state, NoCommit: f.noCommit,
		CheckpointBytes: f.checkpoint}
	if !quiet {
		o.Log = e.stderr
	}
	if f.checkpoint == 0 {
		o.CheckpointBytes = -1
	}
	// For tests: pause after each input so a shard can be killed mid-run.
	if d, err := time.ParseDuration(os.Getenv("NPYFLOW_TEST_INPUT_DELAY")); err == nil && d > 0 {
		o.AfterPart = func(*pipeline.Part) { time.Sleep(d) }
	}
	return o, nil
}

// loadJobOrPlan loads the job of run and commit: from the job file, or
// from the frozen plan (which carries the job; a job file given as well
// must be the one planned).
func loadJobOrPlan(ctx context.Context, args []string, set []string, planFile, cmd string) (*job.Job, *pipeline.FrozenPlan, error) {
	if len(args) > 1 {
		return nil, nil, usagef("want one job file: npyflow %s job.yaml", cmd)
	}
	if planFile == "" {
		if len(args) != 1 {
			return nil, nil, usagef("want one job file: npyflow %s job.yaml (or --plan plan.json)", cmd)
		}
		jb, err := loadJob(args[0], set)
		return jb, nil, err
	}
	if len(set) > 0 {
		return nil, nil, usagef("--set cannot change a frozen plan: give it to npyflow plan")
	}
	fp, err := pipeline.LoadFrozenPlan(ctx, planFile)
	if err != nil {
		return nil, nil, err
	}
	if len(args) == 1 {
		b, err := os.ReadFile(args[0])
		if err != nil {
			return nil, nil, err
		}
		if string(b) != fp.Job {
			return nil, nil, usagef("%s differs from the job planned in %s: plan again, or omit the job file", args[0], planFile)
		}
	}
	jb, err := fp.LoadJob(nil)
	if err != nil {
		return nil, nil, jobError(err)
	}
	return jb, fp, nil
}

func printSummary(w io.Writer, sum *pipeline.Summary) {
	if sh := sum.Shard; sh != nil {
		fmt.Fprintf(w, "shard %s of run %s: %d input(s) assigned", sh.Shard, sh.Run, sh.Assigned)
		if sh.Resumed > 0 {
			fmt.Fprintf(w, ", %d already committed", sh.Resumed)
		}
		fmt.Fprintf(w, ", %d checkpoint(s)\n", sh.Checkpoints)
		if sh.Done != "" {
			fmt.Fprintf(w, "nothing to do: %s\n", sh.Done)
			return
		}
	}
	fmt.Fprintf(w, "read %d input(s), %d rows, %s in %s\n", sum.Files, sum.Rows, pipeline.HumanBytes(sum.Bytes), sum.Elapsed.Round(time.Millisecond))
	// A sharded run's files are staged until the run is committed (the
	// log says by whom).
	verb := "wrote"
	if sh := sum.Shard; sh != nil && sh.Committed != nil {
		verb = "published"
	} else if sh != nil {
		verb = "staged"
	}
	for _, s := range sum.Sinks {
		fmt.Fprintf(w, "sink %s (%s): %d file(s), %d rows, %s, %s\n", s.Sink, s.Type, len(s.Files), s.Rows, pipeline.HumanBytes(s.Bytes), s.Elapsed.Round(time.Millisecond))
		for i, f := range s.Files {
			if i == 10 && len(s.Files) > 12 {
				fmt.Fprintf(w, "  ... %d more\n", len(s.Files)-10)
				break
			}
			fmt.Fprintf(w, "  %s %s\n", verb, storage.Redact(f))
		}
	}
}

// logProgress writes plain progress lines, at most one a second, for
// logs and pipes.
type logProgress struct {
	w                     io.Writer
	start, last           time.Time
	doneF, totalFiles     int
	doneR, doneB          int64
	totalRows, totalBytes int64
}

func (p *logProgress) Start(files int, rows, bytes int64) {
	p.totalFiles, p.totalRows, p.totalBytes = files, rows, bytes
	p.start = time.Now()
	p.last = p.start
	fmt.Fprintf(p.w, "reading %d input(s): %d rows, %s\n", files, rows, pipeline.HumanBytes(bytes))
}

func (p *logProgress) Update(files int, rows, bytes int64) {
	p.doneF, p.doneR, p.doneB = files, rows, bytes
	if time.Since(p.last) >= time.Second {
		p.line()
	}
}

func (p *logProgress) line() {
	p.last = time.Now()
	el := time.Since(p.start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(p.doneB) / el
	}
	fmt.Fprintf(p.w, "progress: %d/%d inputs, %d/%d rows, %s/%s, %s/s\n", p.doneF, p.totalFiles, p.doneR, p.totalRows,
		pipeline.HumanBytes(p.doneB), pipeline.HumanBytes(p.totalBytes), pipeline.HumanBytes(int64(rate)))
}

func (p *logProgress) Done(bool) {}

// barProgress draws a progress bar on a terminal with mpb.
type barProgress struct {
	p                 *mpb.Progress
	bar               *mpb.Bar
	files, totalFiles atomic.Int64
	rows, totalRows   atomic.Int64
	lastBytes         int64
}

func newBarProgress(w io.Writer) *barProgress {
	return &barProgress{p: mpb.New(mpb.WithOutput(w), mpb.WithWidth(40), mpb.WithRefreshRate(150*time.Millisecond))}
}

func (b *barProgress) Start(files int, rows, bytes int64) {
	b.totalFiles.Store(int64(files))
	b.totalRows.Store(rows)
	b.bar = b.p.New(max(bytes, 1), mpb.BarStyle(),
		mpb.PrependDecorators(decor.Any(func(decor.Statistics) string {
			return fmt.Sprintf("inputs %d/%d  rows %d/%d", b.files.Load(), b.totalFiles.Load(), b.rows.Load(), b.totalRows.Load())
		}, decor.WCSyncSpaceR)),
		mpb.AppendDecorators(
			decor.Counters(decor.SizeB1024(0), "% .1f / % .1f"),
			decor.Name("  "),
			decor.AverageSpeed(decor.SizeB1024(0), "% .1f"),
			decor.Name("  ETA "),
			decor.AverageETA(decor.ET_STYLE_GO),
		))
}

func (b *barProgress) Update(files int, rows, bytes int64) {
	b.files.Store(int64(files))
	b.rows.Store(rows)
	if b.bar != nil && bytes > b.lastBytes {
		b.bar.IncrInt64(bytes - b.lastBytes)
		b.lastBytes = bytes
	}
}

func (b *barProgress) Done(ok bool) {
	if b.bar != nil && !ok {
		b.bar.Abort(false)
	} else if b.bar != nil {
		if b.bar.Current() < b.lastBytes || !b.bar.Completed() {
			b.bar.SetTotal(-1, true) // complete at the current count
		}
	}
	b.p.Wait()
}
