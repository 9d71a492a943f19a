package zarr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRowReads reads arrays along the first axis in steps that do not
// meet chunk boundaries (as the engine's 256 KiB reads do), forwards, in
// a jump and again from the start, with 1 and 3 threads: every read
// gives the rows a whole-array read gives, and missing chunks the fill.
func TestRowReads(t *testing.T) {
	ctx := context.Background()
	img := refImage(53, 41)
	shapes := []struct {
		name           string
		chunks, shards []int64
	}{
		{"rows", []int64{10, 41, 3}, nil},
		{"tiles", []int64{10, 9, 2}, nil},
		{"shards", []int64{5, 10, 3}, []int64{10, 20, 3}},
	}
	for _, sh := range shapes {
		for _, th := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/threads%d", sh.name, th), func(t *testing.T) {
				s := &MemStore{}
				o := CreateOptions{Format: 3, Shape: []int64{53, 41, 3}, Chunks: sh.chunks, Shards: sh.shards,
					DType: DType{Descr: "|u1"}, Compression: "blosc", Threads: th, Fill: []byte{7}}
				w, err := CreateArray(ctx, s, "a", o)
				if err != nil {
					t.Fatal(err)
				}
				for r := 0; r < 53; r += 6 {
					if err := w.WriteRows(ctx, img[r*41*3:min(53, r+6)*41*3]); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Close(ctx); err != nil {
					t.Fatal(err)
				}
				// One chunk (shard) gone: its rows read as the fill value.
				delete(s.M, "a/c/1/0/0")
				want := append([]byte(nil), img...)
				for y := 10; y < 20; y++ {
					for x := 0; x < 41; x++ {
						for k := 0; k < 3; k++ {
							in := true // rows 10-19 whole
							if sh.shards != nil {
								in = x < 20
							} else if sh.chunks[1] != 41 {
								in = x < 9 && k < 2
							}
							if in {
								want[(y*41+x)*3+k] = 7
							}
						}
					}
				}
				a, err := OpenArray(ctx, s, "a")
				if err != nil {
					t.Fatal(err)
				}
				a.Threads = th
				rb := int64(41 * 3)
				for _, steps := range [][2]int64{{0, 7}, {0, 53}, {30, 4}, {3, 11}, {0, 20}} {
					for r := steps[0]; r < 53; r += steps[1] {
						n := min(steps[1], 53-r)
						got := make([]byte, n*rb)
						if err := a.Read(ctx, []int64{r, 0, 0}, []int64{n, 41, 3}, got); err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(got, want[r*rb:(r+n)*rb]) {
							t.Fatalf("rows %d+%d (steps of %d from %d) differ", r, n, steps[1], steps[0])
						}
					}
				}
				if len(a.ra.slots) > 2*th+8 {
					t.Errorf("%d units kept after reading", len(a.ra.slots))
				}
			})
		}
	}
}

// countStore counts the reads of each key.
type countStore struct {
	MemStore
	mu    sync.Mutex
	reads map[string]int
}

func (c *countStore) ReadAt(ctx context.Context, key string, p []byte, off int64) error {
	c.mu.Lock()
	c.reads[key]++
	c.mu.Unlock()
	return c.MemStore.ReadAt(ctx, key, p, off)
}

