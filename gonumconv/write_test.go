package gonumconv

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/npyio"

	"gonum.org/v1/gonum/mat"
)

// base builds the matrix testdata/gen.py's base() builds:
// (-1)^(i+j) * (i*c + j + 0.125*j), exact in binary.
func base(r, c int) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m.Set(i, j, math.Pow(-1, float64(i+j))*(float64(i*c+j)+0.125*float64(j)))
		}
	}
	return m
}

// cbase builds gen.py's cbase(): base + 1j*(0.5*base + 1).
func cbase(r, c int) *mat.CDense {
	b := base(r, c)
	m := mat.NewCDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			v := b.At(i, j)
			m.Set(i, j, complex(v, 0.5*v+1))
		}
	}
	return m
}

// TestWriteMatchesNumpy writes gonum matrices and compares the bytes with
// np.save of the same numpy arrays (testdata/wr_*.npy, from gen.py).
func TestWriteMatchesNumpy(t *testing.T) {
	a := base(4, 5)
	sq := a.Slice(0, 4, 0, 4)
	sym := mat.NewSymDense(4, nil)
	for i := 0; i < 4; i++ {
		for j := i; j < 4; j++ {
			sym.SetSym(i, j, sq.At(i, j)+sq.At(j, i))
		}
	}
	tri := mat.NewTriDense(4, mat.Upper, nil)
	for i := 0; i < 4; i++ {
		for j := i; j < 4; j++ {
			tri.SetTri(i, j, sq.At(i, j))
		}
	}
	real := []struct {
		file string
		m    mat.Matrix
	}{
		{"wr_dense.npy", a},
		{"wr_t.npy", a.T()},
		{"wr_view.npy", a.Slice(1, 3, 1, 4)},
		{"wr_view_t.npy", a.Slice(1, 3, 1, 4).T()},
		{"wr_row_t.npy", a.Slice(0, 1, 0, 5).T()},
		{"wr_col.npy", a.Slice(0, 4, 2, 3)},
		{"wr_vec.npy", a.RowView(1)},
		{"wr_vec_strided.npy", a.ColView(1)},
		{"wr_vec.npy", mat.NewVecDense(5, mat.Row(nil, 1, a))},
		{"wr_sym.npy", sym},
		{"wr_tri.npy", tri},
		{"wr_t.npy", mat.Transpose{Matrix: mat.DenseCopyOf(a)}},
		{"wr_view.npy", mat.Matrix(anyMatrix{a.Slice(1, 3, 1, 4)})}, // generic At path
	}
	for _, tc := range real {
		t.Run(tc.file, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteMatrix(&buf, tc.m); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("bytes differ from numpy's:\n got %q\nwant %q", buf.Bytes(), want)
			}
		})
	}
	c := cbase(3, 4)
	cplx := []struct {
		file string
		m    mat.CMatrix
	}{
		{"wr_c.npy", c},
		{"wr_c_t.npy", c.T()},
		{"wr_c_h.npy", c.H()},
		{"wr_c_view.npy", c.Slice(0, 2, 1, 3)},
		{"wr_c_view_h.npy", c.Slice(0, 2, 1, 3).H()},
		{"wr_c.npy", anyCMatrix{c}},
	}
	for _, tc := range cplx {
		t.Run(tc.file, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteCMatrix(&buf, tc.m); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("bytes differ from numpy's:\n got %q\nwant %q", buf.Bytes(), want)
			}
		})
	}
}

// anyMatrix hides the concrete type, forcing the At path.
type anyMatrix struct{ m mat.Matrix }

func (a anyMatrix) Dims() (int, int)        { return a.m.Dims() }
func (a anyMatrix) At(i, j int) float64     { return a.m.At(i, j) }
func (a anyMatrix) T() mat.Matrix           { return mat.Transpose{Matrix: a} }
func (a anyCMatrix) Dims() (int, int)       { return a.m.Dims() }
func (a anyCMatrix) At(i, j int) complex128 { return a.m.At(i, j) }
func (a anyCMatrix) H() mat.CMatrix         { return mat.ConjTranspose{CMatrix: a} }
func (a anyCMatrix) T() mat.CMatrix         { return mat.CTranspose{CMatrix: a} }

type anyCMatrix struct{ m mat.CMatrix }

// TestWriteLarge checks chunked gathering across chunk boundaries: a
// strided transpose bigger than one chunk, written and read back.
func TestWriteLarge(t *testing.T) {
	big := mat.NewDense(700, 401, nil)
	for i := 0; i < 700; i++ {
		for j := 0; j < 401; j++ {
			big.Set(i, j, float64(i*1000+j))
		}
	}
	for name, m := range map[string]mat.Matrix{
		"strided":   big.Slice(3, 699, 1, 400),
		"strided T": big.Slice(3, 699, 1, 400).T(),
		"generic":   anyMatrix{big},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "m.npy")
			if err := SaveMatrix(p, m); err != nil {
				t.Fatal(err)
			}
			got, err := ReadDense(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(got, m) {
				t.Error("read back differs")
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("directory holds %d files, want only the result", len(ents))
			}
		})
	}
}

func TestSaveFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "missing", "m.npy")
	err := SaveMatrix(p, base(2, 2))
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want a not-exist error", err)
	}
	// A writer that fails mid-way: nothing but the error.
	fw := &failWriter{n: 200}
	if err := WriteMatrix(fw, base(40, 40)); err == nil {
		t.Fatal("no error from a failing writer")
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errors.New("disk full")
	}
	f.n -= len(p)
	return len(p), nil
}

func mustReadArray(t *testing.T, b []byte) *npyio.Array {
	t.Helper()
	a, err := npyio.ReadArray(bytes.NewReader(b), nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestRoundTrip writes and reads back, through Fortran order and views.
func TestRoundTrip(t *testing.T) {
	a := base(6, 3)
	var buf bytes.Buffer
	if err := WriteMatrix(&buf, a.T()); err != nil {
		t.Fatal(err)
	}
	arr := mustReadArray(t, buf.Bytes())
	if !arr.Header.FortranOrder {
		t.Fatal("transpose not written in Fortran order")
	}
	m, err := Matrix(arr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(m, a.T()) {
		t.Errorf("round trip through Fortran order differs")
	}
	if _, ok := m.(mat.Transpose); !ok {
		t.Errorf("Matrix of Fortran data is %T, want a mat.Transpose view", m)
	}
}
