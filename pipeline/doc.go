// Package pipeline is npyflow's engine: it plans and runs jobs (sources
// feeding transforms and sinks, see package job) and converts one file to
// another, which is a job of one source and one sink ([Convert]).
//
// # Where things live
//
// Formats. Each file format is one registered [Format] value in its own
// file (format_npz.go, format_parquet.go, format_arrow.go, format_hdf5.go,
// format_mat.go, format_zarr.go; the .npy format is a package on the
// contract, pipeline/format/npyformat; registry.go lists them in order): its
// names, extensions and magic bytes, its job source and sink with their
// options declared once, as a tagged struct each (options.go; a field's
// flag tag is its name on convert's command line, and a builder reads
// its struct with job.Options), and its inspection (package inspect). format.go holds
// the registry ([RegisterFormat], [FormatOf], the one magic-byte sniffer)
// and the flags generated from it ([ConvertFlags]). Nothing else names a
// format. A format outside the engine implements the contract of package
// format (pipeline/format: a capabilities value, source, sink and
// inspector interfaces, the common options) and registers there;
// format_contract.go adapts each to a Format, after the built-in ones.
// The toy format of the tests (internal/toyformat) is one: it converts,
// runs, inspects, shards and is listed like the others.
//
// The engine. plan.go makes a [Plan] of a job: it expands the sources'
// path patterns (glob.go, with captures that become columns), reads the
// headers, builds every component against its input schema and computes
// each output's schema, rows and paths, writing nothing; run.go runs it
// ([Plan.Run]). A format's source is the file source (source.go) over the
// format's fileReader; table.go reads an archive's arrays as one table's
// columns (the table option of the npz, hdf5 and mat sources);
// pushdown.go reads only the Parquet and Arrow columns a job needs;
// widen.go reads the files of one source at their widest strings. Sinks
// (sink.go: outputs, path templates, the file sink; members.go: the
// archive sinks, npz, mat and hdf5) write through internal/storage.
// Transforms are transform.go, cast.go, filter.go (the language is
// package expr), analyze.go and pcascores.go (describe, pca), and
// partition.go writes Hive-partitioned Parquet datasets. commit.go and
// manifest.go run sharded jobs on package shardrun, with package shard's
// frozen plan, run IDs, fingerprints and sink roots.
//
// Fast paths (copy.go) are optional interfaces the engine checks first,
// as io.Copy checks WriterTo and ReaderFrom: a sink fed by a source
// directly writes a part's output from the part itself when it can (an
// Arrow IPC column copied to .npy as stored, by the kernel; a MAT-file
// matrix kept in Fortran order; Parquet written in one pass from npyio
// readers), and no rows of that part are read. A fast path is taken only
// where its bytes are those the rows would give (TestConvertMatchesJob
// and TestConvertMatchesJobFixtures compare them): a Parquet file with
// time columns written from rows spools them and plans the columns from
// all of them, as a copy does.
//
// Convert (convert.go) turns its options into the source's and sink's
// options and runs that job: convert and a job of the same two
// components give the same bytes, for every pair of formats.
// [Inspect] (inspection.go) recognizes a file's format by its first bytes
// and calls the format's inspection.
//
// # Data model
//
// Rows flow between components in batches of native-order, C-order bytes
// described by a [Schema]: a numpy dtype plus the row shape (the array's
// shape after axis 0). Records (structured dtypes) are tables. Each input
// file or archive member is a [Part]: parts are read concurrently by
// RunOptions.Workers goroutines but reach transforms and sinks strictly
// in plan order, so output does not depend on the number of workers.
// Memory is bounded by the batch size times the number of workers. A sink
// fed by a source directly, or through row selections only (slice,
// limit, sample, filter), writes each part in its stored byte order, 0-d
// arrays 0-d, as a conversion keeps them: the plan decides it once, and a
// copy of the part and its rows write the same bytes.
//
// # Outputs
//
// Every output is written to a temporary file beside its final name (an
// upload, for a URL) and published only when the whole run succeeds; a
// failed or cancelled run leaves no partial output.
//
// # Sharded runs
//
// [Plan.Freeze] snapshots the inputs (with fingerprints, local or on a
// bucket) and spreads them over shards by bytes
// ([shardrun.AssignShards]); with RunOptions.Shard a run reads only its
// shard's inputs and checks only those ([shardrun.ShardFromEnv] finds the
// shard of a Kubernetes, Slurm, AWS Batch or Cloud Run task). Parquet
// sinks with partition_by or dataset: true write Hive-style datasets of
// part-<shard>-<seq>.parquet files. Sharded runs stage their files,
// record them in per-shard manifests at checkpoints, resume after a kill
// and are published by [shardrun.CommitRun], which writes _SUCCESS; see
// docs/scale.md.
//
// # Limits
//
// All parts of one source share a dtype and row shape, except that a
// source whose parts differ may feed sinks writing one array per part.
// Rows from several inputs of one component are concatenated in plan
// order; the same source may not reach a component through two inputs.
// describe and pca hold what their options say (see their specs). A Plan
// runs once and is not safe for concurrent use. A panic of npyflow's own
// in a run's goroutines comes back as an [*InternalError].
package pipeline
