package matfile

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/npyflow/npyflow/npyio"
)

// TestWriteRoundTrip converts testdata/written/src.npz (written by numpy)
// to every MAT version (whole and streamed), reads the result back with this package's reader
// and checks every array: the same dtype (float16 becomes float32,
// datetime64/timedelta64 float64 seconds, strings U), MATLAB's shape and
// the same values in column-major order, computed here by plain index
// arithmetic from numpy's C-order data.
func TestWriteRoundTrip(t *testing.T) {
	src := filepath.Join("testdata", "written", "src.npz")
	z, err := npyio.OpenNPZ(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	want := map[string]*npyio.Array{}
	for _, m := range z.Members {
		a, err := m.ReadArray()
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range wFlatten(t, m.Key, a) {
			want[k] = v
		}
	}
	for _, ver := range []string{"6", "7", "7.3"} {
		for _, stream := range []bool{false, true} {
			out := filepath.Join(t.TempDir(), "rt.mat")
			func() {
				if stream {
					defer wTinyChunks()()
				}
				wWriteNPZ(t, src, out, ver, stream, 3)
			}()
			got, warns, err := ReadArrays(out, nil)
			if err != nil {
				t.Fatalf("v%s: %v", ver, err)
			}
			if len(warns) > 0 {
				t.Errorf("v%s: warnings %v", ver, warns)
			}
			seen := map[string]bool{}
			for _, g := range got {
				seen[g.Key] = true
				w, ok := want[g.Key]
				if !ok {
					t.Errorf("v%s: unexpected array %q", ver, g.Key)
					continue
				}
				wCompareArray(t, "v"+ver+" "+g.Key, w, g.Array)
			}
			if len(seen) < 40 {
				t.Errorf("v%s: only %d arrays read back", ver, len(seen))
			}
			t.Logf("v%s stream=%v: %d arrays compared", ver, stream, len(seen))
			for k := range want {
				if !seen[k] {
					t.Errorf("v%s stream=%v: %q missing", ver, stream, k)
				}
			}
		}
	}
}

// wFlatten returns the MATLAB arrays one numpy array becomes, keyed by
// path, as Fortran-order npyio arrays built by index arithmetic.
func wFlatten(t *testing.T, key string, a *npyio.Array) map[string]*npyio.Array {
	out := map[string]*npyio.Array{}
	data := a.CData()
	var walk func(path string, dt *npyio.DType, off int, sub []int, top bool)
	walk = func(path string, dt *npyio.DType, off int, sub []int, top bool) {
		if dt.Kind == npyio.Struct {
			for _, f := range dt.Fields {
				walk(path+"."+f.Name, f.Type, off+f.Offset, f.Shape, false)
			}
			return
		}
		full := append(append([]int(nil), a.Header.Shape...), sub...)
		subN := 1
		for _, d := range sub {
			subN *= d
		}
		n := 1
		for _, d := range full {
			n *= d
		}
		elem := func(c int) []byte { // C index over full
			p := (c/subN)*a.DType.Size + off + (c%subN)*dt.Size
			return data[p : p+dt.Size]
		}
		dims := full
		switch {
		case len(full) == 0:
			dims = []int{1, 1}
		case len(full) == 1 && top:
			dims = []int{1, full[0]}
		case len(full) == 1:
			dims = []int{full[0], 1}
		}
		var odt *npyio.DType
		conv := func(b []byte) []byte { return b }
		switch dt.Kind {
		case npyio.Unicode, npyio.Bytes:
			// strings, one per row of the char matrix: numpy's strings
			// padded with spaces to the width; MATLAB's width counts
			// UTF-16 units, so a string with characters outside the BMP
			// may widen all: the others get a space per unit they lack.
			w := dt.Chars()
			strs := make([]string, n)
			units := make([]int, n)
			extra := 0
			for c := 0; c < n; c++ {
				var s string
				if dt.Kind == npyio.Bytes {
					s = strings.TrimRight(string(elem(c)), "\x00")
				} else {
					s = wDecodeU(elem(c))
				}
				strs[c] = s
				for _, r := range s {
					units[c] += utf16.RuneLen(r)
				}
				extra = max(extra, units[c]-w)
			}
			odt, _ = npyio.NewString(npyio.Unicode, w+extra)
			var buf []byte
			for c, s := range strs {
				s += strings.Repeat(" ", w+extra-units[c])
				k := 0
				for _, r := range s {
					buf = wNE.AppendUint32(buf, uint32(r))
					k++
				}
				for ; k < w+extra; k++ {
					buf = wNE.AppendUint32(buf, 0)
				}
			}
			w += extra
			shape := full
			if len(shape) == 0 {
				shape = []int{1}
			}
			// Fortran order of the string array
			fo := wToF(buf, shape, 4*w)
			out[path] = &npyio.Array{Header: &npyio.Header{DType: odt, Shape: shape, FortranOrder: true}, DType: odt, Data: fo}
			return
		case npyio.Float:
			odt = dt
			if dt.Size == 2 {
				odt = npyio.Float32Type
				conv = func(b []byte) []byte {
					return wNE.AppendUint32(nil, math.Float32bits(npyio.HalfToFloat32(wNE.Uint16(b))))
				}
			}
		case npyio.Datetime, npyio.Timedelta:
			odt = npyio.Float64Type
			l := &wLeaf{src: dt}
			l.tnum, l.tden, _ = wTimeRatio(dt)
			conv = func(b []byte) []byte {
				return wNE.AppendUint64(nil, math.Float64bits(l.seconds(int64(wNE.Uint64(b)))))
			}
		default:
			odt = dt
		}
		var buf []byte
		for c := 0; c < n; c++ {
			buf = append(buf, conv(elem(c))...)
		}
		fo := wToF(buf, full, odt.Size)
		out[path] = &npyio.Array{Header: &npyio.Header{DType: odt, Shape: dims, FortranOrder: true}, DType: odt, Data: fo}
	}
	walk(key, a.DType, 0, nil, true)
	return out
}

func wDecodeU(b []byte) string {
	var r []rune
	for i := 0; i+4 <= len(b); i += 4 {
		r = append(r, rune(wNE.Uint32(b[i:])))
	}
	for len(r) > 0 && r[len(r)-1] == 0 { // numpy's padding; a NUL before it is kept
		r = r[:len(r)-1]
	}
	return string(r)
}

// wToF reorders C-order elements of the given shape into Fortran order.
func wToF(c []byte, shape []int, esz int) []byte {
	n := len(c) / max(esz, 1)
	f := make([]byte, len(c))
	idx := make([]int, len(shape))
	for i := 0; i < n; i++ {
		// C index i -> multi-index
		r := i
		for k := len(shape) - 1; k >= 0; k-- {
			idx[k] = r % shape[k]
			r /= shape[k]
		}
		fi, st := 0, 1
		for k := 0; k < len(shape); k++ {
			fi += idx[k] * st
			st *= shape[k]
		}
		copy(f[fi*esz:], c[i*esz:(i+1)*esz])
	}
	return f
}

func wCompareArray(t *testing.T, name string, w, g *npyio.Array) {
	t.Helper()
	if !g.DType.Equal(w.DType) {
		t.Errorf("%s: dtype %s, want %s", name, g.DType, w.DType)
		return
	}
	if !wEqualInts(g.Header.Shape, w.Header.Shape) {
		t.Errorf("%s: shape %v, want %v", name, g.Header.Shape, w.Header.Shape)
		return
	}
	gd := g.Data
	if !g.Header.FortranOrder && len(g.Header.Shape) > 1 {
		gd = wToF(gd, g.Header.Shape, g.DType.Size)
	}
	if !bytes.Equal(gd, w.Data) {
		t.Errorf("%s: values differ:\n got % x\nwant % x", name, gd[:min(len(gd), 48)], w.Data[:min(len(w.Data), 48)])
	}
}

func wEqualInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
