package pipeline

import (
	"context"
	"fmt"
	"io"

	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/pipeline/shard"
	"github.com/npyflow/npyflow/shardrun"
)

// Sharded runs: the pipeline decides what a run is (its inputs, their
// shards, the run ID, the sinks' roots and planned files) and hands the
// rest to package shardrun (see [shardrun.Run] for the commit protocol):
// Plan.Run asks it which inputs to read (includes), tells it when an
// input is done (partDone) and when the shard is finished (commit), and
// the sinks create their files through it (buildEnv.create).

// ShardOptions makes a run one shard of a sharded run with manifests and
// a commit. A Plan with a dataset sink always runs this way (as shard 0
// of 1 by default).
type ShardOptions struct {
	// Shard is this run's shard; the zero value means 0 of 1 (or of the
	// frozen plan's count).
	Shard shardrun.Shard
	// Resume skips the inputs this shard already committed in an earlier
	// attempt of the same run, after removing that attempt's leftovers.
	// Without it, an earlier attempt's uncommitted files are discarded and
	// the shard starts over.
	Resume bool
	// StateDir holds the runs' manifests; "" means the frozen plan's, or
	// _npyflow in the first sink's root.
	StateDir string
	// NoCommit stops the last shard to finish from committing the run;
	// run `npyflow commit` ([shardrun.CommitRun]) instead.
	NoCommit bool
	// CheckpointBytes is how many input bytes a shard reads between
	// checkpoints; 0 means [shardrun.DefaultCheckpointBytes], negative only at the
	// end. Jobs with transforms that depend on every row (slice, limit,
	// sample, describe, pca) checkpoint only at the end.
	CheckpointBytes int64
	// Log, if set, receives one line per checkpoint and commit.
	Log io.Writer
	// AfterPart, if set, is called after each input is finished (tests
	// use it to slow a shard down).
	AfterPart func(p *Part)
}

// distRun adapts a shardrun.Run to the plan: which parts it reads, and
// the sinks' finished files at checkpoints.
type distRun struct {
	p        *Plan
	run      *shardrun.Run
	opts     ShardOptions
	shard    shardrun.Shard
	runID    string
	include  map[*Part]bool
	mine     map[*Part]bool // assigned to this shard (include less what a resume skips)
	fps      map[*Part]shard.Fingerprint
	noChecks string // why checkpoints happen only at the end
}

func (d *distRun) nextSeq() int { return d.run.NextSeq() }

// allParts lists every part of every source, in run order.
func (p *Plan) allParts() []*Part {
	var out []*Part
	for _, s := range p.srcs {
		out = append(out, s.Parts()...)
	}
	return out
}

// assign returns each part's shard: from the frozen plan when there is
// one, else balanced by bytes.
func (p *Plan) assign(parts []*Part, n int, fp *FrozenPlan) []int {
	if fp != nil {
		out := make([]int, len(parts))
		for i := range parts {
			out[i] = fp.Inputs[i].Shard
		}
		return out
	}
	sizes := make([]int64, len(parts))
	for i, pt := range parts {
		sizes[i] = pt.Size
	}
	return shardrun.AssignShards(sizes, n)
}

func sinkName(s sinkNode) string { return s.stats().Sink }

func (p *Plan) sinkNodeOf(name string) sinkNode {
	for _, s := range p.sinks {
		if sinkName(s) == name {
			if t, ok := s.(*trackedSink); ok {
				return t.sinkNode
			}
			return s
		}
	}
	return nil
}

// sourcesOf returns the sources whose rows reach component name.
func (p *Plan) sourcesOf(name string) map[string]bool {
	out := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		c := p.Job.Component(n)
		if c == nil || out[n] {
			return
		}
		if c.Kind == job.Source {
			out[n] = true
		}
		for _, in := range c.Inputs {
			walk(in)
		}
	}
	walk(name)
	return out
}

// sharedSink is a sink whose outputs the tasks of a sharded run may
// share (a Zarr store: each task writes its own chunks, the commit
// publishes the metadata last).
type sharedSink interface {
	// checkShards reports why count tasks cannot share the outputs.
	checkShards(count int) error
	stager
}

