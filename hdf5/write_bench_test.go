package hdf5

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// wDiscard is an io.WriteSeeker that keeps nothing.
type wDiscard struct{ pos int64 }

func (d *wDiscard) Write(p []byte) (int, error) { d.pos += int64(len(p)); return len(p), nil }
func (d *wDiscard) Seek(off int64, whence int) (int64, error) {
	if whence == io.SeekStart {
		d.pos = off
	} else {
		d.pos += off
	}
	return d.pos, nil
}

// wBenchData is rows x 16 float64 of smooth, moderately compressible
// values (a sensor-like signal rounded to 1e-3).
func wBenchData(rows int) []byte {
	v := make([]float64, rows*16)
	for i := range v {
		v[i] = math.Round(1000*math.Sin(float64(i)*1e-4)*100) / 1000
	}
	return npyio.AsBytes(v)
}

const wBenchRows = 1 << 19 // 64 MiB of float64

func wBenchWrite(b *testing.B, f func() io.WriteSeeker, opts *DatasetOptions, workers int) {
	data := wBenchData(wBenchRows)
	const batch = 8192 * 16 * 8
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		w, err := NewWriter(f(), &WriterOptions{Workers: workers})
		if err != nil {
			b.Fatal(err)
		}
		d, err := w.Root().CreateDataset("x", npyio.Float64Type, []uint64{wBenchRows, 16}, opts)
		if err != nil {
			b.Fatal(err)
		}
		for off := 0; off < len(data); off += batch {
			if err := d.Write(data[off:min(off+batch, len(data))]); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteChunkedDeflate: 64 MiB of float64 in chunks of 4096x16
// (512 KiB), shuffle + deflate level 3, compressed by 1 worker and by
// GOMAXPROCS workers; output discarded (compression is the cost).
func BenchmarkWriteChunkedDeflate(b *testing.B) {
	opts := &DatasetOptions{Chunk: []uint64{4096, 16}, Deflate: 3, Shuffle: true}
	for _, n := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("workers="+strconv.Itoa(n), func(b *testing.B) {
			wBenchWrite(b, func() io.WriteSeeker { return &wDiscard{} }, opts, n)
		})
	}
}

// BenchmarkWriteContiguous: 64 MiB of float64 to a file, contiguous.
func BenchmarkWriteContiguous(b *testing.B) {
	dir := b.TempDir()
	var f *os.File
	wBenchWrite(b, func() io.WriteSeeker {
		if f != nil {
			f.Close()
		}
		var err error
		f, err = os.Create(filepath.Join(dir, "c.h5"))
		if err != nil {
			b.Fatal(err)
		}
		return f
	}, &DatasetOptions{Contiguous: true}, 1)
	if f != nil {
		f.Close()
	}
}
