package arrowconv

import (
	"math/rand/v2"
	"testing"
)

// naivePack is the reference bitmap: bit i set when byte i is non-zero.
func naivePack(src []byte) []byte {
	bits := make([]byte, (len(src)+7)/8)
	for i, v := range src {
		if v != 0 {
			bits[i/8] |= 1 << (i % 8)
		}
	}
	return bits
}

// TestPackBools checks the word-at-a-time packers against a byte loop on
// every byte value (0x80 and 0x01 are the edge cases of the carry trick),
// lengths that do and do not fill the last byte, and several strides.
func TestPackBools(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 8, 9, 63, 64, 65, 1000} {
		for _, stride := range []int{1, 2, 3, 29} {
			for _, dist := range []string{"any", "01", "sparse"} {
				src := make([]byte, n*stride+5)
				for i := range src {
					switch dist {
					case "any":
						src[i] = byte(rng.IntN(256))
					case "01":
						src[i] = byte(rng.IntN(2))
					case "sparse":
						if rng.IntN(10) == 0 {
							src[i] = [...]byte{1, 0x80, 0xff, 0x7f, 2}[rng.IntN(5)]
						}
					}
				}
				base := 3
				if n*stride+base > len(src) {
					base = 0
				}
				vals := make([]byte, n)
				for i := range vals {
					vals[i] = src[base+i*stride]
				}
				want := naivePack(vals)
				got := make([]byte, len(want))
				packBoolsStrided(got, src, base, n, stride)
				if string(got) != string(want) {
					t.Fatalf("packBoolsStrided n=%d stride=%d %s: got %x want %x", n, stride, dist, got, want)
				}
				got2 := make([]byte, len(want))
				packBools(got2, vals)
				if string(got2) != string(want) {
					t.Fatalf("packBools n=%d %s: got %x want %x", n, dist, got2, want)
				}
			}
		}
	}
	for v := 0; v < 256; v++ {
		for k := 0; k < 8; k++ {
			var x [8]byte
			x[k] = byte(v)
			want := byte(0)
			if v != 0 {
				want = 1 << k
			}
			if got := pack8(uint64(x[0]) | uint64(x[1])<<8 | uint64(x[2])<<16 | uint64(x[3])<<24 | uint64(x[4])<<32 | uint64(x[5])<<40 | uint64(x[6])<<48 | uint64(x[7])<<56); got != want {
				t.Fatalf("pack8 byte %d = %#x: got %08b want %08b", k, v, got, want)
			}
		}
	}
}
