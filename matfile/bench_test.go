package matfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// level5Double builds a Level 5 file holding one n x 1 double x (values
// that do not compress to nothing), compressed or not.
func level5Double(n int, compress bool) []byte {
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = float64(i%1000) * 0.001
	}
	m := matrix(ClassDouble, 0, []int32{int32(n), 1}, "x", el(MiDOUBLE, f64s(vals...)))
	if compress {
		m = compressed(m)
	}
	return matFile(m)
}

func benchWalk(b *testing.B, f *File, name string) int64 {
	var n int64
	err := f.WalkVariables([]string{name}, func(path string, v *Var) error {
		rc, err := v.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		k, err := io.Copy(io.Discard, rc)
		n += k
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkReadLevel5: a 16 MiB double variable, v6 (uncompressed) and v7
// (zlib), opened and read from memory.
func BenchmarkReadLevel5(b *testing.B) {
	const n = 2 << 20
	for _, c := range []struct {
		name string
		comp bool
	}{{"v6", false}, {"v7", true}} {
		data := level5Double(n, c.comp)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(8 * n)
			for i := 0; i < b.N; i++ {
				f, err := Open(bytes.NewReader(data), int64(len(data)), nil)
				if err != nil {
					b.Fatal(err)
				}
				if got := benchWalk(b, f, "x"); got != 8*n {
					b.Fatalf("%d bytes", got)
				}
			}
		})
	}
}

// BenchmarkReadV73: the 300x200 chunked, deflated double "big" of the
// hdf5storage fixture, streamed.
func BenchmarkReadV73(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "h5s_v73.mat"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(300 * 200 * 8)
	for i := 0; i < b.N; i++ {
		f, err := Open(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			b.Fatal(err)
		}
		if got := benchWalk(b, f, "big"); got != 300*200*8 {
			b.Fatalf("%d bytes", got)
		}
	}
}

// BenchmarkReadFiles reads variable x (into memory, as loadmat does) of
// every .mat file in the directory
// named by MATFILE_BENCH_DIR (benchmarks/mat_read.py writes them), skipped
// when it is not set.
func BenchmarkReadFiles(b *testing.B) {
	dir := os.Getenv("MATFILE_BENCH_DIR")
	if dir == "" {
		b.Skip("MATFILE_BENCH_DIR not set")
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.mat"))
	for _, name := range names {
		st, err := os.Stat(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(name), func(b *testing.B) {
			var n int64
			for i := 0; i < b.N; i++ {
				f, err := OpenFile(name, nil)
				if err != nil {
					b.Fatal(err)
				}
				n = 0
				err = f.WalkVariables([]string{"x"}, func(path string, v *Var) error {
					a, err := v.Array()
					if err == nil {
						n += int64(len(a.Data))
					}
					return err
				})
				f.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(n)
			b.ReportMetric(float64(st.Size())/1e6, "fileMB")
		})
	}
}
