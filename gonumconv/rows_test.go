package gonumconv

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
	"gonum.org/v1/gonum/mat"
)

type recExpect struct {
	Fields  []string            `json:"fields"`
	Columns []string            `json:"columns"`
	Values  [][]json.RawMessage `json:"values"`
}

func loadRec(t *testing.T) recExpect {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "rec.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e recExpect
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// openReader opens path with NewReaderAt (random access) or NewReader
// (plain stream).
func openReader(t *testing.T, path string, stream bool) *npyio.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	var r *npyio.Reader
	if stream {
		r, err = npyio.NewReader(f, nil)
	} else {
		st, _ := f.Stat()
		r, err = npyio.NewReaderAt(f, st.Size(), nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRecordFields streams the numeric fields of a numpy record array
// (int32, float64, big-endian float32, bool, a float64 subarray, float16,
// big-endian uint64) into a Dense, in batches of several sizes and into
// preallocated matrices, and compares with numpy's astype(float64).
func TestRecordFields(t *testing.T) {
	e := loadRec(t)
	path := filepath.Join("testdata", "rec.npy")
	check := func(t *testing.T, m mat.Matrix, first int) {
		t.Helper()
		r, c := m.Dims()
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				want := fixtures.Float(e.Values[first+i][j])
				if got := m.At(i, j); !fixtures.SameFloat(got, want) {
					t.Fatalf("row %d %s = %v, numpy has %v", first+i, e.Columns[j], got, want)
				}
			}
		}
	}
	for _, stream := range []bool{false, true} {
		for _, batch := range []int{1, 7, 64, 1000} {
			name := "ReaderAt"
			if stream {
				name = "stream"
			}
			t.Run(name+"/batch"+itoa(batch), func(t *testing.T) {
				rr, err := NewRowReader(openReader(t, path, stream), &Options{Fields: e.Fields, Convert: true})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(rr.Columns(), e.Columns) {
					t.Fatalf("columns %q, want %q", rr.Columns(), e.Columns)
				}
				row := 0
				for {
					m, err := rr.Next(batch)
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					check(t, m, row)
					row += m.RawMatrix().Rows
				}
				if row != len(e.Values) {
					t.Fatalf("read %d rows, want %d", row, len(e.Values))
				}
			})
		}
	}
	t.Run("Fields", func(t *testing.T) {
		m, err := Fields(openReader(t, path, false), e.Fields, &Options{Convert: true})
		if err != nil {
			t.Fatal(err)
		}
		check(t, m, 0)
	})
	t.Run("ReadInto strided view", func(t *testing.T) {
		rr, err := NewRowReader(openReader(t, path, true), &Options{Fields: e.Fields, Convert: true})
		if err != nil {
			t.Fatal(err)
		}
		big := mat.NewDense(200, len(e.Columns)+3, nil)
		dst := big.Slice(0, 200, 2, 2+len(e.Columns)).(*mat.Dense)
		n, err := rr.ReadInto(dst)
		if err != nil || n != 200 {
			t.Fatalf("ReadInto = %d, %v; want 200 rows", n, err)
		}
		check(t, dst, 0)
		n, err = rr.ReadInto(dst)
		if err != nil || n != 100 {
			t.Fatalf("second ReadInto = %d, %v; want the last 100 rows", n, err)
		}
		check(t, dst.Slice(0, 100, 0, len(e.Columns)), 200)
		if n, err := rr.ReadInto(dst); n != 0 || err != io.EOF {
			t.Fatalf("ReadInto at the end = %d, %v; want 0, io.EOF", n, err)
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestRowReaderPlain streams plain 1-D and 2-D fixtures, including
// Fortran-order and big-endian ones.
func TestRowReaderPlain(t *testing.T) {
	for _, name := range []string{"f8_le_2d_c", "f8_be_2d_f", "f8_le_2d_f", "i2_be_2d_f", "u8_le_2d_c", "f4_be_2d_c", "b1_2d_c", "f8_le_1d", "i4_be_1d"} {
		t.Run(name, func(t *testing.T) {
			fx := fixtures.NPYByName(t, name)
			dt, _ := npyio.ParseTypeStr(fx.DTypeStr)
			cols := 1
			if len(fx.Shape) == 2 {
				cols = fx.Shape[1]
			}
			for _, stream := range []bool{false, true} {
				rr, err := NewRowReader(openReader(t, fx.Path, stream), &Options{Convert: true})
				if err != nil {
					t.Fatal(err)
				}
				m, err := rr.ReadAll(nil)
				if err != nil {
					t.Fatal(err)
				}
				r, c := m.Dims()
				if r != fx.Shape[0] || c != cols {
					t.Fatalf("dims %dx%d, want %dx%d", r, c, fx.Shape[0], cols)
				}
				for i := 0; i < r; i++ {
					for j := 0; j < c; j++ {
						if got, want := m.At(i, j), wantFloat(dt, fx.Values[i*c+j]); !fixtures.SameFloat(got, want) {
							t.Fatalf("[%d,%d] = %v, numpy has %v", i, j, got, want)
						}
					}
				}
			}
		})
	}
}

func TestRowReaderRefusals(t *testing.T) {
	rec := filepath.Join("testdata", "rec.npy")
	npy := func(name string) string { return filepath.Join(fixtures.Root(), "npy", name+".npy") }
	tests := []struct {
		name string
		path string
		opts *Options
		want error
		msg  string
	}{
		{"missing field", rec, &Options{Fields: []string{"x", "nope"}}, ErrField, `no field "nope" (the array has "id", "x"`},
		{"string field", rec, &Options{Fields: []string{"name"}, Convert: true}, ErrField, `field "name"`},
		{"datetime field", rec, &Options{Fields: []string{"t"}, Convert: true}, ErrDType, "datetime"},
		{"all fields include strings", rec, &Options{Convert: true}, ErrField, `field "name"`},
		{"int field without Convert", rec, &Options{Fields: []string{"x", "id"}}, ErrDType, "Options.Convert"},
		{"3-D", npy("f8_le_3d_c"), nil, ErrShape, "1-D and 2-D"},
		{"2-D records", npy("rec_2d_c"), &Options{Convert: true}, ErrShape, "1-D structured"},
		{"ints without Convert", npy("i4_le_2d_c"), nil, ErrDType, "Options.Convert"},
		{"strings", npy("U4_le_1d"), &Options{Convert: true}, ErrDType, "unicode"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewRowReader(openReader(t, tc.path, false), tc.opts)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.want, tc.msg)
			}
		})
	}
	t.Run("MaxElements", func(t *testing.T) {
		rr, err := NewRowReader(openReader(t, rec, false), &Options{Fields: []string{"x", "pos"}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = rr.ReadAll(&Options{MaxElements: 1000})
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "300 rows of 4 columns") {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
	})
	t.Run("ReadInto wrong columns", func(t *testing.T) {
		rr, err := NewRowReader(openReader(t, rec, false), &Options{Fields: []string{"x"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rr.ReadInto(mat.NewDense(3, 2, nil)); !errors.Is(err, ErrShape) {
			t.Fatalf("err = %v, want ErrShape", err)
		}
	})
}

// TestExistingRecordFixtures reads numeric fields of the shared numpy
// record fixtures (mixed byte orders, subarrays).
func TestExistingRecordFixtures(t *testing.T) {
	tests := []struct {
		name   string
		fields []string
	}{
		{"rec_simple", []string{"b", "a"}},
		{"rec_mixed_endian", []string{"le", "be", "lef", "bef"}},
		{"rec_subarray", []string{"b", "c", "d"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fx := fixtures.NPYByName(t, tc.name)
			r := openReader(t, fx.Path, false)
			dt := r.DType()
			m, err := Fields(r, tc.fields, &Options{Convert: true})
			if err != nil {
				t.Fatal(err)
			}
			for i, rowRaw := range fx.Values {
				vals := fixtures.List(rowRaw)
				col := 0
				for _, name := range tc.fields {
					fi := slices.IndexFunc(dt.Fields, func(f npyio.Field) bool { return f.Name == name })
					f := dt.Fields[fi]
					var elems []json.RawMessage
					if f.Shape == nil {
						elems = []json.RawMessage{vals[fi]}
					} else {
						elems = fixtures.List(vals[fi])
					}
					for _, v := range elems {
						if got, want := m.At(i, col), wantFloat(f.Type, v); !fixtures.SameFloat(got, want) {
							t.Fatalf("row %d field %s col %d = %v, numpy has %v", i, name, col, got, want)
						}
						col++
					}
				}
				if _, c := m.Dims(); c != col {
					t.Fatalf("%d columns, want %d", c, col)
				}
			}
		})
	}
}
