package matfile

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// wMem is an in-memory io.WriteSeeker.
type wMem struct {
	b   []byte
	pos int
}

func (m *wMem) Write(p []byte) (int, error) {
	if end := m.pos + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	copy(m.b[m.pos:], p)
	m.pos += len(p)
	return len(p), nil
}

func (m *wMem) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
		m.pos = int(off)
	case io.SeekCurrent:
		m.pos += int(off)
	case io.SeekEnd:
		m.pos = len(m.b) + int(off)
	}
	return int64(m.pos), nil
}

func TestValidName(t *testing.T) {
	for _, n := range []string{"a", "A1", "x_y", strings.Repeat("a", 63)} {
		if !ValidName(n) {
			t.Errorf("%q should be valid", n)
		}
	}
	for _, n := range []string{"", "1a", "_a", "a b", "a-b", "é", strings.Repeat("a", 64), "arr_0.npy", "end", "for"} {
		if ValidName(n) {
			t.Errorf("%q should be invalid", n)
		}
	}
}

func TestMakeValidName(t *testing.T) {
	for in, want := range map[string]string{"end": "xEnd", "function": "xFunction", "a b": "a_b", "1x": "x1x", "": "x", "_a": "x_a", "ok": "ok"} {
		if got := MakeValidName(in); got != want || !ValidName(got) {
			t.Errorf("MakeValidName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckNames(t *testing.T) {
	names := []string{"ok", "1st", "a-b", "a_b", "x1st", "", strings.Repeat("z", 70)}
	_, _, err := CheckNames(names, false)
	var ie *InvalidNamesError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v, want InvalidNamesError", err)
	}
	if want := []string{"1st", "a-b", "", strings.Repeat("z", 70)}; strings.Join(ie.Names, "|") != strings.Join(want, "|") {
		t.Fatalf("offending names %q, want %q", ie.Names, want)
	}
	if !strings.Contains(err.Error(), `"a-b"`) || !strings.Contains(err.Error(), `"1st"`) {
		t.Errorf("message does not list the names: %v", err)
	}
	out, ren, err := CheckNames(names, true)
	if err != nil {
		t.Fatal(err)
	}
	// "1st" -> "x1st" is taken by a valid name, so it gets a suffix;
	// "a-b" -> "a_b" likewise.
	want := []string{"ok", "x1st_2", "a_b_2", "a_b", "x1st", "x", strings.Repeat("z", 63)}
	if strings.Join(out, "|") != strings.Join(want, "|") {
		t.Fatalf("renamed %q, want %q", out, want)
	}
	if len(ren) != 4 || ren[0] != (Rename{"1st", "x1st_2"}) {
		t.Fatalf("renames %v", ren)
	}
	seen := map[string]bool{}
	for _, n := range out {
		if !ValidName(n) || seen[n] {
			t.Errorf("%q invalid or duplicate", n)
		}
		seen[n] = true
	}
}

func wArr(t *testing.T, dt *npyio.DType, shape []int, data []byte) *npyio.Array {
	t.Helper()
	h := &npyio.Header{Major: 1, DType: dt, Shape: shape}
	if int64(len(data)) != h.DataSize() {
		t.Fatalf("test data %d bytes, want %d", len(data), h.DataSize())
	}
	return &npyio.Array{Header: h, DType: dt, Data: data}
}

func TestWriteRefusesTypes(t *testing.T) {
	void, _ := npyio.NewString(npyio.Void, 4)
	obj := &npyio.DType{Kind: npyio.Object, Order: '|', Size: 8}
	td, _ := npyio.NewDatetime("M", 1, true)
	gen, _ := npyio.NewDatetime("", 1, false)
	nested, _ := npyio.NewStruct([]npyio.Field{{Name: "a", Type: npyio.Float64Type}, {Name: "o", Type: obj}})
	cases := []struct {
		name string
		dt   *npyio.DType
		want string
	}{
		{"v", void, "void"},
		{"o", obj, "objects"},
		{"tdm", td, "no fixed length"},
		{"gen", gen, "no fixed length"},
		{"rec", nested, `"rec.o"`},
	}
	for _, ver := range []string{"6", "7"} {
		for _, c := range cases {
			w, err := NewWriter(&wMem{}, &WriteOptions{Version: ver})
			if err != nil {
				t.Fatal(err)
			}
			err = w.WriteArray(c.name, wArr(t, c.dt, []int{2}, make([]byte, 2*c.dt.Size)))
			var ue *UnsupportedTypeError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name) {
				t.Errorf("v%s %s: err = %v", ver, c.name, err)
			}
		}
	}
	// Strict refuses datetimes.
	dt, _ := npyio.NewDatetime("s", 1, false)
	w, _ := NewWriter(&wMem{}, &WriteOptions{Version: "7", Strict: true})
	if err := w.WriteArray("t", wArr(t, dt, []int{1}, make([]byte, 8))); err == nil || !strings.Contains(err.Error(), "Strict") {
		t.Errorf("strict datetime: %v", err)
	}
}

func TestWriteInvalidNames(t *testing.T) {
	rec, _ := npyio.NewStruct([]npyio.Field{{Name: "good", Type: npyio.Int8Type}, {Name: "bad name", Type: npyio.Int8Type}, {Name: "2x", Type: npyio.Int8Type}})
	a := wArr(t, rec, []int{1}, make([]byte, 3))
	w, _ := NewWriter(&wMem{}, &WriteOptions{Version: "6"})
	err := w.WriteArray("t", a)
	var ie *InvalidNamesError
	if !errors.As(err, &ie) || strings.Join(ie.Names, "|") != "t.bad name|t.2x" {
		t.Fatalf("err = %v", err)
	}
	var got []Rename
	m := &wMem{}
	w, _ = NewWriter(m, &WriteOptions{Version: "6", RenameInvalid: true, OnRename: func(r Rename) { got = append(got, r) }})
	if err := w.WriteArray("t", a); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteArray("0t", a); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := []Rename{{"t.bad name", "t.bad_name"}, {"t.2x", "t.x2x"}, {"0t", "x0t"}, {"x0t.bad name", "x0t.bad_name"}, {"x0t.2x", "x0t.x2x"}}
	if len(got) != len(want) {
		t.Fatalf("renames %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("renames %v, want %v", got, want)
		}
	}
	if !bytes.Contains(m.b, []byte("bad_name")) || !bytes.Contains(m.b, []byte("x0t")) {
		t.Error("renamed names not in the file")
	}
	// Duplicate variable names are refused.
	w, _ = NewWriter(&wMem{}, &WriteOptions{Version: "6"})
	b := wArr(t, npyio.Int8Type, []int{1}, []byte{1})
	if err := w.WriteArray("x", b); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteArray("x", b); err == nil {
		t.Error("duplicate name accepted")
	}
}

// TestWriteLevel5Verified writes testdata/written/src.npz again and
// compares with the files check_written.py verified with scipy and Octave:
// v6 byte for byte, v7 variable by variable after inflating.
func TestWriteLevel5Verified(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("testdata", "written", "src.npz")
	for _, v := range []string{"6", "7"} {
		want, err := os.ReadFile(filepath.Join("testdata", "written", "out_v"+v+".mat"))
		if err != nil {
			t.Fatal(err)
		}
		for _, stream := range []int{0, 1, 3} {
			out := filepath.Join(dir, "x.mat")
			wWriteNPZ(t, src, out, v, stream > 0, stream)
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			g, w := wLevel5Elements(t, got), wLevel5Elements(t, want)
			if len(g) != len(w) {
				t.Fatalf("v%s stream %d: %d elements, want %d", v, stream, len(g), len(w))
			}
			for i := range w {
				if !bytes.Equal(g[i], w[i]) {
					t.Errorf("v%s stream %d: element %d differs from the verified file", v, stream, i)
				}
			}
			if v == "6" && !bytes.Equal(got, want) {
				t.Errorf("v6 stream %d: bytes differ from the verified file", stream)
			}
		}
	}
}

// wLevel5Elements splits a Level 5 file into its header and top-level
// elements, inflating miCOMPRESSED ones.
func wLevel5Elements(t *testing.T, b []byte) [][]byte {
	t.Helper()
	if len(b) < 128 || string(b[126:128]) != "IM" || binary.LittleEndian.Uint16(b[124:]) != 0x0100 {
		t.Fatalf("bad Level 5 header %q", b[:min(len(b), 128)])
	}
	out := [][]byte{b[:116]}
	for p := 128; p < len(b); {
		typ := binary.LittleEndian.Uint32(b[p:])
		n := int(binary.LittleEndian.Uint32(b[p+4:]))
		body := b[p+8 : p+8+n]
		if typ == wMiCompressed {
			zr, err := zlib.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			el, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, el)
			p += 8 + n
			continue
		}
		if typ != wMiMatrix {
			t.Fatalf("element type %d at %d", typ, p)
		}
		out = append(out, b[p:p+8+n])
		p += 8 + int(wPad8(int64(n)))
	}
	return out
}

