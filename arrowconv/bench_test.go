package arrowconv_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
)

// structuredFile writes n records of (i8, f8, f4, b1) to a temporary file.
func structuredFile(b *testing.B, n int) string {
	dt, err := npyio.NewStruct([]npyio.Field{
		{Name: "id", Type: npyio.Int64Type},
		{Name: "x", Type: npyio.Float64Type},
		{Name: "y", Type: npyio.Float32Type},
		{Name: "ok", Type: npyio.BoolType},
	})
	if err != nil {
		b.Fatal(err)
	}
	data := make([]byte, n*dt.Size)
	for i := 0; i < n; i++ {
		r := data[i*dt.Size:]
		copy(r[0:], npyio.AsBytes([]int64{int64(i)}))
		copy(r[8:], npyio.AsBytes([]float64{float64(i) / 3}))
		copy(r[16:], npyio.AsBytes([]float32{float32(i)}))
		r[20] = byte(i & 1)
	}
	return writeNPY(b, dt, []int{n}, data)
}

// BenchmarkStructured streams a structured array of (int64, float64,
// float32, bool) records from a file into record batches of 64K rows.
func BenchmarkStructured(b *testing.B) {
	for _, n := range []int{1 << 20, 10_000_000} {
		if n > 1<<20 && testing.Short() {
			continue
		}
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			path := structuredFile(b, n)
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			st, _ := f.Stat()
			b.SetBytes(int64(n) * 21)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				r, err := npyio.NewReaderAt(f, st.Size(), nil)
				if err != nil {
					b.Fatal(err)
				}
				rr, err := arrowconv.NewRecordReader(r, "", 64<<10, memory.DefaultAllocator)
				if err != nil {
					b.Fatal(err)
				}
				rows := int64(0)
				for rr.Next() {
					rows += rr.RecordBatch().NumRows()
				}
				if rr.Err() != nil || rows != int64(n) {
					b.Fatal(rows, rr.Err())
				}
				rr.Release()
			}
		})
	}
}

// BenchmarkFloat64ZeroCopy converts a whole native float64 array (as from
// npyio.Map or ReadFile) into one record batch: no bytes are copied, so the
// time and allocations do not grow with the length.
func BenchmarkFloat64ZeroCopy(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 20, 10_000_000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			a := float64Array(n)
			b.SetBytes(int64(n) * 8)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				rec, err := arrowconv.NewRecordBatch(a, "x", memory.DefaultAllocator)
				if err != nil {
					b.Fatal(err)
				}
				rec.Release()
			}
		})
	}
}

// BenchmarkFloat64Stream streams a native float64 file into 64K-row
// batches: each batch is read straight into its column buffer.
func BenchmarkFloat64Stream(b *testing.B) {
	n := 10_000_000
	if testing.Short() {
		n = 1 << 20
	}
	a := float64Array(n)
	path := writeNPY(b, a.DType, a.Header.Shape, a.Data)
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	b.SetBytes(int64(n) * 8)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r, err := npyio.NewReaderAt(f, st.Size(), nil)
		if err != nil {
			b.Fatal(err)
		}
		rr, err := arrowconv.NewRecordReader(r, "x", 64<<10, memory.DefaultAllocator)
		if err != nil {
			b.Fatal(err)
		}
		for rr.Next() {
		}
		if rr.Err() != nil {
			b.Fatal(rr.Err())
		}
		rr.Release()
	}
}

// BenchmarkWriteNPY writes 1M structured records from Arrow back to .npy.
func BenchmarkWriteNPY(b *testing.B) {
	n := 1 << 20
	path := structuredFile(b, n)
	a, err := npyio.ReadFile(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	out, err := os.Create(path + ".out")
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	b.SetBytes(int64(n) * 21)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rr, err := arrowconv.NewArrayRecordReader(a, "", 64<<10, memory.DefaultAllocator)
		if err != nil {
			b.Fatal(err)
		}
		out.Seek(0, 0)
		if _, err := arrowconv.WriteNPY(out, rr, nil); err != nil {
			b.Fatal(err)
		}
		rr.Release()
	}
}
