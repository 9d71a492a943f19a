package zarr

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"
)

// TestFetchScratchReuse reads chunks whose stored sizes grow a little
// from one to the next (as compressed chunks of real data do): the
// scratch buffer they are read into is allocated once, not once per
// larger chunk.
func TestFetchScratchReuse(t *testing.T) {
	ctx := context.Background()
	const rows, width = 8, 32 << 10
	data := make([]byte, rows*width)
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range rows {
		for i := range 20000 + 500*k { // the rest of the row stays zero
			data[k*width+i] = byte(rng.Uint32())
		}
	}
	s := &MemStore{}
	w, err := CreateArray(ctx, s, "a", CreateOptions{Format: 2, Shape: []int64{rows, width}, Chunks: []int64{1, width}, DType: DType{Descr: "|u1"}, Compression: "zstd"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRows(ctx, data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	a, err := OpenArray(ctx, s, "a")
	if err != nil {
		t.Fatal(err)
	}
	scratch := new([]byte)
	var sizes []int
	var bufs []*byte
	for k := range int64(rows) {
		raw, _, err := a.fetchUnit(ctx, []int64{k, 0}, scratch)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(raw))
		if b := &raw[:cap(raw)][0]; len(bufs) == 0 || bufs[len(bufs)-1] != b {
			bufs = append(bufs, b)
		}
	}
	for k := 1; k < rows; k++ {
		if sizes[k] <= sizes[k-1] {
			t.Fatalf("stored chunk sizes %v do not grow: the case tests nothing", sizes)
		}
	}
	if len(bufs) != 1 {
		t.Errorf("stored chunks of %v bytes were read into %d buffers, want 1", sizes, len(bufs))
	}
	got := make([]byte, len(data))
	if err := a.Read(ctx, []int64{0, 0}, []int64{rows, width}, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Error("array read back differs from the data written")
	}
}
