package pipeline

import (
	"testing"

	"github.com/npyflow/npyflow/pipeline/job"
)

// TestDefaultStateDirURL: the default state directory of a job whose
// first sink writes to a bucket URL keeps the URL's query (the endpoint
// and region the shards and the commit must reach), also when the
// query follows a placeholder of a per-input file name.
func TestDefaultStateDirURL(t *testing.T) {
	const q = "?endpoint=http%3A%2F%2F127.0.0.1%3A8333&region=us-east-1"
	cases := []struct{ name, sink, want string }{
		{"per-input files", `{type: npy, input: r, path: "s3://b/out/{stem}.npy` + q + `"}`, "s3://b/out/_npyflow" + q},
		{"one file", `{type: npy, input: r, path: "s3://b/out/all.npy` + q + `"}`, "s3://b/out/_npyflow" + q},
		{"dataset", `{type: parquet, input: r, path: "s3://b/ds` + q + `", dataset: true}`, "s3://b/ds/_npyflow" + q},
		{"no query", `{type: npy, input: r, path: "s3://b/out/{stem}.npy"}`, "s3://b/out/_npyflow"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j, err := job.Load("job.yaml", []byte("version: 1\nsources:\n  r: {type: npy, paths: in.npy}\nsinks:\n  o: "+c.sink+"\n"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := DefaultStateDir(j); got != c.want {
				t.Errorf("DefaultStateDir = %s, want %s", got, c.want)
			}
		})
	}
}