// checkShardable reports why the job cannot run as count shards.
func (p *Plan) checkShardable(count int) error {
	if why := p.shardable(); why != "" {
		return fmt.Errorf("cannot shard this job: %s; run it as one shard", why)
	}
	for _, s := range p.sinks {
		t, ok := s.(*trackedSink)
		if !ok {
			continue
		}
		if sh, ok := t.sinkNode.(sharedSink); ok {
			// Its tasks write disjoint pieces of the shared outputs.
			if err := sh.checkShards(count); err != nil {
				return fmt.Errorf("cannot shard this job: %w", err)
			}
			continue
		}
		if !t.perPart {
			return fmt.Errorf("cannot shard this job: %s writes one file for all inputs, which several shards cannot share; "+
				"put a placeholder such as {stem} in its path, or write a Parquet dataset (partition_by or dataset: true)", t.c.Path())
		}
	}
	return nil
}

// stateDir is where the run's manifests go.
func (p *Plan) stateDir(override string) string {
	if override != "" {
		return override
	}
	if p.frozen != nil && p.frozen.StateDir != "" {
		return p.frozen.StateDir
	}
	return shard.DefaultStateDir(p.Job)
}

// DefaultStateDir is where a job's runs keep their manifests unless told
// otherwise ([shard.DefaultStateDir]).
func DefaultStateDir(j *job.Job) string { return shard.DefaultStateDir(j) }

// shardable reports why the job cannot be split across shards or
// checkpointed between inputs, or "" when it can ([shard.Shardable]).
func (p *Plan) shardable() string { return shard.Shardable(p.Job) }

// needsDist reports whether the plan must run with manifests: it writes
// a dataset.
func (p *Plan) needsDist() bool {
	for _, s := range p.sinks {
		if _, ok := s.(*datasetSink); ok {
			return true
		}
	}
	return false
}

// startDist prepares a sharded run: which parts this shard reads, the
// run's ID and manifest, and the leftovers of earlier attempts removed.
// With a frozen plan, only this shard's inputs are looked at (their
// fingerprints checked again by shardrun.Start).
func (p *Plan) startDist(ctx context.Context, o *ShardOptions) (*distRun, error) {
	d := &distRun{p: p, opts: *o, shard: o.Shard, include: map[*Part]bool{}, mine: map[*Part]bool{}, fps: map[*Part]shard.Fingerprint{}}
	fp := p.frozen
	if d.shard.Count == 0 {
		d.shard.Count = 1
		if fp != nil {
			d.shard.Count = fp.Shards
		}
	}
	if err := d.shard.Check(); err != nil {
		return nil, err
	}
	if fp != nil && d.shard.Count != fp.Shards {
		return nil, fmt.Errorf("the plan has %d shards, not %d", fp.Shards, d.shard.Count)
	}
	if d.shard.Count > 1 {
		if err := p.checkShardable(d.shard.Count); err != nil {
			return nil, err
		}
	}
	parts := p.allParts()
	var known map[string]shard.Fingerprint
	if fp != nil {
		if len(parts) != len(fp.Inputs) {
			return nil, fmt.Errorf("the job now has %d inputs, the plan %d: the job or its files changed since planning", len(parts), len(fp.Inputs))
		}
		known = map[string]shard.Fingerprint{}
		for i, pt := range parts {
			in := fp.Inputs[i]
			if pt.Source != in.Source || shard.AbsPath(pt.Path) != shard.AbsPath(in.Path) || pt.Member != in.Member || pt.Rows != in.Rows {
				return nil, fmt.Errorf("input %d is %s:%s (%d rows) but the plan has %s:%s (%d rows): the job or its files changed since planning",
					i, pt.Source, partName(pt), pt.Rows, in.Source, in.Path, in.Rows)
			}
			known[pt.Path] = shard.Fingerprint{Sum: in.Fingerprint, ModTime: in.ModTime}
		}
	}
	fps, err := fingerprintParts(ctx, parts, known)
	if err != nil {
		return nil, err
	}
	d.runID = p.runID(parts, fps, d.shard.Count)
	if fp != nil && d.runID != fp.ID {
		return nil, fmt.Errorf("the job differs from the one planned (run %s, plan %s): use the job the plan carries", d.runID, fp.ID)
	}
	assign := p.assign(parts, d.shard.Count, fp)
	if why := p.shardable(); why != "" {
		d.noChecks = why
	}
	cfg := shardrun.Config{StateDir: p.stateDir(o.StateDir), Run: d.runID, Shard: d.shard, Resume: o.Resume,
		NoCommit: o.NoCommit, Recheck: fp != nil, CheckpointBytes: o.CheckpointBytes, Log: o.Log}
	var mine []*Part
	for i, pt := range parts {
		d.fps[pt] = fps[i]
		if assign[i] == d.shard.Index {
			mine = append(mine, pt)
			d.mine[pt] = true
			cfg.Assigned = append(cfg.Assigned, d.input(pt))
		}
	}
	for _, c := range p.Job.Of(job.Sink) {
		cfg.Sinks = append(cfg.Sinks, shardrun.ManifestSink{Name: c.Name, Type: c.Type, Mode: sinkMode(c), Root: shard.SinkRoot(c), Dataset: shard.IsDataset(c)})
	}
	for _, s := range p.sinks {
		if t, ok := s.(*trackedSink); ok {
			// The files of the inputs that reach this sink.
			var parts []*Part
			if t.perPart {
				from := p.sourcesOf(t.c.Name)
				for _, pt := range mine {
					if from[pt.Source] {
						parts = append(parts, pt)
					}
				}
			}
			paths, err := t.sinkNode.plannedPaths(parts)
			if err != nil {
				return nil, err
			}
			cfg.Planned = append(cfg.Planned, paths...)
		}
	}
	run, err := shardrun.Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	d.run = run
	for _, pt := range mine {
		if !run.Skip(d.input(pt)) {
			d.include[pt] = true
		}
	}
	return d, nil
}

