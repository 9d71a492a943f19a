package hdf5

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// bitshuffleRef is bitshuffle's transform from its definition: bit k of
// byte j of element i goes to bit i%8 of byte i/8 of row 8*j+k (rows of
// n/8 bytes).
func bitshuffleRef(src []byte, n, es int) []byte {
	out := make([]byte, n*es)
	for i := 0; i < n; i++ {
		for j := 0; j < es; j++ {
			for k := 0; k < 8; k++ {
				if src[i*es+j]>>k&1 != 0 {
					out[(8*j+k)*n/8+i/8] |= 1 << (i % 8)
				}
			}
		}
	}
	return out
}

func TestBitUnshuffle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, es := range []int{1, 2, 3, 4, 8, 12, 16} {
		for _, n := range []int{8, 16, 56, 64, 72, 520, 4096} {
			src := make([]byte, n*es)
			for i := range src {
				src[i] = byte(rng.Uint32())
			}
			got := make([]byte, n*es)
			bitUnshuffle(got, bitshuffleRef(src, n, es), make([]byte, n*es), n, es)
			if !bytes.Equal(got, src) {
				t.Errorf("es %d n %d: bitUnshuffle does not undo the transform", es, n)
			}
		}
	}
}

func TestBlosclz(t *testing.T) {
	lit := func(b ...byte) []byte { return append([]byte{byte(len(b) - 1)}, b...) }
	// A match: length n (3..8 without extension), distance d (1..8192).
	match := func(n, d int) []byte {
		d--
		return []byte{byte((n-2)<<5 | d>>8), byte(d)}
	}
	long := bytes.Repeat([]byte("0123456789abcdef"), 700) // 11200 bytes
	far := append(lit(long[:32]...), []byte{}...)
	for i := 32; i < len(long); i += 32 {
		far = append(far, lit(long[i:min(i+32, len(long))]...)...)
	}
	// Copy 5 bytes from 9000 back: c is 255 and ctrl&31 is 31, then a
	// 16-bit distance over 8192.
	d16 := 9000 - 8192
	far = append(far, 0x7f, 255, byte(d16>>8), byte(d16))
	far = append(far, lit('!')...)
	farWant := append(append(append([]byte(nil), long...), long[len(long)-9000:len(long)-9000+5]...), '!')

	valid := []struct {
		name string
		in   []byte
		want []byte
	}{
		{"literals", lit('a', 'b', 'c'), []byte("abc")},
		{"first ctrl keeps 5 bits", append([]byte{0xe2}, 'x', 'y', 'z'), []byte("xyz")},
		{"match", append(append(lit('a', 'b', 'c', 'd'), match(4, 4)...), lit('e')...), []byte("abcdabcde")},
		{"run", append(append(lit('z'), match(8, 1)...), lit('.')...), []byte("zzzzzzzzz.")},
		{"overlap", append(append(lit('a', 'b', 'c'), match(7, 2)...), lit('.')...), []byte("abcbcbcbcb.")},
		{"extended length", append(append(lit('q'), 0xe0, 255, 10, 0), lit('.')...), nil},
		{"far distance", far, farWant},
		{"ends with a match", append(lit('a', 'b'), match(4, 2)...), []byte("ababab")},
	}
	// The extended length: field 7 gives 6, plus 255 and 10, plus 3: 274.
	valid[5].want = append(bytes.Repeat([]byte("q"), 1+274), '.')
	for _, c := range valid {
		out := make([]byte, len(c.want))
		if err := blosclzDecode(c.in, out); err != nil {
			t.Errorf("%s: %v", c.name, err)
		} else if !bytes.Equal(out, c.want) {
			t.Errorf("%s: %q, want %q", c.name, trunc(out), trunc(c.want))
		}
	}
	invalid := []struct {
		name string
		in   []byte
		size int
		msg  string
	}{
		{"empty", nil, 1, "empty"},
		{"truncated literals", []byte{5, 'a'}, 6, "ends inside"},
		{"match before the start", append(lit('a'), match(3, 2)...), 4, "back at output byte 1"},
		{"output overflow", append(lit('a'), match(8, 1)...), 4, "output over 4"},
		{"short output", lit('a', 'b'), 3, "decodes to 2 bytes, want 3"},
		{"truncated match", append(lit('a'), 0x20), 5, "ends inside"},
		{"truncated far", append(lit('a'), 0x3f, 255, 1), 5, "ends inside"},
		{"endless length", append(lit('a'), append([]byte{0xe0}, bytes.Repeat([]byte{255}, 100)...)...), 50, "longer than"},
	}
	for _, c := range invalid {
		err := blosclzDecode(c.in, make([]byte, c.size))
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %q", c.name, err, c.msg)
		}
	}
}

