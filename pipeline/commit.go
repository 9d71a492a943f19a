package pipeline

import (
	"errors"
	"fmt"
	"github.com/npyflow/npyflow/shardrun"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The commit protocol of sharded runs.
//
// A run is named by its run ID (a digest of the job, the inputs with their
// fingerprints and the shard count). Its state lives in
// <state>/<run>/: one manifest per shard (shard-00003.json) and, once
// committed, COMMITTED. <state> is <root of the first sink>/_npyflow
// unless set.
//
// A shard reads its inputs in plan order. At a checkpoint (every
// CheckpointBytes of input, and at the end) it closes the files it has
// open, renames each from its temporary name to a staged name beside its
// final one (".<name>.npyflow-<run>", hidden from readers), and rewrites
// its manifest atomically with the inputs finished so far and the staged
// files. A killed shard loses only the work since its last checkpoint:
// run again with resume, it removes its temporary and unlisted staged
// files and skips the inputs its manifest lists.
//
// Commit (npyflow commit, or the shard that finds every manifest
// complete) checks every manifest (all shards present and complete, each
// shard's inputs exactly those assigned to it, no input twice, every
// staged file present with its recorded size, no final name twice),
// renames the staged files to their final names, removes files of
// earlier runs from datasets in overwrite mode, and writes _SUCCESS into
// every sink's root. Until then readers see the previous state.

// DefaultCheckpointBytes is the default ShardOptions.CheckpointBytes.
const DefaultCheckpointBytes = 256 << 20

// ShardOptions makes a run one shard of a sharded run with manifests and
// a commit. A Plan with a dataset sink always runs this way (as shard 0
// of 1 by default).
type ShardOptions struct {
	// Shard is this run's shard; the zero value means 0 of 1 (or of the
	// frozen plan's count).
	Shard Shard
	// Resume skips the inputs this shard already committed in an earlier
	// attempt of the same run, after removing that attempt's leftovers.
	// Without it, an earlier attempt's uncommitted files are discarded and
	// the shard starts over.
	Resume bool
	// StateDir holds the runs' manifests; "" means the frozen plan's, or
	// _npyflow in the first sink's root.
	StateDir string
	// NoCommit stops the last shard to finish from committing the run;
	// run `npyflow commit` (CommitRun) instead.
	NoCommit bool
	// CheckpointBytes is how many input bytes a shard reads between
	// checkpoints; 0 means DefaultCheckpointBytes, negative only at the
	// end. Jobs with transforms that depend on every row (slice, limit,
	// sample, describe, pca) checkpoint only at the end.
	CheckpointBytes int64
	// Log, if set, receives one line per checkpoint and commit.
	Log io.Writer
	// AfterPart, if set, is called after each input is finished (tests
	// use it to slow a shard down).
	AfterPart func(p *Part)
}

// ShardSummary is what a sharded run did besides reading and writing.
type ShardSummary struct {
	Shard       Shard
	Run         string // the run ID
	RunDir      string // the run's state directory
	Assigned    int    // inputs assigned to this shard
	Resumed     int    // inputs skipped as committed by an earlier attempt
	Checkpoints int
	Committed   *CommitSummary // set when this shard committed the run
	Done        string         // why nothing was run, when nothing was
}

// distRun is the state of a sharded run.
type distRun struct {
	p        *Plan
	opts     ShardOptions
	shard    Shard
	runID    string
	runDir   string
	manName  string
	man      *Manifest
	include  map[*Part]bool
	fps      map[*Part]partFP
	pending  []ManifestInput
	pendBy   int64
	seq      int
	every    int64
	sum      ShardSummary
	noChecks string // why checkpoints happen only at the end
}

func (d *distRun) nextSeq() int {
	s := d.seq
	d.seq++
	return s
}

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
	return AssignShards(sizes, n)
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

// checkShardable reports why the job cannot run as several shards.
func (p *Plan) checkShardable() error {
	if why := p.shardable(); why != "" {
		return fmt.Errorf("cannot shard this job: %s; run it as one shard", why)
	}
	for _, s := range p.sinks {
		if t, ok := s.(*trackedSink); ok && !t.perPart {
			return fmt.Errorf("cannot shard this job: %s writes one file for all inputs, which several shards cannot share; "+
				"put a placeholder such as {stem} in its path, or write a Parquet dataset (partition_by or dataset: true)", t.c.Path())
		}
	}
	return nil
}

// sinkRoot is the directory a sink writes under: a dataset's directory,
// or the directory before the first placeholder of a file path.
func sinkRoot(c *Component) string {
	path := c.String("path")
	if isDataset(c) {
		return filepath.Clean(c.resolvePath(path))
	}
	if i := strings.IndexByte(path, '{'); i >= 0 {
		path = path[:i]
		if strings.HasSuffix(path, "/") || path == "" {
			return filepath.Clean(c.resolvePath(path + "."))
		}
	}
	return filepath.Dir(c.resolvePath(path))
}

// stateDir is where the run's manifests go.
func (p *Plan) stateDir(override string) string {
	if override != "" {
		return override
	}
	if p.frozen != nil && p.frozen.StateDir != "" {
		return p.frozen.StateDir
	}
	return DefaultStateDir(p.Job)
}

// DefaultStateDir is where a job's runs keep their manifests unless told
// otherwise: _npyflow in the root of its first sink.
func DefaultStateDir(job *Job) string {
	sinks := job.Of(Sink)
	if len(sinks) == 0 {
		return "_npyflow"
	}
	return filepath.Join(sinkRoot(sinks[0]), "_npyflow")
}

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
func (p *Plan) startDist(o *ShardOptions) (*distRun, error) {
	d := &distRun{p: p, opts: *o, shard: o.Shard, include: map[*Part]bool{}, fps: map[*Part]partFP{}}
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
		if err := p.checkShardable(); err != nil {
			return nil, err
		}
	}
	parts := p.allParts()
	var known map[string]partFP
	if fp != nil {
		if len(parts) != len(fp.Inputs) {
			return nil, fmt.Errorf("the job now has %d inputs, the plan %d: the job or its files changed since planning", len(parts), len(fp.Inputs))
		}
		known = map[string]partFP{}
		for i, pt := range parts {
			in := fp.Inputs[i]
			if pt.Source != in.Source || absPath(pt.Path) != absPath(in.Path) || pt.Member != in.Member || pt.Rows != in.Rows {
				return nil, fmt.Errorf("input %d is %s:%s (%d rows) but the plan has %s:%s (%d rows): the job or its files changed since planning",
					i, pt.Source, partName(pt), pt.Rows, in.Source, in.Path, in.Rows)
			}
			known[pt.Path] = partFP{fp: in.Fingerprint, mtime: in.ModTime}
		}
	}
	fps, err := fingerprintParts(parts, known)
	if err != nil {
		return nil, err
	}
	d.runID = p.runID(parts, fps, d.shard.Count)
	if fp != nil && d.runID != fp.ID {
		return nil, fmt.Errorf("the job differs from the one planned (run %s, plan %s): use the job the plan carries", d.runID, fp.ID)
	}
	assign := p.assign(parts, d.shard.Count, fp)
	d.runDir = filepath.Join(p.stateDir(o.StateDir), d.runID)
	d.manName = manifestName(d.runDir, d.shard.Index)
	d.sum = ShardSummary{Shard: d.shard, Run: d.runID, RunDir: d.runDir}
	d.every = o.CheckpointBytes
	if d.every == 0 {
		d.every = DefaultCheckpointBytes
	}
	if why := p.shardable(); why != "" {
		d.noChecks = why
	}

	var mine []*Part
	var assigned []ManifestInput
	for i, pt := range parts {
		d.fps[pt] = fps[i]
		if assign[i] == d.shard.Index {
			mine = append(mine, pt)
			assigned = append(assigned, ManifestInput{Source: pt.Source, Path: pt.Path, Member: pt.Member, Fingerprint: fps[i].fp, Rows: pt.Rows})
		}
	}
	d.sum.Assigned = len(mine)
	if _, err := os.Stat(filepath.Join(d.runDir, committedFile)); err == nil {
		switch {
		case o.Resume:
			d.sum.Done = "run " + d.runID + " is already committed"
			return d, nil
		case d.shard.Count > 1:
			return nil, fmt.Errorf("run %s (the same job, inputs and shard count) is already committed: "+
				"--resume does nothing for it; to write it again, remove %s first", d.runID, d.runDir)
		}
		// One shard: running the same work again starts a new attempt.
		if err := os.RemoveAll(d.runDir); err != nil {
			return nil, err
		}
	}
	d.man = &Manifest{Format: planFormat, Run: d.runID, Shard: d.shard.Index, Shards: d.shard.Count,
		Assigned: len(assigned), AssignedSum: digestInputs(sortedInputs(append([]ManifestInput(nil), assigned...))), Inputs: []ManifestInput{}, Outputs: []ManifestOutput{}}
	for _, c := range p.Job.Of(Sink) {
		d.man.Sinks = append(d.man.Sinks, ManifestSink{Name: c.Name, Type: c.Type, Mode: c.String("mode"), Root: sinkRoot(c), Dataset: isDataset(c)})
	}
	old, err := readManifest(d.manName)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return nil, err
	case old.Run != d.runID:
		old = nil
	}
	keep := map[string]bool{}
	committed := map[string]bool{}
	if old != nil && o.Resume {
		for _, in := range old.Inputs {
			committed[in.Key()] = true
		}
		for _, out := range old.Outputs {
			keep[out.Staged] = true
		}
		d.man.Inputs, d.man.Outputs, d.man.Checkpoints = old.Inputs, old.Outputs, old.Checkpoints
		d.seq = old.NextSeq
	} else if old != nil {
		for _, out := range old.Outputs {
			os.Remove(out.Staged)
		}
	}
	// Only this shard's names are touched, so a retry cannot damage
	// another shard's work.
	if err := d.cleanup(mine, keep); err != nil {
		return nil, err
	}
	for _, pt := range mine {
		in := ManifestInput{Source: pt.Source, Path: pt.Path, Member: pt.Member}
		if committed[in.Key()] {
			d.sum.Resumed++
			continue
		}
		d.include[pt] = true
	}
	if fp != nil {
		// Check the files still are what was planned before reading them.
		seen := map[string]bool{}
		for _, pt := range mine {
			if !d.include[pt] || seen[pt.Path] {
				continue
			}
			seen[pt.Path] = true
			got, err := Fingerprint(pt.Path)
			if err != nil {
				return nil, err
			}
			if want := d.fps[pt].fp; got != want {
				return nil, fmt.Errorf("%s changed since planning (fingerprint %s, planned %s)", pt.Path, got, want)
			}
		}
	}
	if old != nil && o.Resume && old.Complete {
		d.man.Complete = true
	}
	if err := d.man.Write(d.manName); err != nil {
		return nil, err
	}
	if d.man.Complete {
		d.sum.Done = fmt.Sprintf("shard %s of run %s already finished", d.shard, d.runID)
	}
	return d, nil
}

