package matfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
)

// Level 5 files built around the object subsystem of a MATLAB-written
// fixture: the objects are MATLAB's, the variables that refer to them are
// built here (objects in struct fields and cells, references outside the
// subsystem, damaged subsystems).

// fixtureSubsystem returns the raw subsystem element (tag and data) of a
// Level 5 fixture.
func fixtureSubsystem(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "objects", name))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range f.l5.elems {
		if e.subsystem {
			return append([]byte(nil), b[e.off:e.off+8+e.n]...)
		}
	}
	t.Fatalf("%s has no subsystem", name)
	return nil
}

// withSubsystem is a Level 5 file of the given elements followed by the
// subsystem element ss, the header pointing to it.
func withSubsystem(ss []byte, elems ...[]byte) []byte {
	b := matFile(elems...)
	binary.LittleEndian.PutUint64(b[116:], uint64(len(b)))
	return append(b, ss...)
}

// u32s packs uint32 values.
func u32s(v ...uint32) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, v)
	return b.Bytes()
}

// opaqueBody is the contents of an mxOPAQUE_CLASS element referring to
// MCOS objects ids (column-major, of size dims) of class id classID.
func opaqueBody(name, class string, dims []uint32, ids []uint32, classID uint32) []byte {
	ref := []uint32{mcosMagic, uint32(len(dims))}
	ref = append(ref, dims...)
	ref = append(ref, ids...)
	ref = append(ref, classID)
	var b bytes.Buffer
	b.Write(flagsEl(ClassOpaque, 0, 0))
	b.Write(el(MiINT8, []byte(name)))
	b.Write(el(MiINT8, []byte("MCOS")))
	b.Write(el(MiINT8, []byte(class)))
	b.Write(matrix(ClassUint32, 0, []int32{int32(len(ref)), 1}, "", el(MiUINT32, u32s(ref...))))
	return el(MiMATRIX, b.Bytes())
}

// structOf is a 1x1 struct element of the given fields (field values are
// miMATRIX elements without names).
func structOf(name string, fields []string, vals ...[]byte) []byte {
	w := 0
	for _, f := range fields {
		w = max(w, len(f)+1)
	}
	names := make([]byte, w*len(fields))
	for i, f := range fields {
		copy(names[i*w:], f)
	}
	parts := [][]byte{small(MiINT32, i32s(int32(w))), el(MiINT8, names)}
	parts = append(parts, vals...)
	return matrix(ClassStruct, 0, []int32{1, 1}, name, parts...)
}

// In test_tables_v7.mat (see the dump in objects_test.go's fixture): object
// 2 is table_numeric (class 1, table), 4 the string column of
// table_strings (class 2, string), 6 the datetimes of table_time (class 3),
// 7 its durations (class 4), 13 the datetime in table_from_cell.
const (
	tblNumeric  = 2
	strApple    = 4
	dtTableTime = 6
	dt2023      = 13
)

