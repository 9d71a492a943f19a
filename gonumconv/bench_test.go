package gonumconv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkLoad20000x1000 loads a 20000x1000 float64 C-order .npy file
// (160 MB, generated in a temporary directory) as a *mat.Dense by each
// path, next to os.ReadFile of the same file. Run with
//
//	go test -run '^$' -bench Load20000x1000 -benchtime 10x ./gonumconv
func BenchmarkLoad20000x1000(b *testing.B) {
	const rows, cols = 20000, 1000
	dir := b.TempDir()
	path := filepath.Join(dir, "x.npy")
	x := mat.NewDense(rows, cols, nil)
	raw := x.RawMatrix().Data
	for i := range raw {
		raw[i] = float64(i%9973) * 0.5
	}
	if err := SaveMatrix(path, x); err != nil {
		b.Fatal(err)
	}
	// The same values in Fortran order: the transpose of a cols×rows Dense.
	fpath := filepath.Join(dir, "xf.npy")
	if err := SaveMatrix(fpath, mat.DenseCopyOf(x.T()).T()); err != nil {
		b.Fatal(err)
	}
	x, raw = nil, nil
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	size := st.Size()
	sink := 0.0

	b.Run("os.ReadFile", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			buf, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			sink += float64(buf[len(buf)-1])
		}
	})
	b.Run("ReadFile+Dense/view", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			a, err := npyio.ReadFile(path, nil)
			if err != nil {
				b.Fatal(err)
			}
			d, err := Dense(a, nil)
			if err != nil {
				b.Fatal(err)
			}
			sink += d.At(rows-1, cols-1)
		}
	})
	b.Run("ReadFile+Dense/copy", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			a, err := npyio.ReadFile(path, nil)
			if err != nil {
				b.Fatal(err)
			}
			d, err := Dense(a, &Options{Copy: true})
			if err != nil {
				b.Fatal(err)
			}
			sink += d.At(rows-1, cols-1)
		}
	})
	b.Run("Map+Dense/view", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			m, err := npyio.Map(path, nil)
			if err != nil {
				b.Fatal(err)
			}
			d, err := Dense(&m.Array, nil)
			if err != nil {
				b.Fatal(err)
			}
			sink += d.At(rows-1, cols-1)
			m.Close()
		}
	})
	// The mapped view touched in full (every page faulted in), to compare
	// with the paths that read every byte.
	b.Run("Map+Dense/view+sum", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			m, err := npyio.Map(path, nil)
			if err != nil {
				b.Fatal(err)
			}
			d, err := Dense(&m.Array, nil)
			if err != nil {
				b.Fatal(err)
			}
			sink += mat.Sum(d)
			m.Close()
		}
	})
	b.Run("fortran/ReadFile+Matrix/view", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			a, err := npyio.ReadFile(fpath, nil)
			if err != nil {
				b.Fatal(err)
			}
			m, err := Matrix(a, nil)
			if err != nil {
				b.Fatal(err)
			}
			sink += m.At(rows-1, cols-1)
		}
	})
	b.Run("fortran/ReadFile+Dense/copy", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			a, err := npyio.ReadFile(fpath, nil)
			if err != nil {
				b.Fatal(err)
			}
			d, err := Dense(a, &Options{Copy: true})
			if err != nil {
				b.Fatal(err)
			}
			sink += d.At(rows-1, cols-1)
		}
	})
	b.Run("RowReader.ReadAll", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			r, err := npyio.NewReaderAt(f, size, nil)
			if err != nil {
				b.Fatal(err)
			}
			rr, err := NewRowReader(r, nil)
			if err != nil {
				b.Fatal(err)
			}
			d, err := rr.ReadAll(nil)
			if err != nil {
				b.Fatal(err)
			}
			sink += d.At(rows-1, cols-1)
			f.Close()
		}
	})
	_ = sink
}

// BenchmarkSaveMatrix writes a 2000x1000 Dense and its transpose (a
// Fortran-order file from the same memory).
func BenchmarkSaveMatrix(b *testing.B) {
	x := mat.NewDense(2000, 1000, nil)
	path := filepath.Join(b.TempDir(), "x.npy")
	for name, m := range map[string]mat.Matrix{"dense": x, "transpose": x.T(), "strided view": x.Slice(0, 2000, 1, 999)} {
		b.Run(name, func(b *testing.B) {
			r, c := m.Dims()
			b.SetBytes(int64(r * c * 8))
			b.ReportAllocs()
			for b.Loop() {
				if err := SaveMatrix(path, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDescriber streams a 100000x8 matrix in 4096-row batches.
func BenchmarkDescriber(b *testing.B) {
	const rows, cols = 100000, 8
	x := mat.NewDense(rows, cols, nil)
	raw := x.RawMatrix().Data
	for i := range raw {
		raw[i] = float64((i*7919)%10007) / 3
	}
	for name, q := range map[string][]float64{"moments only": {}, "quartiles": nil} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(rows * cols * 8)
			b.ReportAllocs()
			for b.Loop() {
				d, err := NewDescriber(cols, &DescribeOptions{Quantiles: q})
				if err != nil {
					b.Fatal(err)
				}
				for i := 0; i < rows; i += 4096 {
					if err := d.Add(x.Slice(i, min(i+4096, rows), 0, cols)); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := d.Result(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