func partName(pt *Part) string {
	if pt.Member != "" {
		return pt.Path + ":" + pt.Member
	}
	return pt.Path
}

// stagedName is the hidden name a finished file waits under until commit.
func stagedName(final, runID string) string {
	return filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".npyflow-"+runID)
}

// cleanup removes this shard's temporary files and the staged files of
// this run not in keep: what a killed attempt left behind.
func (d *distRun) cleanup(mine []*Part, keep map[string]bool) error {
	suffix := ".npyflow-" + d.runID
	leftover := func(name string) bool {
		return strings.Contains(name, ".tmp-") || strings.HasSuffix(name, suffix)
	}
	for _, s := range d.p.sinks {
		switch n := s.(type) {
		case *datasetSink:
			prefix := fmt.Sprintf(".part-%05d-", d.shard.Index)
			err := filepath.WalkDir(n.root, func(p string, e fs.DirEntry, err error) error {
				if err != nil {
					if p == n.root {
						return nil // no dataset yet
					}
					return err
				}
				if e.IsDir() && e.Name() == "_npyflow" {
					return filepath.SkipDir
				}
				if !e.IsDir() && strings.HasPrefix(e.Name(), prefix) && leftover(e.Name()) && !keep[p] {
					return os.Remove(p)
				}
				return nil
			})
			if err != nil {
				return err
			}
		case *trackedSink:
			parts := mine
			if !n.perPart {
				parts = nil
			}
			paths, err := n.sinkNode.plannedPaths(parts)
			if err != nil {
				return err
			}
			for _, final := range paths {
				base := "." + filepath.Base(final)
				ents, err := os.ReadDir(filepath.Dir(final))
				if err != nil {
					continue
				}
				for _, e := range ents {
					name := e.Name()
					p := filepath.Join(filepath.Dir(final), name)
					if strings.HasPrefix(name, base) && (strings.HasPrefix(name, base+".tmp-") || name == base+suffix) && !keep[p] {
						if err := os.Remove(p); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	return nil
}

// afterPart records a finished input and checkpoints when due.
func (d *distRun) afterPart(pt *Part) error {
	d.pending = append(d.pending, ManifestInput{Source: pt.Source, Path: pt.Path, Member: pt.Member, Fingerprint: d.fps[pt].fp, Rows: pt.Rows})
	d.pendBy += pt.Size
	if d.opts.AfterPart != nil {
		d.opts.AfterPart(pt)
	}
	if d.noChecks != "" || d.every < 0 || d.pendBy < d.every {
		return nil
	}
	for _, s := range d.p.sinks {
		if s.(stager).busy() {
			return nil
		}
	}
	return d.checkpoint(false)
}

// stager is a sink that can hand over the files it finished.
type stager interface {
	// busy reports that a file holding rows of several inputs is open.
	busy() bool
	// flush closes what can be closed and returns the files finished
	// since the last call.
	flush() ([]fileRec, error)
}

// checkpoint stages every finished file and records it and the finished
// inputs in the manifest.
func (d *distRun) checkpoint(final bool) error {
	var recs []fileRec
	for _, s := range d.p.sinks {
		r, err := s.(stager).flush()
		if err != nil {
			return err
		}
		recs = append(recs, r...)
	}
	staged, err := d.p.env.out.stage(recs, d.runID)
	if err != nil {
		return err
	}
	d.man.Inputs = append(d.man.Inputs, d.pending...)
	d.man.Outputs = append(d.man.Outputs, staged...)
	d.man.NextSeq = d.seq
	d.man.Checkpoints++
	d.man.Complete = final
	if err := d.man.Write(d.manName); err != nil {
		return err
	}
	d.sum.Checkpoints++
	if d.opts.Log != nil && (len(d.pending) > 0 || len(staged) > 0) {
		var rows int64
		for _, in := range d.pending {
			rows += in.Rows
		}
		fmt.Fprintf(d.opts.Log, "checkpoint %d: shard %s committed %d more input(s) (%d rows), %d file(s); %d of %d inputs done\n",
			d.man.Checkpoints, d.shard, len(d.pending), rows, len(staged), len(d.man.Inputs), d.man.Assigned)
	}
	d.pending, d.pendBy = nil, 0
	return nil
}

// finish writes the last checkpoint and, if every shard is done and
// commits are allowed, commits the run.
func (d *distRun) finish() error {
	if err := d.checkpoint(true); err != nil {
		return err
	}
	d.p.env.out.abort() // only scratch files are left
	return d.maybeCommit()
}

func (d *distRun) maybeCommit() error {
	if d.opts.NoCommit {
		return nil
	}
	for i := 0; i < d.shard.Count; i++ {
		m, err := readManifest(manifestName(d.runDir, i))
		if err != nil || m.Run != d.runID || !m.Complete {
			return nil // not the last shard
		}
	}
	lock, err := os.OpenFile(filepath.Join(d.runDir, "commit.lock"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil // another shard is committing
	}
	fmt.Fprintf(lock, "shard %d pid %d %s\n", d.shard.Index, os.Getpid(), time.Now().UTC().Format(time.RFC3339))
	lock.Close()
	cs, err := CommitRun(d.runDir, &CommitOptions{Log: d.opts.Log})
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	d.sum.Committed = cs
	return nil
}

// stage closes the given finished files and renames them from their
// temporary names to their staged names.
func (o *outputs) stage(recs []fileRec, runID string) ([]ManifestOutput, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	want := map[string]fileRec{}
	for _, r := range recs {
		want[r.final] = r
	}
	out := []ManifestOutput{}
	keep := o.files[:0]
	var dirs []string
	for _, f := range o.files {
		r, ok := want[f.final]
		if f.final == "" || !ok || f.tmp == "" {
			keep = append(keep, f)
			continue
		}
		if err := f.f.Sync(); err != nil && !errors.Is(err, os.ErrClosed) {
			return nil, err
		}
		if err := f.f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			return nil, err
		}
		staged := stagedName(f.final, runID)
		if err := os.Rename(f.tmp, staged); err != nil {
			return nil, err
		}
		st, err := os.Stat(staged)
		if err != nil {
			return nil, err
		}
		out = append(out, ManifestOutput{Sink: r.sink, Path: f.final, Staged: staged, Rows: r.rows, Bytes: st.Size()})
		dirs = append(dirs, filepath.Dir(staged))
	}
	for i := len(keep); i < len(o.files); i++ {
		o.files[i] = nil
	}
	o.files = keep
	sort.Strings(dirs)
	for i, dir := range dirs {
		if i == 0 || dir != dirs[i-1] {
			syncDir(dir)
		}
	}
	return out, nil
}

// trackedSink wraps a file sink: it applies skip_existing and records
// which file each input's rows went to, for the manifests.
type trackedSink struct {
	sinkNode
	c        *Component
	perPart  bool
	skipMode bool
	skipping bool
	started  bool
	finished bool
	cur      string
	rows     int64
	done     []fileRec
}

func newTrackedSink(c *Component, n sinkNode) *trackedSink {
	t := &trackedSink{sinkNode: n, c: c, skipMode: c.String("mode") == "skip_existing"}
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
		t.skipping = t.skipMode && exists(path)
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
		t.skipping = t.skipMode && exists(path)
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

func (t *trackedSink) busy() bool { return !t.perPart && t.started && !t.finished }

func (t *trackedSink) flush() ([]fileRec, error) {
	d := t.done
	t.done = nil
	return d, nil
}

// CommitOptions configures CommitRun.
type CommitOptions struct {
	// Plan, if set, is the frozen plan of the run: commit also checks the
	// manifests cover exactly its inputs.
	Plan *FrozenPlan
	// Log, if set, receives a line per step.
	Log io.Writer
}

// CommitSummary is what a commit published (see [shardrun.CommitSummary]).
type CommitSummary = shardrun.CommitSummary

// CommitRun verifies the manifests in a run directory and publishes the
// run (see [shardrun.CommitRun]); with opts.Plan it also checks that the
// manifests cover exactly the plan's inputs.
func CommitRun(runDir string, opts *CommitOptions) (*CommitSummary, error) {
	so := &shardrun.CommitOptions{}
	if opts != nil {
		so.Log = opts.Log
		if fp := opts.Plan; fp != nil {
			so.Expect = &shardrun.Expected{Run: fp.ID, Shards: fp.Shards}
			for _, in := range fp.Inputs {
				so.Expect.Inputs = append(so.Expect.Inputs, ManifestInput{Source: in.Source, Path: in.Path, Member: in.Member})
			}
		}
	}
	return shardrun.CommitRun(runDir, so)
}

// FindRun returns the directory of run id in stateDir (see
// [shardrun.FindRun]).
func FindRun(stateDir, id string) (string, error) { return shardrun.FindRun(stateDir, id) }

const (
	successFile   = shardrun.SuccessFile
	committedFile = shardrun.CommittedFile
)

func sortedInputs(in []ManifestInput) []ManifestInput { return shardrun.SortedInputs(in) }
func exists(path string) bool                         { return shardrun.Exists(path) }

// StateDir returns where a job's runs keep their manifests by default.
func (p *Plan) StateDir() string { return p.stateDir("") }
