package hdf5

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// ncExpect is netCDF4-python's and xarray's reading of a .nc fixture
// (testdata/gen_misc.py).
type ncExpect struct {
	DataModel string `json:"data_model"`
	Dims      []struct {
		Path      string `json:"path"`
		Name      string `json:"name"`
		Size      uint64 `json:"size"`
		Unlimited bool   `json:"unlimited"`
	} `json:"dims"`
	Vars   map[string]ncVar    `json:"vars"`
	Order  map[string][]string `json:"order"`
	Tables map[string]struct {
		Columns    []string `json:"columns"`
		Coordinate bool     `json:"coordinate"`
	} `json:"tables"`
	Magic  string `json:"magic"`
	Format string `json:"format"`
}

type ncVar struct {
	Dims        []string  `json:"dims"`
	DimPaths    []string  `json:"dim_paths"`
	Shape       []uint64  `json:"shape"`
	Units       string    `json:"units"`
	ScaleFactor *ncNumber `json:"scale_factor"`
	AddOffset   *ncNumber `json:"add_offset"`
	FillValue   *ncNumber `json:"_FillValue"`
	Raw         string    `json:"raw"`
	Strings     []string  `json:"strings"`
}

type ncNumber struct {
	DType string  `json:"dtype"`
	Raw   string  `json:"raw"`
	Value float64 `json:"value"`
}

