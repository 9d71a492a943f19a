package pipeline

import (
	"github.com/npyflow/npyflow/pipeline/expr"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The registry of every component npyflow knows. Validation, the JSON
// schema (`npyflow schema`) and `npyflow list` are all generated from
// these specs.

var flagString = job.String

func init() {
	srcFields := []job.Field{
		{Name: "paths", Type: job.StringList, Required: true, Check: checkPattern,
			Doc: "files to read: paths or patterns with *, ?, [abc], ** (any directories) and captures like runs/{run_id}/frame_{step:int}.npy that become columns; relative to the job file; '-' alone reads standard input (copied to a temporary file when the job is planned; not in a sharded run)"},
		{Name: "exclude", Type: job.StringList, Check: checkExclude,
			Doc: "patterns of files to skip; one without '/' matches the base name"},
		{Name: "column", Type: job.String, Default: "value",
			Doc: "the column name of a plain (non-record) array when captures add columns next to it"},
		{Name: "allow_empty", Type: job.Bool, Default: false,
			Doc: "allow a pattern to match no file (by default that is an error)"},
	}
	register(&job.Spec{Kind: job.Source, Type: "npy", Summary: "read .npy files",
		Doc:    "Reads .npy files row by row (axis 0) in bounded memory. All files must share one dtype and row shape; they are read in path order.",
		Fields: srcFields}, buildFileSource)
	register(&job.Spec{Kind: job.Source, Type: "npz", Summary: "read arrays from .npz archives",
		Doc: "Reads members of .npz archives (np.savez, np.savez_compressed). Each selected member of each archive is one input part.",
		Fields: append(append([]job.Field(nil), srcFields...),
			job.Field{Name: "members", Type: job.StringList, Doc: "the member keys to read (default: every member)",
				Flag: "member", FlagType: &flagString, FlagDoc: "use only this member of the archive"}),
	}, buildFileSource)
	register(&job.Spec{Kind: job.Source, Type: "parquet", Summary: "read Parquet files",
		Doc:    "Reads Parquet files: files written by npyflow come back with their exact numpy dtype and shape; others become records (strings as fixed-width U/S columns sized by the longest value; decimals, INT96, TIME, INTERVAL and nulls as `npyflow inspect` shows).",
		Fields: append(append([]job.Field(nil), srcFields...), foreignReadFields()...)}, buildFileSource)
	register(&job.Spec{Kind: job.Source, Type: "arrow", Summary: "read Arrow IPC files or streams",
		Doc: "Reads Arrow IPC files (.arrow, .feather v2) or streams: files npyflow wrote come back with their exact numpy dtype and shape; others become records (one field per column). Planning reads only the schema and row counts from the IPC metadata (and string lengths, by a pass over the data, when no width is known).",
		Fields: append(append(append([]job.Field(nil), srcFields...), foreignReadFields()...),
			job.Field{Name: "string_chars", Type: job.Int, Default: int64(0), Min: ptr(0),
				Doc: "width (U characters, S bytes) of string and binary columns without numpy metadata; 0 finds the longest value by a pass over the data; a longer value is an error"}),
	}, buildFileSource)
	register(&job.Spec{Kind: job.Source, Type: "hdf5", Summary: "read datasets of HDF5 files",
		Doc: "Reads datasets of HDF5 files (h5py, MATLAB v7.3, hdf5storage) through the pure-Go hdf5 package, in row batches. Each dataset is one input part, its member the path without the leading slash (group/data). Types map as h5py maps them: compound to structured, enum to its base integer, fixed strings to S, variable-length strings to S/U of the longest value; references, opaque, time and variable-length sequences are refused (skipped with a warning when every dataset is read).",
		Fields: append(append([]job.Field(nil), srcFields...),
			job.Field{Name: "datasets", Type: job.StringList, Doc: "the dataset paths to read, /group/data (default: every dataset npyflow can read)",
				Flag: "dataset", FlagType: &flagString, FlagDoc: "use only this dataset of the HDF5 file (/group/data)"}),
	}, buildFileSource)
	register(&job.Spec{Kind: job.Source, Type: "mat", Summary: "read variables of MATLAB MAT-files",
		Doc: "Reads MAT-files (v7.3 through the hdf5 package, v7 and v6 Level 5). Every array of every variable is one input part, its member the MATLAB-style path: x, s.a for a struct field, s(2).a for a struct array element, c{3} for a cell element. Shapes are MATLAB's (at least 2-D), values in MATLAB's order (a[i, j] is a(i+1, j+1)); char arrays become U strings, one per row; sparse matrices become dense. Function handles and objects are skipped with one warning per variable (an error with strict).",
		Fields: append(append([]job.Field(nil), srcFields...),
			job.Field{Name: "variables", Type: job.StringList, Doc: "the variables (or array paths such as s.a) to read (default: every one)",
				Flag: "variable", FlagType: &flagString, FlagDoc: "use only this variable (or array path such as s.a) of the MAT-file"},
			job.Field{Name: "strict", Type: job.Bool, Default: false, Flag: "strict",
				Doc: "make a value numpy cannot hold (function handle, MATLAB object) an error instead of a warning"},
			job.Field{Name: "fortran_order", Type: job.Bool, Default: false, Flag: "fortran-order",
				Doc: "npyflow convert to .npy or .npz only (a job reads rows, in C order): write arrays of two or more dimensions as stored, in MATLAB's column-major order, as Fortran-order .npy (np.load gives the same values, as scipy.io.loadmat returns them); nothing is reordered, so a compressed v7 variable streams too"}),
	}, buildFileSource)

	fieldsOpt := func(doc string, req bool) job.Field {
		return job.Field{Name: "fields", Type: job.StringList, Required: req, Doc: doc}
	}
	register(&job.Spec{Kind: job.Transform, Type: "select", Summary: "keep only some fields, in the given order",
		Fields: []job.Field{fieldsOpt("the fields to keep, in output order", true)}}, buildSelect)
	register(&job.Spec{Kind: job.Transform, Type: "drop", Summary: "remove fields",
		Fields: []job.Field{fieldsOpt("the fields to remove", true)}}, buildDrop)
	register(&job.Spec{Kind: job.Transform, Type: "rename", Summary: "rename fields",
		Fields: []job.Field{{Name: "fields", Type: job.StringMap, Required: true, Doc: "old name: new name"}}}, buildRename)
	register(&job.Spec{Kind: job.Transform, Type: "cast", Summary: "convert fields to other numeric types, checking for overflow",
		Doc: "Converts numbers between bool, int8..int64, uint8..uint64, float16/32/64. A value that does not fit the new type (out of range, NaN or a fraction to an integer) is an error by default.",
		Fields: []job.Field{
			{Name: "fields", Type: job.StringMap, CheckValue: checkDTypeName, Doc: "field: new type (int32, float64, <i4, ...)"},
			{Name: "to", Type: job.String, Check: checkDTypeName, Doc: "the new type of every numeric field (or of a plain array)"},
			{Name: "on_overflow", Type: job.String, Default: "error", Enum: []string{"error", "saturate"},
				Doc: "error: fail naming the row and value; saturate: clamp to the type's range (NaN becomes 0)"},
		}}, buildCast)
	register(&job.Spec{Kind: job.Transform, Type: "flatten", Summary: "turn nested records and subarrays into plain columns",
		Doc: "Nested struct fields become parent<sep>child columns and subarray fields (and the row shape of a plain array) one column per element, name<sep>index. No data is copied.",
		Fields: []job.Field{
			{Name: "separator", Type: job.String, Default: "_", Doc: "joins parent and child names"},
			{Name: "column", Type: job.String, Default: "value", Doc: "the base name of a plain array's columns"},
		}}, buildFlatten)
	register(&job.Spec{Kind: job.Transform, Type: "filter", Summary: "keep the rows matching a predicate",
		Doc: "A predicate compares fields with literals or with other fields: ==, !=, <, <=, >, >=, in [..] (literals only), combined with and, or, not and parentheses; e.g. temp > 20.5 and station in ['A', 'B'] and t_max > t_min. Either side of an operator may be the field (3 < a is a > 3), and chains compare neighbours like Python (0 <= x < 10 is 0 <= x and x < 10); a name is a field, so quote a field named like a keyword as `true`. Numbers (bool, int, uint, float32/64) compare by exact value across types (numpy casts int64/uint64 to float64 first, so it can differ beyond 2**53); NaN matches only !=. Strings compare with strings of the same kind (U with U, S with S), ignoring trailing NULs; datetime64/timedelta64 fields with numbers (their count) or fields of the same unit, datetime64 fields also with ISO 8601 strings compared as instants like numpy (t >= '2024-03-01', '2024-03-01T12:00' <= t < '2024-03-02'; no time zone), NaT like NaN. Other pairs are refused when the job is planned.",
		Fields: []job.Field{
			{Name: "where", Type: job.String, Required: true, Check: expr.Check, Doc: "the predicate"},
		}}, buildFilter)
	register(&job.Spec{Kind: job.Transform, Type: "slice", Summary: "keep rows start:stop:step of the stream",
		Fields: []job.Field{
			{Name: "start", Type: job.Int, Default: int64(0), Min: ptr(0), Doc: "first row (0-based)"},
			{Name: "stop", Type: job.Int, Min: ptr(0), Doc: "row to stop before (default: the end)"},
			{Name: "step", Type: job.Int, Default: int64(1), Min: ptr(1), Doc: "keep every step-th row"},
		}}, buildSlice)
	register(&job.Spec{Kind: job.Transform, Type: "limit", Summary: "keep the first rows of the stream",
		Fields: []job.Field{{Name: "rows", Type: job.Int, Required: true, Min: ptr(0), Doc: "how many rows to keep"}}}, buildLimit)
	register(&job.Spec{Kind: job.Transform, Type: "sample", Summary: "keep a deterministic random fraction of rows",
		Doc: "Whether a row is kept depends only on the seed and its position in the stream, so runs with any number of workers agree.",
		Fields: []job.Field{
			{Name: "fraction", Type: job.Float, Required: true, Min: ptr(0), Max: ptr(1), Doc: "the probability of keeping a row"},
			{Name: "seed", Type: job.Int, Default: int64(0), Doc: "the random seed"},
		}}, buildSample)
	register(&job.Spec{Kind: job.Transform, Type: "unstack", Summary: "turn leading axes of each row into rows",
		Doc: "An array of shape (n, a, b, c) unstacked by 1 axis becomes (n*a, b, c): each row becomes a rows. Without index or row_number no data is copied. With them the rows become records: the int64 columns row_number, then index, then the data (a record's fields, or one column holding the rest of the row).",
		Fields: []job.Field{
			{Name: "axes", Type: job.Int, Default: int64(1), Min: ptr(1), Doc: "how many leading axes of the row shape to move into rows"},
			{Name: "index", Type: job.StringList, Doc: "int64 column(s) giving each new row's position along the unstacked axes: one name for the flat position in C order (0 to a*b-1 for 2 axes of a and b), or one name per axis for the position along each"},
			{Name: "row_number", Type: job.String, Doc: "an int64 column with the number of the source row the new row came from, counted from 0 in each input file or npz member (among the rows reaching unstack)"},
			{Name: "column", Type: job.String, Default: "value", Doc: "with index or row_number, the name of the data column when the rows are not records (or still have axes left)"},
		},
	}, buildUnstack)
	register(&job.Spec{Kind: job.Transform, Type: "describe", Summary: "summary statistics of numeric columns (gonum)",
		Doc: "Computes count, mean, std, min, quartiles and max of each numeric column (or each column of a 2-d array) in one pass, and emits one row per column.",
		Fields: []job.Field{
			fieldsOpt("the columns to describe (default: every numeric one)", false),
			{Name: "quantiles", Type: job.StringList, Doc: "quantile probabilities between 0 and 1 (default 0.25, 0.5, 0.75; columns q25, q50, q75), linear interpolation like numpy"},
			{Name: "ddof", Type: job.Int, Default: int64(1), Min: ptr(0), Doc: "delta degrees of freedom of std: 1 is pandas' describe (sample std), 0 is np.std"},
			{Name: "skip_nan", Type: job.Bool, Default: false, Doc: "ignore NaN values like np.nanmean (otherwise a NaN makes its column's statistics NaN)"},
			{Name: "sample", Type: job.Int, Default: int64(0), Min: ptr(0), Doc: "estimate quantiles from a sample of this many values per column (0: exact, holding every value)"},
		}}, buildDescribe)
	register(&job.Spec{Kind: job.Transform, Type: "pca", Summary: "principal components of numeric columns (gonum)",
		Doc: "Fits the principal components of the numeric columns (or of a 2-d array's columns) with gonum's stat.PC, on every row or a sample. output: components emits one row per component: its explained variance and ratio and its loading on each column. output: scores projects every input row onto the components and emits one row per input row, in order and in the input's parts: the kept columns, then pc1..pck (float64) = (row - mean) . component; component signs are fixed so each one's largest loading is positive. Scores come after the fit, so every row is held: in memory (at most 2 GiB of float64 values and kept columns) when fitting on every row, or spilled to a temporary file ($TMPDIR) when fitting on sample_rows, with only the sample in memory.",
		Fields: []job.Field{
			fieldsOpt("the columns to analyse (default: every numeric one not in keep)", false),
			{Name: "components", Type: job.Int, Default: int64(2), Min: ptr(1), Doc: "how many components to keep"},
			{Name: "output", Type: job.String, Default: "components", Enum: []string{"components", "scores"},
				Doc: "components: one row per component (variance, ratio, loadings); scores: one row per input row with columns pc1..pck"},
			{Name: "keep", Type: job.StringList, Doc: "with output: scores, input columns of any type copied next to the scores (e.g. an id to join on); they are left out of the default fields"},
			{Name: "sample_rows", Type: job.Int, Default: int64(0), Min: ptr(0), Doc: "fit on a uniform sample of this many rows (0: every row, held in memory)"},
			{Name: "seed", Type: job.Int, Default: int64(0), Doc: "seed of the row sample"},
		}}, buildPCA)

	sinkFields := []job.Field{
		{Name: "path", Type: job.String, Required: true, Check: checkTemplate,
			Doc: "the output file; with {stem}, {name}, {dir}, {member}, {source}, {index} or a capture name in it, one file per input part; relative to the job file"},
		{Name: "mode", Type: job.String, Default: "overwrite", Enum: []string{"overwrite", "error_if_exists", "skip_existing"},
			Doc: "what to do when an output exists: overwrite it, fail, or leave it alone (and skip writing it)"},
	}
	register(&job.Spec{Kind: job.Sink, Type: "npy", Summary: "write .npy files (streaming)",
		Doc:    "Writes rows with numpy's header, byte-identical to np.save of the same array; the row count is filled in on close.",
		Fields: sinkFields}, buildNPYSink)
	register(&job.Spec{Kind: job.Sink, Type: "npz", Summary: "write an .npz archive",
		Doc: "Writes members with numpy's headers, like np.savez (or np.savez_compressed). A member made of one 0-d input (shape ()) that came through select, drop, rename, cast or flatten is written 0-d, byte-identical to numpy's.",
		Fields: append(append([]job.Field(nil), sinkFields...),
			job.Field{Name: "member", Type: job.String, Default: "arr_0", Check: checkTemplate,
				Doc: "the member key; with {stem} etc. in it, one member per input part"},
			job.Field{Name: "compressed", Type: job.Bool, Default: false, Doc: "Deflate members like np.savez_compressed",
				Flag: "compression", FlagType: &flagString, FlagDoc: "deflate (np.savez_compressed) or none (np.savez, the default)"}),
	}, buildNPZSink)
	parquetSinkFields := append([]job.Field{sinkFields[0],
		{Name: "mode", Type: job.String, Default: "overwrite", Enum: []string{"overwrite", "error_if_exists", "append", "skip_existing"},
			Doc: "what to do when the output exists: overwrite it (a dataset loses its earlier files when the run commits), fail, add part files next to the existing ones (datasets only), or leave it alone"}},
		parquetFields()...)
	parquetSinkFields = append(parquetSinkFields,
		job.Field{Name: "partition_by", Type: job.StringList,
			Doc: "write a dataset partitioned Hive-style by these columns (path is its directory): path/col=value/.../part-<shard>-<seq>.parquet, values escaped as Hive does; the columns are not stored in the files. Captures of the source's paths are columns, so they can be partition keys"},
		job.Field{Name: "dataset", Type: job.Bool, Default: false,
			Doc: "write a dataset (a directory of part-<shard>-<seq>.parquet files) even without partition_by; sharded runs need a dataset or a per-input path"},
		job.Field{Name: "max_rows_per_file", Type: job.Int, Min: ptr(1), Doc: "start a new part file after this many rows (datasets)"},
		job.Field{Name: "max_bytes_per_file", Type: job.Int, Min: ptr(1024), Doc: "start a new part file once a file reaches about this many bytes (datasets; estimated at the numpy row size until a file has 1 MiB of output, then at its compressed bytes per row)"},
		job.Field{Name: "max_open_files", Type: job.Int, Default: int64(16), Min: ptr(1), Doc: "part files open at once in a partitioned dataset; the least recently written is finished when another is needed"})
	register(&job.Spec{Kind: job.Sink, Type: "parquet", Summary: "write Parquet files or datasets",
		Fields: parquetSinkFields,
		Doc:    "Writes Parquet with numpy's types mapped as arrowconv does (records become columns, subarrays lists, datetime64 timestamps), with the numpy dtype kept in the footer so the file reads back exactly. Row groups are encoded in parallel. With partition_by or dataset: true, path is a dataset directory that Spark, Trino and DuckDB read (hive_partitioning), published atomically when the run commits."}, buildParquetOutput)
	register(&job.Spec{Kind: job.Sink, Type: "arrow", Summary: "write Arrow IPC files or streams",
		Fields: append(append([]job.Field(nil), sinkFields...),
			job.Field{Name: "format", Type: job.String, Default: "file", Enum: []string{"file", "stream"}, Doc: "IPC file (random access, .arrow) or stream (.arrows); a path ending in .arrows is a stream unless format says otherwise"},
			job.Field{Name: "compression", Type: job.String, Default: "none", Enum: []string{"none", "lz4", "zstd"}, Doc: "buffer compression", Flag: "compression",
				FlagDoc: "buffer compression: none (the default for .arrow, as pyarrow.ipc and Polars write it: memory-mappable), lz4 (the default for .feather, as pyarrow.feather) or zstd"},
			job.Field{Name: "column", Type: job.String, Default: "value", Doc: "the column name of a plain (non-record) array", Flag: "name"},
			job.Field{Name: "batch_rows", Type: job.Int, Default: int64(65536), Min: ptr(1), Doc: "rows per record batch"}),
		Doc: "Writes Arrow IPC with numpy's types mapped by arrowconv (records become struct columns, subarrays fixed-size lists or fixed_shape_tensor, numpy dtypes kept in field metadata).",
	}, buildArrowSink)
	register(&job.Spec{Kind: job.Sink, Type: "mat", Summary: "write a MATLAB MAT-file",
		Doc: "Writes MAT-files MATLAB, scipy and hdf5storage read: one variable per input part or one for all (variable). Numeric classes keep their type, bool is logical, strings are char, a structured array (a table) is a 1x1 struct of column vectors. Names that are not valid MATLAB identifiers are refused before anything is written, or renamed with rename_invalid.",
		Fields: append(append([]job.Field(nil), sinkFields...),
			job.Field{Name: "variable", Type: job.String, Default: "{member}", Check: checkTemplate,
				Doc: "the variable name; with {stem} etc. in it, one variable per input part; an empty name (a plain .npy has no {member}) is the input file's stem"},
			job.Field{Name: "version", Type: job.String, Default: "7.3", Enum: []string{"7.3", "7", "6"}, Flag: "mat-version",
				Doc: "the MAT-file version as MATLAB's save names it: 7.3 (HDF5, no 2 GiB limit), 7 (Level 5, zlib-compressed variables) or 6 (Level 5, uncompressed)"},
			job.Field{Name: "compressed", Type: job.Bool, Default: true, Doc: "compress variables (v7.3 deflate chunks, v7 zlib)",
				Flag: "compression", FlagType: &flagString, FlagDoc: "deflate (the default) or none"},
			job.Field{Name: "rename_invalid", Type: job.Bool, Default: false, Flag: "rename-invalid",
				Doc: "rename names that are not valid MATLAB identifiers (each rename is a warning) instead of refusing them"}),
	}, buildMATSink)
	register(&job.Spec{Kind: job.Sink, Type: "hdf5", Summary: "write an HDF5 file",
		Doc: "Writes an HDF5 file h5py and h5dump read: one dataset per input part or one for all (dataset, a path: group/data creates the groups), chunked and deflated unless compressed is false.",
		Fields: append(append([]job.Field(nil), sinkFields...),
			job.Field{Name: "dataset", Type: job.String, Default: "{member}", Check: checkTemplate,
				Doc: "the dataset path; with {stem} etc. in it, one dataset per input part; an empty name (a plain .npy has no {member}) is the input file's stem"},
			job.Field{Name: "compressed", Type: job.Bool, Default: true, Doc: "chunk and deflate datasets (level 4, with shuffle)",
				Flag: "compression", FlagType: &flagString, FlagDoc: "deflate (the default) or none"}),
	}, buildHDF5Sink)
}
