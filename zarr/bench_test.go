package zarr

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkFloat64 writes and reads a float64 array (ZARR_BENCH_MB
// megabytes, default 64) in a local directory store, zstd and blosc-lz4,
// in 1 MiB-row chunks as zarr-python's default would cut them.
//
//	go test -run '^$' -bench Float64 -benchtime 1x ./zarr/
func BenchmarkFloat64(b *testing.B) {
	mb := 64
	if n, err := strconv.Atoi(os.Getenv("ZARR_BENCH_MB")); err == nil && n > 0 {
		mb = n
	}
	rows := int64(mb) << 20 / 8 / 1024
	data := make([]byte, rows*1024*8)
	for i := int64(0); i < rows*1024; i++ {
		binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(math.Sin(float64(i)*1e-3)*1000))
	}
	ctx := context.Background()
	for _, comp := range []string{"zstd", "blosc"} {
		dir := b.TempDir()
		b.Run("write/"+comp, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for range b.N {
				s := NewFSStore(filepath.Join(dir, "a.zarr"))
				w, err := CreateArray(ctx, s, "", CreateOptions{Format: 2, Shape: []int64{rows, 1024}, Chunks: []int64{256, 1024}, DType: DType{Descr: "<f8"}, Compression: comp, Level: 1})
				if err != nil {
					b.Fatal(err)
				}
				for p := 0; p < len(data); p += 8 << 20 {
					if err := w.WriteRows(ctx, data[p:min(len(data), p+8<<20)]); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("read/"+comp, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			buf := make([]byte, 8<<20)
			for range b.N {
				s := NewFSStore(filepath.Join(dir, "a.zarr"))
				a, err := OpenArray(ctx, s, "")
				if err != nil {
					b.Fatal(err)
				}
				band := int64(len(buf)) / (1024 * 8)
				for r := int64(0); r < rows; r += band {
					n := min(band, rows-r)
					if err := a.Read(ctx, []int64{r, 0}, []int64{n, 1024}, buf[:n*1024*8]); err != nil {
						b.Fatal(err)
					}
				}
				s.Close()
			}
		})
	}
}
