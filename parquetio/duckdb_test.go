package parquetio

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// TestDuckDB has DuckDB (through node and @duckdb/node-api) read every
// converted fixture: row counts, and a spot check of integer, bool and
// string values. It is skipped unless node is installed and the module is
// in $NPYFLOW_DUCKDB_MODULES (default /tmp/duck: run `npm install
// @duckdb/node-api` there).
func TestDuckDB(t *testing.T) {
	node, modDir, err := fixtures.DuckDB()
	if err != nil {
		t.Skip(err)
	}
	type check struct {
		Column string `json:"column"`
		Row    int    `json:"row"`
		Want   any    `json:"want"`
	}
	type entry struct {
		File   string  `json:"file"`
		Rows   int     `json:"rows"`
		Checks []check `json:"checks"`
	}
	dir := t.TempDir()
	var manifest []entry
	for _, f := range fixtures.NPYs(t) {
		if f.Name == "growth" {
			continue
		}
		out := filepath.Join(dir, f.Name+".parquet")
		if err := os.WriteFile(out, writeFixture(t, f.Path, nil), 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := npyio.ParseHeader(f.Header)
		if err != nil {
			t.Fatal(err)
		}
		e := entry{File: out, Rows: int(h.Rows())}
		spot := func(dt *npyio.DType, col string, row int, raw json.RawMessage) {
			switch dt.Kind {
			case npyio.Int, npyio.Uint:
				e.Checks = append(e.Checks, check{col, row, fixtures.Str(raw)})
			case npyio.Bool:
				w := "false"
				if fixtures.Bool(raw) {
					w = "true"
				}
				e.Checks = append(e.Checks, check{col, row, w})
			case npyio.Unicode:
				e.Checks = append(e.Checks, check{col, row, fixtures.Str(raw)})
			}
		}
		switch {
		case h.DType.Kind == npyio.Struct && len(h.Shape) == 1:
			for r := range f.Values {
				vals := fixtures.List(f.Values[r])
				for i := range h.DType.Fields {
					if fl := &h.DType.Fields[i]; fl.Shape == nil && fl.Name != "" && i < 40 { // DuckDB cannot quote an empty name
						spot(fl.Type, fl.Name, r, vals[i])
					}
				}
			}
		case len(h.Shape) == 1:
			for r := range f.Values {
				spot(h.DType, "a", r, f.Values[r])
			}
		}
		manifest = append(manifest, e)
	}
	mf := filepath.Join(dir, "manifest.json")
	b, _ := json.Marshal(manifest)
	if err := os.WriteFile(mf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join("testdata", "duckcheck.mjs"), mf, modDir)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("DuckDB check failed: %v", err)
	}
}
