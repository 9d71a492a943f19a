package hdf5

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/npyflow/npyflow/npyio"
)

// wMixed is n bytes: runs of random bytes and of a repeated pattern.
func wMixed(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := 0; i < n; {
		k := min(n-i, 1+rng.IntN(300))
		if rng.IntN(2) == 0 {
			for j := range k {
				b[i+j] = byte(rng.Uint32())
			}
		} else {
			for j := range k {
				b[i+j] = byte(j % 7)
			}
		}
		i += k
	}
	return b
}

func wNoise(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// TestWriteLZ4Framing checks the plugin's framing block by block: sizes in
// the header, raw blocks where LZ4 does not shrink them, and that the
// reader's decoder gives the input back.
func TestWriteLZ4Framing(t *testing.T) {
	cases := []struct {
		name  string
		src   []byte
		block int
		raw   []bool // per block: stored raw
	}{
		{"one byte", []byte{42}, wLZ4Block, []bool{true}},
		{"small zeros", make([]byte, 20), wLZ4Block, []bool{false}},
		{"noise", wNoise(5000, 1), wLZ4Block, []bool{true}},
		{"zeros", make([]byte, 5000), wLZ4Block, []bool{false}},
		{"mixed", wMixed(100000, 2), wLZ4Block, []bool{false}},
		{"blocks", append(append(make([]byte, 3000), wNoise(3000, 3)...), make([]byte, 1500)...), 1000,
			[]bool{false, false, false, true, true, true, false, false}},
		{"last block short and raw", append(make([]byte, 2048), wNoise(100, 4)...), 1024, []bool{false, false, true}},
	}
	var e wEncoders
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := e.lz4(c.src, c.block)
			if got := binary.BigEndian.Uint64(out); got != uint64(len(c.src)) {
				t.Fatalf("decoded size %d, want %d", got, len(c.src))
			}
			block := min(c.block, len(c.src))
			if got := binary.BigEndian.Uint32(out[8:]); got != uint32(block) {
				t.Fatalf("block size %d, want %d", got, block)
			}
			in := out[12:]
			for i, raw := range c.raw {
				n := min(block, len(c.src)-i*block)
				stored := int(binary.BigEndian.Uint32(in))
				if raw != (stored == n) || stored > n {
					t.Errorf("block %d: %d bytes stored for %d (raw %v)", i, stored, n, raw)
				}
				if raw && !bytes.Equal(in[4:4+stored], c.src[i*block:i*block+n]) {
					t.Errorf("block %d: raw bytes differ", i)
				}
				in = in[4+stored:]
			}
			if len(in) != 0 {
				t.Errorf("%d bytes after the last block", len(in))
			}
			got, err := decodeLZ4(filterParams{CD: []uint32{0}}, out, uint64(len(c.src)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, c.src) {
				t.Fatal("decoded bytes differ")
			}
		})
	}
}

// TestWriteZstdFrames checks that every chunk is one frame declaring its
// content size (the reference plugin sizes its output with it, also for
// chunks under 256 bytes) and no checksum, as libzstd's ZSTD_compress
// writes, at each level.
func TestWriteZstdFrames(t *testing.T) {
	var e wEncoders
	defer e.close()
	for _, level := range []int{1, 3, 19} {
		for _, n := range []int{1, 16, 255, 256, 1000, 1024, 1025, 70000, 9 << 20} {
			src := wMixed(n, uint64(n))
			out, err := e.compress(CompressionZstd, level, src)
			if err != nil {
				t.Fatal(err)
			}
			var h zstd.Header
			if err := h.Decode(out); err != nil {
				t.Fatalf("level %d, %d bytes: %v", level, n, err)
			}
			if !h.HasFCS || h.FrameContentSize != uint64(n) || h.HasCheckSum {
				t.Errorf("level %d, %d bytes: content size %v %d, checksum %v", level, n, h.HasFCS, h.FrameContentSize, h.HasCheckSum)
			}
			got, err := decodeZstd(filterParams{CD: []uint32{uint32(level)}}, out, uint64(n), nil)
			if err != nil {
				t.Fatalf("level %d, %d bytes: %v", level, n, err)
			}
			if !bytes.Equal(got, src) {
				t.Fatalf("level %d, %d bytes: decoded bytes differ", level, n)
			}
		}
	}
}

