package matfile

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

var level5Fixtures = []string{"scipy_v6.mat", "scipy_v7.mat", "scipy_be_v6.mat", "scipy_be_v7.mat",
	"octave_v6.mat", "octave_v7.mat", "octave_quirks_v7.mat", "scipy_object_v7.mat",
	"matlab/v7/struct.mat", "matlab/v7/cell.mat"}

var v73Fixtures = []string{"h5s_v73.mat", "h5py_matlab_v73.mat", "h5py_cycle_v73.mat",
	"matlab/v7.3/struct.mat", "matlab/v7.3/cell.mat"}

// walkAll opens and walks b, reading every array; it returns the error,
// or the error of the first variable skipped as unreadable (each
// variable is read on its own: see TestIsolation).
func walkAll(b []byte, opts *Options) error {
	f, err := Open(bytes.NewReader(b), int64(len(b)), opts)
	if err != nil {
		return err
	}
	infos, err := f.Variables()
	if err != nil {
		return err
	}
	err = f.Walk(func(path string, v *Var) error {
		a, err := v.Array()
		if err == nil && int64(len(a.Data)) != v.Header.DataSize() {
			panic("data size mismatch at " + path)
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, vi := range infos {
		if t, err := f.ReadTable(vi.Name); err == nil {
			t.Array()
		}
	}
	for _, vi := range infos {
		if vi.Err != nil {
			return vi.Err
		}
	}
	for _, w := range f.Warnings() {
		if w.Err != nil {
			return w.Err
		}
	}
	return nil
}

// TestTruncated: every prefix of every fixture (in steps) is an error or a
// valid shorter file, never a panic.
func TestTruncated(t *testing.T) {
	for _, name := range append(level5Fixtures, v73Fixtures...) {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		step := 1
		if testing.Short() {
			step = 7
		}
		if strings.Contains(name, "v73") {
			step = 97 // HDF5: the hdf5 package has its own truncation tests
		}
		for n := 0; n < len(b); n += step {
			err := walkAll(b[:n], nil)
			if n < HeaderSize && err == nil {
				t.Errorf("%s cut at %d: no error", name, n)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "matfile: ") {
				t.Errorf("%s cut at %d: error without the package prefix: %v", name, n, err)
			}
		}
	}
}

func TestBadTagsAndSizes(t *testing.T) {
	x := func(parts ...[]byte) []byte {
		return matFile(matrix(ClassDouble, 0, []int32{1, 2}, "x", parts...))
	}
	cases := map[string]struct {
		file []byte
		want string
	}{
		"element larger than the file": {matFile(func() []byte {
			e := matrix(ClassDouble, 0, []int32{1, 1}, "x", el(MiDOUBLE, f64s(1)))
			binary.LittleEndian.PutUint32(e[4:], 1<<31)
			return e
		}()), "truncated file"},
		"huge dimensions, little data": {matFile(matrix(ClassDouble, 0, []int32{1 << 30, 1 << 30}, "x", el(MiDOUBLE, f64s(1)))), "elements in 8 bytes"},
		"negative dimension":           {matFile(matrix(ClassDouble, 0, []int32{-1, 2}, "x", el(MiDOUBLE, f64s(1)))), "negative dimension"},
		"data of the wrong count":      {x(el(MiDOUBLE, f64s(1, 2, 3))), "are not the 2 elements"},
		"subelement overruns":          {x(func() []byte { e := el(MiDOUBLE, f64s(1, 2)); binary.LittleEndian.PutUint32(e[4:], 1000); return e }()), "overruns"},
		"small element over 4 bytes": {x(func() []byte {
			e := small(MiUINT8, []byte{1, 2})
			binary.LittleEndian.PutUint32(e, 9<<16|uint32(MiUINT8))
			return e
		}()), "small data element of 9 bytes"},
		"inexact int8 from double": {matFile(matrix(ClassInt8, 0, []int32{1, 1}, "x", el(MiDOUBLE, f64s(1.5)))), "not exactly representable"},
		"inexact double from int64": {matFile(matrix(ClassDouble, 0, []int32{1, 1}, "x", el(MiINT64, func() []byte {
			b := make([]byte, 8)
			binary.LittleEndian.PutUint64(b, 1<<53+1)
			return b
		}()))), "not exactly representable"},
		"int8 out of range":          {matFile(matrix(ClassInt8, 0, []int32{1, 1}, "x", small(MiINT16, []byte{0, 1}))), "not exactly representable"},
		"huge cell":                  {matFile(matrix(ClassCell, 0, []int32{1 << 30, 4}, "c")), "cannot fit"},
		"cell element not a matrix":  {matFile(matrix(ClassCell, 0, []int32{1, 1}, "c", el(MiDOUBLE, f64s(1)))), "not miMATRIX"},
		"missing flags":              {matFile(el(MiMATRIX, el(MiDOUBLE, f64s(1)))), "array flags"},
		"bad version":                {append(matFile()[:124:124], 0x00, 0x03, 'I', 'M'), "unknown MAT-file version"},
		"bad endian":                 {append(matFile()[:126:126], 'X', 'Y'), "endian indicator"},
		"not a MAT-file":             {[]byte(strings.Repeat("x", 200)), "not a MAT-file"},
		"sparse row out of range":    {matFile(matrix(ClassSparse, 0, []int32{2, 1}, "s", el(MiINT32, i32s(5)), el(MiINT32, i32s(0, 1)), el(MiDOUBLE, f64s(1)))), "row index 5 out of range"},
		"sparse bad column pointers": {matFile(matrix(ClassSparse, 0, []int32{2, 2}, "s", el(MiINT32, i32s(0)), el(MiINT32, i32s(0, 1, 0)), el(MiDOUBLE, f64s(1)))), "decrease"},
		"bad zlib": {matFile(func() []byte {
			c := compressed(matrix(ClassDouble, 0, []int32{1, 1}, "x", el(MiDOUBLE, f64s(1))))
			c[8] ^= 0xff
			return c
		}()), "compressed variable"},
		"bad zlib checksum": {matFile(func() []byte {
			c := compressed(matrix(ClassDouble, 0, []int32{1, 1}, "x", el(MiDOUBLE, f64s(1))))
			c[len(c)-1] ^= 0xff
			return c
		}()), "checksum"},
		"bad UTF-8":              {matFile(matrix(ClassChar, 0, []int32{1, 2}, "s", small(MiUTF8, []byte{0xff, 0xfe}))), "invalid UTF-8"},
		"top-level without name": {matFile(matrix(ClassDouble, 0, []int32{1, 1}, "", el(MiDOUBLE, f64s(1)))), "without a name"},
	}
	for name, c := range cases {
		err := walkAll(c.file, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.want)
		}
	}
}

// bomb is a miCOMPRESSED element inflating to a double column vector x
// whose miMATRIX tag declares declared data bytes, followed by actual
// zero bytes of data.
func bomb(declared uint32, actual int) []byte {
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	head := append(flagsEl(ClassDouble, 0, 0), el(MiINT32, i32s(int32(actual/8), 1))...)
	head = append(head, el(MiINT8, []byte("x"))...)
	dt := make([]byte, 8)
	binary.LittleEndian.PutUint32(dt, uint32(MiDOUBLE))
	binary.LittleEndian.PutUint32(dt[4:], uint32(actual))
	head = append(head, dt...)
	hdr := make([]byte, 8)
	binary.LittleEndian.PutUint32(hdr, uint32(MiMATRIX))
	binary.LittleEndian.PutUint32(hdr[4:], declared+uint32(len(head)))
	w.Write(hdr)
	w.Write(head)
	zero := make([]byte, 1<<20)
	for actual > 0 {
		n := min(actual, len(zero))
		w.Write(zero[:n])
		actual -= n
	}
	w.Close()
	out := make([]byte, 8, 8+z.Len())
	binary.LittleEndian.PutUint32(out, uint32(MiCOMPRESSED))
	binary.LittleEndian.PutUint32(out[4:], uint32(z.Len()))
	return append(out, z.Bytes()...)
}

func TestCompressedBomb(t *testing.T) {
	// 48 MiB of zeros in a few hundred KB: over a 16 MiB limit.
	b := matFile(bomb(48<<20, 48<<20))
	if len(b) > 1<<20 {
		t.Fatalf("bomb of %d bytes", len(b))
	}
	// Under the default limit it is a valid 6291456x1 double of zeros.
	vars, _, err := walkBytes(t, b, nil)
	if err != nil || vars["x"] == nil || vars["x"].Header.Shape[0] != 6<<20 {
		t.Fatalf("bomb under the limit: %v", err)
	}
	var le *LimitError
	err = walkAll(b, &Options{MaxVariableBytes: 16 << 20})
	if !errors.As(err, &le) || le.Hint != "MaxVariableBytes" {
		t.Errorf("bomb over the limit: %v", err)
	}
	// A tag declaring 2 GiB over a tiny stream: a truncation error, and
	// memory grows with the data, not with the declared size.
	b = matFile(bomb(1<<31-8, 1000))
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	err = walkAll(b, nil)
	runtime.ReadMemStats(&ms1)
	if err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("lying bomb: %v", err)
	}
	if d := ms1.TotalAlloc - ms0.TotalAlloc; d > 16<<20 {
		t.Errorf("lying bomb allocated %d bytes", d)
	}
}

func TestDeepNesting(t *testing.T) {
	inner := matrix(ClassDouble, 0, []int32{1, 1}, "", el(MiDOUBLE, f64s(1)))
	for i := 0; i < 200; i++ {
		name := ""
		if i == 199 {
			name = "c"
		}
		inner = matrix(ClassCell, 0, []int32{1, 1}, name, inner)
	}
	b := matFile(inner)
	var le *LimitError
	if err := walkAll(b, nil); !errors.As(err, &le) || le.Hint != "MaxDepth" {
		t.Errorf("deep nesting: %v", err)
	}
	vars, _, err := walkBytes(t, b, &Options{MaxDepth: 300})
	if err != nil || len(vars) != 1 || vars["c"+strings.Repeat("{1}", 200)] == nil {
		t.Errorf("with MaxDepth 300: %v %d", err, len(vars))
	}
	// Many elements: bounded by MaxElements.
	cells := make([][]byte, 100)
	for i := range cells {
		cells[i] = el(MiMATRIX, nil)
	}
	b = matFile(matrix(ClassCell, 0, []int32{10, 10}, "c", cells...))
	if err := walkAll(b, &Options{MaxElements: 50}); !errors.As(err, &le) || le.Hint != "MaxElements" {
		t.Errorf("many elements: %v", err)
	}
	vars, _, err = walkBytes(t, b, nil)
	if err != nil || len(vars) != 100 || vars["c{100}"] == nil || vars["c{100}"].Header.Shape[0] != 0 {
		t.Errorf("100 empty cells: %v %d", err, len(vars))
	}
}

func TestSparseLimit(t *testing.T) {
	b := matFile(matrix(ClassSparse, 0, []int32{100000, 100000}, "s", el(MiINT32, i32s(7)), el(MiINT32, ones(100001)), el(MiDOUBLE, f64s(2.5))))
	var le *LimitError
	if err := walkAll(b, nil); !errors.As(err, &le) || le.Hint != "MaxSparseBytes" {
		t.Errorf("big sparse: %v", err)
	}
	b = matFile(matrix(ClassSparse, 0, []int32{100, 200}, "s", el(MiINT32, i32s(7)), el(MiINT32, ones(201)), el(MiDOUBLE, f64s(2.5))))
	if err := walkAll(b, &Options{MaxSparseBytes: 100 * 200 * 8 / 2}); !errors.As(err, &le) {
		t.Errorf("sparse over a lowered limit: %v", err)
	}
	vars, _, err := walkBytes(t, b, &Options{MaxSparseBytes: 100 * 200 * 8})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := vars["s"].Array()
	d := view[float64](a.Data)
	if len(d) != 20000 || d[7] != 2.5 || d[8] != 0 {
		t.Errorf("sparse at the limit: %d values, d[7]=%v", len(d), d[7])
	}
}

// ones is column pointers [0, 1, 1, ...] of n entries (one nonzero in the
// first column).
func ones(n int) []byte {
	v := make([]int32, n)
	for i := 1; i < n; i++ {
		v[i] = 1
	}
	return i32s(v...)
}
