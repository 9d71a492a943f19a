package pipeline

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/inspect"
	"github.com/npyflow/npyflow/zarr"
)

// TestZarrReadsZarrPython converts an array zarr-python 2 wrote (delta
// filter, zstd) to .npy and checks its values.
func TestZarrReadsZarrPython(t *testing.T) {
	out := filepath.Join(t.TempDir(), "d.npy")
	if _, err := Convert(context.Background(), "../zarr/testdata/v2.zarr", out, &ConvertOptions{Flags: map[string]string{"array": "i4_delta"}}); err != nil {
		t.Fatal(err)
	}
	a, err := npyio.ReadFile(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Header.Shape; len(got) != 2 || got[0] != 8 || got[1] != 5 {
		t.Fatalf("shape %v", got)
	}
	for i := 0; i < 40; i++ {
		if v := int32(binary.LittleEndian.Uint32(a.Data[4*i:])); v != int32(i*37-500) {
			t.Fatalf("element %d = %d", i, v)
		}
	}
}

func TestZarrInspect(t *testing.T) {
	info, err := Inspect(context.Background(), "../zarr/testdata/v3.zarr", nil)
	if err != nil {
		t.Fatal(err)
	}
	z := info.(*inspect.ZarrInfo)
	var sb strings.Builder
	z.WriteText(&sb)
	for _, want := range []string{"Zarr v3 store", "sharded_start_gzip: <i4 [10 9], chunks [3 3] in shards [6 6], codecs bytes, gzip, fill -1", "float64_be_t: <f8 [6 5], chunks [4 2], codecs transpose, bytes, blosc, fill \"NaN\", dims (y, x)", "@units = \"m\""} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("inspect lacks %q:\n%s", want, sb.String())
		}
	}
}

// TestZarrOutputAllOrNothing: a conversion that fails part-way leaves no
// output and no staging directory; one that succeeds replaces the old
// store whole.
func TestZarrOutputAllOrNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.zarr")
	s := zarr.NewFSStore(bad)
	g := zarr.CreateGroup(s, "", 3, true, nil)
	w, err := g.CreateArray(ctx, "x", zarr.CreateOptions{Shape: []int64{100, 3}, Chunks: []int64{10, 3}, DType: zarr.DType{Descr: "<f8"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRows(ctx, make([]byte, 100*3*8)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "x", "c", "7", "0"), []byte("not zstd"), 0o666); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.zarr")
	_, err = Convert(ctx, bad, out, nil)
	if err == nil || !strings.Contains(err.Error(), "chunk x/c/7/0") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %v", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
	// A good conversion over an existing store replaces it.
	if err := os.WriteFile(filepath.Join(bad, "x", "c", "7", "0"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(bad, "x", "c", "7", "0")) // missing: the fill value
	for range 2 {
		if _, err := Convert(ctx, bad, out, &ConvertOptions{Flags: map[string]string{"zarr-format": "2", "compression": "blosc"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "x", ".zarray")); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("entries %v", ents)
	}
}
