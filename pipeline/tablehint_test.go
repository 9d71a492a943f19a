package pipeline

import (
	"archive/zip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/pipeline/job"
)

// TestTableHint: a job reading an archive whose members differ says how
// to read them as one table, and does so with table: true.
func TestTableHint(t *testing.T) {
	dir := t.TempDir()
	z := filepath.Join(dir, "z.npz")
	zf, err := os.Create(z)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(zf)
	for _, m := range []struct{ name, descr string }{{"a", "<i8"}, {"b", "<f8"}} {
		path := filepath.Join(dir, m.name+".npy")
		writeNPYFile(t, path, m.descr, []int{3}, make([]byte, 24))
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(m.name + ".npy")
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zf.Close()
	for _, table := range []bool{false, true} {
		text := "version: 1\nsources:\n  s: {type: npz, paths: z.npz, table: " + map[bool]string{false: "false", true: "true"}[table] + "}\nsinks:\n  o: {type: parquet, input: s, path: out.parquet}\n"
		jb, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(text), nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlan(context.Background(), jb, nil)
		if !table {
			if err == nil || !strings.Contains(err.Error(), "table: true reads an archive's members as the columns of one table") {
				t.Fatalf("table: false: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if sc := p.srcs[0].Schema(); len(sc.DType.Fields) != 2 {
			t.Errorf("table: true: schema %s, want the two members as fields", sc)
		}
		p.Close()
	}
}
