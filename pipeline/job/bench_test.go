package job_test

import (
	"testing"

	"github.com/npyflow/npyflow/pipeline/job"
)

// benchJob has a source, three transforms and two sinks, with options of
// every type given.
const benchJob = `version: 1
sources:
  raw: {type: parquet, paths: [a.parquet, b/*.parquet], fill: {x: "0"}, decimal: scaled, columns: [x, y, z]}
transforms:
  s: {type: slice, input: raw, start: 10, step: 2}
  c: {type: cast, input: s, fields: {x: int32, y: float32}, on_overflow: saturate}
  f: {type: filter, input: c, where: "x > 3 and y < 2.5"}
sinks:
  pq: {type: parquet, input: f, path: "out/{stem}.parquet", compression: gzip, row_group_rows: 1000, dictionary: [x]}
  h5: {type: hdf5, input: f, path: out.h5, dataset: "g/{stem}", compression: zstd, compression_level: 5}
`

// BenchmarkLoad is the cost of validating a job and filling its
// components' options.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := job.Load("job.yaml", []byte(benchJob), nil); err != nil {
			b.Fatal(err)
		}
	}
}
