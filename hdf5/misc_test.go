package hdf5

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// miscObject holds the keys gen_misc.py adds to gen_h5py.py's format.
type miscObject struct {
	Kind          string            `json:"kind"`
	Fields        map[string]string `json:"fields"`         // field (a.b when nested) -> h5py's values, raw
	StoredMembers []string          `json:"stored_members"` // compound members in the order HDF5 stores them
	Title         string            `json:"title"`
	Pipeline      []struct {
		ID     int      `json:"id"`
		Flags  int      `json:"flags"`
		Params []uint32 `json:"params"`
		Name   string   `json:"name"`
	} `json:"pipeline"`
	H5pyReads  bool     `json:"h5py_reads"`
	ChunkMasks []uint32 `json:"chunk_masks"`
	DType      string   `json:"dtype"`
	Raw        string   `json:"raw"`
	Shape      []uint64 `json:"shape"`
}

func loadMisc(t *testing.T, name string) map[string]miscObject {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]miscObject
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// checkFixture opens testdata/name.h5 and compares every object with
// h5py's reading in name.json (see TestFixtures), skipping the paths in
// skip.
func checkFixture(t *testing.T, name string, skip ...string) *File {
	t.Helper()
	exp := loadExpect(t, name+".json")
	f, err := OpenFile(filepath.Join("testdata", name+".h5"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	var paths []string
	for p := range exp {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if contains(skip, p) {
			continue
		}
		t.Run(p, func(t *testing.T) { checkObject(t, f, p, exp[p]) })
	}
	return f
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fieldAt finds a (possibly nested, "a.b") field of a structured dtype
// and its offset from the start of the record.
func fieldAt(dt *npyio.DType, name string) (*npyio.Field, int, bool) {
	first, rest, nested := strings.Cut(name, ".")
	for i := range dt.Fields {
		f := &dt.Fields[i]
		if f.Name != first {
			continue
		}
		if !nested {
			return f, f.Offset, true
		}
		g, off, ok := fieldAt(f.Type, rest)
		return g, f.Offset + off, ok
	}
	return nil, 0, false
}

// checkFields compares each field's values, cut out of the read records
// at the offsets of the reader's dtype, with h5py's values of that field.
func checkFields(t *testing.T, ds *Dataset, fields map[string]string) {
	t.Helper()
	dt, err := ds.DType()
	if err != nil {
		t.Fatal(err)
	}
	data, err := ds.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for name, b64 := range fields {
		want := unb64(t, b64)
		f, off, ok := fieldAt(dt, name)
		if !ok {
			t.Errorf("field %s missing from dtype %s", name, dt)
			continue
		}
		size := f.Size()
		var got []byte
		for r := 0; r+dt.Size <= len(data); r += dt.Size {
			got = append(got, data[r+off:r+off+size]...)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("field %s: got %x, want %x", name, got, want)
		}
	}
}

// TestCompoundMemberOrder reads compounds whose members h5py stored out
// of offset order (b at 4 before a at 0; nested; chunked; scalar): every
// field holds h5py's values, and the dtype lists fields in offset order.
func TestCompoundMemberOrder(t *testing.T) {
	f := checkFixture(t, "compound")
	exp := loadMisc(t, "compound.json")
	for _, p := range []string{"/ooo", "/nested", "/chunked", "/scalar"} {
		t.Run("fields"+p, func(t *testing.T) {
			e := exp[p]
			if len(e.Fields) == 0 {
				t.Fatal("no field expectations")
			}
			o, err := f.OpenPath(p)
			if err != nil {
				t.Fatal(err)
			}
			ds := o.(*Dataset)
			var stored []string
			for _, m := range ds.Type().Members {
				stored = append(stored, m.Name)
			}
			if !reflect.DeepEqual(stored, e.StoredMembers) {
				t.Errorf("Type().Members in order %v, want the stored order %v", stored, e.StoredMembers)
			}
			checkFields(t, ds, e.Fields)
		})
	}
	// The stored type describes members in stored order with their offsets.
	o, _ := f.OpenPath("/ooo")
	if got, want := o.(*Dataset).Type().String(), "compound {b@4: i32 LE, a@0: i32 LE}"; got != want {
		t.Errorf("Type %q, want %q", got, want)
	}
	a, err := o.Attr("rec")
	if err != nil {
		t.Fatal(err)
	}
	dt, err := a.DType()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := dt.String(), "[('a', '<i4'), ('b', '<i4')]"; got != want {
		t.Errorf("attribute dtype %s, want %s", got, want)
	}
}

func TestCompoundOverlapRefused(t *testing.T) {
	i4 := &Datatype{Class: ClassFixedPoint, Size: 4, Signed: true}
	ct := &Datatype{Class: ClassCompound, Size: 8, Members: []Member{
		{Name: "a", Offset: 0, Type: i4}, {Name: "b", Offset: 2, Type: i4}}}
	if _, _, err := ct.NumpyDType(); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("overlapping members: %v", err)
	}
}

// TestStringPadding reads fixed-length strings stored NULLTERM, NULLPAD and
// SPACEPAD with their bytes unconverted, as h5py does through HDF5's
// conversion: the data bytes, ReadStrings, a compound with padded string
// and string-array members, and a SPACEPAD attribute.
func TestStringPadding(t *testing.T) {
	f := checkFixture(t, "strings")
	exp := loadMisc(t, "strings.json")
	o, err := f.OpenPath("/compound")
	if err != nil {
		t.Fatal(err)
	}
	checkFields(t, o.(*Dataset), exp["/compound"].Fields)
	// Box reads convert as row reads do.
	o, _ = f.OpenPath("/spacepad_chunked")
	ds := o.(*Dataset)
	want := unb64(t, loadExpect(t, "strings.json")["/spacepad_chunked"].Raw)
	box := make([]byte, 2*3*5)
	if err := ds.ReadSlab([]uint64{1, 2}, []uint64{3, 5}, box); err != nil {
		t.Fatal(err)
	}
	var wantBox []byte
	for r := 1; r < 3; r++ {
		wantBox = append(wantBox, want[(r*6+2)*5:(r*6+5)*5]...)
	}
	if !bytes.Equal(box, wantBox) {
		t.Errorf("slab %q, want %q", box, wantBox)
	}
	o, _ = f.OpenPath("/spacepad")
	a, err := o.Attr("title")
	if err != nil {
		t.Fatal(err)
	}
	if s, err := a.String(); err != nil || s != exp["/spacepad"].Title {
		t.Errorf("SPACEPAD attribute %q (%v), want %q", s, err, exp["/spacepad"].Title)
	}
}

func TestFixString(t *testing.T) {
	cases := []struct {
		in   string
		pad  int
		want string
	}{
		{"ab\x00cd", PadNullTerm, "ab\x00\x00\x00"},
		{"abcde", PadNullTerm, "abcde"},
		{"ab\x00cd", PadNull, "ab\x00cd"},
		{"ab   ", PadSpace, "ab\x00\x00\x00"},
		{"     ", PadSpace, "\x00\x00\x00\x00\x00"},
		{"a b \x00", PadSpace, "a b \x00"},
		{"ab\x00  ", PadSpace, "ab\x00\x00\x00"},
	}
	for _, c := range cases {
		b := []byte(c.in)
		fixString(b, c.pad)
		if string(b) != c.want {
			t.Errorf("fixString(%q, %s) = %q, want %q", c.in, padName(c.pad), b, c.want)
		}
	}
}

// TestUnsupportedFilter reads h5py-written datasets with a filter this
// package does not decode: an unregistered id whose chunks claim it (the
// file's /zfp, lossy through Debian's plugin, is decoded and read as
// h5py reads it). Each is refused before any data
// with an *UnsupportedFilterError naming the dataset and the filter, its
// metadata stay readable, and the file's other datasets read as h5py
// reads them, including those whose optional filter the library skipped
// in every chunk (each chunk index kind).
func TestUnsupportedFilter(t *testing.T) {
	refused := map[string]map[string]UnsupportedFilterError{
		"filters": {
			"/direct": {ID: 40000},
		},
		"filters_latest": {"/direct_ext": {ID: 40000}},
	}
	for name, bad := range refused {
		t.Run(name, func(t *testing.T) {
			var skip []string
			for p := range bad {
				skip = append(skip, p)
			}
			f := checkFixture(t, name, skip...)
			exp := loadMisc(t, name+".json")
			for p, want := range bad {
				t.Run(p, func(t *testing.T) {
					e := exp[p]
					if e.H5pyReads {
						t.Fatalf("h5py reads %s", p)
					}
					o, err := f.OpenPath(p)
					if err != nil {
						t.Fatal(err)
					}
					ds := o.(*Dataset)
					want.File, want.Dataset = f.name, p
					check := func(what string, err error) {
						t.Helper()
						var fe *UnsupportedFilterError
						if !errors.As(err, &fe) || !errors.Is(err, ErrUnsupported) {
							t.Fatalf("%s: %v, want an UnsupportedFilterError", what, err)
						}
						if *fe != want {
							t.Errorf("%s: %+v, want %+v", what, *fe, want)
						}
					}
					check("CheckFilters", ds.CheckFilters())
					_, err = ds.ReadAll()
					check("ReadAll", err)
					_, err = ds.NewElementReader(1 << 20)
					check("NewElementReader", err)
					_, err = ds.NewRowReader(1)
					check("NewRowReader", err)
					// The metadata are h5py's.
					if !reflect.DeepEqual(ds.Shape(), e.Shape) {
						t.Errorf("shape %v, want %v", ds.Shape(), e.Shape)
					}
					if e.DType != "" {
						dt, err := ds.DType()
						if err != nil || dt.String() != e.DType {
							t.Errorf("dtype %v (%v), want %s", dt, err, e.DType)
						}
					}
					checkPipeline(t, ds, e)
				})
			}
			for p, e := range exp {
				if _, ok := bad[p]; ok || e.Kind != "dataset" {
					continue
				}
				o, err := f.OpenPath(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := o.(*Dataset).CheckFilters(); err != nil {
					t.Errorf("%s: CheckFilters: %v", p, err)
				}
				checkPipeline(t, o.(*Dataset), e)
			}
		})
	}
}

// checkPipeline compares FilterPipeline with h5py's get_filter.
func checkPipeline(t *testing.T, ds *Dataset, e miscObject) {
	t.Helper()
	got := ds.FilterPipeline()
	if len(got) != len(e.Pipeline) {
		t.Fatalf("%s: pipeline %v, want %d filters", ds.Path(), got, len(e.Pipeline))
	}
	for i, w := range e.Pipeline {
		g := got[i]
		name, reg := RegisteredFilterName(w.ID)
		if g.ID != w.ID || g.Optional != (w.Flags&1 != 0) || !reflect.DeepEqual(g.Params, w.Params) && len(g.Params)+len(w.Params) > 0 ||
			g.Registered != reg || (reg && g.Name != name) {
			t.Errorf("%s: filter %d: %+v, want %+v", ds.Path(), i, g, w)
		}
		if w.ID >= 256 && g.StoredName != w.Name {
			t.Errorf("%s: filter %d: stored name %q, want %q", ds.Path(), i, g.StoredName, w.Name)
		}
		if g.Decodable != filterDecodable(w.ID) {
			t.Errorf("%s: filter %d decodable %v", ds.Path(), i, g.Decodable)
		}
	}
}

func TestFilterInfoString(t *testing.T) {
	cases := []struct {
		f    Filter
		want string
	}{
		{Filter{ID: 1, Params: []uint32{4}, Optional: true}, "deflate(level=4)"},
		{Filter{ID: 2, Params: []uint32{8}}, "shuffle(elemsize=8)"},
		{Filter{ID: 3}, "fletcher32"},
		{Filter{ID: 32001, Params: []uint32{2, 2, 8, 4096, 5, 1, 1}}, "blosc(typesize=8, chunkbytes=4096, clevel=5, shuffle=byte, compressor=lz4)"},
		{Filter{ID: 32008, Params: []uint32{0, 4, 4, 0, 2}}, "bitshuffle(typesize=4, blocksize=0, compression=lz4)"},
		{Filter{ID: 32013, Name: "H5Z-ZFP-1.1.0 (ZFP-1.0.0)", Params: []uint32{1, 2}}, "zfp(1, 2) [lossy]"},
		{Filter{ID: 32017, Params: []uint32{1, 2}}, "sz(1, 2) [lossy, not decodable]"},
		{Filter{ID: 40000, Optional: true, Params: []uint32{7, 8}}, "filter 40000(7, 8) [optional, not decodable]"},
		{Filter{ID: 40001, Name: "mine"}, "mine[40001] [not decodable]"},
	}
	for _, c := range cases {
		fi := describeFilter(c.f)
		if c.f.ID == 32001 || c.f.ID == 32008 {
			fi.Decodable = true // whatever the decoders registered so far
		}
		if got := fi.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
	if e := (&UnsupportedFilterError{File: "f.h5", Dataset: "/d", ID: 32017, Name: "sz", Registered: true, Lossy: true}).Error(); e != "hdf5: f.h5: /d: unsupported: filter 32017 (sz, lossy) is not available" {
		t.Errorf("message %q", e)
	}
}

// BenchmarkFixStrings converts 1 MiB of 16-byte SPACEPAD strings.
func BenchmarkFixStrings(b *testing.B) {
	t := &Datatype{Class: ClassString, Size: 16, Pad: PadSpace}
	fixes, _ := stringFixes(t, 0, nil, 0)
	buf := bytes.Repeat([]byte("abc def         "), 1<<16)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		fixStrings(buf, 16, fixes)
	}
}
