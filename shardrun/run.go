package shardrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/npyflow/npyflow/internal/atomicfile"
	"github.com/npyflow/npyflow/internal/storage"
)

// The commit protocol of sharded runs.
//
// A run is named by its run ID (a digest of the job, the inputs with their
// fingerprints and the shard count, computed by the caller). Its state
// lives in <state>/<run>/: one manifest per shard (shard-00003.json),
// PUBLISHING from the first output a commit publishes until the run is
// committed (a commit interrupted and run again takes the outputs at their
// final names since then as published), and, once committed, COMMITTED.
//
// A shard reads its inputs in order. Its outputs are written through
// Run.Stage and, at a checkpoint (Run.Checkpoint: every CheckpointBytes
// of input, and at the end), the finished ones are staged and recorded in
// the shard's manifest, rewritten atomically with the inputs finished so
// far. A killed shard loses only the work since its last checkpoint:
// started again with Resume, it removes its own unlisted leftovers and
// skips the inputs its manifest lists.
//
// Where outputs are staged depends on the storage of their final names:
//
//   - a filesystem (the storage renames): beside the final name, hidden
//     (".<name>.npyflow-<run>"); the commit renames them into place;
//   - an object store (no rename): under the run's staging prefix,
//     <state>/<run>/staging/shard-00003/<sink>/<name under the sink's
//     root> (or .../_/<bucket>/<key> outside every root); the commit copies
//     them to their final names (server-side where the store can) and
//     removes the staging objects once the run is marked committed.
//
// Commit (CommitRun: npyflow commit, or the shard that finds every
// manifest complete) checks every manifest, publishes the staged files,
// removes files of earlier runs from datasets in overwrite mode, and
// writes _SUCCESS (listing the published files) into every sink's root,
// last. Until then readers see the previous state.

// DefaultCheckpointBytes is the default Config.CheckpointBytes.
const DefaultCheckpointBytes = 256 << 20

// Config describes one attempt of one shard of a run.
type Config struct {
	// StateDir holds the runs' state (a directory or a URL prefix); the
	// run's is StateDir/Run.
	StateDir string
	// Run is the run ID; every shard of the run must compute the same.
	Run   string
	Shard Shard
	// Resume skips the inputs this shard committed in an earlier attempt
	// of the same run, after removing that attempt's leftovers. Without
	// it, an earlier attempt's uncommitted files are discarded and the
	// shard starts over.
	Resume bool
	// NoCommit stops the last shard to finish from committing the run.
	NoCommit bool
	// Recheck fingerprints this shard's inputs again before they are
	// read (their fingerprints were taken earlier, at planning).
	Recheck bool
	// CheckpointBytes is how many input bytes pass between checkpoints;
	// 0 means DefaultCheckpointBytes, negative only at the end.
	CheckpointBytes int64
	// Sinks are the run's sinks; Assigned this shard's inputs in order,
	// with fingerprints and rows; Planned the final names this shard's
	// file (not dataset) sinks may write, whose leftovers a new attempt
	// removes.
	Sinks    []ManifestSink
	Assigned []ManifestInput
	Planned  []string
	// Log, if set, receives one line per checkpoint and commit.
	Log io.Writer
}

// Summary is what a shard's attempt did.
type Summary struct {
	Shard       Shard
	Run         string // the run ID
	RunDir      string // the run's state directory
	Assigned    int    // inputs assigned to this shard
	Resumed     int    // inputs skipped as committed by an earlier attempt
	Checkpoints int
	Committed   *CommitSummary // set when this shard committed the run
	Done        string         // why nothing was run, when nothing was
}

// Output is a file a sink finished: ready to be staged at the next
// checkpoint.
type Output struct {
	Sink  string
	Final string
	Rows  int64
	// Last orders publishing (see ManifestOutput.Last); 0 for data.
	Last int
}

