package zfp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/bits"
	"os"
	"slices"
	"strings"
	"testing"
)

// chunk is one stored H5Z-ZFP chunk written by h5py + hdf5plugin with
// h5py's reading of its values (gen_zfp.py in hdf5/testdata).
type chunk struct {
	Dataset string
	CD      []uint32
	Shape   []int
	Chunk   []byte
	Values  []byte
}

func loadChunks(tb testing.TB) []chunk {
	tb.Helper()
	b, err := os.ReadFile("testdata/chunks.json")
	if err != nil {
		tb.Fatal(err)
	}
	var raw []struct {
		Dataset       string
		CD            []uint32
		Shape         []int
		Chunk, Values string
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		tb.Fatal(err)
	}
	out := make([]chunk, len(raw))
	for i, r := range raw {
		c := chunk{Dataset: r.Dataset, CD: r.CD, Shape: r.Shape}
		if c.Chunk, err = base64.StdEncoding.DecodeString(r.Chunk); err != nil {
			tb.Fatal(err)
		}
		if c.Values, err = base64.StdEncoding.DecodeString(r.Values); err != nil {
			tb.Fatal(err)
		}
		out[i] = c
	}
	if len(out) < 20 {
		tb.Fatalf("only %d chunks", len(out))
	}
	return out
}

// TestChunks decodes one chunk per mode and scalar type as the zfp
// library does (h5py's reading), byte for byte, and checks the header:
// the chunk's dimensions of length > 1, last first, the type and mode
// the dataset was written with.
func TestChunks(t *testing.T) {
	for _, c := range loadChunks(t) {
		t.Run(c.Dataset, func(t *testing.T) {
			h, err := ParseH5Z(c.CD)
			if err != nil {
				t.Fatal(err)
			}
			var dims []int
			for _, n := range slices.Backward(c.Shape) {
				if n > 1 {
					dims = append(dims, n)
				}
			}
			if !slices.Equal(h.Dims, dims) {
				t.Errorf("dims %v, want %v", h.Dims, dims)
			}
			mode, typ, _ := strings.Cut(c.Dataset, "/")
			if want := map[string]Mode{"rate": FixedRate, "precision": FixedPrecision, "accuracy": FixedAccuracy,
				"reversible": Reversible, "expert": Expert}[mode]; h.Mode() != want {
				t.Errorf("mode %v, want %v (%+v)", h.Mode(), want, h)
			}
			if want := strings.Split(typ, "_")[0]; h.Type.String() != want {
				t.Errorf("type %v, want %s", h.Type, want)
			}
			out := make([]byte, len(c.Values))
			if err := h.Decode(c.Chunk, out); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, c.Values) {
				t.Errorf("values differ from the zfp library's")
			}
			// Every stored bit is needed: one byte less is an error.
			if err := h.Decode(c.Chunk[:len(c.Chunk)-8], out); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "ends in block") {
				t.Errorf("short stream: %v", err)
			}
		})
	}
}

