package hdf5

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// ncPadValues are one variable's or column's values as netCDF4-python or
// xarray gave them (testdata/gen_netcdf_pad.py).
type ncPadValues struct {
	Dims    []string `json:"dims"`
	Shape   []uint64 `json:"shape"`
	DType   string   `json:"dtype"`
	Raw     string   `json:"raw"`
	Strings []string `json:"strings"`
}

type ncPadExpect struct {
	Vars   map[string]ncPadValues `json:"vars"`
	Tables map[string]struct {
		Columns []string               `json:"columns"`
		Values  map[string]ncPadValues `json:"values"`
	} `json:"tables"`
	Attrs map[string]map[string]string `json:"attrs"`
}

// checkNCValues compares data of dtype dt with the producer's values.
func checkNCValues(t *testing.T, what string, dt *npyio.DType, data []byte, exp ncPadValues) {
	t.Helper()
	if exp.Strings != nil {
		if dt.Kind != npyio.Bytes && dt.Kind != npyio.Unicode {
			t.Fatalf("%s: dtype %s, want strings", what, dt)
		}
		var got []string
		for i := 0; i+dt.Size <= len(data); i += dt.Size {
			e := data[i : i+dt.Size]
			if dt.Kind == npyio.Bytes {
				got = append(got, string(bytes.TrimRight(e, "\x00")))
				continue
			}
			var sb strings.Builder
			for k := 0; k < len(e); k += 4 {
				if c := binary.LittleEndian.Uint32(e[k:]); c != 0 {
					sb.WriteRune(rune(c))
				}
			}
			got = append(got, sb.String())
		}
		if !slices.Equal(got, exp.Strings) {
			t.Errorf("%s: %q, want %q", what, got, exp.Strings)
		}
		return
	}
	if strings.Trim(dt.String(), "'") != exp.DType {
		t.Errorf("%s: dtype %s, want %s", what, dt, exp.DType)
	}
	want, err := base64.StdEncoding.DecodeString(exp.Raw)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Errorf("%s: values differ from the producer's:\n got % x\nwant % x", what, data, want)
	}
}

// TestNetCDFPadded reads netCDF4-python's and xarray's files as netCDF
// readers do: variables along an unlimited dimension as long as the
// dimension (the records never written at _FillValue or netCDF's default
// fill, a variable never written all fill), netCDF's names for
// _nc4_non_coord_ variables, and the dimension tables xarray's
// to_dataframe gives, padded variables included.
func TestNetCDFPadded(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "nc_pad.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]ncPadExpect
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"nc_pad.nc", "nc_xarray.nc"} {
		exp := all[name]
		t.Run(name, func(t *testing.T) {
			f, err := OpenFile(filepath.Join("testdata", name), nil)
			if err != nil {
				t.Fatal(err)
			}
			root := f.Root()
			vars, err := root.Variables()
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, v := range vars {
				names = append(names, v.NetCDFPath())
			}
			slices.Sort(names)
			want := slices.Sorted(func(yield func(string) bool) {
				for k := range exp.Vars {
					if !yield(k) {
						return
					}
				}
			})
			if !slices.Equal(names, want) {
				t.Errorf("variables %v, want netCDF4-python's %v", names, want)
			}
			for path, ev := range exp.Vars {
				ds, err := f.OpenVariable(path)
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if ds.NetCDFPath() != path {
					t.Errorf("%s: opened %s named %s", path, ds.Path(), ds.NetCDFPath())
				}
				shape, err := ds.NetCDFShape()
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(shape, ev.Shape) {
					t.Errorf("%s: shape %v, want %v", path, shape, ev.Shape)
				}
				dims, _ := ds.DimensionNames()
				if !slices.Equal(dims, ev.Dims) {
					t.Errorf("%s: dimensions %v, want %v", path, dims, ev.Dims)
				}
				dt, err := ds.DType()
				if err != nil {
					t.Fatal(err)
				}
				// small batches: padding across batch boundaries
				r, err := ds.NewNetCDFReader(3 * dt.Size)
				if err != nil {
					t.Fatal(err)
				}
				var data []byte
				for {
					b, err := r.Read()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("%s: %v", path, err)
					}
					data = append(data, b...)
				}
				checkNCValues(t, path, dt, data, ev)
			}
			for dim, et := range exp.Tables {
				tab, err := f.DimensionTable("/", dim)
				if err != nil {
					t.Fatalf("table %s: %v", dim, err)
				}
				if !slices.Equal(tab.Names(), et.Columns) {
					t.Errorf("table %s: columns %v, want xarray's %v (skipped: %v)", dim, tab.Names(), et.Columns, tab.Skipped)
				}
				dt, err := tab.DType()
				if err != nil {
					t.Fatal(err)
				}
				tr, err := tab.NewReader(3)
				if err != nil {
					t.Fatal(err)
				}
				var recs []byte
				for {
					b, err := tr.Read()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					recs = append(recs, b...)
				}
				for _, fl := range dt.Fields {
					var col []byte
					for i := 0; i+dt.Size <= len(recs); i += dt.Size {
						col = append(col, recs[i+fl.Offset:i+fl.Offset+fl.Type.Size]...)
					}
					checkNCValues(t, "table "+dim+" column "+fl.Name, fl.Type, col, et.Values[fl.Name])
				}
			}
		})
	}
}
