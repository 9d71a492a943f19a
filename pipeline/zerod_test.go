package pipeline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
)

// TestZeroDStaysZeroD: a 0-d .npy (shape ()) copied by the npy sink, per
// input or alone, through transforms that keep every row, comes out 0-d
// and byte-identical to numpy's file; after a transform that may change
// the row count, or concatenated with another input, it is a 1-d array.
func TestZeroDStaysZeroD(t *testing.T) {
	fx, err := filepath.Abs("../testdata/npy")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	stems := []string{"f8_le_0d", "U4_le_0d", "b1_0d", "M8_D_le_0d", "S5_0d", "c16_le_0d"}
	job := "version: 1\nsources:\n"
	for i, stem := range stems {
		job += fmt.Sprintf("  s%d: {type: npy, paths: %q}\n", i, fx+"/"+stem+".npy")
	}
	job += `  f8: {type: npy, paths: "` + fx + `/f8_le_0d.npy"}
  f8be: {type: npy, paths: "` + fx + `/f8_be_0d.npy"}
  two: {type: npy, paths: ["` + fx + `/f8_le_0d.npy", "` + fx + `/f8_be_0d.npy"]}
transforms:
  f4: {type: cast, input: f8, to: float32}
  kept: {type: filter, input: f8rec, where: "value == value"}
  f8rec: {type: flatten, input: f8}
sinks:
  be: {type: npy, input: f8be, path: "${OUT}/be.npy"}
  cast: {type: npy, input: f4, path: "${OUT}/cast.npy"}
  rec: {type: npy, input: f8rec, path: "${OUT}/rec.npy"}
  filtered: {type: npy, input: kept, path: "${OUT}/filtered.npy"}
  both: {type: npy, input: two, path: "${OUT}/both.npy"}
`
	for i := range stems {
		job += fmt.Sprintf("  o%d: {type: npy, input: s%d, path: \"${OUT}/each/{stem}.npy\"}\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "job.yaml"), []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := runJob(t, filepath.Join(dir, "job.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, stem := range stems {
		got, err := os.ReadFile(filepath.Join(out, "each", stem+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(filepath.Join(fx, stem+".npy"))
		if !bytes.Equal(got, want) {
			t.Errorf("%s: not numpy's bytes:\n%q\n%q", stem, got, want)
		}
	}
	shapes := map[string]string{"be": "[] '<f8'", "cast": "[] '<f4'", "rec": "[] [('value', '<f8')]", "filtered": "[1] [('value', '<f8')]", "both": "[2] '<f8'"}
	for name, want := range shapes {
		a, err := npyio.ReadFile(filepath.Join(out, name+".npy"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(a.Header.Shape) + " " + a.DType.String(); got != want {
			t.Errorf("%s: shape and dtype %s, want %s", name, got, want)
		}
	}
	// The values: numpy's f8_le_0d value, cast to float32 exactly or not.
	src, _ := npyio.ReadFile(filepath.Join(fx, "f8_le_0d.npy"), nil)
	c, _ := npyio.ReadFile(filepath.Join(out, "cast.npy"), nil)
	if v := rowbytes.Load[float64](src.Data, 0); rowbytes.Load[float32](c.Data, 0) != float32(v) {
		t.Errorf("cast value %v, want %v", rowbytes.Load[float32](c.Data, 0), float32(v))
	}
}
