package hdf5

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// TestNetCDFWriterLayout writes a netCDF-4 file and reads its netCDF
// layer back: dimension ids in declaration order, a coordinate variable
// as its own dimension scale, netCDF-C's dataset for a dimension without
// one, a variable named like a dimension it is not along stored as
// _nc4_non_coord_ and read by its name, a scalar, strings, creation
// order, and the refusals. (ncdump, netCDF4-python and xarray read the
// same layout in make check-netcdf.)
func TestNetCDFWriterLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.nc")
	if dir := os.Getenv("NPYFLOW_NC_DIR"); dir != "" {
		path = filepath.Join(dir, "layout.nc") // make check-netcdf reads it with netCDF4-python
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	nw, err := NewNetCDFWriter(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	f8, _ := npyio.ParseTypeStr("<f8")
	i2, _ := npyio.ParseTypeStr(">i2")
	u3, _ := npyio.ParseTypeStr("<U3")
	c16, _ := npyio.ParseTypeStr("<c16")
	for _, d := range []struct {
		n string
		l uint64
	}{{"x", 2}, {"lat", 3}} {
		if err := nw.Dim(d.n, d.l); err != nil {
			t.Fatal(err)
		}
	}
	if err := nw.Dim("x", 5); err == nil {
		t.Errorf("dimension x redeclared with another length")
	}
	if _, err := nw.CreateVariable("c", c16, []string{"x"}, nil); err == nil || !strings.Contains(err.Error(), `"c": netCDF has no complex type`) {
		t.Errorf("complex: %v", err)
	}
	if _, err := nw.CreateVariable("v", f8, []string{"nope"}, nil); err == nil {
		t.Errorf("an undeclared dimension was accepted")
	}
	write := func(name string, dt *npyio.DType, dims []string, data []byte) {
		v, err := nw.CreateVariable(name, dt, dims, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := v.Close(); err != nil {
			t.Fatal(err)
		}
	}
	lat := []byte{0, 1, 0, 2} // >i2 1, 2
	write("lat", i2, []string{"x"}, lat)
	write("x", f8, []string{"x"}, make([]byte, 16))
	s := make([]byte, 24) // U3 ["ab", "é"] in UTF-32LE
	s[0], s[4], s[12] = 'a', 'b', 0xe9
	write("name", u3, []string{"x"}, s)
	write("s", f8, nil, make([]byte, 8))
	if err := nw.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	info, err := r.NetCDF()
	if err != nil {
		t.Fatal(err)
	}
	if info.Properties != NetCDFProperties || len(info.Dims) != 2 || info.Dims[0].Name != "x" || info.Dims[0].ID != 0 || !info.Dims[0].Coordinate ||
		info.Dims[1].Name != "lat" || info.Dims[1].ID != 1 || info.Dims[1].Coordinate || info.Dims[1].Len != 3 {
		t.Fatalf("netCDF layer %+v", info)
	}
	vars, err := r.Root().Variables()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range vars {
		names = append(names, v.NetCDFName())
	}
	if !slices.Equal(names, []string{"lat", "x", "name", "s"}) {
		t.Errorf("variables %v, want creation order", names)
	}
	v, err := r.OpenVariable("/lat")
	if err != nil {
		t.Fatal(err)
	}
	if v.Name() != "_nc4_non_coord_lat" {
		t.Errorf("lat stored as %s", v.Name())
	}
	data, err := v.ReadAll()
	if err != nil || !bytes.Equal(data, lat) {
		t.Errorf("lat: % x %v", data, err)
	}
	if dims, _ := v.DimensionNames(); !slices.Equal(dims, []string{"x"}) {
		t.Errorf("lat dimensions %v", dims)
	}
	o, _ := r.OpenPath("/lat")
	if !o.(*Dataset).IsNetCDFDimensionOnly() {
		t.Errorf("/lat is not netCDF's dimension-only dataset")
	}
	n, _ := r.OpenVariable("/name")
	if ss, err := n.ReadStrings(); err != nil || !slices.Equal(ss, []string{"ab", "é"}) {
		t.Errorf("name: %q %v", ss, err)
	}
}
