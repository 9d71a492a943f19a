package pipeline

import (
	"github.com/npyflow/npyflow/pipeline/format"
	"github.com/npyflow/npyflow/pipeline/format/npyformat"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The components npyflow registers in package job's registry: the
// formats (each a source and a sink, format_*.go) and the transforms.
// Validation, the JSON schema (`npyflow schema`) and `npyflow list` are
// all generated from these specs.

func init() {
	// The built-in formats, in the order npyflow lists them (the .npy
	// format is a package on the contract), then every other format of
	// the contract (package format), as each registers.
	for _, f := range []*Format{contractFormat(npyformat.Format), npzFormat, parquetFormat, arrowFormat, hdf5Format, matFormat, zarrFormat, zarrZipFormat} {
		RegisterFormat(f)
	}

	register(&job.Spec{Kind: job.Transform, Type: "select", Summary: "keep only some fields, in the given order",
		Options: selectTransformOpts{}}, buildSelect)
	register(&job.Spec{Kind: job.Transform, Type: "drop", Summary: "remove fields",
		Options: dropTransformOpts{}}, buildDrop)
	register(&job.Spec{Kind: job.Transform, Type: "rename", Summary: "rename fields",
		Options: renameTransformOpts{}}, buildRename)
	register(&job.Spec{Kind: job.Transform, Type: "cast", Summary: "convert fields to other numeric types, checking for overflow",
		Doc:     "Converts numbers between bool, int8..int64, uint8..uint64, float16/32/64. A value that does not fit the new type (out of range, NaN or a fraction to an integer) is an error by default.",
		Options: castTransformOpts{}}, buildCast)
	register(&job.Spec{Kind: job.Transform, Type: "flatten", Summary: "turn nested records and subarrays into plain columns",
		Doc:     "Nested struct fields become parent<sep>child columns and subarray fields (and the row shape of a plain array) one column per element, name<sep>index. No data is copied.",
		Options: flattenTransformOpts{}}, buildFlatten)
	register(&job.Spec{Kind: job.Transform, Type: "filter", Summary: "keep the rows matching a predicate",
		Doc:     "A predicate compares fields with literals or with other fields: ==, !=, <, <=, >, >=, in [..] (literals only), combined with and, or, not and parentheses; e.g. temp > 20.5 and station in ['A', 'B'] and t_max > t_min. Either side of an operator may be the field (3 < a is a > 3), and chains compare neighbours like Python (0 <= x < 10 is 0 <= x and x < 10); a name is a field, so quote a field named like a keyword as `true`. Numbers (bool, int, uint, float32/64) compare by exact value across types (numpy casts int64/uint64 to float64 first, so it can differ beyond 2**53); NaN matches only !=. Strings compare with strings of the same kind (U with U, S with S), ignoring trailing NULs; datetime64/timedelta64 fields with numbers (their count) or fields of the same unit, datetime64 fields also with ISO 8601 strings compared as instants like numpy (t >= '2024-03-01', '2024-03-01T12:00' <= t < '2024-03-02'; no time zone), NaT like NaN. Other pairs are refused when the job is planned.",
		Options: filterTransformOpts{}}, buildFilter)
	register(&job.Spec{Kind: job.Transform, Type: "slice", Summary: "keep rows start:stop:step of the stream",
		Options: sliceTransformOpts{}}, buildSlice)
	register(&job.Spec{Kind: job.Transform, Type: "limit", Summary: "keep the first rows of the stream",
		Options: limitTransformOpts{}}, buildLimit)
	register(&job.Spec{Kind: job.Transform, Type: "sample", Summary: "keep a deterministic random fraction of rows",
		Doc:     "Whether a row is kept depends only on the seed and its position in the stream, so runs with any number of workers agree.",
		Options: sampleTransformOpts{}}, buildSample)
	register(&job.Spec{Kind: job.Transform, Type: "unstack", Summary: "turn leading axes of each row into rows",
		Doc:     "An array of shape (n, a, b, c) unstacked by 1 axis becomes (n*a, b, c): each row becomes a rows. Without index or row_number no data is copied. With them the rows become records: the int64 columns row_number, then index, then the data (a record's fields, or one column holding the rest of the row).",
		Options: unstackTransformOpts{}}, buildUnstack)
	register(&job.Spec{Kind: job.Transform, Type: "describe", Summary: "summary statistics of numeric columns (gonum)",
		Doc:     "Computes count, mean, std, min, quartiles and max of each numeric column (or each column of a 2-d array) in one pass, and emits one row per column.",
		Options: describeTransformOpts{}}, buildDescribe)
	register(&job.Spec{Kind: job.Transform, Type: "pca", Summary: "principal components of numeric columns (gonum)",
		Doc:     "Fits the principal components of the numeric columns (or of a 2-d array's columns) with gonum's stat.PC, on every row or a sample. output: components emits one row per component: its explained variance and ratio and its loading on each column. output: scores projects every input row onto the components and emits one row per input row, in order and in the input's parts: the kept columns, then pc1..pck (float64) = (row - mean) . component; component signs are fixed so each one's largest loading is positive. Scores come after the fit, so every row is held: in memory (at most 2 GiB of float64 values and kept columns) when fitting on every row, or spilled to a temporary file ($TMPDIR) when fitting on sample_rows, with only the sample in memory.",
		Options: pcaTransformOpts{}}, buildPCA)

	format.OnRegister(adoptFormat)
}
