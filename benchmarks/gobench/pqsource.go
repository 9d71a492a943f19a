package main

import (
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// pqSource4 writes the input of workload w8: ROWS rows of (i8: int64, f8:
// float64, f4: float32, b: bool), zstd, 1Mi-row groups, written by arrow-go
// pqarrow (a file from another producer: no npyflow metadata). Setup, not
// a contender.
func pqSource4(args []string) (result, error) {
	rows, err := strconv.Atoi(args[0])
	if err != nil || rows <= 0 {
		return result{}, fmt.Errorf("bad row count %q", args[0])
	}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "i8", Type: arrow.PrimitiveTypes.Int64},
		{Name: "f8", Type: arrow.PrimitiveTypes.Float64},
		{Name: "f4", Type: arrow.PrimitiveTypes.Float32},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean},
	}, nil)
	out, err := os.Create(args[1])
	if err != nil {
		return result{}, err
	}
	defer out.Close()
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDictionaryDefault(false),
		parquet.WithMaxRowGroupLength(pqRowGroup), parquet.WithStats(true))
	w, err := pqarrow.NewFileWriter(sc, out, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return result{}, err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for r0 := 0; r0 < rows; r0 += pqRowGroup {
		n := min(pqRowGroup, rows-r0)
		for r := r0; r < r0+n; r++ {
			// The values of parquetio's benchmarks: no long runs, few
			// repeats, so neither the encoders nor zstd have it easy.
			x := uint64(r) * 0x9E3779B97F4A7C15
			b.Field(0).(*array.Int64Builder).Append(int64(x>>20) - int64(r))
			b.Field(1).(*array.Float64Builder).Append(float64(r)*0.001 + math.Sin(float64(r)))
			b.Field(2).(*array.Float32Builder).Append(float32(r%100000) * 0.25)
			b.Field(3).(*array.BooleanBuilder).Append(x>>63 == 1)
		}
		rec := b.NewRecordBatch()
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			return result{}, err
		}
	}
	if err := w.Close(); err != nil {
		return result{}, err
	}
	return result{check: "rows=" + strconv.Itoa(rows)}, nil
}
