package pipeline_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/pipeline"
	"github.com/npyflow/npyflow/pipeline/job"
)

// Convert one file to another format, chosen by the extensions.
func ExampleConvert() {
	in := filepath.Join(fixtures.Root(), "npy", "rec_strings_dates.npy")
	out := filepath.Join(os.TempDir(), "example-readings.parquet")
	defer os.Remove(out)

	res, err := pipeline.Convert(context.Background(), in, out, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(pipeline.FormatOf(in).Name, "->", pipeline.FormatOf(out).Name, res.Rows, "rows")
	// Output:
	// npy -> parquet 3 rows
}

// Run a job from Go: load and validate it (package job), plan it (which
// reads only the inputs' headers), run it.
func Example_job() {
	dir, err := os.MkdirTemp("", "example-job")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	text := fmt.Sprintf(`version: 1
sources:
  readings: {type: npy, paths: %q}
transforms:
  few: {type: limit, input: readings, rows: 2}
sinks:
  table: {type: parquet, input: few, path: readings.parquet}
`, filepath.Join(fixtures.Root(), "npy", "rec_strings_dates.npy"))
	j, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(text), nil)
	if err != nil {
		log.Fatal(err) // every problem of the job file, as file:line:col: path: message
	}
	ctx := context.Background()
	plan, err := pipeline.NewPlan(ctx, j, nil)
	if err != nil {
		log.Fatal(err)
	}
	sum, err := plan.Run(ctx, &pipeline.RunOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range sum.Sinks {
		fmt.Println(s.Sink, s.Rows, "rows to", filepath.Base(s.Files[0]))
	}
	// Output:
	// table 2 rows to readings.parquet
}