// input is a part as the manifests record it.
func (d *distRun) input(pt *Part) shardrun.ManifestInput {
	return shardrun.ManifestInput{Source: pt.Source, Path: pt.Path, Member: pt.Member, Fingerprint: d.fps[pt].Sum, Rows: pt.Rows}
}

func partName(pt *Part) string {
	if pt.Member != "" {
		return pt.Path + ":" + pt.Member
	}
	return pt.Path
}

// afterPart records a finished input and checkpoints when due.
func (d *distRun) afterPart(ctx context.Context, pt *Part) error {
	due := d.run.Done(d.input(pt), pt.Size)
	if d.opts.AfterPart != nil {
		d.opts.AfterPart(pt)
	}
	if d.noChecks != "" || !due {
		return nil
	}
	for _, s := range d.p.sinks {
		if s.(stager).busy() {
			return nil
		}
	}
	return d.checkpoint(ctx, false)
}

// stager is a sink that can hand over the files it finished.
type stager interface {
	// busy reports that a file holding rows of several inputs is open.
	busy() bool
	// flush closes what can be closed and returns the files finished
	// since the last call.
	flush() ([]fileRec, error)
}

// finished collects the files the sinks finished since the last call.
func (d *distRun) finished() ([]shardrun.Output, error) {
	var out []shardrun.Output
	for _, s := range d.p.sinks {
		recs, err := s.(stager).flush()
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			out = append(out, shardrun.Output{Sink: r.sink, Final: r.final, Rows: r.rows, Last: r.last})
		}
	}
	return out, nil
}

// checkpoint stages every finished file and records it and the finished
// inputs in the manifest.
func (d *distRun) checkpoint(ctx context.Context, final bool) error {
	outs, err := d.finished()
	if err != nil {
		return err
	}
	return d.run.Checkpoint(ctx, outs, final)
}

// finish writes the last checkpoint and, if every shard is done and
// commits are allowed, commits the run.
func (d *distRun) finish(ctx context.Context) error {
	outs, err := d.finished()
	if err != nil {
		return err
	}
	d.p.env.out.abort() // only scratch files are left
	return d.run.Finish(ctx, outs)
}

// create creates an output file: staged by the sharded run if there is
// one, else through outputs; seekable says its writer seeks back
// anywhere.
func (e *buildEnv) create(final string, seekable bool) (io.WriteSeeker, error) {
	if e.dist != nil {
		return e.dist.stage(e.ctx, final, seekable)
	}
	return e.out.create(final, seekable)
}

// createDir makes a directory output (a Zarr store) and returns where
// to write it; sharded runs do not stage directories (the zarr sink
// stages each of its files instead: zarr_shard.go).
func (e *buildEnv) createDir(final string) (string, error) {
	if e.dist != nil {
		return "", &FileError{Path: final, Err: fmt.Errorf("a sharded run cannot write a directory output (a Zarr store) yet")}
	}
	return e.out.createDir(final)
}

