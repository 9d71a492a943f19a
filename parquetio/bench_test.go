package parquetio

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/npyflow/npyflow/npyio"
)

// benchRows is the size of the comparison in the issue: 10M rows of
// (int64, float64, float32, bool), zstd.
const benchRows = 10_000_000

var benchDescr = "[('i', '<i8'), ('f', '<f8'), ('g', '<f4'), ('b', '|b1')]"

func benchValue(r int) (int64, float64, float32, bool) {
	return int64(r) * 2654435761 % 1000003, math.Sin(float64(r)), float32(r%1000) / 7, r%3 == 0
}

var benchFileOnce struct {
	sync.Once
	path string
	err  error
}

// TestMain removes the benchmark's data file.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchFileOnce.path != "" {
		os.RemoveAll(filepath.Dir(benchFileOnce.path))
	}
	os.Exit(code)
}

// benchFile writes the benchmark's .npy once per process.
func benchFile(b *testing.B) string {
	benchFileOnce.Do(func() {
		dt, _ := npyio.ParseDescr(benchDescr)
		dir, err := os.MkdirTemp("", "parquetio-bench")
		if err != nil {
			benchFileOnce.err = err
			return
		}
		p := filepath.Join(dir, "bench.npy")
		f, err := os.Create(p)
		if err != nil {
			benchFileOnce.err = err
			return
		}
		defer f.Close()
		w, err := npyio.NewWriter(f, &npyio.Header{DType: dt, Shape: []int{benchRows}})
		if err != nil {
			benchFileOnce.err = err
			return
		}
		const chunk = 1 << 16
		buf := make([]byte, chunk*dt.Size)
		for r0 := 0; r0 < benchRows; r0 += chunk {
			n := min(chunk, benchRows-r0)
			for k := 0; k < n; k++ {
				i, f64, f32, bo := benchValue(r0 + k)
				row := buf[k*dt.Size:]
				copy(row[0:], npyio.AsBytes([]int64{i}))
				copy(row[8:], npyio.AsBytes([]float64{f64}))
				copy(row[16:], npyio.AsBytes([]float32{f32}))
				row[20] = 0
				if bo {
					row[20] = 1
				}
			}
			if _, err := w.Write(buf[:n*dt.Size]); err != nil {
				benchFileOnce.err = err
				return
			}
		}
		benchFileOnce.err = w.Close()
		benchFileOnce.path = p
	})
	if benchFileOnce.err != nil {
		b.Fatal(benchFileOnce.err)
	}
	return benchFileOnce.path
}

// BenchmarkNPYToParquet10M is npyflow's end-to-end conversion: reading the
// .npy file included, writing zstd Parquet to io.Discard.
func BenchmarkNPYToParquet10M(b *testing.B) {
	if testing.Short() {
		b.Skip("10M rows")
	}
	p := benchFile(b)
	// The default (one row group encoding, its columns in parallel, while
	// the next fills) and two row groups encoding at once.
	for _, conc := range []int{0, 2} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			b.SetBytes(benchRows * 21)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := WriteArray(io.Discard, fileOpener(p), "t", &Options{Concurrency: conc}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPQArrowFromMemory10M is arrow-go's Parquet writer writing the
// same columns, already in memory as Arrow arrays, with zstd and the same
// row group size.
func BenchmarkPQArrowFromMemory10M(b *testing.B) {
	if testing.Short() {
		b.Skip("10M rows")
	}
	mem := memory.NewGoAllocator()
	ib := array.NewInt64Builder(mem)
	fb := array.NewFloat64Builder(mem)
	gb := array.NewFloat32Builder(mem)
	bb := array.NewBooleanBuilder(mem)
	for r := 0; r < benchRows; r++ {
		i, f64, f32, bo := benchValue(r)
		ib.Append(i)
		fb.Append(f64)
		gb.Append(f32)
		bb.Append(bo)
	}
	cols := []arrow.Array{ib.NewArray(), fb.NewArray(), gb.NewArray(), bb.NewArray()}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
		{Name: "g", Type: arrow.PrimitiveTypes.Float32},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean},
	}, nil)
	rec := array.NewRecordBatch(schema, cols, benchRows)
	defer rec.Release()
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
	defer tbl.Release()
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDictionaryDefault(false))
	b.SetBytes(benchRows * 21)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := pqarrow.WriteTable(tbl, io.Discard, DefaultRowGroupRows, props, pqarrow.DefaultWriterProps()); err != nil {
			b.Fatal(err)
		}
	}
}
