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
	c := &commit{}
	cs, err := c.run(ctx, runDir, opts)
	if err != nil && ctx.Err() != nil {
		return nil, &CommitInterruptedError{Run: c.id, Published: c.published, Files: c.files, Err: context.Cause(ctx)}
	}
	return cs, err
}

// commit is the progress of one CommitRun, for its interruption error.
type commit struct {
	id               string
	published, files int
}

func (c *commit) run(ctx context.Context, runDir string, opts *CommitOptions) (*CommitSummary, error) {
	c.id = Base(runDir)
	if b, err := Files.ReadFile(ctx, Join(runDir, CommittedFile)); err == nil {
		var cs CommitSummary
		if json.Unmarshal(b, &cs) == nil {
			cs.Already = true
			return &cs, nil
		}
	}
	names, err := manifestNames(ctx, runDir)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no shard manifests: no shard of this run has started", show(runDir))
	}
	var mans []*Manifest
	for _, n := range names {
		m, err := ReadManifest(ctx, n)
		if err != nil {
			return nil, err
		}
		mans = append(mans, m)
	}
	run, shards := mans[0].Run, mans[0].Shards
	c.id = run
	// An earlier commit of this run that passed its checks and was
	// interrupted while publishing: the outputs it published are ours.
	var since time.Time
	pubInfo, perr := storage.Stat(ctx, Join(runDir, PublishingFile))
	resumed := perr == nil
	if resumed {
		since = pubInfo.ModTime
	}
	// publishedBefore reports whether o is at its final name, put there
	// by an interrupted commit of this run.
	publishedBefore := func(o ManifestOutput) bool {
		if !resumed {
			return false
		}
		st, err := storage.Stat(ctx, o.Path)
		return err == nil && !st.IsDir && st.Size == o.Bytes && !st.ModTime.Before(since)
	}
	byShard := map[int]*Manifest{}
	var probs []string
	for i, m := range mans {
		if m.Run != run || m.Shards != shards {
			probs = append(probs, fmt.Sprintf("%s is of run %s with %d shards, not run %s with %d", show(names[i]), m.Run, m.Shards, run, shards))
			continue
		}
		byShard[m.Shard] = m
	}
	if opts.Expect != nil && (opts.Expect.Run != run || opts.Expect.Shards != shards) {
		probs = append(probs, fmt.Sprintf("the manifests are of run %s, the plan is run %s", run, opts.Expect.Run))
	}
	var missing, unfinished []string
	for i := 0; i < shards; i++ {
		m := byShard[i]
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
	if len(probs) > 0 {
		return nil, errors.New(strings.Join(probs, "\n"))
	}
	cs := &CommitSummary{Run: run, Shards: shards, Rows: map[string]int64{}}
	seenIn := map[string]int{}
	finals := map[string]bool{}
	var outs []ManifestOutput
	stagedNow := map[string]bool{} // staged files still there
	sinks := map[string]ManifestSink{}
	for i := 0; i < shards; i++ {
		m := byShard[i]
		for _, s := range m.Sinks {
			sinks[s.Name] = s
		}
		ins := append([]ManifestInput(nil), m.Inputs...)
		if len(ins) != m.Assigned {
			probs = append(probs, fmt.Sprintf("shard %d committed %d inputs, %d were assigned to it", i, len(ins), m.Assigned))
		}
		for _, in := range ins {
			if prev, dup := seenIn[in.Key()]; dup {
				probs = append(probs, fmt.Sprintf("input %s committed twice (shards %d and %d)", show(in.Path), prev, i))
			}
			seenIn[in.Key()] = i
		}
		if DigestInputs(SortedInputs(ins)) != m.AssignedSum {
			probs = append(probs, fmt.Sprintf("shard %d committed other inputs than the ones assigned to it", i))
		}
		for _, o := range m.Outputs {
			if finals[o.Path] {
				probs = append(probs, fmt.Sprintf("%s written twice", show(o.Path)))
			}
			finals[o.Path] = true
			if st, err := storage.Stat(ctx, o.Staged); err == nil {
				stagedNow[o.Staged] = true
				if st.Size != o.Bytes {
					probs = append(probs, fmt.Sprintf("%s has %d bytes, shard %d recorded %d", show(o.Staged), st.Size, i, o.Bytes))
				}
			} else if st, err := storage.Stat(ctx, o.Path); err != nil || st.Size != o.Bytes {
				probs = append(probs, fmt.Sprintf("%s (shard %d) is missing", show(o.Staged), i))
			}
			cs.Rows[o.Sink] += o.Rows
			outs = append(outs, o)
		}
	}
	cs.Inputs, cs.Files = len(seenIn), len(outs)
	if opts.Expect != nil {
		if len(opts.Expect.Inputs) != len(seenIn) {
			probs = append(probs, fmt.Sprintf("the manifests hold %d inputs, the plan %d", len(seenIn), len(opts.Expect.Inputs)))
		}
		for _, in := range opts.Expect.Inputs {
			if _, ok := seenIn[ManifestInput{Source: in.Source, Path: in.Path, Member: in.Member}.Key()]; !ok {
				probs = append(probs, fmt.Sprintf("input %s of the plan is in no manifest", show(in.Path)))
				break
			}
		}
	}
	for _, s := range sinks {
		if s.Mode == "error_if_exists" && s.Dataset {
			f, err := firstVisibleFileExcept(ctx, s.Root, finals)
			if err != nil {
				return nil, err
			}
			if f != "" {
				probs = append(probs, fmt.Sprintf("dataset %s already holds %s (mode: error_if_exists)", show(s.Root), show(f)))
			}
		}
	}
	for _, o := range outs {
		if s := sinks[o.Sink]; s.Mode == "error_if_exists" && !s.Dataset && stagedNow[o.Staged] && Exists(ctx, o.Path) && !publishedBefore(o) {
			probs = append(probs, fmt.Sprintf("%s exists (mode: error_if_exists)", show(o.Path)))
		}
	}
	if len(probs) > 0 {
		return nil, errors.New(strings.Join(probs, "\n"))
	}
	logf := func(format string, args ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, format+"\n", args...)
		}
	}
	roots := map[string]bool{}
	for _, s := range sinks {
		roots[s.Root] = true
	}
	for r := range roots {
		storage.Remove(ctx, Join(r, SuccessFile))
	}
	published := map[string][]string{} // by root
	for _, o := range outs {
		if rel, ok := relTo(sinks[o.Sink].Root, o.Path); ok {
			published[sinks[o.Sink].Root] = append(published[sinks[o.Sink].Root], rel)
		}
	}
	now := time.Now().UTC()
	writeSuccess := func() error {
		for r := range roots {
			pub := published[r]
			sort.Strings(pub)
			b, _ := json.MarshalIndent(successData{cs, now, pub}, "", " ")
			if err := Files.WriteFileAtomic(ctx, Join(r, SuccessFile), append(b, '\n')); err != nil {
				return err
			}
		}
		return nil
	}
	// raced handles a failure to publish: if another commit of the run
	// finished meanwhile (it moved or removed the staged files under
	// this one), the run is committed; its markers are written again,
	// since this commit may have removed _SUCCESS after the other wrote
	// it.
	raced := func(err error) (*CommitSummary, error) {
		if !Exists(ctx, Join(runDir, CommittedFile)) {
			return nil, err
		}
		if werr := writeSuccess(); werr != nil {
			return nil, werr
		}
		cs.Already = true
		return cs, nil
	}
	c.files = len(outs)
	if !resumed {
		b, _ := json.Marshal(struct {
			Run     string    `json:"run"`
			Started time.Time `json:"started"`
		}{run, time.Now().UTC()})
		if err := Files.WriteFileAtomic(ctx, Join(runDir, PublishingFile), append(b, '\n')); err != nil {
			return nil, err
		}
	}
	logf("publishing run %s: %d file(s) of %d shard(s)", run, len(outs), shards)
	// Publish: rename where the storage can (the staged file is gone
	// afterwards), else copy (the staged object stays until the run is
	// marked committed, so an interrupted commit can be run again).
	dirs := map[string]bool{}
	var copied []string
	for _, o := range outs {
		if !stagedNow[o.Staged] {
			c.published++
			continue // renamed by an earlier, interrupted commit
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if publishedBefore(o) {
			// Copied by an earlier, interrupted commit: its staged
			// copy goes once the run is committed.
			c.published++
			copied = append(copied, o.Staged)
			continue
		}
		if opts.BeforePublish != nil {
			opts.BeforePublish(o.Path)
		}
		if s := sinks[o.Sink]; s.Mode == "skip_existing" && !s.Dataset && Exists(ctx, o.Path) {
			storage.Remove(ctx, o.Staged)
			continue
		}
		err := storage.Rename(ctx, o.Staged, o.Path)
		if errors.Is(err, storage.ErrNoRename) {
			err = storage.Copy(ctx, o.Staged, o.Path)
			copied = append(copied, o.Staged)
		}
		if errors.Is(err, fs.ErrNotExist) {
			// A commit racing this one published it and removed the
			// staged object: the final one must be what was recorded.
			if st, serr := storage.Stat(ctx, o.Path); serr == nil && st.Size == o.Bytes {
				err = nil
			}
		}
		if err != nil {
			return raced(fmt.Errorf("publishing %s: %w", show(o.Path), err))
		}
		c.published++
		dirs[Dir(o.Path)] = true
	}
	for dir := range dirs {
		SyncDir(dir)
	}
	for _, s := range sinks {
		if s.Dataset && s.Mode == "overwrite" {
			n, err := removeOthers(ctx, s.Root, finals)
			if err != nil {
				return raced(err)
			}
			cs.Removed += n
		}
	}
	if err := writeSuccess(); err != nil {
		return nil, err
	}
	b, _ := json.MarshalIndent(successData{CommitSummary: cs, Committed: now}, "", " ")
	if err := Files.WriteFileAtomic(ctx, Join(runDir, CommittedFile), append(b, '\n')); err != nil {
		return nil, err
	}
	for _, st := range copied {
		storage.Remove(ctx, st) // the staging copies, no longer needed
	}
	Files.Remove(ctx, Join(runDir, PublishingFile))
	logf("committed run %s: %d shard(s), %d input(s), %d file(s)", run, shards, cs.Inputs, cs.Files)
	return cs, nil
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
