package pipeline

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/inspect"
)

// The HDF5 and netCDF-4 features of issues 22 and 23 wired into convert,
// jobs and inspect, on files h5py, netCDF4-python, scipy and parquet-mr
// wrote (hdf5/testdata, pipeline/testdata/netcdf,
// parquetio/testdata/foreign), each checked against the producer's own
// reading.

var h5td = filepath.Join("..", "hdf5", "testdata")

// ncExpect is hdf5/testdata/netcdf.json: netCDF4-python's reading of the
// netCDF-4 fixtures and xarray's to_dataframe columns per dimension.
type ncExpect struct {
	Vars map[string]struct {
		Raw       string   `json:"raw"`
		Shape     []int    `json:"shape"`
		Dims      []string `json:"dims"`
		Units     string   `json:"units"`
		FillValue *struct {
			Value float64 `json:"value"`
		} `json:"_FillValue"`
		ScaleFactor *struct {
			Value float64 `json:"value"`
		} `json:"scale_factor"`
		AddOffset *struct {
			Value float64 `json:"value"`
		} `json:"add_offset"`
		Strings []string `json:"strings"`
	} `json:"vars"`
	Dims []struct {
		Name string `json:"name"`
		Path string `json:"path"`
		Size uint64 `json:"size"`
	} `json:"dims"`
	Tables map[string]struct {
		Columns    []string `json:"columns"`
		Coordinate bool     `json:"coordinate"`
	} `json:"tables"`
}

func loadNC(t *testing.T, file string) ncExpect {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h5td, "netcdf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]ncExpect
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	return all[file]
}

func b64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// recField returns the bytes of field name of every record of a.
func recField(t *testing.T, a *npyio.Array, name string) []byte {
	t.Helper()
	for _, f := range a.DType.Fields {
		if f.Name == name {
			var out []byte
			for r := 0; r+a.DType.Size <= len(a.Data); r += a.DType.Size {
				out = append(out, a.Data[r+f.Offset:r+f.Offset+f.Size()]...)
			}
			return out
		}
	}
	t.Fatalf("no field %q in %s", name, a.DType)
	return nil
}

func TestNetCDF4Convert(t *testing.T) {
	if f := FormatOf("a.nc"); f == nil || f.Name != "hdf5" {
		t.Errorf("FormatOf(a.nc) = %v, want hdf5", f)
	}
	if f := FormatOf("a.NC4"); f == nil || f.Name != "hdf5" {
		t.Errorf("FormatOf(a.NC4) = %v, want hdf5", f)
	}
	for _, file := range []string{"nc4.nc", "nc4_classic.nc"} {
		t.Run(file, func(t *testing.T) {
			want := loadNC(t, file)
			out := filepath.Join(t.TempDir(), "out.npz")
			var warns []string
			if _, err := Convert(context.Background(), filepath.Join(h5td, file), out, &ConvertOptions{Warn: func(m string) { warns = append(warns, m) }}); err != nil {
				t.Fatal(err)
			}
			if len(warns) > 0 {
				t.Errorf("warnings: %q", warns)
			}
			got := readNPZ(t, out)
			if got["station"] != nil {
				t.Errorf("the dimension-only dataset station was converted")
			}
			n := 0
			for path, v := range want.Vars {
				a := got[strings.TrimPrefix(path, "/")]
				if a == nil {
					t.Errorf("%s missing", path)
					continue
				}
				if v.Raw == "" {
					continue
				}
				n++
				// Stored values: temp stays int16 with its _FillValue, unscaled.
				if !bytes.Equal(a.Data, b64(t, v.Raw)) {
					t.Errorf("%s: values differ from netCDF4-python's raw reading", path)
				}
			}
			if n < 9 {
				t.Errorf("compared %d variables", n)
			}
		})
	}
}

