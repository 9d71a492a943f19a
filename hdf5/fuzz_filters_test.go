package hdf5

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"sync"
	"testing"
)

// codecSeed is one call of a filter decoder made while reading the filter
// fixtures: the exact input a decoder gets from a real file.
type codecSeed struct {
	cd   []uint32
	src  []byte
	want uint64
}

var (
	codecSeedsOnce sync.Once
	codecSeedsByID map[int][]codecSeed
)

// codecSeeds reads every dataset of the filter fixtures with each
// decoder wrapped to record its inputs (up to 20 per filter).
func codecSeeds(tb testing.TB) map[int][]codecSeed {
	codecSeedsOnce.Do(func() {
		codecSeedsByID = map[int][]codecSeed{}
		saved := map[int]filterCodec{}
		var mu sync.Mutex
		for id, c := range filterCodecs {
			saved[id] = c
			dec := c.decode
			filterCodecs[id] = filterCodec{name: c.name, decode: func(p filterParams, src []byte, want uint64, dst []byte) ([]byte, error) {
				// Chunks are decoded by several goroutines.
				mu.Lock()
				if len(codecSeedsByID[id]) < 20 {
					codecSeedsByID[id] = append(codecSeedsByID[id], codecSeed{cd: append([]uint32(nil), p.CD...), src: bytes.Clone(src), want: want})
				}
				mu.Unlock()
				return dec(p, src, want, dst)
			}}
		}
		defer func() {
			for id, c := range saved {
				filterCodecs[id] = c
			}
		}()
		for _, name := range filterFixturesA {
			f, err := OpenFile(filepath.Join("testdata", "filters_a", name+".h5"), nil)
			if err != nil {
				continue
			}
			f.Walk(func(p string, o Object) error {
				if ds, ok := o.(*Dataset); ok {
					ds.ReadAll()
				}
				return nil
			})
			f.Close()
		}
	})
	return codecSeedsByID
}

func cdBytes(cd []uint32) []byte {
	b := make([]byte, 4*len(cd))
	for i, v := range cd {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

func cdValues(b []byte) []uint32 {
	cd := make([]uint32, min(len(b)/4, 256))
	for i := range cd {
		cd[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return cd
}

// fuzzCodec fuzzes one decoder with its cd_values, input and chunk size,
// seeded from the fixtures: it must not panic, hang or produce more than
// the chunk can hold, and it decodes alike into a given buffer or not.
func fuzzCodec(f *testing.F, id int) {
	seeds := codecSeeds(f)[id]
	if len(seeds) == 0 {
		f.Fatalf("no seeds for filter %d", id)
	}
	for _, s := range seeds {
		f.Add(cdBytes(s.cd), s.src, uint32(s.want))
	}
	dec := filterCodecs[id].decode
	f.Fuzz(func(t *testing.T, cdb, src []byte, want uint32) {
		defer watchdog(src).Stop()
		want %= 1 << 22
		cd := cdValues(cdb)
		a, errA := dec(filterParams{CD: cd, ElemSize: 4}, src, uint64(want), nil)
		if errA == nil && uint64(len(a)) > uint64(want)+codecSlack {
			t.Fatalf("%d bytes decoded for a chunk of %d", len(a), want)
		}
		dst := make([]byte, want)
		b, errB := dec(filterParams{CD: cd, ElemSize: 4}, src, uint64(want), dst)
		if errB == nil && uint64(len(b)) > uint64(want) {
			t.Fatalf("%d bytes decoded into a buffer of %d", len(b), want)
		}
		if errA == nil && errB == nil && !bytes.Equal(a, b) {
			t.Fatalf("decoding into a buffer differs")
		}
		if errA != nil && errB == nil {
			t.Fatalf("decodes into a buffer only: %v", errA)
		}
	})
}

func FuzzSZIP(f *testing.F)        { fuzzCodec(f, FilterSZIP) }
func FuzzNBit(f *testing.F)        { fuzzCodec(f, FilterNBit) }
func FuzzScaleOffset(f *testing.F) { fuzzCodec(f, FilterScaleOffset) }
func FuzzLZO(f *testing.F)         { fuzzCodec(f, 305) }
func FuzzBZip2(f *testing.F)       { fuzzCodec(f, 307) }
func FuzzLZF(f *testing.F)         { fuzzCodec(f, 32000) }

// TestCodecMutations runs every decoder on its fixture inputs cut short,
// with bytes changed and with chunk sizes a little off: never a panic, a
// hang or more output than the chunk holds (the fuzz targets' checks, on
// a fixed set of inputs).
func TestCodecMutations(t *testing.T) {
	seeds := codecSeeds(t)
	rng := uint64(1)
	next := func(n int) int {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return int(rng % uint64(n))
	}
	for id, list := range seeds {
		dec := filterCodecs[id].decode
		n, flips := 4, 16
		if id == 307 {
			n, flips = 1, 6 // Go's bzip2 reader allocates its block (up to 3.6 MB) on each use
		}
		for _, s := range list[:min(len(list), n)] {
			var inputs [][]byte
			for _, cut := range []int{0, 1, 4, 21, len(s.src) / 2, len(s.src) - 1} {
				if cut >= 0 && cut < len(s.src) {
					inputs = append(inputs, s.src[:cut])
				}
			}
			for k := 0; k < flips && len(s.src) > 0; k++ {
				m := bytes.Clone(s.src)
				m[next(len(m))] ^= byte(1 + next(255))
				inputs = append(inputs, m)
			}
			for _, src := range inputs {
				for _, want := range []uint64{s.want, s.want - 1} {
					for _, dst := range [][]byte{nil, make([]byte, want)} {
						out, err := dec(filterParams{CD: s.cd}, src, want, dst)
						if err == nil && uint64(len(out)) > codecLimit(want, dst) {
							t.Fatalf("filter %d: %d bytes decoded for a chunk of %d", id, len(out), want)
						}
					}
				}
			}
		}
	}
}

// BenchmarkCodecs decodes, with each decoder, the largest input it got
// from the fixtures (b.SetBytes: the decoded size).
func BenchmarkCodecs(b *testing.B) {
	for _, id := range []int{FilterSZIP, FilterNBit, FilterScaleOffset, 305, 307, 32000} {
		var s codecSeed
		for _, c := range codecSeeds(b)[id] {
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
				if _, err := c.decode(filterParams{CD: s.cd}, s.src, s.want, dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
