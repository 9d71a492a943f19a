package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/shardrun"
)

// FrozenPlan is a snapshot of a sharded job's work, written by `npyflow
// plan --out plan.json` and read by every shard, so that all shards
// agree on the inputs even if files arrive or change later: the job file
// itself with the values of its ${VAR}s, each input with its size,
// rows, fingerprint and shard, each source's layout, and the outputs. A
// shard running it reads no input but its own.
type FrozenPlan struct {
	Format  int       `json:"npyflow_plan"`
	ID      string    `json:"id"` // the run ID: a digest of the job, the inputs and the shard count
	Created time.Time `json:"created"`
	// JobFile and JobDir name the job file and the directory its relative
	// paths resolve against (absolute); Job is its text and Set its --set
	// overrides.
	JobFile string   `json:"job_file"`
	JobDir  string   `json:"job_dir"`
	Job     string   `json:"job"`
	Set     []string `json:"set,omitempty"`
	// Env holds the values the job's ${VAR} references had when it was
	// planned; shards expand them from here, not from their own
	// environment. A plan without it (written by an earlier npyflow)
	// expands them from each shard's environment.
	Env        map[string]string `json:"env"`
	Shards     int               `json:"shards"`
	StateDir   string            `json:"state_dir"`
	ShardBytes []int64           `json:"shard_bytes"`
	ShardFiles []int             `json:"shard_inputs"`
	Sources    []FrozenSource    `json:"sources,omitempty"`
	Inputs     []FrozenInput     `json:"inputs"`
	Sinks      []FrozenOutput    `json:"sinks"`
}

// FrozenSource is the layout of one source's rows in its files, as
// planned: the numpy dtype (descr) and row shape every input is read as
// (string widths the widest of all inputs), and the Parquet or Arrow
// columns read. With it and the inputs' rows, a shard builds the plan
// without opening any input; it checks its own inputs when it reads them.
type FrozenSource struct {
	Name     string   `json:"name"`
	DType    string   `json:"dtype"`
	RowShape []int    `json:"row_shape,omitempty"`
	Columns  []string `json:"columns,omitempty"`
	Dropped  []string `json:"dropped,omitempty"` // fields a projection left out
}

// FrozenInput is one input part of a frozen plan.
type FrozenInput struct {
	Source      string            `json:"source"`
	Path        string            `json:"path"`
	Member      string            `json:"member,omitempty"`
	Size        int64             `json:"size"`
	ModTime     time.Time         `json:"mtime"`
	Rows        int64             `json:"rows"`
	ZeroD       bool              `json:"zero_d,omitempty"` // a 0-d array, read as one row
	Fingerprint string            `json:"fingerprint"`
	Shard       int               `json:"shard"`
	Captures    map[string]string `json:"captures,omitempty"`
	Outputs     map[string]string `json:"outputs,omitempty"` // sink: file, for sinks writing one file per input
}

// FrozenOutput is one sink of a frozen plan. Dataset sinks list their
// root and the names their files take; other sinks their files.
type FrozenOutput struct {
	Sink        string   `json:"sink"`
	Type        string   `json:"type"`
	Mode        string   `json:"mode"`
	Root        string   `json:"root"`
	Dataset     bool     `json:"dataset,omitempty"`
	PartitionBy []string `json:"partition_by,omitempty"`
	Files       string   `json:"files,omitempty"` // the dataset's file names, like k=v/part-<shard>-<seq>.parquet
	Paths       []string `json:"paths,omitempty"`
}

// planFormat is the version of the plan and manifest files.
const planFormat = shardrun.Format

