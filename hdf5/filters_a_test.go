package hdf5

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash/adler32"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The fixtures of the szip, n-bit, scale-offset, bzip2, lzo and lzf
// decoders, written by h5py, PyTables and pandas (testdata/gen_filters_a.py).
var filterFixturesA = []string{"h5py", "tables", "pandas"}

// TestFilterFixturesA reads every object of the filter fixtures and
// compares it with h5py's reading: shapes, layouts, filter pipelines,
// every value.
func TestFilterFixturesA(t *testing.T) {
	for _, name := range filterFixturesA {
		t.Run(name, func(t *testing.T) {
			exp := loadExpect(t, filepath.Join("filters_a", name+".json"))
			f, err := OpenFile(filepath.Join("testdata", "filters_a", name+".h5"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var walked, want []string
			if err := f.Walk(func(p string, o Object) error {
				walked = append(walked, p)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			for p := range exp {
				want = append(want, p)
			}
			sort.Strings(want)
			sort.Strings(walked)
			if !reflect.DeepEqual(walked, want) {
				t.Errorf("Walk visited %v\nwant %v", walked, want)
			}
			for _, p := range want {
				e := exp[p]
				t.Run(p, func(t *testing.T) {
					checkObject(t, f, p, e)
					if o, err := f.OpenPath(p); err == nil {
						if ds, ok := o.(*Dataset); ok {
							// The box and element readers agree.
							readDataset(t, ds)
						}
					}
				})
			}
		})
	}
}

// TestFilterStoredBytes compares the chunks the n-bit decoder rebuilds
// with the bytes HDF5 itself gives for each dataset read in its own file
// datatype (no conversion): h5py's "stored" expectation.
func TestFilterStoredBytes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "filters_a", "h5py.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp map[string]struct {
		Stored string `json:"stored"`
	}
	if err := json.Unmarshal(b, &exp); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(filepath.Join("testdata", "filters_a", "h5py.h5"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for p, e := range exp {
		if e.Stored == "" {
			continue
		}
		n++
		t.Run(p, func(t *testing.T) {
			o, err := f.OpenPath(p)
			if err != nil {
				t.Fatal(err)
			}
			ds := o.(*Dataset)
			got, err := ds.readRawAll()
			if err != nil {
				t.Fatal(err)
			}
			if want := unb64(t, e.Stored); !bytes.Equal(got, want) {
				t.Errorf("stored bytes differ:\n got %x\nwant %x", trunc(got), trunc(want))
			}
		})
	}
	if n < 8 {
		t.Errorf("%d n-bit datasets with stored bytes, want at least 8", n)
	}
}

// TestFilterPipelinesA checks that the fixtures hold what they are meant
// to test: each decoder's filter, and chunks stored unfiltered.
func TestFilterPipelinesA(t *testing.T) {
	seen := map[int]int{}
	for _, name := range filterFixturesA {
		f, err := OpenFile(filepath.Join("testdata", "filters_a", name+".h5"), nil)
		if err != nil {
			t.Fatal(err)
		}
		f.Walk(func(p string, o Object) error {
			if ds, ok := o.(*Dataset); ok && ds.Layout() != nil {
				for _, fl := range ds.Layout().Filters {
					seen[fl.ID]++
				}
			}
			return nil
		})
		f.Close()
	}
	for _, id := range []int{FilterSZIP, FilterNBit, FilterScaleOffset, 305, 307, 32000} {
		if seen[id] < 2 {
			t.Errorf("filter %d in %d datasets, want at least 2", id, seen[id])
		}
	}
	if !strings.Contains(filterName(32000), "lzf") {
		t.Errorf("filter 32000 named %q", filterName(32000))
	}
}

// TestLZO1XStreams decodes LZO1X streams written by liblzo2's fast coder
// (PyTables' choice) and its best one, which uses the instructions the
// fast one leaves out (2- and 3-byte matches, the first literal run code).
func TestLZO1XStreams(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "filters_a", "lzo1x.json"))
	if err != nil {
		t.Fatal(err)
	}
	var streams []struct {
		Name   string `json:"name"`
		Stream string `json:"stream"`
		Len    int    `json:"len"`
		SHA256 string `json:"sha256"`
	}
	if err := json.Unmarshal(b, &streams); err != nil {
		t.Fatal(err)
	}
	if len(streams) < 6 {
		t.Fatalf("%d streams", len(streams))
	}
	for _, s := range streams {
		t.Run(s.Name, func(t *testing.T) {
			src := unb64(t, s.Stream)
			for _, dst := range [][]byte{nil, make([]byte, s.Len)} {
				got, err := decodeLZO(filterParams{}, src, uint64(s.Len), dst)
				if err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(got)
				if len(got) != s.Len || hex.EncodeToString(sum[:]) != s.SHA256 {
					t.Errorf("decoded %d bytes, sha256 %x; want %d, %s", len(got), sum, s.Len, s.SHA256)
				}
			}
			// With the checksum and length PyTables before 0.8 appended.
			trailer := binary.LittleEndian.AppendUint32(nil, adler32Of(t, src, s.Len))
			trailer = binary.LittleEndian.AppendUint32(trailer, uint32(s.Len))
			if got, err := decodeLZO(filterParams{}, append(bytes.Clone(src), trailer...), uint64(s.Len), nil); err != nil || len(got) != s.Len {
				t.Errorf("with a checksum trailer: %d bytes, %v", len(got), err)
			}
			// One byte less room than the stream decodes to: refused.
			if s.Len > 0 {
				if _, err := decodeLZO(filterParams{}, src, uint64(s.Len-1), make([]byte, s.Len-1)); err == nil {
					t.Error("decoded into a chunk one byte too small")
				}
			}
		})
	}
}

// TestLZFFixture reads lzf.h5 (gen_h5py.py): repeat(arange(10), 100).
func TestLZFFixture(t *testing.T) {
	f, err := OpenFile("testdata/lzf.h5", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o, err := f.OpenPath("/lzf")
	if err != nil {
		t.Fatal(err)
	}
	got, err := o.(*Dataset).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 4000)
	for i := 0; i < 1000; i++ {
		binary.LittleEndian.PutUint32(want[4*i:], uint32(i/100))
	}
	if !bytes.Equal(got, want) {
		t.Errorf("lzf.h5 values differ")
	}
}

// TestCodecInvalid feeds each decoder malformed parameters or data: each
// gives an error saying what is wrong.
func TestCodecInvalid(t *testing.T) {
	so := func(scaleType, factor, n, class, size uint32) []uint32 {
		cd := make([]uint32, 20)
		cd[0], cd[1], cd[2], cd[3], cd[4] = scaleType, factor, n, class, size
		return cd
	}
	soHeader := func(minbits uint32) []byte {
		b := make([]byte, 21)
		binary.LittleEndian.PutUint32(b, minbits)
		b[4] = 8
		return b
	}
	szipChunk := func(n uint32, stream ...byte) []byte {
		return append(binary.LittleEndian.AppendUint32(nil, n), stream...)
	}
	bz := []byte("BZh91AY&SY")
	cases := []struct {
		name string
		id   int
		cd   []uint32
		src  []byte
		want uint64
		err  string
	}{
		{"lzf literal past end", 32000, nil, []byte{5, 1, 2}, 16, "past the end"},
		{"lzf reference before start", 32000, nil, []byte{0, 'a', 0x20, 5}, 16, "back reference 6 bytes back"},
		{"lzf reference truncated", 32000, nil, []byte{0, 'a', 0xe0}, 16, "truncated"},
		{"lzf over the chunk", 32000, nil, []byte{0, 'a', 0xe0, 255, 0}, 3, "decodes to over"},
		{"lzo empty", 305, nil, nil, 16, "truncated"},
		{"lzo no end marker", 305, nil, []byte{2, 'a', 'b', 'c', 'd', 'e'}, 16, "truncated"},
		{"lzo match before start", 305, nil, []byte{21, 'a', 'b', 'c', 'd', 0x40, 9}, 16, "match 73 bytes back with only 4"},
		{"lzo over the chunk", 305, nil, []byte{21, 'a', 'b', 'c', 'd', 0x3f, 0, 0, 0x3f, 0, 0, 0x11, 0, 0}, 3, "decodes to over"},
		{"lzo trailing bytes", 305, nil, []byte{21, 'a', 'b', 'c', 'd', 0x11, 0, 0, 1, 2}, 16, "2 bytes after the end"},
		{"lzo bad checksum", 305, nil, []byte{21, 'a', 'b', 'c', 'd', 0x11, 0, 0, 1, 2, 3, 4, 4, 0, 0, 0}, 16, "Adler-32 checksum mismatch"},
		{"lzo bad length", 305, nil, []byte{21, 'a', 'b', 'c', 'd', 0x11, 0, 0, 1, 2, 3, 4, 5, 0, 0, 0}, 16, "trailer gives 5 decoded bytes"},
		{"bzip2 garbage", 307, []uint32{9}, []byte("not bzip2"), 16, "bzip2"},
		{"bzip2 truncated", 307, []uint32{9}, bz, 16, "EOF"},
		{"nbit short", 5, []uint32{4, 0, 1, 1}, nil, 4, "at least 5"},
		{"nbit count", 5, []uint32{9, 0, 1, 1, 4, 0, 12, 0}, nil, 4, "the first says 9"},
		{"nbit precision 0", 5, []uint32{8, 0, 1, 1, 4, 0, 0, 0}, []byte{0}, 4, "precision 0"},
		{"nbit precision over size", 5, []uint32{8, 0, 1, 1, 4, 0, 30, 4}, []byte{0, 0, 0, 0}, 4, "precision 30 at bit offset 4"},
		{"nbit class", 5, []uint32{5, 0, 1, 7, 4}, nil, 4, "class code 7"},
		{"nbit elements over chunk", 5, []uint32{8, 0, 99, 1, 4, 0, 12, 0}, nil, 4, "99 elements of 4 bytes"},
		{"nbit data short", 5, []uint32{8, 0, 2, 1, 4, 0, 12, 0}, []byte{0xff, 0xff}, 8, "element 1: packed data ends early"},
		{"nbit member overflow", 5, []uint32{15, 0, 1, 3, 4, 1, 2, 1, 4, 0, 8, 0, 9, 9, 9}, []byte{0}, 4, "overflows the 4-byte compound"},
		{"nbit extra parameters", 5, []uint32{9, 0, 1, 1, 4, 0, 12, 0, 3}, []byte{0, 0}, 4, "1 parameters after"},
		{"nbit stored chunk too big", 5, []uint32{8, 1, 1, 1, 4, 0, 32, 0}, make([]byte, 100), 4, "stored chunk of 100 bytes"},
		{"scaleoffset count", 6, []uint32{2, 0, 1, 0, 4}, nil, 4, "want 20"},
		{"scaleoffset E scaling", 6, so(1, 3, 1, 1, 4), soHeader(8), 4, "E) scaling"},
		{"scaleoffset 3-byte integers", 6, so(2, 0, 1, 0, 3), soHeader(8), 3, "size 3"},
		{"scaleoffset minbits over size", 6, so(2, 0, 1, 0, 2), soHeader(17), 2, "17 bits per value"},
		{"scaleoffset short header", 6, so(2, 0, 1, 0, 4), []byte{1, 0, 0}, 4, "21-byte header"},
		{"scaleoffset short data", 6, so(2, 0, 10, 0, 4), append(soHeader(9), 0, 0), 40, "2 bytes of packed values for 12"},
		{"scaleoffset elements over chunk", 6, so(2, 0, 100, 0, 4), soHeader(9), 8, "100 elements of 4 bytes"},
		{"szip parameters", 4, []uint32{141, 8}, szipChunk(8), 8, "want 4"},
		{"szip bits per pixel", 4, []uint32{141, 8, 40, 8}, szipChunk(8), 8, "40 bits per pixel"},
		{"szip odd block", 4, []uint32{141, 7, 8, 8}, szipChunk(8), 8, "7 pixels per block"},
		{"szip scanline", 4, []uint32{141, 8, 8, 2000}, szipChunk(8), 8, "2000 pixels per scanline"},
		{"szip no header", 4, []uint32{141, 8, 8, 8}, []byte{8, 0}, 8, "size header"},
		{"szip size over chunk", 4, []uint32{141, 8, 8, 8}, szipChunk(1000, 0xff), 8, "decoded size 1000 over"},
		{"szip half samples", 4, []uint32{141, 8, 16, 8}, szipChunk(7, 0xff), 8, "whole number of 2-byte samples"},
		{"szip stream short", 4, []uint32{141, 8, 8, 8}, szipChunk(8, 0xe0), 8, "ends early"},
		{"szip second extension code", 4, []uint32{141, 8, 8, 8}, szipChunk(8, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), 8, "second extension code"},
		{"szip zero run past RSI", 4, []uint32{141, 8, 8, 8}, szipChunk(8, 0x00, 0x08), 8, "zero blocks"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, dst := range [][]byte{nil, make([]byte, c.want)} {
				_, err := filterCodecs[c.id].decode(filterParams{CD: c.cd}, c.src, c.want, dst)
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("error %v, want one containing %q", err, c.err)
				}
			}
		})
	}
}

