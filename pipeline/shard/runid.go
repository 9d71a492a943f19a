package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/npyflow/npyflow/pipeline/job"
)

// RunOutput is a sink's planned outputs as a run's identity counts them:
// the sink, the schema of its rows (as text) and its files.
type RunOutput struct {
	Sink   string
	Schema string
	Paths  []string
}

// RunID is the digest that names a run: the job's components and
// options, every input (its source, path, member, size, rows and
// fingerprint; other fields are not counted) with the outputs and the
// shard count. Shards that planned the same work agree on it; a shard
// that saw other files or another job gets another ID, and commit
// notices. Paths count made absolute ([AbsPath]).
func RunID(j *job.Job, inputs []Input, outputs []RunOutput, shards int) string {
	h := sha256.New()
	fmt.Fprintf(h, "npyflow run v%d\nshards %d\n", Format, shards)
	for _, c := range j.Components {
		fmt.Fprintf(h, "component %d %q %q\n", c.Kind, c.Name, c.Type)
		for _, k := range c.Given() {
			fmt.Fprintf(h, " %q=%q\n", k, c.Text(k))
		}
	}
	for _, in := range inputs {
		fmt.Fprintf(h, "input %q %q %q %d %d %s\n", in.Source, AbsPath(in.Path), in.Member, in.Size, in.Rows, in.Fingerprint)
	}
	for _, o := range outputs {
		var paths []string
		for _, p := range o.Paths {
			paths = append(paths, AbsPath(p))
		}
		fmt.Fprintf(h, "output %q %q %s\n", o.Sink, o.Schema, strings.Join(paths, "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}
