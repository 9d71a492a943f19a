package pipeline

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/npyflow/npyflow/pipeline/expr"
	"github.com/npyflow/npyflow/pipeline/format"
	"github.com/npyflow/npyflow/pipeline/internal/foreign"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The options of every component npyflow registers, each type's one
// struct (see job.FieldsOf for the tags): the job file's keys, convert's
// flags, the JSON schema and `npyflow list` are generated from them, and
// a builder reads its own with job.Options. What several components
// share is a struct embedded in theirs, read through an interface
// (fileSourceOf, fileSinkOf).

// The checks and flag parsers the tags name.
var _ = registerOptionFuncs()

func registerOptionFuncs() bool {
	job.RegisterCheck("template", checkTemplate)
	job.RegisterCheck("pattern", checkPattern)
	job.RegisterCheck("exclude", checkExclude)
	job.RegisterCheck("dtype", checkDTypeName)
	job.RegisterCheck("predicate", expr.Check)
	job.RegisterCheck("shape", checkShape)
	job.RegisterFlagValue("hdf5-compression", hdf5CompressionFlag)
	job.RegisterFlagValue("arrow-compression", func(text string) (any, error) {
		switch v := strings.ToLower(text); v {
		case "zstd", "lz4", "none":
			return v, nil
		case "uncompressed":
			return "none", nil
		}
		return nil, errors.New("want none, lz4 or zstd")
	})
	job.RegisterFlagValue("parquet-compression", func(text string) (any, error) {
		switch v := strings.ToLower(text); v {
		case "zstd", "snappy", "gzip", "lz4", "none":
			return v, nil
		case "lz4_raw":
			return "lz4", nil
		case "uncompressed":
			return "none", nil
		}
		return nil, errors.New("want zstd, snappy, gzip, lz4 or none")
	})
	job.RegisterFlagValue("deflate-or-none", func(text string) (any, error) {
		switch strings.ToLower(text) {
		case "", "deflate", "zlib", "gzip":
			return true, nil
		case "none", "uncompressed":
			return false, nil
		}
		return nil, errors.New("want deflate or none")
	})
	job.RegisterFlagValue("npz-compression", func(text string) (any, error) {
		switch strings.ToLower(text) {
		case "deflate", "zip":
			return true, nil
		case "", "none", "stored", "uncompressed":
			return false, nil
		}
		return nil, errors.New("want deflate or none")
	})
	return true
}

// checkShape checks a chunk or shard shape: positive integers separated
// by commas (1000,100; x and spaces also separate), or nothing.
func checkShape(v string) (string, int) {
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == 'x' || r == ' ' }) {
		if n, err := strconv.ParseInt(f, 10, 64); err != nil || n < 1 {
			return fmt.Sprintf("%q is not a shape of positive integers (1000,100)", strings.TrimSpace(v)), 0
		}
	}
	return "", 0
}

// fileSourceOpts are the options every format's source has, first: the
// format contract's (a format outside the engine embeds them too).
type fileSourceOpts = format.SourceOptions

// fileSourceOf returns the options every file source has.
func fileSourceOf(c *job.Component) *fileSourceOpts {
	return c.Opts().(interface{ FileSource() *fileSourceOpts }).FileSource()
}

// tableSource is the options of an archive source, which may read a
// file's arrays as one table.
type tableSource interface{ tableOpt() bool }

// sinkPath is the path option of every file sink; fileSinkOpts are the
// options of most file sinks, first (the format contract's).
type (
	sinkPath     = format.SinkPath
	fileSinkOpts = format.SinkOptions
)

// fileSinkOf returns the path and mode options of a sink.
func fileSinkOf(c *job.Component) (path, mode string) {
	o := c.Opts().(interface {
		OutPath() string
		OutMode() string
	})
	return o.OutPath(), o.OutMode()
}

// sinkMode returns the mode option of a sink.
func sinkMode(c *job.Component) string {
	_, mode := fileSinkOf(c)
	return mode
}

