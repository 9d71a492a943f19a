package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/shardrun"
)

// FrozenPlan is a snapshot of a sharded job's work, written by `npyflow
// plan --out plan.json` and read by every shard, so that all shards
// agree on the inputs even if files arrive or change later: the job file
// itself, each input with its size, fingerprint and shard, and the
// outputs.
type FrozenPlan struct {
	Format  int       `json:"npyflow_plan"`
	ID      string    `json:"id"` // the run ID: a digest of the job, the inputs and the shard count
	Created time.Time `json:"created"`
	// JobFile and JobDir name the job file and the directory its relative
	// paths resolve against (absolute); Job is its text and Set its --set
	// overrides. ${VAR} references are expanded again by each shard.
	JobFile    string         `json:"job_file"`
	JobDir     string         `json:"job_dir"`
	Job        string         `json:"job"`
	Set        []string       `json:"set,omitempty"`
	Shards     int            `json:"shards"`
	StateDir   string         `json:"state_dir"`
	ShardBytes []int64        `json:"shard_bytes"`
	ShardFiles []int          `json:"shard_inputs"`
	Inputs     []FrozenInput  `json:"inputs"`
	Sinks      []FrozenOutput `json:"sinks"`
}

// FrozenInput is one input part of a frozen plan.
type FrozenInput struct {
	Source      string            `json:"source"`
	Path        string            `json:"path"`
	Member      string            `json:"member,omitempty"`
	Size        int64             `json:"size"`
	ModTime     time.Time         `json:"mtime"`
	Rows        int64             `json:"rows"`
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
// input and assigns inputs to shards by bytes. jobText is the job file's
// contents and set its --set overrides, which the snapshot carries so
// shards need only the plan file.
func (p *Plan) Freeze(ctx context.Context, shards int, jobText []byte, set []string) (*FrozenPlan, error) {
	if err := (Shard{Count: shards}).Check(); err != nil {
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
		Job: string(jobText), Set: set, Shards: shards}
	parts := p.allParts()
	fps, err := fingerprintParts(parts, nil)
	if err != nil {
		return nil, err
	}
	assign := p.assign(parts, shards, nil)
	fp.ShardBytes = make([]int64, shards)
	fp.ShardFiles = make([]int, shards)
	for i, pt := range parts {
		in := FrozenInput{Source: pt.Source, Path: absPath(pt.Path), Member: pt.Member, Size: pt.Size, Rows: pt.Rows,
			Fingerprint: fps[i].fp, ModTime: fps[i].mtime, Shard: assign[i], Captures: captureVars(pt)}
		for _, s := range p.sinks {
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
	for _, o := range p.Outputs {
		c := p.Job.Component(o.Sink)
		fo := FrozenOutput{Sink: o.Sink, Type: o.Type, Mode: c.String("mode"), Root: absPath(sinkRoot(c))}
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

// WriteFile writes the plan as indented JSON, atomically.
func (fp *FrozenPlan) WriteFile(name string) error {
	b, err := json.MarshalIndent(fp, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(name, append(b, '\n'))
}

// LoadFrozenPlan reads a plan written by FrozenPlan.WriteFile.
func LoadFrozenPlan(name string) (*FrozenPlan, error) {
	b, err := shardrun.Files.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var fp FrozenPlan
	if err := json.Unmarshal(b, &fp); err != nil {
		return nil, fmt.Errorf("%s: not an npyflow plan: %v", name, err)
	}
	if fp.Format != planFormat {
		return nil, fmt.Errorf("%s: not an npyflow plan (format %d, want %d)", name, fp.Format, planFormat)
	}
	if fp.ID == "" || fp.Shards < 1 || fp.Job == "" {
		return nil, fmt.Errorf("%s: incomplete npyflow plan", name)
	}
	for i, in := range fp.Inputs {
		if in.Shard < 0 || in.Shard >= fp.Shards {
			return nil, fmt.Errorf("%s: input %d (%s) has shard %d of %d", name, i, in.Path, in.Shard, fp.Shards)
		}
	}
	return &fp, nil
}

// LoadJob validates the job the plan carries; opts may set LookupEnv.
func (fp *FrozenPlan) LoadJob(opts *job.LoadOptions) (*job.Job, error) {
	o := job.LoadOptions{Set: fp.Set, Dir: fp.JobDir}
	if opts != nil {
		o.LookupEnv = opts.LookupEnv
	}
	return job.Load(fp.JobFile, []byte(fp.Job), &o)
}

// Manifest is what one shard committed (see [shardrun.Manifest]).
type Manifest = shardrun.Manifest

// ManifestSink is a sink of the run.
type ManifestSink = shardrun.ManifestSink

// ManifestInput is one committed input.
type ManifestInput = shardrun.ManifestInput

// ManifestOutput is one committed output file.
type ManifestOutput = shardrun.ManifestOutput

func manifestName(runDir string, i int) string    { return shardrun.ManifestName(runDir, i) }
func readManifest(name string) (*Manifest, error) { return shardrun.ReadManifest(name) }
func writeFileAtomic(name string, data []byte) error {
	return shardrun.Files.WriteFileAtomic(name, data)
}
func syncDir(dir string) { shardrun.SyncDir(dir) }

// partFP is a part's fingerprint and modification time.
type partFP struct {
	fp    string
	mtime time.Time
}

// fingerprintParts fingerprints the parts' files (each file once); known
// gives fingerprints already taken (from a frozen plan), by path.
func fingerprintParts(parts []*Part, known map[string]partFP) ([]partFP, error) {
	out := make([]partFP, len(parts))
	seen := map[string]partFP{}
	for i, pt := range parts {
		if f, ok := known[pt.Path]; ok {
			out[i] = f
			continue
		}
		if f, ok := seen[pt.Path]; ok {
			out[i] = f
			continue
		}
		st, err := os.Stat(pt.Path)
		if err != nil {
			return nil, err
		}
		s, err := Fingerprint(pt.Path)
		if err != nil {
			return nil, err
		}
		f := partFP{fp: s, mtime: st.ModTime().UTC()}
		seen[pt.Path] = f
		out[i] = f
	}
	return out, nil
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

// digestInputs is the digest of a list of inputs, for the manifests'
// assigned_digest.
func digestInputs(in []ManifestInput) string { return shardrun.DigestInputs(in) }

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
// one, else the expansion of its patterns.
func (e *buildEnv) expand(c *job.Component) ([]match, []capture, error) {
	if e == nil || e.frozen == nil {
		return expandPaths(e.ctx, c)
	}
	var caps []capture
	if pats := c.Strings("paths"); len(pats) > 0 {
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
		st, err := os.Stat(in.Path)
		if err != nil {
			return nil, nil, &dataError{pos: c.PosOf("paths"), path: c.Path() + ".paths", err: fmt.Errorf("planned input %w", err)}
		}
		out = append(out, match{Path: in.Path, Size: st.Size(), Caps: in.Captures})
	}
	return out, caps, nil
}