// finished is told that a sink wrote the whole of an output created by
// create: a sharded run's upload to a bucket completes (to its staging
// object), a plain run's waits for the commit (see outputs.finished).
func (e *buildEnv) finished(f io.WriteSeeker) error {
	if sf, ok := f.(*shardrun.StagedFile); ok {
		return sf.Close()
	}
	return e.out.finished(f)
}

// stage creates an output file of a sharded run.
func (d *distRun) stage(ctx context.Context, final string, seekable bool) (*shardrun.StagedFile, error) {
	if seekable {
		return d.run.StageSeekable(ctx, final)
	}
	return d.run.Stage(ctx, final)
}

// trackedSink wraps a file sink: it applies skip_existing and records
// which file each input's rows went to, for the manifests.
type trackedSink struct {
	sinkNode
	c        *job.Component
	env      *buildEnv // its ctx is the run's while the plan runs
	perPart  bool
	skipMode bool
	skipping bool
	started  bool
	finished bool
	cur      string
	rows     int64
	done     []fileRec
}

func newTrackedSink(c *job.Component, n sinkNode, env *buildEnv) *trackedSink {
	t := &trackedSink{sinkNode: n, c: c, env: env, skipMode: sinkMode(c) == "skip_existing"}
	if pp, ok := n.(interface{ perPartFiles() bool }); ok {
		t.perPart = pp.perPartFiles()
	}
	return t
}

// perPartFiles reports whether the sink writes one file per input part.
func (s *fileSink) perPartFiles() bool { return s.path.perPart() }

func (t *trackedSink) perPartFiles() bool { return t.perPart }

func (t *trackedSink) pathOf(p *Part) (string, error) {
	var parts []*Part
	if t.perPart {
		parts = []*Part{p}
	}
	paths, err := t.sinkNode.plannedPaths(parts)
	if err != nil {
		return "", err
	}
	if len(paths) != 1 {
		return "", fmt.Errorf("%s: %d output paths for one input", t.c.Path(), len(paths))
	}
	return paths[0], nil
}

func (t *trackedSink) Begin(p *Part) error {
	if t.perPart || !t.started {
		path, err := t.pathOf(p)
		if err != nil {
			return err
		}
		t.cur, t.rows, t.started = path, 0, true
		t.skipping = t.skipMode && shardrun.Exists(t.env.ctx, path)
	}
	if t.skipping {
		return nil
	}
	return t.sinkNode.Begin(p)
}

func (t *trackedSink) Push(b Batch) error {
	if t.skipping {
		return nil
	}
	t.rows += int64(b.Rows)
	return t.sinkNode.Push(b)
}

func (t *trackedSink) End(p *Part) error {
	if t.skipping {
		return nil
	}
	if err := t.sinkNode.End(p); err != nil {
		return err
	}
	if t.perPart {
		t.done = append(t.done, fileRec{sink: t.c.Name, final: t.cur, rows: t.rows})
	}
	return nil
}

func (t *trackedSink) Finish() error {
	if t.perPart {
		return t.sinkNode.Finish()
	}
	if !t.started {
		path, err := t.pathOf(nil)
		if err != nil {
			return err
		}
		t.cur, t.started = path, true
		t.skipping = t.skipMode && shardrun.Exists(t.env.ctx, path)
	}
	t.finished = true
	if t.skipping {
		return nil
	}
	if err := t.sinkNode.Finish(); err != nil {
		return err
	}
	t.done = append(t.done, fileRec{sink: t.c.Name, final: t.cur, rows: t.rows})
	return nil
}

func (t *trackedSink) busy() bool {
	if sh, ok := t.sinkNode.(sharedSink); ok && t.env.dist != nil {
		return sh.busy()
	}
	return !t.perPart && t.started && !t.finished
}

func (t *trackedSink) flush() ([]fileRec, error) {
	d := t.done
	t.done = nil
	if sh, ok := t.sinkNode.(sharedSink); ok && t.env.dist != nil {
		// Its outputs are the pieces it staged (t.done names stores).
		return sh.flush()
	}
	return d, nil
}

// StateDir returns where a job's runs keep their manifests by default.
func (p *Plan) StateDir() string { return p.stateDir("") }
