// Package shardrun holds the parts of npyflow's sharded runs that do not
// depend on a job: which shard a process is (Shard, ParseShard, and
// ShardFromEnv for Kubernetes, Slurm, AWS Batch and Cloud Run), how
// inputs are spread over shards (AssignShards), how an input is
// recognized on resume (Fingerprint), the per-shard manifest files
// (Manifest, ReadManifest, Manifest.Write), the Store the run's state
// is written through (Local: the filesystem, atomic renames, fsync), and
// publishing a finished run: CommitRun verifies every shard's manifest
// and renames the staged files into place, FindRun finds a run's state.
//
// The per-shard driver (staging outputs at checkpoints, resume) is still
// in package pipeline (commit.go), behind the narrow publisher interface
// Plan.Run uses (includes / partDone / commit); pipeline keeps aliases
// and wrappers for the names that moved. CommitRun and the staging still
// use the os package for outputs; an object-store backend needs them on
// a Store (or internal/storage) too.
//
// Limits: at most MaxShards shards; a fingerprint hashes a file's size,
// mtime and its first and last 64 KiB, so a same-size, same-mtime change
// in the middle of a large file is not seen.
package shardrun
