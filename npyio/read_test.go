package npyio_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// checkRows compares C-order element bytes with numpy's values.
func checkRows(t *testing.T, fx fixtures.NPY, dt *npyio.DType, data []byte, first int) {
	t.Helper()
	n := len(data) / max(dt.Size, 1)
	if dt.Size == 0 {
		return
	}
	for i := 0; i < n; i++ {
		k := first + i
		if k >= len(fx.Values) {
			t.Fatalf("%s: element %d beyond numpy's %d values", fx.Name, k, len(fx.Values))
		}
		if err := fixtures.CheckElement(dt, data[i*dt.Size:(i+1)*dt.Size], fx.Values[k]); err != nil {
			t.Fatalf("%s: element %d: %v", fx.Name, k, err)
		}
	}
}

func TestHeaderMatchesNumpy(t *testing.T) {
	for _, fx := range fixtures.NPYs(t) {
		t.Run(fx.Name, func(t *testing.T) {
			f, err := os.Open(fx.Path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			h, err := npyio.ReadHeader(f, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := [2]int{int(h.Major), int(h.Minor)}; got != fx.Version {
				t.Errorf("version %v, want %v", got, fx.Version)
			}
			if h.DataOffset != fx.DataOffset {
				t.Errorf("data offset %d, want %d", h.DataOffset, fx.DataOffset)
			}
			if h.Text != fx.Header {
				t.Errorf("header text\n got %q\nwant %q", h.Text, fx.Header)
			}
			if h.DType.Size != fx.ItemSize {
				t.Errorf("itemsize %d, want %d", h.DType.Size, fx.ItemSize)
			}
			if h.DType.Kind != npyio.Struct && h.DType.TypeStr() != fx.DTypeStr {
				t.Errorf("typestr %q, want %q", h.DType.TypeStr(), fx.DTypeStr)
			}
			// The descr prints back exactly as numpy wrote it.
			if got := h.DType.String(); got != fx.Descr {
				t.Errorf("descr\n got %s\nwant %s", got, fx.Descr)
			}
			if !equalInts(h.Shape, fx.Shape) || h.FortranOrder != fx.FortranOrder {
				t.Errorf("shape %v fortran %v, want %v %v", h.Shape, h.FortranOrder, fx.Shape, fx.FortranOrder)
			}
			var names []string
			for _, fl := range h.DType.Fields {
				names = append(names, fl.Name)
			}
			if fx.Fields != nil && strings.Join(names, "\x00") != strings.Join(fx.Fields, "\x00") {
				t.Errorf("fields %q, want %q", names, fx.Fields)
			}
		})
	}
}

func equalInts(a, b []int) bool {
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

// handWritten reports fixtures whose header numpy's writer did not make.
func handWritten(fx fixtures.NPY) bool {
	return strings.HasPrefix(fx.Name, "old_style") || strings.HasPrefix(fx.Name, "hand_") ||
		strings.HasPrefix(fx.Name, "S0_") || strings.HasPrefix(fx.Name, "U0_") ||
		fx.Name == "f8_le_v2" || fx.Name == "f8_le_v3" || fx.Name == "trailing_bytes"
}

func TestWriteIsByteIdentical(t *testing.T) {
	for _, fx := range fixtures.NPYs(t) {
		if handWritten(fx) {
			continue
		}
		t.Run(fx.Name, func(t *testing.T) {
			want, err := os.ReadFile(fx.Path)
			if err != nil {
				t.Fatal(err)
			}
			a, err := npyio.ReadArray(bytes.NewReader(want), nil)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := npyio.WriteArray(&buf, a); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			if strings.HasPrefix(fx.Name, "b1_nonzero") {
				// numpy keeps the raw bytes 2, 0xff; npyio normalizes to 1.
				return
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("written file differs from np.save's:\n got %q\nwant %q", head(got), head(want))
			}
		})
	}
}

func head(b []byte) []byte { return b[:min(len(b), 200)] }

// readers lists ways to stream a fixture; each returns a Reader.
var readers = []struct {
	name string
	open func(b []byte) (*npyio.Reader, error)
}{
	{"ReaderAt", func(b []byte) (*npyio.Reader, error) {
		return npyio.NewReaderAt(bytes.NewReader(b), int64(len(b)), nil)
	}},
	{"Stream", func(b []byte) (*npyio.Reader, error) { return npyio.NewReader(bytes.NewReader(b), nil) }},
	{"OneByte", func(b []byte) (*npyio.Reader, error) {
		return npyio.NewReader(iotest.OneByteReader(bytes.NewReader(b)), nil)
	}},
	{"RandomChunks", func(b []byte) (*npyio.Reader, error) {
		return npyio.NewReader(&randomReader{r: bytes.NewReader(b), rng: rand.New(rand.NewSource(int64(len(b))))}, nil)
	}},
}

type randomReader struct {
	r   io.Reader
	rng *rand.Rand
}

func (r *randomReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1+r.rng.Intn(len(p))]
	}
	return r.r.Read(p)
}

func TestStreamValues(t *testing.T) {
	for _, fx := range fixtures.NPYs(t) {
		data, err := os.ReadFile(fx.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, rd := range readers {
			for _, batch := range []int{1, 2, 5, 1000} {
				if testing.Short() && batch != 2 {
					continue
				}
				r, err := rd.open(data)
				if err != nil {
					t.Fatalf("%s/%s: %v", fx.Name, rd.name, err)
				}
				dt := r.DType()
				if !dt.IsNative() {
					t.Fatalf("%s: delivered dtype %s is not native", fx.Name, dt)
				}
				rowElems := int(r.RowSize()) / max(dt.Size, 1)
				rows := 0
				for {
					b, err := r.Next(batch)
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("%s/%s batch %d: %v", fx.Name, rd.name, batch, err)
					}
					if b.Start != int64(rows) {
						t.Fatalf("%s: batch start %d, want %d", fx.Name, b.Start, rows)
					}
					checkRows(t, fx, dt, b.Data, rows*rowElems)
					rows += b.Rows
				}
				if int64(rows) != r.Rows() {
					t.Fatalf("%s/%s: read %d rows, want %d", fx.Name, rd.name, rows, r.Rows())
				}
			}
		}
	}
}

func TestWholeReads(t *testing.T) {
	for _, fx := range fixtures.NPYs(t) {
		t.Run(fx.Name, func(t *testing.T) {
			a, err := npyio.ReadFile(fx.Path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(fx.Values) != int(a.Header.Count()) && a.DType.Size > 0 {
				t.Fatalf("count %d, numpy has %d values", a.Header.Count(), len(fx.Values))
			}
			checkRows(t, fx, a.DType, a.CData(), 0)
			m, err := npyio.Map(fx.Path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if m.Mapped() != (a.Header.DType.IsNative() && len(a.Data) > 0) {
				t.Errorf("Mapped() = %v for dtype %s, %d bytes", m.Mapped(), a.Header.DType, len(a.Data))
			}
			if strings.HasPrefix(fx.Name, "b1_nonzero") {
				return // mapped bools keep numpy's raw bytes
			}
			if !bytes.Equal(m.Data, a.Data) {
				t.Fatalf("mapped data differs from read data")
			}
		})
	}
}

func TestMappedSharesFileBytes(t *testing.T) {
	fx := fixtures.NPYByName(t, "f8_le_2d_c")
	m, err := npyio.Map(fx.Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if !m.Mapped() {
		t.Fatal("native-order file was not mapped")
	}
	v, err := npyio.View[float64](m.Data)
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != 12 || !fixtures.SameFloat(v[3], fixtures.Float(fx.Values[3])) {
		t.Fatalf("view %v does not match numpy values", v)
	}
}

func TestNPZFixtures(t *testing.T) {
	for _, z := range fixtures.NPZs(t) {
		t.Run(z.Name, func(t *testing.T) {
			nz, err := npyio.OpenNPZ(z.Path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer nz.Close()
			if len(nz.Members) != len(z.Members) {
				t.Fatalf("%d members, want %d", len(nz.Members), len(z.Members))
			}
			for i, want := range z.Members {
				m := nz.Members[i]
				if m.Key != want.Key || m.Name != want.ZipName || m.Compressed() != want.Compressed {
					t.Fatalf("member %d: %q %q %v, want %q %q %v", i, m.Key, m.Name, m.Compressed(), want.Key, want.ZipName, want.Compressed)
				}
				if !want.IsNPY {
					if _, err := m.Open(); !errors.Is(err, npyio.ErrNotNPY) {
						t.Fatalf("non-npy member %q: err %v, want ErrNotNPY", m.Name, err)
					}
					raw, err := m.ReadAll(1 << 20)
					if err != nil || hex.EncodeToString(raw) != want.ContentHex {
						t.Fatalf("raw member %q: %x, %v", m.Name, raw, err)
					}
					continue
				}
				want.NPY.Name = z.Name + "/" + want.Key
				r, err := m.Open()
				if err != nil {
					t.Fatal(err)
				}
				if r.Header().DType.String() != want.Descr || !equalInts(r.Header().Shape, want.Shape) {
					t.Fatalf("member %q: %s %v, want %s %v", m.Key, r.Header().DType, r.Header().Shape, want.Descr, want.Shape)
				}
				rowElems := int(r.RowSize()) / max(r.DType().Size, 1)
				done := 0
				for {
					b, err := r.Next(2)
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					checkRows(t, want.NPY, r.DType(), b.Data, done*rowElems)
					done += b.Rows
				}
				a, err := m.ReadArray()
				if err != nil {
					t.Fatal(err)
				}
				checkRows(t, want.NPY, a.DType, a.CData(), 0)
			}
		})
	}
}

// TestNPZWriteRoundTrip writes every npy fixture into archives both ways
// and reads them back.
func TestNPZWriteRoundTrip(t *testing.T) {
	fxs := fixtures.NPYs(t)
	for _, compressed := range []bool{false, true} {
		var buf bytes.Buffer
		zw := npyio.NewNPZWriter(&buf, compressed)
		for _, fx := range fxs {
			a, err := npyio.ReadFile(fx.Path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := zw.WriteArray(fx.Name, a); err != nil {
				t.Fatal(err)
			}
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		nz, err := npyio.NewNPZReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, fx := range fxs {
			m := nz.Members[i]
			if m.Key != fx.Name || m.Compressed() != compressed {
				t.Fatalf("member %d is %q (compressed %v)", i, m.Key, m.Compressed())
			}
			a, err := m.ReadArray()
			if err != nil {
				t.Fatalf("%s: %v", fx.Name, err)
			}
			if a.Header.DType.String() != fx.Descr {
				t.Fatalf("%s: descr %s", fx.Name, a.Header.DType)
			}
			checkRows(t, fx, a.DType, a.CData(), 0)
		}
	}
}

func TestSaveNPZNaming(t *testing.T) {
	a := &npyio.Array{Header: &npyio.Header{DType: npyio.Int64Type, Shape: []int{1}}, Data: make([]byte, 8)}
	var buf bytes.Buffer
	if err := npyio.SaveNPZ(&buf, false, []*npyio.Array{a, a}, npyio.NamedArray{Key: "x", Array: a}); err != nil {
		t.Fatal(err)
	}
	nz, err := npyio.NewNPZReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(nz.Keys(), ","); got != "x,arr_0,arr_1" {
		t.Fatalf("keys %s, want x,arr_0,arr_1", got)
	}
	err = npyio.SaveNPZ(io.Discard, false, []*npyio.Array{a}, npyio.NamedArray{Key: "arr_0", Array: a})
	if err == nil {
		t.Fatal("clashing positional and keyword name accepted")
	}
}

func TestGrowthPadding(t *testing.T) {
	var cases []struct {
		Shape        []string `json:"shape"`
		FortranOrder bool     `json:"fortran_order"`
		HeaderHex    string   `json:"header_bytes_hex"`
	}
	b, err := os.ReadFile(filepath.Join(fixtures.Root(), "npy", "growth.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	tested := 0
	for _, c := range cases {
		var shape []int
		ok := true
		for _, s := range c.Shape {
			var v int
			if len(s) > 18 {
				ok = false // beyond int64: numpy's Python ints only
				break
			}
			for _, ch := range s {
				v = v*10 + int(ch-'0')
			}
			shape = append(shape, v)
		}
		if !ok {
			continue
		}
		h := &npyio.Header{DType: npyio.Float64Type, Shape: shape, FortranOrder: c.FortranOrder}
		got, err := npyio.EncodeHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if hex.EncodeToString(got) != c.HeaderHex {
			t.Errorf("shape %v fortran %v:\n got %q\nwant %s", shape, c.FortranOrder, got, c.HeaderHex)
		}
		tested++
	}
	if tested < 30 {
		t.Fatalf("only %d growth cases tested", tested)
	}
}

func TestHalfConversion(t *testing.T) {
	// Every finite half converts to float32 and back unchanged; the
	// smallest subnormal is 2^-24.
	if got := npyio.HalfToFloat32(1); got != 1.0/(1<<24) {
		t.Fatalf("smallest subnormal %g", got)
	}
	for h := 0; h < 1<<16; h++ {
		f := npyio.HalfToFloat32(uint16(h))
		if f != f {
			continue
		}
		if back := npyio.Float32ToHalf(f); back != uint16(h) {
			t.Fatalf("%#04x -> %g -> %#04x", h, f, back)
		}
	}
	if got := npyio.Float32ToHalf(65520); got != 0x7c00 {
		t.Fatalf("65520 rounds to %#04x, want inf", got)
	}
}

func TestMapWritableIsPrivate(t *testing.T) {
	fx := fixtures.NPYByName(t, "f8_le_1d")
	orig, err := os.ReadFile(fx.Path)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "a.npy")
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := npyio.Map(path, &npyio.Options{MapWritable: true})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := npyio.View[float64](m.Data)
	v[0] = 12345
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after, orig) {
		t.Fatal("a write through a private mapping reached the file")
	}
}

// TestKeepBoolBytes checks that bool bytes other than 0 and 1 (numpy reads
// any non-zero byte as true) come out normalized by default and as stored
// after KeepBoolBytes, in a plain array and in a struct field next to a
// byte-swapped one.
func TestKeepBoolBytes(t *testing.T) {
	for _, tc := range []struct {
		descr string
		row   []byte // one record as stored
		want  []byte // normalized (native order)
		keep  []byte // KeepBoolBytes (native order)
	}{
		{"'|b1'", []byte{0x80}, []byte{1}, []byte{0x80}},
		{"'|b1'", []byte{0}, []byte{0}, []byte{0}},
		{"[('a', '>i2'), ('b', '|b1'), ('c', '|b1')]", []byte{1, 2, 7, 0}, []byte{2, 1, 1, 0}, []byte{2, 1, 7, 0}},
	} {
		dt, err := npyio.ParseDescr(tc.descr)
		if err != nil {
			t.Fatal(err)
		}
		h := &npyio.Header{DType: dt, Shape: []int{3}}
		var file bytes.Buffer
		if err := npyio.WriteArray(&file, &npyio.Array{Header: h, DType: dt, Data: make([]byte, 3*dt.Size)}); err != nil {
			t.Fatal(err)
		}
		// WriteArray takes native order: put the stored bytes in raw.
		raw := file.Bytes()[:file.Len()-3*dt.Size]
		for i := 0; i < 3; i++ {
			raw = append(raw, tc.row...)
		}
		for _, keep := range []bool{false, true} {
			r, err := npyio.NewReaderAt(bytes.NewReader(raw), int64(len(raw)), nil)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if keep {
				r.KeepBoolBytes()
				want = tc.keep
			}
			b, err := r.Next(3)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Data, bytes.Repeat(want, 3)) {
				t.Errorf("%s keep=%v: got % x, want % x x3", tc.descr, keep, b.Data, want)
			}
		}
	}
}

// TestNewStructRefusesBadSizes: a field type of negative size, a negative
// dimension or an item over 2 GiB is an error, not a struct whose offsets
// point outside its rows.
func TestNewStructRefusesBadSizes(t *testing.T) {
	bad := &npyio.DType{Kind: npyio.Int, Order: npyio.NativeOrder, Size: -9}
	for _, tc := range []struct {
		f    npyio.Field
		want string
	}{
		{npyio.Field{Name: "a", Type: bad}, "negative size"},
		{npyio.Field{Name: "b", Type: npyio.Float64Type, Shape: []int{2, -1}}, "negative dimension"},
		{npyio.Field{Name: "c", Type: npyio.Float64Type, Shape: []int{1 << 20, 1 << 20}}, "over 2147483647 bytes"},
	} {
		_, err := npyio.NewStruct([]npyio.Field{{Name: "x", Type: npyio.Float64Type}, tc.f})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error with %q", tc.f, err, tc.want)
		}
	}
	dt, err := npyio.NewStruct([]npyio.Field{{Name: "x", Type: npyio.Float64Type}, {Name: "y", Type: npyio.Float64Type, Shape: []int{0, 3}}})
	if err != nil || dt.Size != 8 {
		t.Errorf("zero-size subarray: %v %v", dt, err)
	}
}

func TestFormatShape(t *testing.T) {
	for _, tc := range []struct {
		shape []int
		want  string
	}{{nil, "()"}, {[]int{5}, "(5,)"}, {[]int{2, 3, 0}, "(2, 3, 0)"}} {
		if got := npyio.FormatShape(tc.shape); got != tc.want {
			t.Errorf("FormatShape(%v) = %q, want %q", tc.shape, got, tc.want)
		}
	}
}