// splitSink is the options of a sink that may write a record's fields
// as arrays of their own (split_fields).
type splitSink interface{ splitFields() bool }

// arrowSourceOpts are the options of the arrow source.
type arrowSourceOpts struct {
	fileSourceOpts
	foreign.SourceOptions
	StringChars int64 `opt:"string_chars" default:"0" min:"0" doc:"width (U characters, S bytes) of string and binary columns without numpy metadata; 0 finds the longest value by a pass over the data; a longer value is an error"`
}

// hdf5SourceOpts are the options of the hdf5 source.
type hdf5SourceOpts struct {
	fileSourceOpts
	Datasets  []string `opt:"datasets" flag:"dataset" flagtype:"string" flagdoc:"use only this dataset of the HDF5 file (/group/data)" doc:"the dataset paths to read, /group/data (default: every dataset npyflow can read)"`
	Dimension string   `opt:"dimension" flag:"dimension" doc:"read the one-dimensional variables of a netCDF-4 file (or HDF5 file with dimension scales) along this dimension as one table, as xarray's Dataset.to_dataframe() gives them with the index reset: the coordinate variable first (none for a dimension without one), then each 1-D variable along it in the file's variable order, one record per index; variables of other shapes are left out, and those that cannot be columns are skipped with a warning (an error with strict). A dimension of a subgroup is group/dim (its table holds that group's variables). Values as stored, as xarray's mask_and_scale=False and decode_times=False give them"`
	Strict    bool     `opt:"strict" default:"false" flag:"strict" doc:"make a dataset npyflow cannot read (a type numpy has no form for, a filter without a decoder) an error instead of a skip with a warning"`
	Table     bool     `opt:"table" default:"false" doc:"read the datasets of each file as the columns of one table: one input part per file, one record per row, a field per array named by it, in file order; they must have the same length along axis 0 (a 0-d array counts as one row; members all 0-d are one 0-d record); a file of one array reads as that array (npyflow convert does this when the output is not an archive)"`
}

// matSourceOpts are the options of the mat source.
type matSourceOpts struct {
	fileSourceOpts
	Variables    []string `opt:"variables" flag:"variable" flagtype:"string" flagdoc:"use only this variable (or array path such as s.a) of the MAT-file" doc:"the variables (or array paths such as s.a) to read (default: every one)"`
	Strict       bool     `opt:"strict" default:"false" flag:"strict" doc:"make a value numpy cannot hold (function handle, MATLAB object) an error instead of a warning"`
	FortranOrder bool     `opt:"fortran_order" default:"false" flag:"fortran-order" doc:"write arrays of two or more dimensions to npy and npz sinks fed directly by this source as stored, in MATLAB's column-major order, as Fortran-order .npy (np.load gives the same values, as scipy.io.loadmat returns them); nothing is reordered, so a compressed v7 variable streams too (vectors and tables go as rows)"`
	Validity     []string `opt:"validity" flag:"validity" doc:"table columns (by name, in any table read) and plain arrays (by path; * for all) of a class that can miss values (string, categorical, calendarDuration) that get a bool validity, false where MATLAB has <missing>, <undefined> or a NaN part: a field <column>_valid right after a table column (<column>_items_valid of its row shape for an N-by-k one), a member <path>_valid (N rows) after an N-by-1 array or <path>_items_valid (its shape) after a wider one; without it those values are \"\" (zeros for calendarDuration), and Parquet and Arrow outputs get nulls anyway (nulls)"`
	Nulls        bool     `opt:"nulls" default:"false" doc:"give Parquet and Arrow sinks fed directly by this source MATLAB's missing values as nulls: a table column or a plain array that misses values gets its validity as with validity, which those sinks write as nulls and leave out (a plain array's only with table: true; an element validity, _items_valid, is the nulls of the list's elements in Arrow, and Parquet writes it as a column); other sinks write it as a field or member; npyflow convert sets it when the output is a table format"`
	Table        bool     `opt:"table" default:"false" doc:"read the arrays of each file as the columns of one table: one input part per file, one record per row, a field per array named by it, in file order; they must have the same length along axis 0 (a 0-d array counts as one row; members all 0-d are one 0-d record); a file of one array reads as that array (npyflow convert does this when the output is not an archive)"`
}

