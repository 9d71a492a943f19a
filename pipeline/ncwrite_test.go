package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/npyio"
)

// ncTypeNames are ncdump's names of the netCDF types npyflow writes.
var ncTypeNames = map[string]string{"S": "string", "U": "string", "|i1": "byte", "|u1": "ubyte", "<i2": "short", "<u2": "ushort", "<i4": "int", "<u4": "uint",
	"<i8": "int64", "<u8": "uint64", "<f4": "float", "<f8": "double"}

// ncdumpHeader renders a netCDF-4 file of one group as `ncdump -h` shows
// it, from npyflow's own reader, for the types and attributes the
// netCDF writer makes: the structure test needs no ncdump at run time.
func ncdumpHeader(t *testing.T, path string) string {
	t.Helper()
	f, err := hdf5.OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	info, err := f.NetCDF()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "netcdf %s {\ndimensions:\n", strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	for _, d := range info.Dims {
		fmt.Fprintf(&b, "\t%s = %d ;\n", d.Name, d.Len)
	}
	b.WriteString("variables:\n")
	vars, err := f.Root().Variables()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vars {
		dt, err := v.DType()
		if err != nil {
			t.Fatal(err)
		}
		typ := ncTypeNames[strings.Trim(dt.String(), "'")]
		if dt.Kind == npyio.Bytes || dt.Kind == npyio.Unicode {
			typ = "string"
		}
		if typ == "" {
			t.Fatalf("%s: dtype %s not rendered", v.Path(), dt)
		}
		dims, err := v.DimensionNames()
		if err != nil {
			t.Fatal(err)
		}
		if len(dims) > 0 {
			fmt.Fprintf(&b, "\t%s %s(%s) ;\n", typ, v.NetCDFName(), strings.Join(dims, ", "))
		} else {
			fmt.Fprintf(&b, "\t%s %s ;\n", typ, v.NetCDFName())
		}
		attrs, err := v.Attrs()
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range attrs {
			if hdf5.IsNetCDFInternalAttr(a.Name) {
				continue
			}
			var val string
			switch a.Type.Class {
			case hdf5.ClassString:
				s, err := a.String()
				if err != nil {
					t.Fatal(err)
				}
				val = strconv.Quote(s)
			case hdf5.ClassFixedPoint:
				v, err := a.Int64s()
				if err != nil || len(v) != 1 || a.Type.Size != 8 {
					t.Fatalf("attribute %s not rendered", a.Name)
				}
				val = strconv.FormatInt(v[0], 10) + "LL"
			default:
				t.Fatalf("attribute %s of %s not rendered", a.Name, a.Type)
			}
			fmt.Fprintf(&b, "\t\t%s:%s = %s ;\n", v.NetCDFName(), a.Name, val)
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// ncSortAttrs sorts each variable's attribute lines of a CDL header:
// ncdump lists them in the order written, the hdf5 reader by name.
func ncSortAttrs(cdl string) string {
	lines := strings.Split(cdl, "\n")
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && strings.HasPrefix(lines[j], "\t\t") {
			j++
		}
		slices.Sort(lines[i:j])
		i = max(j, i+1)
	}
	return strings.Join(lines, "\n")
}

// readVarStrings reads the string variable name of the file at path.
func readVarStrings(t *testing.T, path, name string) ([]string, []string) {
	t.Helper()
	f, err := hdf5.OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := f.OpenVariable("/" + name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ds.ReadStrings()
	if err != nil {
		t.Fatal(err)
	}
	dims, _ := ds.DimensionNames()
	return s, dims
}

// readVar reads the netCDF variable name of the file at path.
func readVar(t *testing.T, path, name string) ([]byte, []string) {
	t.Helper()
	f, err := hdf5.OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := f.OpenVariable("/" + name)
	if err != nil {
		t.Fatal(err)
	}
	data, err := ds.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	dims, err := ds.DimensionNames()
	if err != nil {
		t.Fatal(err)
	}
	return data, dims
}

// TestNetCDFWrite writes netCDF-4 files from numpy's and netCDF4-python's
// files (testdata/netcdf_write/gen_inputs.py) and checks their structure
// against ncdump -h's reading of them (the committed .cdl files, written
// by make check-netcdf, which also reads them with netCDF4-python and
// xarray) and their values against the inputs: a table's fields as
// variables along one dimension, an array over named dimensions, and a
// round trip .nc -> .npz -> .nc.
func TestNetCDFWrite(t *testing.T) {
	ctx := context.Background()
	td := filepath.Join("testdata", "netcdf_write")
	dir := os.Getenv("NPYFLOW_NC_DIR") // make check-netcdf: the files for ncdump and Python
	if dir == "" {
		dir = t.TempDir()
	}
	conv := func(in, out string, flags map[string]string) {
		t.Helper()
		if _, err := Convert(ctx, in, out, &ConvertOptions{Flags: flags}); err != nil {
			t.Fatal(err)
		}
	}
	tab := filepath.Join(dir, "table.nc")
	conv(filepath.Join(td, "table.npy"), tab, nil)
	cube := filepath.Join(dir, "cube.nc")
	conv(filepath.Join(td, "cube.npy"), cube, map[string]string{"dims": "z,lat,lon"})
	npz := filepath.Join(t.TempDir(), "roundtrip.npz")
	conv(filepath.Join(td, "roundtrip.nc"), npz, nil)
	rt := filepath.Join(dir, "roundtrip.nc")
	conv(npz, rt, map[string]string{"dims": "time,x"})

	for _, out := range []string{tab, cube, rt} {
		want, err := os.ReadFile(filepath.Join(td, strings.TrimSuffix(filepath.Base(out), ".nc")+".cdl"))
		if err != nil {
			t.Fatal(err)
		}
		if got := ncSortAttrs(ncdumpHeader(t, out)); got != ncSortAttrs(string(want)) {
			t.Errorf("%s: structure differs from ncdump -h's reading:\n%s\nwant\n%s", filepath.Base(out), got, want)
		}
	}

	in, err := npyio.ReadFile(filepath.Join(td, "table.npy"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ v, field string }{{"a", "a"}, {"b", "b"}, {"c_x", "c"}, {"c_y", "c"}, {"t", "t"}, {"ok", "ok"}, {"pair", "pair"}, {"name", "name"}, {"code", "code"}} {
		if c.v == "name" || c.v == "code" {
			var fl npyio.Field
			for _, f := range in.DType.Fields {
				if f.Name == c.field {
					fl = f
				}
			}
			want := ncStrings(fl.Type, recField(t, in, c.field))
			got, _ := readVarStrings(t, tab, c.v)
			if !slices.Equal(got, want) {
				t.Errorf("table.nc %s: %q, want %q", c.v, got, want)
			}
			continue
		}
		var want []byte
		for _, f := range in.DType.Fields {
			if f.Name != c.field {
				continue
			}
			want = recField(t, in, f.Name)
			if f.Type.Kind == npyio.Struct {
				sub := f.Type.Fields[0]
				if c.v == "c_y" {
					sub = f.Type.Fields[1]
				}
				var w []byte
				for i := 0; i < len(want); i += f.Type.Size {
					w = append(w, want[i+sub.Offset:i+sub.Offset+sub.Type.Size]...)
				}
				want = w
			}
		}
		got, dims := readVar(t, tab, c.v)
		if !bytes.Equal(got, want) || dims[0] != "dim_0" {
			t.Errorf("table.nc %s%v: % x, want the field's % x", c.v, dims, got, want)
		}
	}
	cin, err := npyio.ReadFile(filepath.Join(td, "cube.npy"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, dims := readVar(t, cube, "cube"); !bytes.Equal(got, cin.Data) || !slices.Equal(dims, []string{"z", "lat", "lon"}) {
		t.Errorf("cube.nc: values or dimensions %v differ", dims)
	}
	if got, _ := readVarStrings(t, rt, "label"); !slices.Equal(got, []string{"α", "", "gamma", "d"}) {
		t.Errorf("round trip label: %q", got)
	}
	for _, v := range []string{"time", "temp", "count"} {
		want, wdims := readVar(t, filepath.Join(td, "roundtrip.nc"), v)
		got, dims := readVar(t, rt, v)
		if !bytes.Equal(got, want) || !slices.Equal(dims, wdims) {
			t.Errorf("round trip %s: dimensions %v (want %v) or values differ", v, dims, wdims)
		}
	}
}

// TestNetCDFWriteRefused: types netCDF has no form for are refused
// naming the variable, and nothing is left behind.
func TestNetCDFWriteRefused(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "c.npy")
	dt, _ := npyio.ParseTypeStr("<c16")
	w, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	nw, err := npyio.NewWriter(w, &npyio.Header{DType: dt, Shape: []int{2}})
	if err != nil {
		t.Fatal(err)
	}
	nw.Write(make([]byte, 32))
	nw.Close()
	w.Close()
	out := filepath.Join(dir, "c.nc")
	_, err = Convert(context.Background(), in, out, nil)
	if err == nil || !strings.Contains(err.Error(), "variable c: netCDF has no complex type") {
		t.Fatalf("got %v, want the variable named and the reason", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s left behind", out)
	}
	_, err = Convert(context.Background(), in, filepath.Join(dir, "c.h5"), &ConvertOptions{Flags: map[string]string{"dims": "x"}})
	if err == nil || !strings.Contains(err.Error(), "dims names netCDF dimensions") {
		t.Fatalf("--dims on .h5: got %v", err)
	}
}