// Run is one shard's attempt of a run: the driver a pipeline talks to
// through Skip ("is this input done already"), Stage ("write this
// output"), Done ("this input is done"), Checkpoint and Finish. The
// methods that touch storage take the attempt's context: cancelling it
// stops them.
type Run struct {
	cfg     Config
	dir     string
	manName string
	man     *Manifest
	skip    map[string]bool
	pending []ManifestInput
	pendBy  int64
	seq     int
	files   []*StagedFile // written, not staged yet, in creation order
	dirs    []string      // local directories made for outputs, parents first
	sum     Summary
	// committed: the run was committed before this attempt started.
	committed bool
}

// Start begins an attempt of shard cfg.Shard: it checks the run is not
// committed, reads an earlier attempt's manifest (kept with Resume, else
// its staged files are removed), removes this shard's leftovers (never
// another shard's) and writes a fresh manifest. When the attempt has
// nothing to do, Summary().Done says why.
func Start(ctx context.Context, cfg Config) (*Run, error) {
	if err := cfg.Shard.Check(); err != nil {
		return nil, err
	}
	r := &Run{cfg: cfg, skip: map[string]bool{}}
	r.dir = Join(cfg.StateDir, cfg.Run)
	r.manName = ManifestName(r.dir, cfg.Shard.Index)
	r.sum = Summary{Shard: cfg.Shard, Run: cfg.Run, RunDir: r.dir, Assigned: len(cfg.Assigned)}
	if r.cfg.CheckpointBytes == 0 {
		r.cfg.CheckpointBytes = DefaultCheckpointBytes
	}
	if Exists(ctx, Join(r.dir, CommittedFile)) {
		switch {
		case cfg.Resume:
			r.sum.Done = "run " + cfg.Run + " is already committed"
			r.committed = true
			return r, nil
		case cfg.Shard.Count > 1:
			return nil, fmt.Errorf("run %s (the same job, inputs and shard count) is already committed: "+
				"--resume does nothing for it; to write it again, remove %s first", cfg.Run, show(r.dir))
		}
		// One shard: running the same work again starts a new attempt.
		if err := removeAll(ctx, r.dir); err != nil {
			return nil, err
		}
	}
	r.man = &Manifest{Format: Format, Run: cfg.Run, Shard: cfg.Shard.Index, Shards: cfg.Shard.Count,
		Assigned: len(cfg.Assigned), AssignedSum: DigestInputs(SortedInputs(append([]ManifestInput(nil), cfg.Assigned...))),
		Sinks: cfg.Sinks, Inputs: []ManifestInput{}, Outputs: []ManifestOutput{}}
	old, err := ReadManifest(ctx, r.manName)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return nil, err
	case old.Run != cfg.Run:
		old = nil
	}
	keep := map[string]bool{}
	if old != nil && cfg.Resume {
		for _, in := range old.Inputs {
			r.skip[in.Key()] = true
		}
		for _, out := range old.Outputs {
			keep[out.Staged] = true
		}
		r.man.Inputs, r.man.Outputs, r.man.Checkpoints = old.Inputs, old.Outputs, old.Checkpoints
		r.seq = old.NextSeq
	} else if old != nil {
		for _, out := range old.Outputs {
			storage.Remove(ctx, out.Staged)
		}
	}
	// Check this shard's own inputs (and no other's) still are what was
	// planned before anything is touched.
	seen := map[string]bool{}
	for _, in := range cfg.Assigned {
		if r.skip[in.Key()] {
			r.sum.Resumed++
			continue
		}
		if !cfg.Recheck || seen[in.Path] {
			continue
		}
		seen[in.Path] = true
		got, _, err := Fingerprint(ctx, in.Path)
		if err != nil {
			return nil, &InputError{Shard: cfg.Shard, Path: in.Path, Err: err}
		}
		if got != in.Fingerprint {
			return nil, &InputError{Shard: cfg.Shard, Path: in.Path,
				Err: fmt.Errorf("%w (fingerprint %s, planned %s): plan again to run it", ErrChanged, got, in.Fingerprint)}
		}
	}
	// Only this shard's names are touched, so a retry cannot damage
	// another shard's work.
	if err := r.cleanup(ctx, keep); err != nil {
		return nil, err
	}
	if old != nil && cfg.Resume && old.Complete {
		r.man.Complete = true
	}
	if err := r.man.Write(ctx, r.manName); err != nil {
		return nil, err
	}
	if r.man.Complete {
		r.sum.Done = fmt.Sprintf("shard %s of run %s already finished", cfg.Shard, cfg.Run)
	}
	return r, nil
}

