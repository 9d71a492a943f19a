package hdf5

import (
	"bytes"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// codecSeed is one call of a filter decoder made while reading the filter
// fixtures: the exact input a decoder gets from a real file, and the size
// of what it gave back.
type codecSeed struct {
	id   int
	file string // the fixture
	p    filterParams
	src  []byte
	want uint64
	n    int // the decoded size
}

// codecFixtures are the fixtures of the filters with a decoder
// (gen_filters_a.py, gen_filters_b.py).
var codecFixtures = []string{
	"filters_a/h5py.h5", "filters_a/tables.h5", "filters_a/pandas.h5",
	"filters_b_h5py.h5", "filters_b_tables.h5", "filters_b_pandas.h5", "filters_b_blosc2.h5",
	"zfp.h5",
}

var (
	codecSeedsOnce sync.Once
	codecSeedsByID map[int][]codecSeed
)

// codecSeeds returns the inputs the decoder of filter id got while every
// dataset of the filter fixtures was read (at most 20; each decoder is
// wrapped to record them, whatever its place in the pipeline).
func codecSeeds(tb testing.TB, id int) []codecSeed {
	tb.Helper()
	codecSeedsOnce.Do(func() {
		codecSeedsByID = map[int][]codecSeed{}
		saved := map[int]filterCodec{}
		var mu sync.Mutex // chunks are decoded by several goroutines
		var file string
		for id, c := range filterCodecs {
			saved[id] = c
			dec := c.decode
			filterCodecs[id] = filterCodec{name: c.name, decode: func(p filterParams, src []byte, want uint64, dst []byte) ([]byte, error) {
				out, err := dec(p, src, want, dst)
				mu.Lock()
				if err == nil && len(codecSeedsByID[id]) < 20 {
					p.CD = slices.Clone(p.CD)
					codecSeedsByID[id] = append(codecSeedsByID[id], codecSeed{id, file, p, bytes.Clone(src), want, len(out)})
				}
				mu.Unlock()
				return out, err
			}}
		}
		defer func() {
			for id, c := range saved {
				filterCodecs[id] = c
			}
		}()
		for _, name := range codecFixtures {
			f, err := OpenFile(filepath.Join("testdata", name), nil)
			if err != nil {
				continue
			}
			file = name
			f.Walk(func(p string, o Object) error {
				if ds, ok := o.(*Dataset); ok {
					ds.ReadAll()
				}
				return nil
			})
			f.Close()
		}
	})
	seeds := codecSeedsByID[id]
	if len(seeds) == 0 {
		tb.Fatalf("no fixture input for filter %d", id)
	}
	return seeds
}

// checkCodec decodes src as seed s's filter would, once into a buffer of
// its own and once into the caller's, and checks that the decoder is
// bounded and consistent: never more than the chunk can hold, and the
// same bytes both ways.
func checkCodec(t *testing.T, s codecSeed, src []byte, want uint64) {
	t.Helper()
	c := filterCodecs[s.id]
	out, err := c.decode(s.p, src, want, nil)
	if err == nil && uint64(len(out)) > codecLimit(want, nil) {
		t.Fatalf("%s %s: %d bytes decoded for a chunk of %d", s.file, c.name, len(out), want)
	}
	dst := make([]byte, want)
	out2, err2 := c.decode(s.p, src, want, dst)
	switch {
	case err2 == nil && len(out2) > len(dst):
		t.Fatalf("%s %s: %d bytes decoded for the caller's buffer of %d", s.file, c.name, len(out2), want)
	case err2 == nil && (err != nil || !bytes.Equal(out, out2)):
		t.Fatalf("%s %s: decodes differently into the caller's buffer (%v)", s.file, c.name, err)
	case err2 != nil && err == nil && uint64(len(out)) == want:
		t.Fatalf("%s %s: decodes alone but not into the caller's buffer: %v", s.file, c.name, err2)
	}
}

// fuzzCodec fuzzes the decoder of filter id from the fixtures' inputs:
// the first input byte picks the seed (and so the parameters), the
// second shifts the chunk size the decoder is told, the rest is the
// encoded chunk.
func fuzzCodec(f *testing.F, id int) {
	seeds := codecSeeds(f, id)
	for k, s := range seeds {
		f.Add(append([]byte{byte(k), 0}, s.src...))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		defer watchdog(in).Stop()
		s := seeds[int(in[0])%len(seeds)]
		want := s.want
		if d := int8(in[1]); d < 0 {
			want -= min(want, uint64(-d))
		} else {
			want += uint64(d)
		}
		want = min(want, 1<<22)
		checkCodec(t, s, in[2:], want)
	})
}