// TestNestedObjectsLevel5: objects in struct fields and cells read as
// objects at the top do; the struct of same-length fields reads as a
// table (struct2table's layout) with the nested table as a nested struct.
func TestNestedObjectsLevel5(t *testing.T) {
	ss := fixtureSubsystem(t, "test_tables_v7.mat")
	s := structOf("s", []string{"names", "when", "tbl", "n", "code"},
		opaqueBody("", "string", []uint32{1, 1}, []uint32{strApple}, 2),
		opaqueBody("", "datetime", []uint32{1, 1}, []uint32{dtTableTime}, 3),
		opaqueBody("", "table", []uint32{1, 1}, []uint32{tblNumeric}, 1),
		matrix(ClassDouble, 0, []int32{3, 2}, "", el(MiDOUBLE, f64s(1, 2, 3, 4, 5, 6))),
		matrix(ClassChar, 0, []int32{3, 3}, "", el(MiUTF8, []byte("aceb   d "))))
	c := matrix(ClassCell, 0, []int32{1, 2}, "c",
		opaqueBody("", "datetime", []uint32{1, 1}, []uint32{dt2023}, 3),
		matrix(ClassDouble, 0, []int32{1, 1}, "", el(MiDOUBLE, f64s(5))))
	b := withSubsystem(ss, s, compressed(c))
	vars, f, err := walkBytes(t, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Warnings()) != 0 {
		t.Errorf("warnings %v", f.Warnings())
	}
	check := func(path, class, dtype string, shape []int, want ...any) {
		t.Helper()
		v := vars[path]
		if v == nil {
			t.Errorf("no %s", path)
			return
		}
		a, err := v.Array()
		if err != nil {
			t.Fatal(err)
		}
		got := normJSON(t, renderValues(a.DType, a.Data, int(a.Header.Count())))
		if v.Class != class || a.DType.String() != dtype || !reflect.DeepEqual(v.Header.Shape, shape) || !reflect.DeepEqual(got, normJSON(t, want)) {
			t.Errorf("%s: %s %s %v %v, want %s %s %v %v", path, v.Class, a.DType, v.Header.Shape, got, class, dtype, shape, want)
		}
	}
	check("s.names", "string", "'<U6'", []int{3, 1}, "apple", "banana", "cherry")
	check("s.when", "datetime", "'<M8[ns]'", []int{3, 1}, "2020-01-01T00:00:00", "2020-01-02T00:00:00", "2020-01-03T00:00:00")
	check("s.tbl", "table", "[('Var1', '<f8'), ('Var2', '<f8')]", []int{3},
		map[string]any{"Var1": 1.1, "Var2": 4.4}, map[string]any{"Var1": 2.2, "Var2": 5.5}, map[string]any{"Var1": 3.3, "Var2": 6.6})
	check("s.n", "double", "'<f8'", []int{3, 2}, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
	check("c{1}", "datetime", "'<M8[ns]'", []int{1, 1}, "2023-01-01T00:00:00")
	check("c{2}", "double", "'<f8'", []int{1, 1}, 5.0)

	tb, err := f.ReadTable("s")
	if err != nil {
		t.Fatal(err)
	}
	if tb.Class != "struct" || tb.Rows != 3 || tb.DType().String() !=
		"[('names', '<U6'), ('when', '<M8[ns]'), ('tbl', [('Var1', '<f8'), ('Var2', '<f8')]), ('n', '<f8', (2,)), ('code', '<U3')]" {
		t.Fatalf("table %s %d %s", tb.Class, tb.Rows, tb.DType())
	}
	a := tb.Array()
	got := normJSON(t, renderValues(a.DType, a.Data, tb.Rows))
	want := normJSON(t, []any{
		map[string]any{"names": "apple", "when": "2020-01-01T00:00:00", "tbl": map[string]any{"Var1": 1.1, "Var2": 4.4}, "n": []any{1, 4}, "code": "ab"},
		map[string]any{"names": "banana", "when": "2020-01-02T00:00:00", "tbl": map[string]any{"Var1": 2.2, "Var2": 5.5}, "n": []any{2, 5}, "code": "c d"},
		map[string]any{"names": "cherry", "when": "2020-01-03T00:00:00", "tbl": map[string]any{"Var1": 3.3, "Var2": 6.6}, "n": []any{3, 6}, "code": "e"},
	})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("struct table\n got %v\nwant %v", got, want)
	}
	if c := tb.Column("tbl"); c == nil || c.Class != "table" || len(c.Columns) != 2 || c.Columns[1].Name != "Var2" {
		t.Errorf("nested table column %+v", c)
	}
	if _, err := f.ReadTable("c"); !errors.Is(err, ErrNotTable) {
		t.Errorf("ReadTable of a cell: %v", err)
	}
	infos, err := f.Variables()
	if err != nil || len(infos) != 2 || infos[0].Class != "struct" || infos[1].Class != "cell" {
		t.Errorf("variables %+v %v", infos, err)
	}
}