// npzSourceOpts are the options of the npz source.
type npzSourceOpts struct {
	fileSourceOpts
	Members []string `opt:"members" flag:"member" flagtype:"string" flagdoc:"use only this member of the archive" doc:"the member keys to read (default: every member)"`
	Table   bool     `opt:"table" default:"false" doc:"read the members of each file as the columns of one table: one input part per file, one record per row, a field per array named by it, in file order; they must have the same length along axis 0 (a 0-d array counts as one row; members all 0-d are one 0-d record); a file of one array reads as that array (npyflow convert does this when the output is not an archive)"`
}

// parquetSourceOpts are the options of the parquet source.
type parquetSourceOpts struct {
	fileSourceOpts
	foreign.SourceOptions
}

// zarrSourceOpts are the options of the zarr source.
type zarrSourceOpts struct {
	fileSourceOpts
	Arrays   []string `opt:"arrays" flag:"array" flagtype:"string" flagdoc:"use only this array of the Zarr store (group/data)" doc:"the array paths to read, group/data (default: every array of the group)"`
	Table    bool     `opt:"table" default:"false" doc:"read the arrays of each file as the columns of one table: one input part per file, one record per row, a field per array named by it, in file order; they must have the same length along axis 0 (a 0-d array counts as one row; members all 0-d are one 0-d record); a file of one array reads as that array (npyflow convert does this when the output is not an archive)"`
	BandRows int64    `opt:"band_rows" default:"0" min:"0" doc:"read each array as input parts of about this many rows, each a band of whole chunks (or shards) along the first axis: rounded up to a multiple of the chunk's rows, the last band shorter. A sharded run spreads the bands over its tasks, so each reads only its own chunks; a band's member is the array's path and its rows, data[0:1000]. 0: one part per array"`
}

// castTransformOpts are the options of the cast transform.
type castTransformOpts struct {
	Fields     []job.KV `opt:"fields" checkvalue:"dtype" doc:"field: new type (int32, float64, <i4, ...)"`
	To         *string  `opt:"to" check:"dtype" doc:"the new type of every numeric field (or of a plain array)"`
	OnOverflow string   `opt:"on_overflow" enum:"error,saturate" default:"error" doc:"error: fail naming the row and value; saturate: clamp to the type's range (NaN becomes 0)"`
}

// describeTransformOpts are the options of the describe transform.
type describeTransformOpts struct {
	Fields    []string `opt:"fields" doc:"the columns to describe (default: every numeric one)"`
	Quantiles []string `opt:"quantiles" doc:"quantile probabilities between 0 and 1 (default 0.25, 0.5, 0.75; columns q25, q50, q75), linear interpolation like numpy"`
	Ddof      int64    `opt:"ddof" default:"1" min:"0" doc:"delta degrees of freedom of std: 1 is pandas' describe (sample std), 0 is np.std"`
	SkipNan   bool     `opt:"skip_nan" default:"false" doc:"ignore NaN values like np.nanmean (otherwise a NaN makes its column's statistics NaN)"`
	Sample    int64    `opt:"sample" default:"0" min:"0" doc:"estimate quantiles from a sample of this many values per column (0: exact, holding every value)"`
}

// dropTransformOpts are the options of the drop transform.
type dropTransformOpts struct {
	Fields []string `opt:"fields,required" doc:"the fields to remove"`
}

// filterTransformOpts are the options of the filter transform.
type filterTransformOpts struct {
	Where string `opt:"where,required" check:"predicate" doc:"the predicate"`
}

// flattenTransformOpts are the options of the flatten transform.
type flattenTransformOpts struct {
	Separator string `opt:"separator" default:"_" doc:"joins parent and child names"`
	Column    string `opt:"column" default:"value" doc:"the base name of a plain array's columns"`
}

// limitTransformOpts are the options of the limit transform.
type limitTransformOpts struct {
	Rows int64 `opt:"rows,required" min:"0" doc:"how many rows to keep"`
}