// Summary returns what the attempt did so far.
func (r *Run) Summary() *Summary { return &r.sum }

// ID is the run ID; Shard the shard.
func (r *Run) ID() string   { return r.cfg.Run }
func (r *Run) Shard() Shard { return r.cfg.Shard }

// Skip reports whether the input was committed by an earlier attempt.
func (r *Run) Skip(in ManifestInput) bool { return r.skip[in.Key()] }

// NextSeq returns the next sequence number for this shard's file names
// (part-<shard>-<seq>), unique across attempts of the run.
func (r *Run) NextSeq() int {
	s := r.seq
	r.seq++
	return s
}

// PartName is the name (without extension) of a dataset file: this
// shard's next part-<shard>-<seq>.
func (r *Run) PartName() string {
	return fmt.Sprintf("part-%05d-%05d", r.cfg.Shard.Index, r.NextSeq())
}

// remote reports whether final is staged under the staging prefix (its
// storage cannot rename) rather than beside it.
func remote(final string) bool { return !storage.CanRename(final) }

// stagedName is where a finished output waits until the commit.
func (r *Run) stagedName(final string) string {
	if remote(final) {
		rel := bare(final)
		for _, s := range r.cfg.Sinks {
			if rr, ok := relTo(s.Root, final); ok && rr != "" {
				return Join(r.stagingDir(), s.Name, rr)
			}
		}
		return Join(r.stagingDir(), "_", rel)
	}
	return filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".npyflow-"+r.cfg.Run)
}

// stagingDir is this shard's staging prefix.
func (r *Run) stagingDir() string {
	return Join(r.dir, "staging", fmt.Sprintf("shard-%05d", r.cfg.Shard.Index))
}

// StagedFile is an output being written by a shard, a storage.Writer
// (io.WriteSeeker with Commit and Abort). On a filesystem it is a
// temporary file beside its final name that Commit renames to its staged
// name. On an object store it is an upload streamed straight to its
// staged object under the run's staging prefix, part by part (see
// package objstore): Close completes the upload as soon as the caller has
// written everything (a staging object is invisible to readers, and a
// later attempt removes it unless a manifest lists it), Commit at the
// checkpoint completes it if Close did not, Abort aborts it.
//
// A StagedFile keeps the context given to Stage, as the io.Writer it is
// has no other way to get one: cancelling it aborts the upload, and
// Commit and Abort use it.
type StagedFile struct {
	ctx           context.Context
	f             *os.File       // a filesystem's temporary file
	w             storage.Writer // an object store's upload
	final, staged string
	remote, done  bool
	closed        bool  // remote: the upload is complete
	pos, size     int64 // bytes written (the size after Commit)
}

// Stage opens a new output that will be published at final when the run
// is committed: a temporary file beside final on a local filesystem
// (named .<name>.tmp-*), an upload to its staged object on an object
// store, streamed (the caller may seek back only within the bytes the
// upload still holds: see storage.CreateOptions).
func (r *Run) Stage(ctx context.Context, final string) (*StagedFile, error) {
	return r.stage(ctx, final, false)
}

// StageSeekable is Stage for writers that seek back anywhere (MAT and
// HDF5 files): on an object store the upload spools to a local temporary
// file, uploaded when the file is closed.
func (r *Run) StageSeekable(ctx context.Context, final string) (*StagedFile, error) {
	return r.stage(ctx, final, true)
}