// TestObjectIsolation: an object whose reference points outside the
// subsystem, an unknown class, a damaged subsystem: each costs only the
// variables that refer to it (a warning carrying the error, an error in
// Strict mode); the other variables read.
func TestObjectIsolation(t *testing.T) {
	ss := fixtureSubsystem(t, "test_tables_v7.mat")
	x := matrix(ClassDouble, 0, []int32{1, 2}, "x", el(MiDOUBLE, f64s(1, 2)))
	good := opaqueBody("good", "string", []uint32{1, 1}, []uint32{strApple}, 2)
	// The metadata's region offsets are little-endian uint32s at bytes 8..39
	// of the metadata; the subsystem element is uncompressed in this
	// fixture only if its tag says miMATRIX.
	cases := []struct {
		name string
		file []byte
		bad  []string // variables skipped as unreadable
	}{
		{"object id outside", withSubsystem(ss, x, opaqueBody("far", "string", []uint32{1, 1}, []uint32{999}, 2), good), []string{"far"}},
		{"class id outside", withSubsystem(ss, x, opaqueBody("cls", "string", []uint32{1, 1}, []uint32{strApple}, 77), good), []string{"cls"}},
		{"class mismatch", withSubsystem(ss, x, opaqueBody("mis", "datetime", []uint32{1, 1}, []uint32{strApple}, 3), good), []string{"mis"}},
		{"reference of bad size", withSubsystem(ss, x, func() []byte {
			var b bytes.Buffer
			b.Write(flagsEl(ClassOpaque, 0, 0))
			b.Write(el(MiINT8, []byte("odd")))
			b.Write(el(MiINT8, []byte("MCOS")))
			b.Write(el(MiINT8, []byte("string")))
			b.Write(matrix(ClassUint32, 0, []int32{5, 1}, "", el(MiUINT32, u32s(mcosMagic, 2, 1000, 1000, 1))))
			return el(MiMATRIX, b.Bytes())
		}(), good), []string{"odd"}},
		{"no subsystem", matFile(x, opaqueBody("lost", "string", []uint32{1, 1}, []uint32{1}, 1)), []string{"lost"}},
		{"subsystem of garbage", withSubsystem(matrix(ClassUint8, 0, []int32{1, 64}, "", el(MiUINT8, bytes.Repeat([]byte{0xA5}, 64))), x, good), []string{"good"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vars, f, err := walkBytes(t, c.file, nil)
			if err != nil {
				t.Fatal(err)
			}
			if vars["x"] == nil {
				t.Errorf("x not read: %v", f.Warnings())
			}
			var bad []string
			for _, w := range f.Warnings() {
				if w.Err != nil {
					bad = append(bad, w.Path)
					if !strings.HasPrefix(w.Err.Error(), "matfile: ") {
						t.Errorf("error without the package prefix: %v", w.Err)
					}
				}
			}
			if !reflect.DeepEqual(bad, c.bad) {
				t.Errorf("skipped %v, want %v (%v)", bad, c.bad, f.Warnings())
			}
			goodBad := false
			for _, b := range c.bad {
				goodBad = goodBad || b == "good"
			}
			if strings.Contains(string(c.file), "good") && !goodBad && vars["good"] == nil {
				t.Errorf("good not read")
			}
			infos, err := f.Variables()
			if err != nil {
				t.Fatal(err)
			}
			for _, vi := range infos {
				isBad := false
				for _, b := range c.bad {
					isBad = isBad || vi.Name == b
				}
				if (vi.Err != nil) != isBad {
					t.Errorf("Variables: %s err %v", vi.Name, vi.Err)
				}
			}
			// Strict: the first unreadable variable is the error.
			_, _, err = walkBytes(t, c.file, &Options{Strict: true})
			if err == nil {
				t.Errorf("strict: no error")
			}
		})
	}
}

// TestDamagedFixtures: byte flips and truncations all through each
// MATLAB-written object fixture never panic; a walk ends without error
// (damage costs variables, not the file) or the file does not open; and
// damage inside the subsystem leaves the plain variables readable.
func TestDamagedFixtures(t *testing.T) {
	names, _ := filepath.Glob(filepath.Join("testdata", "objects", "*.mat"))
	opts := &Options{MaxVariableBytes: 64 << 20, MaxSparseBytes: 8 << 20, MaxElements: 1 << 16}
	for _, name := range names {
		orig, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		step := 173 // a sample in make test, every 47th byte in make fuzz
		switch {
		case fixtures.Long():
			step = 47
		case testing.Short():
			step = 293
		}
		if strings.Contains(name, "v73") || strings.Contains(name, "corrupted") {
			step *= 7 // HDF5: the hdf5 package has its own mutation tests
		}
		for pos := HeaderSize; pos < len(orig); pos += step {
			for _, m := range []func([]byte){
				func(b []byte) { b[pos] ^= 0xFF },
				func(b []byte) { b[pos] = 0x7F },
			} {
				b := append([]byte(nil), orig...)
				m(b)
				damagedWalk(t, name, pos, b, opts)
			}
			damagedWalk(t, name, pos, orig[:pos], opts)
		}
	}
}

func damagedWalk(t *testing.T, name string, pos int, b []byte, opts *Options) {
	t.Helper()
	f, err := Open(bytes.NewReader(b), int64(len(b)), opts)
	if err != nil {
		if !strings.HasPrefix(err.Error(), "matfile: ") {
			t.Errorf("%s at %d: open: error without the package prefix: %v", name, pos, err)
		}
		return
	}
	if f.v73 != nil {
		if _, err := f.v73.topLevel(); err != nil {
			// The root group itself is damaged: no variable can be found,
			// and that is a file error.
			if !strings.HasPrefix(err.Error(), "matfile: ") {
				t.Errorf("%s at %d: root: error without the package prefix: %v", name, pos, err)
			}
			return
		}
	}
	if _, err := f.Variables(); err != nil {
		t.Errorf("%s at %d: Variables: %v", name, pos, err)
	}
	err = f.Walk(func(path string, v *Var) error {
		a, err := v.Array()
		if err == nil && int64(len(a.Data)) != v.Header.DataSize() {
			t.Fatalf("%s at %d: %s: %d bytes for %d", name, pos, path, len(a.Data), v.Header.DataSize())
		}
		if v.Meta != nil && v.Meta.Table != nil {
			v.Meta.Table.Array()
		}
		return nil
	})
	if err != nil {
		t.Errorf("%s at %d: walk: %v", name, pos, err)
	}
}
