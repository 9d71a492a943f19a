package matfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/npyflow/npyflow/npyio"
)

// expected is one member of a fixture's JSON expectations (see
// testdata/expect.py).
type expected struct {
	DType   string   `json:"dtype"`
	Shape   []int    `json:"shape"`
	Hex     string   `json:"hex"`
	SHA256  string   `json:"sha256"`
	Strings []string `json:"strings"`
	Marker  string   `json:"marker"`
	Sparse  bool     `json:"sparse"`
	Class   string   `json:"class"`
}

func loadExpected(t *testing.T, name string) map[string]expected {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Members map[string]expected `json:"members"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Members
}

// readAll walks a file and returns its arrays by path.
func readAll(t *testing.T, name string, opts *Options) (map[string]*Var, map[string]*npyio.Array, *File) {
	t.Helper()
	f, err := OpenFile(filepath.Join("testdata", name), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	vars := map[string]*Var{}
	arrs := map[string]*npyio.Array{}
	var order []string
	err = f.Walk(func(path string, v *Var) error {
		if _, dup := vars[path]; dup {
			t.Errorf("%s: path %s twice", name, path)
		}
		a, err := v.Array()
		if err != nil {
			return err
		}
		if int64(len(a.Data)) != v.Header.DataSize() {
			t.Errorf("%s: %s: %d bytes of data for %d", name, path, len(a.Data), v.Header.DataSize())
		}
		vars[path], arrs[path] = v, a
		order = append(order, path)
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return vars, arrs, f
}

// ucs4Strings decodes a U array's elements in storage order, trailing NULs
// removed as numpy does.
func ucs4Strings(a *npyio.Array) []string {
	n := int(a.Header.Count())
	w := a.DType.Size / 4
	cells := view[uint32](a.Data)
	out := make([]string, n)
	for i := 0; i < n; i++ {
		var sb strings.Builder
		row := cells[i*w : (i+1)*w]
		end := len(row)
		for end > 0 && row[end-1] == 0 {
			end--
		}
		for _, c := range row[:end] {
			if c < utf8.RuneSelf {
				sb.WriteByte(byte(c))
			} else {
				sb.WriteRune(rune(c))
			}
		}
		out[i] = sb.String()
	}
	return out
}

// checkAgainst compares every member of a file with its expectations.
// logicalAsU1: the producer's reader returns logical data as uint8.
func checkAgainst(t *testing.T, file string, exp map[string]expected, vars map[string]*Var, arrs map[string]*npyio.Array) {
	t.Helper()
	var want, got []string
	for k := range exp {
		want = append(want, k)
	}
	for k := range vars {
		got = append(got, k)
	}
	sort.Strings(want)
	sort.Strings(got)
	if !reflect.DeepEqual(want, got) {
		t.Errorf("%s: paths\n got %q\nwant %q", file, got, want)
	}
	for path, e := range exp {
		v, a := vars[path], arrs[path]
		if v == nil {
			continue
		}
		if e.Marker != "" {
			if !v.Marker || v.Class != e.Marker {
				t.Errorf("%s: %s: want a %s marker, got class %s marker=%v", file, path, e.Marker, v.Class, v.Marker)
			}
			if !reflect.DeepEqual(v.Header.Shape[:len(e.Shape)], e.Shape) {
				t.Errorf("%s: %s: marker shape %v, want %v", file, path, v.Header.Shape, e.Shape)
			}
			continue
		}
		if v.Marker {
			t.Errorf("%s: %s: unexpected marker", file, path)
			continue
		}
		if !reflect.DeepEqual(v.Header.Shape, e.Shape) && !(len(e.Shape) == 0 && len(v.Header.Shape) == 0) {
			t.Errorf("%s: %s: shape %v, want %v", file, path, v.Header.Shape, e.Shape)
		}
		if e.Sparse != v.Sparse {
			t.Errorf("%s: %s: sparse %v, want %v", file, path, v.Sparse, e.Sparse)
		}
		if e.Class != "" && e.Class != v.Class {
			t.Errorf("%s: %s: class %s, want %s", file, path, v.Class, e.Class)
		}
		gotDT := a.DType.WithOrder(npyio.LittleEndian).TypeStr()
		wantDT := e.DType
		if wantDT == "|u1" && v.Class == NameLogical {
			wantDT = "|b1" // the producer's reader returns logical as its uint8 storage
		}
		if gotDT != wantDT {
			t.Errorf("%s: %s: dtype %s, want %s", file, path, gotDT, wantDT)
			continue
		}
		if e.Strings != nil || (a.DType.Kind == npyio.Unicode && e.Hex == "") {
			gs := ucs4Strings(a)
			if len(e.Strings) == 0 && len(gs) == 0 {
				continue
			}
			if !reflect.DeepEqual(gs, e.Strings) {
				t.Errorf("%s: %s: strings %q, want %q", file, path, gs, e.Strings)
			}
			continue
		}
		if e.SHA256 != "" {
			if sum := sha256.Sum256(a.Data); hex.EncodeToString(sum[:]) != e.SHA256 {
				t.Errorf("%s: %s: sha256 of the data differs", file, path)
			}
			continue
		}
		want, err := hex.DecodeString(e.Hex)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Data, want) {
			t.Errorf("%s: %s: data\n got %x\nwant %x", file, path, a.Data, want)
		}
	}
}

func TestScipyFixtures(t *testing.T) {
	for _, name := range []string{"scipy_v6", "scipy_v7", "scipy_be_v6", "scipy_be_v7"} {
		t.Run(name, func(t *testing.T) {
			exp := loadExpected(t, name+".json")
			vars, arrs, f := readAll(t, name+".mat", nil)
			checkAgainst(t, name, exp, vars, arrs)
			if f.Version() != "5" {
				t.Errorf("version %q", f.Version())
			}
			wantFmt := map[string]string{"scipy_v6": "-v6", "scipy_v7": "-v7", "scipy_be_v6": "-v6", "scipy_be_v7": "-v7"}[name]
			if f.SaveFormat() != wantFmt {
				t.Errorf("save format %q, want %q", f.SaveFormat(), wantFmt)
			}
			if len(f.Warnings()) != 0 {
				t.Errorf("warnings: %v", f.Warnings())
			}
		})
	}
}

func TestMATLABLevel5(t *testing.T) {
	for _, name := range []string{"matlab/v7/struct", "matlab/v7/cell"} {
		t.Run(name, func(t *testing.T) {
			exp := loadExpected(t, name+".json")
			vars, arrs, f := readAll(t, name+".mat", nil)
			checkAgainst(t, name, exp, vars, arrs)
			if f.SaveFormat() != "-v7" || !strings.Contains(f.Description(), "GLNXA64") {
				t.Errorf("format %s, description %q", f.SaveFormat(), f.Description())
			}
		})
	}
}

func TestOctaveFixtures(t *testing.T) {
	for _, name := range []string{"octave_v6", "octave_v7"} {
		t.Run(name, func(t *testing.T) {
			exp := loadExpected(t, name+".json")
			vars, arrs, _ := readAll(t, name+".mat", nil)
			checkAgainst(t, name, exp, vars, arrs)
		})
	}
}

// TestOctaveQuirks: non-ASCII chars (outside the BMP too), and the logical sparse Octave 7
// writes as a uint8 logical array holding ir/jc/pr (scipy 1.10 refuses
// the file; Octave 7 loads it back as a wrong full matrix). The expected
// values are the ones given to Octave in gen_octave.m.
func TestOctaveQuirks(t *testing.T) {
	for _, name := range []string{"octave_quirks_v6", "octave_quirks_v7"} {
		t.Run(name, func(t *testing.T) {
			vars, arrs, _ := readAll(t, name+".mat", nil)
			exp := map[string]expected{
				"su":  {DType: "<U7", Shape: []int{1}, Strings: []string{"héllo €"}},
				"spb": {DType: "|b1", Shape: []int{2, 3}, Hex: "010000010000", Sparse: true, Class: NameLogical},
				// outside the BMP: UTF-16 pairs (the width counts units)
				"se":  {DType: "<U4", Shape: []int{1}, Strings: []string{"a😀b"}},
				"se2": {DType: "<U7", Shape: []int{1}, Strings: []string{"𝄞 🚀🚀"}},
			}
			checkAgainst(t, name, exp, vars, arrs)
		})
	}
}

func TestHDF5StorageFixtures(t *testing.T) {
	exp := loadExpected(t, "h5s_v73.json")
	vars, arrs, f := readAll(t, "h5s_v73.mat", nil)
	checkAgainst(t, "h5s_v73", exp, vars, arrs)
	if f.Version() != "7.3" || f.SaveFormat() != "-v7.3" {
		t.Errorf("version %q %q", f.Version(), f.SaveFormat())
	}
	if len(f.Warnings()) != 0 {
		t.Errorf("warnings: %v", f.Warnings())
	}
}

func TestMATLABV73(t *testing.T) {
	for _, name := range []string{"matlab/v7.3/struct", "matlab/v7.3/cell"} {
		t.Run(name, func(t *testing.T) {
			exp := loadExpected(t, name+".json")
			vars, arrs, f := readAll(t, name+".mat", nil)
			checkAgainst(t, name, exp, vars, arrs)
			if f.Version() != "7.3" || !strings.Contains(f.Description(), "GLNXA64") {
				t.Errorf("version %s, description %q", f.Version(), f.Description())
			}
		})
	}
}
