package shardrun

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// SuccessFile marks a committed output directory, as Hadoop and Spark do.
const SuccessFile = "_SUCCESS"

// CommittedFile marks a committed run in its state directory.
const CommittedFile = "COMMITTED"

// CommitOptions configures CommitRun.
type CommitOptions struct {
	// Expect, if set, is what the run must hold (from its frozen plan):
	// commit also checks the manifests cover exactly these inputs.
	Expect *Expected
	// Log, if set, receives a line per step.
	Log io.Writer
}

// Expected is a run's identity and inputs as its frozen plan has them.
type Expected struct {
	Run    string
	Shards int
	Inputs []ManifestInput // Source, Path and Member are compared
}

// Exists reports whether path exists.
func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
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

// CommitRun verifies the manifests in a run directory and publishes the
// run: staged files are renamed to their final names, datasets in
// overwrite mode lose the files of earlier runs, and every sink root gets
// a _SUCCESS file. Committing a committed run does nothing. Any problem
// (a shard missing or unfinished, an input missing or twice, a staged
// file missing or of the wrong size) fails the commit before anything is
// published.
func CommitRun(runDir string, opts *CommitOptions) (*CommitSummary, error) {
	if opts == nil {
		opts = &CommitOptions{}
	}
	if b, err := os.ReadFile(filepath.Join(runDir, CommittedFile)); err == nil {
		var cs CommitSummary
		if json.Unmarshal(b, &cs) == nil {
			cs.Already = true
			return &cs, nil
		}
	}
	names, _ := filepath.Glob(filepath.Join(runDir, "shard-*.json"))
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no shard manifests: no shard of this run has started", runDir)
	}
	var mans []*Manifest
	for _, n := range names {
		m, err := ReadManifest(n)
		if err != nil {
			return nil, err
		}
		mans = append(mans, m)
	}
	run, shards := mans[0].Run, mans[0].Shards
	byShard := map[int]*Manifest{}
	var probs []string
	for i, m := range mans {
		if m.Run != run || m.Shards != shards {
			probs = append(probs, fmt.Sprintf("%s is of run %s with %d shards, not run %s with %d", names[i], m.Run, m.Shards, run, shards))
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
				probs = append(probs, fmt.Sprintf("input %s committed twice (shards %d and %d)", in.Path, prev, i))
			}
			seenIn[in.Key()] = i
		}
		if DigestInputs(SortedInputs(ins)) != m.AssignedSum {
			probs = append(probs, fmt.Sprintf("shard %d committed other inputs than the ones assigned to it", i))
		}
		for _, o := range m.Outputs {
			if finals[o.Path] {
				probs = append(probs, fmt.Sprintf("%s written twice", o.Path))
			}
			finals[o.Path] = true
			if st, err := os.Stat(o.Staged); err == nil {
				if st.Size() != o.Bytes {
					probs = append(probs, fmt.Sprintf("%s has %d bytes, shard %d recorded %d", o.Staged, st.Size(), i, o.Bytes))
				}
			} else if st, err := os.Stat(o.Path); err != nil || st.Size() != o.Bytes {
				probs = append(probs, fmt.Sprintf("%s (shard %d) is missing", o.Staged, i))
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
				probs = append(probs, fmt.Sprintf("input %s of the plan is in no manifest", in.Path))
				break
			}
		}
	}
	for _, s := range sinks {
		if s.Mode == "error_if_exists" && s.Dataset {
			if f := firstVisibleFileExcept(s.Root, finals); f != "" {
				probs = append(probs, fmt.Sprintf("dataset %s already holds %s (mode: error_if_exists)", s.Root, f))
			}
		}
	}
	for _, o := range outs {
		if s := sinks[o.Sink]; s.Mode == "error_if_exists" && !s.Dataset && Exists(o.Staged) && Exists(o.Path) {
			probs = append(probs, fmt.Sprintf("%s exists (mode: error_if_exists)", o.Path))
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
		os.Remove(filepath.Join(r, SuccessFile))
	}
	dirs := map[string]bool{}
	for _, o := range outs {
		if !Exists(o.Staged) {
			continue // published by an earlier, interrupted commit
		}
		if s := sinks[o.Sink]; s.Mode == "skip_existing" && !s.Dataset && Exists(o.Path) {
			os.Remove(o.Staged)
			continue
		}
		if err := os.Rename(o.Staged, o.Path); err != nil {
			return nil, err
		}
		dirs[filepath.Dir(o.Path)] = true
	}
	for dir := range dirs {
		SyncDir(dir)
	}
	for _, s := range sinks {
		if s.Dataset && s.Mode == "overwrite" {
			n, err := removeOthers(s.Root, finals)
			if err != nil {
				return nil, err
			}
			cs.Removed += n
		}
	}
	b, _ := json.MarshalIndent(struct {
		*CommitSummary
		Committed time.Time `json:"committed"`
	}{cs, time.Now().UTC()}, "", " ")
	for r := range roots {
		if err := Local.WriteFileAtomic(filepath.Join(r, SuccessFile), append(b, '\n')); err != nil {
			return nil, err
		}
	}
	if err := Local.WriteFileAtomic(filepath.Join(runDir, CommittedFile), append(b, '\n')); err != nil {
		return nil, err
	}
	logf("committed run %s: %d shard(s), %d input(s), %d file(s)", run, shards, cs.Inputs, cs.Files)
	return cs, nil
}

