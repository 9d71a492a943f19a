package zarr

import (
	"context"
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// writeSmall writes a 6x4 int32 array at "arr" with o's layout.
func writeSmall(t *testing.T, o CreateOptions) *MemStore { return writeSmallF(t, o) }

func writeSmallF(t testing.TB, o CreateOptions) *MemStore {
	t.Helper()
	ctx := context.Background()
	s := &MemStore{}
	o.Shape, o.DType = []int64{6, 4}, DType{Descr: "<i4"}
	if o.Chunks == nil {
		o.Chunks = []int64{2, 4}
	}
	w, err := CreateArray(ctx, s, "arr", o)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 6*4*4)
	for i := range 24 {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(i+1))
	}
	if err := w.WriteRows(ctx, data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestHostile(t *testing.T) {
	ctx := context.Background()
	shard := CreateOptions{Format: 3, Chunks: []int64{2, 2}, Shards: []int64{4, 4}, Compression: "none"}
	idxEnd := func(s *MemStore) []byte { v := s.M["arr/c/0/0"]; return v[len(v)-16*4-4:] }
	fixCRC := func(s *MemStore) {
		v := s.M["arr/c/0/0"]
		ix := v[len(v)-68 : len(v)-4]
		crc, _ := crc32cCodec{}.encode(nil, nil, ix)
		copy(v[len(v)-4:], crc[len(crc)-4:])
	}
	cases := []struct {
		name   string
		opts   CreateOptions
		mutate func(s *MemStore)
		want   []string // substrings of the one-line error
	}{
		{"broken zarr.json", CreateOptions{Format: 3}, func(s *MemStore) { s.M["arr/zarr.json"] = []byte(`{"zarr_format": 3, "shape": [`) }, []string{"arr", "not valid JSON"}},
		{"broken .zarray", CreateOptions{Format: 2}, func(s *MemStore) { s.M["arr/.zarray"] = []byte(`{"zarr_format": 2,,}`) }, []string{"arr", "not valid JSON"}},
		{"huge shape", CreateOptions{Format: 2}, func(s *MemStore) {
			s.M["arr/.zarray"] = []byte(`{"zarr_format":2,"shape":[9223372036854775807,9223372036854775807],"chunks":[1,1],"dtype":"<i4","compressor":null,"fill_value":0,"order":"C","filters":null}`)
		}, []string{"arr", "too many elements"}},
		{"huge chunk", CreateOptions{Format: 3}, func(s *MemStore) {
			s.M["arr/zarr.json"] = []byte(strings.Replace(string(s.M["arr/zarr.json"]), `"chunk_shape": [
                2,
                4
            ]`, `"chunk_shape": [1099511627776, 4]`, 1))
		}, []string{"arr", "larger than"}},
		{"short chunk", CreateOptions{Format: 2, Compression: "none"}, func(s *MemStore) { s.M["arr/1.0"] = s.M["arr/1.0"][:7] }, []string{"arr", "chunk arr/1.0", "decodes to 7 bytes, want 32"}},
		{"zstd chunk claims 1 TiB", CreateOptions{Format: 3, Compression: "zstd"}, func(s *MemStore) {
			// A frame header with a content size of 2^40.
			s.M["arr/c/1/0"] = []byte{0x28, 0xb5, 0x2f, 0xfd, 0xc0 | 0x20, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0}
		}, []string{"chunk arr/c/1/0"}},
		{"garbage blosc", CreateOptions{Format: 2, Compression: "blosc"}, func(s *MemStore) {
			b := s.M["arr/2.0"]
			binary.LittleEndian.PutUint32(b[4:], 1<<31)
		}, []string{"chunk arr/2.0"}},
		{"lz4 size lies", CreateOptions{Format: 2, Compression: "lz4"}, func(s *MemStore) { binary.LittleEndian.PutUint32(s.M["arr/0.0"], 0xffffffff) }, []string{"chunk arr/0.0", "lz4"}},
		{"shard offset past end", shard, func(s *MemStore) {
			binary.LittleEndian.PutUint64(idxEnd(s)[16:], 1<<40)
			fixCRC(s)
		}, []string{"chunk arr/c/0/0", "runs past the shard's end"}},
		{"shard length overflows", shard, func(s *MemStore) {
			binary.LittleEndian.PutUint64(idxEnd(s)[16:], 8)
			binary.LittleEndian.PutUint64(idxEnd(s)[24:], math.MaxUint64-4)
			fixCRC(s)
		}, []string{"chunk arr/c/0/0", "runs past the shard's end"}},
		{"shard index checksum", shard, func(s *MemStore) { idxEnd(s)[3] ^= 1 }, []string{"chunk arr/c/0/0", "crc32c checksum mismatch"}},
		{"shard shorter than index", shard, func(s *MemStore) { s.M["arr/c/1/0"] = []byte{1, 2, 3} }, []string{"chunk arr/c/1/0", "shorter than its"}},
		{"bad fill", CreateOptions{Format: 3}, func(s *MemStore) {
			s.M["arr/zarr.json"] = []byte(strings.Replace(string(s.M["arr/zarr.json"]), `"fill_value": 0`, `"fill_value": "0x12"`, 1))
		}, []string{"arr", "hex digits"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := writeSmall(t, c.opts)
			c.mutate(s)
			a, err := OpenArray(ctx, s, "arr")
			if err == nil {
				buf := make([]byte, a.NumElements()*4)
				err = a.Read(ctx, []int64{0, 0}, a.Shape, buf)
			}
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error spans lines: %q", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}
