package pipeline

import (
	"fmt"

	"github.com/npyflow/npyflow/pipeline/job"
)

// The shard identity, scheduler environment, assignment and input
// fingerprints live in package shardrun; this file says which jobs can
// be sharded.

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
