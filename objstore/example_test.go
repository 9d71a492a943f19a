package objstore_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/npyflow/npyflow/internal/fixtures"
	_ "github.com/npyflow/npyflow/objstore" // s3://, gs://, azblob://, https://
	"github.com/npyflow/npyflow/pipeline"
)

// Convert a local .npy file to Parquet in a bucket, and the bucket object
// back to a local .npy file, the same bytes as the input. Importing objstore is all it takes: every
// path npyflow takes (convert, inspect, a job's sources and sinks) may
// then be a bucket URL. A program names s3://bucket/key (credentials,
// region and endpoint as the AWS tools take them, or in the URL's query:
// s3://bucket/key?endpoint=http://127.0.0.1:8333&region=us-east-1);
// this example writes to mem://, an in-memory bucket that this package's
// tests register, so it runs without a network. The object appears only
// when it is complete: a failed or cancelled conversion leaves nothing.
func Example() {
	ctx := context.Background()
	in := filepath.Join(fixtures.Root(), "npy", "rec_strings_dates.npy")
	obj := "mem://t/example/readings.parquet" // e.g. s3://my-bucket/lake/readings.parquet

	res, err := pipeline.Convert(ctx, in, obj, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("wrote", res.Rows, "rows to", obj)

	back := filepath.Join(os.TempDir(), "example-readings-back.npy")
	defer os.Remove(back)
	if res, err = pipeline.Convert(ctx, obj, back, nil); err != nil {
		log.Fatal(err)
	}
	a, err := os.ReadFile(in)
	if err != nil {
		log.Fatal(err)
	}
	b, err := os.ReadFile(back)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("read", res.Rows, "rows back; the same .npy bytes:", bytes.Equal(a, b))
	// Output:
	// wrote 3 rows to mem://t/example/readings.parquet
	// read 3 rows back; the same .npy bytes: true
}
