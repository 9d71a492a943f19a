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
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
	"github.com/npyflow/npyflow/pipeline/job"
)

// TestSelectPushdown: a select right after a parquet or arrow source
// (files npyflow wrote) makes the source read only the selected columns
// (projections), with the same output as a job reading every column (a
// sink of the source's rows keeps them all); a select naming a column the
// file lacks still gets the select's error.
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
	for _, typ := range []string{"parquet", "arrow"} {
		if _, err := Convert(context.Background(), filepath.Join(dir, "t.npy"), filepath.Join(dir, "t."+typ), nil); err != nil {
			t.Fatal(err)
		}
	}
	typ := "parquet"
	tr := "select"
	jb := func(fields, out string, keepAll bool) string {
		s := fmt.Sprintf("version: 1\nsources:\n  t: {type: %s, paths: '%s/t.%s'}\ntransforms:\n", typ, dir, typ)
		s += fmt.Sprintf("  s: {type: %s, input: t, fields: [%s]}\nsinks:\n  o: {type: npy, input: s, path: %s/%s}\n", tr, fields, dir, out)
		if keepAll { // a sink of every field: every column is read
			s += fmt.Sprintf("  all: {type: npy, input: t, path: %s/all.npy}\n", dir)
		}
		return s
	}
	for _, typ = range []string{"parquet", "arrow"} {
		for _, fields := range []string{"b", "c, a"} {
			j, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(jb(fields, "p.npy", false)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := projections(j)["t"]; got == nil || strings.Join(got.keep, ", ") != fields {
				t.Errorf("%s select [%s]: the source reads %v", typ, fields, got)
			}
			plan, err := NewPlan(context.Background(), j, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(rowbytes.FieldNames(plan.Sources[0].Schema.DType), ", "); got != fields {
				t.Errorf("%s select [%s]: the source's rows hold %s", typ, fields, got)
			}
			j, err = job.Load(filepath.Join(dir, "job.yaml"), []byte(jb(fields, "full.npy", true)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := projections(j)["t"]; got != nil {
				t.Errorf("%s select [%s] and a sink: the source reads %v", typ, fields, got)
			}
			runJobText(t, dir, jb(fields, "p.npy", false))
			runJobText(t, dir, jb(fields, "full.npy", true))
			p, _ := os.ReadFile(filepath.Join(dir, "p.npy"))
			f, _ := os.ReadFile(filepath.Join(dir, "full.npy"))
			if len(p) == 0 || !bytes.Equal(p, f) {
				t.Errorf("%s select [%s]: %d bytes with the projection, %d reading every column", typ, fields, len(p), len(f))
			}
		}
	}
	// A drop of a column: the others are read, the same bytes.
	tr = "drop"
	for _, typ = range []string{"parquet", "arrow"} {
		j, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(jb("b", "p.npy", false)), nil)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := NewPlan(context.Background(), j, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(rowbytes.FieldNames(plan.Sources[0].Schema.DType), ", "); got != "a, c" {
			t.Errorf("%s drop [b]: the source's rows hold %s", typ, got)
		}
		runJobText(t, dir, jb("b", "p.npy", false))
		runJobText(t, dir, jb("b", "full.npy", true))
		p, _ := os.ReadFile(filepath.Join(dir, "p.npy"))
		f, _ := os.ReadFile(filepath.Join(dir, "full.npy"))
		if len(p) == 0 || !bytes.Equal(p, f) {
			t.Errorf("%s drop [b]: %d bytes with the projection, %d reading every column", typ, len(p), len(f))
		}
	}
	typ, tr = "parquet", "select"
	j, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(jb("b, zz", "p.npy", false)), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewPlan(context.Background(), j, nil)
	if err == nil || !strings.Contains(err.Error(), "transforms.s.fields") || !strings.Contains(err.Error(), "zz") {
		t.Errorf("select of a missing column: %v", err)
	}
}