// TestWriteFilterPipeline reads back the pipeline message: ids, the names
// the reference plugins register, cd_values and order.
func TestWriteFilterPipeline(t *testing.T) {
	cases := []struct {
		opts DatasetOptions
		want []Filter
	}{
		{DatasetOptions{Compression: CompressionLZ4}, []Filter{{ID: 32004, Name: wFilterLZ4Name, Optional: true, Params: []uint32{0}}}},
		{DatasetOptions{Compression: CompressionZstd, Shuffle: true}, []Filter{
			{ID: 2, Name: "shuffle", Optional: true, Params: []uint32{8}},
			{ID: 32015, Name: wFilterZstdName, Optional: true, Params: []uint32{3}}}},
		{DatasetOptions{Compression: CompressionZstd, Level: 19}, []Filter{{ID: 32015, Name: wFilterZstdName, Optional: true, Params: []uint32{19}}}},
		{DatasetOptions{Compression: CompressionDeflate}, []Filter{{ID: 1, Name: "deflate", Optional: true, Params: []uint32{4}}}},
		{DatasetOptions{Compression: CompressionDeflate, Level: 9}, []Filter{{ID: 1, Name: "deflate", Optional: true, Params: []uint32{9}}}},
		{DatasetOptions{Deflate: 2}, []Filter{{ID: 1, Name: "deflate", Optional: true, Params: []uint32{2}}}},
		{DatasetOptions{Compression: CompressionNone, Chunk: []uint64{10}}, nil},
		{DatasetOptions{Compression: CompressionNone, Shuffle: true}, []Filter{{ID: 2, Name: "shuffle", Optional: true, Params: []uint32{8}}}},
	}
	for _, c := range cases {
		m := &wMem{}
		w := wOK(NewWriter(m, nil))
		d := wOK(w.Root().CreateDataset("x", npyio.Float64Type, []uint64{100}, &c.opts))
		data := wTestData(npyio.Float64Type, 100)
		if err := d.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f := wOK(Open(bytes.NewReader(m.b), int64(len(m.b)), nil))
		ds := wOK(f.OpenPath("/x")).(*Dataset)
		lay := ds.Layout()
		if lay.Class != LayoutChunked {
			t.Errorf("%+v: layout %d", c.opts, lay.Class)
		}
		if len(lay.Filters) != len(c.want) {
			t.Fatalf("%+v: filters %+v, want %+v", c.opts, lay.Filters, c.want)
		}
		for i, fl := range lay.Filters {
			wf := c.want[i]
			if fl.ID != wf.ID || fl.Name != wf.Name || fl.Optional != wf.Optional || !slices.Equal(fl.Params, wf.Params) {
				t.Errorf("%+v: filter %d is %+v, want %+v", c.opts, i, fl, wf)
			}
		}
		if got := wOK(ds.ReadAll()); !bytes.Equal(got, data) {
			t.Errorf("%+v: data differ", c.opts)
		}
	}
}

func TestParseCompression(t *testing.T) {
	for _, c := range Compressions {
		if got, err := ParseCompression(string(c)); err != nil || got != c {
			t.Errorf("ParseCompression(%q) = %q, %v", c, got, err)
		}
	}
	for _, s := range []string{"", "gzip", "LZ4", "zlib", "blosc"} {
		_, err := ParseCompression(s)
		if err == nil || !strings.Contains(err.Error(), `"`+s+`"`) || !strings.Contains(err.Error(), "deflate, lz4, zstd, none") {
			t.Errorf("ParseCompression(%q): %v", s, err)
		}
	}
}

// TestWriteCompressionOptionErrors: each bad combination is refused when
// the dataset is created, naming the dataset and the bad value.
func TestWriteCompressionOptionErrors(t *testing.T) {
	cases := []struct {
		opts DatasetOptions
		want string
	}{
		{DatasetOptions{Compression: "lzf"}, `compression "lzf" is not one of deflate, lz4, zstd, none`},
		{DatasetOptions{Compression: "LZ4"}, `compression "LZ4" is not one of`},
		{DatasetOptions{Compression: CompressionLZ4, Level: 3}, "compression lz4 has no level (got 3)"},
		{DatasetOptions{Compression: CompressionNone, Level: 1}, "compression none has no level (got 1)"},
		{DatasetOptions{Compression: CompressionZstd, Level: 23}, "zstd level 23 is not 1-22"},
		{DatasetOptions{Compression: CompressionZstd, Level: -1}, "zstd level -1 is not 1-22"},
		{DatasetOptions{Compression: CompressionDeflate, Level: 10}, "deflate level 10 is not 1-9"},
		{DatasetOptions{Level: 5}, "compression level 5 without a Compression"},
		{DatasetOptions{Deflate: 10}, "deflate level 10 is not 0-9"},
		{DatasetOptions{Deflate: 3, Compression: CompressionZstd}, `option Deflate 3 with Compression "zstd" and Level 0`},
		{DatasetOptions{Deflate: 3, Level: 3}, `option Deflate 3 with Compression "" and Level 3`},
		{DatasetOptions{Compression: CompressionLZ4, Contiguous: true}, "the contiguous layout has no chunks, filters"},
	}
	for _, c := range cases {
		m := &wMem{}
		w := wOK(NewWriter(m, nil))
		_, err := w.Root().CreateDataset("x", npyio.Float64Type, []uint64{10}, &c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "/x") {
			t.Errorf("%+v: error %v, want one with %q", c.opts, err, c.want)
		}
	}
	// A scalar cannot be chunked, so it cannot be compressed.
	w := wOK(NewWriter(&wMem{}, nil))
	if _, err := w.Root().CreateDataset("s", npyio.Float64Type, nil, &DatasetOptions{Compression: CompressionZstd}); err == nil {
		t.Error("compressed scalar: no error")
	}
}
