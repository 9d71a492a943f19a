// Package pipeline converts files between npyflow's formats and runs
// npyflow jobs: YAML files naming sources, transforms and sinks.
//
// # Layout
//
// formats.go is the format registry: each [Format] (npy, npz, parquet,
// arrow, hdf5, mat) has one job source and one job sink spec in the component
// registry (registry.go), and their options are declared once, as
// [Field]s; a Field's Flag is its name on the command line. [Convert]
// converts one file (what `npyflow convert` runs; [ConvertFlags] and
// [ConvertOptions.Set] give the CLI its flags), [Inspect] reads what a
// file holds. Every input is opened and every converted output created
// through internal/storage, the file-access seam; job outputs are staged
// by the outputs type (sink.go). Sharded runs are driven by package
// shardrun (staging, checkpoints, resume, manifests, commit); commit.go
// only decides what a run is (its inputs and their shards, the run ID,
// the sinks' roots) and hands the sinks' finished files to a
// shardrun.Run (publishing is [shardrun.CommitRun]).
// A new format is added as one Format entry, a source spec and a sink
// spec.
//
// Parquet and Arrow files other tools wrote are read by one mapping
// (parquetio's Reader, arrowconv's MapSchema) everywhere: convert, the
// parquet and arrow sources and inspect. Its options (fill values,
// validity fields, the decimal mode, the columns read) are declared once
// (foreignReadFields in formats.go, foreign.go) as source options and
// convert flags. String widths come from each file's data; the files of
// one source that differ only in those widths are read at the widest
// (widen.go).
//
// HDF5 files and MAT-files (container.go) read like .npz archives: each
// dataset (named by its path, "group/data") or MAT-file array (named by
// its MATLAB path, "s.a", "c{3}") is a member, read as an .npy stream
// through packages hdf5 and matfile. HDF5 datasets stream in batches of
// about 4 MiB (hdf5.ElementReader: a huge single row in parts); MAT-file
// arrays of two or more dimensions are column-major and are read in C
// order through matfile's Var.OpenRowMajor: a v7.3 array in bands of
// rows, each an HDF5 hyperslab (bounded memory), a Level 5 numeric one in
// bands too (a large compressed one through a temporary file). Convert
// --fortran-order writes them to .npy/.npz as stored instead, as
// Fortran-order arrays: nothing is reordered.
// Conversions move at most about 4 MiB of rows at a time; a larger row
// (a 1 x N MATLAB row vector is one row) goes to .npy and .npz in parts
// of that size, and is read whole for the other outputs. Values
// without a numpy form are skipped with a warning ([WarnFunc], [ConvertOptions].Warn) or
// refused (a dataset picked by name; a MAT-file with strict). The mat and
// hdf5 sinks (containersink.go) write one variable or dataset per part,
// spooled to a scratch file until its row count is known; to .mat a
// table (a structured array) is a 1x1 struct of column vectors.
//
// A job is loaded and validated by [LoadFile] against one registry of
// component specs ([Specs]), which also generates the JSON schema
// ([JSONSchema]) and the CLI's component list, so the three never
// disagree. Validation reports every problem at once, each as
// "file:line:col: path: message" ([ErrorList]), with "did you mean"
// suggestions for misspelt keys, types and names. ${VAR},
// ${VAR:-default} and ${VAR:?message} are expanded inside scalar values
// after parsing, so positions stay exact and a variable cannot change the
// document's structure; [LoadOptions.Set] applies --set overrides.
//
// [NewPlan] expands the sources' path patterns (with **, exclusions and
// captures such as runs/{run_id}/frame_{step:int}.npy that become
// columns), reads only the headers, builds every component against its
// input schema and computes each output's schema, row count and paths,
// writing nothing. [Plan.Run] executes it.
//
// Paths may be URLs served by internal/storage (s3://, gs://, azblob://
// with package objstore linked in; https:// for reading, without
// patterns: HTTP has no listing). A parquet or arrow source whose
// consumers are select and drop transforms (directly or through filter
// and cast) reads and maps only the columns they keep, so a column numpy
// has no type for can be dropped. Sinks bound for
// an object store stream their uploads part by part and complete them at
// the run's commit (a sharded run: to its staging objects, as each file
// is finished); .mat and .h5 outputs and .npy outputs whose row count
// the plan does not know (after filter, slice, limit or sample) spool to
// a local temporary file first.
//
// # Data model
//
// Rows flow between components in batches of native-order, C-order bytes
// described by a [Schema]: a numpy dtype plus the row shape (the array's
// shape after axis 0). Records (structured dtypes) are tables; field
// offsets let rename, flatten and unstack work without copying (unstack
// with index or row_number copies, to add its columns). Each
// input file (or npz member) is a [Part]: parts are read concurrently by
// RunOptions.Workers goroutines but reach transforms and sinks strictly
// in plan order, so output does not depend on the number of workers.
// Memory is bounded by the batch size times the number of workers.
//
// # Outputs
//
// Every output file is written to a temporary file beside its final name
// and renamed into place only when the whole run succeeds; a failed or
// cancelled run removes its temporary files and leaves no partial output.
//
// # Sharded runs
//
// [Plan.Freeze] snapshots the inputs (with fingerprints) and spreads them
// over shards by bytes ([shardrun.AssignShards]); with RunOptions.Shard a run reads
// only its shard's inputs ([shardrun.ShardFromEnv] finds the shard of a Kubernetes,
// Slurm, AWS Batch or Cloud Run task). Parquet sinks with partition_by or
// dataset: true write Hive-style datasets of part-<shard>-<seq>.parquet
// files. Sharded runs stage their files, record them in per-shard
// manifests at checkpoints, resume after a kill and are published by
// [shardrun.CommitRun], which writes _SUCCESS; see docs/scale.md.
//
// # Limits
//
// All files of one source must share a dtype and row shape. Rows from
// several inputs of one component are concatenated in plan order (sources
// in file order, then their parts in path order); the same source may
// not reach a component through two inputs. describe holds per-column
// moments (and every value, or a sample, for exact quantiles); pca holds
// the float64 values of the rows it fits (every row, at most 2 GiB, or
// sample_rows of them). pca with output: scores projects every row after
// the fit, so it holds every row until the end: in memory with the fit on
// every row, spilled to a temporary file ($TMPDIR) with a sampled fit.
// A 0-d input is one row; the npy and npz sinks write it back 0-d when
// a file (npy) or member (npz) gets that one input through select, drop,
// rename, cast or flatten. A Plan runs once and is not safe for concurrent use.
package pipeline
