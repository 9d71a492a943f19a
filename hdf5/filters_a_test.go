package hdf5

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The fixtures of the szip, n-bit, scale-offset, bzip2, lzo and lzf
// decoders, written by h5py, PyTables and pandas (testdata/gen_filters_a.py).
var filterFixturesA = []string{"h5py", "tables", "pandas"}

// TestFilterFixturesA reads every object of the filter fixtures and
// compares it with h5py's reading: shapes, layouts, filter pipelines,
// every value.
func TestFilterFixturesA(t *testing.T) {
	for _, name := range filterFixturesA {
		t.Run(name, func(t *testing.T) {
			exp := loadExpect(t, filepath.Join("filters_a", name+".json"))
			f, err := OpenFile(filepath.Join("testdata", "filters_a", name+".h5"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var walked, want []string
			if err := f.Walk(func(p string, o Object) error {
				walked = append(walked, p)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			for p := range exp {
				want = append(want, p)
			}
			sort.Strings(want)
			sort.Strings(walked)
			if !reflect.DeepEqual(walked, want) {
				t.Errorf("Walk visited %v\nwant %v", walked, want)
			}
			for _, p := range want {
				e := exp[p]
				t.Run(p, func(t *testing.T) { checkObject(t, f, p, e) })
			}
		})
	}
}

// TestFilterStoredBytes compares the chunks the n-bit decoder rebuilds
// with the bytes HDF5 itself gives for each dataset read in its own file
// datatype (no conversion): h5py's "stored" expectation.
func TestFilterStoredBytes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "filters_a", "h5py.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp map[string]struct {
		Stored string `json:"stored"`
	}
	if err := json.Unmarshal(b, &exp); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(filepath.Join("testdata", "filters_a", "h5py.h5"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for p, e := range exp {
		if e.Stored == "" {
			continue
		}
		n++
		t.Run(p, func(t *testing.T) {
			o, err := f.OpenPath(p)
			if err != nil {
				t.Fatal(err)
			}
			ds := o.(*Dataset)
			got, err := ds.readRawAll()
			if err != nil {
				t.Fatal(err)
			}
			if want := unb64(t, e.Stored); !bytes.Equal(got, want) {
				t.Errorf("stored bytes differ:\n got %x\nwant %x", trunc(got), trunc(want))
			}
		})
	}
	if n < 8 {
		t.Errorf("%d n-bit datasets with stored bytes, want at least 8", n)
	}
}

// TestFilterPipelinesA checks that the fixtures hold what they are meant
// to test: each decoder's filter, and chunks stored unfiltered.
func TestFilterPipelinesA(t *testing.T) {
	seen := map[int]int{}
	for _, name := range filterFixturesA {
		f, err := OpenFile(filepath.Join("testdata", "filters_a", name+".h5"), nil)
		if err != nil {
			t.Fatal(err)
		}
		f.Walk(func(p string, o Object) error {
			if ds, ok := o.(*Dataset); ok && ds.Layout() != nil {
				for _, fl := range ds.Layout().Filters {
					seen[fl.ID]++
				}
			}
			return nil
		})
		f.Close()
	}
	for _, id := range []int{FilterSZIP, FilterNBit, FilterScaleOffset, 305, 307, 32000} {
		if seen[id] < 2 {
			t.Errorf("filter %d in %d datasets, want at least 2", id, seen[id])
		}
	}
	if !strings.Contains(filterName(32000), "lzf") {
		t.Errorf("filter 32000 named %q", filterName(32000))
	}
}
