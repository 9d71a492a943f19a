package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/npyio"
)

// writeH5 writes a rows x 8 float64 dataset /g/x (chunked and deflated
// if deflate) with the hdf5 writer.
func writeH5(b testing.TB, path string, rows int, deflate bool) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w, err := hdf5.NewWriter(f, nil)
	if err != nil {
		b.Fatal(err)
	}
	g, err := w.Root().CreateGroup("g")
	if err != nil {
		b.Fatal(err)
	}
	o := &hdf5.DatasetOptions{Contiguous: true}
	if deflate {
		o = &hdf5.DatasetOptions{Chunk: []uint64{1 << 14, 8}, Deflate: 1, Shuffle: true}
	}
	d, err := g.CreateDataset("x", npyio.Float64Type, []uint64{uint64(rows), 8}, o)
	if err != nil {
		b.Fatal(err)
	}
	row := make([]float64, 8<<12)
	for done := 0; done < rows; done += 1 << 12 {
		n := min(1<<12, rows-done)
		for i := range row[:n*8] {
			row[i] = float64(done*8+i) * 0.25
		}
		if err := d.Write(npyio.AsBytes(row[:n*8])); err != nil {
			b.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkConvertHDF5 converts a 64 MiB float64 dataset to .npy and to
// a v7.3 .mat (contiguous input; and chunked+deflate), reporting the
// peak heap growth as heap-MiB: the dataset streams in row batches.
func BenchmarkConvertHDF5(b *testing.B) {
	dir := b.TempDir()
	const rows = 1 << 20 // x 8 float64 = 64 MiB
	for _, c := range []struct {
		name    string
		deflate bool
		out     string
	}{{"contiguous-to-npy", false, "npy"}, {"deflate-to-npy", true, "npy"}, {"contiguous-to-mat73", false, "mat"}} {
		in := filepath.Join(dir, c.name+".h5")
		writeH5(b, in, rows, c.deflate)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(rows * 8 * 8)
			var peak uint64
			for i := 0; i < b.N; i++ {
				runtime.GC()
				var m0 runtime.MemStats
				runtime.ReadMemStats(&m0)
				out := filepath.Join(dir, "out."+c.out)
				if _, err := Convert(context.Background(), in, out, &ConvertOptions{Flags: map[string]string{"compression": "none", "rename-invalid": "true"}, Warn: func(string) {}}); err != nil {
					b.Fatal(err)
				}
				var m1 runtime.MemStats
				runtime.ReadMemStats(&m1)
				if m1.HeapSys > m0.HeapSys && m1.HeapSys-m0.HeapSys > peak {
					peak = m1.HeapSys - m0.HeapSys
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "heap-MiB")
		})
	}
}