// randomWalk returns n float64 values of a random walk rounded to 3
// decimals, as bytes: data like measurements.
func randomWalk(n int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, 8*n)
	x := 0.0
	for i := 0; i < n; i++ {
		x += rng.NormFloat64()
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(math.Round(x*1000)/1000))
	}
	return b
}

// encodeLZ4Filter frames data as HDF5's LZ4 plugin does.
func encodeLZ4Filter(tb testing.TB, data []byte, block int) []byte {
	out := binary.BigEndian.AppendUint64(nil, uint64(len(data)))
	out = binary.BigEndian.AppendUint32(out, uint32(block))
	for i := 0; i < len(data); i += block {
		b := data[i:min(i+block, len(data))]
		z := make([]byte, lz4.CompressBlockBound(len(b)))
		n, err := lz4.CompressBlock(b, z, nil)
		if err != nil {
			tb.Fatal(err)
		}
		if n == 0 || n >= len(b) {
			z, n = b, len(b)
		}
		out = binary.BigEndian.AppendUint32(out, uint32(n))
		out = append(out, z[:n]...)
	}
	return out
}

// encodeBitshuffleLZ4 frames data as bitshuffle's HDF5 filter does with
// LZ4 (default block size).
func encodeBitshuffleLZ4(tb testing.TB, data []byte, es int) []byte {
	n := len(data) / es
	block := bshufDefaultBlock(es)
	out := binary.BigEndian.AppendUint64(nil, uint64(len(data)))
	out = binary.BigEndian.AppendUint32(out, uint32(block*es))
	pos := 0
	for pos+8 <= n {
		k := min(block, (n-pos)/8*8)
		s := bitshuffleRef(data[pos*es:(pos+k)*es], k, es)
		z := make([]byte, lz4.CompressBlockBound(len(s)))
		m, err := lz4.CompressBlock(s, z, nil)
		if err != nil || m == 0 {
			tb.Fatal(err, m)
		}
		out = binary.BigEndian.AppendUint32(out, uint32(m))
		out = append(out, z[:m]...)
		pos += k
	}
	return append(out, data[pos*es:]...)
}

// encodeBloscLZ4 writes a c-blosc 1.x chunk: byte shuffle, LZ4, blocks
// of blocksize not split.
func encodeBloscLZ4(tb testing.TB, data []byte, ts, blocksize int) []byte {
	nb := (len(data) + blocksize - 1) / blocksize
	hdr := []byte{2, 1, 0x01 | 0x10 | 1<<5, byte(ts)}
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(data)))
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(blocksize))
	hdr = binary.LittleEndian.AppendUint32(hdr, 0)
	body := []byte{}
	starts := []byte{}
	for j := 0; j < nb; j++ {
		b := data[j*blocksize : min((j+1)*blocksize, len(data))]
		n := len(b) / ts
		s := make([]byte, len(b))
		for i := 0; i < n; i++ {
			for k := 0; k < ts; k++ {
				s[k*n+i] = b[i*ts+k]
			}
		}
		copy(s[n*ts:], b[n*ts:])
		z := make([]byte, lz4.CompressBlockBound(len(s)))
		m, err := lz4.CompressBlock(s, z, nil)
		if err != nil {
			tb.Fatal(err)
		}
		if m == 0 || m >= len(s) {
			z, m = s, len(s)
		}
		starts = binary.LittleEndian.AppendUint32(starts, uint32(16+4*nb+len(body)))
		body = binary.LittleEndian.AppendUint32(body, uint32(m))
		body = append(body, z[:m]...)
	}
	out := append(append(hdr, starts...), body...)
	binary.LittleEndian.PutUint32(out[12:], uint32(len(out)))
	return out
}

