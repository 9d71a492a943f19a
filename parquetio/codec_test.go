package parquetio

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestRawFrame decodes the raw-block frames of every size class of the
// frame header with klauspost's decoder (the one parquet-go reads with).
func TestRawFrame(t *testing.T) {
	d, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 255, 256, 65791, 65792, 128 << 10, 128<<10 + 1, 1 << 20, 3<<20 + 7} {
		src := make([]byte, n)
		r.Read(src)
		f := rawFrame([]byte("junk"), src)[4:]
		if len(f) > n+4+9+3*(n/zstdMaxBlock+1) {
			t.Errorf("n=%d: frame of %d bytes", n, len(f))
		}
		got, err := d.DecodeAll(f, nil)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if !bytes.Equal(got, src) {
			t.Fatalf("n=%d: decoded %d bytes, not the input", n, len(got))
		}
	}
}

// TestZstdIncompressible: random pages are stored raw (the frame is the
// page plus headers), compressible ones (sequential int64, a compressible
// tail after a random start) are compressed, and both decode to the page.
func TestZstdIncompressible(t *testing.T) {
	c := zstdFor(1 << 20)
	r := rand.New(rand.NewSource(2))
	random := make([]byte, 1<<20)
	r.Read(random)
	seq := make([]byte, 1<<20)
	for i := 0; i < len(seq); i += 8 {
		binary.LittleEndian.PutUint64(seq[i:], uint64(i/8+1000))
	}
	mixed := append(append([]byte{}, random[:len(random)/2]...), seq[:len(seq)/2]...)
	if seq[0] == random[0] {
		t.Fatal("pick another seed")
	}
	small := random[:probeMin-1]
	for _, tc := range []struct {
		name string
		page []byte
		raw  bool
	}{{"random", random, true}, {"sequential", seq, false}, {"random then sequential", mixed, false}, {"small random", small, false}} {
		out, err := c.Encode(nil, tc.page)
		if err != nil {
			t.Fatal(err)
		}
		if raw := incompressible(mustEncoder(t, c), tc.page, nil); raw != tc.raw {
			t.Errorf("%s: incompressible=%v, want %v", tc.name, raw, tc.raw)
		}
		if tc.raw && !bytes.Equal(out, rawFrame(nil, tc.page)) {
			t.Errorf("%s: %d bytes, not the raw frame", tc.name, len(out))
		}
		if tc.page[0] != random[0] && len(out) > len(tc.page)*3/4 {
			t.Errorf("%s: %d -> %d bytes", tc.name, len(tc.page), len(out))
		}
		got, err := c.Decode(nil, out)
		if err != nil || !bytes.Equal(got, tc.page) {
			t.Fatalf("%s: decoding: %v", tc.name, err)
		}
	}
}

func mustEncoder(t *testing.T, c *zstdCodec) *zstd.Encoder {
	e, err := c.get()
	if err != nil {
		t.Fatal(err)
	}
	return e
}
