package pipeline

// Components backed by the arrowconv, parquetio and gonumconv packages.
// Until a package provides what a component needs, the component's options
// are still validated, and running it fails with ErrNotAvailable.

func unavailableBuilder(f func() error) builder {
	return func(c *Component, _ *Schema, _ *buildEnv) (node, error) {
		return nil, &dataError{pos: c.PosOf("type"), path: c.Path() + ".type", err: f()}
	}
}

func parquetFields() []Field {
	return []Field{
		{Name: "compression", Type: String, Default: "zstd", Enum: []string{"zstd", "snappy", "gzip", "lz4", "none"}, Doc: "the codec of every column"},
		{Name: "row_group_rows", Type: Int, Min: ptr(1), Doc: "rows per row group (default: 1Mi rows, fewer if over 128 MiB)"},
		{Name: "page_size", Type: Int, Min: ptr(1024), Doc: "target data page size in bytes (default 1 MiB)"},
		{Name: "timestamp_unit", Type: String, Enum: []string{"ms", "us", "ns"}, Doc: "convert datetime64 columns to this unit (default: numpy's, s/m/h become ms)"},
		{Name: "dictionary", Type: StringList, Doc: "columns to dictionary-encode"},
		{Name: "bloom_filters", Type: StringList, Doc: "columns to write bloom filters for"},
		{Name: "column", Type: String, Default: "value", Doc: "the column name of a plain (non-record) array"},
	}
}
