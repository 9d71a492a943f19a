package matfile

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpen: any input opens and walks to arrays or to an error, without a
// panic and within small limits (run: go test -fuzz FuzzOpen -fuzztime 60s
// -fuzzminimizetime 5s ./matfile/; minimizing takes 60 s by default).
func FuzzOpen(f *testing.F) {
	for _, name := range append(level5Fixtures, level5ObjectFixtures...) {
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
	for _, name := range append(v73Fixtures, v73ObjectFixtures...) {
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

// Object fixtures (MATLAB-written, and synthetic v7.3) seeding the fuzz
// targets: the subsystem parser, the class decoders and ReadTable run on
// their mutants.
var (
	level5ObjectFixtures = []string{"objects/test_string_v7.mat", "objects/test_tables_v7.mat", "objects/test_maps_v7.mat",
		"objects/test_user_defined_v7.mat"}
	v73ObjectFixtures = []string{"objects/test_time_v73.mat", "objects/test_enum_v73.mat", "objects/test_dynamic_v73.mat",
		"objects/synth_objects_v73.mat"}
)

// FuzzSubsystemMeta: any linking metadata parses or is refused, and
// resolving every object of what parses (property values unreadable)
// never panics (run: go test -fuzz FuzzSubsystemMeta -fuzztime 60s
// ./matfile/).
func FuzzSubsystemMeta(f *testing.F) {
	for _, name := range append(append([]string(nil), level5ObjectFixtures...), v73ObjectFixtures...) {
		fh, err := OpenFile(filepath.Join("testdata", name), nil)
		if err != nil {
			f.Fatal(err)
		}
		ss, err := fh.subsystem()
		if err != nil {
			f.Fatal(err)
		}
		meta, err := ss.cell(-2)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(meta.data)
		fh.Close()
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := parseSubsystemMeta(b, binary.LittleEndian)
		if err != nil {
			return
		}
		s.ncells = 3
		s.cell = func(i int) (*mxNode, error) { return doubleNode(float64(i)), nil }
		for id := range s.objects {
			s.object(uint32(id))
		}
	})
}

// FuzzStrings: any uint64 words decode as a saved string array or are
// refused.
func FuzzStrings(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 'h', 0, 'i', 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		w := make([]uint64, len(b)/8)
		for i := range w {
			w[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
		strs, valid, dims, err := parseStrings(w)
		if err != nil {
			return
		}
		if n, _ := numel(dims); int64(len(strs)) != n || valid != nil && len(valid) != len(strs) {
			t.Fatalf("%d strings, %d valid, for %v", len(strs), len(valid), dims)
		}
	})
}