// pcaTransformOpts are the options of the pca transform.
type pcaTransformOpts struct {
	Fields     []string `opt:"fields" doc:"the columns to analyse (default: every numeric one not in keep)"`
	Components int64    `opt:"components" default:"2" min:"1" doc:"how many components to keep"`
	Output     string   `opt:"output" enum:"components,scores" default:"components" doc:"components: one row per component (variance, ratio, loadings); scores: one row per input row with columns pc1..pck"`
	Keep       []string `opt:"keep" doc:"with output: scores, input columns of any type copied next to the scores (e.g. an id to join on); they are left out of the default fields"`
	SampleRows int64    `opt:"sample_rows" default:"0" min:"0" doc:"fit on a uniform sample of this many rows (0: every row, held in memory)"`
	Seed       int64    `opt:"seed" default:"0" doc:"seed of the row sample"`
}

// renameTransformOpts are the options of the rename transform.
type renameTransformOpts struct {
	Fields []job.KV `opt:"fields,required" doc:"old name: new name"`
}

// sampleTransformOpts are the options of the sample transform.
type sampleTransformOpts struct {
	Fraction float64 `opt:"fraction,required" min:"0" max:"1" doc:"the probability of keeping a row"`
	Seed     int64   `opt:"seed" default:"0" doc:"the random seed"`
}

// selectTransformOpts are the options of the select transform.
type selectTransformOpts struct {
	Fields []string `opt:"fields,required" doc:"the fields to keep, in output order"`
}

// sliceTransformOpts are the options of the slice transform.
type sliceTransformOpts struct {
	Start int64  `opt:"start" default:"0" min:"0" doc:"first row (0-based)"`
	Stop  *int64 `opt:"stop" min:"0" doc:"row to stop before (default: the end)"`
	Step  int64  `opt:"step" default:"1" min:"1" doc:"keep every step-th row"`
}

// unstackTransformOpts are the options of the unstack transform.
type unstackTransformOpts struct {
	Axes      int64    `opt:"axes" default:"1" min:"1" doc:"how many leading axes of the row shape to move into rows"`
	Index     []string `opt:"index" doc:"int64 column(s) giving each new row's position along the unstacked axes: one name for the flat position in C order (0 to a*b-1 for 2 axes of a and b), or one name per axis for the position along each"`
	RowNumber *string  `opt:"row_number" doc:"an int64 column with the number of the source row the new row came from, counted from 0 in each input file or npz member (among the rows reaching unstack)"`
	Column    string   `opt:"column" default:"value" doc:"with index or row_number, the name of the data column when the rows are not records (or still have axes left)"`
}

// arrowSinkOpts are the options of the arrow sink.
type arrowSinkOpts struct {
	fileSinkOpts
	Format      *string `opt:"format" enum:"file,stream" default:"file" doc:"IPC file (random access, .arrow) or stream (.arrows); a path ending in .arrows is a stream unless format says otherwise"`
	Compression string  `opt:"compression" enum:"none,lz4,zstd" flag:"compression" flagvalue:"arrow-compression" flagdoc:"buffer compression: none (the default for .arrow, as pyarrow.ipc and Polars write it: memory-mappable), lz4 (the default for .feather, as pyarrow.feather) or zstd" doc:"buffer compression (default: lz4 for a .feather path, as pyarrow.feather writes it; none otherwise, as pyarrow.ipc and Polars write it: memory-mappable)"`
	Column      string  `opt:"column" default:"value" check:"template" flag:"name" convert:"{array}" doc:"the column name of a plain (non-record) array; with {array} etc. in it, named after the input part (the first of a file)"`
	BatchRows   int64   `opt:"batch_rows" default:"65536" min:"1" doc:"rows per record batch"`
}

