package hdf5

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// expFiltered is one dataset of the gen_filters_b.py expectations: the
// fields of gen_h5py.py's format, with the raw bytes zlib-compressed.
type expFiltered struct {
	expObject
	Rawz string `json:"rawz"`
}

func loadExpectZ(t *testing.T, name string) map[string]expObject {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]expFiltered
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	out := make(map[string]expObject, len(m))
	for p, e := range m {
		zr, err := zlib.NewReader(bytes.NewReader(unb64(t, e.Rawz)))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		e.Raw = base64.StdEncoding.EncodeToString(raw)
		out[p] = e.expObject
	}
	return out
}

// TestFiltersB reads the datasets compressed with blosc, lz4, bitshuffle,
// zstd and blosc2 by their producers (gen_filters_b.py) and compares them
// with h5py's reading.
func TestFiltersB(t *testing.T) {
	for _, name := range []string{"filters_b_h5py", "filters_b_tables", "filters_b_pandas", "filters_b_blosc2"} {
		t.Run(name, func(t *testing.T) {
			exp := loadExpectZ(t, name+".json")
			f, err := OpenFile(filepath.Join("testdata", name+".h5"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			// Every dataset using one of these filters has an expectation.
			seen := map[string]bool{}
			err = f.Walk(func(p string, o Object) error {
				ds, ok := o.(*Dataset)
				if !ok {
					return nil
				}
				for _, fl := range ds.Layout().Filters {
					if _, ok := exp[p]; !ok && fl.ID >= 32001 && fl.ID <= 32026 {
						t.Errorf("%s (filter %d) has no expectation", p, fl.ID)
					}
				}
				seen[p] = true
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for p := range exp {
				if !seen[p] {
					t.Errorf("%s not found", p)
				}
				paths = append(paths, p)
			}
			sort.Strings(paths)
			if len(paths) < 5 {
				t.Fatalf("only %d datasets", len(paths))
			}
			for _, p := range paths {
				t.Run(p, func(t *testing.T) {
					o, err := f.OpenPath(p)
					if err != nil {
						t.Fatal(err)
					}
					checkDataset(t, f, o.(*Dataset), exp[p])
				})
			}
		})
	}
}

// TestFiltersBBad reads chunks that must be refused: a clean error naming
// the dataset and the filter, malformed (ErrFormat) or unsupported.
func TestFiltersBBad(t *testing.T) {
	f, err := OpenFile("testdata/filters_b_bad.h5", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range []struct {
		path, want string
		kind       error
	}{
		{"/bitshuffle_zstd_debian", "stored uncompressed while the filter says Zstandard", ErrFormat},
		{"/blosc_huge", "declares 1073741824 decoded bytes for a chunk of 400", ErrFormat},
		{"/lz4_huge", "declares 1099511627776 decoded bytes", ErrFormat},
		{"/blosc2_plugin_codec", "blosc2 plugin codec 33 (zfp (fixed accuracy))", ErrUnsupported},
	} {
		t.Run(c.path, func(t *testing.T) {
			o, err := f.OpenPath(c.path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = o.(*Dataset).ReadAll()
			if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
				t.Errorf("got %v, want %v naming %q and %s", err, c.kind, c.want, c.path)
			}
		})
	}
}
