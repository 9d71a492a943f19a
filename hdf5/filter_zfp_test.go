package hdf5

import (
	"errors"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestZFP reads the datasets h5py + hdf5plugin wrote with the zfp filter
// (gen_zfp.py: every mode, type and dimension count, several chunks,
// partial edge blocks, special values) and compares every byte with
// h5py's reading through the zfp library.
func TestZFP(t *testing.T) {
	exp := loadExpectZ(t, "zfp.json")
	f, err := OpenFile(filepath.Join("testdata", "zfp.h5"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var paths []string
	for p := range exp {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if len(paths) < 70 {
		t.Fatalf("only %d datasets", len(paths))
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			o, err := f.OpenPath(p)
			if err != nil {
				t.Fatal(err)
			}
			ds := o.(*Dataset)
			if fl := ds.Layout().Filters; len(fl) != 1 || fl[0].ID != 32013 {
				t.Fatalf("filters %+v, want zfp", fl)
			}
			checkDataset(t, f, ds, exp[p])
		})
	}
}

// TestZFPBad reads zfp chunks and headers that must be refused: one error
// naming the dataset and the chunk, malformed or unsupported.
func TestZFPBad(t *testing.T) {
	f, err := OpenFile("testdata/zfp_bad.h5", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range []struct {
		path, want string
		kind       error
	}{
		{"/truncated", "ends in block", ErrFormat},
		{"/short", "ends in block (0, 0, 0, 0)", ErrFormat},
		{"/rate_short", "ends in block (1, 0, 0, 0)", ErrFormat},
		{"/wrong_dims", "zfp header describes 20 float64 values (dimensions [4 5], fastest first), the chunk holds 320 bytes", ErrFormat},
		{"/codec9", "zfp codec version 9 (version 5 is read)", ErrUnsupported},
	} {
		t.Run(c.path, func(t *testing.T) {
			o, err := f.OpenPath(c.path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = o.(*Dataset).ReadAll()
			if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) ||
				!strings.Contains(err.Error(), "zfp chunk") {
				t.Errorf("got %v, want %v naming %q, %s and the chunk", err, c.kind, c.want, c.path)
			}
		})
	}
}

func FuzzZFP(f *testing.F) { fuzzCodec(f, 32013) }