// hdf5SinkOpts are the options of the hdf5 sink.
type hdf5SinkOpts struct {
	fileSinkOpts
	Dataset          string   `opt:"dataset" default:"{member}" check:"template" flag:"name" convert:"{array}" doc:"the dataset path; with {stem} etc. in it, one dataset per input part; an empty name (a plain .npy has no {member}) is the input file's stem"`
	Compression      *string  `opt:"compression" enum:"deflate,lz4,zstd,none" default:"deflate" flag:"compression" flagtype:"string" flagvalue:"hdf5-compression" flagdoc:"deflate (the default), lz4, zstd or none" doc:"the filter compressing each chunk, after the byte shuffle: deflate (HDF5's own, level 1-9, default 4), lz4 (filter 32004, no level) or zstd (filter 32015, level 1-22, default 3), which need hdf5plugin in h5py; none stores the chunks as they are"`
	CompressionLevel int64    `opt:"compression_level" default:"0" min:"0" max:"22" flag:"compression-level" doc:"the compression level: deflate 1-9, zstd 1-22 (0: the compression's default; lz4 and none have no level)"`
	Compressed       bool     `opt:"compressed" default:"true" doc:"false is compression: none (kept for older jobs)"`
	Strings          string   `opt:"strings" enum:"fixed,vlen" default:"fixed" flag:"strings" flagtype:"string" flagdoc:"fixed (the default) or vlen: how numpy U strings are stored in HDF5" doc:"how numpy U (unicode) values are stored, as UTF-8 strings h5py reads as str (asstr()): fixed, fixed-length UTF-8 (h5py.string_dtype('utf-8', n)) sized for the longest value in bytes (the rows are spooled to a scratch file once to measure it), or vlen, variable-length UTF-8 (h5py.string_dtype()), which cannot hold a NUL character (such a value is refused); U fields of records are always fixed-length. S (bytes) stays fixed-length ASCII. npyflow reads both forms back as U (a record's UTF-8 field as U<n>, n its byte width, where h5py gives its bytes)"`
	Times            string   `opt:"times" enum:"opaque,int64" default:"opaque" flag:"times" flagtype:"string" flagdoc:"opaque (the default, h5py's NUMPY: tag) or int64 (with a units attribute)" doc:"how datetime64 and timedelta64 are stored: opaque, as h5py writes them (h5py.opaque_dtype: an opaque type tagged NUMPY:<M8[ms]>, which h5py and npyflow read back as that dtype), or int64, the counts as int64 (NaT is its minimum) with a units attribute in netCDF/CF style, for readers that know no opaque types: 'ms since 1970-01-01' for M8[ms], 'ms' for m8[ms] (s, ms, us, ns, h as numpy names them; min, days, weeks for m, D, W; '10 ms' for a multiple), on a record the attribute f.units for its field f; calendar months and years (M, Y) and generic times have no such unit and are refused"`
	Format           string   `opt:"format" enum:",hdf5,netcdf4" flag:"format" doc:"hdf5, or netcdf4: variables and dimensions as netCDF-C writes them, which ncdump, netCDF4-python and xarray read (default: netcdf4 for .nc and .nc4, hdf5 otherwise)"`
	Dims             []string `opt:"dims" flag:"dims" doc:"netCDF-4: the dimension names of each array's axes, first axis first (a table's one dimension is the first name); default dim_0, dim_1, ..."`
}

// matSinkOpts are the options of the mat sink.
type matSinkOpts struct {
	fileSinkOpts
	Variable      string `opt:"variable" default:"{member}" check:"template" flag:"name" convert:"{array}" doc:"the variable name; with {stem} etc. in it, one variable per input part; an empty name (a plain .npy has no {member}) is the input file's stem"`
	Version       string `opt:"version" enum:"7.3,7,6" default:"7.3" flag:"mat-version" doc:"the MAT-file version as MATLAB's save names it: 7.3 (HDF5, no 2 GiB limit), 7 (Level 5, zlib-compressed variables) or 6 (Level 5, uncompressed)"`
	Compressed    bool   `opt:"compressed" default:"true" flag:"compression" flagtype:"string" flagvalue:"deflate-or-none" flagdoc:"deflate (the default) or none" doc:"compress variables (v7.3 deflate chunks, v7 zlib)"`
	RenameInvalid bool   `opt:"rename_invalid" default:"false" flag:"rename-invalid" doc:"rename names that are not valid MATLAB identifiers (each rename is a warning) instead of refusing them"`
}

