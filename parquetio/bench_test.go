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

// benchRows is the size of the comparisons in the issue: 10M rows of
// (int64, float64, float32, bool), and W3: the same with a datetime64[ms]
// column (no NaT), zstd.
const benchRows = 10_000_000

// benchTable is one benchmark table: its numpy descr and whether it has
// the time column.
type benchTable struct {
	name  string
	descr string
	time  bool
}

var (
	bench4  = benchTable{"i8,f8,f4,b1", "[('i', '<i8'), ('f', '<f8'), ('g', '<f4'), ('b', '|b1')]", false}
	benchW3 = benchTable{"W3", "[('i', '<i8'), ('f', '<f8'), ('g', '<f4'), ('b', '|b1'), ('t', '<M8[ms]')]", true}
)

func benchValue(r int) (int64, float64, float32, bool, int64) {
	return int64(r) * 2654435761 % 1000003, math.Sin(float64(r)), float32(r%1000) / 7, r%3 == 0,
		1704067200000 + int64(r)*500 + int64(r*7919%500)
}

var benchFiles struct {
	sync.Mutex
	dir   string
	paths map[string]string
}

// TestMain removes the benchmarks' data files.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchFiles.dir != "" {
		os.RemoveAll(benchFiles.dir)
	}
	os.Exit(code)
}

// benchFile writes a benchmark table's .npy once per process.
func benchFile(b *testing.B, bt benchTable) string {
	benchFiles.Lock()
	defer benchFiles.Unlock()
	if p, ok := benchFiles.paths[bt.name]; ok {
		return p
	}
	if benchFiles.dir == "" {
		dir, err := os.MkdirTemp("", "parquetio-bench")
		if err != nil {
			b.Fatal(err)
		}
		benchFiles.dir, benchFiles.paths = dir, map[string]string{}
	}
	dt, err := npyio.ParseDescr(bt.descr)
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(benchFiles.dir, fmt.Sprintf("bench%d.npy", len(benchFiles.paths)))
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w, err := npyio.NewWriter(f, &npyio.Header{DType: dt, Shape: []int{benchRows}})
	if err != nil {
		b.Fatal(err)
	}
	const chunk = 1 << 16
	buf := make([]byte, chunk*dt.Size)
	for r0 := 0; r0 < benchRows; r0 += chunk {
		n := min(chunk, benchRows-r0)
		for k := 0; k < n; k++ {
			i, f64, f32, bo, ts := benchValue(r0 + k)
			row := buf[k*dt.Size:]
			copy(row[0:], npyio.AsBytes([]int64{i}))
			copy(row[8:], npyio.AsBytes([]float64{f64}))
			copy(row[16:], npyio.AsBytes([]float32{f32}))
			row[20] = 0
			if bo {
				row[20] = 1
			}
			if bt.time {
				copy(row[21:], npyio.AsBytes([]int64{ts}))
			}
		}
		if _, err := w.Write(buf[:n*dt.Size]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	benchFiles.paths[bt.name] = p
	return p
}

// BenchmarkNPYToParquet10M is npyflow's end-to-end conversion: reading the
// .npy file included (twice for W3: the time column is observed first),
// writing zstd Parquet to io.Discard.
func BenchmarkNPYToParquet10M(b *testing.B) {
	if testing.Short() {
		b.Skip("10M rows")
	}
	for _, bt := range []benchTable{bench4, benchW3} {
		p := benchFile(b, bt)
		dt, _ := npyio.ParseDescr(bt.descr)
		// The default (one row group encoding, its columns in parallel,
		// while the next fills) and two row groups encoding at once.
		for _, conc := range []int{0, 2} {
			b.Run(fmt.Sprintf("%s/concurrency=%d", bt.name, conc), func(b *testing.B) {
				b.SetBytes(int64(benchRows * dt.Size))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := WriteArray(io.Discard, fileOpener(p), "t", &Options{Concurrency: conc}, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkObserve10M is the observation pass of W3 alone, as WriteArray
// runs it: the reads and the time column's NaT scan.
func BenchmarkObserve10M(b *testing.B) {
	if testing.Short() {
		b.Skip("10M rows")
	}
	p := benchFile(b, benchW3)
	dt, _ := npyio.ParseDescr(benchW3.descr)
	b.SetBytes(int64(benchRows * dt.Size))
	b.ReportAllocs()
	for b.Loop() {
		rs, err := fileOpener(p)()
		if err != nil {
			b.Fatal(err)
		}
		s, err := NewArraySchema(rs[0].Header(), "t")
		if err != nil {
			b.Fatal(err)
		}
		s.observeFor("")
		if err := observe(s, rs); err != nil {
			b.Fatal(err)
		}
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
	tsType := &arrow.TimestampType{Unit: arrow.Millisecond}
	tb := array.NewTimestampBuilder(mem, tsType)
	for r := 0; r < benchRows; r++ {
		i, f64, f32, bo, ts := benchValue(r)
		ib.Append(i)
		fb.Append(f64)
		gb.Append(f32)
		bb.Append(bo)
		tb.Append(arrow.Timestamp(ts))
	}
	cols := []arrow.Array{ib.NewArray(), fb.NewArray(), gb.NewArray(), bb.NewArray(), tb.NewArray()}
	fields := []arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
		{Name: "g", Type: arrow.PrimitiveTypes.Float32},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "t", Type: tsType},
	}
	for _, bt := range []benchTable{bench4, benchW3} {
		dt, _ := npyio.ParseDescr(bt.descr)
		n := 4
		if bt.time {
			n = 5
		}
		schema := arrow.NewSchema(fields[:n], nil)
		rec := array.NewRecordBatch(schema, cols[:n], benchRows)
		tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDictionaryDefault(false))
		b.Run(bt.name, func(b *testing.B) {
			b.SetBytes(int64(benchRows * dt.Size))
			b.ReportAllocs()
			for b.Loop() {
				if err := pqarrow.WriteTable(tbl, io.Discard, DefaultRowGroupRows, props, pqarrow.DefaultWriterProps()); err != nil {
					b.Fatal(err)
				}
			}
		})
		tbl.Release()
		rec.Release()
	}
}
