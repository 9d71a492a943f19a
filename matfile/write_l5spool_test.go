package matfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// wSpoolAll makes every Level 5 variable that is not written in place
// spooled, with bands of at most band bytes; it returns the function
// restoring the defaults.
func wSpoolAll(band int64) func() {
	m, b := wL5SpoolMin, wL5SpoolBand
	wL5SpoolMin, wL5SpoolBand = 0, band
	return func() { wL5SpoolMin, wL5SpoolBand = m, b }
}

// TestWriteLevel5Spooled writes testdata/written/src.npz (every dtype,
// complex, char within and beyond the BMP, structs) with every variable
// spooled to a temporary file: the output is byte for byte the in-memory
// path's, for v7 and v6 (char data), whole arrays, streamed batches and
// rows of unknown count, whatever the band size.
func TestWriteLevel5Spooled(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("testdata", "written", "src.npz")
	verified6, err := os.ReadFile(filepath.Join("testdata", "written", "out_v6.mat"))
	if err != nil {
		t.Fatal(err)
	}
	verified7, err := os.ReadFile(filepath.Join("testdata", "written", "out_v7.mat"))
	if err != nil {
		t.Fatal(err)
	}
	modes := []struct {
		name          string
		stream, unkwn bool
		batch         int
	}{{"whole", false, false, 0}, {"batch1", true, false, 1}, {"batch3", true, false, 3}, {"unknown3", true, true, 3}}
	for _, ver := range []string{"6", "7"} {
		for _, m := range modes {
			opts := &WriteOptions{Version: ver, TempDir: tmp}
			ref := filepath.Join(dir, "ref.mat")
			wWriteNPZOpts(t, src, ref, opts, m.stream, m.unkwn, m.batch)
			want, _ := os.ReadFile(ref)
			verified := map[string][]byte{"6": verified6, "7": verified7}[ver]
			if g, w := wLevel5Elements(t, want), wLevel5Elements(t, verified); len(g) != len(w) {
				t.Fatalf("v%s %s: in memory: %d elements, want %d", ver, m.name, len(g), len(w))
			}
			for _, band := range []int64{1, 40, 1 << 20} {
				restore := wSpoolAll(band)
				out := filepath.Join(dir, "spooled.mat")
				wWriteNPZOpts(t, src, out, opts, m.stream, m.unkwn, m.batch)
				restore()
				got, _ := os.ReadFile(out)
				if !bytes.Equal(got, want) {
					t.Errorf("v%s %s band %d: spooled output differs from the in-memory output", ver, m.name, band)
				}
				if ver == "6" && !bytes.Equal(got, verified6) {
					t.Errorf("v6 %s band %d: spooled output differs from the verified file", m.name, band)
				}
				if left, _ := os.ReadDir(tmp); len(left) > 0 {
					t.Errorf("v%s %s band %d: %d temporary files left", ver, m.name, band, len(left))
				}
			}
		}
	}
	// The spooled path is the one taken: with no usable directory for the
	// temporary file, it fails (and says why).
	defer wSpoolAll(1 << 20)()
	w, _ := NewWriter(&wMem{}, &WriteOptions{Version: "7", TempDir: filepath.Join(dir, "missing")})
	vw, err := w.CreateVariable("x", &npyio.Header{DType: npyio.Float64Type, Shape: []int{4, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if err := vw.Write(make([]byte, 64)); err == nil || !strings.Contains(err.Error(), "temporary file") {
		t.Errorf("spooling to a missing directory: %v", err)
	}
}

// TestWriteLevel5SpooledShapes covers what src.npz is too small for:
// complex, char and struct variables of many rows and columns, tall ones
// cut into bands of a few rows, wide ones spooled row by row and read
// back in tiles of a few columns, against the in-memory path; the file
// reads back.
func TestWriteLevel5SpooledShapes(t *testing.T) {
	rec, err := npyio.ParseDescr(`[('c', '<c16'), ('s', '<U3'), ('i', '<i2', (2,))]`)
	if err != nil {
		t.Fatal(err)
	}
	u4, _ := npyio.NewString(npyio.Unicode, 4)
	cases := []struct {
		dt    *npyio.DType
		shape []int
	}{
		{npyio.Complex128, []int{301, 7}},
		{npyio.Complex64, []int{50, 3, 4}},
		{u4, []int{97, 5}},
		{rec, []int{123}},
		{npyio.Float64Type, []int{1000, 3}},
		// wide (more units per row than rows): spooled row by row
		{npyio.Complex128, []int{3, 301}},
		{u4, []int{5, 40}},
		{rec, []int{2, 60}},
		{npyio.Float64Type, []int{7, 2000}},
		{npyio.Int16Type, []int{2, 3, 500}},
		{npyio.Float32Type, []int{1, 5000}},
	}
	for _, c := range cases {
		h := &npyio.Header{Major: 1, DType: c.dt, Shape: c.shape}
		data := make([]byte, h.DataSize())
		for i := range data {
			data[i] = byte(i*13 + i/7)
		}
		if c.dt.Kind == npyio.Unicode || c.dt.Kind == npyio.Struct {
			wFillChars(data, c.dt, h)
		}
		for _, ver := range []string{"6", "7"} {
			var out [2][]byte
			for k, band := range []int64{-1, 5 * 1024} {
				restore := func() {}
				if band > 0 {
					restore = wSpoolAll(band)
				}
				m := &wMem{}
				w, _ := NewWriter(m, &WriteOptions{Version: ver, Created: wFixedTime, TempDir: t.TempDir()})
				vw, err := w.CreateVariable("x", h)
				if err != nil {
					t.Fatal(err)
				}
				rs := int(h.RowSize())
				for off := 0; off < len(data); off += 7 * rs {
					if err := vw.Write(data[off:min(len(data), off+7*rs)]); err != nil {
						t.Fatal(err)
					}
				}
				if err := vw.Close(); err != nil {
					t.Fatal(err)
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				restore()
				out[k] = m.b
			}
			if !bytes.Equal(out[0], out[1]) {
				t.Errorf("v%s %s %v: spooled output differs from the in-memory output", ver, c.dt, c.shape)
			}
			f := filepath.Join(t.TempDir(), "x.mat")
			if err := os.WriteFile(f, out[1], 0o644); err != nil {
				t.Fatal(err)
			}
			got, _, err := ReadArrays(f, nil)
			if err != nil || len(got) == 0 {
				t.Errorf("v%s %s %v: reading back: %v", ver, c.dt, c.shape, err)
			}
		}
	}
}

// wFillChars makes the U fields (or the U array) of data hold printable
// code points, some beyond ASCII.
func wFillChars(data []byte, dt *npyio.DType, h *npyio.Header) {
	type span struct{ off, n int }
	var spans []span
	if dt.Kind == npyio.Unicode {
		spans = []span{{0, dt.Size / 4}}
	} else {
		for _, f := range dt.Fields {
			if f.Type.Kind == npyio.Unicode {
				spans = append(spans, span{f.Offset, f.Type.Size / 4 * f.Count()})
			}
		}
	}
	recs := int(h.DataSize()) / dt.Size
	for r := 0; r < recs; r++ {
		for _, s := range spans {
			for k := 0; k < s.n; k++ {
				cp := uint32('a' + (r*3+k)%26)
				if (r+k)%11 == 0 {
					cp = 0xE9 // é
				}
				wNE.PutUint32(data[r*dt.Size+s.off+4*k:], cp)
			}
		}
	}
}

// wFailAfter is an in-memory io.WriteSeeker failing once it holds n bytes.
type wFailAfter struct {
	wMem
	n int
}

var errWFull = errors.New("disk full")

func (f *wFailAfter) Write(p []byte) (int, error) {
	if f.pos+len(p) > f.n {
		return 0, errWFull
	}
	return f.wMem.Write(p)
}

// TestWriteLevel5SpoolCleanup: the temporary file is unlinked as soon as it
// is created; where that is not possible (simulated), it is removed
// however the variable ends: written, refused rows, too few rows, the
// output failing.
func TestWriteLevel5SpoolCleanup(t *testing.T) {
	defer wSpoolAll(64)()
	h := &npyio.Header{DType: npyio.Complex128, Shape: []int{20, 3}}
	rows := make([]byte, h.DataSize())
	for i := range rows {
		rows[i] = byte(i * 131 >> 3)
	}
	files := func(dir string) int {
		e, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		return len(e)
	}
	start := func(out *wFailAfter, dir string) VarWriter {
		w, _ := NewWriter(out, &WriteOptions{Version: "7", TempDir: dir})
		vw, err := w.CreateVariable("x", h)
		if err != nil {
			t.Fatal(err)
		}
		if err := vw.Write(rows[:5*48]); err != nil {
			t.Fatal(err)
		}
		return vw
	}
	// Unlinked at once.
	dir := t.TempDir()
	vw := start(&wFailAfter{n: 1 << 30}, dir)
	if n := files(dir); n != 0 {
		t.Errorf("%d files visible while spooling, want 0 (unlinked)", n)
	}
	if err := vw.Write(rows[5*48:]); err != nil {
		t.Fatal(err)
	}
	if err := vw.Close(); err != nil {
		t.Fatal(err)
	}

	tempUnlinkEarly = false
	defer func() { tempUnlinkEarly = true }()
	for _, c := range []struct {
		name string
		out  int // output size limit
		run  func(vw VarWriter) error
	}{
		{"written", 1 << 30, func(vw VarWriter) error {
			if err := vw.Write(rows[5*48:]); err != nil {
				return err
			}
			return vw.Close()
		}},
		{"partial row", 1 << 30, func(vw VarWriter) error { return vw.Write(rows[:47]) }},
		{"too many rows", 1 << 30, func(vw VarWriter) error { return vw.Write(rows) }},
		{"too few rows", 1 << 30, func(vw VarWriter) error { return vw.Close() }},
		{"output fails", 300, func(vw VarWriter) error {
			if err := vw.Write(rows[5*48:]); err != nil {
				return err
			}
			return vw.Close()
		}},
	} {
		dir := t.TempDir()
		vw := start(&wFailAfter{n: c.out}, dir)
		if n := files(dir); n != 1 {
			t.Errorf("%s: %d files while spooling, want 1", c.name, n)
		}
		err := c.run(vw)
		if (err == nil) != (c.name == "written") {
			t.Errorf("%s: error %v", c.name, err)
		}
		if c.name == "output fails" && !errors.Is(err, errWFull) {
			t.Errorf("%s: error %v, want %v", c.name, err, errWFull)
		}
		if n := files(dir); n != 0 {
			t.Errorf("%s: %d temporary files left", c.name, n)
		}
	}
}

// TestWriteLevel5MemoryBounded (not -short): 128 MiB v7 variables, tall
// and wide, written through CreateVariable allocate less than half their
// size in all (the whole variable, and as much again in compression
// buffers, before), and read back as written.
func TestWriteLevel5MemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 2 x 128 MiB variables")
	}
	for _, shape := range [][]int{{16384, 1024}, {8, 2 << 20}} {
		h := &npyio.Header{DType: npyio.Float64Type, Shape: shape}
		dir := t.TempDir()
		path := filepath.Join(dir, "m.mat")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		rs := int(h.RowSize())
		rows := max(1, (1<<20)/rs)
		batch := make([]byte, rows*rs)
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		w, err := NewWriter(f, &WriteOptions{Version: "7", TempDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		vw, err := w.CreateVariable("x", h)
		if err != nil {
			t.Fatal(err)
		}
		for r := 0; r < shape[0]; r += rows {
			n := min(rows, shape[0]-r)
			for i := 0; i < n*rs; i += 8 {
				// element (row, col) holds row*1e7+col: checkable
				row, col := r+i/rs, (i%rs)/8
				wNE.PutUint64(batch[i:], math.Float64bits(float64(row)*1e7+float64(col)))
			}
			if err := vw.Write(batch[:n*rs]); err != nil {
				t.Fatal(err)
			}
		}
		if err := vw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&ms)
		if got := ms.TotalAlloc - before; got > 64<<20 {
			t.Errorf("%v: writing allocated %d MiB", shape, got>>20)
		}
		f.Close()
		mf, err := OpenFile(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = mf.WalkVariables([]string{"x"}, func(_ string, v *Var) error {
			rc, err := v.Open()
			if err != nil {
				return err
			}
			defer rc.Close()
			// column-major: element k is (k % rows, k / rows)
			buf := make([]byte, 1<<20)
			R := int64(shape[0])
			for k := int64(0); ; {
				n, err := io.ReadFull(rc, buf)
				for i := 0; i+8 <= n; i += 8 {
					want := float64(k%R)*1e7 + float64(k/R)
					if got := math.Float64frombits(wNE.Uint64(buf[i:])); got != want {
						return fmt.Errorf("element %d is %v, want %v", k, got, want)
					}
					k++
				}
				if err == io.EOF || err == io.ErrUnexpectedEOF {
					if k != R*int64(shape[1]) {
						return fmt.Errorf("%d elements, want %d", k, R*int64(shape[1]))
					}
					return nil
				}
				if err != nil {
					return err
				}
			}
		})
		mf.Close()
		if err != nil {
			t.Errorf("%v: %v", shape, err)
		}
	}
}
