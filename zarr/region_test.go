package zarr

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestCreateRegion: three writers of whole chunks (shards) of one array,
// then its metadata alone, store what one writer of every row stores,
// key for key; a region that starts or ends inside a chunk is refused,
// and so is a region's Close before all its rows.
func TestCreateRegion(t *testing.T) {
	ctx := context.Background()
	data := make([]byte, 50*4*2)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, o := range []CreateOptions{
		{Format: 2, Shape: []int64{50, 4}, Chunks: []int64{10, 4}, DType: DType{Descr: "<i2"}, Compression: "zlib"},
		{Format: 3, Shape: []int64{50, 4}, Chunks: []int64{5, 2}, Shards: []int64{10, 4}, DType: DType{Descr: "<i2"}},
	} {
		one := &MemStore{M: map[string][]byte{}}
		w, err := CreateArray(ctx, one, "a", o)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteRows(ctx, data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(ctx); err != nil {
			t.Fatal(err)
		}
		many := &MemStore{M: map[string][]byte{}}
		for _, r := range [][2]int64{{20, 50}, {0, 10}, {10, 20}} {
			w, err := CreateRegion(ctx, many, "a", o, r[0], r[1])
			if err != nil {
				t.Fatal(err)
			}
			rows := data[r[0]*8 : r[1]*8]
			if err := w.WriteRows(ctx, rows[:8*3]); err != nil { // in two writes
				t.Fatal(err)
			}
			if err := w.WriteRows(ctx, rows[8*3:]); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if len(many.M) != len(one.M)-1 {
			t.Fatalf("v%d: the regions stored %d keys, the whole array %d and its metadata", o.Format, len(many.M), len(one.M))
		}
		meta, err := CreateArray(ctx, many, "a", o)
		if err != nil {
			t.Fatal(err)
		}
		if err := meta.Close(ctx); err != nil {
			t.Fatal(err)
		}
		for k, v := range one.M {
			if !bytes.Equal(many.M[k], v) {
				t.Errorf("v%d: %s differs", o.Format, k)
			}
		}
		unit := o.Chunks[0]
		if o.Shards != nil {
			unit = o.Shards[0]
		}
		for _, r := range [][2]int64{{unit / 2, 20}, {0, unit + 1}, {40, 60}} {
			if _, err := CreateRegion(ctx, many, "a", o, r[0], r[1]); err == nil || !strings.Contains(err.Error(), "are not whole chunks") {
				t.Errorf("v%d: region %v: %v", o.Format, r, err)
			}
		}
		w, err = CreateRegion(ctx, many, "a", o, 0, 20)
		if err != nil {
			t.Fatal(err)
		}
		w.WriteRows(ctx, data[:8*10])
		if err := w.Close(ctx); err == nil || !strings.Contains(err.Error(), "rows 0 to 20: 10 written") {
			t.Errorf("v%d: a short region closed: %v", o.Format, err)
		}
	}
}
