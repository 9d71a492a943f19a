package pipeline

import (
	"github.com/npyflow/npyflow/pipeline/expr"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The components npyflow registers in package job's registry: the
// formats (each a source and a sink, format_*.go) and the transforms.
// Validation, the JSON schema (`npyflow schema`) and `npyflow list` are
// all generated from these specs.

func init() {
	// The built-in formats, in the order npyflow lists them.
	for _, f := range []*Format{npyFormat, npzFormat, parquetFormat, arrowFormat, hdf5Format, matFormat, zarrFormat, zarrZipFormat} {
		RegisterFormat(f)
	}

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
}
