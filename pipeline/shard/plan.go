package shard

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/shardrun"
)

// Format is the version of the plan and manifest files.
const Format = shardrun.Format

// Plan is a snapshot of a sharded job's work, written by `npyflow
// plan --out plan.json` and read by every shard, so that all shards
// agree on the inputs even if files arrive or change later: the job file
// itself with the values of its ${VAR}s, each input with its size,
// rows, fingerprint and shard, each source's layout, and the outputs. A
// shard running it reads no input but its own.
type Plan struct {
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
	Sources    []Source          `json:"sources,omitempty"`
	Inputs     []Input           `json:"inputs"`
	Sinks      []Output          `json:"sinks"`
}

// Source is the layout of one source's rows in its files, as planned:
// the numpy dtype (descr) and row shape every input is read as (string
// widths the widest of all inputs), and the Parquet or Arrow columns
// read. With it and the inputs' rows, a shard builds the plan without
// opening any input; it checks its own inputs when it reads them.
type Source struct {
	Name     string   `json:"name"`
	DType    string   `json:"dtype"`
	RowShape []int    `json:"row_shape,omitempty"`
	Columns  []string `json:"columns,omitempty"`
	Dropped  []string `json:"dropped,omitempty"` // fields a projection left out
}

// Input is one input part of a frozen plan.
type Input struct {
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

// Output is one sink of a frozen plan. Dataset sinks list their root and
// the names their files take; other sinks their files.
type Output struct {
	Sink        string   `json:"sink"`
	Type        string   `json:"type"`
	Mode        string   `json:"mode"`
	Root        string   `json:"root"`
	Dataset     bool     `json:"dataset,omitempty"`
	PartitionBy []string `json:"partition_by,omitempty"`
	Files       string   `json:"files,omitempty"` // the dataset's file names, like k=v/part-<shard>-<seq>.parquet
	Paths       []string `json:"paths,omitempty"`
}

// WriteFile writes the plan as indented JSON, atomically; name may be a
// URL.
func (fp *Plan) WriteFile(ctx context.Context, name string) error {
	b, err := json.MarshalIndent(fp, "", "  ")
	if err != nil {
		return err
	}
	return shardrun.Files.WriteFileAtomic(ctx, name, append(b, '\n'))
}

// LoadPlan reads a plan written by [Plan.WriteFile]; name may be a URL.
func LoadPlan(ctx context.Context, name string) (*Plan, error) {
	b, err := shardrun.Files.ReadFile(ctx, name)
	if err != nil {
		return nil, err
	}
	var fp Plan
	if err := json.Unmarshal(b, &fp); err != nil {
		return nil, fmt.Errorf("%s: not an npyflow plan: %v", storage.Redact(name), err)
	}
	if fp.Format != Format {
		return nil, fmt.Errorf("%s: not an npyflow plan (format %d, want %d)", storage.Redact(name), fp.Format, Format)
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
func (fp *Plan) LoadJob(opts *job.LoadOptions) (*job.Job, error) {
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
func (fp *Plan) Expected() *shardrun.Expected {
	e := &shardrun.Expected{Run: fp.ID, Shards: fp.Shards}
	for _, in := range fp.Inputs {
		e.Inputs = append(e.Inputs, shardrun.ManifestInput{Source: in.Source, Path: in.Path, Member: in.Member})
	}
	return e
}
