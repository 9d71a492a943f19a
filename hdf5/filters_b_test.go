package hdf5

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// expFiltered is one dataset of the gen_filters_b.py expectations: the
// fields of gen_h5py.py's format, with the raw bytes zlib-compressed.
type expFiltered struct {
	expObject
	Rawz string `json:"rawz"`
}

func loadExpectZ(t *testing.T, name string) map[string]expObject {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]expFiltered
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	out := make(map[string]expObject, len(m))
	for p, e := range m {
		zr, err := zlib.NewReader(bytes.NewReader(unb64(t, e.Rawz)))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		e.Raw = base64.StdEncoding.EncodeToString(raw)
		out[p] = e.expObject
	}
	return out
}

// TestFiltersB reads the datasets compressed with blosc, lz4, bitshuffle,
// zstd and blosc2 by their producers (gen_filters_b.py) and compares them
// with h5py's reading.
func TestFiltersB(t *testing.T) {
	for _, name := range []string{"filters_b_h5py", "filters_b_tables", "filters_b_pandas", "filters_b_blosc2"} {
		t.Run(name, func(t *testing.T) {
			exp := loadExpectZ(t, name+".json")
			f, err := OpenFile(filepath.Join("testdata", name+".h5"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			// Every dataset using one of these filters has an expectation.
			seen := map[string]bool{}
			err = f.Walk(func(p string, o Object) error {
				ds, ok := o.(*Dataset)
				if !ok {
					return nil
				}
				for _, fl := range ds.Layout().Filters {
					if _, ok := exp[p]; !ok && fl.ID >= 32001 && fl.ID <= 32026 {
						t.Errorf("%s (filter %d) has no expectation", p, fl.ID)
					}
				}
				seen[p] = true
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for p := range exp {
				if !seen[p] {
					t.Errorf("%s not found", p)
				}
				paths = append(paths, p)
			}
			sort.Strings(paths)
			if len(paths) < 5 {
				t.Fatalf("only %d datasets", len(paths))
			}
			for _, p := range paths {
				t.Run(p, func(t *testing.T) {
					o, err := f.OpenPath(p)
					if err != nil {
						t.Fatal(err)
					}
					checkDataset(t, f, o.(*Dataset), exp[p])
				})
			}
		})
	}
}

// TestFiltersBBad reads chunks that must be refused: a clean error naming
// the dataset and the filter, malformed (ErrFormat) or unsupported.
func TestFiltersBBad(t *testing.T) {
	f, err := OpenFile("testdata/filters_b_bad.h5", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range []struct {
		path, want string
		kind       error
	}{
		{"/bitshuffle_zstd_debian", "stored uncompressed while the filter says Zstandard", ErrFormat},
		{"/blosc_huge", "declares 1073741824 decoded bytes for a chunk of 400", ErrFormat},
		{"/lz4_huge", "declares 1099511627776 decoded bytes", ErrFormat},
		{"/blosc2_plugin_codec", "blosc2 plugin codec 33 (zfp (fixed accuracy))", ErrUnsupported},
	} {
		t.Run(c.path, func(t *testing.T) {
			o, err := f.OpenPath(c.path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = o.(*Dataset).ReadAll()
			if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
				t.Errorf("got %v, want %v naming %q and %s", err, c.kind, c.want, c.path)
			}
		})
	}
}

// codecSeed is one stored chunk of a fixture and what its decoder is told.
type codecSeed struct {
	id    int
	name  string // dataset path
	p     filterParams
	want  uint64
	chunk []byte
}

// codecSeeds returns the first stored chunk of every dataset of the
// gen_filters_b.py fixtures whose only filter is id.
func codecSeeds(tb testing.TB, id int) []codecSeed {
	tb.Helper()
	var seeds []codecSeed
	for _, name := range []string{"filters_b_h5py", "filters_b_tables", "filters_b_pandas", "filters_b_blosc2"} {
		f, err := OpenFile(filepath.Join("testdata", name+".h5"), nil)
		if err != nil {
			tb.Fatal(err)
		}
		err = f.Walk(func(p string, o Object) error {
			ds, ok := o.(*Dataset)
			if !ok || len(ds.Layout().Filters) != 1 || ds.Layout().Filters[0].ID != id {
				return nil
			}
			r, err := newChunkReader(ds)
			if err != nil {
				return err
			}
			c, ok, err := r.locate(make([]uint64, len(r.dims)))
			if err != nil || !ok || c.mask != 0 {
				return err
			}
			b, err := f.readAt(c.addr, c.size, "chunk")
			if err != nil {
				return err
			}
			seeds = append(seeds, codecSeed{id, name + ":" + p, filterParams{CD: ds.Layout().Filters[0].Params, ElemSize: r.elemSize}, r.layout.chunkSize, b})
			return nil
		})
		f.Close()
		if err != nil {
			tb.Fatal(err)
		}
	}
	if len(seeds) == 0 {
		tb.Fatalf("no chunk with filter %d", id)
	}
	return seeds
}

// checkCodec decodes chunk as seed s's filter would and checks that the
// decoder is bounded and consistent: it never panics, never returns more
// than the chunk's size, and decodes the same into the caller's buffer as
// into its own.
func checkCodec(t *testing.T, s codecSeed, chunk []byte, want uint64) {
	c := filterCodecs[s.id]
	out, err := c.decode(s.p, chunk, want, nil)
	if err == nil && uint64(len(out)) > want+filterSlack {
		t.Fatalf("%s: %d bytes decoded for a chunk of %d", s.name, len(out), want)
	}
	dst := make([]byte, want)
	out2, err2 := c.decode(s.p, chunk, want, dst)
	if err2 == nil {
		if len(out2) != len(dst) || (len(dst) > 0 && &out2[0] != &dst[0]) {
			t.Fatalf("%s: decoded into a buffer of its own", s.name)
		}
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("%s: decodes differently into the caller's buffer (%v)", s.name, err)
		}
	} else if err == nil && uint64(len(out)) == want {
		t.Fatalf("%s: decodes alone but not into the caller's buffer: %v", s.name, err2)
	}
}

// fuzzCodec fuzzes the decoder of filter id with the fixtures' chunks:
// the first input byte picks the seed chunk (and so the parameters), the
// second shifts the chunk size the decoder is told, the rest is the
// chunk.
func fuzzCodec(f *testing.F, id int) {
	seeds := codecSeeds(f, id)
	for k, s := range seeds {
		f.Add(append([]byte{byte(k), 0}, s.chunk...))
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
		checkCodec(t, s, in[2:], want)
	})
}

// TestFilterChunkMutations flips, truncates and extends the fixtures'
// stored chunks for each filter: every decoder must stay bounded and
// consistent (checkCodec), whatever the damage.
func TestFilterChunkMutations(t *testing.T) {
	for _, id := range []int{32001, 32004, 32008, 32015, 32026} {
		seeds := codecSeeds(t, id)
		if testing.Short() {
			seeds = seeds[:min(len(seeds), 3)]
		}
		for _, s := range seeds {
			checkCodec(t, s, s.chunk, s.want)
			ok, err := filterCodecs[id].decode(s.p, s.chunk, s.want, nil)
			if err != nil || uint64(len(ok)) != s.want {
				t.Errorf("%s: fixture chunk: %d bytes, %v", s.name, len(ok), err)
			}
			step := max(1, len(s.chunk)/64)
			buf := make([]byte, len(s.chunk))
			for i := 0; i < len(s.chunk); i += step {
				for _, x := range []byte{0xff, 0x80, 0x01} {
					copy(buf, s.chunk)
					buf[i] ^= x
					checkCodec(t, s, buf, s.want)
				}
				checkCodec(t, s, s.chunk[:i], s.want)
			}
			checkCodec(t, s, append(append([]byte(nil), s.chunk...), 0, 1, 2, 3), s.want)
			checkCodec(t, s, s.chunk, s.want/2)
		}
	}
}
