package matfile

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"unicode/utf16"

	"github.com/npyflow/npyflow/npyio"
)

// wExpVar is one variable of testdata/written/expected.json: what
// scipy.io.loadmat, hdf5storage.loadmat and Octave read from the verified
// files (class, MATLAB size, column-major values).
type wExpVar struct {
	Class   string              `json:"class"`
	Size    []int               `json:"size"`
	Complex bool                `json:"complex"`
	Values  []any               `json:"values"` // json.Number, or "NaN", "Inf", "-Inf"
	Imag    []any               `json:"imag"`
	Fields  map[string]*wExpVar `json:"fields"`
}

// TestWrittenMatchesCheckers reads the verified files with this package's
// reader and compares every array with what the independent readers saw.
func TestWrittenMatchesCheckers(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "written", "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Variables map[string]*wExpVar `json:"variables"`
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	flat := map[string]*wExpVar{}
	var walk func(string, *wExpVar)
	walk = func(p string, v *wExpVar) {
		if v.Class == "struct" {
			for n, c := range v.Fields {
				walk(p+"."+n, c)
			}
			return
		}
		flat[p] = v
	}
	for n, v := range doc.Variables {
		walk(n, v)
	}
	for _, file := range []string{"out_v6.mat", "out_v7.mat", "out_v73.mat", "stream_v73.mat"} {
		got, _, err := ReadArrays(filepath.Join("testdata", "written", file), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(flat) {
			t.Errorf("%s: %d arrays, want %d", file, len(got), len(flat))
		}
		for _, g := range got {
			w := flat[g.Key]
			if w == nil {
				t.Errorf("%s: unexpected %q", file, g.Key)
				continue
			}
			wCheckExpected(t, file+" "+g.Key, w, g.Array)
		}
	}
}

func wCheckExpected(t *testing.T, name string, w *wExpVar, a *npyio.Array) {
	t.Helper()
	h := a.Header
	count := 1
	for _, d := range w.Size {
		count *= d
	}
	if w.Class == "char" {
		// strings, one per row: shape = size without the last dimension
		n := w.Size[len(w.Size)-1]
		if a.DType.Kind != npyio.Unicode || a.DType.Chars() != n && count > 0 {
			t.Errorf("%s: dtype %s for a char array of size %v", name, a.DType, w.Size)
			return
		}
		if count == 0 {
			return
		}
		strs := 1
		for _, d := range h.Shape {
			strs *= d
		}
		if strs*n != count {
			t.Errorf("%s: shape %v for a char array of size %v", name, h.Shape, w.Size)
			return
		}
		// value (column-major over size) k: UTF-16 unit k / strs of string
		// k % strs; the strings are in the array's Fortran order, their
		// surrogate pairs joined (one character, a NUL cell at the end).
		units := make([][]uint16, strs)
		for s := range units {
			for c := 0; c < n; c++ {
				switch r := rune(wNE.Uint32(a.Data[(s*n+c)*4:])); {
				case r >= 0xD800 && r < 0xE000: // a lone surrogate: the unit itself
					units[s] = append(units[s], uint16(r))
				case r != 0:
					units[s] = utf16.AppendRune(units[s], r)
				}
			}
			for len(units[s]) < n {
				units[s] = append(units[s], 0)
			}
		}
		for k, v := range w.Values {
			s, c := k%strs, k/strs
			if c >= len(units[s]) || strconv.Itoa(int(units[s][c])) != wNormNum(v) {
				t.Errorf("%s: UTF-16 unit %d is %v, want %s", name, k, units[s], v)
				return
			}
		}
		return
	}
	classes := map[string]string{"double": "f8", "single": "f4", "int8": "i1", "int16": "i2", "int32": "i4", "int64": "i8",
		"uint8": "u1", "uint16": "u2", "uint32": "u4", "uint64": "u8", "logical": "b1"}
	want := classes[w.Class]
	if w.Complex && count > 0 {
		want = map[string]string{"double": "c16", "single": "c8"}[w.Class]
	}
	ts := a.DType.TypeStr()
	if ts[1:] != want {
		t.Errorf("%s: dtype %s, want %s (%s)", name, ts, want, w.Class)
		return
	}
	if !wEqualInts(h.Shape, w.Size) {
		t.Errorf("%s: shape %v, want %v", name, h.Shape, w.Size)
		return
	}
	if !h.FortranOrder && len(h.Shape) > 1 {
		t.Errorf("%s: not column-major", name)
		return
	}
	es := a.DType.Size
	for k := 0; k < count; k++ {
		b := a.Data[k*es : (k+1)*es]
		var parts []string
		switch a.DType.Kind {
		case npyio.Bool:
			parts = []string{strconv.Itoa(int(b[0]))}
		case npyio.Int:
			var v int64
			switch es {
			case 1:
				v = int64(int8(b[0]))
			case 2:
				v = int64(int16(wNE.Uint16(b)))
			case 4:
				v = int64(int32(wNE.Uint32(b)))
			default:
				v = int64(wNE.Uint64(b))
			}
			parts = []string{strconv.FormatInt(v, 10)}
		case npyio.Uint:
			var v uint64
			switch es {
			case 1:
				v = uint64(b[0])
			case 2:
				v = uint64(wNE.Uint16(b))
			case 4:
				v = uint64(wNE.Uint32(b))
			default:
				v = wNE.Uint64(b)
			}
			parts = []string{strconv.FormatUint(v, 10)}
		case npyio.Float, npyio.Complex:
			ps := es
			if a.DType.Kind == npyio.Complex {
				ps = es / 2
			}
			for p := 0; p < es/ps; p++ {
				var f float64
				if ps == 4 {
					f = float64(math.Float32frombits(wNE.Uint32(b[p*ps:])))
				} else {
					f = math.Float64frombits(wNE.Uint64(b[p*ps:]))
				}
				parts = append(parts, wFmtFloat(f))
			}
		}
		want := []string{wNormNum(w.Values[k])}
		if w.Complex {
			want = append(want, wNormNum(w.Imag[k]))
		}
		for i := range want {
			if parts[i] != want[i] {
				t.Errorf("%s: element %d part %d is %s, want %s", name, k, i, parts[i], want[i])
				return
			}
		}
	}
}

func wFmtFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// wNormNum puts a JSON value (a number, or "NaN"/"Inf"/"-Inf") in
// wFmtFloat's form, integers as themselves.
func wNormNum(v any) string {
	n, ok := v.(json.Number)
	if !ok {
		s, _ := v.(string)
		return s
	}
	s := n.String()
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return s
	}
	if _, err := strconv.ParseUint(s, 10, 64); err == nil {
		return s
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return wFmtFloat(f)
	}
	return s
}
