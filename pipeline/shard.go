package pipeline

import (
	"fmt"

	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/shardrun"
)

// The shard identity, scheduler environment, assignment and input
// fingerprints live in package shardrun; these names keep pipeline's API.

// Shard is one unit of a sharded run (see [shardrun.Shard]).
type Shard = shardrun.Shard

// MaxShards is the largest shard count.
const MaxShards = shardrun.MaxShards

// ParseShard parses "i/n" or a bare "i" (see [shardrun.ParseShard]).
func ParseShard(s string, count int) (Shard, error) { return shardrun.ParseShard(s, count) }

// ShardFromEnv reads the shard from a scheduler's environment (see
// [shardrun.ShardFromEnv]).
func ShardFromEnv(lookup func(string) (string, bool), count int) (Shard, string, bool, error) {
	return shardrun.ShardFromEnv(lookup, count)
}

// AssignShards spreads items over n shards by size (see
// [shardrun.AssignShards]).
func AssignShards(sizes []int64, n int) []int { return shardrun.AssignShards(sizes, n) }

// shardEnv lists the schedulers' shard variables.
var shardEnv = func() (out []struct{ scheduler, index, count string }) {
	for _, e := range shardrun.EnvVars() {
		out = append(out, struct{ scheduler, index, count string }{e.Scheduler, e.Index, e.Count})
	}
	return out
}()

// Fingerprint identifies a file's contents cheaply (see
// [shardrun.Fingerprint]).
func Fingerprint(path string) (string, error) { return shardrun.Fingerprint(path) }

// statelessTransforms are the transforms whose output rows depend only on
// their input rows: a job made only of these can be sharded and resumed
// at any input boundary.
var statelessTransforms = map[string]bool{
	"select": true, "drop": true, "rename": true, "cast": true,
	"flatten": true, "filter": true, "unstack": true,
}

// shardable reports why the job cannot be split across shards or
// checkpointed between inputs, or "" when it can.
func (p *Plan) shardable() string {
	for _, c := range p.Job.Of(job.Transform) {
		if !statelessTransforms[c.Type] {
			return fmt.Sprintf("%s is a %s transform, whose result depends on every row in order", c.Path(), c.Type)
		}
	}
	return ""
}
