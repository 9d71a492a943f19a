package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/inspect"
)

// TestInspectFormats inspects an npz fixture, and the Parquet and Arrow
// files convert makes of numpy's table.npz: the JSON reports numpy's
// members, dtypes and shapes, and the row counts; damaged files are one
// error line naming the file.
// The shapes of inspect's JSON output.
type (
	npzInfo   = inspect.NPZInfo
	tableInfo = inspect.TableInfo
)

func TestInspectFormats(t *testing.T) {
	dir := t.TempDir()
	inspect := func(t *testing.T, path string, v any) {
		t.Helper()
		code, out := runCLI(t, "inspect", "--json", path)
		if code != 0 {
			t.Fatalf("inspect %s: exit %d: %s", path, code, out)
		}
		if err := json.Unmarshal([]byte(out), v); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
	}

	t.Run("npz", func(t *testing.T) {
		var fx fixtures.NPZ
		for _, z := range fixtures.NPZs(t) {
			if z.Name == "savez_compressed_mixed" {
				fx = z
			}
		}
		var got npzInfo
		inspect(t, fx.Path, &got)
		if got.Format != "npz" || len(got.Members) != len(fx.Members) {
			t.Fatalf("got %+v, want %d members", got, len(fx.Members))
		}
		for i, m := range fx.Members {
			g := got.Members[i]
			if g.Key != m.Key || g.Compressed != m.Compressed || g.Header == nil || g.Header.Descr != m.Descr || !equalInts(g.Header.Shape, m.Shape) || len(g.Header.Shape) != len(m.Shape) {
				t.Errorf("member %d: %+v %+v, want numpy's %s %s %v compressed=%v", i, g, g.Header, m.Key, m.Descr, m.Shape, m.Compressed)
			}
		}
	})

	table := filepath.Join(fixtures.Root(), "npz", "table.npz")
	var want fixtures.NPZ
	for _, z := range fixtures.NPZs(t) {
		if z.Path == table {
			want = z
		}
	}
	for _, ext := range []string{"parquet", "arrow"} {
		t.Run(ext, func(t *testing.T) {
			out := filepath.Join(dir, "table."+ext)
			if code, msg := runCLI(t, "convert", table, out); code != 0 {
				t.Fatalf("convert: %d %s", code, msg)
			}
			var got tableInfo
			inspect(t, out, &got)
			if got.Format != ext || got.Rows != int64(want.Members[0].Shape[0]) || len(got.Columns) != len(want.Members) {
				t.Fatalf("got %+v, want %s with %d rows and %d columns", got, ext, want.Members[0].Shape[0], len(want.Members))
			}
			for i, m := range want.Members {
				c := got.Columns[i]
				if c.Name != m.Key {
					t.Errorf("column %d is %q, want %q", i, c.Name, m.Key)
				}
				switch ext {
				case "parquet":
					if c.Descr != m.Descr || !equalInts(c.Shape, m.Shape[1:]) {
						t.Errorf("column %s: %s %v, want numpy's %s with rows of %v", c.Name, c.Descr, c.Shape, m.Descr, m.Shape[1:])
					}
				case "arrow":
					if c.Type == "" {
						t.Errorf("column %s has no Arrow type", c.Name)
					}
				}
			}
			// And back: the members come back numpy-equal.
			back := filepath.Join(dir, "back-"+ext+".npz")
			if code, msg := runCLI(t, "convert", out, back); code != 0 {
				t.Fatalf("convert back: %d %s", code, msg)
			}
			z, err := npyio.OpenNPZ(back, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer z.Close()
			for _, m := range want.Members {
				a, err := z.Member(m.Key).ReadArray()
				if err != nil {
					t.Fatalf("%s: %v", m.Key, err)
				}
				if !equalInts(a.Header.Shape, m.Shape) {
					t.Errorf("%s: shape %v, want %v", m.Key, a.Header.Shape, m.Shape)
				}
				data, size := a.CData(), a.DType.Size
				for i, v := range m.Values {
					if err := fixtures.CheckElement(a.DType, data[i*size:(i+1)*size], v); err != nil {
						t.Errorf("%s[%d]: %v", m.Key, i, err)
					}
				}
			}
			// Damaged: cut in the middle.
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			cut := filepath.Join(dir, "cut."+ext)
			os.WriteFile(cut, b[:len(b)/2], 0o644)
			code, msg := runCLI(t, "inspect", cut)
			if code != 1 || strings.Count(strings.TrimSpace(msg), "\n") != 0 || !strings.HasPrefix(msg, "npyflow inspect: "+cut+": ") {
				t.Errorf("inspect of a cut %s: exit %d %q", ext, code, msg)
			}
		})
	}
}

// TestHelp: "npyflow help CMD" and "CMD -h" print the command's usage and
// flags and exit 0, for every command.
func TestHelp(t *testing.T) {
	for name := range commands {
		for _, args := range [][]string{{"help", name}, {name, "-h"}} {
			code, out := runCLI(t, args...)
			if code != 0 || !strings.HasPrefix(out, "usage: npyflow "+name) || name == "convert" && !strings.Contains(out, "\n  -compression") {
				t.Errorf("%v: exit %d:\n%s", args, code, out)
			}
		}
	}
}

// TestInspectOptionsCLI: inspect takes convert's --validity, --decimal,
// --columns and --fill and shows the mapping under them.
func TestInspectOptionsCLI(t *testing.T) {
	f := filepath.Join("..", "..", "parquetio", "testdata", "foreign", "duck_nulls.parquet")
	code, out := runCLI(t, "inspect", "--decimal", "scaled", "--columns", "decn,f8n", "--validity", "decn", f)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, want := range []string{"decn             DECIMAL(10,2) (INT64) -> decn_x1e2 <i8", "decn_valid       validity -> |b1 (false where decn is null)", "f8n              DOUBLE -> <f8"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "u1_dict") {
		t.Errorf("a column not selected is shown:\n%s", out)
	}
	code, out = runCLI(t, "inspect", "--validity", "x", filepath.Join("..", "..", "arrowconv", "testdata", "foreign", "nulls.arrow"))
	if code != 1 || !strings.Contains(out, `"x"`) {
		t.Errorf("validity for no column: exit %d: %s", code, out)
	}
}
