package gonumconv

import (
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
	"gonum.org/v1/gonum/mat"
)

// wantFloat returns numpy's value of a real element as float64, as
// a.astype(np.float64) would give it.
func wantFloat(dt *npyio.DType, raw json.RawMessage) float64 {
	switch dt.Kind {
	case npyio.Bool:
		if fixtures.Bool(raw) {
			return 1
		}
		return 0
	case npyio.Int:
		return float64(fixtures.Int(raw))
	case npyio.Uint:
		return float64(fixtures.Uint(raw))
	}
	return fixtures.Float(raw)
}

func wantComplex(raw json.RawMessage) complex128 {
	p := fixtures.List(raw)
	return complex(fixtures.Float(p[0]), fixtures.Float(p[1]))
}

func sameComplex(a, b complex128) bool {
	return fixtures.SameFloat(real(a), real(b)) && fixtures.SameFloat(imag(a), imag(b))
}

func sharesMemory[T any](data []T, b []byte) bool {
	return len(data) > 0 && len(b) > 0 && unsafe.Pointer(&data[0]) == unsafe.Pointer(&b[0])
}

// sources reads a fixture both ways: into memory, and memory-mapped.
func sources(t *testing.T, path string) map[string]*npyio.Array {
	t.Helper()
	a, err := npyio.ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := npyio.Map(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return map[string]*npyio.Array{"ReadFile": a, "Map": &m.Array}
}

func isRealKind(k npyio.Kind) bool {
	return k == npyio.Bool || k == npyio.Int || k == npyio.Uint || k == npyio.Float
}

// TestDenseFixtures reads every 2-D real numpy fixture as a Dense and a
// Matrix, in every order, byte order and dtype, and compares each element
// with numpy's a[i, j].
func TestDenseFixtures(t *testing.T) {
	n := 0
	for _, fx := range fixtures.NPYs(t) {
		dt, err := npyio.ParseTypeStr(fx.DTypeStr)
		if err != nil || len(fx.Shape) != 2 || !isRealKind(dt.Kind) || fx.Shape[0]*fx.Shape[1] == 0 {
			continue
		}
		n++
		t.Run(fx.Name, func(t *testing.T) {
			r, c := fx.Shape[0], fx.Shape[1]
			f64 := isFloat64(dt)
			for src, a := range sources(t, fx.Path) {
				check := func(what string, m mat.Matrix) {
					t.Helper()
					if gr, gc := m.Dims(); gr != r || gc != c {
						t.Fatalf("%s %s: dims %dx%d, want %dx%d", src, what, gr, gc, r, c)
					}
					for i := 0; i < r; i++ {
						for j := 0; j < c; j++ {
							want := wantFloat(dt, fx.Values[i*c+j])
							if got := m.At(i, j); !fixtures.SameFloat(got, want) {
								t.Fatalf("%s %s: [%d,%d] = %v, numpy has %v", src, what, i, j, got, want)
							}
						}
					}
				}
				// Without options: only float64, and Dense only in C order.
				d, err := Dense(a, nil)
				switch {
				case !f64:
					if !errors.Is(err, ErrDType) || !strings.Contains(err.Error(), "Options.Convert") {
						t.Fatalf("%s Dense without Convert: err %v, want ErrDType naming Options.Convert", src, err)
					}
				case fx.FortranOrder:
					if !errors.Is(err, ErrLayout) {
						t.Fatalf("%s Dense of Fortran order without Copy: err %v, want ErrLayout", src, err)
					}
				default:
					if err != nil {
						t.Fatal(err)
					}
					check("Dense view", d)
					if !sharesMemory(d.RawMatrix().Data, a.Data) {
						t.Errorf("%s: Dense of a C-order float64 array is not a view of its data", src)
					}
				}
				m, err := Matrix(a, nil)
				if f64 {
					if err != nil {
						t.Fatal(err)
					}
					check("Matrix view", m)
					var raw []float64
					switch v := m.(type) {
					case *mat.Dense:
						raw = v.RawMatrix().Data
					case mat.Transpose:
						raw = v.Matrix.(*mat.Dense).RawMatrix().Data
						if !fx.FortranOrder {
							t.Errorf("%s: C-order array gave a transpose", src)
						}
					}
					if !sharesMemory(raw, a.Data) {
						t.Errorf("%s: Matrix of a float64 array is not a view of its data", src)
					}
				} else if !errors.Is(err, ErrDType) {
					t.Fatalf("%s Matrix without Convert: err %v, want ErrDType", src, err)
				}
				// With Convert and Copy: always a new row-major Dense.
				d, err = Dense(a, &Options{Convert: true, Copy: true})
				if err != nil {
					t.Fatal(err)
				}
				check("Dense copy", d)
				if sharesMemory(d.RawMatrix().Data, a.Data) {
					t.Errorf("%s: Dense with Copy shares the array's memory", src)
				}
				m, err = Matrix(a, &Options{Convert: true})
				if err != nil {
					t.Fatal(err)
				}
				check("Matrix converted", m)
			}
		})
	}
	if n < 20 {
		t.Fatalf("only %d 2-D real fixtures found", n)
	}
}

// TestVecFixtures reads every 1-D real fixture as a VecDense.
func TestVecFixtures(t *testing.T) {
	for _, fx := range fixtures.NPYs(t) {
		dt, err := npyio.ParseTypeStr(fx.DTypeStr)
		if err != nil || len(fx.Shape) != 1 || !isRealKind(dt.Kind) || fx.Shape[0] == 0 {
			continue
		}
		t.Run(fx.Name, func(t *testing.T) {
			for src, a := range sources(t, fx.Path) {
				v, err := Vec(a, &Options{Convert: true})
				if err != nil {
					t.Fatal(err)
				}
				if v.Len() != fx.Shape[0] {
					t.Fatalf("%s: length %d, want %d", src, v.Len(), fx.Shape[0])
				}
				for i := 0; i < v.Len(); i++ {
					if got, want := v.AtVec(i), wantFloat(dt, fx.Values[i]); !fixtures.SameFloat(got, want) {
						t.Fatalf("%s: [%d] = %v, numpy has %v", src, i, got, want)
					}
				}
				if isFloat64(dt) && !sharesMemory(v.RawVector().Data, a.Data) {
					t.Errorf("%s: Vec of a float64 array is not a view", src)
				}
			}
		})
	}
}

// TestComplexFixtures reads the 2-D complex fixtures as CDense and CMatrix.
func TestComplexFixtures(t *testing.T) {
	for _, fx := range fixtures.NPYs(t) {
		dt, err := npyio.ParseTypeStr(fx.DTypeStr)
		if err != nil || len(fx.Shape) != 2 || dt.Kind != npyio.Complex {
			continue
		}
		t.Run(fx.Name, func(t *testing.T) {
			r, c := fx.Shape[0], fx.Shape[1]
			for src, a := range sources(t, fx.Path) {
				check := func(what string, m mat.CMatrix) {
					for i := 0; i < r; i++ {
						for j := 0; j < c; j++ {
							if got, want := m.At(i, j), wantComplex(fx.Values[i*c+j]); !sameComplex(got, want) {
								t.Fatalf("%s %s: [%d,%d] = %v, numpy has %v", src, what, i, j, got, want)
							}
						}
					}
				}
				cd, err := CDense(a, &Options{Convert: true, Copy: true})
				if err != nil {
					t.Fatal(err)
				}
				check("CDense copy", cd)
				cm, err := CMatrix(a, &Options{Convert: true})
				if err != nil {
					t.Fatal(err)
				}
				check("CMatrix", cm)
				if dt.Size == 16 {
					_, isT := cm.(mat.CTranspose)
					if isT != fx.FortranOrder {
						t.Errorf("%s: CMatrix is a transpose: %v, Fortran order: %v", src, isT, fx.FortranOrder)
					}
				} else if _, err := CDense(a, nil); !errors.Is(err, ErrDType) {
					t.Errorf("%s: complex64 without Convert: err %v, want ErrDType", src, err)
				}
				if _, err := Dense(a, &Options{Convert: true}); !errors.Is(err, ErrDType) || !strings.Contains(err.Error(), "CDense") {
					t.Errorf("%s: Dense of complex: err %v, want ErrDType pointing to CDense", src, err)
				}
			}
		})
	}
}

func readLocal(t *testing.T, name string) *npyio.Array {
	t.Helper()
	a, err := npyio.ReadFile(filepath.Join("testdata", name), nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestSymTri(t *testing.T) {
	sq := base(4, 5).Slice(0, 4, 0, 4) // gen.py's a[:4, :4]
	sym := mat.NewDense(4, 4, nil)
	sym.Add(sq, sq.T())
	tests := []struct {
		name, file string
		opts       *Options
		view       bool
	}{
		{"c", "sym_c.npy", nil, true},
		{"fortran view", "sym_f.npy", nil, true},
		{"fortran copy", "sym_f.npy", &Options{Copy: true}, false},
		{"int32", "sym_i4.npy", &Options{Convert: true}, false},
	}
	for _, tc := range tests {
		t.Run("sym "+tc.name, func(t *testing.T) {
			a := readLocal(t, tc.file)
			s, err := Sym(a, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			want := mat.Matrix(sym)
			if tc.name == "int32" { // numpy's astype(np.int32) truncates
				w := mat.DenseCopyOf(sym)
				w.Apply(func(_, _ int, v float64) float64 { return math.Trunc(v) }, w)
				want = w
			}
			if !mat.Equal(s, want) {
				t.Errorf("got\n%v\nwant\n%v", mat.Formatted(s), mat.Formatted(want))
			}
			if got := sharesMemory(s.RawSymmetric().Data, a.Data); got != tc.view {
				t.Errorf("view: %v, want %v", got, tc.view)
			}
		})
	}
	if _, err := Sym(readLocal(t, "sym_bad.npy"), &Options{Tolerance: 0.1}); err != nil {
		t.Errorf("Sym within tolerance 0.1: %v", err)
	}
	up := readLocal(t, "tri_upper.npy")
	tu, err := Tri(up, mat.Upper, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			want := 0.0
			if j >= i {
				want = sq.At(i, j)
			}
			if tu.At(i, j) != want {
				t.Fatalf("upper [%d,%d] = %v, want %v", i, j, tu.At(i, j), want)
			}
		}
	}
	lo := readLocal(t, "tri_lower_f.npy")
	tl, err := Tri(lo, mat.Lower, &Options{Copy: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		for j := 0; j <= i; j++ {
			if tl.At(i, j) != sq.At(i, j) {
				t.Fatalf("lower [%d,%d] = %v, want %v", i, j, tl.At(i, j), sq.At(i, j))
			}
		}
	}
}

func TestRefusals(t *testing.T) {
	npy := func(name string) *npyio.Array {
		a, err := npyio.ReadFile(filepath.Join(fixtures.Root(), "npy", name+".npy"), nil)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	tests := []struct {
		name string
		call func() error
		want error
		msg  string // part of the message
	}{
		{"sym asymmetric", func() error { _, err := Sym(readLocal(t, "sym_bad.npy"), nil); return err }, ErrNotSymmetric, "a[1,3] = 25 but a[3,1] = 24.5"},
		{"sym asymmetric fortran", func() error { _, err := Sym(readLocal(t, "sym_bad_f.npy"), nil); return err }, ErrNotSymmetric, "a[1,3] = 25 but a[3,1] = 24.5"},
		{"sym tolerance too small", func() error { _, err := Sym(readLocal(t, "sym_bad.npy"), &Options{Tolerance: 0.01}); return err }, ErrNotSymmetric, "a[1,3]"},
		{"sym not square", func() error { _, err := Sym(npy("f8_le_2d_c"), nil); return err }, ErrShape, "square"},
		{"tri lower of upper", func() error { _, err := Tri(readLocal(t, "tri_upper.npy"), mat.Lower, nil); return err }, ErrNotTriangular, "a[0,1] = -1.125 is above the diagonal of a lower-triangular request"},
		{"tri upper of lower", func() error {
			_, err := Tri(readLocal(t, "tri_lower_f.npy"), mat.Upper, &Options{Copy: true})
			return err
		}, ErrNotTriangular, "a[1,0] = -5 is below the diagonal"},
		{"tri fortran without copy", func() error { _, err := Tri(readLocal(t, "tri_lower_f.npy"), mat.Lower, nil); return err }, ErrLayout, "Options.Copy"},
		{"dense 3-D", func() error { _, err := Dense(npy("f8_le_3d_c"), nil); return err }, ErrShape, "shape [2 3 4]"},
		{"dense 1-D", func() error { _, err := Dense(npy("f8_le_1d"), nil); return err }, ErrShape, "2-D"},
		{"vec 2-D", func() error { _, err := Vec(npy("f8_le_2d_c"), nil); return err }, ErrShape, "1-D"},
		{"dense empty", func() error { _, err := Vec(npy("f8_le_empty"), nil); return err }, ErrEmpty, "shape [0]"},
		{"dense strings", func() error { _, err := Dense(npy("U4_le_2d_c"), &Options{Convert: true}); return err }, ErrDType, "unicode"},
		{"dense datetime", func() error { _, err := Dense(npy("M8_s_le_2d_c"), &Options{Convert: true}); return err }, ErrDType, "datetime"},
		{"dense records", func() error { _, err := Dense(npy("rec_2d_c"), &Options{Convert: true}); return err }, ErrDType, "struct"},
		{"dense fortran", func() error { _, err := Dense(npy("f8_le_2d_f"), nil); return err }, ErrLayout, "use Matrix"},
		{"cdense fortran", func() error { _, err := CDense(npy("c16_le_2d_f"), nil); return err }, ErrLayout, "CMatrix"},
		{"cdense real", func() error { _, err := CDense(npy("f8_le_2d_c"), nil); return err }, ErrDType, "not complex"},
		{"read dense names file", func() error {
			_, err := ReadDense(filepath.Join("testdata", "rec.npy"), nil)
			return err
		}, ErrShape, "rec.npy"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err = %q, want it to contain %q", err, tc.msg)
			}
		})
	}
}

// TestMappedView checks that a view of a mapped file reads the file's
// values and that Copy detaches the matrix from the mapping.
func TestMappedView(t *testing.T) {
	path := filepath.Join("testdata", "describe_data.npy")
	m, err := npyio.Map(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Mapped() {
		t.Skip("file not mapped on this platform")
	}
	view, err := Dense(&m.Array, nil)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := Dense(&m.Array, &Options{Copy: true})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(view, cp) || !sharesMemory(view.RawMatrix().Data, m.Data) {
		t.Fatal("mapped view differs from its copy or is not a view")
	}
	want := cp.At(999, 5)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if got := cp.At(999, 5); got != want || math.IsNaN(got) {
		t.Errorf("copy changed after Close: %v, want %v", got, want)
	}
}
