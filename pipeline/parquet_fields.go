package pipeline

import "github.com/npyflow/npyflow/pipeline/job"

func parquetFields() []job.Field {
	return []job.Field{
		{Name: "compression", Type: job.String, Default: "zstd", Enum: []string{"zstd", "snappy", "gzip", "lz4", "none"}, Doc: "the codec of every column", Flag: "compression"},
		{Name: "row_group_rows", Type: job.Int, Min: ptr(1), Doc: "rows per row group (default: 1Mi rows, fewer if over 128 MiB)", Flag: "row-group-rows"},
		{Name: "page_size", Type: job.Int, Min: ptr(1024), Doc: "target data page size in bytes (default 1 MiB)", Flag: "page-size"},
		{Name: "timestamp_unit", Type: job.String, Enum: []string{"ms", "us", "ns"}, Doc: "convert datetime64 columns to this unit (default: numpy's, s/m/h become ms; us for Spark)", Flag: "timestamp-unit"},
		{Name: "dictionary", Type: job.StringList, Doc: "columns to dictionary-encode", Flag: "dictionary"},
		{Name: "bloom_filters", Type: job.StringList, Doc: "columns to write bloom filters for", Flag: "bloom-filter"},
		{Name: "column", Type: job.String, Default: "value", Doc: "the column name of a plain (non-record) array", Flag: "name",
			FlagDoc: "the column name of a plain (non-record) array (default: the input's base name)"},
		{Name: "concurrency", Type: job.Int, Default: int64(0), Min: ptr(0), Flag: "concurrency",
			Doc: "row groups encoded at once besides the one filling (0: 1; memory is this plus one row group)"},
	}
}
