package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/pipeline"
	"github.com/npyflow/npyflow/pipeline/job"
	"golang.org/x/term"
)

// convert is flag parsing around pipeline.Convert: the flags are
// generated from the formats' option declarations (pipeline.ConvertFlags),
// and the terminal concerns (progress bar, exit codes) are the CLI's.

func init() {
	register("convert", "convert between "+formatExts()+" (by extension)", runConvert)
	usages["convert"] = "usage: npyflow convert [flags] IN OUT\n\n" + formatTable() + "\n" + convertNotes
}

// formatExts names the registered formats by their usual extensions:
// ".npy, .npz, ... and .zarr".
func formatExts() string {
	var exts []string
	for _, f := range pipeline.Formats() {
		exts = append(exts, f.Exts[0])
	}
	return strings.Join(exts[:len(exts)-1], ", ") + " and " + exts[len(exts)-1]
}

// formatTable lists the registered formats for convert's usage: name,
// extensions and summary, one a line.
func formatTable() string {
	var b strings.Builder
	b.WriteString("IN and OUT are files of these formats, known by their extensions:\n")
	for _, f := range pipeline.Formats() {
		fmt.Fprintf(&b, "  %-8s %-26s %s\n", f.Name, strings.Join(f.Exts, " "), f.Summary)
	}
	return b.String()
}

// convertNotes is what convert's usage says about the formats after
// listing them.
const convertNotes = `IN "-" reads standard input (an Arrow stream from another
program, or any of these formats: recognized by its first bytes).
An .npz whose members have the same length along axis 0 becomes one
table (one column per member, in archive order); pick one member with
--member. A 0-d member counts as one row: np.savez(lr=0.01, step=7) is
one record (0-d in .npy and Arrow, one row in Parquet); beside longer
members it is refused. An .npz to .npz copies every member (dtype, shape
and values, whatever the shapes; --compression deflate gives the format
of np.savez_compressed).
Parquet or Arrow back to .npy gives a structured array (one field per
column), or the exact source array for files npyflow wrote; to .npz, one
member per column.
An HDF5 file or MAT-file reads like an .npz: every dataset is a member named
by its path (group/data; pick one with --dataset /group/data), every array
of a MAT-file by its MATLAB path (x, s.a, s(2).a, c{3}; pick with
--variable). Values numpy cannot hold (references; function handles,
Java objects, table variables of mixed cells) and HDF5 datasets whose
filter has no decoder (lossy sz, an unknown id) are skipped with a
warning naming them (--strict: an error).
netCDF-4 files (.nc, .nc4) are HDF5 files: values as stored (no _FillValue
masking, no scale_factor/add_offset), dimension-only datasets left out; a
netCDF-3 file is refused as such. --dimension time reads the 1-D variables
along one dimension as one table, like xarray's to_dataframe() with the
index reset (coordinate variable first; sub/time for a subgroup's).
To .h5, --compression deflate (default), lz4, zstd or none. Types as h5py
writes them: numbers in native byte order (big-endian input converted),
S fixed ASCII, U fixed-length UTF-8 as wide as the longest value (--strings
vlen: variable-length UTF-8), datetime64/timedelta64 as h5py's opaque type
tagged NUMPY:<dtype> (--times int64: int64 with a units attribute like
"ms since 1970-01-01"); npyflow and h5py read them back as these types.
Parquet INT96 timestamps (Spark, Impala, Hive) are read as datetime64[ns]
if every value fits, otherwise datetime64[us] (Spark's own precision), then
datetime64[ms], but only if no value has digits finer than the chosen unit;
a column that fits none of these is refused.
MATLAB objects: a table, timetable, containers.Map or dictionary variable
is one table (a structured array; row names or times first); so is a 1x1
struct of N-row fields (struct2table's layout) converted on its own,
its fields the columns. MATLAB type -> numpy -> Parquet / Arrow:
  string            U<n> (<missing> ""; --validity C adds table column
                    C's C_valid field, or array C's C_valid member)
                    -> STRING / utf8, <missing> null (N-by-k: element
                    nulls in Arrow; Parquet keeps "" with a C_items_valid
                    list column)
  datetime          datetime64 (UTC instants if zoned), NaT
                    -> TIMESTAMP (isAdjustedToUTC if zoned) / timestamp[tz]
  duration          timedelta64 -> INT64 in its unit / duration
  calendarDuration  struct (months, days, millis) -> the same struct
  categorical       U<n> of category names (<undefined> "", --validity
                    as for strings) -> dictionary-encoded STRING /
                    dictionary<utf8> (a table column), <undefined> null
                    as for strings
  enumeration       U<n> of member names -> STRING / utf8
  N-by-k variable   subarray field (k,) -> LIST / fixed_size_list
  class object      struct of its properties (with a warning)
To .npz each variable is a member: a table one structured array, a string
array U<n> of MATLAB's size.
To .mat, members become variables (--mat-version 7.3, 7 or 6) and a table
(Parquet, Arrow, a structured array) a 1x1 struct of column vectors;
invalid MATLAB names are refused, or renamed with --rename-invalid.
datetime64 in .mat is double POSIX seconds, timedelta64 double seconds:
the double nearest the value (numpy's t / np.timedelta64(1, 's')) for
units of 1 us and coarser, at most one ulp from it for finer ones past
2^53 counts; round(x * 1e6) gives the microseconds back below 2^51.
U and S strings keep a NUL inside them (char(0), as MATLAB and
hdf5storage keep it); trailing NULs, numpy's padding, become spaces.
What other readers see (the write sweep, make check-writers, checks it):
  .parquet  datetime64[Y] and [M], [ps]/[fs]/[as] and every timedelta64
            (whatever the unit, e.g. [10ms]) are INT64 counts of numpy's
            unit, the unit in the file's metadata (Parquet has no
            duration; pyarrow writes its durations so too): DuckDB and
            pandas read integers, npyflow the exact numpy type.
  .arrow    timedelta64[D], [W], [h], [m] are duration(s), the values
            scaled exactly (Arrow has no coarser unit); datetime64[Y] and
            [M] are refused, as Arrow has no such type (pyarrow refuses
            them too).
  .mat      bool is logical: MATLAB, Octave and hdf5storage read logical,
            scipy.io.loadmat uint8 (it has no logical type).

flags:`