// Freeze snapshots the plan for shards shard runs: it fingerprints every
// input (several at a time: inputs may be objects in a bucket) and
// assigns inputs to shards by bytes. jobText is the job file's contents
// and set its --set overrides, which the snapshot carries, with the
// values of the job's ${VAR}s, so shards need only the plan file.
func (p *Plan) Freeze(ctx context.Context, shards int, jobText []byte, set []string) (*FrozenPlan, error) {
	if err := (shardrun.Shard{Count: shards}).Check(); err != nil {
		return nil, err
	}
	if p.env.spooled != "" {
		return nil, fmt.Errorf("source %q reads standard input (-), which a frozen plan cannot read again", p.env.spooled)
	}
	if shards > 1 {
		if err := p.checkShardable(); err != nil {
			return nil, err
		}
	}
	dir, err := filepath.Abs(p.Job.Dir)
	if err != nil {
		return nil, err
	}
	fp := &FrozenPlan{Format: planFormat, Created: time.Now().UTC(), JobFile: p.Job.File, JobDir: dir,
		Job: string(jobText), Set: set, Env: p.Job.Env(), Shards: shards}
	parts := p.allParts()
	fps, err := fingerprintParts(ctx, parts, nil)
	if err != nil {
		return nil, err
	}
	assign := p.assign(parts, shards, nil)
	fp.ShardBytes = make([]int64, shards)
	fp.ShardFiles = make([]int, shards)
	for i, pt := range parts {
		in := FrozenInput{Source: pt.Source, Path: absPath(pt.Path), Member: pt.Member, Size: pt.Size, Rows: pt.Rows, ZeroD: pt.zeroD,
			Fingerprint: fps[i].fp, ModTime: fps[i].mtime, Shard: assign[i], Captures: captureVars(pt)}
		for _, s := range p.sinks {
			if !p.sourcesOf(sinkName(s))[pt.Source] {
				continue // the input does not reach this sink
			}
			if pp, ok := s.(interface{ perPartFiles() bool }); ok && pp.perPartFiles() {
				if paths, err := s.plannedPaths([]*Part{pt}); err == nil && len(paths) == 1 {
					if in.Outputs == nil {
						in.Outputs = map[string]string{}
					}
					in.Outputs[sinkName(s)] = absPath(paths[0])
				}
			}
		}
		fp.Inputs = append(fp.Inputs, in)
		fp.ShardBytes[assign[i]] += pt.Size
		fp.ShardFiles[assign[i]]++
	}
	fp.Sources = p.frozenSources()
	for _, o := range p.Outputs {
		c := p.Job.Component(o.Sink)
		fo := FrozenOutput{Sink: o.Sink, Type: o.Type, Mode: sinkMode(c), Root: absPath(sinkRoot(c))}
		if ds, ok := p.sinkNodeOf(o.Sink).(*datasetSink); ok {
			fo.Dataset, fo.PartitionBy, fo.Files = true, ds.keyNames(), ds.filePattern()
		} else {
			for _, p := range o.Paths {
				fo.Paths = append(fo.Paths, absPath(p))
			}
		}
		fp.Sinks = append(fp.Sinks, fo)
	}
	fp.ID = p.runID(parts, fps, shards)
	fp.StateDir = absPath(p.stateDir(""))
	return fp, nil
}

// frozenSources records each source's layout for FrozenPlan.Sources, or
// returns nil when one cannot be written down exactly (then shards read
// every input's header, as plans without it make them do).
func (p *Plan) frozenSources() []FrozenSource {
	var out []FrozenSource
	for _, src := range p.srcs {
		s, ok := src.(*fileSource)
		if !ok || s.file == nil {
			return nil
		}
		dt, err := npyio.ParseDescr(s.file.DType.String())
		if err != nil || !dt.Native().Equal(s.file.DType) || s.mixed != nil {
			return nil
		}
		for _, pt := range s.parts {
			// A part with its own layout, an archive read as one table,
			// bytes not in native order or an array named otherwise
			// than its member or file are not written down: shards
			// then read the headers.
			if pt.schema != nil || pt.cols != nil || !pt.dtype.Equal(pt.dtype.Native()) || pt.Vars["array"] != plannedArray(pt.Path, pt.Member) {
				return nil
			}
		}
		out = append(out, FrozenSource{Name: s.c.Name, DType: s.file.DType.String(), RowShape: s.file.Shape,
			Columns: s.columns, Dropped: p.env.dropped[s.c.Name]})
	}
	return out
}

// planned returns source name's layout and inputs from the frozen plan,
// or nil when the run has no frozen plan or the plan does not carry the
// layout.
func (e *buildEnv) planned(name string) (*FrozenSource, []FrozenInput) {
	if e == nil || e.plan == nil {
		return nil, nil
	}
	for i := range e.plan.Sources {
		if e.plan.Sources[i].Name == name {
			return &e.plan.Sources[i], e.frozen[name]
		}
	}
	return nil, nil
}