func TestNetCDFDimensionTable(t *testing.T) {
	want := loadNC(t, "nc4.nc")
	ctx := context.Background()
	in := filepath.Join(h5td, "nc4.nc")
	for _, dim := range []string{"time", "station", "lat"} {
		t.Run(dim, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "t.npy")
			if _, err := Convert(ctx, in, out, &ConvertOptions{Flags: map[string]string{"dimension": dim}}); err != nil {
				t.Fatal(err)
			}
			a, err := npyio.ReadFile(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			// xarray's columns after reset_index; a dimension without a
			// coordinate variable has no index column here.
			cols := want.Tables[dim].Columns
			if !want.Tables[dim].Coordinate {
				cols = cols[1:]
			}
			var names []string
			for _, f := range a.DType.Fields {
				names = append(names, f.Name)
			}
			if !slices.Equal(names, cols) {
				t.Fatalf("fields %v, want xarray's %v", names, cols)
			}
			for _, c := range cols {
				v := want.Vars["/"+c]
				if v.Raw != "" && !bytes.Equal(recField(t, a, c), b64(t, v.Raw)) {
					t.Errorf("%s: values differ", c)
				}
				if v.Strings != nil {
					var got []string
					raw := recField(t, a, c)
					sz := len(raw) / len(v.Strings)
					for i := range v.Strings {
						got = append(got, strings.TrimRight(string(bytes.ReplaceAll(raw[i*sz:(i+1)*sz], []byte{0, 0, 0}, nil)), "\x00"))
					}
					if !slices.Equal(got, v.Strings) {
						t.Errorf("%s: %q, want %q", c, got, v.Strings)
					}
				}
			}
		})
	}
	t.Run("job", func(t *testing.T) {
		// The option is the source's: a job gives convert's bytes.
		dir := t.TempDir()
		abs, _ := filepath.Abs(in)
		jf := filepath.Join(dir, "job.yaml")
		os.WriteFile(jf, []byte(fmt.Sprintf("version: 1\nsources:\n  in: {type: hdf5, paths: [%q], dimension: sub/time}\nsinks:\n  out: {type: npy, input: in, path: j.npy}\n", abs)), 0o644)
		if _, _, err := runJob(t, jf, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := Convert(ctx, in, filepath.Join(dir, "c.npy"), &ConvertOptions{Flags: map[string]string{"dimension": "sub/time"}}); err != nil {
			t.Fatal(err)
		}
		j, _ := os.ReadFile(filepath.Join(dir, "j.npy"))
		c, _ := os.ReadFile(filepath.Join(dir, "c.npy"))
		if len(j) == 0 || !bytes.Equal(j, c) {
			t.Fatalf("job and convert differ (%d, %d bytes)", len(j), len(c))
		}
		a, err := npyio.ReadFile(filepath.Join(dir, "c.npy"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(recField(t, a, "gust"), b64(t, want.Vars["/sub/gust"].Raw)) || !bytes.Equal(recField(t, a, "time"), b64(t, want.Vars["/time"].Raw)) {
			t.Errorf("sub/time table: values differ")
		}
	})
	bad := []struct{ name, file, dim, flag, msg string }{
		{"unknown", "nc4.nc", "bogus", "", "dimensions: time, lat, lon, station, sub/level, sub/time"},
		{"no scales", "filters.h5", "x", "", "no dimension scales"},
		{"with dataset", "nc4.nc", "time", "/temp", "exclude each other"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			fl := map[string]string{"dimension": c.dim}
			if c.flag != "" {
				fl["dataset"] = c.flag
			}
			_, err := Convert(ctx, filepath.Join(h5td, c.file), filepath.Join(t.TempDir(), "t.npy"), &ConvertOptions{Flags: fl})
			if err == nil || !strings.Contains(err.Error(), c.msg) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line with %q", err, c.msg)
			}
		})
	}
}

