package matfile

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/hdf5"
)

// TestMATLABLayoutV73: sparse groups, MATLAB-order empties, an empty cell,
// the canonical empty, a string object with #subsystem# and a function
// handle, in MATLAB's layout (written by h5py, see gen_h5py_matlab.py).
func TestMATLABLayoutV73(t *testing.T) {
	exp := loadExpected(t, "h5py_matlab_v73.json")
	vars, arrs, f := readAll(t, "h5py_matlab_v73.mat", nil)
	checkAgainst(t, "h5py_matlab_v73", exp, vars, arrs)
	var got []string
	for _, w := range f.Warnings() {
		got = append(got, w.Path+":"+w.Class)
	}
	// str refers to a subsystem that holds no objects (h5py wrote a
	// stand-in): it is skipped as unreadable, and the rest is read.
	want := []string{"fh:function_handle", "str:string"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
	info, err := f.Variables()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]VarInfo{}
	for _, vi := range info {
		byName[vi.Name] = vi
	}
	if vi := byName["sp"]; vi.Class != "sparse double" || !vi.Sparse || !reflect.DeepEqual(vi.Dims, []int{4, 5}) || vi.Bytes != 40 {
		t.Errorf("sp: %+v", vi)
	}
	if vi := byName["spz"]; !vi.Complex || vi.Bytes != 80 {
		t.Errorf("spz: %+v", vi)
	}
	if vi := byName["e10"]; vi.Class != "double" || !reflect.DeepEqual(vi.Dims, []int{1, 0}) {
		t.Errorf("e10: %+v", vi)
	}
	if vi := byName["x"]; !reflect.DeepEqual(vi.Dims, []int{1, 3}) || vi.Bytes != 24 {
		t.Errorf("x: %+v", vi)
	}
	if _, ok := byName["#refs#"]; ok {
		t.Errorf("#refs# listed as a variable")
	}

	fs, err := OpenFile(filepath.Join("testdata", "h5py_matlab_v73.mat"), &Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	err = fs.Walk(func(string, *Var) error { return nil })
	var ue *UnsupportedError
	if !errors.As(err, &ue) {
		t.Errorf("strict: %v", err)
	}
}

// TestEmptyShapeOrder: hdf5storage 0.1.19 stores an empty array's shape
// reversed (its 1x0 holds [0 1]); read as MATLAB's order it would be 0x1.
func TestEmptyShapeOrder(t *testing.T) {
	for _, c := range []struct {
		order EmptyShapeOrder
		e10   []int
	}{{EmptyShapeAuto, []int{1, 0}}, {EmptyShapeReversed, []int{1, 0}}, {EmptyShapeMATLAB, []int{0, 1}}} {
		vars, _, _ := readAll(t, "h5s_v73.mat", &Options{EmptyShape: c.order})
		if got := vars["e10"].Header.Shape; !reflect.DeepEqual(got, c.e10) {
			t.Errorf("order %d: e10 %v, want %v", c.order, got, c.e10)
		}
	}
	// In a MATLAB-layout file, auto reads MATLAB's order.
	vars, _, _ := readAll(t, "h5py_matlab_v73.mat", &Options{EmptyShape: EmptyShapeReversed})
	if got := vars["e10"].Header.Shape; !reflect.DeepEqual(got, []int{0, 1}) {
		t.Errorf("forced reversed: e10 %v", got)
	}
}

func TestV73Cycle(t *testing.T) {
	f, err := OpenFile(filepath.Join("testdata", "h5py_cycle_v73.mat"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = f.Walk(func(string, *Var) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	// The variable is skipped (a warning carrying the error), not the file.
	var found bool
	for _, w := range f.Warnings() {
		if w.Err != nil && strings.Contains(w.Err.Error(), "reference cycle") {
			found = true
		}
	}
	if !found {
		t.Errorf("cycle: warnings %v", f.Warnings())
	}
	fs, err := OpenFile(filepath.Join("testdata", "h5py_cycle_v73.mat"), &Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	if err := fs.Walk(func(string, *Var) error { return nil }); err == nil || !strings.Contains(err.Error(), "reference cycle") {
		t.Errorf("strict cycle: %v", err)
	}
}

func TestVariablesV73(t *testing.T) {
	f, err := OpenFile(filepath.Join("testdata", "h5s_v73.mat"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Variables()
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		class   string
		dims    []int
		complex bool
		bytes   int64
		comp    string
	}
	want := map[string]row{
		"d":    {"double", []int{2, 3}, false, 48, ""},
		"z":    {"double", []int{2, 2}, true, 64, ""},
		"b":    {"logical", []int{3, 2}, false, 6, ""},
		"s":    {"char", []int{1, 5}, false, 10, ""},
		"cube": {"double", []int{2, 3, 4}, false, 192, ""},
		"c":    {"cell", []int{1, 4}, false, -1, ""},
		"st":   {"struct", []int{1, 1}, false, -1, ""},
		"sa":   {"struct", []int{1, 3}, false, -1, ""},
		"e03":  {"int32", []int{0, 3}, false, 0, ""},
		"big":  {"double", []int{300, 200}, false, 480000, "deflate"},
	}
	seen := 0
	for _, vi := range info {
		w, ok := want[vi.Name]
		if !ok {
			continue
		}
		seen++
		if got := (row{vi.Class, vi.Dims, vi.Complex, vi.Bytes, vi.Compression}); !reflect.DeepEqual(got, w) {
			t.Errorf("%s: %+v, want %+v", vi.Name, got, w)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of %d listed", seen, len(want))
	}
}

// TestNoUserBlock: an HDF5 file without MATLAB's user block (superblock
// v2/v3 from h5py's libver="latest") is read as v7.3; a dataset without
// MATLAB_class takes its class from its type.
func TestNoUserBlock(t *testing.T) {
	exp := loadExpected(t, "h5py_nouserblock.json")
	vars, arrs, f := readAll(t, "h5py_nouserblock.mat", nil)
	checkAgainst(t, "h5py_nouserblock", exp, vars, arrs)
	if f.Version() != "7.3" || vars["y"].Class != NameDouble || vars["x"].Class != NameInt16 {
		t.Errorf("version %s, classes %s %s", f.Version(), vars["x"].Class, vars["y"].Class)
	}
}

// TestV73RowLimit: a MATLAB vector is one HDF5 row; it streams in
// parts under a MaxVariableBytes smaller than it (the limit bounds what
// is read at once), and Array (a whole read) is refused, not allocated.
func TestV73RowLimit(t *testing.T) {
	_, arrs, _ := readAll(t, "h5py_nouserblock.mat", nil)
	want := arrs["y"].Data
	old := streamBatchBytes
	streamBatchBytes = 8
	t.Cleanup(func() { streamBatchBytes = old })
	f, err := OpenFile(filepath.Join("testdata", "h5py_nouserblock.mat"), &Options{MaxVariableBytes: 12})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []byte
	err = f.WalkVariables([]string{"y"}, func(path string, v *Var) error {
		rc, err := v.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		got, err = io.ReadAll(rc)
		return err
	})
	if err != nil || len(want) != 16 || !bytes.Equal(got, want) {
		t.Errorf("streamed: %v, %x want %x", err, got, want)
	}
	var le *LimitError
	err = f.WalkVariables([]string{"y"}, func(path string, v *Var) error {
		_, err := v.Array()
		return err
	})
	if !errors.As(err, &le) || le.Size != 16 || !strings.Contains(err.Error(), "Var.Open") {
		t.Errorf("whole: %v", err)
	}
}

// TestV73Threads reads every variable of a v7.3 file (a deflate-chunked
// one among them) with Options.Threads 1 and 3: hdf5 is given that many
// threads and the values are those read with the default.
func TestV73Threads(t *testing.T) {
	var given []int
	v73OptionsHook = func(o *hdf5.Options) { given = append(given, o.Threads) }
	defer func() { v73OptionsHook = nil }()
	_, want, _ := readAll(t, "h5s_v73.mat", nil)
	for _, n := range []int{1, 3} {
		given = nil
		_, got, _ := readAll(t, "h5s_v73.mat", &Options{Threads: n})
		if len(given) == 0 || given[0] != n {
			t.Errorf("Threads %d: hdf5 was given %v", n, given)
		}
		if len(got) != len(want) || len(got) == 0 {
			t.Fatalf("Threads %d: %d variables, want %d", n, len(got), len(want))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Threads %d: the values differ from the default read's", n)
		}
	}
}
