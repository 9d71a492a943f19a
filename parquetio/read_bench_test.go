package parquetio

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/npyflow/npyflow/npyio"
)

// readBenchRows is the size of the read benchmarks: 2M rows of (int64,
// float64, float32, bool), 42 MB of numpy data.
const readBenchRows = 2 << 20

var readBenchFiles sync.Map // codec -> []byte

// readBenchFile writes the read benchmarks' table with codec once per
// process, in memory.
func readBenchFile(b *testing.B, codec string) []byte {
	if v, ok := readBenchFiles.Load(codec); ok {
		return v.([]byte)
	}
	dt, err := npyio.ParseDescr(bench4.descr)
	if err != nil {
		b.Fatal(err)
	}
	data := make([]byte, readBenchRows*dt.Size)
	for r := 0; r < readBenchRows; r++ {
		i, f64, f32, bo, _ := benchValue(r)
		row := data[r*dt.Size:]
		store(row[0:], i)
		store(row[8:], f64)
		store(row[16:], f32)
		if bo {
			row[20] = 1
		}
	}
	out, err := writeMem(b, &npyio.Header{DType: dt, Shape: []int{readBenchRows}}, data, &Options{Compression: codec})
	if err != nil {
		b.Fatal(err)
	}
	readBenchFiles.Store(codec, out)
	return out
}

// BenchmarkParquetRead reads 2M rows of (i8, f8, f4, b1) back into numpy
// columns, per codec (files in memory; 1 MiB pages, one row group).
func BenchmarkParquetRead(b *testing.B) {
	for _, codec := range []string{"none", "snappy", "zstd", "lz4"} {
		b.Run(codec, func(b *testing.B) {
			file := readBenchFile(b, codec)
			b.SetBytes(readBenchRows * 21)
			b.ReportAllocs()
			for b.Loop() {
				rd, err := NewReader(bytes.NewReader(file), int64(len(file)))
				if err != nil {
					b.Fatal(err)
				}
				rows := 0
				for {
					n, _, err := rd.NextColumns(1 << 16)
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					rows += n
				}
				if rows != readBenchRows {
					b.Fatal(fmt.Sprint(rows, " rows"))
				}
			}
		})
	}
}

// BenchmarkNPYvsPQArrow compares, on one file (2M rows of (i8, f8, f4,
// b1), ZSTD, in memory, one row group): npyflow's Parquet -> .npy (the
// rows written as an .npy stream to io.Discard) and arrow-go's pqarrow
// ReadTable of every column (batches of 64Ki rows). The target is
// npyflow at most 1.0x pqarrow. In one process npyflow's page decoders
// (registered with arrow-go) serve both; benchmarks/pqread times pqarrow
// alone as a process of its own.
//
//	go test -run '^$' -bench NPYvsPQArrow -benchtime 10x ./parquetio
func BenchmarkNPYvsPQArrow(b *testing.B) {
	data := readBenchFile(b, "zstd")
	b.Run("npyflow-npy", func(b *testing.B) {
		b.SetBytes(readBenchRows * 21)
		for b.Loop() {
			rd, err := NewReader(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				b.Fatal(err)
			}
			h := rd.Header()
			h.FortranOrder = false
			w, err := npyio.NewWriter(io.Discard, h)
			if err != nil {
				b.Fatal(err)
			}
			for {
				bt, err := rd.Next(1 << 16)
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				if _, err := w.Write(bt.Data); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pqarrow-ReadTable", func(b *testing.B) {
		b.SetBytes(readBenchRows * 21)
		for b.Loop() {
			pf, err := file.NewParquetReader(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
			if err != nil {
				b.Fatal(err)
			}
			tbl, err := fr.ReadTable(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if tbl.NumRows() != readBenchRows {
				b.Fatal(tbl.NumRows())
			}
			tbl.Release()
		}
	})
}