// optionFlag is a flag.Value setting a pipeline.ConvertOptions option.
type optionFlag struct {
	opts    *pipeline.ConvertOptions
	name    string
	isBool  bool
	current string
	err     error // why Set refused a value: the message parseFlags gives
}

func (f *optionFlag) String() string   { return f.current }
func (f *optionFlag) refused() error   { return f.err }
func (f *optionFlag) IsBoolFlag() bool { return f.isBool }
func (f *optionFlag) Set(v string) error {
	if err := f.opts.Set(f.name, v); err != nil {
		f.err = err
		return err
	}
	f.current = v
	return nil
}

// addOptionFlags declares conversion options (pipeline.ConvertFlags or
// InspectFlags) on fs.
func addOptionFlags(fs *flag.FlagSet, opts *pipeline.ConvertOptions, flags []pipeline.Flag) {
	for _, d := range flags {
		v := &optionFlag{opts: opts, name: d.Name, isBool: d.Type == job.Bool}
		if d.Default != nil && d.Default != false && d.Default != int64(0) && d.Default != "" {
			v.current = fmt.Sprint(d.Default)
		}
		if d.Type == job.Bool && d.Default == true {
			v.current = "true"
		}
		fs.Var(v, d.Name, d.Doc)
	}
}

// threadsFlag is --threads of convert and run: a count of 0 or more,
// refused when parsed otherwise (a usage error naming the flag).
type threadsFlag struct {
	n   int
	err error // why Set refused a value
}

// threadsDoc is the help line of --threads.
const threadsDoc = "use `N` cores: at most N goroutines decode, compress and read at once, in each format library and in the engine, and GOMAXPROCS is at most N; 0: every core. The output is the same bytes for every value"

// limit caps GOMAXPROCS at the count for the command (the Go runtime's
// own work, the garbage collector's, then shares those cores too: with
// --threads 1 the process runs as under taskset -c 0) and returns what
// restores it.
func (t *threadsFlag) limit() (restore func()) {
	old := runtime.GOMAXPROCS(0)
	if t.n == 0 || t.n >= old {
		return func() {}
	}
	runtime.GOMAXPROCS(t.n)
	return func() { runtime.GOMAXPROCS(old) }
}

func (t *threadsFlag) String() string { return strconv.Itoa(t.n) }
func (t *threadsFlag) refused() error { return t.err }
func (t *threadsFlag) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.err = fmt.Errorf("--threads %q: want 0 (every core) or a positive count", v)
		return t.err
	}
	t.n = n
	return nil
}

func runConvert(e *env) error {
	var opts pipeline.ConvertOptions
	var progress string
	var threads threadsFlag
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	addOptionFlags(fs, &opts, pipeline.ConvertFlags())
	fs.StringVar(&progress, "progress", "auto", "progress bar: auto (on a terminal), always, never")
	fs.Var(&threads, "threads", threadsDoc)
	args, err := parseFlags(fs, e.args)
	if err != nil {
		return err
	}
	if len(args) != 2 {
		fmt.Fprint(e.stderr, usageText(fs))
		return usagef("convert needs IN and OUT, got %d arguments", len(args))
	}
	switch progress {
	case "auto", "always", "never":
	default:
		return usagef("--progress %q: want auto, always or never", progress)
	}
	in, out := args[0], args[1]
	if f, ok := e.stderr.(*os.File); progress == "always" || progress == "auto" && ok && term.IsTerminal(int(f.Fd())) {
		opts.Progress = newBarProgress(e.stderr)
	}
	opts.Warn = e.warn
	opts.Threads = threads.n
	defer threads.limit()()
	if _, err := pipeline.Convert(e.ctx, in, out, &opts); err != nil {
		if errors.Is(err, pipeline.ErrOptions) {
			return usageError{err}
		}
		return convertError(in, out, err)
	}
	return nil
}

// convertError is the one-line message of a failed conversion: the file
// the problem is in (OUT for a *pipeline.OutputError, else IN), once, then
// the problem without the library packages' prefixes.
func convertError(in, out string, err error) error {
	var ie *pipeline.InternalError
	if errors.As(err, &ie) {
		return err // main reports it
	}
	var fe *pipeline.FileError
	if errors.As(err, &fe) {
		return fmt.Errorf("%s: %w", storage.Redact(fe.Path), trimPrefix(fe.Err))
	}
	file := in
	var oe *pipeline.OutputError
	if errors.As(err, &oe) {
		file = out
	}
	return fmt.Errorf("%s: %w", storage.Redact(file), trimPrefix(err))
}
