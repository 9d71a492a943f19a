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
)

// TestSelectPushdown: a select right after a parquet source makes the
// source read only the selected columns (projections), with the same
// output as a job reading every column (a cast in between keeps them
// all); a select naming a column the file lacks still gets the select's
// error.
func TestSelectPushdown(t *testing.T) {
	dir := t.TempDir()
	dt, err := npyio.ParseDescr("[('a', '<i8'), ('b', '<f8'), ('c', '<f4')]")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := npyio.NewWriter(&buf, &npyio.Header{DType: dt, Shape: []int{1000}})
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 1000*dt.Size)
	for i := range data {
		data[i] = byte(i * 7)
	}
	w.Write(data)
	w.Close()
	os.WriteFile(filepath.Join(dir, "t.npy"), buf.Bytes(), 0o644)
	if _, err := Convert(context.Background(), filepath.Join(dir, "t.npy"), filepath.Join(dir, "t.parquet"), nil); err != nil {
		t.Fatal(err)
	}
	job := func(fields, out string, keepAll bool) string {
		s := fmt.Sprintf("version: 1\nsources:\n  t: {type: parquet, paths: '%s/t.parquet'}\ntransforms:\n", dir)
		in := "t"
		if keepAll {
			s += "  k: {type: cast, input: t, fields: {a: int64}}\n"
			in = "k"
		}
		return s + fmt.Sprintf("  s: {type: select, input: %s, fields: [%s]}\nsinks:\n  o: {type: npy, input: s, path: %s/%s}\n", in, fields, dir, out)
	}
	for _, fields := range []string{"b", "c, a"} {
		j, err := Load(filepath.Join(dir, "job.yaml"), []byte(job(fields, "p.npy", false)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := projections(j)["t"]; strings.Join(got.keep, ", ") != fields {
			t.Errorf("select [%s]: the source reads %v", fields, got)
		}
		runJobText(t, dir, job(fields, "p.npy", false))
		runJobText(t, dir, job(fields, "full.npy", true))
		p, _ := os.ReadFile(filepath.Join(dir, "p.npy"))
		f, _ := os.ReadFile(filepath.Join(dir, "full.npy"))
		if len(p) == 0 || !bytes.Equal(p, f) {
			t.Errorf("select [%s]: %d bytes with the projection, %d reading every column", fields, len(p), len(f))
		}
	}
	j, err := Load(filepath.Join(dir, "job.yaml"), []byte(job("b, zz", "p.npy", false)), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewPlan(j)
	if err == nil || !strings.Contains(err.Error(), "transforms.s.fields") || !strings.Contains(err.Error(), "zz") {
		t.Errorf("select of a missing column: %v", err)
	}
}