func TestNetCDF3Refused(t *testing.T) {
	files := []string{
		filepath.Join(h5td, "nc3_classic.nc"), filepath.Join(h5td, "nc3_64bit_offset.nc"), filepath.Join(h5td, "nc3_64bit_data.nc"),
		filepath.Join("testdata", "netcdf", "scipy_classic.nc"), filepath.Join("testdata", "netcdf", "scipy_64bit_offset.nc"),
	}
	ctx := context.Background()
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			check := func(what string, err error) {
				t.Helper()
				if err == nil || !errors.Is(err, hdf5.ErrNetCDF3) || !strings.Contains(err.Error(), "netCDF-3") || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s: %v, want one line saying netCDF-3", what, err)
				}
				if err != nil && strings.Count(err.Error(), filepath.Base(f)) > 1 {
					t.Errorf("%s: %v names the file twice", what, err)
				}
			}
			out := filepath.Join(t.TempDir(), "o.npz")
			_, err := Convert(ctx, f, out, nil)
			check("convert", err)
			if _, serr := os.Stat(out); serr == nil {
				t.Errorf("output left behind")
			}
			_, err = Inspect(ctx, f, nil)
			check("inspect", err)
			// By its first bytes, under another name.
			dat := filepath.Join(t.TempDir(), "x.dat")
			b, _ := os.ReadFile(f)
			os.WriteFile(dat, b, 0o644)
			_, err = Inspect(ctx, dat, nil)
			check("inspect .dat", err)
			_, err = Convert(ctx, StdinName, out, &ConvertOptions{Stdin: bytes.NewReader(b)})
			check("convert stdin", err)
		})
	}
}

func TestHDF5UnsupportedFilterSkipped(t *testing.T) {
	ctx := context.Background()
	in := filepath.Join(h5td, "filters.h5")
	b, err := os.ReadFile(filepath.Join(h5td, "filters.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]h5Expect
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "o.npz")
	var warns []string
	if _, err := Convert(ctx, in, out, &ConvertOptions{Warn: func(m string) { warns = append(warns, m) }}); err != nil {
		t.Fatal(err)
	}
	// /zfp is decoded as h5py with Debian's plugin decodes it; /direct,
	// whose chunks claim the unregistered filter 40000, is skipped.
	joined := strings.Join(warns, "\n")
	for _, w := range []string{"dataset /direct skipped", "filter 40000 (an unregistered id)"} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings %q lack %q", warns, w)
		}
	}
	if strings.Contains(joined, "/zfp") {
		t.Errorf("warnings %q name /zfp", warns)
	}
	got := readNPZ(t, out)
	for _, name := range []string{"gzip", "plain", "skipped", "zfp"} {
		a := got[name]
		if a == nil {
			t.Errorf("%s missing", name)
			continue
		}
		if !bytes.Equal(a.Data, b64(t, want["/"+name].Raw)) {
			t.Errorf("%s differs from h5py's reading", name)
		}
	}
	if len(got) != 4 {
		t.Errorf("%d members, want 4", len(got))
	}
	// --strict refuses; picking the dataset refuses it too; nothing is
	// written either way.
	for _, fl := range []map[string]string{{"strict": "true"}, {"dataset": "/direct"}} {
		out := filepath.Join(t.TempDir(), "o.npz")
		_, err := Convert(ctx, in, out, &ConvertOptions{Flags: fl})
		if err == nil || !errors.Is(err, hdf5.ErrUnsupported) || !strings.Contains(err.Error(), "filter") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want a refusal naming the filter", fl, err)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%v: output left behind", fl)
		}
	}
}

