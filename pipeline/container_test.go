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
	"sort"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/matfile"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/inspect"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
	"github.com/npyflow/npyflow/pipeline/job"
)

// readNPZ reads every member of an .npz as C-order arrays.
func readNPZ(t *testing.T, path string) map[string]*npyio.Array {
	t.Helper()
	z, err := npyio.OpenNPZ(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*npyio.Array{}
	for _, k := range z.Keys() {
		r, err := z.Member(k).Open()
		if err != nil {
			t.Fatal(err)
		}
		h := *r.Header()
		data := make([]byte, h.DataSize())
		if _, err := r.ReadRows(data); err != nil && len(data) > 0 {
			t.Fatalf("%s: %v", k, err)
		}
		if len(h.Shape) == 0 {
			data = data[:h.DType.Size]
		}
		out[k] = &npyio.Array{Header: &h, DType: r.DType(), Data: data}
	}
	return out
}

type h5Expect struct {
	Kind    string `json:"kind"`
	DType   string `json:"dtype"`
	NPShape []int  `json:"npshape"`
	Raw     string `json:"raw"`
}

// TestConvertHDF5Fixtures converts the h5py fixtures to .npz and compares
// every dataset with the bytes h5py read (hdf5/testdata/*.json): a dataset
// whose dtype h5py gives in native order must come back byte-identical;
// big-endian ones byte-swapped.
func TestConvertHDF5Fixtures(t *testing.T) {
	for _, name := range []string{"earliest", "latest", "small_earliest", "small_latest"} {
		t.Run(name, func(t *testing.T) {
			in := filepath.Join("..", "hdf5", "testdata", name+".h5")
			b, err := os.ReadFile(filepath.Join("..", "hdf5", "testdata", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var want map[string]h5Expect
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out.npz")
			var warnings []string
			if _, err := Convert(context.Background(), in, out, &ConvertOptions{Warn: func(m string) { warnings = append(warnings, m) }}); err != nil {
				t.Fatal(err)
			}
			got := readNPZ(t, out)
			compared := 0
			for path, e := range want {
				if e.Kind != "dataset" {
					continue
				}
				a := got[strings.TrimPrefix(path, "/")]
				if a == nil {
					continue // skipped with a warning (checked below)
				}
				if fmt.Sprint(a.Header.Shape) != fmt.Sprint(e.NPShape) && !(len(a.Header.Shape) == 0 && len(e.NPShape) == 0) {
					t.Errorf("%s: shape %v, want %v", path, a.Header.Shape, e.NPShape)
				}
				if e.Raw == "" {
					continue
				}
				raw, err := base64.StdEncoding.DecodeString(e.Raw)
				if err != nil {
					t.Fatal(err)
				}
				descr := strings.Trim(e.DType, "'")
				switch {
				case descr == a.DType.String() || strings.Trim(a.DType.String(), "'") == descr:
				case strings.HasPrefix(descr, ">") && !strings.Contains(descr, "[") && "'<"+descr[1:]+"'" == a.DType.String():
					raw = swapBytes(raw, a.DType.Size)
				default:
					continue // a compound or string dtype spelled otherwise
				}
				compared++
				if !bytes.Equal(a.Data, raw) {
					t.Errorf("%s (%s): data differs from h5py's", path, descr)
				}
			}
			if compared < 3 {
				t.Errorf("only %d datasets compared", compared)
			}
			t.Logf("%d datasets compared, %d warnings", compared, len(warnings))
			for _, w := range warnings {
				if !strings.Contains(w, in) || !strings.Contains(w, "skipped") {
					t.Errorf("warning %q does not name the file and say what happened", w)
				}
			}
		})
	}
}

func swapBytes(b []byte, size int) []byte {
	out := append([]byte(nil), b...)
	for i := 0; i+size <= len(out); i += size {
		for j := 0; j < size/2; j++ {
			out[i+j], out[i+size-1-j] = out[i+size-1-j], out[i+j]
		}
	}
	return out
}

// matFixtures are MAT-files written by other programs.
var matFixtures = []string{
	"scipy_v6.mat", "scipy_v7.mat", "scipy_be_v7.mat", "h5s_v73.mat", "octave_v6.mat", "octave_v7.mat",
	"matlab/v7/cell.mat", "matlab/v7/struct.mat", "matlab/v7.3/cell.mat", "matlab/v7.3/struct.mat",
}

// TestConvertMATFixtures converts MAT-files written by scipy,
// hdf5storage, Octave and MATLAB to .npz and compares every member with
// matfile's own read of the file (itself checked against the producers'
// JSON in matfile's tests), and a few values with scipy's JSON.
func TestConvertMATFixtures(t *testing.T) {
	for _, name := range matFixtures {
		t.Run(name, func(t *testing.T) {
			in := filepath.Join("..", "matfile", "testdata", name)
			out := filepath.Join(t.TempDir(), "out.npz")
			if _, err := Convert(context.Background(), in, out, &ConvertOptions{Warn: func(string) {}}); err != nil {
				t.Fatal(err)
			}
			want, _, err := matfile.ReadArrays(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := readNPZ(t, out)
			if len(got) != len(want) {
				t.Errorf("%d members, want %d", len(got), len(want))
			}
			for _, w := range want {
				g := got[w.Key]
				if g == nil {
					t.Errorf("no member %q", w.Key)
					continue
				}
				if fmt.Sprint(g.Header.Shape) != fmt.Sprint(w.Array.Header.Shape) || g.DType.String() != w.Array.DType.Native().String() {
					t.Errorf("%s: %s %v, want %s %v", w.Key, g.DType, g.Header.Shape, w.Array.DType, w.Array.Header.Shape)
				}
				if !bytes.Equal(g.Data, w.Array.CData()) {
					t.Errorf("%s: data differs", w.Key)
				}
			}
		})
	}
	// One value from scipy's own reading: d = [[1.5, -2, nan], [inf, 0, 1e300]].
	out := filepath.Join(t.TempDir(), "d.npz")
	if _, err := Convert(context.Background(), "../matfile/testdata/scipy_v7.mat", out, &ConvertOptions{Flags: map[string]string{"variable": "d"}}); err != nil {
		t.Fatal(err)
	}
	d := readNPZ(t, out)["d"]
	v, _ := npyio.View[float64](d.Data)
	if fmt.Sprint(d.Header.Shape) != "[2 3]" || v[0] != 1.5 || v[1] != -2 || v[3] < 1e308 || v[5] != 1e300 {
		t.Errorf("d = %v %v", d.Header.Shape, v)
	}
}

// matDTypes are every dtype MATLAB holds exactly (2-D so that the shape
// comes back as it went).
func matArrays(t *testing.T) []npyio.NamedArray {
	var out []npyio.NamedArray
	for _, ts := range []string{"<f8", "<f4", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "|b1", "<c8", "<c16", "<U3"} {
		dt, err := npyio.ParseTypeStr(ts)
		if err != nil {
			t.Fatal(err)
		}
		shape := []int{3, 4}
		if dt.Kind == npyio.Unicode {
			shape = []int{3}
		}
		n := 1
		for _, d := range shape {
			n *= d
		}
		data := make([]byte, n*dt.Size)
		for i := range data {
			data[i] = byte(i*37 + 11)
		}
		switch dt.Kind {
		case npyio.Bool:
			for i := range data {
				data[i] &= 1
			}
		case npyio.Float, npyio.Complex:
			f := make([]float64, n*dt.Size/8)
			if dt.Size%8 != 0 || dt.String() == "'<c8'" {
				f32 := make([]float32, n*dt.Size/4)
				for i := range f32 {
					f32[i] = float32(i)*1.25 - 3
				}
				data = npyio.AsBytes(f32)
				break
			}
			for i := range f {
				f[i] = float64(i)*0.5 - 2
			}
			data = npyio.AsBytes(f)
		case npyio.Unicode:
			data = make([]byte, n*dt.Size)
			for i, s := range []string{"abc", "xyz", "é€ü"} {
				rowbytes.PutUCS4(data[i*dt.Size:(i+1)*dt.Size], s)
			}
		}
		name := "v_" + strings.NewReplacer("<", "", "|", "").Replace(ts)
		out = append(out, npyio.NamedArray{Key: name, Array: &npyio.Array{Header: &npyio.Header{DType: dt, Shape: shape}, DType: dt, Data: data}})
	}
	return out
}

// TestMATRoundTrip: npz -> mat -> npz is value-identical for every dtype
// MATLAB holds, in all three MAT-file versions, with and without
// compression.
func TestMATRoundTrip(t *testing.T) {
	dir := t.TempDir()
	arrays := matArrays(t)
	src := filepath.Join(dir, "src.npz")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := npyio.SaveNPZ(f, false, nil, arrays...); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, v := range []string{"7.3", "7", "6"} {
		for _, comp := range []string{"", "none"} {
			t.Run(v+"/"+comp, func(t *testing.T) {
				mat := filepath.Join(t.TempDir(), "x.mat")
				if _, err := Convert(context.Background(), src, mat, &ConvertOptions{Flags: map[string]string{"mat-version": v, "compression": comp}}); err != nil {
					t.Fatal(err)
				}
				mf, err := matfile.OpenFile(mat, nil)
				if err != nil {
					t.Fatal(err)
				}
				wantFmt := map[string]string{"7.3": "-v7.3", "7": "-v7", "6": "-v6"}[v]
				if v == "7" && comp == "none" {
					wantFmt = "-v6" // Level 5 without compressed variables
				}
				if mf.SaveFormat() != wantFmt {
					t.Errorf("save format %s, want %s", mf.SaveFormat(), wantFmt)
				}
				mf.Close()
				back := filepath.Join(t.TempDir(), "back.npz")
				if _, err := Convert(context.Background(), mat, back, nil); err != nil {
					t.Fatal(err)
				}
				got := readNPZ(t, back)
				for _, a := range arrays {
					g := got[a.Key]
					if g == nil {
						t.Errorf("%s missing", a.Key)
						continue
					}
					if g.DType.String() != a.Array.DType.String() || fmt.Sprint(g.Header.Shape) != fmt.Sprint(a.Array.Header.Shape) {
						t.Errorf("%s: %s %v, want %s %v", a.Key, g.DType, g.Header.Shape, a.Array.DType, a.Array.Header.Shape)
						continue
					}
					if !bytes.Equal(g.Data, a.Array.Data) {
						t.Errorf("%s: values differ", a.Key)
					}
				}
			})
		}
	}
}

// TestContainerJob runs a job with a mat source and an hdf5 source into
// .npz, .mat and .h5 sinks, and checks the values.
func TestContainerJob(t *testing.T) {
	dir := t.TempDir()
	mat, _ := filepath.Abs("../matfile/testdata/scipy_v7.mat")
	h5, _ := filepath.Abs("../hdf5/testdata/earliest.h5")
	text := fmt.Sprintf(`version: 1
sources:
  m: {type: mat, paths: %q, variables: [d]}
  h: {type: hdf5, paths: %q, datasets: [/num/f8, num/be_f8]}
sinks:
  a: {type: npz, input: m, path: out/m.npz, member: "{member}"}
  b: {type: mat, input: h, path: out/h.mat, variable: "{member}", rename_invalid: true, version: "7"}
  c: {type: hdf5, input: m, path: out/m.h5}
`, mat, h5)
	jb, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	var warned []string
	plan, err := NewPlan(context.Background(), jb, &PlanOptions{Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Run(context.Background(), &RunOptions{}); err != nil {
		t.Fatal(err)
	}
	d := readNPZ(t, filepath.Join(dir, "out/m.npz"))["d"]
	if d == nil || fmt.Sprint(d.Header.Shape) != "[2 3]" {
		t.Fatalf("d = %+v", d)
	}
	if v, _ := npyio.View[float64](d.Data); v[0] != 1.5 || v[5] != 1e300 {
		t.Errorf("d = %v", v)
	}
	arrs, _, err := matfile.ReadArrays(filepath.Join(dir, "out/h.mat"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range arrs {
		names = append(names, a.Key)
		v, _ := npyio.View[float64](a.Array.CData())
		if a.Key == "num_f8" && (len(v) != 5 || v[0] != -1.5 || v[2] != 3.25) {
			t.Errorf("num_f8 = %v", v)
		}
		if a.Key == "num_be_f8" && (len(v) != 6 || v[0] != -1 || v[5] != 1) {
			t.Errorf("num_be_f8 = %v", v)
		}
	}
	sort.Strings(names)
	if fmt.Sprint(names) != "[num_be_f8 num_f8]" {
		t.Errorf("variables %v", names)
	}
	if len(warned) != 2 || !strings.Contains(warned[0], `"num/`) {
		t.Errorf("warnings %q, want one per rename", warned)
	}
	hf, err := hdf5.OpenFile(filepath.Join(dir, "out/m.h5"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hf.Close()
	obj, err := hf.OpenPath("/d")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := obj.(*hdf5.Dataset).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, d.Data) {
		t.Errorf("/d in the .h5 differs from the .npz")
	}
}

// TestInspectContainers checks what Inspect reports of HDF5 files and
// MAT-files (metadata only).
func TestInspectContainers(t *testing.T) {
	ctx := context.Background()
	ins, err := Inspect(ctx, "../hdf5/testdata/small_latest.h5", nil)
	if err != nil {
		t.Fatal(err)
	}
	if asHDF5(ins) == nil || asHDF5(ins).Superblock != 3 {
		t.Fatalf("got %+v", ins)
	}
	objs := map[string]inspect.HDF5Object{}
	for _, o := range asHDF5(ins).Objects {
		objs[o.Path] = o
	}
	if d := objs["/d"]; d.Kind != "dataset" || d.Descr != "'<f8'" || fmt.Sprint(d.Shape) != "[10 3]" || d.Layout != "chunked" ||
		fmt.Sprint(d.Chunk) != "[4 2]" || d.Index != "fixed-array" || strings.Join(d.Filters, ",") != "shuffle(elemsize=8),deflate(level=4),fletcher32" {
		t.Errorf("/d: %+v", d)
	}
	if g := objs["/g"]; g.Kind != "group" || len(g.Attrs) != 11 || g.Attrs[10].Name != "v" || !strings.Contains(g.Attrs[10].Desc, `"text"`) {
		t.Errorf("/g: %+v", g)
	}
	if s := objs["/s"]; s.Descr != "" || !strings.Contains(s.Type, "vlen string") {
		t.Errorf("/s: %+v (a variable-length string's width is not read)", s)
	}
	var buf bytes.Buffer
	ins.WriteText(&buf)
	for _, want := range []string{"(HDF5, superblock v3", "/d  dataset '<f8' shape (10, 3), chunked [4 2] fixed-array shuffle(elemsize=8) | deflate(level=4) | fletcher32", "    @v: "} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}

	for _, c := range []struct {
		file, version, save, name, class, size, comp string
		bytes                                        int64
	}{
		{"scipy_v7.mat", "5", "-v7", "d", "double", "[2 3]", "zlib", 48},
		{"octave_v6.mat", "5", "-v6", "d", "double", "[2 3]", "", 48},
		{"h5s_v73.mat", "7.3", "-v7.3", "big", "double", "[300 200]", "deflate", 480000},
	} {
		ins, err := Inspect(ctx, "../matfile/testdata/"+c.file, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := asMAT(ins)
		if m == nil || m.Version != c.version || m.SaveFormat != c.save {
			t.Fatalf("%s: %+v", c.file, ins)
		}
		found := false
		for _, v := range m.Variables {
			if v.Name == c.name {
				found = true
				if v.Class != c.class || fmt.Sprint(v.Size) != c.size || v.Compression != c.comp || v.Bytes != c.bytes {
					t.Errorf("%s: %+v", c.file, v)
				}
			}
		}
		if !found {
			t.Errorf("%s: no variable %s", c.file, c.name)
		}
	}
}

// TestContainerErrors: refused inputs and outputs name the file and the
// problem and leave no output.
func TestContainerErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	noOutput := func(t *testing.T, path string) {
		t.Helper()
		ents, _ := os.ReadDir(filepath.Dir(path))
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), filepath.Base(path)) || strings.HasPrefix(e.Name(), "."+filepath.Base(path)) {
				t.Errorf("left %s behind", e.Name())
			}
		}
	}

	t.Run("function handle", func(t *testing.T) {
		in := "../matfile/testdata/h5py_matlab_v73.mat"
		out := filepath.Join(dir, "fh.npz")
		_, err := Convert(ctx, in, out, &ConvertOptions{Flags: map[string]string{"strict": "true"}})
		var ue *matfile.UnsupportedError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), in) {
			t.Fatalf("strict: %v, want an UnsupportedError naming the file", err)
		}
		noOutput(t, out)
		var warned []string
		if _, err := Convert(ctx, in, out, &ConvertOptions{Warn: func(m string) { warned = append(warned, m) }}); err != nil {
			t.Fatal(err)
		}
		fh := 0
		for _, w := range warned {
			if strings.Contains(w, "function_handle") {
				fh++
			}
		}
		if fh != 1 {
			t.Errorf("warnings %q: want one about the function handle", warned)
		}
	})

	t.Run("invalid name", func(t *testing.T) {
		src := filepath.Join(dir, "bad.npz")
		f, _ := os.Create(src)
		a := &npyio.Array{Header: &npyio.Header{DType: npyio.Float64Type, Shape: []int{2}}, DType: npyio.Float64Type, Data: make([]byte, 16)}
		if err := npyio.SaveNPZ(f, false, nil, npyio.NamedArray{Key: "1st", Array: a}, npyio.NamedArray{Key: "ok", Array: a}, npyio.NamedArray{Key: "a-b", Array: a}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		out := filepath.Join(dir, "bad.mat")
		_, err := Convert(ctx, src, out, nil)
		var ie *matfile.InvalidNamesError
		if !errors.As(err, &ie) || fmt.Sprint(ie.Names) != "[1st a-b]" {
			t.Fatalf("got %v, want the list of invalid names", err)
		}
		noOutput(t, out)
		var warned []string
		if _, err := Convert(ctx, src, out, &ConvertOptions{Flags: map[string]string{"rename-invalid": "true"}, Warn: func(m string) { warned = append(warned, m) }}); err != nil {
			t.Fatal(err)
		}
		arrs, _, err := matfile.ReadArrays(out, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, a := range arrs {
			names = append(names, a.Key)
		}
		sort.Strings(names)
		if fmt.Sprint(names) != "[a_b ok x1st]" || len(warned) != 2 {
			t.Errorf("variables %v, warnings %q", names, warned)
		}
	})

	t.Run("corrupt h5", func(t *testing.T) {
		b, err := os.ReadFile("../hdf5/testdata/small_earliest.h5")
		if err != nil {
			t.Fatal(err)
		}
		in := filepath.Join(dir, "corrupt.h5")
		os.WriteFile(in, b[:len(b)/3], 0o644)
		out := filepath.Join(dir, "corrupt.npz")
		_, err = Convert(ctx, in, out, nil)
		var fe *FileError
		if !errors.As(err, &fe) || fe.Path != in || !strings.Contains(err.Error(), in) {
			t.Fatalf("got %v, want a FileError naming %s", err, in)
		}
		noOutput(t, out)
		if _, err := Inspect(ctx, in, nil); err == nil {
			t.Errorf("inspect of a truncated file succeeded")
		}
	})

	t.Run("reference dataset", func(t *testing.T) {
		_, err := Convert(ctx, "../hdf5/testdata/small_earliest.h5", filepath.Join(dir, "r.npz"), &ConvertOptions{Flags: map[string]string{"dataset": "/g/r"}})
		if !errors.Is(err, hdf5.ErrUnsupported) || !strings.Contains(err.Error(), "reference") {
			t.Errorf("got %v", err)
		}
	})

	t.Run("options", func(t *testing.T) {
		for _, o := range []*ConvertOptions{{Flags: map[string]string{"dataset": "/x"}}, {Flags: map[string]string{"mat-version": "5"}}} {
			_, err := Convert(ctx, "../matfile/testdata/scipy_v7.mat", filepath.Join(dir, "o.mat"), o)
			if !errors.Is(err, ErrOptions) {
				t.Errorf("%+v: %v", o, err)
			}
		}
	})
}

// TestMATLABExample runs examples/matlab.yaml and checks its outputs.
func TestMATLABExample(t *testing.T) {
	out, _, err := runJob(t, "../examples/matlab.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	arrs, _, err := matfile.ReadArrays(filepath.Join(out, "matrix.mat"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(arrs) != 1 || arrs[0].Key != "measurements" || fmt.Sprint(arrs[0].Array.Header.Shape) != "[10 3]" {
		t.Fatalf("matrix.mat: %+v", arrs)
	}
	if v, _ := npyio.View[float64](arrs[0].Array.CData()); v[4] != 4 || v[29] != 29 {
		t.Errorf("measurements = %v", v)
	}
	stats, _, err := matfile.ReadArrays(filepath.Join(out, "stats.mat"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range stats {
		if a.Key == "stats.mean" {
			// Column means of 0..29 laid out 10x3: 13.5, 14.5, 15.5.
			if v, _ := npyio.View[float64](a.Array.CData()); fmt.Sprint(v) != "[13.5 14.5 15.5]" {
				t.Errorf("stats.mean = %v", v)
			}
			return
		}
	}
	t.Errorf("stats.mat has no stats.mean: %d arrays", len(stats))
}

// TestHDF5Tables: a compound dataset and a 1-D dataset convert to Parquet
// and Arrow as tables, and back to the same records.
func TestHDF5Tables(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	in := "../hdf5/testdata/earliest.h5"
	all := filepath.Join(dir, "all.npz")
	if _, err := Convert(ctx, in, all, &ConvertOptions{Warn: func(string) {}}); err != nil {
		t.Fatal(err)
	}
	members := readNPZ(t, all)
	for _, ds := range []string{"/chunk/compound_chunked", "/num/f8"} {
		want := members[strings.TrimPrefix(ds, "/")]
		for _, ext := range []string{"parquet", "arrow"} {
			t.Run(ds+"."+ext, func(t *testing.T) {
				tab := filepath.Join(dir, "t."+ext)
				if _, err := Convert(ctx, in, tab, &ConvertOptions{Flags: map[string]string{"dataset": ds}}); err != nil {
					t.Fatal(err)
				}
				back := filepath.Join(dir, "back.npy")
				if _, err := Convert(ctx, tab, back, nil); err != nil {
					t.Fatal(err)
				}
				a, err := npyio.ReadFile(back, nil)
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(a.Header.Shape) != fmt.Sprint(want.Header.Shape) {
					t.Fatalf("shape %v, want %v", a.Header.Shape, want.Header.Shape)
				}
				if want.DType.Kind == npyio.Struct {
					// Field by field: Parquet and Arrow pack the records.
					for _, f := range want.DType.Fields {
						var g *npyio.Field
						for i := range a.DType.Fields {
							if a.DType.Fields[i].Name == f.Name {
								g = &a.DType.Fields[i]
							}
						}
						if g == nil || g.Size() != f.Size() {
							t.Fatalf("field %s: got %+v", f.Name, g)
						}
						for r := 0; r < want.Header.Shape[0]; r++ {
							wb := want.Data[r*want.DType.Size+f.Offset : r*want.DType.Size+f.Offset+f.Size()]
							gb := a.Data[r*a.DType.Size+g.Offset : r*a.DType.Size+g.Offset+g.Size()]
							if !bytes.Equal(wb, gb) {
								t.Errorf("row %d field %s differs", r, f.Name)
							}
						}
					}
					return
				}
				if !bytes.Equal(a.CData(), want.Data) {
					t.Errorf("values differ")
				}
			})
		}
	}
}
