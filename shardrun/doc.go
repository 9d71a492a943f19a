// Package shardrun holds the parts of npyflow's sharded runs that do not
// depend on a job: which shard a process is (Shard, ParseShard, and
// ShardFromEnv for Kubernetes, Slurm, AWS Batch and Cloud Run), how
// inputs are spread over shards (AssignShards), how an input is
// recognized on resume (Fingerprint), the per-shard manifest files
// (Manifest, ReadManifest, Manifest.Write) and the Store the run's state
// is written through (Local: the filesystem, atomic renames, fsync).
//
// The run driver (staging outputs, checkpoints, resume, CommitRun and
// FindRun) is still in package pipeline (commit.go), which uses these
// through aliases; moving it here behind a "stage these outputs / this
// part is done / commit" interface is the next step, after which an
// object-store Store can serve a whole run.
//
// Limits: at most MaxShards shards; a fingerprint hashes a file's size,
// mtime and its first and last 64 KiB, so a same-size, same-mtime change
// in the middle of a large file is not seen.
package shardrun
