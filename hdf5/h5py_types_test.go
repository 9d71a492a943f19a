package hdf5

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// TestReadH5pyTimesStrings reads what h5py writes for numpy datetimes
// (opaque types tagged NUMPY:<dtype>) and text (fixed-length and
// variable-length UTF-8 strings) as the numpy types h5py gives back:
// testdata/h5py_types.h5 and its expectations h5py_types.json come from
// testdata/gen_h5py_types.py.
func TestReadH5pyTimesStrings(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "h5py_types.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]struct {
		Descr  string            `json:"descr"`
		Shape  []int             `json:"shape"`
		Values []json.RawMessage `json:"values"`
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(filepath.Join("testdata", "h5py_types.h5"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) < 15 {
		t.Fatalf("%d datasets in the expectations", len(names))
	}
	for _, name := range names {
		w := want[name]
		o, err := f.OpenPath("/" + name)
		if err != nil {
			t.Fatal(err)
		}
		ds := o.(*Dataset)
		dt, err := ds.DType()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		wdt, err := npyio.ParseDescr(w.Descr)
		if err != nil {
			t.Fatal(err)
		}
		if !dt.Equal(wdt) {
			t.Errorf("%s: dtype %s, h5py gives %s", name, dt, wdt)
			continue
		}
		shape, err := ds.NumpyShape()
		if err != nil {
			t.Fatal(err)
		}
		if npyio.FormatShape(shape) != npyio.FormatShape(w.Shape) {
			t.Errorf("%s: shape %v, want %v", name, shape, w.Shape)
		}
		data, err := ds.ReadAll()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		hb, err := npyio.EncodeHeader(&npyio.Header{DType: dt, Shape: shape})
		if err != nil {
			t.Fatal(err)
		}
		a, err := npyio.ReadArray(io.MultiReader(bytes.NewReader(hb), bytes.NewReader(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if int(a.Header.Count()) != len(w.Values) {
			t.Fatalf("%s: %d values, want %d", name, a.Header.Count(), len(w.Values))
		}
		for i, v := range w.Values {
			if err := fixtures.CheckElement(a.DType, a.Data[i*a.DType.Size:(i+1)*a.DType.Size], v); err != nil {
				t.Errorf("%s: element %d: %v", name, i, err)
				break
			}
		}
	}
}
