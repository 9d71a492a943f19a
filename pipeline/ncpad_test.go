package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/inspect"
)

// ncPadExpect is hdf5/testdata/nc_pad.json: netCDF4-python's reading
// (auto mask and scale off) and xarray's to_dataframe (decode_cf=False)
// of files with variables shorter than their unlimited dimension.
type ncPadExpect struct {
	Vars map[string]struct {
		Shape   []int    `json:"shape"`
		Raw     string   `json:"raw"`
		Strings []string `json:"strings"`
	} `json:"vars"`
	Tables map[string]struct {
		Columns []string `json:"columns"`
		Values  map[string]struct {
			Raw     string   `json:"raw"`
			Strings []string `json:"strings"`
		} `json:"values"`
	} `json:"tables"`
}

func loadNCPad(t *testing.T, file string) ncPadExpect {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h5td, "nc_pad.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]ncPadExpect
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	return all[file]
}

// ncStrings decodes an S or U array's values.
func ncStrings(dt *npyio.DType, data []byte) []string {
	var out []string
	for i := 0; i+dt.Size <= len(data); i += dt.Size {
		e := data[i : i+dt.Size]
		if dt.Kind == npyio.Unicode {
			var rs []rune
			for k := 0; k < len(e); k += 4 {
				if c := rune(e[k]) | rune(e[k+1])<<8 | rune(e[k+2])<<16 | rune(e[k+3])<<24; c != 0 {
					rs = append(rs, c)
				}
			}
			out = append(out, string(rs))
			continue
		}
		out = append(out, string(bytes.TrimRight(e, "\x00")))
	}
	return out
}

// TestNetCDFPaddedConvert converts netCDF4-python's and xarray's files
// as netCDF readers read them: every variable of an unlimited dimension
// has every record (the unwritten ones at _FillValue or netCDF's default
// fill), _nc4_non_coord_lat is lat, --dimension time has the padded
// variables as xarray's to_dataframe does, and inspect --json shows a
// string _FillValue as a plain value.
func TestNetCDFPaddedConvert(t *testing.T) {
	ctx := context.Background()
	for _, file := range []string{"nc_pad.nc", "nc_xarray.nc"} {
		want := loadNCPad(t, file)
		in := filepath.Join(h5td, file)
		t.Run(file, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.npz")
			var warns []string
			if _, err := Convert(ctx, in, out, &ConvertOptions{Warn: func(m string) { warns = append(warns, m) }}); err != nil {
				t.Fatal(err)
			}
			if len(warns) > 0 {
				t.Errorf("warnings: %q", warns)
			}
			got := readNPZ(t, out)
			var names, wantNames []string
			for k := range got {
				names = append(names, k)
			}
			for k := range want.Vars {
				wantNames = append(wantNames, strings.TrimPrefix(k, "/"))
			}
			slices.Sort(names)
			slices.Sort(wantNames)
			if !slices.Equal(names, wantNames) {
				t.Fatalf("members %v, want netCDF4-python's variables %v", names, wantNames)
			}
			for path, v := range want.Vars {
				a := got[strings.TrimPrefix(path, "/")]
				if !slices.Equal(a.Header.Shape, v.Shape) {
					t.Errorf("%s: shape %v, want %v", path, a.Header.Shape, v.Shape)
				}
				if v.Strings != nil {
					if s := ncStrings(a.DType, a.Data); !slices.Equal(s, v.Strings) {
						t.Errorf("%s: %q, want %q", path, s, v.Strings)
					}
				} else if !bytes.Equal(a.Data, b64(t, v.Raw)) {
					t.Errorf("%s: values differ from netCDF4-python's", path)
				}
			}
			for dim, tab := range want.Tables {
				out := filepath.Join(t.TempDir(), dim+".npy")
				if _, err := Convert(ctx, in, out, &ConvertOptions{Flags: map[string]string{"dimension": dim}}); err != nil {
					t.Fatal(err)
				}
				a, err := npyio.ReadFile(out, nil)
				if err != nil {
					t.Fatal(err)
				}
				var cols []string
				for _, f := range a.DType.Fields {
					cols = append(cols, f.Name)
				}
				if !slices.Equal(cols, tab.Columns) {
					t.Fatalf("--dimension %s: columns %v, want xarray's %v", dim, cols, tab.Columns)
				}
				for _, f := range a.DType.Fields {
					v := tab.Values[f.Name]
					col := recField(t, a, f.Name)
					if v.Strings != nil {
						if s := ncStrings(f.Type, col); !slices.Equal(s, v.Strings) {
							t.Errorf("--dimension %s: %s: %q, want %q", dim, f.Name, s, v.Strings)
						}
					} else if !bytes.Equal(col, b64(t, v.Raw)) {
						t.Errorf("--dimension %s: %s: values differ from xarray's", dim, f.Name)
					}
				}
			}
		})
	}
	info, err := Inspect(ctx, filepath.Join(h5td, "nc_pad.nc"), nil)
	if err != nil {
		t.Fatal(err)
	}
	h := info.(*inspect.HDF5Info)
	var seen int
	for _, o := range h.Objects {
		switch o.Path {
		case "/status":
			seen++
			if o.FillValue != "n/a" || !slices.Equal(o.Shape, []int{10}) || !slices.Equal(o.StoredShape, []int{2}) {
				t.Errorf("/status: _FillValue %q shape %v stored %v, want n/a (10,) (2,)", o.FillValue, o.Shape, o.StoredShape)
			}
		case "/sensor":
			seen++
			if o.FillValue != "-999" {
				t.Errorf("/sensor: _FillValue %q, want -999", o.FillValue)
			}
		case "/_nc4_non_coord_lat":
			seen++
			if o.Variable != "lat" {
				t.Errorf("/_nc4_non_coord_lat: variable %q, want lat", o.Variable)
			}
		}
	}
	if seen != 3 {
		t.Errorf("inspect showed %d of the 3 variables checked", seen)
	}
}
