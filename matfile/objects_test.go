package matfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// The files in testdata/objects were written by MATLAB (see its README);
// testdata/objects/expected.json holds what each must read as, written
// by gen_expected.py from the MATLAB scripts that made the files (values
// transcribed by hand, cross-checked with mat-io's tests, mapped to numpy
// as the package documents). No value in it comes from npyflow.

type expEntry struct {
	Class       string
	DType       string
	Shape       []int
	Fortran     bool
	Values      []any
	Valid       []bool
	Timezone    string
	Categories  []string
	Ordered     bool
	Marker      bool
	Sparse      bool
	Table       *expTable
	Description string
}

type expTable struct {
	Rows        int
	Dims        []int
	Columns     []expColumn
	Dimnames    []string
	Description string
}

type expColumn struct {
	Name        string
	Class       string
	DType       string
	Shape       []int
	Values      []any
	Valid       []bool
	Index       bool
	Unit        *string
	Description *string
	Timezone    string
	Categories  []string
	Columns     []expColumn
}

type expFile struct {
	Members   map[string]*expEntry
	Patterns  map[string][]json.RawMessage
	Variables map[string][]json.RawMessage
	Warnings  []string
	Damaged   []string
	Unchecked []string
}

func loadObjectExpectations(t *testing.T) map[string]*expFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "objects", "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var files map[string]*expFile
	if err := json.Unmarshal(b, &files); err != nil {
		t.Fatal(err)
	}
	for _, ef := range files {
		for pat, p := range ef.Patterns {
			var from, to int
			var e expEntry
			if err := errors.Join(json.Unmarshal(p[0], &from), json.Unmarshal(p[1], &to), json.Unmarshal(p[2], &e)); err != nil {
				t.Fatal(err)
			}
			for i := from; i <= to; i++ {
				c := e
				ef.Members[fmt.Sprintf(pat, i)] = &c
			}
		}
	}
	return files
}