func loadNetCDF(t *testing.T) map[string]ncExpect {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "netcdf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]ncExpect
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestNetCDF4 reads netCDF4-python's files as HDF5: dimensions from the
// dimension scales, each variable's dimension names, CF attributes and
// stored values, the variable order, and netCDF's dimension-only
// datasets told apart.
func TestNetCDF4(t *testing.T) {
	all := loadNetCDF(t)
	for _, name := range []string{"nc4.nc", "nc4_classic.nc"} {
		t.Run(name, func(t *testing.T) {
			exp := all[name]
			f, err := OpenFile(filepath.Join("testdata", name), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			info, err := f.NetCDF()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(info.Properties, "version=2,netcdf=4.9.0") {
				t.Errorf("_NCProperties %q", info.Properties)
			}
			if info.Classic != (exp.DataModel == "NETCDF4_CLASSIC") {
				t.Errorf("classic %v, data model %s", info.Classic, exp.DataModel)
			}
			if len(info.Dims) != len(exp.Dims) {
				t.Fatalf("dims %+v, want %+v", info.Dims, exp.Dims)
			}
			for i, d := range info.Dims {
				e := exp.Dims[i]
				if d.Path != e.Path || d.Name != e.Name || d.Len != e.Size || d.Unlimited != e.Unlimited || d.ID != i {
					t.Errorf("dim %d: %+v, want %+v (id %d)", i, d, e, i)
				}
				if d.Coordinate != (exp.Vars[e.Path].Dims != nil) {
					t.Errorf("dim %s: coordinate %v", d.Name, d.Coordinate)
				}
			}
			for g, want := range exp.Order {
				o, err := f.OpenPath(g)
				if err != nil {
					t.Fatal(err)
				}
				vars, err := o.(*Group).Variables()
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, v := range vars {
					got = append(got, v.Name())
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("variables of %s: %v, want %v", g, got, want)
				}
			}
			var dimOnly []string
			f.Walk(func(p string, o Object) error {
				if ds, ok := o.(*Dataset); ok && ds.IsNetCDFDimensionOnly() {
					dimOnly = append(dimOnly, p)
				}
				return nil
			})
			if !reflect.DeepEqual(dimOnly, []string{"/station"}) {
				t.Errorf("dimension-only datasets %v", dimOnly)
			}
			for p, e := range exp.Vars {
				t.Run(p, func(t *testing.T) { checkNCVar(t, f, p, e) })
			}
		})
	}
}

func checkNCVar(t *testing.T, f *File, p string, e ncVar) {
	o, err := f.OpenPath(p)
	if err != nil {
		t.Fatal(err)
	}
	ds := o.(*Dataset)
	if got := ds.Shape(); len(got)+len(e.Shape) > 0 && !reflect.DeepEqual(got, e.Shape) {
		t.Errorf("shape %v, want %v", got, e.Shape)
	}
	names, err := ds.DimensionNames()
	if err != nil {
		t.Fatal(err)
	}
	if len(names)+len(e.Dims) > 0 && !reflect.DeepEqual(names, e.Dims) {
		t.Errorf("dimensions %v, want %v", names, e.Dims)
	}
	dims, _ := ds.Dimensions()
	for i, d := range dims {
		if d.Path != e.DimPaths[i] {
			t.Errorf("dimension %d at %s, want %s", i, d.Path, e.DimPaths[i])
		}
	}
	cf, err := ds.CFAttributes()
	if err != nil {
		t.Fatal(err)
	}
	if cf.Units != e.Units {
		t.Errorf("units %q, want %q", cf.Units, e.Units)
	}
	for _, c := range []struct {
		name string
		a    *Attribute
		want *ncNumber
	}{{"_FillValue", cf.FillValue, e.FillValue}, {"scale_factor", cf.ScaleFactor, e.ScaleFactor}, {"add_offset", cf.AddOffset, e.AddOffset}} {
		if (c.a == nil) != (c.want == nil) {
			t.Errorf("%s: %v, want %v", c.name, c.a, c.want)
			continue
		}
		if c.a == nil {
			continue
		}
		if !bytes.Equal(c.a.Bytes(), unb64(t, c.want.Raw)) {
			t.Errorf("%s: bytes %x, want %s", c.name, c.a.Bytes(), c.want.Raw)
		}
		if v, err := c.a.Float64s(); err != nil || v[0] != c.want.Value {
			t.Errorf("%s: %v (%v), want %v", c.name, v, err, c.want.Value)
		}
		if dt, err := c.a.DType(); err != nil || dt.String() != "'"+c.want.DType+"'" {
			t.Errorf("%s: dtype %v (%v), want %s", c.name, dt, err, c.want.DType)
		}
	}
	if e.Strings != nil {
		s, err := ds.ReadStrings()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s, e.Strings) {
			t.Errorf("strings %q, want %q", s, e.Strings)
		}
		return
	}
	got, err := ds.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := unb64(t, e.Raw); !bytes.Equal(got, want) {
		t.Errorf("values %x, want %x (netCDF4, unmasked)", got, want)
	}
}

func TestCFAttributesString(t *testing.T) {
	f, err := OpenFile("testdata/nc4.nc", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o, _ := f.OpenPath("/temp")
	cf, err := o.(*Dataset).CFAttributes()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cf.String(), `_FillValue=-999 units="K" scale_factor=0.01 add_offset=273.15`; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if !IsNetCDFInternalAttr("DIMENSION_LIST") || IsNetCDFInternalAttr("units") {
		t.Error("IsNetCDFInternalAttr")
	}
}

// TestDimensionTables groups the 1-D variables by dimension as xarray's
// to_dataframe does (its columns after reset_index are the expectation)
// and reads the records: each field holds netCDF4-python's values.
func TestDimensionTables(t *testing.T) {
	all := loadNetCDF(t)
	for _, name := range []string{"nc4.nc", "nc4_classic.nc"} {
		t.Run(name, func(t *testing.T) {
			exp := all[name]
			f, err := OpenFile(filepath.Join("testdata", name), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tabs, err := f.DimensionTables()
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for _, tab := range tabs {
				if len(tab.Skipped) > 0 {
					t.Errorf("%s %s: skipped %v", tab.Group, tab.Dim.Name, tab.Skipped)
				}
				got[tab.Group+" "+tab.Dim.Name] = tab.Names()
				checkTable(t, tab, exp)
			}
			want := map[string][]string{}
			for d, x := range exp.Tables {
				cols := x.Columns
				if !x.Coordinate {
					cols = cols[1:] // xarray's 0, 1, ... index column
				}
				want["/ "+d] = cols
			}
			if name == "nc4.nc" {
				// The subgroup's: led by the parent's coordinate variable.
				want["/sub level"] = []string{"level"}
				want["/sub time"] = []string{"time", "gust"}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("tables %v\nwant %v", got, want)
			}
			tab, err := f.DimensionTable("/", "time")
			if err != nil || tab.Dim.Path != "/time" {
				t.Errorf("DimensionTable(time): %v %v", tab, err)
			}
			if _, err := f.DimensionTable("/", "nope"); !errors.Is(err, ErrNotFound) {
				t.Errorf("DimensionTable(nope): %v", err)
			}
		})
	}
}

// checkTable reads a table's records in batches of 2 rows and compares
// each field with the variable's values.
func checkTable(t *testing.T, tab *DimTable, exp ncExpect) {
	t.Helper()
	r, err := tab.NewReader(2)
	if err != nil {
		t.Fatal(err)
	}
	dt := r.DType()
	var recs []byte
	for {
		b, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, b...)
	}
	if uint64(len(recs)) != tab.Rows()*uint64(dt.Size) {
		t.Fatalf("%s: %d bytes of records, want %d rows of %d", tab.Dim.Name, len(recs), tab.Rows(), dt.Size)
	}
	for i, c := range tab.Columns {
		e, ok := exp.Vars[c.Path()]
		if !ok {
			t.Fatalf("no expectation for %s", c.Path())
		}
		fd := dt.Fields[i]
		var col []byte
		for k := 0; k < len(recs); k += dt.Size {
			col = append(col, recs[k+fd.Offset:k+fd.Offset+fd.Size()]...)
		}
		var want []byte
		if e.Strings != nil {
			for _, s := range e.Strings {
				w := make([]byte, fd.Size())
				if fd.Type.Kind == npyio.Unicode {
					k := 0
					for _, r := range s {
						binary.LittleEndian.PutUint32(w[k:], uint32(r))
						k += 4
					}
				} else {
					copy(w, s)
				}
				want = append(want, w...)
			}
		} else {
			want = unb64(t, e.Raw)
		}
		if !bytes.Equal(col, want) {
			t.Errorf("table %s column %s: %x, want %x", tab.Dim.Name, c.Name(), col, want)
		}
	}
}

// TestNetCDF3Refused: netCDF-3 files of each format are refused with
// ErrNetCDF3, not called malformed HDF5.
func TestNetCDF3Refused(t *testing.T) {
	all := loadNetCDF(t)
	for name, v := range map[string]int{"nc3_classic.nc": 1, "nc3_64bit_offset.nc": 2, "nc3_64bit_data.nc": 5} {
		exp := all[name]
		magic := unb64(t, exp.Magic)
		if got := NetCDF3Version(magic); got != v {
			t.Errorf("%s: NetCDF3Version(%q) = %d, want %d", name, magic, got, v)
		}
		path := filepath.Join("testdata", name)
		_, err := OpenFile(path, nil)
		if !errors.Is(err, ErrNetCDF3) || errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "netCDF-3") {
			t.Errorf("%s (%s): %v", name, exp.Format, err)
		}
	}
	if NetCDF3Version([]byte("CDF\x03")) != 0 || NetCDF3Version([]byte("\x89HDF")) != 0 || NetCDF3Version([]byte("CD")) != 0 {
		t.Error("NetCDF3Version accepts a non-netCDF-3 magic")
	}
}

// TestDimensionScalesH5py reads h5py's own dimension scales (make_scale,
// attach_scale) in a plain HDF5 file: each axis's scale is h5py's, an axis
// without one has an empty Dimension, and a scale is its own dimension
// (netCDF's coordinate variable; h5py lists no scale on its axis).
func TestDimensionScalesH5py(t *testing.T) {
	f := checkFixture(t, "dimscales")
	b, err := os.ReadFile("testdata/dimscales.json")
	if err != nil {
		t.Fatal(err)
	}
	var exp map[string]struct {
		DimPaths []string `json:"dim_paths"`
		IsScale  bool     `json:"is_scale"`
	}
	if err := json.Unmarshal(b, &exp); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/data", "/half", "/plain", "/x", "/y"} {
		e := exp[p]
		o, err := f.OpenPath(p)
		if err != nil {
			t.Fatal(err)
		}
		ds := o.(*Dataset)
		if ds.IsDimensionScale() != e.IsScale {
			t.Errorf("%s: IsDimensionScale %v", p, !e.IsScale)
		}
		if ds.IsNetCDFDimensionOnly() {
			t.Errorf("%s: netCDF dimension-only", p)
		}
		dims, err := ds.Dimensions()
		if err != nil {
			t.Fatal(err)
		}
		want := e.DimPaths
		if e.IsScale {
			want = []string{p}
		}
		var got []string
		for _, d := range dims {
			got = append(got, d.Path)
			if d.Path != "" && (d.Name != d.Path[1:] || !d.Coordinate || d.ID != -1) {
				t.Errorf("%s: dimension %+v", p, d)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: dimensions at %v, want %v", p, got, want)
		}
	}
	info, err := f.NetCDF()
	if err != nil {
		t.Fatal(err)
	}
	if info.Properties != "" || info.Classic || len(info.Dims) != 2 || info.Dims[0].Name != "x" || info.Dims[1].Name != "y" || info.Dims[1].Len != 3 {
		t.Errorf("NetCDF %+v", info)
	}
	tabs, err := f.DimensionTables()
	if err != nil {
		t.Fatal(err)
	}
	// /plain has no scale; /data and /half are 2-D: only the scales' own
	// one-column tables.
	var names [][]string
	for _, tab := range tabs {
		names = append(names, tab.Names())
	}
	if !reflect.DeepEqual(names, [][]string{{"x"}, {"y"}}) {
		t.Errorf("tables %v", names)
	}
}

// TestDimensionListDamaged: a DIMENSION_LIST whose reference points
// outside the file, or at a group, gives a clean error naming the
// dataset, and the dataset's data and the other tables still read.
func TestDimensionListDamaged(t *testing.T) {
	b := readFixture(t, "dimscales.h5")
	f, err := openBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := f.OpenPath("/x")
	var addr [8]byte
	binary.LittleEndian.PutUint64(addr[:], x.Addr())
	gcol := bytes.Index(b, []byte("GCOL"))
	if gcol < 0 {
		t.Fatal("no global heap")
	}
	for _, c := range []struct {
		name string
		to   uint64
		msg  string
	}{
		{"outside", 1 << 40, "outside the file"},
		{"group", f.Root().Addr(), "not a dataset"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := append([]byte(nil), b...)
			n := 0
			for i := gcol; i+8 <= len(d); i++ {
				if bytes.Equal(d[i:i+8], addr[:]) {
					binary.LittleEndian.PutUint64(d[i:], c.to)
					n++
				}
			}
			if n == 0 {
				t.Fatal("reference to /x not found in the global heap")
			}
			f, err := openBytes(d)
			if err != nil {
				t.Fatal(err)
			}
			o, err := f.OpenPath("/data")
			if err != nil {
				t.Fatal(err)
			}
			ds := o.(*Dataset)
			_, err = ds.Dimensions()
			if err == nil || !strings.Contains(err.Error(), "/data") || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("Dimensions: %v", err)
			}
			if _, err := ds.ReadAll(); err != nil {
				t.Errorf("ReadAll: %v", err)
			}
			// /data is 2-D: not a column; the tables of x and y stand.
			if tabs, err := f.DimensionTables(); err != nil || len(tabs) != 2 {
				t.Errorf("DimensionTables: %d tables, %v", len(tabs), err)
			}
		})
	}
}
