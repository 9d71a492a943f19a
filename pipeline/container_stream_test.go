package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// TestMATStreamShapes: a MATLAB matrix (read row-major in bands of HDF5
// hyperslabs), a row vector whose one row is over the 4 MiB batch (moved
// to .npy in parts) and a column vector go .npy -> v7.3 .mat -> .npy
// and .npz with the same shape and values, in C order.
func TestMATStreamShapes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, shape := range [][]int{{300, 2000}, {1, 700000}, {700000, 1}, {3, 5, 7}} {
		n := 1
		for _, d := range shape {
			n *= d
		}
		data := make([]byte, 8*n)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(float64(i)*0.5-7))
		}
		in := filepath.Join(dir, "x.npy")
		f, err := os.Create(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := npyio.WriteArray(f, &npyio.Array{Header: &npyio.Header{DType: npyio.Float64Type, Shape: shape}, DType: npyio.Float64Type, Data: data}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		mat := filepath.Join(dir, "x.mat")
		if _, err := Convert(ctx, in, mat, nil); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "y.npy")
		if _, err := Convert(ctx, mat, out, nil); err != nil {
			t.Fatalf("%v: %v", shape, err)
		}
		a, err := npyio.ReadFile(out, nil)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(a.Header.Shape) != fmt.Sprint(shape) || a.Header.FortranOrder || !bytes.Equal(a.Data, data) {
			t.Errorf("%v: .npy back with shape %v, fortran %v, equal %v", shape, a.Header.Shape, a.Header.FortranOrder, bytes.Equal(a.Data, data))
		}
		npz := filepath.Join(dir, "y.npz")
		if _, err := Convert(ctx, mat, npz, nil); err != nil {
			t.Fatal(err)
		}
		m := readNPZ(t, npz)["x"]
		if m == nil || fmt.Sprint(m.Header.Shape) != fmt.Sprint(shape) || !bytes.Equal(m.Data, data) {
			t.Errorf("%v: .npz member differs", shape)
		}
	}
}
