package shardrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/npyflow/npyflow/internal/storage"
)

// SuccessFile marks a committed output directory, as Hadoop and Spark do.
const SuccessFile = "_SUCCESS"

// CommittedFile marks a committed run in its state directory.
const CommittedFile = "COMMITTED"

// PublishingFile marks, in a run directory, a commit that passed its
// checks and started publishing: a commit of the run after an interrupted
// one takes the outputs published since (an object at its final name,
// of the recorded size, last modified at or after the marker, by the
// store's clock) as published, and copies only the others.
const PublishingFile = "PUBLISHING"

// CommitOptions configures CommitRun.
type CommitOptions struct {
	// Expect, if set, is what the run must hold (from its frozen plan):
	// commit also checks the manifests cover exactly these inputs.
	Expect *Expected
	// Log, if set, receives a line per step.
	Log io.Writer
	// BeforePublish, if set, is called before each staged file is
	// published, with its final name (tests interrupt a commit there).
	BeforePublish func(final string)
}

// Expected is a run's identity and inputs as its frozen plan has them.
type Expected struct {
	Run    string
	Shards int
	Inputs []ManifestInput // Source, Path and Member are compared
}

// HiddenName reports whether a file name is hidden from readers of a
// dataset (Spark, Hive and DuckDB skip names starting with . or _).
func HiddenName(n string) bool { return strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") }

// DigestInputs is a short digest of inputs, in order.
func DigestInputs(in []ManifestInput) string {
	h := sha256.New()
	for _, m := range in {
		fmt.Fprintf(h, "%q %q %q %s\n", m.Source, m.Path, m.Member, m.Fingerprint)
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}

// CommitSummary is what a commit published.
type CommitSummary struct {
	Run     string           `json:"run"`
	Shards  int              `json:"shards"`
	Inputs  int              `json:"inputs"`
	Rows    map[string]int64 `json:"rows"` // rows per sink
	Files   int              `json:"files"`
	Removed int              `json:"removed"` // files of earlier runs removed (overwrite)
	Already bool             `json:"-"`       // the run was committed before
}

// successData is the contents of a _SUCCESS file: the commit's summary
// and, like the S3A committers' _SUCCESS, the files the commit published
// under that root (relative, "/"-separated), so that a reader of an
// object store can take the listing from it instead of from the bucket.
type successData struct {
	*CommitSummary
	Committed time.Time `json:"committed"`
	Published []string  `json:"published,omitempty"`
}

// CommitRun verifies the manifests in a run directory and publishes the
// run: staged files are moved to their final names (renamed where the
// storage renames, copied from the staging prefix on an object store),
// datasets in overwrite mode lose the files of earlier runs, and every
// sink root gets a _SUCCESS file listing what was published, written
// last; the run directory gets COMMITTED. Committing a committed run
// does nothing. Any problem (a shard missing or unfinished, an input
// missing or twice, a staged file missing or of the wrong size) fails the
// commit before anything is published. runDir may be a URL.
//
// Cancelling ctx (Ctrl-C) stops the commit between two object-store
// calls, or inside one, with a *CommitInterruptedError: the run is left
// uncommitted, with its staged files, manifests and no _SUCCESS, and
// committing it again publishes it; each output is published once over
// both commits (an object copied to its final name by the interrupted
// commit is not copied again, so no reader sees it replaced).
func CommitRun(ctx context.Context, runDir string, opts *CommitOptions) (*CommitSummary, error) {
	if opts == nil {
		opts = &CommitOptions{}
	}
	c := &commit{runDir: runDir, opts: opts, id: Base(runDir)}
	cs, err := c.run(ctx)
	if err != nil && ctx.Err() != nil {
		return nil, &CommitInterruptedError{Run: c.id, Published: c.published, Files: c.files, Err: context.Cause(ctx)}
	}
	return cs, err
}

// commit is one CommitRun: what it read from the run directory, what it
// will publish, and its progress (for its interruption error). Its steps,
// in the order run calls them, each take the commit's context.
type commit struct {
	runDir string
	opts   *CommitOptions

	id     string // the run's identity: its directory's name until the manifests say
	shards int    // the run's shard count, from its manifests

	// An earlier commit of this run that passed its checks and was
	// interrupted while publishing left PUBLISHING, last modified at
	// since: the outputs it published are ours.
	resumed bool
	since   time.Time

	byShard   map[int]*Manifest
	cs        *CommitSummary
	seenIn    map[string]int          // input key -> the shard that committed it
	finals    map[string]bool         // the final names of the outputs
	outs      []ManifestOutput        // the outputs, by shard
	stagedNow map[string]bool         // staged files still there
	sinks     map[string]ManifestSink // by name
	roots     map[string]bool         // the sinks' roots
	listing   map[string][]string     // the outputs under each root, relative
	now       time.Time               // the commit's time, in _SUCCESS and COMMITTED
	copied    []string                // staged objects to remove once committed

	published, files int
}

// run checks the run, then publishes it: each step below is one of its
// phases, and any check that fails stops it before anything is published.
func (c *commit) run(ctx context.Context) (*CommitSummary, error) {
	if cs, ok := c.committedBefore(ctx); ok {
		return cs, nil
	}
	mans, names, err := c.readManifests(ctx)
	if err != nil {
		return nil, err
	}
	c.readPublishing(ctx)
	if probs := c.checkShards(mans, names); len(probs) > 0 {
		return nil, errors.New(strings.Join(probs, "\n"))
	}
	probs := c.collectOutputs(ctx)
	probs = append(probs, c.checkExpected()...)
	more, err := c.checkExisting(ctx)
	if err != nil {
		return nil, err
	}
	if probs = append(probs, more...); len(probs) > 0 {
		return nil, errors.New(strings.Join(probs, "\n"))
	}
	if err := c.startPublishing(ctx); err != nil {
		return nil, err
	}
	if done, err := c.publishOutputs(ctx); done != nil || err != nil {
		return done, err
	}
	if err := c.removeOverwritten(ctx); err != nil {
		return c.raced(ctx, err)
	}
	if err := c.finish(ctx); err != nil {
		return nil, err
	}
	return c.cs, nil
}

// committedBefore returns the summary in the run's COMMITTED marker, if
// the run was committed before.
func (c *commit) committedBefore(ctx context.Context) (*CommitSummary, bool) {
	b, err := Files.ReadFile(ctx, Join(c.runDir, CommittedFile))
	if err != nil {
		return nil, false
	}
	var cs CommitSummary
	if json.Unmarshal(b, &cs) != nil {
		return nil, false
	}
	cs.Already = true
	return &cs, true
}

// readManifests reads the shard manifests of the run directory, and takes
// the run's identity and shard count from the first.
func (c *commit) readManifests(ctx context.Context) ([]*Manifest, []string, error) {
	names, err := manifestNames(ctx, c.runDir)
	if err != nil {
		return nil, nil, err
	}
	if len(names) == 0 {
		return nil, nil, fmt.Errorf("%s: no shard manifests: no shard of this run has started", show(c.runDir))
	}
	var mans []*Manifest
	for _, n := range names {
		m, err := ReadManifest(ctx, n)
		if err != nil {
			return nil, nil, err
		}
		mans = append(mans, m)
	}
	c.id, c.shards = mans[0].Run, mans[0].Shards
	return mans, names, nil
}

// readPublishing finds the PUBLISHING marker of an interrupted commit of
// the run, if there is one.
func (c *commit) readPublishing(ctx context.Context) {
	pubInfo, err := storage.Stat(ctx, Join(c.runDir, PublishingFile))
	c.resumed = err == nil
	if c.resumed {
		c.since = pubInfo.ModTime
	}
}

// publishedBefore reports whether o is at its final name, put there by an
// interrupted commit of this run.
func (c *commit) publishedBefore(ctx context.Context, o ManifestOutput) bool {
	if !c.resumed {
		return false
	}
	st, err := storage.Stat(ctx, o.Path)
	return err == nil && !st.IsDir && st.Size == o.Bytes && !st.ModTime.Before(c.since)
}

// checkShards indexes the manifests (names[i] is mans[i]'s) by shard and
// returns what is wrong with them: a manifest of another run, a run other
// than the plan's, shards missing or unfinished.
func (c *commit) checkShards(mans []*Manifest, names []string) []string {
	run, shards := c.id, c.shards
	c.byShard = map[int]*Manifest{}
	var probs []string
	for i, m := range mans {
		if m.Run != run || m.Shards != shards {
			probs = append(probs, fmt.Sprintf("%s is of run %s with %d shards, not run %s with %d", show(names[i]), m.Run, m.Shards, run, shards))
			continue
		}
		c.byShard[m.Shard] = m
	}
	if x := c.opts.Expect; x != nil && (x.Run != run || x.Shards != shards) {
		probs = append(probs, fmt.Sprintf("the manifests are of run %s, the plan is run %s", run, x.Run))
	}
	var missing, unfinished []string
	for i := 0; i < shards; i++ {
		m := c.byShard[i]
		switch {
		case m == nil:
			missing = append(missing, fmt.Sprint(i))
		case !m.Complete:
			unfinished = append(unfinished, fmt.Sprintf("%d (%d of %d inputs)", i, len(m.Inputs), m.Assigned))
		}
	}
	if len(missing) > 0 {
		probs = append(probs, fmt.Sprintf("no manifest from shard(s) %s of %d", strings.Join(missing, ", "), shards))
	}
	if len(unfinished) > 0 {
		probs = append(probs, "shard(s) not finished: "+strings.Join(unfinished, ", ")+"; run them again with --resume")
	}
	return probs
}

// collectOutputs gathers the inputs, sinks and outputs of every shard
// into the summary, and returns what is wrong with them: inputs other
// than the assigned ones or committed twice, an output written twice, a
// staged file missing or of another size than recorded.
func (c *commit) collectOutputs(ctx context.Context) []string {
	c.cs = &CommitSummary{Run: c.id, Shards: c.shards, Rows: map[string]int64{}}
	c.seenIn = map[string]int{}
	c.finals = map[string]bool{}
	c.stagedNow = map[string]bool{}
	c.sinks = map[string]ManifestSink{}
	var probs []string
	for i := 0; i < c.shards; i++ {
		m := c.byShard[i]
		for _, s := range m.Sinks {
			c.sinks[s.Name] = s
		}
		ins := append([]ManifestInput(nil), m.Inputs...)
		if len(ins) != m.Assigned {
			probs = append(probs, fmt.Sprintf("shard %d committed %d inputs, %d were assigned to it", i, len(ins), m.Assigned))
		}
		for _, in := range ins {
			if prev, dup := c.seenIn[in.Key()]; dup {
				probs = append(probs, fmt.Sprintf("input %s committed twice (shards %d and %d)", show(in.Path), prev, i))
			}
			c.seenIn[in.Key()] = i
		}
		if DigestInputs(SortedInputs(ins)) != m.AssignedSum {
			probs = append(probs, fmt.Sprintf("shard %d committed other inputs than the ones assigned to it", i))
		}
		for _, o := range m.Outputs {
			if c.finals[o.Path] {
				probs = append(probs, fmt.Sprintf("%s written twice", show(o.Path)))
			}
			c.finals[o.Path] = true
			if st, err := storage.Stat(ctx, o.Staged); err == nil {
				c.stagedNow[o.Staged] = true
				if st.Size != o.Bytes {
					probs = append(probs, fmt.Sprintf("%s has %d bytes, shard %d recorded %d", show(o.Staged), st.Size, i, o.Bytes))
				}
			} else if st, err := storage.Stat(ctx, o.Path); err != nil || st.Size != o.Bytes {
				probs = append(probs, fmt.Sprintf("%s (shard %d) is missing", show(o.Staged), i))
			}
			c.cs.Rows[o.Sink] += o.Rows
			c.outs = append(c.outs, o)
		}
	}
	c.cs.Inputs, c.cs.Files = len(c.seenIn), len(c.outs)
	return probs
}

// checkExpected returns what is wrong with the manifests' inputs against
// the plan's, when CommitOptions.Expect is set.
func (c *commit) checkExpected() []string {
	x := c.opts.Expect
	if x == nil {
		return nil
	}
	var probs []string
	if len(x.Inputs) != len(c.seenIn) {
		probs = append(probs, fmt.Sprintf("the manifests hold %d inputs, the plan %d", len(c.seenIn), len(x.Inputs)))
	}
	for _, in := range x.Inputs {
		if _, ok := c.seenIn[ManifestInput{Source: in.Source, Path: in.Path, Member: in.Member}.Key()]; !ok {
			probs = append(probs, fmt.Sprintf("input %s of the plan is in no manifest", show(in.Path)))
			break
		}
	}
	return probs
}

// checkExisting returns the outputs that mode error_if_exists refuses: a
// dataset holding visible files other than the run's, a file already at
// an output's final name (not put there by an interrupted commit).
func (c *commit) checkExisting(ctx context.Context) ([]string, error) {
	var probs []string
	for _, s := range c.sinks {
		if s.Mode == "error_if_exists" && s.Dataset {
			f, err := firstVisibleFileExcept(ctx, s.Root, c.finals)
			if err != nil {
				return nil, err
			}
			if f != "" {
				probs = append(probs, fmt.Sprintf("dataset %s already holds %s (mode: error_if_exists)", show(s.Root), show(f)))
			}
		}
	}
	for _, o := range c.outs {
		if s := c.sinks[o.Sink]; s.Mode == "error_if_exists" && !s.Dataset && c.stagedNow[o.Staged] && Exists(ctx, o.Path) && !c.publishedBefore(ctx, o) {
			probs = append(probs, fmt.Sprintf("%s exists (mode: error_if_exists)", show(o.Path)))
		}
	}
	return probs, nil
}

// logf writes a line to CommitOptions.Log, if set.
func (c *commit) logf(format string, args ...any) {
	if c.opts.Log != nil {
		fmt.Fprintf(c.opts.Log, format+"\n", args...)
	}
}

// startPublishing removes the sinks' _SUCCESS files (a reader must not
// take a half-published dataset for a committed one), lists what each
// root's new _SUCCESS will hold, and marks the run PUBLISHING unless an
// interrupted commit did.
func (c *commit) startPublishing(ctx context.Context) error {
	c.roots = map[string]bool{}
	for _, s := range c.sinks {
		c.roots[s.Root] = true
	}
	for r := range c.roots {
		storage.Remove(ctx, Join(r, SuccessFile))
	}
	c.listing = map[string][]string{}
	for _, o := range c.outs {
		root := c.sinks[o.Sink].Root
		if rel, ok := relTo(root, o.Path); ok {
			c.listing[root] = append(c.listing[root], rel)
		}
	}
	c.now = time.Now().UTC()
	c.files = len(c.outs)
	if !c.resumed {
		b, _ := json.Marshal(struct {
			Run     string    `json:"run"`
			Started time.Time `json:"started"`
		}{c.id, time.Now().UTC()})
		if err := Files.WriteFileAtomic(ctx, Join(c.runDir, PublishingFile), append(b, '\n')); err != nil {
			return err
		}
	}
	c.logf("publishing run %s: %d file(s) of %d shard(s)", c.id, len(c.outs), c.shards)
	return nil
}

// publishOutputs moves each staged file to its final name, in the order
// of their Last (data before the metadata describing it): renamed where
// the storage can (the staged file is gone afterwards), else copied (the
// staged object stays until the run is marked committed, so an
// interrupted commit can be run again). Outputs an interrupted commit
// published, and skip_existing files already there, are left alone. If
// publishing fails because another commit of the run finished meanwhile,
// done is the run's summary (see [commit.raced]); a cancelled ctx stops
// it between two outputs with ctx's error.
func (c *commit) publishOutputs(ctx context.Context) (done *CommitSummary, err error) {
	dirs := map[string]bool{} // renamed into, to sync
	outs := append([]ManifestOutput(nil), c.outs...)
	sort.SliceStable(outs, func(i, j int) bool { return outs[i].Last < outs[j].Last })
	last := 0
	for _, o := range outs {
		if o.Last != last {
			// What follows describes what came before: make that durable first.
			for dir := range dirs {
				SyncDir(dir)
			}
			last = o.Last
		}
		if !c.stagedNow[o.Staged] {
			c.published++
			continue // renamed by an earlier, interrupted commit
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if c.publishedBefore(ctx, o) {
			// Copied by an earlier, interrupted commit: its staged
			// copy goes once the run is committed.
			c.published++
			c.copied = append(c.copied, o.Staged)
			continue
		}
		if c.opts.BeforePublish != nil {
			c.opts.BeforePublish(o.Path)
		}
		if s := c.sinks[o.Sink]; s.Mode == "skip_existing" && !s.Dataset && Exists(ctx, o.Path) {
			storage.Remove(ctx, o.Staged)
			continue
		}
		err := storage.Rename(ctx, o.Staged, o.Path)
		if errors.Is(err, storage.ErrNoRename) {
			err = storage.Copy(ctx, o.Staged, o.Path)
			c.copied = append(c.copied, o.Staged)
		}
		if errors.Is(err, fs.ErrNotExist) {
			// A commit racing this one published it and removed the
			// staged object: the final one must be what was recorded.
			if st, serr := storage.Stat(ctx, o.Path); serr == nil && st.Size == o.Bytes {
				err = nil
			}
		}
		if err != nil {
			return c.raced(ctx, fmt.Errorf("publishing %s: %w", show(o.Path), err))
		}
		c.published++
		dirs[Dir(o.Path)] = true
	}
	for dir := range dirs {
		SyncDir(dir)
	}
	return nil, nil
}

// removeOverwritten removes, from each dataset in overwrite mode, the
// files of earlier runs.
func (c *commit) removeOverwritten(ctx context.Context) error {
	for _, s := range c.sinks {
		if s.Dataset && s.Mode == "overwrite" {
			n, err := removeOthers(ctx, s.Root, c.finals)
			if err != nil {
				return err
			}
			c.cs.Removed += n
		}
	}
	return nil
}

// writeSuccess writes each sink root's _SUCCESS: the summary and the
// files published under the root.
func (c *commit) writeSuccess(ctx context.Context) error {
	for r := range c.roots {
		pub := c.listing[r]
		sort.Strings(pub)
		b, _ := json.MarshalIndent(successData{c.cs, c.now, pub}, "", " ")
		if err := Files.WriteFileAtomic(ctx, Join(r, SuccessFile), append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// raced handles a failure to publish: if another commit of the run
// finished meanwhile (it moved or removed the staged files under this
// one), the run is committed; its markers are written again, since this
// commit may have removed _SUCCESS after the other wrote it.
func (c *commit) raced(ctx context.Context, err error) (*CommitSummary, error) {
	if !Exists(ctx, Join(c.runDir, CommittedFile)) {
		return nil, err
	}
	if werr := c.writeSuccess(ctx); werr != nil {
		return nil, werr
	}
	c.cs.Already = true
	return c.cs, nil
}

// finish writes the _SUCCESS files, then marks the run COMMITTED, and
// removes what publishing left: the staged copies and the PUBLISHING
// marker.
func (c *commit) finish(ctx context.Context) error {
	if err := c.writeSuccess(ctx); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(successData{CommitSummary: c.cs, Committed: c.now}, "", " ")
	if err := Files.WriteFileAtomic(ctx, Join(c.runDir, CommittedFile), append(b, '\n')); err != nil {
		return err
	}
	for _, st := range c.copied {
		storage.Remove(ctx, st) // the staging copies, no longer needed
	}
	Files.Remove(ctx, Join(c.runDir, PublishingFile))
	c.logf("committed run %s: %d shard(s), %d input(s), %d file(s)", c.id, c.shards, c.cs.Inputs, c.cs.Files)
	return nil
}

// relTo returns name relative to root ("/"-separated), if it is under it.
func relTo(root, name string) (string, bool) {
	r, n := bare(root), bare(name)
	if r == "." || r == "" {
		return n, true
	}
	rest, ok := strings.CutPrefix(n, strings.TrimSuffix(r, "/")+"/")
	return rest, ok
}

// manifestNames lists the shard manifests of a run directory.
func manifestNames(ctx context.Context, runDir string) ([]string, error) {
	var out []string
	err := list(ctx, runDir, func(e storage.Info) error {
		if n := Base(e.Name); !e.IsDir && strings.HasPrefix(n, "shard-") && strings.HasSuffix(n, ".json") {
			out = append(out, e.Name)
		}
		return nil
	})
	return out, err
}

// SortedInputs sorts inputs by (source, path, member) in place and returns them.
func SortedInputs(in []ManifestInput) []ManifestInput {
	sort.Slice(in, func(i, j int) bool { return in[i].Key() < in[j].Key() })
	return in
}

// FirstVisibleFile returns a file under root that readers of a dataset
// see (no element of its name below root starts with '_' or '.'), or "".
func FirstVisibleFile(ctx context.Context, root string) (string, error) {
	return firstVisibleFileExcept(ctx, root, nil)
}

// firstVisibleFileExcept returns a visible file under root not in except.
func firstVisibleFileExcept(ctx context.Context, root string, except map[string]bool) (string, error) {
	found := ""
	err := walk(ctx, root, func(e storage.Info) error {
		if HiddenName(Base(e.Name)) {
			return errSkipDir
		}
		if !e.IsDir && !except[e.Name] {
			found = e.Name
			return errStop
		}
		return nil
	}, nil)
	return found, err
}

// removeOthers removes from a dataset the visible files not in keep, the
// staged and temporary files of other runs, and directories left empty.
func removeOthers(ctx context.Context, root string, keep map[string]bool) (int, error) {
	n := 0
	err := walk(ctx, root, func(e storage.Info) error {
		name := Base(e.Name)
		if e.IsDir {
			if HiddenName(name) {
				return errSkipDir
			}
			return nil
		}
		stale := strings.HasPrefix(name, ".part-") && (strings.Contains(name, ".npyflow-") || strings.Contains(name, ".tmp-"))
		if (!HiddenName(name) && !keep[e.Name]) || stale {
			if err := storage.Remove(ctx, e.Name); err != nil {
				return err
			}
			if !stale {
				n++
			}
		}
		return nil
	}, func(dir string) {
		storage.Remove(ctx, dir) // only when empty
	})
	return n, err
}

// FindRun returns the run directory to commit in a state directory: the
// plan's run when id is set, else the most recently updated run that is
// not committed yet (or, if all are, the latest). stateDir may be a URL.
func FindRun(ctx context.Context, stateDir, id string) (string, error) {
	if id != "" {
		d := Join(stateDir, id)
		if ms, err := manifestNames(ctx, d); err != nil || (len(ms) == 0 && !Exists(ctx, d)) {
			return "", fmt.Errorf("run %s has no state in %s: no shard has started", id, show(stateDir))
		}
		return d, nil
	}
	if _, err := storage.Stat(ctx, stateDir); err != nil {
		return "", fmt.Errorf("no runs in %s: %w", show(stateDir), err)
	}
	best, bestT, bestDone := "", time.Time{}, true
	err := list(ctx, stateDir, func(e storage.Info) error {
		if !e.IsDir {
			return nil
		}
		d := e.Name
		var t time.Time
		found := false
		err := list(ctx, d, func(m storage.Info) error {
			if n := Base(m.Name); !m.IsDir && strings.HasPrefix(n, "shard-") && strings.HasSuffix(n, ".json") {
				found = true
				if m.ModTime.After(t) {
					t = m.ModTime
				}
			}
			return nil
		})
		if err != nil || !found {
			return err
		}
		done := Exists(ctx, Join(d, CommittedFile))
		if best == "" || (bestDone && !done) || (done == bestDone && t.After(bestT)) {
			best, bestT, bestDone = d, t, done
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if best == "" {
		return "", fmt.Errorf("no runs in %s", show(stateDir))
	}
	return best, nil
}
