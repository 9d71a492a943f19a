package pipeline

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/pipeline/inspect"
)

// TestMATZoneLostWarned: a datetime with a time zone (MATLAB-written
// dt_tz, America/New_York) written to .npz or .npy is warned of, naming
// the variable and the zone, once; a datetime without one is not, and
// Parquet, which keeps the zone, gives no such warning.
func TestMATZoneLostWarned(t *testing.T) {
	dir := t.TempDir()
	zoned := func(warns []string) []string {
		var out []string
		for _, w := range warns {
			if strings.Contains(w, "time zone") {
				out = append(out, w)
			}
		}
		return out
	}
	for _, c := range []struct{ variable, out string }{{"", "all.npz"}, {"dt_tz", "tz.npy"}, {"dt_tz", "tz.npz"}} {
		warns := zoned(matConvert(t, "test_time_v73.mat", c.variable, filepath.Join(dir, c.out), nil))
		if len(warns) != 1 || !strings.Contains(warns[0], "test_time_v73.mat: dt_tz: datetime in time zone America/New_York") ||
			!strings.Contains(warns[0], "America/New_York is lost") || !strings.Contains(warns[0], filepath.Ext(c.out)) {
			t.Errorf("%s: warnings %q, want one naming dt_tz and America/New_York", c.out, warns)
		}
	}
	for _, c := range []struct{ variable, out string }{{"dt_basic", "basic.npz"}, {"dt_tz", "tz.parquet"}, {"dt_tz", "tz.arrow"}} {
		if warns := zoned(matConvert(t, "test_time_v73.mat", c.variable, filepath.Join(dir, c.out), nil)); len(warns) != 0 {
			t.Errorf("%s %s: warnings %q", c.variable, c.out, warns)
		}
	}
}

// TestMATTableLeftOutWarned: a MATLAB table variable without a column
// form (a cell of objects, a cell of mixed types: MATLAB-written
// test_tables_v7.mat) is left out with a warning naming the table and
// the variable, whatever the output, and inspect lists it as left out.
func TestMATTableLeftOutWarned(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ table, variable, class, reason string }{
		{"table_with_objects", "Var2", "cell", "a cell of object values has no numpy form (an object of class TestClasses.BasicClass"},
		{"table_from_cell", "Var1", "cell", "a cell of mixed types (double and char) has no numpy form"},
	}
	for _, c := range cases {
		for _, out := range []string{"t.npz", "t.arrow"} {
			if c.table == "table_from_cell" && out == "t.arrow" {
				continue // no column is left: nothing to write to Arrow
			}
			warns := matConvert(t, "test_tables_v7.mat", c.table, filepath.Join(dir, out), nil)
			want := c.table + "." + c.variable + ": skipped " + c.class + " (variable " + c.variable + " left out of table " + c.table + ": " + c.reason
			if len(warns) != 1 || !strings.Contains(warns[0], want) {
				t.Errorf("%s -> %s: warnings %q, want one with %q", c.table, out, warns, want)
			}
		}
	}
	info, err := Inspect(context.Background(), filepath.Join(matObjects, "test_tables_v7.mat"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	mi := info.(*inspect.MATInfo)
	mi.WriteText(&text)
	for _, c := range cases {
		i := slices.IndexFunc(mi.Variables, func(v inspect.MATVar) bool { return v.Name == c.table })
		if i < 0 || mi.Variables[i].Table == nil {
			t.Fatalf("%s: not a table in %+v", c.table, mi.Variables)
		}
		lo := mi.Variables[i].Table.LeftOut
		if len(lo) != 1 || lo[0].Name != c.variable || lo[0].Class != c.class || !strings.HasPrefix(lo[0].Reason, c.reason) {
			t.Errorf("%s: left out %+v, want %s (%s): %s", c.table, lo, c.variable, c.class, c.reason)
		}
		if !strings.Contains(text.String(), "left out: "+c.reason) {
			t.Errorf("inspect text lacks %s's left-out %s:\n%s", c.table, c.variable, text.String())
		}
	}
	// Tables whose every variable has a column form list none.
	for _, v := range mi.Variables {
		if v.Table != nil && len(v.Table.LeftOut) > 0 && v.Name != "table_with_objects" && v.Name != "table_from_cell" {
			t.Errorf("%s: left out %+v", v.Name, v.Table.LeftOut)
		}
	}
}

// TestMATInspectOtherTypeSystems: inspect shows MATLAB's size (1x1) of a
// Java and a COM object in a v7.3 file (gen_type_systems_v73.py), not a
// blank and an error, and a conversion skips both with a warning naming
// them.
func TestMATInspectOtherTypeSystems(t *testing.T) {
	info, err := Inspect(context.Background(), filepath.Join(matObjects, "type_systems_v73_synth.mat"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	info.(*inspect.MATInfo).WriteText(&text)
	for _, want := range []string{"javatype         1x1      java.lang.String, bytes ?\n", "handletype       1x1      COM.Excel_Application, bytes ?\n"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("inspect lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), "cannot be read") {
		t.Errorf("inspect:\n%s", text.String())
	}
	warns := matConvert(t, "type_systems_v73_synth.mat", "", filepath.Join(t.TempDir(), "o.npz"), nil)
	joined := strings.Join(warns, "\n")
	for _, want := range []string{"javatype: skipped java.lang.String (a MATLAB object has no numpy form)", "handletype: skipped COM.Excel_Application (a MATLAB object has no numpy form)"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings %q lack %q", warns, want)
		}
	}
}
