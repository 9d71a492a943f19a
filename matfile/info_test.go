package matfile

import (
	"path/filepath"
	"reflect"
	"testing"
)

func TestVariables(t *testing.T) {
	type row struct {
		class   string
		dims    []int
		complex bool
		bytes   int64
	}
	want := map[string]row{
		"d":        {"double", []int{2, 3}, false, 48},
		"f4":       {"single", []int{3, 1}, false, 12},
		"n_int8":   {"int8", []int{2, 3}, false, 6},
		"n_uint64": {"uint64", []int{2, 3}, false, 48},
		"z":        {"double", []int{2, 2}, true, 64},
		"zs":       {"single", []int{1, 3}, true, 24},
		"b":        {"logical", []int{3, 2}, false, 6},
		"s":        {"char", []int{1, 5}, false, 10},
		"sm":       {"char", []int{2, 3}, false, 12},
		"cube":     {"double", []int{2, 3, 4}, false, 192},
		"c":        {"cell", []int{1, 4}, false, -1},
		"st":       {"struct", []int{1, 1}, false, -1},
		"sa":       {"struct", []int{1, 3}, false, -1},
		"sp":       {"sparse double", []int{4, 5}, false, 40},
		"spb":      {"sparse logical", []int{4, 5}, false, 5},
		"e00":      {"double", []int{0, 0}, false, 0},
		"e03":      {"int32", []int{0, 3}, false, 0},
		"ecell":    {"cell", []int{0, 0}, false, -1},
		"estruct":  {"struct", []int{0, 1}, false, -1},
	}
	for _, name := range []string{"scipy_v6", "scipy_v7", "scipy_be_v7"} {
		f, err := OpenFile(filepath.Join("testdata", name+".mat"), nil)
		if err != nil {
			t.Fatal(err)
		}
		info, err := f.Variables()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, vi := range info {
			if vi.StoredBytes <= 0 {
				t.Errorf("%s: %s: stored bytes %d", name, vi.Name, vi.StoredBytes)
			}
			if (vi.Compression == "zlib") != (name != "scipy_v6") {
				t.Errorf("%s: %s: compression %q", name, vi.Name, vi.Compression)
			}
			w, ok := want[vi.Name]
			if !ok {
				continue
			}
			seen++
			got := row{vi.Class, vi.Dims, vi.Complex, vi.Bytes}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("%s: %s: %+v, want %+v", name, vi.Name, got, w)
			}
			if vi.Sparse != (vi.Name == "sp" || vi.Name == "spb") {
				t.Errorf("%s: %s: sparse %v", name, vi.Name, vi.Sparse)
			}
		}
		if seen != len(want) {
			t.Errorf("%s: %d of %d variables listed", name, seen, len(want))
		}
	}
}