func FuzzSZIP(f *testing.F)        { fuzzCodec(f, FilterSZIP) }
func FuzzNBit(f *testing.F)        { fuzzCodec(f, FilterNBit) }
func FuzzScaleOffset(f *testing.F) { fuzzCodec(f, FilterScaleOffset) }
func FuzzLZO(f *testing.F)         { fuzzCodec(f, 305) }
func FuzzBZip2(f *testing.F)       { fuzzCodec(f, 307) }
func FuzzLZF(f *testing.F)         { fuzzCodec(f, 32000) }
func FuzzBlosc(f *testing.F)       { fuzzCodec(f, 32001) }
func FuzzLZ4(f *testing.F)         { fuzzCodec(f, 32004) }
func FuzzBitshuffle(f *testing.F)  { fuzzCodec(f, 32008) }
func FuzzZstd(f *testing.F)        { fuzzCodec(f, 32015) }
func FuzzBlosc2(f *testing.F)      { fuzzCodec(f, 32026) }

// TestCodecMutations runs every decoder on its fixture inputs with bytes
// flipped, cut short, extended, and with chunk sizes a little off or
// halved: never a panic, a hang, more output than the chunk holds or a
// difference between decoding into the caller's buffer and not (the
// fuzz targets' checks, on a fixed set of inputs). Each fixture input
// first decodes to what it gave while the fixture was read.
func TestCodecMutations(t *testing.T) {
	ids := make([]int, 0, len(filterCodecs))
	for id := range filterCodecs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		t.Run(filterCodecs[id].name, func(t *testing.T) {
			seeds := codecSeeds(t, id)
			n, positions := 6, 64
			if testing.Short() {
				n = 2
			}
			if id == 307 {
				// Go's bzip2 reader allocates its block (up to 3.6 MB) on each use.
				n, positions = 1, 8
			}
			for _, s := range seeds[:min(len(seeds), n)] {
				out, err := filterCodecs[id].decode(s.p, s.src, s.want, nil)
				if err != nil || len(out) != s.n {
					t.Errorf("%s: fixture input: %d bytes, %v; want %d", s.file, len(out), err, s.n)
				}
				checkCodec(t, s, s.src, s.want)
				step := max(1, len(s.src)/positions)
				buf := make([]byte, len(s.src))
				for i := 0; i < len(s.src); i += step {
					for _, x := range []byte{0xff, 0x80, 0x01} {
						copy(buf, s.src)
						buf[i] ^= x
						checkCodec(t, s, buf, s.want)
					}
					checkCodec(t, s, s.src[:i], s.want)
				}
				checkCodec(t, s, append(bytes.Clone(s.src), 0, 1, 2, 3), s.want)
				checkCodec(t, s, s.src, s.want-min(s.want, 1))
				checkCodec(t, s, s.src, s.want/2)
			}
		})
	}
}

// BenchmarkCodecs decodes, with each decoder, the largest input it got
// from the fixtures (b.SetBytes: the decoded size).
func BenchmarkCodecs(b *testing.B) {
	for _, id := range []int{FilterSZIP, FilterNBit, FilterScaleOffset, 305, 307, 32000, 32001, 32004, 32008, 32015, 32026} {
		var s codecSeed
		for _, c := range codecSeeds(b, id) {
			if c.want > s.want {
				s = c
			}
		}
		c := filterCodecs[id]
		b.Run(c.name, func(b *testing.B) {
			dst := make([]byte, s.want)
			b.SetBytes(int64(s.want))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.decode(s.p, s.src, s.want, dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