func TestWriteLevel5Limits(t *testing.T) {
	// Over 2 GiB: refused before anything is allocated.
	w, _ := NewWriter(&wMem{}, &WriteOptions{Version: "7"})
	_, err := w.CreateVariable("big", &npyio.Header{DType: npyio.Float64Type, Shape: []int{1 << 16, 1 << 13}})
	if err == nil || !strings.Contains(err.Error(), "2 GiB") || !strings.Contains(err.Error(), "big") {
		t.Fatalf("err = %v", err)
	}
	// Rows: partial, extra and ragged writes are errors.
	w, _ = NewWriter(&wMem{}, &WriteOptions{Version: "6"})
	vw, err := w.CreateVariable("a", &npyio.Header{DType: npyio.Int16Type, Shape: []int{3, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if err := vw.Write(make([]byte, 5)); err == nil {
		t.Error("ragged write accepted")
	}
	w, _ = NewWriter(&wMem{}, &WriteOptions{Version: "6"})
	vw, _ = w.CreateVariable("a", &npyio.Header{DType: npyio.Int16Type, Shape: []int{3, 2}})
	if err := vw.Write(make([]byte, 8)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.CreateVariable("b", &npyio.Header{DType: npyio.Int16Type, Shape: []int{1}}); err == nil {
		t.Error("second variable while one is open")
	}
	if err := vw.Close(); err == nil || !strings.Contains(err.Error(), "2 of 3 rows") {
		t.Errorf("short variable: %v", err)
	}
	if err := w.Close(); err == nil {
		t.Error("Close after a failed variable succeeded")
	}
	w, _ = NewWriter(&wMem{}, &WriteOptions{Version: "6"})
	vw, _ = w.CreateVariable("a", &npyio.Header{DType: npyio.Int16Type, Shape: []int{1, 2}})
	if err := vw.Write(make([]byte, 8)); err == nil {
		t.Error("extra rows accepted")
	}
	for _, ver := range []string{"6", "7.3"} {
		w, _ = NewWriter(&wMem{}, &WriteOptions{Version: ver})
		if _, err := w.CreateVariable("huge", &npyio.Header{DType: npyio.Float64Type, Shape: []int{1 << 40, 1 << 40}}); err == nil || !strings.Contains(err.Error(), "too large") {
			t.Errorf("v%s: huge shape: %v", ver, err)
		}
	}
	if _, err := NewWriter(&wMem{}, &WriteOptions{Version: "5"}); err == nil {
		t.Error("version 5 accepted")
	}
}

func TestWriteNonASCIIBytes(t *testing.T) {
	dt, _ := npyio.NewString(npyio.Bytes, 2)
	w, _ := NewWriter(&wMem{}, &WriteOptions{Version: "7"})
	err := w.WriteArray("s", wArr(t, dt, []int{1}, []byte{'a', 0xE9}))
	if err == nil || !strings.Contains(err.Error(), "non-ASCII") || !strings.Contains(err.Error(), `"s"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestWriteHeaderText(t *testing.T) {
	m := &wMem{}
	w, _ := NewWriter(m, &WriteOptions{Version: "6", Created: wFixedTime})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := "MATLAB 5.0 MAT-file, Platform: npyflow "
	if !bytes.HasPrefix(m.b, []byte(want)) || !bytes.Contains(m.b[:116], []byte("Created on: Wed Nov 25 12:00:00 2026")) {
		t.Fatalf("header %q", m.b[:116])
	}
	if len(m.b) != 128 || string(m.b[124:128]) != "\x00\x01IM" {
		t.Fatalf("header tail %q, %d bytes", m.b[116:], len(m.b))
	}
}

// TestWriteV73Verified writes testdata/written/src.npz as v7.3 again, whole
// and streamed in tiny chunks, and compares with the files
// check_written.py verified with hdf5storage, h5dump and Octave. (The
// bytes depend on package hdf5's layout: if that changes on purpose,
// re-run check_written.py --commit.)
func TestWriteV73Verified(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("testdata", "written", "src.npz")
	check := func(name string, stream bool) {
		t.Helper()
		want, err := os.ReadFile(filepath.Join("testdata", "written", name))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name)
		wWriteNPZ(t, src, out, "7.3", stream, 2)
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes differ from the verified file (%d bytes)", name, len(got), len(want))
		}
		hdr := got[:128]
		if !bytes.HasPrefix(hdr, []byte("MATLAB 7.3 MAT-file, Platform: npyflow ")) ||
			!bytes.Contains(hdr[:116], []byte("HDF5 schema 1.00 .")) ||
			string(hdr[116:128]) != "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02IM" ||
			string(got[512:520]) != "\x89HDF\r\n\x1a\n" {
			t.Errorf("%s: header %q", name, got[:128])
		}
	}
	check("out_v73.mat", false)
	defer wTinyChunks()()
	check("stream_v73.mat", true)
}

// TestWriteV73StreamNonBMP: a streamed v7.3 string variable with a
// character outside the BMP is written as MATLAB stores it: uint16 UTF-16
// code units, the pair taking two, whole or streamed; a value beyond
// U+10FFFF is refused, naming the variable.
func TestWriteV73StreamNonBMP(t *testing.T) {
	dt, _ := npyio.NewString(npyio.Unicode, 2)
	data := make([]byte, 8)
	wNE.PutUint32(data, 'a')
	wNE.PutUint32(data[4:], 0x1F600)
	for _, stream := range []bool{false, true} {
		m := &wMem{}
		w, _ := NewWriter(m, &WriteOptions{Created: wFixedTime, NoCompression: true})
		if stream {
			vw, err := w.CreateVariable("s", &npyio.Header{DType: dt, Shape: []int{1}})
			if err != nil {
				t.Fatal(err)
			}
			if err := vw.Write(data); err != nil {
				t.Fatal(err)
			}
			if err := vw.Close(); err != nil {
				t.Fatal(err)
			}
		} else if err := w.WriteArray("s", wArr(t, dt, []int{1}, data)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		// 'a', U+D83D, U+DE00 as little-endian uint16
		if !bytes.Contains(m.b, []byte{'a', 0, 0x3D, 0xD8, 0x00, 0xDE}) {
			t.Errorf("stream=%v: no surrogate pair in the file", stream)
		}
		f, err := Open(bytes.NewReader(m.b), int64(len(m.b)), nil)
		if err != nil {
			t.Fatal(err)
		}
		vis, err := f.Variables()
		if err != nil || len(vis) != 1 || !reflect.DeepEqual(vis[0].Dims, []int{1, 3}) {
			t.Errorf("stream=%v: %+v %v, want a 1x3 char", stream, vis, err)
		}
	}
	wNE.PutUint32(data[4:], 0x110000)
	w, _ := NewWriter(&wMem{}, &WriteOptions{Created: wFixedTime})
	vw, err := w.CreateVariable("s", &npyio.Header{DType: dt, Shape: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	err = vw.Write(data)
	if err == nil {
		err = vw.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "not a Unicode code point") || !strings.Contains(err.Error(), `"s"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestParZlib(t *testing.T) {
	for _, n := range []int{0, 1, 1000, wZBlock - 1, wZBlock, wZBlock + 1, 5*wZBlock + 12345} {
		in := make([]byte, n)
		for i := range in {
			in[i] = byte(i * i >> 7)
		}
		var buf bytes.Buffer
		z := wNewParZlib(&buf, 6)
		// odd-sized writes
		for p := 0; p < n; {
			k := min(n-p, 77777)
			if _, err := z.Write(in[p : p+k]); err != nil {
				t.Fatal(err)
			}
			p += k
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		zr, err := zlib.NewReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(zr) // checks the Adler-32 too
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if !bytes.Equal(out, in) {
			t.Fatalf("%d bytes: round trip differs", n)
		}
	}
}

// TestWriteV73BandMemory checks the memory a streamed v7.3 variable holds:
// one band of chunks per field, all bands of a wide table within 64 MiB.
func TestWriteV73BandMemory(t *testing.T) {
	for _, nf := range []int{1, 4, 1000} {
		fields := make([]npyio.Field, nf)
		for i := range fields {
			fields[i] = npyio.Field{Name: "f" + strconv.Itoa(i), Type: npyio.Float64Type}
		}
		rec, err := npyio.NewStruct(fields)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := NewWriter(&wMem{}, nil)
		vw, err := w.CreateVariable("t", &npyio.Header{DType: rec, Shape: []int{10 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		v := vw.(*wVarHandle).vw.(*wV73Var)
		var total int
		for _, lv := range v.leaves {
			total += len(lv.band)
			if lv.bandR < 1024 {
				t.Errorf("%d fields: bands of %d rows are too thin", nf, lv.bandR)
			}
		}
		if total > wBandBudget || nf == 1 && total != 1<<20 {
			t.Errorf("%d fields: bands hold %d bytes", nf, total)
		}
	}
	// A 1-D vector, a matrix, a 3-D array: one band of 1 to 4 MiB; a row
	// of 8 MB: one row per band.
	for _, shape := range [][]int{{100 << 20}, {1 << 20, 1000}, {1 << 16, 300, 40}} {
		w, _ := NewWriter(&wMem{}, nil)
		vw, err := w.CreateVariable("x", &npyio.Header{DType: npyio.Float64Type, Shape: shape})
		if err != nil {
			t.Fatal(err)
		}
		lv := vw.(*wVarHandle).vw.(*wV73Var).leaves[0]
		if len(lv.band) > 4<<20 || len(lv.band) < 1<<20 {
			t.Errorf("shape %v: band of %d bytes (%d rows)", shape, len(lv.band), lv.bandR)
		}
	}
	w, _ := NewWriter(&wMem{}, nil)
	vw, err := w.CreateVariable("x", &npyio.Header{DType: npyio.Float64Type, Shape: []int{100, 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	lv := vw.(*wVarHandle).vw.(*wV73Var).leaves[0]
	if lv.bandR != 1 || len(lv.band) != 8<<20 || wProd(lv.chunk)*8 > 1<<20 {
		t.Errorf("wide rows: band of %d rows, %d bytes, chunk %v", lv.bandR, len(lv.band), lv.chunk)
	}
}

// TestWriteUnknownRows streams src.npz with Shape[0] = -1 (rows spooled to
// a temporary file): the files equal the verified ones.
func TestWriteUnknownRows(t *testing.T) {
	dir := t.TempDir()
	spool := t.TempDir() // its own: other processes spool to os.TempDir()
	// Files stay visible until removed (as where an open file cannot be
	// unlinked), so the check below sees any left behind.
	tempUnlinkEarly = false
	defer func() { tempUnlinkEarly = true }()
	src := filepath.Join("testdata", "written", "src.npz")
	for _, v := range []struct{ ver, file string }{{"6", "out_v6.mat"}, {"7", "out_v7.mat"}, {"7.3", "out_v73.mat"}} {
		want, err := os.ReadFile(filepath.Join("testdata", "written", v.file))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, v.file)
		wWriteNPZOpts(t, src, out, &WriteOptions{Version: v.ver, TempDir: spool}, true, true, 3)
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("v%s: spooled output differs from the verified file", v.ver)
		}
	}
	left, _ := os.ReadDir(spool)
	if len(left) > 0 {
		t.Errorf("spool files left behind: %v", left)
	}
	// Types are checked at once; zero-byte rows need a count; Level 5's
	// limit stops the spooling.
	w, _ := NewWriter(&wMem{}, &WriteOptions{Version: "7"})
	void, _ := npyio.NewString(npyio.Void, 3)
	if _, err := w.CreateVariable("v", &npyio.Header{DType: void, Shape: []int{-1}}); err == nil {
		t.Error("void accepted")
	}
	if _, err := w.CreateVariable("z", &npyio.Header{DType: npyio.Float64Type, Shape: []int{-1, 0}}); err == nil {
		t.Error("zero-byte rows of unknown count accepted")
	}
	vw, err := w.CreateVariable("ok", &npyio.Header{DType: npyio.Float64Type, Shape: []int{-1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if err := vw.Write(make([]byte, 24)); err == nil {
		t.Error("a partial row accepted")
	}
	if err := vw.Close(); err == nil {
		t.Error("Close after a failed write succeeded")
	}
}

// TestWriteFortranOrder: an array in Fortran order (as the reader returns
// MATLAB's) is written without transposition, to the same bytes as its
// C-order twin, also when v7.3 cuts it into bands of chunks.
func TestWriteFortranOrder(t *testing.T) {
	defer wTinyChunks()()
	for _, c := range []struct {
		dt    *npyio.DType
		shape []int
	}{
		{npyio.Float64Type, []int{7, 5}},
		{npyio.Int16Type, []int{9, 2, 3}},
		{npyio.Complex64, []int{5, 4}},
		{npyio.Uint8Type, []int{1, 40}},
		{npyio.Float32Type, []int{0, 3}},
	} {
		h := &npyio.Header{Major: 1, DType: c.dt, Shape: c.shape}
		data := make([]byte, h.DataSize())
		for i := range data {
			data[i] = byte(i*7 + i/3)
		}
		ca := &npyio.Array{Header: h, DType: c.dt, Data: data}
		fh := *h
		fh.FortranOrder = true
		fa := &npyio.Array{Header: &fh, DType: c.dt, Data: wToF(data, c.shape, c.dt.Size)}
		for _, ver := range []string{"6", "7", "7.3"} {
			var out [2][]byte
			for i, a := range []*npyio.Array{ca, fa} {
				m := &wMem{}
				w, _ := NewWriter(m, &WriteOptions{Version: ver, Created: wFixedTime})
				if err := w.WriteArray("x", a); err != nil {
					t.Fatal(err)
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				out[i] = m.b
			}
			if !bytes.Equal(out[0], out[1]) {
				t.Errorf("v%s %s %v: Fortran-order output differs from C-order output", ver, c.dt, c.shape)
			}
		}
	}
}

func TestWriteNPZ(t *testing.T) {
	z, err := npyio.OpenNPZ(filepath.Join("testdata", "written", "src.npz"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	dir := t.TempDir()
	// v6: the members stream into the verified file's bytes.
	f, err := os.Create(filepath.Join(dir, "a.mat"))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := NewWriter(f, &WriteOptions{Version: "6", Created: wFixedTime})
	if err := w.WriteNPZ(z); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, _ := os.ReadFile(filepath.Join(dir, "a.mat"))
	want, _ := os.ReadFile(filepath.Join("testdata", "written", "out_v6.mat"))
	if !bytes.Equal(got, want) {
		t.Error("WriteNPZ output differs from the verified file")
	}
	// v7.3: strings outside the BMP (wide_emoji) need the whole variable,
	// which WriteReader reads for string variables: the verified file.
	f, err = os.Create(filepath.Join(dir, "b.mat"))
	if err != nil {
		t.Fatal(err)
	}
	w, _ = NewWriter(f, &WriteOptions{Version: "7.3", Created: wFixedTime})
	if err := w.WriteNPZ(z); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, _ = os.ReadFile(filepath.Join(dir, "b.mat"))
	want, _ = os.ReadFile(filepath.Join("testdata", "written", "out_v73.mat"))
	if !bytes.Equal(got, want) {
		t.Error("WriteNPZ v7.3 output differs from the verified file")
	}
	// Invalid member names: all listed, or renamed.
	var buf bytes.Buffer
	nz := npyio.NewNPZWriter(&buf, false)
	one := wArr(t, npyio.Int8Type, []int{1}, []byte{5})
	for _, k := range []string{"good", "bad-1", "2bad"} {
		if err := nz.WriteArray(k, one); err != nil {
			t.Fatal(err)
		}
	}
	if err := nz.Close(); err != nil {
		t.Fatal(err)
	}
	rz, err := npyio.NewNPZReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	w, _ = NewWriter(&wMem{}, &WriteOptions{Version: "7"})
	err = w.WriteNPZ(rz)
	var ie *InvalidNamesError
	if !errors.As(err, &ie) || len(ie.Names) != 2 {
		t.Fatalf("err = %v", err)
	}
	m := &wMem{}
	w, _ = NewWriter(m, &WriteOptions{Version: "7.3", RenameInvalid: true})
	if err := w.WriteNPZ(rz); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if r := w.Renames(); len(r) != 2 || r[0] != (Rename{"bad-1", "bad_1"}) || r[1] != (Rename{"2bad", "x2bad"}) {
		t.Errorf("renames %v", r)
	}
}
