package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/pipeline/shard"
	"github.com/npyflow/npyflow/shardrun"
)

// The frozen plan's types and files are package shard's; these names
// stay for pipeline's callers.
type (
	// FrozenPlan is [shard.Plan].
	FrozenPlan = shard.Plan
	// FrozenSource is [shard.Source].
	FrozenSource = shard.Source
	// FrozenInput is [shard.Input].
	FrozenInput = shard.Input
	// FrozenOutput is [shard.Output].
	FrozenOutput = shard.Output
)

// LoadFrozenPlan reads a plan written by FrozenPlan.WriteFile
// ([shard.LoadPlan]).
func LoadFrozenPlan(ctx context.Context, name string) (*FrozenPlan, error) {
	return shard.LoadPlan(ctx, name)
}

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
		if err := p.checkShardable(shards); err != nil {
			return nil, err
		}
	}
	dir, err := filepath.Abs(p.Job.Dir)
	if err != nil {
		return nil, err
	}
	fp := &FrozenPlan{Format: shard.Format, Created: time.Now().UTC(), JobFile: p.Job.File, JobDir: dir,
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
		in := FrozenInput{Source: pt.Source, Path: shard.AbsPath(pt.Path), Member: pt.Member, Size: pt.Size, Rows: pt.Rows, ZeroD: pt.zeroD,
			Fingerprint: fps[i].Sum, ModTime: fps[i].ModTime, Shard: assign[i], Captures: captureVars(pt)}
		for _, s := range p.sinks {
			if !p.sourcesOf(sinkName(s))[pt.Source] {
				continue // the input does not reach this sink
			}
			if pp, ok := s.(interface{ perPartFiles() bool }); ok && pp.perPartFiles() {
				if paths, err := s.plannedPaths([]*Part{pt}); err == nil && len(paths) == 1 {
					if in.Outputs == nil {
						in.Outputs = map[string]string{}
					}
					in.Outputs[sinkName(s)] = shard.AbsPath(paths[0])
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
		fo := FrozenOutput{Sink: o.Sink, Type: o.Type, Mode: sinkMode(c), Root: shard.AbsPath(shard.SinkRoot(c))}
		if ds, ok := p.sinkNodeOf(o.Sink).(*datasetSink); ok {
			fo.Dataset, fo.PartitionBy, fo.Files = true, ds.keyNames(), ds.filePattern()
		} else {
			for _, p := range o.Paths {
				fo.Paths = append(fo.Paths, shard.AbsPath(p))
			}
		}
		fp.Sinks = append(fp.Sinks, fo)
	}
	fp.ID = p.runID(parts, fps, shards)
	fp.StateDir = shard.AbsPath(p.stateDir(""))
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

// fingerprintParts fingerprints the parts' files ([shard.Fingerprints]);
// known gives fingerprints already taken (from a frozen plan), by path.
func fingerprintParts(ctx context.Context, parts []*Part, known map[string]shard.Fingerprint) ([]shard.Fingerprint, error) {
	paths := make([]string, len(parts))
	for i, pt := range parts {
		paths[i] = pt.Path
	}
	return shard.Fingerprints(ctx, paths, known)
}

// runID is the digest that names a run ([shard.RunID]) of the parts
// with their fingerprints fps.
func (p *Plan) runID(parts []*Part, fps []shard.Fingerprint, shards int) string {
	ins := make([]shard.Input, len(parts))
	for i, pt := range parts {
		ins[i] = shard.Input{Source: pt.Source, Path: pt.Path, Member: pt.Member, Size: pt.Size, Rows: pt.Rows, Fingerprint: fps[i].Sum}
	}
	outs := make([]shard.RunOutput, len(p.Outputs))
	for i, o := range p.Outputs {
		outs[i] = shard.RunOutput{Sink: o.Sink, Schema: o.Schema.String(), Paths: o.Paths}
	}
	return shard.RunID(p.Job, ins, outs, shards)
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
