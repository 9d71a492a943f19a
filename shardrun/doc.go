// Package shardrun runs npyflow's sharded runs, apart from the job they
// run: which shard a process is (Shard, ParseShard, and ShardFromEnv for
// Kubernetes, Slurm, AWS Batch and Cloud Run: the task index less an
// index base, of the plan's count, never the scheduler's array size), how
// inputs are spread over shards (AssignShards), how an input is
// recognized on resume (Fingerprint), the per-shard driver (Run: Start,
// Skip, Stage, Done, Checkpoint, Finish), the manifests it writes
// (Manifest), and publishing a finished run (CommitRun, FindRun).
//
// The pipeline talks to a Run through a narrow interface: "is this input
// done already" (Skip), "write this output" (Stage, a file that becomes
// the output only when the run is committed), "this input is done"
// (Done, which says when a checkpoint is due), "checkpoint these
// finished outputs" (Checkpoint) and "this shard is finished" (Finish,
// which commits the run if it is the last shard).
//
// Every name (state directory, manifests, outputs, inputs to
// fingerprint) goes through internal/storage, so it may be a local path
// or the URL of any registered backend (s3://bucket/prefix). Backends
// that rename (the local filesystem) get staged files beside their final
// names, renamed at commit; backends without rename (object stores) get
// them under the run's staging prefix, copied at commit, server-side
// where the backend can; see run.go for the protocol and docs/scale.md
// for what readers see.
//
// Every call that does I/O takes a context, down to the object-store
// calls: cancelling it (Ctrl-C, a scheduler's SIGTERM) stops a shard,
// which keeps its last checkpoint (Run.Interrupted says what), or a
// commit, which leaves the run uncommitted and can be run again. A
// shard's own inputs that are missing or changed since planning fail
// that shard alone, as an InputError.
//
// Limits: at most MaxShards shards; a fingerprint hashes a file's size,
// mtime (an object's last-modified time) and its first and last 64 KiB,
// so a same-size, same-mtime change in the middle of a large file is not
// seen. Outputs bound for an object store stream to their staging
// objects, except outputs whose writers seek back anywhere (MAT, HDF5),
// which are spooled to the local temporary directory and uploaded when
// finished. On a backend without exclusive create, two shards finishing
// at the same moment may both commit; the commit is idempotent (same
// copies, same markers), so the result is the same.
//
// Where things live: shard.go which shard a process is and how inputs
// are assigned, run.go the per-shard driver and its staging, manifest.go
// the manifests, commit.go CommitRun and FindRun, names.go paths and URLs
// alike, store.go the state store, errors.go the error types.
package shardrun
