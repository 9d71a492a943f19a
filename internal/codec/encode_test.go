package codec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func testData(n int) []byte {
	b := make([]byte, 8*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(math.Sin(float64(i)/50)))
	}
	return b
}

// TestZstdFrameHasContentSize: every frame declares its content size
// (tensorstore issue 182: readers that size their output from it), small
// chunks and chunks past 1 MiB and past the window alike, whichever size
// an Encoder saw first.
func TestZstdFrameHasContentSize(t *testing.T) {
	var e, e2 Encoder
	sizes := []int{0, 1, 1000, 40000, 300000, 1100000}
	for i := range sizes {
		sizes = append(sizes, sizes[len(sizes)-1-2*i]) // then largest first, on e2
	}
	for i, n := range sizes {
		e := &e
		if i >= len(sizes)/2 {
			e = &e2
		}
		src := testData(n)
		enc, err := e.Zstd(nil, src, 3)
		if err != nil {
			t.Fatal(err)
		}
		var h zstd.Header
		if err := h.Decode(enc); err != nil {
			t.Fatal(err)
		}
		if !h.HasFCS || h.FrameContentSize != uint64(len(src)) {
			t.Fatalf("%d bytes: frame content size %v %d", len(src), h.HasFCS, h.FrameContentSize)
		}
		got, err := DecodeZstd(Params{}, enc, uint64(len(src)), nil)
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("%d bytes: round trip: %v", len(src), err)
		}
	}
}

func TestBloscRoundTrip(t *testing.T) {
	var e Encoder
	random := make([]byte, 20000)
	x := uint32(1)
	for i := range random {
		x = x*1664525 + 1013904223
		random[i] = byte(x >> 24)
	}
	for _, src := range [][]byte{testData(40000), random, testData(3)[:17], {}} {
		for _, cname := range []string{"lz4", "lz4hc", "zlib", "zstd"} {
			for _, sh := range []int{BloscNoShuffle, BloscShuffle} {
				enc, err := e.Blosc(nil, src, cname, 1, sh, 8)
				if err != nil {
					t.Fatal(err)
				}
				if len(enc) > len(src)+16 {
					t.Fatalf("%s: %d bytes encode to %d", cname, len(src), len(enc))
				}
				got, err := DecodeBlosc(Params{}, enc, uint64(len(src)), nil)
				if err != nil || !bytes.Equal(got, src) {
					t.Fatalf("%s shuffle %d, %d bytes: %v", cname, sh, len(src), err)
				}
			}
		}
	}
	if _, err := e.Blosc(nil, []byte{1}, "snappy", 5, 0, 1); err == nil {
		t.Fatal("snappy accepted")
	}
}

func TestLZ4GzipZlibRoundTrip(t *testing.T) {
	var e Encoder
	for _, src := range [][]byte{testData(20000), {}, []byte("x")} {
		enc, err := e.LZ4(nil, src)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := DecodeLZ4Numcodecs(enc, int64(len(src)), 1<<30); err != nil || !bytes.Equal(got, src) {
			t.Fatalf("lz4: %v", err)
		}
		if _, err := DecodeLZ4Numcodecs(enc, int64(len(src))+1, 1<<30); err == nil {
			t.Fatal("lz4: wrong size accepted")
		}
		gz, err := e.Gzip(nil, src, 5)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := DecodeGzip(gz, 0, int64(len(src))); err != nil || !bytes.Equal(got, src) {
			t.Fatalf("gzip: %v", err)
		}
		zl, err := e.Zlib(nil, src, 5)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := DecodeZlib(zl, 0, int64(len(src))); err != nil || !bytes.Equal(got, src) {
			t.Fatalf("zlib: %v", err)
		}
		if len(src) > 1 {
			if _, err := DecodeZlib(zl, 0, int64(len(src))-1); err == nil {
				t.Fatal("zlib: output past the limit accepted")
			}
		}
	}
}

func TestShuffleInvertsUnshuffle(t *testing.T) {
	for _, es := range []int{1, 2, 3, 4, 8, 16} {
		src := testData(37)[:8*37-5] // a tail that is no whole element
		sh := make([]byte, len(src))
		Shuffle(src, es, sh)
		if es > 1 && bytes.Equal(sh, src) {
			t.Fatalf("es %d: shuffle did nothing", es)
		}
		back := Unshuffle(sh, es, make([]byte, len(sh)))
		if !bytes.Equal(back, src) {
			t.Fatalf("es %d: unshuffle(shuffle(x)) != x", es)
		}
	}
}

// TestShuffleDefinition checks Shuffle against its definition (plane j
// holds byte j of every element), for counts around the 8-element steps
// of its fast path.
func TestShuffleDefinition(t *testing.T) {
	for _, es := range []int{2, 4, 8} {
		for n := 0; n <= 70; n++ {
			src := testData(n + 1)[:n*es+es-1] // a tail of no whole element
			got := make([]byte, len(src))
			Shuffle(src, es, got)
			want := make([]byte, len(src))
			for i := 0; i < n; i++ {
				for j := 0; j < es; j++ {
					want[j*n+i] = src[i*es+j]
				}
			}
			copy(want[n*es:], src[n*es:])
			if !bytes.Equal(got, want) {
				t.Fatalf("es %d, %d elements: shuffle differs", es, n)
			}
		}
	}
}

// TestUnshuffleDefinition checks Unshuffle against its definition (byte
// j of element i comes from plane j), around its 8-element steps.
func TestUnshuffleDefinition(t *testing.T) {
	for _, es := range []int{2, 4, 8} {
		for n := 1; n <= 70; n++ {
			src := testData(n + 1)[:n*es+es-1]
			got := Unshuffle(src, es, make([]byte, len(src)))
			want := make([]byte, len(src))
			for i := 0; i < n; i++ {
				for j := 0; j < es; j++ {
					want[i*es+j] = src[j*n+i]
				}
			}
			copy(want[n*es:], src[n*es:])
			if !bytes.Equal(got, want) {
				t.Fatalf("es %d, %d elements: unshuffle differs", es, n)
			}
		}
	}
}

// BenchmarkShuffle shuffles 2 MiB of 4- and 8-byte elements (a Zarr
// chunk through Blosc's byte shuffle).
func BenchmarkShuffle(b *testing.B) {
	src := testData(1 << 18)[:2<<20]
	dst := make([]byte, len(src))
	for _, es := range []int{4, 8} {
		b.Run(fmt.Sprint(es), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for range b.N {
				Shuffle(src, es, dst)
			}
		})
	}
}