// TestParseH5ZInvalid: headers that are not zfp's, cut short, of another
// codec version or with parameters the library refuses.
func TestParseH5ZInvalid(t *testing.T) {
	good := loadChunks(t)[0].CD
	with := func(i int, f func(uint32) uint32) []uint32 {
		cd := slices.Clone(good)
		cd[i] = f(cd[i])
		return cd
	}
	// A long mode (the 12 short bits all ones, at bit 20 of cd[3], then
	// 52 bits) with minbits 100 > maxbits 50.
	rest := uint64(100-1) | uint64(50-1)<<15 | uint64(20-1)<<30 | uint64(16495)<<37
	long := append(slices.Clone(good[:3]), good[3]|0xfff<<20, uint32(rest), uint32(rest>>32))
	ok := slices.Clone(long)
	restOK := uint64(10-1) | uint64(50-1)<<15 | uint64(20-1)<<30 | uint64(16495-20)<<37
	ok[4], ok[5] = uint32(restOK), uint32(restOK>>32)
	if h, err := ParseH5Z(ok); err != nil || h.MinBits != 10 || h.MaxBits != 50 || h.MaxPrec != 20 || h.MinExp != -20 || h.Mode() != Expert {
		t.Fatalf("long mode: %+v, %v", h, err)
	}
	cases := []struct {
		name string
		cd   []uint32
		want string
		kind error
	}{
		{"empty", nil, "too few", ErrFormat},
		{"version only", good[:1], "too few", ErrFormat},
		{"magic", with(1, func(w uint32) uint32 { return w ^ 1 }), "do not start with a zfp header", ErrFormat},
		{"big-endian", with(1, bits.ReverseBytes32), "big-endian", nil},
		{"codec 4", with(1, func(w uint32) uint32 { return w&0xffffff | 4<<24 }), "codec version 4", nil},
		{"cut short", good[:3], "cut short", ErrFormat},
		{"long mode cut short", long[:5], "cut short", ErrFormat},
		{"minbits > maxbits", long, "minbits 100, maxbits 50", ErrFormat},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseH5Z(c.cd)
			var ue *UnsupportedError
			if err == nil || !strings.Contains(err.Error(), c.want) ||
				(c.kind != nil && !errors.Is(err, c.kind)) || (c.kind == nil && !errors.As(err, &ue)) {
				t.Errorf("%v, want %q (%v)", err, c.want, c.kind)
			}
		})
	}
}

// TestDecodeSize: the output must be the field's size exactly.
func TestDecodeSize(t *testing.T) {
	c := loadChunks(t)[0]
	h, err := ParseH5Z(c.CD)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, len(c.Values) - 1, len(c.Values) + 4} {
		if err := h.Decode(c.Chunk, make([]byte, n)); err == nil || !strings.Contains(err.Error(), "the output") {
			t.Errorf("output of %d bytes: %v", n, err)
		}
	}
}

// FuzzDecode decodes arbitrary streams with the fixtures' headers and,
// when the second byte is odd, arbitrary headers: never a panic, and
// only ErrFormat, UnsupportedError or a size mismatch as errors.
func FuzzDecode(f *testing.F) {
	chunks := loadChunks(f)
	for i, c := range chunks {
		f.Add(append([]byte{byte(i), 0}, c.Chunk...))
	}
	f.Add(append([]byte{0, 1}, []byte("\x10\x10\x05\x10zfp\x05\x7a\x06\x70\x05\x00\x00\x00\x20\x00\x00")...))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		c := chunks[int(in[0])%len(chunks)]
		cd, src := c.CD, in[2:]
		if in[1]&1 == 1 && len(src) >= 20 {
			cd = make([]uint32, 5)
			for i := range cd {
				cd[i] = uint32(src[4*i]) | uint32(src[4*i+1])<<8 | uint32(src[4*i+2])<<16 | uint32(src[4*i+3])<<24
			}
			src = src[20:]
		}
		h, err := ParseH5Z(cd)
		if err != nil {
			var ue *UnsupportedError
			if !errors.Is(err, ErrFormat) && !errors.As(err, &ue) {
				t.Fatalf("header error %v", err)
			}
			return
		}
		n := h.Len() * h.Type.Size()
		if n > 1<<16 {
			return
		}
		if err := h.Decode(src, make([]byte, n)); err != nil && !errors.Is(err, ErrFormat) {
			t.Fatalf("decode error %v", err)
		}
	})
}

// BenchmarkDecode decodes every fixture chunk (b.SetBytes: the decoded
// size of all of them).
func BenchmarkDecode(b *testing.B) {
	chunks := loadChunks(b)
	hs := make([]*Header, len(chunks))
	outs := make([][]byte, len(chunks))
	var n int64
	for i, c := range chunks {
		h, err := ParseH5Z(c.CD)
		if err != nil {
			b.Fatal(err)
		}
		hs[i], outs[i] = h, make([]byte, len(c.Values))
		n += int64(len(c.Values))
	}
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for i, c := range chunks {
			if err := hs[i].Decode(c.Chunk, outs[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
