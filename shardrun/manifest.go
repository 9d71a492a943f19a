package shardrun

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Format is the version of the frozen plan and manifest files.
const Format = 1

// Manifest is what one shard committed: the inputs it has finished (with
// their fingerprints) and the files holding their rows. A shard rewrites
// its manifest atomically at every checkpoint; Complete is set when the
// shard has finished all its inputs.
type Manifest struct {
	Format      int              `json:"npyflow_manifest"`
	Run         string           `json:"run"`
	Shard       int              `json:"shard"`
	Shards      int              `json:"shards"`
	Complete    bool             `json:"complete"`
	Assigned    int              `json:"assigned_inputs"`
	AssignedSum string           `json:"assigned_digest"` // digest of the shard's assigned inputs, in order
	Checkpoints int              `json:"checkpoints"`
	NextSeq     int              `json:"next_seq"`
	Updated     time.Time        `json:"updated"`
	Sinks       []ManifestSink   `json:"sinks"`
	Inputs      []ManifestInput  `json:"inputs"`
	Outputs     []ManifestOutput `json:"outputs"`
}

// ManifestSink is a sink of the run, so that commit needs nothing else.
type ManifestSink struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Mode    string `json:"mode"`
	Root    string `json:"root"`
	Dataset bool   `json:"dataset,omitempty"`
}

// ManifestInput is one committed input.
type ManifestInput struct {
	Source      string `json:"source"`
	Path        string `json:"path"`
	Member      string `json:"member,omitempty"`
	Fingerprint string `json:"fingerprint"`
	Rows        int64  `json:"rows"`
}

// Key identifies the input within a run.
func (m ManifestInput) Key() string { return m.Source + "\x00" + m.Path + "\x00" + m.Member }

// ManifestOutput is one committed output file: staged until the run is
// committed, hidden beside its final name on a filesystem, under the
// run's staging prefix on an object store (see Run.Stage).
type ManifestOutput struct {
	Sink   string `json:"sink"`
	Path   string `json:"path"`
	Staged string `json:"staged"`
	Rows   int64  `json:"rows"`
	Bytes  int64  `json:"bytes"`
	// Last orders publishing: the commit publishes every output of a
	// lower Last before any of a higher one (a Zarr store's chunks, then
	// its arrays' metadata, then its group's), so readers never see
	// metadata before the data it describes.
	Last int `json:"last,omitempty"`
}

// ManifestName is shard i's manifest in a run directory.
func ManifestName(runDir string, i int) string {
	return Join(runDir, fmt.Sprintf("shard-%05d.json", i))
}

// ReadManifest reads a shard's manifest.
func ReadManifest(ctx context.Context, name string) (*Manifest, error) {
	b, err := Files.ReadFile(ctx, name)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: corrupt manifest: %v", show(name), err)
	}
	if m.Format != Format {
		return nil, fmt.Errorf("%s: not an npyflow manifest", show(name))
	}
	return &m, nil
}

// Write stamps the manifest's Updated time and writes it atomically
// (see Store.WriteFileAtomic).
func (m *Manifest) Write(ctx context.Context, name string) error {
	m.Updated = time.Now().UTC()
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	return Files.WriteFileAtomic(ctx, name, append(b, '\n'))
}
