package hdf5

import (
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// wDiscard is an io.WriteSeeker that keeps nothing but the file's size.
type wDiscard struct{ pos, end int64 }

func (d *wDiscard) Write(p []byte) (int, error) {
	d.pos += int64(len(p))
	d.end = max(d.end, d.pos)
	return len(p), nil
}
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

// wBenchNoisy is rows x 16 float64 of a random walk at full precision
// (measurement-like data that compresses little).
func wBenchNoisy(rows int) []byte {
	rng := rand.New(rand.NewPCG(5, 6))
	v := make([]float64, rows*16)
	x := 0.0
	for i := range v {
		x += rng.NormFloat64() * 0.01
		v[i] = x
	}
	return npyio.AsBytes(v)
}

func wBenchWrite(b *testing.B, f func() io.WriteSeeker, opts *DatasetOptions, workers int) {
	wBenchWriteData(b, wBenchData(wBenchRows), f, opts, workers)
}

func wBenchWriteData(b *testing.B, data []byte, f func() io.WriteSeeker, opts *DatasetOptions, workers int) {
	const batch = 8192 * 16 * 8
	rows := uint64(len(data) / (16 * 8))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		w, err := NewWriter(f(), &WriterOptions{Threads: workers})
		if err != nil {
			b.Fatal(err)
		}
		d, err := w.Root().CreateDataset("x", npyio.Float64Type, []uint64{rows, 16}, opts)
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

// BenchmarkWriteCompression: 256 MiB of float64 (2^21 x 16, smooth or
// noisy) in chunks of the default shape (about 1 MiB), shuffle then each
// compression at its default level (deflate 4, as npyflow's .h5 output
// uses), GOMAXPROCS workers, output discarded. "ratio" is the file's size
// over the data's. Slow: run one at a time, as in
//
//	go test -run '^$' -bench 'WriteCompression/noisy/zstd$' -benchtime 1x ./hdf5/
func BenchmarkWriteCompression(b *testing.B) {
	const rows = 1 << 21
	for _, data := range []struct {
		name string
		gen  func(int) []byte
	}{{"smooth", wBenchData}, {"noisy", wBenchNoisy}} {
		b.Run(data.name, func(b *testing.B) {
			raw := data.gen(rows)
			for _, c := range Compressions {
				b.Run(string(c), func(b *testing.B) {
					var out *wDiscard
					opts := &DatasetOptions{Compression: c, Shuffle: true}
					wBenchWriteData(b, raw, func() io.WriteSeeker { out = &wDiscard{}; return out }, opts, 0)
					b.ReportMetric(float64(out.end)/float64(len(raw)), "ratio")
				})
			}
		})
	}
}
