package zarr

import (
	"context"
	"testing"
)

// FuzzChunk feeds arbitrary bytes as a chunk (or shard) of arrays of
// every codec: reading must return the data or an error, never panic or
// allocate past the chunk's size.
func FuzzChunk(f *testing.F) {
	type layout struct {
		o   CreateOptions
		key string
	}
	var layouts []layout
	for _, comp := range Compressions {
		layouts = append(layouts, layout{CreateOptions{Format: 2, Compression: comp}, "arr/1.0"})
		if comp != "lz4" && comp != "zlib" {
			layouts = append(layouts, layout{CreateOptions{Format: 3, Compression: comp}, "arr/c/1/0"})
		}
	}
	layouts = append(layouts, layout{CreateOptions{Format: 3, Chunks: []int64{2, 2}, Shards: []int64{4, 4}, Compression: "zstd"}, "arr/c/0/0"})
	stores := make([]*MemStore, len(layouts))
	for i, l := range layouts {
		stores[i] = writeSmallF(f, l.o)
		f.Add(uint8(i), stores[i].M[l.key])
	}
	f.Fuzz(func(t *testing.T, which uint8, chunk []byte) {
		i := int(which) % len(layouts)
		s := &MemStore{M: map[string][]byte{}}
		for k, v := range stores[i].M {
			s.M[k] = v
		}
		s.M[layouts[i].key] = chunk
		ctx := context.Background()
		a, err := OpenArray(ctx, s, "arr")
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, a.NumElements()*4)
		a.Read(ctx, []int64{0, 0}, a.Shape, buf)
	})
}

// FuzzMetadata opens arbitrary zarr.json and .zarray documents.
func FuzzMetadata(f *testing.F) {
	for _, o := range []CreateOptions{{Format: 2}, {Format: 3}, {Format: 3, Chunks: []int64{2, 2}, Shards: []int64{4, 4}}} {
		s := writeSmallF(f, o)
		for k, v := range s.M {
			if k == "arr/zarr.json" || k == "arr/.zarray" {
				f.Add(k == "arr/zarr.json", v)
			}
		}
	}
	f.Fuzz(func(t *testing.T, v3 bool, doc []byte) {
		key := "arr/.zarray"
		if v3 {
			key = "arr/zarr.json"
		}
		s := &MemStore{M: map[string][]byte{key: doc}}
		ctx := context.Background()
		a, err := OpenArray(ctx, s, "arr")
		if err != nil || a.NumElements() > 1<<16 || a.DType.VarString {
			return
		}
		buf := make([]byte, a.NumElements()*int64(a.DType.ItemSize()))
		a.Read(ctx, make([]int64, len(a.Shape)), a.Shape, buf)
	})
}
