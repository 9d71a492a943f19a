package matfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// cOrder reorders column-major data of the given shape into C order,
// element by element (the reference for OpenRowMajor).
func cOrder(data []byte, shape []int, es int) []byte {
	out := make([]byte, len(data))
	n := len(data) / max(es, 1)
	idx := make([]int, len(shape))
	for c := 0; c < n; c++ { // c: C-order linear index
		rem := c
		for i := len(shape) - 1; i >= 0; i-- {
			idx[i] = rem % shape[i]
			rem /= shape[i]
		}
		f, mul := 0, 1
		for i := range shape {
			f += idx[i] * mul
			mul *= shape[i]
		}
		copy(out[c*es:(c+1)*es], data[f*es:(f+1)*es])
	}
	return out
}

// TestOpenRowMajor: for every array of every fixture, OpenRowMajor gives
// the C-order bytes of Array's column-major data, in bands of a few rows
// (v7.3 hyperslabs through the chunk grid, Level 5 from memory).
func TestOpenRowMajor(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.mat"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bb := range []int64{1, 100, 3000, 16 << 20} {
		old := bandBytes
		bandBytes = bb
		multi, slabs := 0, 0
		for _, file := range files {
			f, err := OpenFile(file, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = f.Walk(func(path string, v *Var) error {
				a, err := v.Array()
				if err != nil {
					return nil // what Array refuses is checked elsewhere
				}
				rc, err := v.OpenRowMajor()
				if err != nil {
					t.Errorf("%s %s: %v", file, path, err)
					return nil
				}
				got, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					t.Errorf("%s %s: %v", file, path, err)
					return nil
				}
				want := a.Data
				if v.Header.FortranOrder {
					want = cOrder(a.Data, v.Header.Shape, v.Header.DType.Size)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s %s %v (bands of %d bytes): row-major bytes differ", file, path, v.Header.Shape, bb)
				}
				if longAxes(v.Header.Shape) > 1 && v.Header.DataSize() > 0 {
					multi++
					if v.slab != nil {
						slabs++
					}
				}
				return nil
			})
			if err != nil && !strings.Contains(file, "cycle") { // the cycle fixture is an error by design
				t.Errorf("%s: %v", file, err)
			}
			f.Close()
		}
		if multi < 10 || slabs < 3 {
			t.Errorf("only %d arrays with two or more long axes, %d of them read as HDF5 boxes", multi, slabs)
		}
		bandBytes = old
	}
}

// TestFortranToC checks the N-D reordering on a 2x3x4 array of 2-byte
// elements against cOrder.
func TestFortranToC(t *testing.T) {
	for _, shape := range [][]int{{2, 3, 4}, {5, 7}, {1, 9}, {3, 1, 2, 2}, {37, 19}, {40, 33}} {
		n := 1
		for _, d := range shape {
			n *= d
		}
		for _, es := range []int{1, 2, 3, 4, 8, 16} {
			src := allocFor(int64(n), es)
			for i := range src {
				src[i] = byte(i*7 + i/251)
			}
			dst := allocFor(int64(n), es)
			fortranToC(dst, src, shape, es)
			if want := cOrder(src, shape, es); !bytes.Equal(dst, want) {
				t.Errorf("%v, %d-byte elements: %x, want %x", shape, es, dst, want)
			}
		}
	}
}

// TestOpenRowMajorLevel5Direct: large uncompressed Level 5 variables
// (over the 64 KiB read up front, so they stream from the file) give
// OpenRowMajor's bands by reads of each column's run; compressed ones
// (v7) are reordered from memory.
func TestOpenRowMajorLevel5Direct(t *testing.T) {
	for _, ver := range []string{"6", "7"} {
		for _, dt := range []*npyio.DType{npyio.Float64Type, npyio.Int16Type, npyio.BoolType} {
			shape := []int{300, 7, 40}
			h := &npyio.Header{DType: dt, Shape: shape}
			data := make([]byte, h.DataSize())
			for i := range data {
				data[i] = byte(i*7 + i/1000)
			}
			if dt.Kind == npyio.Bool {
				for i := range data {
					data[i] &= 1
				}
			}
			path := filepath.Join(t.TempDir(), "m.mat")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			w, err := NewWriter(f, &WriteOptions{Version: ver})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteArray("x", &npyio.Array{Header: h, DType: dt, Data: data}); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			f.Close()
			for _, bb := range []int64{1000, 1 << 20} {
				old := bandBytes
				bandBytes = bb
				mf, err := OpenFile(path, nil)
				if err != nil {
					t.Fatal(err)
				}
				err = mf.WalkVariables([]string{"x"}, func(_ string, v *Var) error {
					if ver == "6" && v.slab == nil {
						t.Errorf("v6 %s: the variable does not stream from the file", dt)
					}
					rc, err := v.OpenRowMajor()
					if err != nil {
						return err
					}
					got, err := io.ReadAll(rc)
					rc.Close()
					if err != nil {
						return err
					}
					if !bytes.Equal(got, data) {
						t.Errorf("v%s %s bands of %d: row-major bytes differ from those written", ver, dt, bb)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				mf.Close()
				bandBytes = old
			}
		}
	}
}