func (r *Run) stage(ctx context.Context, final string, seekable bool) (*StagedFile, error) {
	sf := &StagedFile{ctx: ctx, final: final, staged: r.stagedName(final), remote: remote(final)}
	if sf.remote {
		w, err := storage.Create(ctx, sf.staged, storage.CreateOptions{Sync: true, Seekable: seekable})
		if err != nil {
			return nil, err
		}
		sf.w = w
	} else {
		if err := r.mkdirAll(filepath.Dir(final)); err != nil {
			return nil, err
		}
		f, err := os.CreateTemp(filepath.Dir(final), "."+filepath.Base(final)+".tmp-*")
		if err != nil {
			return nil, err
		}
		// CreateTemp makes 0600 files; outputs get the usual 0644.
		if err := f.Chmod(0o644); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
		sf.f = f
	}
	r.files = append(r.files, sf)
	return sf, nil
}

// Write writes to the staged file.
func (f *StagedFile) Write(p []byte) (int, error) {
	var n int
	var err error
	if f.remote {
		if f.closed {
			return 0, fmt.Errorf("staging %s: write after Close", show(f.staged))
		}
		n, err = f.w.Write(p)
	} else {
		n, err = f.f.Write(p)
	}
	f.pos += int64(n)
	f.size = max(f.size, f.pos)
	return n, err
}

// Seek moves the write position (see Stage for the limits on an object
// store).
func (f *StagedFile) Seek(off int64, whence int) (int64, error) {
	var n int64
	var err error
	if f.remote {
		n, err = f.w.Seek(off, whence)
	} else {
		n, err = f.f.Seek(off, whence)
	}
	if err == nil {
		f.pos = n
	}
	return n, err
}

// Close says the caller has written the whole file: on an object store
// the upload is completed now (to its staging object), so it holds no
// memory until the checkpoint; on a filesystem it does nothing.
func (f *StagedFile) Close() error {
	if !f.remote || f.closed || f.done {
		return nil
	}
	f.closed = true
	if err := f.w.Commit(); err != nil {
		f.done = true
		return fmt.Errorf("staging %s: %w", show(f.staged), err)
	}
	return nil
}

