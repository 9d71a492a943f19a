package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// TestConvertErrors: Convert's errors say which file (a *FileError) or
// that the arguments are wrong (ErrOptions), and a cancelled conversion
// leaves nothing at OUT or beside it.
func TestConvertErrors(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	missing := filepath.Join(dir, "missing.npy")
	_, err := Convert(ctx, missing, filepath.Join(dir, "o.parquet"), nil)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != missing || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing input: %v", err)
	}
	for _, c := range [][2]string{{"a.csv", "b.npy"}, {"a.npy", "b.txt"}, {"a.npy", "a.npy"}} {
		if _, err := Convert(ctx, filepath.Join(dir, c[0]), filepath.Join(dir, c[1]), nil); !errors.Is(err, ErrOptions) {
			t.Errorf("%s -> %s: %v, want ErrOptions", c[0], c[1], err)
		}
	}
	if _, err := Convert(ctx, filepath.Join(dir, "a.npy"), filepath.Join(dir, "b.npz"), &ConvertOptions{Flags: map[string]string{"compression": "zstd"}}); !errors.Is(err, ErrOptions) {
		t.Errorf("zstd for .npz: %v", err)
	}

	in := filepath.Join(dir, "in.npy")
	a := &npyio.Array{Header: &npyio.Header{DType: npyio.Int64Type, Shape: []int{1000}}, DType: npyio.Int64Type, Data: make([]byte, 8000)}
	f, _ := os.Create(in)
	if err := npyio.WriteArray(f, a); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, "out", "x.parquet")
	os.Mkdir(filepath.Dir(out), 0o755)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Convert(cctx, in, out, nil); err == nil {
		t.Error("cancelled conversion succeeded")
	}
	if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) != 0 {
		t.Errorf("cancelled conversion left %d files", len(ents))
	}
	res, err := Convert(ctx, in, out, &ConvertOptions{Flags: map[string]string{"name": "v"}})
	if err != nil || res.Rows != 1000 || res.Sinks[0].Bytes == 0 || FormatOf(out).Name != "parquet" {
		t.Fatalf("convert: %+v %v", res, err)
	}
}

// TestConvertBigRows: rows larger than a batch (a 1 x N vector is one
// row) go to .npy and .npz in parts, with their values.
func TestConvertBigRows(t *testing.T) {
	dir := t.TempDir()
	const n = 700_000 // 5.6 MB rows
	vals := make([]float64, 2*n)
	for i := range vals {
		vals[i] = float64(i) * 0.5
	}
	in := filepath.Join(dir, "wide.npy")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := npyio.WriteArray(f, &npyio.Array{Header: &npyio.Header{DType: npyio.Float64Type, Shape: []int{2, n}}, DType: npyio.Float64Type, Data: npyio.AsBytes(vals)}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, out := range []string{"w.npy", "w.npz"} {
		out = filepath.Join(dir, out)
		if _, err := Convert(context.Background(), in, out, nil); err != nil {
			t.Fatal(err)
		}
		var a *npyio.Array
		if filepath.Ext(out) == ".npy" {
			a, err = npyio.ReadFile(out, nil)
		} else {
			a = readNPZ(t, out)["wide"]
		}
		if err != nil || a == nil || fmt.Sprint(a.Header.Shape) != fmt.Sprint([]int{2, n}) || !bytes.Equal(a.Data, npyio.AsBytes(vals)) {
			t.Errorf("%s: %v %v", out, a, err)
		}
	}
}