// SortedInputs sorts inputs by (source, path, member) in place and returns them.
func SortedInputs(in []ManifestInput) []ManifestInput {
	sort.Slice(in, func(i, j int) bool { return in[i].Key() < in[j].Key() })
	return in
}

// firstVisibleFileExcept is firstVisibleFile ignoring the given files.
func firstVisibleFileExcept(root string, except map[string]bool) string {
	found := ""
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found != "" {
			return filepath.SkipAll
		}
		if p != root && HiddenName(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && !except[p] {
			found = p
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// removeOthers removes from a dataset the visible files not in keep, the
// staged and temporary files of other runs, and directories left empty.
func removeOthers(root string, keep map[string]bool) (int, error) {
	n := 0
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && HiddenName(name) {
				return filepath.SkipDir
			}
			if p != root {
				dirs = append(dirs, p)
			}
			return nil
		}
		stale := strings.HasPrefix(name, ".part-") && (strings.Contains(name, ".npyflow-") || strings.Contains(name, ".tmp-"))
		if (!HiddenName(name) && !keep[p]) || stale {
			if err := os.Remove(p); err != nil {
				return err
			}
			if !stale {
				n++
			}
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Remove(dirs[i]) // only when empty
	}
	return n, err
}

// FindRun returns the run directory to commit in a state directory: the
// plan's run when id is set, else the most recently updated run that is
// not committed yet (or, if all are, the latest).
func FindRun(stateDir, id string) (string, error) {
	if id != "" {
		d := filepath.Join(stateDir, id)
		if _, err := os.Stat(d); err != nil {
			return "", fmt.Errorf("run %s has no state in %s: no shard has started", id, stateDir)
		}
		return d, nil
	}
	ents, err := os.ReadDir(stateDir)
	if err != nil {
		return "", fmt.Errorf("no runs in %s: %w", stateDir, err)
	}
	best, bestT, bestDone := "", time.Time{}, true
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		d := filepath.Join(stateDir, e.Name())
		ms, _ := filepath.Glob(filepath.Join(d, "shard-*.json"))
		if len(ms) == 0 {
			continue
		}
		var t time.Time
		for _, m := range ms {
			if st, err := os.Stat(m); err == nil && st.ModTime().After(t) {
				t = st.ModTime()
			}
		}
		done := Exists(filepath.Join(d, CommittedFile))
		if best == "" || (bestDone && !done) || (done == bestDone && t.After(bestT)) {
			best, bestT, bestDone = d, t, done
		}
	}
	if best == "" {
		return "", fmt.Errorf("no runs in %s", stateDir)
	}
	return best, nil
}
