package matfile

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpen: any input opens and walks to arrays or to an error, without a
// panic and within small limits (run: go test -fuzz FuzzOpen -fuzztime 60s
// -fuzzminimizetime 5s ./matfile/; minimizing takes 60 s by default).
func FuzzOpen(f *testing.F) {
	for _, name := range level5Fixtures {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(matFile(matrix(ClassSparse, 0, []int32{3, 2}, "s", el(MiINT32, i32s(0, 2)), el(MiINT32, i32s(0, 1, 2)), el(MiDOUBLE, f64s(1, 2)))))
	f.Add(matFile(compressed(matrix(ClassChar, 0, []int32{1, 2}, "c", small(MiUTF16, []byte{'h', 0, 'i', 0})))))
	f.Add(matFile(compressed(matrix(ClassDouble, 0, []int32{100, 1}, "x", el(MiUINT8, make([]byte, 100))))))
	// Small variables stream too, so the streaming path is fuzzed.
	old := streamMin
	streamMin = 64
	f.Cleanup(func() { streamMin = old })
	opts := &Options{MaxVariableBytes: 8 << 20, MaxSparseBytes: 8 << 20, MaxElements: 1 << 14}
	f.Fuzz(func(t *testing.T, b []byte) {
		walkAll(b, opts)
	})
}

// FuzzOpenV73: v7.3 fixtures as seeds; exercises the v7.3 conventions on
// top of the hdf5 package (which has its own fuzz targets).
func FuzzOpenV73(f *testing.F) {
	for _, name := range v73Fixtures {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	opts := &Options{MaxVariableBytes: 8 << 20, MaxSparseBytes: 8 << 20, MaxElements: 1 << 14}
	f.Fuzz(func(t *testing.T, b []byte) {
		walkAll(b, opts)
	})
}