// addPlanned adds a source's parts from its frozen plan without opening
// any file: each part's header is the planned layout with the planned
// rows. The files are checked when they are read: their fingerprints
// before the shard starts (shardrun), their layout when opened.
func (s *fileSource) addPlanned(fs *FrozenSource, ins []FrozenInput, env *buildEnv) error {
	dt, err := npyio.ParseDescr(fs.DType)
	if err != nil {
		return fmt.Errorf("the plan's source %s: dtype %q: %w", fs.Name, fs.DType, err)
	}
	dt = dt.Native()
	s.columns = fs.Columns
	if len(fs.Dropped) > 0 {
		if env.dropped == nil {
			env.dropped = map[string][]string{}
		}
		env.dropped[s.c.Name] = fs.Dropped
	}
	for _, in := range ins {
		h := &npyio.Header{DType: dt, Shape: append([]int{int(in.Rows)}, fs.RowShape...)}
		if in.ZeroD {
			h.Shape = []int{}
		}
		if err := s.addPart(match{Path: in.Path, Size: in.Size, Caps: in.Captures}, partHead{member: in.Member, header: h}, nil); err != nil {
			return err
		}
	}
	return nil
}

// plannedArray is the {array} of a planned part: its member, else its
// file's stem.
func plannedArray(path, member string) string {
	if member != "" {
		return member
	}
	base := filepath.Base(storage.Path(path))
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// WriteFile writes the plan as indented JSON, atomically; name may be a
// URL.
func (fp *FrozenPlan) WriteFile(ctx context.Context, name string) error {
	b, err := json.MarshalIndent(fp, "", "  ")
	if err != nil {
		return err
	}
	return shardrun.Files.WriteFileAtomic(ctx, name, append(b, '\n'))
}

// LoadFrozenPlan reads a plan written by FrozenPlan.WriteFile.
func LoadFrozenPlan(ctx context.Context, name string) (*FrozenPlan, error) {
	b, err := shardrun.Files.ReadFile(ctx, name)
	if err != nil {
		return nil, err
	}
	var fp FrozenPlan
	if err := json.Unmarshal(b, &fp); err != nil {
		return nil, fmt.Errorf("%s: not an npyflow plan: %v", storage.Redact(name), err)
	}
	if fp.Format != planFormat {
		return nil, fmt.Errorf("%s: not an npyflow plan (format %d, want %d)", storage.Redact(name), fp.Format, planFormat)
	}
	if fp.ID == "" || fp.Shards < 1 || fp.Job == "" {
		return nil, fmt.Errorf("%s: incomplete npyflow plan", storage.Redact(name))
	}
	for i, in := range fp.Inputs {
		if in.Shard < 0 || in.Shard >= fp.Shards {
			return nil, fmt.Errorf("%s: input %d (%s) has shard %d of %d", storage.Redact(name), i, in.Path, in.Shard, fp.Shards)
		}
	}
	return &fp, nil
}

// LoadJob validates the job the plan carries. Its ${VAR}s take the
// values the plan recorded (a variable unset when planning stays unset);
// a plan without them (from an earlier npyflow) expands them with
// opts.LookupEnv, or the environment.
func (fp *FrozenPlan) LoadJob(opts *job.LoadOptions) (*job.Job, error) {
	o := job.LoadOptions{Set: fp.Set, Dir: fp.JobDir}
	switch {
	case fp.Env != nil:
		o.LookupEnv = func(k string) (string, bool) { v, ok := fp.Env[k]; return v, ok }
	case opts != nil:
		o.LookupEnv = opts.LookupEnv
	}
	return job.Load(fp.JobFile, []byte(fp.Job), &o)
}

// Expected is what a commit of the plan's run must find (see
// [shardrun.CommitOptions]): its run ID, shard count and inputs.
func (fp *FrozenPlan) Expected() *shardrun.Expected {
	e := &shardrun.Expected{Run: fp.ID, Shards: fp.Shards}
	for _, in := range fp.Inputs {
		e.Inputs = append(e.Inputs, shardrun.ManifestInput{Source: in.Source, Path: in.Path, Member: in.Member})
	}
	return e
}

// partFP is a part's fingerprint and modification time.
type partFP struct {
	fp    string
	mtime time.Time
}

// fingerprintWorkers is how many files fingerprintParts reads at once
// (each costs a few round trips on an object store).
const fingerprintWorkers = 16

// fingerprintParts fingerprints the parts' files (each file once, several
// at a time); known gives fingerprints already taken (from a frozen
// plan), by path.
func fingerprintParts(ctx context.Context, parts []*Part, known map[string]partFP) ([]partFP, error) {
	var paths []string
	got := map[string]partFP{}
	for _, pt := range parts {
		if _, ok := known[pt.Path]; ok {
			continue
		}
		if _, ok := got[pt.Path]; !ok {
			got[pt.Path] = partFP{}
			paths = append(paths, pt.Path)
		}
	}
	fps := make([]partFP, len(paths))
	errs := make([]error, len(paths))
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	for w := 0; w < min(fingerprintWorkers, len(paths)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				k := i
				i++
				next.Unlock()
				if k >= len(paths) || ctx.Err() != nil {
					return
				}
				s, mt, err := shardrun.Fingerprint(ctx, paths[k])
				fps[k], errs[k] = partFP{fp: s, mtime: mt}, err
			}
		}()
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for k, p := range paths {
		got[p] = fps[k]
	}
	out := make([]partFP, len(parts))
	for i, pt := range parts {
		if f, ok := known[pt.Path]; ok {
			out[i] = f
		} else {
			out[i] = got[pt.Path]
		}
	}
	return out, nil
}

