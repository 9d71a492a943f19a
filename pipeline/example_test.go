package pipeline_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/pipeline"
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