// normJSON round-trips v through JSON, so that rendered values compare
// with decoded expectations.
func normJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestObjectFixtures: every variable of every MATLAB-written fixture
// reads as expected.json says, value by value, through File.Walk; tables
// through File.ReadTable too; classes and true sizes through
// File.Variables.
func TestObjectFixtures(t *testing.T) {
	files := loadObjectExpectations(t)
	for name, ef := range files {
		t.Run(name, func(t *testing.T) {
			f, err := OpenFile(filepath.Join("testdata", "objects", name), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got := map[string]*Var{}
			err = f.Walk(func(path string, v *Var) error {
				if got[path] != nil {
					t.Errorf("%s emitted twice", path)
				}
				got[path] = v
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			unchecked := func(p string) bool {
				for _, u := range ef.Unchecked {
					if p == u || strings.HasPrefix(p, u+".") || strings.HasPrefix(p, u+"{") || strings.HasPrefix(p, u+"(") {
						return true
					}
				}
				return false
			}
			for p := range got {
				if ef.Members[p] == nil && !unchecked(p) {
					t.Errorf("unexpected member %s", p)
				}
			}
			for p, e := range ef.Members {
				v := got[p]
				if v == nil {
					t.Errorf("missing member %s", p)
					continue
				}
				checkMember(t, p, v, e)
			}
			var warns []string
			damaged := map[string]bool{}
			for _, w := range f.Warnings() {
				if strings.Contains(w.Msg, "rounded") {
					continue
				}
				warns = append(warns, w.Path+":"+w.Class)
				if w.Err != nil {
					damaged[w.Path] = true
				}
			}
			want := append([]string(nil), ef.Warnings...)
			sort.Strings(warns)
			sort.Strings(want)
			if !reflect.DeepEqual(warns, want) && !(len(warns) == 0 && len(want) == 0) {
				t.Errorf("warnings %q, want %q", warns, want)
			}
			for _, d := range ef.Damaged {
				if !damaged[d] {
					t.Errorf("%s: no warning carrying an error", d)
				}
			}
			// Tables read through ReadTable alike.
			for p, e := range ef.Members {
				if e.Table == nil {
					continue
				}
				tb, err := f.ReadTable(p)
				if err != nil {
					t.Errorf("ReadTable(%s): %v", p, err)
					continue
				}
				checkTable(t, p, tb, e)
			}
			checkVariables(t, f, ef)
		})
	}
}

func checkMember(t *testing.T, p string, v *Var, e *expEntry) {
	t.Helper()
	if v.Class != e.Class {
		t.Errorf("%s: class %q, want %q", p, v.Class, e.Class)
	}
	if s := v.Header.DType.String(); s != e.DType {
		t.Errorf("%s: dtype %s, want %s", p, s, e.DType)
	}
	if !reflect.DeepEqual(v.Header.Shape, e.Shape) && !(len(v.Header.Shape) == 0 && len(e.Shape) == 0) {
		t.Errorf("%s: shape %v, want %v", p, v.Header.Shape, e.Shape)
	}
	if v.Header.FortranOrder != e.Fortran {
		t.Errorf("%s: fortran order %v, want %v", p, v.Header.FortranOrder, e.Fortran)
	}
	if v.Marker != e.Marker || v.Sparse != e.Sparse {
		t.Errorf("%s: marker %v sparse %v, want %v %v", p, v.Marker, v.Sparse, e.Marker, e.Sparse)
	}
	a, err := v.Array()
	if err != nil {
		t.Errorf("%s: %v", p, err)
		return
	}
	vals := normJSON(t, renderValues(a.DType, a.Data, int(a.Header.Count())))
	if want := normJSON(t, e.Values); !reflect.DeepEqual(vals, want) {
		t.Errorf("%s: values\n got %v\nwant %v", p, vals, want)
	}
	if !reflect.DeepEqual(v.Valid, e.Valid) {
		t.Errorf("%s: valid %v, want %v", p, v.Valid, e.Valid)
	}
	var tz string
	var cats []string
	var ordered bool
	if v.Meta != nil {
		tz, cats, ordered = v.Meta.TimeZone, v.Meta.Categories, v.Meta.Ordered
	}
	if tz != e.Timezone || !reflect.DeepEqual(cats, e.Categories) && !(len(cats) == 0 && len(e.Categories) == 0 && (cats == nil) == (e.Categories == nil)) || ordered != e.Ordered {
		t.Errorf("%s: meta tz %q categories %q ordered %v, want %q %q %v", p, tz, cats, ordered, e.Timezone, e.Categories, e.Ordered)
	}
	if e.Table != nil {
		if v.Meta == nil || v.Meta.Table == nil {
			t.Errorf("%s: no table", p)
			return
		}
		checkTable(t, p, v.Meta.Table, e)
	}
}

func checkTable(t *testing.T, p string, tb *Table, e *expEntry) {
	t.Helper()
	if tb.Class != e.Class || tb.Rows != e.Table.Rows || tb.Name != p {
		t.Errorf("%s: table %s %q of %d rows, want %s of %d", p, tb.Class, tb.Name, tb.Rows, e.Class, e.Table.Rows)
	}
	if e.Table.Dimnames != nil && !reflect.DeepEqual(tb.DimensionNames, e.Table.Dimnames) {
		t.Errorf("%s: dimension names %q, want %q", p, tb.DimensionNames, e.Table.Dimnames)
	}
	if tb.Description != e.Table.Description {
		t.Errorf("%s: description %q, want %q", p, tb.Description, e.Table.Description)
	}
	checkColumns(t, p, tb.Columns, e.Table.Columns, tb.Rows)
	a := tb.Array()
	if a.Header.Shape[0] != tb.Rows || a.DType.String() != e.DType {
		t.Errorf("%s: Array %v %s", p, a.Header.Shape, a.DType)
	}
}

func checkColumns(t *testing.T, p string, cols []*Column, want []expColumn, rows int) {
	t.Helper()
	if len(cols) != len(want) {
		var names []string
		for _, c := range cols {
			names = append(names, c.Name)
		}
		t.Errorf("%s: columns %q, want %d", p, names, len(want))
		return
	}
	for i, c := range cols {
		w := want[i]
		cp := p + "/" + w.Name
		if c.Name != w.Name || c.Class != w.Class || c.DType.String() != w.DType || c.Index != w.Index {
			t.Errorf("%s: column %s %s %s index %v, want %s %s %s %v", cp, c.Name, c.Class, c.DType, c.Index, w.Name, w.Class, w.DType, w.Index)
			continue
		}
		if !reflect.DeepEqual(c.Shape, w.Shape) {
			t.Errorf("%s: shape %v, want %v", cp, c.Shape, w.Shape)
		}
		per := 1
		for _, d := range c.Shape {
			per *= d
		}
		if len(c.Data) != rows*per*c.DType.Size {
			t.Errorf("%s: %d bytes of data", cp, len(c.Data))
			continue
		}
		vals := []any{}
		for r := 0; r < rows; r++ {
			row := renderValues(c.DType, c.Data[r*per*c.DType.Size:], per)
			if c.Shape == nil {
				vals = append(vals, row[0])
			} else {
				vals = append(vals, row)
			}
		}
		if got, exp := normJSON(t, vals), normJSON(t, w.Values); !reflect.DeepEqual(got, exp) {
			t.Errorf("%s: values\n got %v\nwant %v", cp, got, exp)
		}
		if !reflect.DeepEqual(c.Valid, w.Valid) {
			t.Errorf("%s: valid %v, want %v", cp, c.Valid, w.Valid)
		}
		if w.Unit != nil && c.Unit != *w.Unit || w.Description != nil && c.Description != *w.Description {
			t.Errorf("%s: unit %q description %q", cp, c.Unit, c.Description)
		}
		if c.TimeZone != w.Timezone {
			t.Errorf("%s: time zone %q, want %q", cp, c.TimeZone, w.Timezone)
		}
		if w.Columns != nil {
			checkColumns(t, cp, c.Columns, w.Columns, rows)
		}
	}
}

func checkVariables(t *testing.T, f *File, ef *expFile) {
	t.Helper()
	infos, err := f.Variables()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]VarInfo{}
	for _, vi := range infos {
		byName[vi.Name] = vi
	}
	for name, w := range ef.Variables {
		vi, ok := byName[name]
		if !ok {
			t.Errorf("Variables: no %s", name)
			continue
		}
		var class string
		var dims []int
		json.Unmarshal(w[0], &class)
		json.Unmarshal(w[1], &dims)
		if vi.Class != class || dims != nil && !reflect.DeepEqual(vi.Dims, dims) {
			t.Errorf("Variables: %s is %s %v, want %s %v", name, vi.Class, vi.Dims, class, dims)
		}
		if e := ef.Members[name]; e != nil && e.Table != nil {
			if vi.Table == nil || vi.Table.Rows != e.Table.Rows || len(vi.Table.Columns) != len(e.Table.Columns) {
				t.Errorf("Variables: %s table %+v", name, vi.Table)
				continue
			}
			for i, c := range vi.Table.Columns {
				if c.Name != e.Table.Columns[i].Name || c.DType.String() != e.Table.Columns[i].DType {
					t.Errorf("Variables: %s column %d is %s %s", name, i, c.Name, c.DType)
				}
			}
		}
	}
	for _, d := range ef.Damaged {
		if vi := byName[d]; vi.Err == nil {
			t.Errorf("Variables: %s has no error", d)
		}
	}
}

// TestObjectsStrict: in Strict mode a classdef object read as a struct,
// or a rounded time, is no error (it is read); a map with no numpy form
// and a damaged subsystem are.
func TestObjectsStrict(t *testing.T) {
	for _, c := range []struct {
		name string
		fail string
	}{
		{"test_user_defined_v7.mat", ""},
		{"test_tables_v7.mat", "table_with_objects.Var2"},
		{"test_maps_v7.mat", "map_empty"},
		{"test_corrupted_subsystem.mat", "the object subsystem"},
	} {
		f, err := OpenFile(filepath.Join("testdata", "objects", c.name), &Options{Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		err = f.Walk(func(string, *Var) error { return nil })
		f.Close()
		if c.fail == "" && err != nil || c.fail != "" && (err == nil || !strings.Contains(err.Error(), c.fail)) {
			t.Errorf("%s strict: %v, want %q", c.name, err, c.fail)
		}
	}
}

// TestValidRowMajor: a 2x2 string array's validity in C order.
func TestValidRowMajor(t *testing.T) {
	v := &Var{Valid: []bool{true, false, true, true}, Header: &npyio.Header{DType: npyio.Float64Type, FortranOrder: true, Shape: []int{2, 2}}}
	if got := v.ValidRowMajor(); !reflect.DeepEqual(got, []bool{true, true, false, true}) {
		t.Errorf("%v", got)
	}
}

// TestDamagedMessage: the error of an object that cannot be read names
// the file and the variable.
func TestDamagedMessage(t *testing.T) {
	name := filepath.Join("testdata", "objects", "test_corrupted_subsystem.mat")
	f, err := OpenFile(name, &Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = f.Walk(func(string, *Var) error { return nil })
	var se *SubsystemError
	want := "matfile: " + name + ": variable var: the object subsystem: linking metadata version 5 (npyflow knows 2 to 4)"
	if err == nil || err.Error() != want || !errors.As(err, &se) {
		t.Errorf("error %q, want %q", err, want)
	}
}

// TestReadTableKinds: what ReadTable reads as a table, and what it
// refuses with ErrNotTable.
func TestReadTableKinds(t *testing.T) {
	open := func(name string) *File {
		t.Helper()
		f, err := OpenFile(filepath.Join("testdata", "objects", name), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	for _, c := range []struct{ file, name string }{
		{"test_string_v7.mat", "string_array"},
		{"test_user_defined_v7.mat", "obj_with_vals"},
		{"test_basic_v7.mat", "struct_scalar"}, // fields of 1, 1 and 2 rows
		{"test_basic_v7.mat", "double_array"},
		{"test_maps_v7.mat", "dict_empty"},
	} {
		if _, err := open(c.file).ReadTable(c.name); !errors.Is(err, ErrNotTable) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s %s: %v, want ErrNotTable", c.file, c.name, err)
		}
	}
	if _, err := open("test_string_v7.mat").ReadTable("nosuch"); err == nil || errors.Is(err, ErrNotTable) {
		t.Errorf("no such variable: %v", err)
	}
	// A v7.3 1x1 struct of one-row objects: a one-row table.
	tb, err := open("synth_objects_v73.mat").ReadTable("s")
	if err != nil {
		t.Fatal(err)
	}
	a := tb.Array()
	got := normJSON(t, renderValues(a.DType, a.Data, tb.Rows))
	want := normJSON(t, []any{map[string]any{"greet": "héllo", "when": "2020-01-01T00:00:00"}})
	if tb.Class != "struct" || !reflect.DeepEqual(got, want) || tb.Column("when").TimeZone != "UTC" {
		t.Errorf("struct table %s %v", tb.Class, got)
	}
}