// npzSinkOpts are the options of the npz sink.
type npzSinkOpts struct {
	fileSinkOpts
	Member      string `opt:"member" default:"arr_0" check:"template" flag:"name" convert:"{array}" flagdoc:"the name of the array written (a Parquet or Arrow column, an .npz member, a MAT-file variable, an HDF5 dataset; default: the input's own name for it, or its base name)" doc:"the member key; with {stem}, {member}, {array} etc. in it, one member per input part; an empty name is the input file's stem"`
	Compressed  bool   `opt:"compressed" default:"false" flag:"compression" flagtype:"string" flagvalue:"npz-compression" flagdoc:"deflate (np.savez_compressed) or none (np.savez, the default)" doc:"Deflate members like np.savez_compressed"`
	SplitFields bool   `opt:"split_fields" default:"false" doc:"write each field of a record input as its own member, named by the field (np.savez(**table)), rather than one structured member; npyflow convert does this for Parquet and Arrow inputs"`
}

// parquetSinkOpts are the options of the parquet sink: its mode also
// takes append (datasets), so it declares its own.
type parquetSinkOpts struct {
	sinkPath
	Mode            string   `opt:"mode" enum:"overwrite,error_if_exists,append,skip_existing" default:"overwrite" doc:"what to do when the output exists: overwrite it (a dataset loses its earlier files when the run commits), fail, add part files next to the existing ones (datasets only), or leave it alone"`
	Compression     string   `opt:"compression" enum:"zstd,snappy,gzip,lz4,none" default:"zstd" flag:"compression" flagvalue:"parquet-compression" flagdoc:"the codec of every column: zstd (the default), snappy, gzip, lz4 or none" doc:"the codec of every column"`
	RowGroupRows    int64    `opt:"row_group_rows" min:"1" flag:"row-group-rows" doc:"rows per row group (default: 1Mi rows, fewer if over 128 MiB)"`
	PageSize        int64    `opt:"page_size" min:"1024" flag:"page-size" doc:"target data page size in bytes (default 1 MiB)"`
	TimestampUnit   string   `opt:"timestamp_unit" enum:"ms,us,ns" flag:"timestamp-unit" doc:"convert datetime64 columns to this unit (default: numpy's, s/m/h become ms; us for Spark)"`
	Dictionary      []string `opt:"dictionary" flag:"dictionary" doc:"columns to dictionary-encode"`
	BloomFilters    []string `opt:"bloom_filters" flag:"bloom-filter" doc:"columns to write bloom filters for"`
	Column          string   `opt:"column" default:"value" check:"template" flag:"name" convert:"{array}" flagdoc:"the column name of a plain (non-record) array (default: the input's base name)" doc:"the column name of a plain (non-record) array; with {array} etc. in it, named after the input part (the first of a file)"`
	Concurrency     int64    `opt:"concurrency" default:"0" min:"0" flag:"concurrency" doc:"row groups encoded at once besides the one filling (0: 1; memory is this plus one row group)"`
	PartitionBy     []string `opt:"partition_by" doc:"write a dataset partitioned Hive-style by these columns (path is its directory): path/col=value/.../part-<shard>-<seq>.parquet, values escaped as Hive does; the columns are not stored in the files. Captures of the source's paths are columns, so they can be partition keys"`
	Dataset         bool     `opt:"dataset" default:"false" doc:"write a dataset (a directory of part-<shard>-<seq>.parquet files) even without partition_by; sharded runs need a dataset or a per-input path"`
	MaxRowsPerFile  int64    `opt:"max_rows_per_file" min:"1" doc:"start a new part file after this many rows (datasets)"`
	MaxBytesPerFile int64    `opt:"max_bytes_per_file" min:"1024" doc:"start a new part file once a file reaches about this many bytes (datasets; estimated at the numpy row size until a file has 1 MiB of output, then at its compressed bytes per row)"`
	MaxOpenFiles    *int64   `opt:"max_open_files" default:"16" min:"1" doc:"part files open at once in a partitioned dataset; the least recently written is finished when another is needed"`
}

