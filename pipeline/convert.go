package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/pipeline/shard"
)

// Convert converts the file in to the file out, each in the format of
// its extension (see [Formats]; in [StdinName] ("-") reads standard
// input, its format known by its first bytes): it makes a job of one
// source of IN's format reading in and one sink of OUT's format writing
// out, with the options given (opts may be nil), and runs it on the
// engine of every job, [Plan.Run]. The options apply as the fields of
// that source and sink (a [job.Field]'s Flag names its [ConvertOptions]
// field) with convert's defaults ([job.Field].ConvertDefault): the array
// written is named after the one read ({array}). An archive of arrays
// (.npz, HDF5, MAT-file) converted to a format that is not one is read as
// one table, its arrays the columns (the source's table option; arrays
// of different lengths are refused, pick one with --member, --dataset or
// --variable); to an archive, every array is copied as it is, whatever
// its shape. A Parquet or Arrow table to .npz gives one member per
// column (the sink's split_fields).
//
// The output is written to a temporary file beside out and renamed into
// place only on success; if ctx is cancelled, nothing is left. out's
// directory must exist. Errors about the data are a [*FileError] naming
// the file (IN, or OUT for a problem writing it); errors about the
// arguments wrap [ErrOptions].
func Convert(ctx context.Context, in, out string, opts *ConvertOptions) (*Summary, error) {
	o := ConvertOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Threads < 0 {
		return nil, optionErrorf("--threads %d: want 0 (every core) or more", o.Threads)
	}
	var from *Format
	if in == StdinName {
		tmp, f, cleanup, err := spoolStdin(ctx, o.Stdin)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		in, from = tmp, f
	}
	if from == nil {
		from = FormatOf(in)
	}
	to := FormatOf(out)
	if from == nil {
		return nil, optionErrorf("%s: unknown input format (want %s)", in, formatList())
	}
	if to == nil {
		return nil, optionErrorf("%s: unknown output format (want %s)", out, formatList())
	}
	if shard.AbsPath(in) == shard.AbsPath(out) {
		return nil, optionErrorf("%s: input and output are the same file", in)
	}
	j, err := convertJob(in, out, from, to, &o)
	if err != nil {
		return nil, err
	}
	// The input must be a file, and OUT's directory exist (a job makes
	// its outputs' directories).
	if from.Caps.Dir {
		// A store is a directory or a bucket prefix: its reader checks it.
	} else if st, err := storage.Stat(ctx, in); err != nil {
		return nil, &FileError{Path: in, Err: bare(err)}
	} else if st.IsDir {
		return nil, &FileError{Path: in, Err: errors.New("is a directory")}
	}
	if storage.Scheme(out) == "" {
		if st, err := os.Stat(filepath.Dir(out)); err != nil {
			return nil, &FileError{Path: out, Err: bare(err)}
		} else if !st.IsDir() {
			return nil, &FileError{Path: out, Err: errors.New("not a directory")}
		}
	}
	plan, err := NewPlan(ctx, j, &PlanOptions{Warn: o.Warn, Threads: o.Threads})
	if err != nil {
		return nil, conversionError(in, out, err)
	}
	sum, err := plan.Run(ctx, &RunOptions{Sync: o.Sync, Progress: o.Progress, BatchBytes: convertBatchBytes})
	if err != nil {
		return nil, conversionError(in, out, err)
	}
	return sum, nil
}

// convertBatchBytes is the batch size of a conversion: one file streams
// through, so small batches keep its memory low (64Ki rows of up to 32
// bytes, see batchSize).
const convertBatchBytes = 1 << 20

// convertJob is the job of a conversion: a source named "in", a sink
// named "out", with the options that apply to them and convert's
// defaults.
func convertJob(in, out string, from, to *Format, o *ConvertOptions) (*job.Job, error) {
	flags := maps.Clone(o.Flags)
	for _, f := range runFlags {
		delete(flags, f.Name)
	}
	if from.Caps.Archive {
		// An archive's arrays keep their names: --name names an
		// unnamed one (a plain .npy's).
		delete(flags, "name")
	}
	src, err := componentDef(job.Source, "in", from.Source, flags, true)
	if err != nil {
		return nil, err
	}
	sink, err := componentDef(job.Sink, "out", to.Sink, flags, true)
	if err != nil {
		return nil, err
	}
	src.Options["paths"] = []string{escapePattern(in)}
	sink.Options["path"] = escapeTemplate(out)
	sink.Inputs = []string{"in"}
	if from.Caps.Archive && !to.Caps.Archive && from.Source.Field("table") != nil {
		src.Options["table"] = true // an archive's arrays: one table
	}
	if to.Caps.Table && from.Source.Field("nulls") != nil {
		src.Options["nulls"] = true // missing values as the output's nulls
	}
	if from.Caps.Table && to.Sink.Field("split_fields") != nil {
		sink.Options["split_fields"] = true // a table's columns: one array each
	}
	j, err := job.New("convert", "", []job.Def{src, sink})
	if err != nil {
		return nil, conversionError(in, out, err)
	}
	return j, nil
}

