// Package shard is the vocabulary of a job's sharded runs that needs no
// engine: the frozen plan every shard reads ([Plan], written by `npyflow
// plan`), the input fingerprints a run's identity is made of
// ([Fingerprints], [RunID]), where a sink writes and a run keeps its manifests
// ([SinkRoot], [DefaultStateDir]), and which jobs can be split across
// shards ([Shardable]).
//
// Package shardrun below it runs one shard's attempt and commits a run;
// package pipeline above it decides a run's inputs and outputs from a
// built plan (Plan.Freeze, and the glue that stages a sink's files
// through a shardrun.Run). This package knows jobs (package job) and
// storage names, not formats, nodes or parts: what needs the engine's
// types stays in pipeline.
package shard