// firstError returns the first non-nil error, in input order.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// runID is the digest that names a run: the job's components and
// options, every input with its fingerprint, the outputs and the shard
// count. Shards that planned the same work agree on it; a shard that saw
// other files or another job gets another ID, and commit notices.
func (p *Plan) runID(parts []*Part, fps []partFP, shards int) string {
	h := sha256.New()
	fmt.Fprintf(h, "npyflow run v%d\nshards %d\n", planFormat, shards)
	for _, c := range p.Job.Components {
		fmt.Fprintf(h, "component %d %q %q\n", c.Kind, c.Name, c.Type)
		for _, k := range c.Given() {
			fmt.Fprintf(h, " %q=%q\n", k, c.Text(k))
		}
	}
	for i, pt := range parts {
		fmt.Fprintf(h, "input %q %q %q %d %d %s\n", pt.Source, absPath(pt.Path), pt.Member, pt.Size, pt.Rows, fps[i].fp)
	}
	for _, o := range p.Outputs {
		var paths []string
		for _, p := range o.Paths {
			paths = append(paths, absPath(p))
		}
		fmt.Fprintf(h, "output %q %q %s\n", o.Sink, o.Schema, strings.Join(paths, "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}

// captureVars returns a part's capture values (its template variables
// less the ones every part has).
func captureVars(pt *Part) map[string]string {
	var out map[string]string
	for k, v := range pt.Vars {
		switch k {
		case "source", "name", "dir", "stem", "member", "index":
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out
}

// absPath makes a path absolute (against the working directory), so
// that processes started in other directories agree on it. URLs are
// kept as they are.
func absPath(p string) string {
	if storage.Scheme(p) != "" {
		return p
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// expand lists a file source's inputs: the frozen plan's, if the run has
// one (without looking at the files: a shard checks only its own, when
// it starts), else the expansion of its patterns.
func (e *buildEnv) expand(c *job.Component) ([]match, []capture, error) {
	if e == nil || e.frozen == nil {
		return expandPaths(e.ctx, c)
	}
	var caps []capture
	if pats := fileSourceOf(c).Paths; len(pats) > 0 {
		pt, _, err := compilePattern(c.ResolvePath(pats[0]), true)
		if err != nil {
			return nil, nil, c.ItemErrorf("paths", 0, "invalid pattern: %v", err)
		}
		caps = pt.caps
	}
	var out []match
	seen := map[string]bool{}
	for _, in := range e.frozen[c.Name] {
		if seen[in.Path] {
			continue // npz members of one file
		}
		seen[in.Path] = true
		size := in.Size
		if in.Member != "" {
			size = 0 // the planned size is the member's
		}
		out = append(out, match{Path: in.Path, Size: size, Caps: in.Captures})
	}
	return out, caps, nil
}