// flagFormats returns the formats whose sources have the flag.
func flagFormats(flag string) []string {
	var out []string
	for _, f := range Formats() {
		if f.Source != nil && slices.ContainsFunc(f.Source.Fields, func(fd job.Field) bool { return fd.Flag == flag }) {
			out = append(out, f.Name)
		}
	}
	return out
}

// conversionError is a failed conversion's error as [Convert] returns it:
// a *FileError naming IN, or OUT for a problem writing it, once; the
// engine's own positions (a job's "sources.in.paths") left out; problems
// with the options wrapping ErrOptions.
func conversionError(in, out string, err error) error {
	var ie *InternalError
	if errors.As(err, &ie) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if job.IsJobError(err) {
		// Errors about a flag's value are the arguments'; the others
		// (a dtype an output cannot hold) the input data's.
		l := job.ErrorList{}
		if e := (*job.Error)(nil); errors.As(err, &e) {
			l = append(l, e)
		}
		errors.As(err, &l)
		var flags, data []string
		for _, e := range l {
			if e.Pos.Set != "" {
				flags = append(flags, e.Pos.Set+": "+e.Msg)
			} else {
				data = append(data, e.Msg)
			}
		}
		if len(flags) > 0 {
			return &optionError{strings.Join(flags, "; ")}
		}
		return &FileError{Path: in, Err: errors.New(strings.Join(data, "; "))}
	}
	var de *dataError
	for errors.As(err, &de) {
		err = de.err
	}
	var fe *FileError
	if errors.As(err, &fe) {
		inner := fe.Err
		switch {
		case fe.Path == out || errors.As(err, new(*OutputError)):
			return &FileError{Path: out, Err: bare(inner)}
		case strings.HasPrefix(fe.Path, in+":"):
			inner = fmt.Errorf("%s: %w", strings.TrimPrefix(fe.Path, in+":"), inner)
		}
		return &FileError{Path: in, Err: bare(inner)}
	}
	var oe *OutputError
	if errors.As(err, &oe) {
		return &FileError{Path: out, Err: bare(oe.Err)}
	}
	return &FileError{Path: in, Err: bare(err)}
}

// escapePattern makes a file name a path pattern matching only it.
func escapePattern(p string) string {
	query := "" // a URL's query holds bucket parameters, not wildcards
	if storage.Scheme(p) != "" {
		if loc := urlQueryRE.FindStringIndex(p); loc != nil {
			p, query = p[:loc[0]], p[loc[0]:]
		}
	}
	return strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`, `{`, `\{`, `}`, `\}`, `\`, `\\`).Replace(p) + query
}

// escapeTemplate makes a file name an output path template naming only
// it.
func escapeTemplate(p string) string {
	return strings.NewReplacer(`{`, `\{`, `}`, `\}`).Replace(p)
}

// ConvertOptions are the options of [Convert] (and of [Inspect]).
type ConvertOptions struct {
	// Flags are the options of the source and the sink by their flag
	// names ([ConvertFlags]; a job.Field's Flag), as command-line text:
	// "compression": "zstd", "columns": "a,b" (a list is comma-separated).
	// The source's of IN's format and the sink's of OUT's apply; one no
	// source of IN's format has is refused when another format's source
	// has it; other formats' sink options are ignored. [ConvertOptions.Set]
	// sets them one by one.
	Flags map[string]string
	// Sync flushes OUT to disk before it is renamed into place.
	Sync bool
	// Warn, if set, receives the conversion's warnings (see
	// PlanOptions.Warn).
	Warn func(msg string)
	// Progress, if set, is told about the rows written.
	Progress Progress
	// Stdin is read for the input name [StdinName] ("-"); nil: os.Stdin.
	Stdin io.Reader
	// Threads caps the goroutines reading and writing (PlanOptions.Threads):
	// 0 means every core (GOMAXPROCS); OUT is the same bytes for every value.
	Threads int
}