// TestCorruptChunkNamed overwrites one stored chunk of a dataset of each
// decoder but n-bit (whose packed bits have no redundancy) past its first
// bytes: reading gives ErrFormat naming the dataset, the filter and the
// chunk's address.
func TestCorruptChunkNamed(t *testing.T) {
	for _, c := range []struct{ file, path, filter string }{
		{"h5py", "/lzf/i4_1d", "lzf"}, {"h5py", "/szip/nn16_u2", "szip"}, {"h5py", "/scaleoffset/i4", "scaleoffset"},
		{"tables", "/lzo/mixed", "lzo"}, {"tables", "/bzip2/mixed", "bzip2"},
	} {
		t.Run(c.path, func(t *testing.T) {
			base, err := os.ReadFile(filepath.Join("testdata", "filters_a", c.file+".h5"))
			if err != nil {
				t.Fatal(err)
			}
			f, err := openBytes(base)
			if err != nil {
				t.Fatal(err)
			}
			o, err := f.OpenPath(c.path)
			if err != nil {
				t.Fatal(err)
			}
			cr, err := newChunkReader(o.(*Dataset))
			if err != nil {
				t.Fatal(err)
			}
			rec, ok, err := cr.lookup(make([]uint64, len(o.(*Dataset).Shape())))
			if err != nil || !ok {
				t.Fatalf("first chunk: %v %v", ok, err)
			}
			b := bytes.Clone(base)
			for i := rec.addr + min(rec.size, 2); i < rec.addr+rec.size; i++ {
				b[i] = 0xff
			}
			f, err = openBytes(b)
			if err != nil {
				t.Fatal(err)
			}
			o, err = f.OpenPath(c.path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = o.(*Dataset).ReadAll()
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.path+": "+c.filter+" chunk") || !strings.Contains(err.Error(), "at address") {
				t.Errorf("error %v", err)
			} else {
				t.Log(err)
			}
		})
	}
}

// adler32Of is the Adler-32 checksum of what src decodes to.
func adler32Of(t *testing.T, src []byte, n int) uint32 {
	out, err := decodeLZO(filterParams{}, src, uint64(n), nil)
	if err != nil {
		t.Fatal(err)
	}
	return adler32.Checksum(out)
}
