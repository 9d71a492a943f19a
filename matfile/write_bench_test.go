package matfile

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/npyflow/npyflow/npyio"
)

// wBenchCases are 64 MiB inputs: a wide matrix (transposed to
// column-major), a long vector, and a table (a structured array of four
// columns becoming a struct of column vectors).
func wBenchCases(b *testing.B) []struct {
	name string
	h    *npyio.Header
	data []byte
} {
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func(n int) []byte {
		d := make([]byte, n)
		for i := 0; i+8 <= n; i += 8 {
			// values with some redundancy, like measured data
			wNE.PutUint64(d[i:], uint64(rng.IntN(1<<20))*0x9E3779B97F4A7C15>>20)
		}
		return d
	}
	rec, err := npyio.NewStruct([]npyio.Field{{Name: "t", Type: npyio.Float64Type}, {Name: "id", Type: npyio.Int64Type}, {Name: "v", Type: npyio.Float32Type}, {Name: "w", Type: npyio.Float64Type}})
	if err != nil {
		b.Fatal(err)
	}
	const size = 64 << 20
	return []struct {
		name string
		h    *npyio.Header
		data []byte
	}{
		{"matrix8192x1024", &npyio.Header{DType: npyio.Float64Type, Shape: []int{8192, 1024}}, mk(size)},
		{"vector8M", &npyio.Header{DType: npyio.Float64Type, Shape: []int{size / 8}}, mk(size)},
		{"table2.4Mx4", &npyio.Header{DType: rec, Shape: []int{size / rec.Size}}, mk(size / rec.Size * rec.Size)},
	}
}

func wBench(b *testing.B, version string) {
	dir := b.TempDir()
	for _, c := range wBenchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			for i := 0; i < b.N; i++ {
				f, err := os.Create(filepath.Join(dir, "b.mat"))
				if err != nil {
					b.Fatal(err)
				}
				w, err := NewWriter(f, &WriteOptions{Version: version})
				if err != nil {
					b.Fatal(err)
				}
				vw, err := w.CreateVariable("x", c.h)
				if err != nil {
					b.Fatal(err)
				}
				rs := int(c.h.RowSize())
				batch := max(1, (1<<20)/rs) * rs // about 1 MiB of rows per Write
				for p := 0; p < len(c.data); p += batch {
					if err := vw.Write(c.data[p:min(p+batch, len(c.data))]); err != nil {
						b.Fatal(err)
					}
				}
				if err := vw.Close(); err != nil {
					b.Fatal(err)
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
	}
}

// BenchmarkWriteV73 streams 64 MiB variables into v7.3 files (chunked,
// deflate level 3 on all cores).
func BenchmarkWriteV73(b *testing.B) { wBench(b, "7.3") }

// BenchmarkWriteLevel5 streams 64 MiB variables into v7 (zlib) and v6
// (uncompressed) files.
func BenchmarkWriteLevel5(b *testing.B) {
	b.Run("v7", func(b *testing.B) { wBench(b, "7") })
	b.Run("v6", func(b *testing.B) { wBench(b, "6") })
}

// TestWriteBenchFile is the npyflow side of benchmarks/mat_write_bench.py:
// with MATFILE_BENCH_IN (an .npy), MATFILE_BENCH_OUT and
// MATFILE_BENCH_VERSION ("7.3", "7.3-none", "7", "6") set it streams the
// array into the MAT-file in 1 MiB batches and prints the time taken.
func TestWriteBenchFile(t *testing.T) {
	in, out, ver := os.Getenv("MATFILE_BENCH_IN"), os.Getenv("MATFILE_BENCH_OUT"), os.Getenv("MATFILE_BENCH_VERSION")
	if in == "" || out == "" {
		t.Skip("MATFILE_BENCH_IN/OUT not set (benchmarks/mat_write_bench.py sets them)")
	}
	start := time.Now()
	src, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		t.Fatal(err)
	}
	rd, err := npyio.NewReaderAt(src, st.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	opts := &WriteOptions{Version: strings.TrimSuffix(ver, "-none"), NoCompression: strings.HasSuffix(ver, "-none")}
	w, err := NewWriter(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	vw, err := w.CreateVariable("x", rd.Header())
	if err != nil {
		t.Fatal(err)
	}
	rows := max(1, int((1<<20)/max(rd.RowSize(), 1)))
	for {
		b, err := rd.Next(rows)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := vw.Write(b.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := vw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("RESULT op_secs=%.4f\n", time.Since(start).Seconds())
}

// TestWriteV73MemoryBounded streams a 192 MiB matrix and a 128 MiB table
// into a compressed v7.3 file and into a v6 file (written in place) in
// 1 MiB batches and checks that the heap stays far below the variable's
// size (not in -short mode).
func TestWriteV73MemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 320 MiB")
	}
	rec, err := npyio.NewStruct([]npyio.Field{{Name: "a", Type: npyio.Float64Type}, {Name: "b", Type: npyio.Int32Type}, {Name: "c", Type: npyio.Float32Type}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ver string
		h   *npyio.Header
	}{
		{"7.3", &npyio.Header{DType: npyio.Float64Type, Shape: []int{24576, 1024}}},
		{"7.3", &npyio.Header{DType: rec, Shape: []int{128 << 20 / 16}}},
		{"6", &npyio.Header{DType: npyio.Float64Type, Shape: []int{24576, 1024}}},
		{"6", &npyio.Header{DType: rec, Shape: []int{128 << 20 / 16}}},
	} {
		h := c.h
		f, err := os.Create(filepath.Join(t.TempDir(), "m.mat"))
		if err != nil {
			t.Fatal(err)
		}
		w, err := NewWriter(f, &WriteOptions{Version: c.ver})
		if err != nil {
			t.Fatal(err)
		}
		vw, err := w.CreateVariable("x", h)
		if err != nil {
			t.Fatal(err)
		}
		rs := int(h.RowSize())
		rows := (1 << 20) / rs
		batch := make([]byte, rows*rs)
		for i := range batch {
			batch[i] = byte(i * 31 >> 5)
		}
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base, peak := ms.HeapAlloc, ms.HeapAlloc
		for r := 0; r < h.Shape[0]; r += rows {
			n := min(rows, h.Shape[0]-r)
			if err := vw.Write(batch[:n*rs]); err != nil {
				t.Fatal(err)
			}
			if r%(16*rows) == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}
		if err := vw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		grow := int64(peak) - int64(base)
		t.Logf("v%s %s %v: heap grew by %.1f MiB for %d MiB of data", c.ver, h.DType, h.Shape, float64(grow)/(1<<20), h.DataSize()>>20)
		if grow > 40<<20 {
			t.Errorf("v%s %s %v: heap grew by %d MiB", c.ver, h.DType, h.Shape, grow>>20)
		}
	}
}
