// Command pqread is the arrow-go pqarrow contender of the Parquet -> numpy
// comparison (workload w8): it reads every column of a Parquet file into
// an arrow.Table with pqarrow's ReadTable, as a program using arrow-go
// alone would, and prints the row count ("rows=<n>"). It prints no RESULT
// line: run.py times it as a whole process, as it times the npyflow CLI.
//
// It is a program of its own (not a gobench op) so that nothing npyflow
// registers with arrow-go (its bounded page decoders) is in the process:
// the whole process is the contender.
//
// usage: pqread IN.parquet
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: pqread IN.parquet")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fail(err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f, file.WithReadProps(parquet.NewReaderProperties(memory.DefaultAllocator)))
	if err != nil {
		fail(err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		fail(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		fail(err)
	}
	rows := tbl.NumRows()
	tbl.Release()
	fmt.Printf("rows=%d\n", rows)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pqread:", err)
	os.Exit(1)
}