// zarrSinkOpts are the options of the zarr sink.
type zarrSinkOpts struct {
	fileSinkOpts
	Array            string `opt:"array" default:"{member}" check:"template" flag:"name" convert:"{array}" doc:"the array's path in the group; with {stem} etc. in it, one array per input part; an empty name is the input file's stem"`
	ZarrFormat       int64  `opt:"zarr_format" default:"3" min:"2" max:"3" flag:"zarr-format" doc:"the Zarr format written: 3 (zarr.json) or 2 (.zarray, for zarr-python 2)"`
	Chunks           string `opt:"chunks" check:"shape" flag:"chunks" doc:"the chunk shape, extents separated by commas (1000,100); fewer extents than axes leave the last axes whole; default: about 4 MiB chunks, whole trailing axes first"`
	Shards           string `opt:"shards" check:"shape" flag:"shards" doc:"the shard shape (v3 only), each extent a multiple of the chunk's: chunks are then inner chunks of shards of this shape; default: no sharding"`
	Compression      string `opt:"compression" enum:"zstd,lz4,blosc,gzip,zlib,none" default:"zstd" flag:"compression" flagtype:"string" flagdoc:"zstd (the default), blosc, gzip, lz4 (v2), zlib (v2) or none" doc:"the codec compressing each chunk: zstd (level 1-22, default 3), blosc (lz4 inside with byte shuffle, level 1-9), gzip (1-9), lz4 and zlib (v2 only), none"`
	CompressionLevel int64  `opt:"compression_level" default:"0" min:"0" max:"22" flag:"compression-level" doc:"the compression level (0: the codec's default)"`
	Strings          string `opt:"strings" enum:"fixed,vlen" default:"fixed" flag:"strings" flagtype:"string" flagdoc:"fixed (the default) or vlen: how numpy U and S strings are stored" doc:"how numpy U and S strings are stored: fixed (the default, as zarr-python does) or vlen (v2 object arrays with numcodecs' vlen-utf8 or vlen-bytes, v3 the string data type with vlen-utf8; no trailing NULs)"`
	Consolidated     bool   `opt:"consolidated" default:"true" flag:"consolidated" doc:"write consolidated metadata (.zmetadata in v2, inline in the group's zarr.json in v3), so readers list the arrays in one request"`
	SplitFields      bool   `opt:"split_fields" default:"false" doc:"write each field of a record input as its own array, named by the field (Zarr v3 has no structured types; xarray's variables); npyflow convert does this for Parquet and Arrow inputs"`
}

func (o *npzSourceOpts) tableOpt() bool  { return o.Table }
func (o *hdf5SourceOpts) tableOpt() bool { return o.Table }
func (o *matSourceOpts) tableOpt() bool  { return o.Table }
func (o *zarrSourceOpts) tableOpt() bool { return o.Table }

// OutMode is the mode option.
func (o *parquetSinkOpts) OutMode() string { return o.Mode }

// WritesDataset reports whether the sink writes a dataset directory:
// with partition_by or dataset: true (shard.SinkOptions).
func (o *parquetSinkOpts) WritesDataset() bool { return len(o.PartitionBy) > 0 || o.Dataset }
func (o *npzSinkOpts) splitFields() bool       { return o.SplitFields }
func (o *zarrSinkOpts) splitFields() bool      { return o.SplitFields }

// foreignOf returns the options of a parquet or arrow source (or of a
// conversion or inspection, given as one) as package foreign's.
func foreignOf(c *job.Component) *foreign.Options {
	var chars int64
	if a, ok := c.Opts().(*arrowSourceOpts); ok {
		chars = a.StringChars
	}
	return foreign.FromSource(c.Opts().(interface{ ForeignOptions() *foreign.SourceOptions }).ForeignOptions(), chars)
}
