package arrowconv_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
)

// benchRecord builds n rows of (int64, float64, float32, bool), the
// issue-16 speed workload, plus a decimal(10,2) and a dictionary string
// column when wide is set.
func benchRecord(n int, wide bool) arrow.RecordBatch {
	fields := []arrow.Field{
		{Name: "i8", Type: arrow.PrimitiveTypes.Int64},
		{Name: "f8", Type: arrow.PrimitiveTypes.Float64},
		{Name: "f4", Type: arrow.PrimitiveTypes.Float32},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean},
	}
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	if wide {
		fields = append(fields, arrow.Field{Name: "dec", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}},
			arrow.Field{Name: "cat", Type: dictType})
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Float64Builder).Append(float64(i) / 3)
		b.Field(2).(*array.Float32Builder).Append(float32(i) / 7)
		b.Field(3).(*array.BooleanBuilder).Append(i%3 == 0)
		if wide {
			b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i)))
			b.Field(5).(*array.BinaryDictionaryBuilder).AppendString([]string{"red", "green", "blue"}[i%3])
		}
	}
	return b.NewRecordBatch()
}

// BenchmarkMappingEncode encodes 1M in-memory rows to numpy rows.
func BenchmarkMappingEncode(b *testing.B) {
	for _, wide := range []bool{false, true} {
		name := "i8-f8-f4-bool"
		if wide {
			name += "-decimal-dict"
		}
		b.Run(name, func(b *testing.B) {
			rec := benchRecord(1<<20, wide)
			defer rec.Release()
			m, err := arrowconv.MapSchema(rec.Schema(), nil)
			if err != nil {
				b.Fatal(err)
			}
			if m.NeedsScan() {
				if err := m.Scan(rec); err != nil {
					b.Fatal(err)
				}
			}
			size, _ := m.RowSize()
			out := make([]byte, 0, size*int(rec.NumRows()))
			b.SetBytes(int64(size) * rec.NumRows())
			for b.Loop() {
				if out, err = m.Encode(rec, out[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIPCToNPY converts an uncompressed IPC file of 1M rows of
// (int64, float64, float32, bool) to a .npy file with WriteMappedNPY, as
// the CLI does: compare with copying the file (BenchmarkIPCToNPY/cp).
func BenchmarkIPCToNPY(b *testing.B) {
	rec := benchRecord(1<<20, false)
	dir := b.TempDir()
	in := filepath.Join(dir, "x.arrow")
	f, err := os.Create(in)
	if err != nil {
		b.Fatal(err)
	}
	w, err := arrowconv.NewIPCWriter(f, rec.Schema(), arrowconv.DefaultIPCOptions(in), nil)
	if err != nil {
		b.Fatal(err)
	}
	for k := int64(0); k < 4; k++ {
		s := rec.NewSlice(k<<18, (k+1)<<18)
		w.Write(s)
		s.Release()
	}
	w.Close()
	f.Close()
	rec.Release()
	st, _ := os.Stat(in)
	out := filepath.Join(dir, "x.npy")
	b.Run("mapped", func(b *testing.B) {
		b.SetBytes(st.Size())
		for b.Loop() {
			f, err := os.Open(in)
			if err != nil {
				b.Fatal(err)
			}
			rr, err := arrowconv.NewIPCReader(f, nil)
			if err != nil {
				b.Fatal(err)
			}
			m, err := arrowconv.MapSchema(rr.Schema(), nil)
			if err != nil {
				b.Fatal(err)
			}
			o, err := os.Create(out)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := arrowconv.WriteMappedNPY(o, rr, m); err != nil {
				b.Fatal(err)
			}
			o.Close()
			rr.Release()
			f.Close()
		}
	})
	b.Run("cp", func(b *testing.B) {
		b.SetBytes(st.Size())
		for b.Loop() {
			src, err := os.Open(in)
			if err != nil {
				b.Fatal(err)
			}
			dst, err := os.Create(out)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := dst.ReadFrom(src); err != nil {
				b.Fatal(err)
			}
			dst.Close()
			src.Close()
		}
	})
}

// BenchmarkEncodeIPCFile encodes the first 16 record batches of the IPC
// file $NPYFLOW_BENCH_ARROW (skipped if unset; benchmarks/RESULTS.md used
// gen.py's struct table written by `npyflow convert --compression=none`)
// in chunks of 64Ki rows, as the CLI's Arrow -> .npy path does: "as-is"
// with the file's schema (for an npyflow-written file, numpy metadata and
// so the RowEncoder), "no-metadata" with every metadata removed (the
// Mapping, as for another producer's file). The batches are read once,
// before the timing.
func BenchmarkEncodeIPCFile(b *testing.B) {
	path := os.Getenv("NPYFLOW_BENCH_ARROW")
	if path == "" {
		b.Skip("NPYFLOW_BENCH_ARROW names no IPC file")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rr, err := arrowconv.NewIPCReader(f, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer rr.Release()
	var recs []arrow.RecordBatch
	for len(recs) < 16 && rr.Next() {
		rec := rr.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := rr.Err(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for _, plain := range []bool{false, true} {
		name := "as-is"
		if plain {
			name = "no-metadata"
		}
		b.Run(name, func(b *testing.B) {
			sch, use := rr.Schema(), recs
			if plain {
				fs := sch.Fields()
				for i := range fs {
					fs[i].Metadata = arrow.Metadata{}
				}
				sch = arrow.NewSchema(fs, nil)
				use = make([]arrow.RecordBatch, len(recs))
				for i, r := range recs {
					use[i] = array.NewRecordBatch(sch, r.Columns(), r.NumRows())
					defer use[i].Release()
				}
			}
			m, err := arrowconv.MapSchema(sch, nil)
			if err != nil {
				b.Fatal(err)
			}
			size, err := m.RowSize()
			if err != nil {
				b.Fatal(err)
			}
			var rows int64
			for _, r := range use {
				rows += r.NumRows()
			}
			b.SetBytes(rows * int64(size))
			var buf []byte
			for b.Loop() {
				for _, rec := range use {
					n := int(rec.NumRows())
					for start := 0; start < n; start += 1 << 16 {
						if buf, err = m.EncodeRows(rec, start, min(n, start+1<<16), buf[:0]); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
		})
	}
}

// BenchmarkEncodeRowsChunked encodes a record of 64Ki rows of (int64,
// float64, float32, bool) the way the pipeline's engine reads an Arrow
// part: EncodeRows over chunks of about 256 KiB of output, into a batch
// buffer reused (hot) or taken in turn from four (cold, as when batches
// are read ahead).
func BenchmarkEncodeRowsChunked(b *testing.B) {
	rec := benchRecord(1<<16, false)
	defer rec.Release()
	for _, bufs := range []int{1, 4} {
		for _, chunk := range []int{256 << 10, 2 << 20} {
			b.Run(fmt.Sprintf("bufs=%d/chunk=%dKiB", bufs, chunk>>10), func(b *testing.B) {
				m, err := arrowconv.MapSchema(rec.Schema(), nil)
				if err != nil {
					b.Fatal(err)
				}
				size, _ := m.RowSize()
				n := int(rec.NumRows())
				ring := make([][]byte, bufs)
				for i := range ring {
					ring[i] = make([]byte, size*n)
				}
				step := max(1, chunk/size)
				b.SetBytes(int64(size * n))
				b.ReportAllocs()
				k := 0
				for b.Loop() {
					buf := ring[k%bufs]
					k++
					for s := 0; s < n; s += step {
						e := min(n, s+step)
						if _, err := m.EncodeRows(rec, s, e, buf[s*size:s*size]); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}
