package pipeline

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
)

// TestConvertZeroDMembers: numpy's .npz archives mixing 0-d and n-d
// members convert to every table format. Members all 0-d (the README's
// np.savez(lr=0.01, step=7)) are one record, 0-d in .npy; a 0-d member
// beside arrays of one row counts as one row; beside longer arrays the
// conversion is refused in one line naming each length.
func TestConvertZeroDMembers(t *testing.T) {
	ctx := context.Background()
	fx := filepath.Join("testdata", "npz0d")
	dir := t.TempDir()
	read := func(path string) *npyio.Array {
		t.Helper()
		a, err := npyio.ReadFile(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, ext := range []string{"npy", "parquet", "arrow", "arrows", "feather"} {
		for _, in := range []string{"sc", "mix1"} {
			out := filepath.Join(dir, in+"."+ext)
			if _, err := Convert(ctx, filepath.Join(fx, in+".npz"), out, nil); err != nil {
				t.Fatalf("%s.npz to .%s: %v", in, ext, err)
			}
			back := out
			if ext != "npy" {
				back = filepath.Join(dir, in+"_"+ext+".npy")
				if _, err := Convert(ctx, out, back, nil); err != nil {
					t.Fatalf("%s back to .npy: %v", out, err)
				}
			}
			a := read(back)
			dt := a.Header.DType
			switch in {
			case "sc":
				if len(dt.Fields) != 2 || dt.Fields[0].Name != "lr" || dt.Fields[1].Name != "step" {
					t.Fatalf("%s: dtype %s", back, dt)
				}
				// .npy keeps numpy's 0-d, and so does Arrow (its schema
				// says so); Parquet has the one row.
				if ext != "parquet" && len(a.Header.Shape) != 0 || ext == "parquet" && (len(a.Header.Shape) != 1 || a.Header.Shape[0] != 1) {
					t.Errorf("%s: shape %v", back, a.Header.Shape)
				}
				lr := rowbytes.Load[float64](a.Data, dt.Fields[0].Offset)
				step := rowbytes.Load[int64](a.Data, dt.Fields[1].Offset)
				if lr != 0.01 || step != 7 {
					t.Errorf("%s: lr %v step %v, numpy wrote 0.01 and 7", back, lr, step)
				}
			case "mix1":
				if len(a.Header.Shape) != 1 || a.Header.Shape[0] != 1 || len(dt.Fields) != 2 {
					t.Fatalf("%s: shape %v dtype %s", back, a.Header.Shape, dt)
				}
				x := dt.Fields[1]
				lr := rowbytes.Load[float64](a.Data, dt.Fields[0].Offset)
				x0 := rowbytes.Load[float32](a.Data, x.Offset)
				x1 := rowbytes.Load[float32](a.Data, x.Offset+4)
				if lr != 0.01 || x0 != 1.5 || x1 != -2 {
					t.Errorf("%s: lr %v x [%v %v], numpy wrote 0.01 and [1.5 -2]", back, lr, x0, x1)
				}
			}
		}
		out := filepath.Join(dir, "mixn."+ext)
		_, err := Convert(ctx, filepath.Join(fx, "mixn.npz"), out, nil)
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "mixn.npz") ||
			!strings.Contains(err.Error(), "lr: 1 (0-d), x: 3") {
			t.Errorf("mixn.npz to .%s: %v", ext, err)
		}
	}
}