func TestInspectNetCDF(t *testing.T) {
	want := loadNC(t, "nc4.nc")
	ins, err := Inspect(context.Background(), filepath.Join(h5td, "nc4.nc"), nil)
	if err != nil {
		t.Fatal(err)
	}
	info := ins.(*inspect.HDF5Info)
	if info.NetCDF == nil || !strings.Contains(info.NetCDF.Properties, "netcdf=4.9.0") {
		t.Fatalf("netcdf: %+v", info.NetCDF)
	}
	var dims []string
	for _, d := range info.NetCDF.Dimensions {
		dims = append(dims, fmt.Sprintf("%s=%d", d.Path, d.Len))
	}
	var wdims []string
	for _, d := range want.Dims {
		wdims = append(wdims, fmt.Sprintf("%s=%d", d.Path, d.Size))
	}
	if !slices.Equal(dims, wdims) {
		t.Errorf("dimensions %v, want netCDF4-python's %v", dims, wdims)
	}
	seen := 0
	for _, o := range info.Objects {
		for _, a := range o.Attrs {
			if hdf5.IsNetCDFInternalAttr(a.Name) {
				t.Errorf("%s: internal attribute %s shown", o.Path, a.Name)
			}
		}
		v, ok := want.Vars[o.Path]
		if !ok {
			if o.Path == "/station" && o.Kind != "dimension" {
				t.Errorf("/station is %q, want dimension", o.Kind)
			}
			continue
		}
		seen++
		if len(v.Dims) > 0 && !slices.Equal(o.Dims, v.Dims) {
			t.Errorf("%s: dimensions %v, want %v", o.Path, o.Dims, v.Dims)
		}
		if o.Units != v.Units {
			t.Errorf("%s: units %q, want %q", o.Path, o.Units, v.Units)
		}
		for _, c := range []struct {
			name, got string
			want      *struct {
				Value float64 `json:"value"`
			}
		}{{"_FillValue", o.FillValue, v.FillValue}, {"scale_factor", o.ScaleFactor, v.ScaleFactor}, {"add_offset", o.AddOffset, v.AddOffset}} {
			switch {
			case c.want == nil && c.got != "":
				t.Errorf("%s: %s %q, want none", o.Path, c.name, c.got)
			case c.want != nil && c.got != fmt.Sprint(float32(c.want.Value)) && c.got != fmt.Sprint(c.want.Value):
				t.Errorf("%s: %s %q, want %v", o.Path, c.name, c.got, c.want.Value)
			}
		}
	}
	if seen != len(want.Vars) {
		t.Errorf("%d variables shown, want %d", seen, len(want.Vars))
	}
	var text bytes.Buffer
	info.WriteText(&text)
	for _, s := range []string{"/temp  dataset '<i2' shape (5, 3, 4) (time, lat, lon)", ":scale_factor = 0.01", ":_FillValue = -1e+30", "shuffle(elemsize=2) | deflate(level=4)"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, text.String())
		}
	}
}

func TestInspectHDF5Filters(t *testing.T) {
	// Each dataset's pipeline as h5py lists it (filters_b_h5py.json:
	// filter ids in order), with names and parameters.
	b, err := os.ReadFile(filepath.Join(h5td, "filters_b_h5py.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]struct {
		Filters []int `json:"filters"`
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	ins, err := Inspect(context.Background(), filepath.Join(h5td, "filters_b_h5py.h5"), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, o := range ins.(*inspect.HDF5Info).Objects {
		w, ok := want[o.Path]
		if !ok || o.Kind != "dataset" {
			continue
		}
		n++
		if len(o.Filters) != len(w.Filters) {
			t.Errorf("%s: filters %q, want ids %v", o.Path, o.Filters, w.Filters)
			continue
		}
		for i, id := range w.Filters {
			name, _ := hdf5.RegisteredFilterName(id)
			if !strings.HasPrefix(o.Filters[i], name+"(") && o.Filters[i] != name {
				t.Errorf("%s: filter %d is %q, want %s", o.Path, i, o.Filters[i], name)
			}
		}
		if o.Unsupported != "" && !strings.Contains(o.Path, "bad") {
			t.Errorf("%s: unsupported: %s", o.Path, o.Unsupported)
		}
	}
	if n < 20 {
		t.Errorf("compared %d datasets", n)
	}
	ins, err = Inspect(context.Background(), filepath.Join(h5td, "filters.h5"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range ins.(*inspect.HDF5Info).Objects {
		switch o.Path {
		case "/zfp":
			if o.Unsupported != "" || len(o.Filters) != 1 || !strings.HasPrefix(o.Filters[0], "zfp(") {
				t.Errorf("/zfp: %q %q", o.Filters, o.Unsupported)
			}
		case "/gzip":
			if !slices.Equal(o.Filters, []string{"deflate(level=4)"}) || o.Unsupported != "" {
				t.Errorf("/gzip: %q %q", o.Filters, o.Unsupported)
			}
		}
	}
}
