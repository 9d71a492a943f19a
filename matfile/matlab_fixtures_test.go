package matfile

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// Files MATLAB wrote (testdata/matlab, see its README), with the
// expectations testdata/gen_matlab_expect.py computed with scipy, h5py and
// hdf5storage (and, for char_unicode, the values MAT.jl's test states).

// readTestdata reads a file of testdata, gunzipping a .gz one.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(name, ".gz") {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func loadExpectedGz(t *testing.T, name string) map[string]expected {
	t.Helper()
	var doc struct {
		Members map[string]expected `json:"members"`
	}
	if err := json.Unmarshal(readTestdata(t, name), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Members
}

// walkMemory opens a file held in memory and reads every array.
func walkMemory(t *testing.T, name string, b []byte) (map[string]*Var, map[string]*npyio.Array, *File) {
	t.Helper()
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	vars := map[string]*Var{}
	arrs := map[string]*npyio.Array{}
	err = f.Walk(func(path string, v *Var) error {
		if _, dup := vars[path]; dup {
			t.Errorf("%s: path %s twice", name, path)
		}
		a, err := v.Array()
		if err != nil {
			return err
		}
		vars[path], arrs[path] = v, a
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return vars, arrs, f
}

func checkFixture(t *testing.T, mat, exp string) (map[string]*Var, map[string]*npyio.Array, *File) {
	t.Helper()
	vars, arrs, f := walkMemory(t, mat, readTestdata(t, "matlab/"+mat))
	checkAgainst(t, mat, loadExpectedGz(t, "matlab/"+exp), vars, arrs)
	if len(f.Warnings()) != 0 {
		t.Errorf("%s: warnings %v", mat, f.Warnings())
	}
	return vars, arrs, f
}

func varInfo(t *testing.T, f *File, name string) VarInfo {
	t.Helper()
	vis, err := f.Variables()
	if err != nil {
		t.Fatal(err)
	}
	for _, vi := range vis {
		if vi.Name == name {
			return vi
		}
	}
	t.Fatalf("no variable %s in %v", name, vis)
	return VarInfo{}
}

// TestMATLABLogicalSparse: MATLAB stores a logical sparse matrix's values
// as one byte per nonzero under an miDOUBLE tag (Level 5): the variable
// reads as MATLAB's 5x5 logical identity, and the five other sparse
// matrices of the file (MAT.jl's sparse.mat, 2014) with it, in the three
// formats; test_basic_v7.mat (mat-io, 2025) holds another.
func TestMATLABLogicalSparse(t *testing.T) {
	eye5 := make([]byte, 25)
	for i := 0; i < 5; i++ {
		eye5[i*6] = 1
	}
	for _, dir := range []string{"v6", "v7", "v7.3"} {
		t.Run(dir, func(t *testing.T) {
			name := dir + "/sparse"
			vars, arrs, f := checkFixture(t, name+".mat", name+".json")
			if len(vars) != 6 {
				t.Errorf("%d variables, want 6", len(vars))
			}
			v, a := vars["sparse_logical"], arrs["sparse_logical"]
			if v == nil || v.Class != NameLogical || !v.Sparse || a.DType.Kind != npyio.Bool ||
				!reflect.DeepEqual(v.Header.Shape, []int{5, 5}) || !bytes.Equal(a.Data, eye5) {
				t.Errorf("sparse_logical: %+v %v", v, a)
			}
			vi := varInfo(t, f, "sparse_logical")
			if vi.Class != "sparse logical" || !vi.Sparse || !reflect.DeepEqual(vi.Dims, []int{5, 5}) {
				t.Errorf("Variables: %+v", vi)
			}
		})
	}
	t.Run("test_basic_v7", func(t *testing.T) {
		_, arrs, _ := checkFixture(t, "../objects/test_basic_v7.mat", "v7/test_basic_v7.json.gz")
		if a := arrs["sparse_logical"]; a == nil || !bytes.Equal(a.Data, []byte{1, 0, 0, 0, 1, 0, 0, 0, 1}) {
			t.Errorf("sparse_logical: %v", a)
		}
	})
}

// TestMATLABCharsOutsideBMP: MATLAB stores characters outside the BMP as
// UTF-16 surrogate pairs (miUTF16 in Level 5, uint16 in v7.3), the size
// counting code units; a pair along the string dimension reads as one
// character.
func TestMATLABCharsOutsideBMP(t *testing.T) {
	var got [2]map[string]*npyio.Array
	for i, dir := range []string{"v7", "v7.3"} {
		t.Run(dir, func(t *testing.T) {
			name := dir + "/char_unicode"
			_, arrs, _ := checkFixture(t, name+".mat", name+".json")
			got[i] = arrs
			// As MAT.jl's test states them.
			for k, want := range map[string][]string{
				"c": {"Music symbol: 𝄞  | Gothic letter: 𐍈"},
				"d": {"Mixed planes: A Ω Ж 中 😀 🚀 🧬"},
				"e": {"AB", "😀"},
			} {
				if a := arrs[k]; a == nil || !reflect.DeepEqual(ucs4Strings(a), want) {
					t.Errorf("%s: %q, want %q", k, ucs4Strings(a), want)
				}
			}
		})
	}
	for k, a := range got[0] {
		if b := got[1][k]; b == nil || !bytes.Equal(a.Data, b.Data) || !reflect.DeepEqual(a.Header.Shape, b.Header.Shape) {
			t.Errorf("%s: v7 and v7.3 differ", k)
		}
	}
}

// TestMATLABManyStructFields: MATLAB stores the field names of a struct
// with many fields (526 and 4093 here) as a reference to a dataset of
// names in #refs#, not in the MATLAB_fields attribute itself.
func TestMATLABManyStructFields(t *testing.T) {
	vars, arrs, f := checkFixture(t, "v7.3/test_basic_v73.mat.gz", "v7.3/test_basic_v73.json.gz")
	for _, c := range []struct {
		name   string
		prefix string
		n      int
		value  float64
	}{{"struct_large", "field", 526, 1}, {"struct_even_larger", "s", 4093, 2}} {
		n := 0
		for path := range vars {
			if strings.HasPrefix(path, c.name+".") {
				n++
			}
		}
		if n != c.n {
			t.Errorf("%s: %d fields, want %d", c.name, n, c.n)
		}
		for _, i := range []int{1, c.n / 2, c.n} {
			p := fmt.Sprintf("%s.%s%d", c.name, c.prefix, i)
			if a := arrs[p]; a == nil || len(a.Data) != 8 || view[float64](a.Data)[0] != c.value {
				t.Errorf("%s: %v, want %v", p, a, c.value)
			}
		}
		if vi := varInfo(t, f, c.name); vi.Class != NameStruct || !reflect.DeepEqual(vi.Dims, []int{1, 1}) {
			t.Errorf("Variables: %+v", vi)
		}
	}
}

// TestMATLABStructNoFields: struct() in a v7.3 file (a MATLAB_empty
// dataset of class struct holding its size [1 1]) reads as a 1x1 struct
// without fields, as the same variable in the -v7 file does.
func TestMATLABStructNoFields(t *testing.T) {
	for _, name := range []string{"v7.3/test_basic_v73.mat.gz", "../objects/test_basic_v7.mat"} {
		t.Run(name, func(t *testing.T) {
			b := readTestdata(t, "matlab/"+name)
			f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
			if err != nil {
				t.Fatal(err)
			}
			vi := varInfo(t, f, "struct_no_fields")
			if vi.Class != NameStruct || !reflect.DeepEqual(vi.Dims, []int{1, 1}) {
				t.Errorf("Variables: %+v", vi)
			}
			var seen []*Var
			if err := f.WalkVariables([]string{"struct_no_fields", "struct_empty"}, func(path string, v *Var) error {
				seen = append(seen, v)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			want := map[string][]int{"struct_no_fields": {1, 1, 0}, "struct_empty": {0, 0}}
			if len(seen) != 2 {
				t.Fatalf("%d arrays, want 2", len(seen))
			}
			for _, v := range seen {
				if !v.Marker || v.Class != NameStruct || !reflect.DeepEqual(v.Header.Shape, want[v.Path]) {
					t.Errorf("%s: marker %v class %s shape %v, want a struct marker of shape %v", v.Path, v.Marker, v.Class, v.Header.Shape, want[v.Path])
				}
			}
		})
	}
	// The whole -v7 file, against scipy.
	checkFixture(t, "../objects/test_basic_v7.mat", "v7/test_basic_v7.json.gz")
}

// TestMATLABFixturesDamaged: truncated and bit-flipped copies of the files
// above open and walk to values or to an error of this package, never a
// panic.
func TestMATLABFixturesDamaged(t *testing.T) {
	files := []string{"v6/sparse.mat", "v7/sparse.mat", "v7.3/sparse.mat", "v7/char_unicode.mat",
		"v7.3/char_unicode.mat", "../objects/test_basic_v7.mat", "v7.3/test_basic_v73.mat.gz"}
	opts := &Options{MaxVariableBytes: 64 << 20, MaxSparseBytes: 64 << 20}
	for _, name := range files {
		b := readTestdata(t, "matlab/"+name)
		// A sample in make test; every position of the long run
		// (fixtures.Long) in make fuzz.
		cuts, flips := 16, 32
		switch big := len(b) > 1<<20; {
		case big && testing.Short():
			continue // thousands of datasets: 0.3 s a walk, several under -race
		case big && fixtures.Long():
			cuts, flips = 4, 12
		case big:
			cuts, flips = 1, 3
		case fixtures.Long():
			cuts, flips = 64, 128
		case testing.Short():
			cuts, flips = 8, 16
		}
		check := func(what string, d []byte) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s %s: panic: %v", name, what, r)
				}
			}()
			err := walkAll(d, opts)
			if err != nil && !strings.HasPrefix(err.Error(), "matfile: ") {
				t.Errorf("%s %s: error without the package prefix: %v", name, what, err)
			}
		}
		for i := 0; i < cuts; i++ {
			n := len(b) * i / cuts
			check(fmt.Sprintf("cut at %d", n), b[:n])
		}
		d := make([]byte, len(b))
		for i := 0; i < flips; i++ {
			copy(d, b)
			// deterministic spread of positions and bits (past the 128-byte
			// header text, which is not parsed)
			pos := 116 + (i*7919)%(len(b)-116)
			d[pos] ^= 1 << (i % 8)
			check(fmt.Sprintf("bit %d of byte %d flipped", i%8, pos), d)
		}
	}
}

// l5Char is a Level 5 char variable as stored: size, storage type, data.
type l5Char struct {
	dims []int
	typ  DataType
	data []byte
}

// level5Chars returns the char variables of a Level 5 file as stored.
func level5Chars(t *testing.T, b []byte) map[string]l5Char {
	t.Helper()
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil || f.l5 == nil {
		t.Fatalf("not a Level 5 file: %v", err)
	}
	out := map[string]l5Char{}
	for _, e := range f.l5.elems {
		c, err := f.l5.load(e, false)
		if err != nil {
			t.Fatal(err)
		}
		p := f.l5.parser(e, "")
		h, err := p.header(c)
		if err != nil {
			t.Fatal(err)
		}
		if h.class != ClassChar {
			continue
		}
		d, _, err := p.next(h.name, c, h.pos, "character data")
		if err != nil {
			t.Fatal(err)
		}
		out[h.name] = l5Char{dims: h.dims, typ: d.typ, data: d.data}
	}
	return out
}

// TestWriteMATLABChars: MATLAB's char_unicode variables, read and written
// back (whole, streamed in batches of a row, and of unknown row count),
// are stored as MATLAB stored them: in v7.3 the same uint16 datasets
// (MATLAB_class char, MATLAB_int_decode 2), in Level 5 the same size,
// storage type (miUTF8 for ASCII text, miUTF16 beyond) and bytes. The
// 3x8x2 array whose pairs run along its second dimension reads as strings
// with lone surrogates, and is written back unchanged.
func TestWriteMATLABChars(t *testing.T) {
	src := map[string][]byte{}
	var arrays []npyio.NamedArray
	for _, name := range []string{"v7/char_unicode.mat", "v7.3/char_unicode.mat"} {
		src[name] = readTestdata(t, "matlab/"+name)
	}
	_, arrs, _ := walkMemory(t, "v7.3", src["v7.3/char_unicode.mat"])
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		arrays = append(arrays, npyio.NamedArray{Key: k, Array: arrs[k]})
	}
	write := func(ver, mode string) []byte {
		m := &wMem{}
		w, err := NewWriter(m, &WriteOptions{Version: ver, Created: wFixedTime, TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		for _, na := range arrays {
			a := na.Array
			if mode == "whole" {
				if err := w.WriteArray(na.Key, a); err != nil {
					t.Fatalf("%s: %v", na.Key, err)
				}
				continue
			}
			h := *a.Header
			h.FortranOrder = false
			h.Shape = append([]int(nil), h.Shape...)
			if mode == "unknown" {
				h.Shape[0] = -1
			}
			vw, err := w.CreateVariable(na.Key, &h)
			if err != nil {
				t.Fatal(err)
			}
			data := a.CData()
			rs := len(data) / a.Header.Shape[0]
			for off := 0; off < len(data); off += rs {
				if err := vw.Write(data[off : off+rs]); err != nil {
					t.Fatalf("%s: %v", na.Key, err)
				}
			}
			if err := vw.Close(); err != nil {
				t.Fatalf("%s: %v", na.Key, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return m.b
	}
	matlab5 := level5Chars(t, src["v7/char_unicode.mat"])
	matlab73, err := hdf5.Open(bytes.NewReader(src["v7.3/char_unicode.mat"]), int64(len(src["v7.3/char_unicode.mat"])), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"whole", "stream", "unknown"} {
		for _, ver := range []string{"6", "7"} {
			got := level5Chars(t, write(ver, mode))
			for k, want := range matlab5 {
				g := got[k]
				if !reflect.DeepEqual(g.dims, want.dims) || g.typ != want.typ || !bytes.Equal(g.data, want.data) {
					t.Errorf("v%s %s %s: %v %s % x, MATLAB %v %s % x", ver, mode, k, g.dims, g.typ, g.data, want.dims, want.typ, want.data)
				}
			}
		}
		b := write("7.3", mode)
		h, err := hdf5.Open(bytes.NewReader(b), int64(len(b)), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, na := range arrays {
			var ds [2]*hdf5.Dataset
			var raw [2][]byte
			var attrs [2]string
			for i, f := range []*hdf5.File{matlab73, h} {
				o, err := f.Root().Open(na.Key)
				if err != nil {
					t.Fatal(err)
				}
				ds[i] = o.(*hdf5.Dataset)
				if raw[i], err = ds[i].ReadAll(); err != nil {
					t.Fatal(err)
				}
				c, _ := strAttr(ds[i], AttrClass)
				dec, _ := intAttr(ds[i], AttrIntDecode)
				attrs[i] = fmt.Sprintf("%s %d %s", c, dec, ds[i].Type())
			}
			if attrs[0] != attrs[1] || !reflect.DeepEqual(ds[0].Shape(), ds[1].Shape()) || !bytes.Equal(raw[0], raw[1]) {
				t.Errorf("v7.3 %s %s: %s %v % x, MATLAB %s %v % x", mode, na.Key, attrs[1], ds[1].Shape(), raw[1], attrs[0], ds[0].Shape(), raw[0])
			}
		}
	}
}