// Commit makes the file durable and moves it to (or completes it at) its
// staged name.
func (f *StagedFile) Commit() error {
	if f.done {
		return nil
	}
	if f.remote {
		if err := f.Close(); err != nil {
			return err
		}
		f.done = true
		return nil
	}
	f.done = true
	tmp := f.f.Name()
	if err := f.f.Sync(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	if err := f.f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	if err := storage.Rename(f.ctx, tmp, f.staged); err != nil {
		os.Remove(tmp)
		return err
	}
	st, err := storage.Stat(f.ctx, f.staged)
	if err != nil {
		return err
	}
	f.size = st.Size
	return nil
}

// Abort discards the file: a filesystem's temporary file is removed, an
// upload aborted (or its completed staging object removed).
func (f *StagedFile) Abort() error {
	if f.done {
		return nil
	}
	f.done = true
	if f.remote {
		if f.closed {
			// Also after an interrupt: the object must not outlive it.
			return storage.Remove(context.WithoutCancel(f.ctx), f.staged)
		}
		return f.w.Abort()
	}
	f.f.Close()
	return os.Remove(f.f.Name())
}

// mkdirAll makes a local directory, remembering what it made so that
// Abort can remove it again when empty.
func (r *Run) mkdirAll(dir string) error {
	made, err := atomicfile.MkdirAll(dir)
	r.dirs = append(r.dirs, made...)
	return err
}

// Done records that an input is finished (all its rows handed to the
// outputs) and reports whether a checkpoint is due: CheckpointBytes of
// input since the last one.
func (r *Run) Done(in ManifestInput, size int64) bool {
	r.pending = append(r.pending, in)
	r.pendBy += size
	return r.cfg.CheckpointBytes >= 0 && r.pendBy >= r.cfg.CheckpointBytes
}

// Checkpoint stages the given finished outputs and records them and the
// inputs finished since the last checkpoint in the manifest; complete
// marks the shard finished. Outputs not written through Stage are
// ignored (a skip_existing sink that wrote nothing).
func (r *Run) Checkpoint(ctx context.Context, done []Output, complete bool) error {
	want := map[string]Output{}
	for _, o := range done {
		want[o.Final] = o
	}
	staged := []ManifestOutput{}
	keep := r.files[:0]
	var dirs []string
	for _, f := range r.files {
		o, ok := want[f.final]
		if !ok {
			keep = append(keep, f)
			continue
		}
		if err := f.Commit(); err != nil {
			return err
		}
		staged = append(staged, ManifestOutput{Sink: o.Sink, Path: f.final, Staged: f.staged, Rows: o.Rows, Bytes: f.size, Last: o.Last})
		if !f.remote && (len(dirs) == 0 || dirs[len(dirs)-1] != Dir(f.staged)) {
			dirs = append(dirs, Dir(f.staged))
		}
	}
	for i := len(keep); i < len(r.files); i++ {
		r.files[i] = nil
	}
	r.files = keep
	for _, d := range dirs {
		SyncDir(d)
	}
	r.man.Inputs = append(r.man.Inputs, r.pending...)
	r.man.Outputs = append(r.man.Outputs, staged...)
	r.man.NextSeq = r.seq
	r.man.Checkpoints++
	r.man.Complete = complete
	if err := r.man.Write(ctx, r.manName); err != nil {
		return err
	}
	r.sum.Checkpoints++
	if r.cfg.Log != nil && (len(r.pending) > 0 || len(staged) > 0) {
		var rows int64
		for _, in := range r.pending {
			rows += in.Rows
		}
		fmt.Fprintf(r.cfg.Log, "checkpoint %d: shard %s committed %d more input(s) (%d rows), %d file(s); %d of %d inputs done\n",
			r.man.Checkpoints, r.cfg.Shard, len(r.pending), rows, len(staged), len(r.man.Inputs), r.man.Assigned)
	}
	r.pending, r.pendBy = nil, 0
	return nil
}

// Finish takes the last checkpoint (marking the shard complete), discards
// outputs that were never finished and, if every shard is complete and
// commits are allowed, commits the run.
func (r *Run) Finish(ctx context.Context, done []Output) error {
	if err := r.Checkpoint(ctx, done, true); err != nil {
		return err
	}
	r.Abort()
	return r.MaybeCommit(ctx)
}

// Abort discards the outputs not staged yet and the directories made for
// them, if empty. Staged outputs and the manifest stay, for a resume.
func (r *Run) Abort() {
	for _, f := range r.files {
		f.Abort()
	}
	r.files = nil
	for i := len(r.dirs) - 1; i >= 0; i-- {
		os.Remove(r.dirs[i]) // only succeeds when empty
	}
	r.dirs = nil
}

// lockFile is the name a committing shard creates exclusively.
const lockFile = "commit.lock"

// MaybeCommit commits the run if every shard's manifest is complete, the
// attempt may commit and no other shard has begun committing (a
// commit.lock file, created exclusively where the storage can, and
// removed again when the commit fails, so that a later attempt or
// `npyflow commit` can commit). It logs which it was: committed, left to
// `npyflow commit` (NoCommit), waiting for other shards, or committing
// elsewhere.
func (r *Run) MaybeCommit(ctx context.Context) error {
	if r.committed {
		return nil
	}
	var waiting []string
	for i := 0; i < r.cfg.Shard.Count; i++ {
		m, err := ReadManifest(ctx, ManifestName(r.dir, i))
		if err != nil || m.Run != r.cfg.Run || !m.Complete {
			waiting = append(waiting, strconv.Itoa(i))
		}
	}
	staged := fmt.Sprintf("shard %s of run %s finished: %d file(s) staged", r.cfg.Shard, r.cfg.Run, len(r.man.Outputs))
	switch {
	case r.cfg.NoCommit:
		r.logf("%s, not published (--no-commit): npyflow commit publishes the run once every shard has finished", staged)
		return nil
	case len(waiting) > 0:
		r.logf("%s, published when the run is committed: waiting for shard(s) %s (the last shard to finish, or npyflow commit, commits)",
			staged, shortList(waiting))
		return nil
	}
	lock := Join(r.dir, lockFile)
	host, _ := os.Hostname()
	text := fmt.Sprintf("shard %d pid %d host %s %s\n", r.cfg.Shard.Index, os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	if err := storage.CreateNew(ctx, lock, []byte(text)); err != nil {
		holder, _ := Files.ReadFile(ctx, lock)
		r.logf("%s; another process is committing the run (%s: %s); if it died, run npyflow commit", staged, lockFile,
			strings.TrimSpace(string(holder)))
		return nil
	}
	cs, err := CommitRun(ctx, r.dir, &CommitOptions{Log: r.cfg.Log})
	if err != nil {
		// The lock is ours: without it a later attempt may commit.
		storage.Remove(context.WithoutCancel(ctx), lock)
		return fmt.Errorf("commit: %w", err)
	}
	r.sum.Committed = cs
	return nil
}

func (r *Run) logf(format string, args ...any) {
	if r.cfg.Log != nil {
		fmt.Fprintf(r.cfg.Log, format+"\n", args...)
	}
}

// shortList joins up to 10 items, then says how many more.
func shortList(s []string) string {
	if len(s) > 10 {
		return strings.Join(s[:10], ", ") + fmt.Sprintf(" and %d more", len(s)-10)
	}
	return strings.Join(s, ", ")
}

// Interrupted returns err, which stopped the attempt, saying what the
// shard's manifest keeps for a --resume when err is a cancellation
// (Ctrl-C, SIGTERM from a scheduler): an *InterruptedError. ctx is the
// attempt's context.
//
// An error after the attempt's context was cancelled is taken for a
// consequence of the cancellation: an object store aborts the uploads of
// a cancelled context, so closing an output then fails with the store's
// own error.
func (r *Run) Interrupted(ctx context.Context, err error) error {
	var ie *InterruptedError
	if err == nil || errors.As(err, &ie) {
		return err
	}
	var cause error
	switch {
	case ctx.Err() != nil:
		cause = ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		cause = context.DeadlineExceeded
	case errors.Is(err, context.Canceled):
		cause = context.Canceled
	default:
		return err
	}
	return &InterruptedError{Shard: r.cfg.Shard, Checkpoints: r.man.Checkpoints, Done: len(r.man.Inputs), Assigned: r.man.Assigned, Err: cause}
}

// cleanup removes this shard's temporary files and the staged files of
// this run not in keep: what a killed attempt left behind.
func (r *Run) cleanup(ctx context.Context, keep map[string]bool) error {
	suffix := ".npyflow-" + r.cfg.Run
	leftover := func(name string) bool {
		return strings.Contains(name, ".tmp-") || strings.HasSuffix(name, suffix)
	}
	// Staging objects of this shard (object stores).
	err := walk(ctx, r.stagingDir(), func(e storage.Info) error {
		if !e.IsDir && !keep[e.Name] {
			return storage.Remove(ctx, e.Name)
		}
		return nil
	}, nil)
	if err != nil {
		return err
	}
	// Files beside their final names (filesystems).
	prefix := fmt.Sprintf(".part-%05d-", r.cfg.Shard.Index)
	for _, s := range r.cfg.Sinks {
		if !s.Dataset || remote(s.Root) {
			continue
		}
		err := walk(ctx, s.Root, func(e storage.Info) error {
			name := Base(e.Name)
			if e.IsDir && name == "_npyflow" {
				return errSkipDir
			}
			if !e.IsDir && strings.HasPrefix(name, prefix) && leftover(name) && !keep[e.Name] {
				return storage.Remove(ctx, e.Name)
			}
			return nil
		}, nil)
		if err != nil {
			return err
		}
	}
	for _, final := range r.cfg.Planned {
		if remote(final) {
			continue
		}
		base := "." + filepath.Base(final)
		ents, err := os.ReadDir(filepath.Dir(final))
		if err != nil {
			continue
		}
		for _, e := range ents {
			name := e.Name()
			p := filepath.Join(filepath.Dir(final), name)
			if strings.HasPrefix(name, base+".tmp-") || name == base+suffix {
				if !keep[p] {
					if err := os.Remove(p); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}
