package pipeline

// Components backed by the arrowconv, parquetio and gonumconv packages.
// Until a package provides what a component needs, the component's options
// are still validated, and running it fails with ErrNotAvailable.

var (
	parquetSourceUnavailable = notAvailable("the parquet source")
	arrowSourceUnavailable   = notAvailable("the arrow source")
	parquetSinkUnavailable   = notAvailable("the parquet sink")
	arrowSinkUnavailable     = notAvailable("the arrow sink")
	describeUnavailable      = notAvailable("the describe transform")
	pcaUnavailable           = notAvailable("the pca transform")
)

func unavailableBuilder(f func() error) builder {
	return func(c *Component, _ *Schema, _ *buildEnv) (node, error) {
		return nil, &dataError{pos: c.PosOf("type"), path: c.Path() + ".type", err: f()}
	}
}

var (
	buildParquetSource = unavailableBuilder(parquetSourceUnavailable)
	buildArrowSource   = unavailableBuilder(arrowSourceUnavailable)
	buildParquetSink   = unavailableBuilder(parquetSinkUnavailable)
	buildArrowSink     = unavailableBuilder(arrowSinkUnavailable)
	buildDescribe      = unavailableBuilder(describeUnavailable)
	buildPCA           = unavailableBuilder(pcaUnavailable)
)

func parquetFields() []Field {
	return []Field{
		{Name: "compression", Type: String, Default: "zstd", Enum: []string{"zstd", "snappy", "gzip", "lz4", "none"}, Doc: "the codec of every column"},
		{Name: "row_group_rows", Type: Int, Min: ptr(1), Doc: "rows per row group (default: 1Mi rows, fewer if over 128 MiB)"},
		{Name: "page_size", Type: Int, Min: ptr(1024), Doc: "target data page size in bytes (default 1 MiB)"},
		{Name: "timestamp_unit", Type: String, Enum: []string{"ms", "us", "ns"}, Doc: "convert datetime64 columns to this unit (default: numpy's, s/m/h become ms)"},
		{Name: "dictionary", Type: StringList, Doc: "columns to dictionary-encode"},
		{Name: "bloom_filters", Type: StringList, Doc: "columns to write bloom filters for"},
	}
}