func TestCodecRoundTrips(t *testing.T) {
	data := randomWalk(40001)[:320005] // not a whole number of blocks or elements
	zenc, _ := zstd.NewWriter(nil)
	cases := []struct {
		name string
		id   int
		cd   []uint32
		in   []byte
		want []byte
	}{
		{"lz4", 32004, nil, encodeLZ4Filter(t, data, 1<<16), data},
		{"bitshuffle lz4", 32008, []uint32{0, 3, 8, 0, 2}, encodeBitshuffleLZ4(t, data[:320000], 8), data[:320000]},
		{"bitshuffle lz4, 2-byte items", 32008, []uint32{0, 3, 2, 0, 2}, encodeBitshuffleLZ4(t, data[:320002], 2), data[:320002]},
		{"blosc lz4", 32001, nil, encodeBloscLZ4(t, data, 8, 1<<15), data},
		{"zstd", 32015, nil, zenc.EncodeAll(data, nil), data},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := uint64(len(c.want))
			got, err := filterCodecs[c.id].decode(filterParams{CD: c.cd}, c.in, want, nil)
			if err != nil || !bytes.Equal(got, c.want) {
				t.Fatalf("%d bytes, %v", len(got), err)
			}
			dst := make([]byte, want)
			got, err = filterCodecs[c.id].decode(filterParams{CD: c.cd}, c.in, want, dst)
			if err != nil || &got[0] != &dst[0] || !bytes.Equal(dst, c.want) {
				t.Fatalf("into dst: %v", err)
			}
			if _, err := filterCodecs[c.id].decode(filterParams{CD: c.cd}, c.in, want-1, make([]byte, want-1)); err == nil {
				t.Fatal("decoded into a buffer one byte short")
			}
		})
	}
}

// Decoding 1 MiB chunks of a random walk (float64), as the benchmark of
// benchmarks/h5filters.sh does at 800 MiB.
func benchCodec(b *testing.B, id int, cd []uint32, enc func(data []byte) []byte) {
	data := randomWalk(1 << 17)
	in := enc(data)
	dst := make([]byte, len(data))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := filterCodecs[id].decode(filterParams{CD: cd}, in, uint64(len(dst)), dst); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if !bytes.Equal(dst, data) {
		b.Fatal("wrong output")
	}
}

func BenchmarkDecodeLZ4(b *testing.B) {
	benchCodec(b, 32004, nil, func(d []byte) []byte { return encodeLZ4Filter(b, d, 1<<30) })
}

func BenchmarkDecodeZstd(b *testing.B) {
	benchCodec(b, 32015, nil, func(d []byte) []byte {
		e, _ := zstd.NewWriter(nil)
		return e.EncodeAll(d, nil)
	})
}

func BenchmarkDecodeBitshuffleLZ4(b *testing.B) {
	benchCodec(b, 32008, []uint32{0, 3, 8, 0, 2}, func(d []byte) []byte { return encodeBitshuffleLZ4(b, d, 8) })
}

func BenchmarkDecodeBloscLZ4Shuffle(b *testing.B) {
	benchCodec(b, 32001, nil, func(d []byte) []byte { return encodeBloscLZ4(b, d, 8, 1<<17) })
}

func BenchmarkBitUnshuffle(b *testing.B) {
	n, es := 1024, 8
	src := bitshuffleRef(randomWalk(n), n, es)
	dst, tmp := make([]byte, n*es), make([]byte, n*es)
	b.SetBytes(int64(n * es))
	for i := 0; i < b.N; i++ {
		bitUnshuffle(dst, src, tmp, n, es)
	}
}