// TestReadAheadTo: reading rows 0-29 of 100 in small steps decodes each
// chunk once, and with ReadAheadTo 30 no chunk past row 30 is fetched.
func TestReadAheadTo(t *testing.T) {
	ctx := context.Background()
	s := &countStore{reads: map[string]int{}}
	w, err := CreateArray(ctx, s, "a", CreateOptions{Format: 2, Shape: []int64{100, 3}, Chunks: []int64{10, 3}, DType: DType{Descr: "<i2"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRows(ctx, make([]byte, 100*6)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	a, err := OpenArray(ctx, s, "a")
	if err != nil {
		t.Fatal(err)
	}
	a.Threads, a.ReadAheadTo = 2, 30
	for r := int64(0); r < 30; r += 3 {
		if err := a.Read(ctx, []int64{r, 0}, []int64{3, 3}, make([]byte, 18)); err != nil {
			t.Fatal(err)
		}
	}
	for k := 0; k < 10; k++ {
		key := fmt.Sprintf("a/%d.0", k)
		want := 0
		if k < 3 {
			want = 1
		}
		if s.reads[key] != want {
			t.Errorf("chunk %s read %d times, want %d", key, s.reads[key], want)
		}
	}
}

// failStore fails every Put of a chunk key containing bad.
type failStore struct {
	MemStore
	bad string
}

func (f *failStore) Put(ctx context.Context, key string, value []byte) error {
	if strings.Contains(key, f.bad) {
		return errors.New("disk full")
	}
	return f.MemStore.Put(ctx, key, value)
}

// TestWriteRowsBackgroundError: a chunk that fails to store in the
// background fails a later WriteRows or Close, naming the chunk, and no
// metadata is written.
func TestWriteRowsBackgroundError(t *testing.T) {
	ctx := context.Background()
	s := &failStore{bad: "c/2/"}
	w, err := CreateArray(ctx, s, "a", CreateOptions{Shape: []int64{100, 4}, Chunks: []int64{10, 4}, DType: DType{Descr: "<u2"}, Threads: 4})
	if err != nil {
		t.Fatal(err)
	}
	row := make([]byte, 8)
	var werr error
	for r := 0; r < 100 && werr == nil; r++ {
		werr = w.WriteRows(ctx, row)
	}
	cerr := w.Close(ctx) // waits for the chunks in flight
	if cerr == nil {
		t.Fatal("Close after a failed chunk gave no error")
	}
	if werr == nil {
		werr = cerr
	}
	if werr == nil || !strings.Contains(werr.Error(), "chunk a/c/2/0") || !strings.Contains(werr.Error(), "disk full") {
		t.Fatalf("error %v, want chunk a/c/2/0: disk full", werr)
	}
	if _, ok := s.M["a/zarr.json"]; ok {
		t.Error("metadata written after a failed chunk")
	}
}

// peakStore counts the Puts running at once.
type peakStore struct {
	MemStore
	mu        sync.Mutex
	now, peak int
	chunkPuts int
}

func (p *peakStore) Put(ctx context.Context, key string, value []byte) error {
	p.mu.Lock()
	p.now++
	p.peak = max(p.peak, p.now)
	if strings.Contains(key, "/c/") {
		p.chunkPuts++
	}
	p.mu.Unlock()
	time.Sleep(200 * time.Microsecond) // let the other encoders catch up
	err := p.MemStore.Put(ctx, key, value)
	p.mu.Lock()
	p.now--
	p.mu.Unlock()
	return err
}

// TestWriteRowsEncoders: bands of several chunks written in the
// background go through no more than Threads encoders at once, every
// chunk is stored once, the encoders are gone after Close, and the array
// reads back as written.
func TestWriteRowsEncoders(t *testing.T) {
	ctx := context.Background()
	const rows, cols = 120, 12
	data := make([]byte, 2*rows*cols)
	for i := range rows * cols {
		data[2*i], data[2*i+1] = byte(i), byte(i>>8)
	}
	for _, th := range []int{2, 3} {
		s := &peakStore{}
		w, err := CreateArray(ctx, s, "a", CreateOptions{Shape: []int64{rows, cols}, Chunks: []int64{8, 3},
			DType: DType{Descr: "<u2"}, Compression: "zstd", Threads: th})
		if err != nil {
			t.Fatal(err)
		}
		for r := 0; r < rows; r += 5 {
			if err := w.WriteRows(ctx, data[2*r*cols:2*min(rows, r+5)*cols]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if n := w.running.Load(); n != 0 {
			t.Errorf("threads %d: %d encoders still running after Close", th, n)
		}
		if s.peak > th {
			t.Errorf("threads %d: %d chunks stored at once", th, s.peak)
		}
		if want := rows / 8 * cols / 3; s.chunkPuts != want {
			t.Errorf("threads %d: %d chunks stored, want %d", th, s.chunkPuts, want)
		}
		a, err := OpenArray(ctx, s, "a")
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(data))
		if err := a.Read(ctx, []int64{0, 0}, []int64{rows, cols}, got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("threads %d: read back differs", th)
		}
	}
}

// TestWriteRowsAbortWaits: Abort returns only when no background
// encoder is left, stores no chunk after it returns and no metadata,
// and Close after it does nothing (what a failed run relies on before
// removing its staged files).
func TestWriteRowsAbortWaits(t *testing.T) {
	ctx := context.Background()
	const rows, cols = 400, 12
	data := make([]byte, 2*rows*cols)
	s := &peakStore{}
	w, err := CreateArray(ctx, s, "a", CreateOptions{Shape: []int64{rows, cols}, Chunks: []int64{8, 3},
		DType: DType{Descr: "<u2"}, Compression: "zstd", Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRows(ctx, data[:2*200*cols]); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if n := w.running.Load(); n != 0 {
		t.Fatalf("%d encoders still running after Abort", n)
	}
	s.mu.Lock()
	puts := s.chunkPuts
	s.mu.Unlock()
	if puts >= 200/8*cols/3 {
		t.Logf("every chunk was stored before Abort (%d): nothing dropped to check", puts)
	}
	time.Sleep(5 * time.Millisecond)
	s.mu.Lock()
	later := s.chunkPuts
	s.mu.Unlock()
	if later != puts {
		t.Errorf("%d chunks stored after Abort returned", later-puts)
	}
	if err := w.Close(ctx); err != nil {
		t.Errorf("Close after Abort: %v", err)
	}
	if _, err := s.Size(ctx, "a/zarr.json"); err == nil {
		t.Error("Abort (and Close after it) wrote the metadata")
	}
}
