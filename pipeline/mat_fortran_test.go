package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/job"
)

// TestMATFortranOrder: convert --fortran-order writes a MAT-file matrix
// (a compressed v7 one streamed from its zlib stream, v6 and v7.3 ones)
// to .npy and .npz as a Fortran-order array with the values of the
// C-order input; vectors stay plain; other outputs and jobs refuse it.
func TestMATFortranOrder(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var arrays []npyio.NamedArray
	for _, c := range []struct {
		name  string
		ts    string
		shape []int
	}{{"m", "<f8", []int{300, 700}}, {"k", "<i2", []int{3, 5, 70000}}, {"b", "|b1", []int{1200, 1000}}, {"v", "<f4", []int{400000, 1}}} {
		dt, err := npyio.ParseTypeStr(c.ts)
		if err != nil {
			t.Fatal(err)
		}
		n := 1
		for _, d := range c.shape {
			n *= d
		}
		data := make([]byte, n*dt.Size)
		for i := range data {
			data[i] = byte(i*131 + i/977)
			if dt.Kind == npyio.Bool {
				data[i] = byte(i/3+i/1001) & 1
			}
		}
		if dt.Kind == npyio.Float {
			for i := 0; i < len(data); i += dt.Size {
				data[i+dt.Size-1] = 0x3f // finite values
			}
		}
		arrays = append(arrays, npyio.NamedArray{Key: c.name, Array: &npyio.Array{Header: &npyio.Header{DType: dt, Shape: c.shape}, DType: dt, Data: data}})
	}
	src := filepath.Join(dir, "src.npz")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := npyio.SaveNPZ(f, false, nil, arrays...); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, v := range []string{"7", "6", "7.3"} {
		mat := filepath.Join(dir, "x"+v+".mat")
		if _, err := Convert(ctx, src, mat, &ConvertOptions{Flags: map[string]string{"mat-version": v}}); err != nil {
			t.Fatal(err)
		}
		for _, a := range arrays {
			out := filepath.Join(dir, "y.npy")
			if _, err := Convert(ctx, mat, out, &ConvertOptions{Flags: map[string]string{"variable": a.Key, "fortran-order": "true"}}); err != nil {
				t.Fatalf("v%s %s: %v", v, a.Key, err)
			}
			g, err := npyio.ReadFile(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			wantF := a.Key != "v"
			if g.Header.FortranOrder != wantF || fmt.Sprint(g.Header.Shape) != fmt.Sprint(a.Array.Header.Shape) ||
				g.DType.String() != a.Array.DType.String() || !bytes.Equal(g.CData(), a.Array.Data) {
				t.Errorf("v%s %s: fortran %v %s %v, equal %v", v, a.Key, g.Header.FortranOrder, g.DType, g.Header.Shape, bytes.Equal(g.CData(), a.Array.Data))
			}
		}
		out := filepath.Join(dir, "y.npz")
		if _, err := Convert(ctx, mat, out, &ConvertOptions{Flags: map[string]string{"fortran-order": "true"}}); err != nil {
			t.Fatal(err)
		}
		got := readNPZ(t, out)
		for _, a := range arrays {
			if g := got[a.Key]; g == nil || fmt.Sprint(g.Header.Shape) != fmt.Sprint(a.Array.Header.Shape) || !bytes.Equal(g.Data, a.Array.Data) {
				t.Errorf("v%s: .npz member %s differs", v, a.Key)
			}
		}
		z, err := npyio.OpenNPZ(out, nil)
		if err != nil {
			t.Fatal(err)
		}
		if h, err := z.Member("m").ReadHeader(); err != nil || !h.FortranOrder {
			t.Errorf("v%s: .npz member m: %v, fortran order %v", v, err, h != nil && h.FortranOrder)
		}
		z.Close()
	}
	if _, err := Convert(ctx, filepath.Join(dir, "x7.mat"), filepath.Join(dir, "y.parquet"), &ConvertOptions{Flags: map[string]string{"variable": "m", "fortran-order": "true"}}); err == nil || !strings.Contains(err.Error(), "fortran-order") {
		t.Errorf("to .parquet: %v", err)
	}
	// A job does what convert does (convert is this job), and refuses
	// fortran_order where rows are read.
	if _, err := Convert(ctx, filepath.Join(dir, "x7.mat"), filepath.Join(dir, "c.npz"), &ConvertOptions{Flags: map[string]string{"fortran-order": "true"}}); err != nil {
		t.Fatal(err)
	}
	runJobText(t, dir, fmt.Sprintf("version: 1\nsources:\n  m: {type: mat, paths: %q, fortran_order: true}\nsinks:\n  a: {type: npz, input: m, path: %q, member: \"{array}\"}\n", filepath.Join(dir, "x7.mat"), filepath.Join(dir, "j.npz")))
	if a, b := readFile(t, filepath.Join(dir, "c.npz")), readFile(t, filepath.Join(dir, "j.npz")); !bytes.Equal(a, b) {
		t.Errorf("the job's .npz (%d bytes) differs from convert's (%d bytes)", len(b), len(a))
	}
	jb := fmt.Sprintf("version: 1\nsources:\n  m: {type: mat, paths: %q, variables: m, fortran_order: true}\ntransforms:\n  l: {type: limit, input: m, rows: 5}\nsinks:\n  a: {type: npz, input: l, path: %q, member: \"{member}\"}\n", filepath.Join(dir, "x7.mat"), filepath.Join(dir, "j.npz"))
	j, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(jb), nil)
	if err == nil {
		_, err = NewPlan(context.Background(), j, nil)
	}
	if err == nil || !strings.Contains(err.Error(), "fortran_order") {
		t.Errorf("job: %v", err)
	}
}

// TestInterleave: each field size lands in its place of every record,
// as a byte-by-byte copy puts it.
func TestInterleave(t *testing.T) {
	const n, stride = 37, 27
	for _, sz := range []int{1, 2, 3, 4, 8, 12} {
		for _, off := range []int{0, 1, stride - sz} {
			p := make([]byte, n*sz)
			for i := range p {
				p[i] = byte(i*29 + sz)
			}
			got := make([]byte, n*stride)
			want := make([]byte, n*stride)
			for i := range got {
				got[i], want[i] = 0xee, 0xee
			}
			interleave(got, stride, off, p, sz, n)
			for k := 0; k < n; k++ {
				for b := 0; b < sz; b++ {
					want[k*stride+off+b] = p[k*sz+b]
				}
			}
			if !bytes.Equal(got, want) {
				t.Errorf("size %d at %d: records differ", sz, off)
			}
		}
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
