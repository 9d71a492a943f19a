package shard

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/shardrun"
)

// statelessTransforms are the transforms whose output rows depend only on
// their input rows: a job made only of these can be sharded and resumed
// at any input boundary.
var statelessTransforms = map[string]bool{
	"select": true, "drop": true, "rename": true, "cast": true,
	"flatten": true, "filter": true, "unstack": true,
}

// Shardable reports why the job cannot be split across shards or
// checkpointed between inputs, or "" when it can.
func Shardable(j *job.Job) string {
	for _, c := range j.Of(job.Transform) {
		if !statelessTransforms[c.Type] {
			return fmt.Sprintf("%s is a %s transform, whose result depends on every row in order", c.Path(), c.Type)
		}
	}
	return ""
}

// SinkOptions is what a sharded run reads of a file sink's options: the
// options struct of every sink npyflow registers implements it.
type SinkOptions interface {
	// OutPath is the sink's path option, as written in the job.
	OutPath() string
	// WritesDataset reports whether the sink writes a dataset directory
	// (a parquet sink with partition_by or dataset: true).
	WritesDataset() bool
}

// outputOf returns the options of sink c as SinkOptions, or nil for a
// component whose options are not a file sink's.
func outputOf(c *job.Component) SinkOptions {
	o, _ := c.Opts().(SinkOptions)
	return o
}

// IsDataset reports whether a sink writes a dataset directory (a parquet
// sink with partition_by or dataset: true).
func IsDataset(c *job.Component) bool {
	o := outputOf(c)
	return o != nil && o.WritesDataset()
}

// urlQueryRE finds where a URL's query (?endpoint=..., ?region=...)
// starts, as package pipeline's patterns find it.
var urlQueryRE = regexp.MustCompile(`\?[A-Za-z_][A-Za-z0-9_]*=`)

// SinkRoot is the directory a sink writes under: a dataset's directory,
// or the directory before the first placeholder of a file path.
func SinkRoot(c *job.Component) string {
	o := outputOf(c)
	if o == nil {
		return ""
	}
	path := o.OutPath()
	if storage.Scheme(path) != "" {
		// A URL: the dataset's prefix, or the one before the first
		// placeholder of a file name.
		if i := strings.IndexByte(path, '{'); i >= 0 && !IsDataset(c) {
			// Keep the URL's query (endpoint, region), which follows
			// the placeholders.
			query := ""
			if loc := urlQueryRE.FindStringIndex(path[i:]); loc != nil {
				query = path[i+loc[0]:]
			}
			return strings.TrimSuffix(shardrun.Dir(path[:i]+"x"), "/") + query
		}
		if IsDataset(c) {
			return strings.TrimSuffix(path, "/")
		}
		return shardrun.Dir(path)
	}
	if IsDataset(c) {
		return filepath.Clean(c.ResolvePath(path))
	}
	if i := strings.IndexByte(path, '{'); i >= 0 {
		path = path[:i]
		if strings.HasSuffix(path, "/") || path == "" {
			return filepath.Clean(c.ResolvePath(path + "."))
		}
	}
	return filepath.Dir(c.ResolvePath(path))
}

// DefaultStateDir is where a job's runs keep their manifests unless told
// otherwise: _npyflow in the root of its first sink.
func DefaultStateDir(j *job.Job) string {
	sinks := j.Of(job.Sink)
	if len(sinks) == 0 {
		return "_npyflow"
	}
	return shardrun.Join(SinkRoot(sinks[0]), "_npyflow")
}

// AbsPath makes a path absolute (against the working directory), so
// that processes started in other directories agree on it. URLs are
// kept as they are.
func AbsPath(p string) string {
	if storage.Scheme(p) != "" {
		return p
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
