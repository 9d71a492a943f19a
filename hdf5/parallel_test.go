package hdf5

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/npyflow/npyflow/npyio"
)

// wParallelFile writes rows x 24 float64 (a random walk: values that do
// not repeat) chunked 50 x 8 with opts, and returns the file and the data.
func wParallelFile(t *testing.T, rows int, opts DatasetOptions) ([]byte, []byte) {
	t.Helper()
	data := wBenchNoisy(rows * 24 / 16)[:rows*24*8]
	m := &wMem{}
	w, err := NewWriter(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts.Chunk = []uint64{50, 8}
	d, err := w.Root().CreateDataset("x", npyio.Float64Type, []uint64{uint64(rows), 24}, &opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return m.b, data
}

func openDataset(t *testing.T, file []byte, path string, opts *Options) *Dataset {
	t.Helper()
	f, err := Open(bytes.NewReader(file), int64(len(file)), opts)
	if err != nil {
		t.Fatal(err)
	}
	o, err := f.OpenPath(path)
	if err != nil {
		t.Fatal(err)
	}
	ds, ok := o.(*Dataset)
	if !ok {
		t.Fatalf("%s is not a dataset", path)
	}
	return ds
}

// readBatches reads a dataset through a RowReader in batches of n rows (a
// batch that ends inside a chunk leaves it in the cache for the next).
func readBatches(t *testing.T, ds *Dataset, n int) []byte {
	t.Helper()
	rr, err := ds.NewRowReader(n)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for {
		b, err := rr.Read()
		if err != nil {
			if err == io.EOF {
				return out
			}
			t.Fatal(err)
		}
		out = append(out, b...)
	}
}

// TestParallelChunkReadThreads reads datasets of 120 compressed chunks
// with 1 and with 4 goroutines, whole and in batches of 37 rows (which
// end inside chunks), and wants the written values every time.
func TestParallelChunkReadThreads(t *testing.T) {
	for _, c := range []struct {
		name string
		opts DatasetOptions
	}{
		{"deflate+shuffle", DatasetOptions{Compression: CompressionDeflate, Level: 1, Shuffle: true}},
		{"lz4", DatasetOptions{Compression: CompressionLZ4}},
		{"zstd+shuffle", DatasetOptions{Compression: CompressionZstd, Shuffle: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			file, want := wParallelFile(t, 2000, c.opts)
			for _, threads := range []int{1, 4} {
				ds := openDataset(t, file, "/x", &Options{Threads: threads, ChunkCacheBytes: 1 << 20})
				got, err := ds.ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("threads %d: ReadAll differs from the written values", threads)
				}
				if got := readBatches(t, ds, 37); !bytes.Equal(got, want) {
					t.Fatalf("threads %d: batches of 37 rows differ from the written values", threads)
				}
				box := make([]byte, 130*13*8)
				if err := ds.ReadSlab([]uint64{970, 5}, []uint64{1100, 18}, box); err != nil {
					t.Fatal(err)
				}
				for r := range 130 {
					if w := want[((970+r)*24+5)*8 : ((970+r)*24+18)*8]; !bytes.Equal(box[r*13*8:(r+1)*13*8], w) {
						t.Fatalf("threads %d: slab row %d differs", threads, r)
					}
				}
			}
		})
	}
}

// TestParallelChunkReadFixtures reads every dataset of the h5py filter
// fixtures with 1 and 3 goroutines: the bytes must be the same.
func TestParallelChunkReadFixtures(t *testing.T) {
	for _, name := range []string{"filters_b_h5py", "filters_latest"} {
		js, err := os.ReadFile(filepath.Join("testdata", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var expect map[string]json.RawMessage
		if err := json.Unmarshal(js, &expect); err != nil {
			t.Fatal(err)
		}
		file, err := os.ReadFile(filepath.Join("testdata", name+".h5"))
		if err != nil {
			t.Fatal(err)
		}
		paths := slices.Sorted(func(yield func(string) bool) {
			for p := range expect {
				if strings.HasPrefix(p, "/") && !yield(p) {
					return
				}
			}
		})
		read := 0
		f, err := Open(bytes.NewReader(file), int64(len(file)), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			if o, err := f.OpenPath(p); err != nil {
				t.Fatal(err)
			} else if _, ok := o.(*Dataset); !ok {
				continue
			}
			one, err1 := openDataset(t, file, p, &Options{Threads: 1}).ReadAll()
			three, err3 := openDataset(t, file, p, &Options{Threads: 3}).ReadAll()
			if (err1 == nil) != (err3 == nil) || (err1 != nil && err1.Error() != err3.Error()) {
				t.Fatalf("%s %s: errors differ: %v / %v", name, p, err1, err3)
			}
			if !bytes.Equal(one, three) {
				t.Fatalf("%s %s: 1 and 3 threads read different bytes", name, p)
			}
			if err1 == nil {
				read++
			}
		}
		if read < 4 {
			t.Fatalf("%s: only %d datasets read", name, read)
		}
	}
}

// TestParallelChunkReadCorrupt spoils two chunks among 120 and reads with
// 4 goroutines: one error, naming the dataset and one of the two chunks,
// and no goroutine left behind.
func TestParallelChunkReadCorrupt(t *testing.T) {
	for _, c := range []struct {
		name string
		opts DatasetOptions
		from uint64 // first byte spoiled
	}{
		{"deflate", DatasetOptions{Compression: CompressionDeflate, Level: 1}, 0},
		{"zstd", DatasetOptions{Compression: CompressionZstd}, 0},
		// keep the 12-byte header: spoil the block sizes and data
		{"lz4", DatasetOptions{Compression: CompressionLZ4}, 12},
	} {
		t.Run(c.name, func(t *testing.T) {
			file, _ := wParallelFile(t, 2000, c.opts)
			ds := openDataset(t, file, "/x", nil)
			if err := ds.load(); err != nil {
				t.Fatal(err)
			}
			cr, err := newChunkReader(ds)
			if err != nil {
				t.Fatal(err)
			}
			for _, sc := range [][]uint64{{17, 1}, {31, 2}} {
				rec, ok, err := cr.locate(sc)
				if err != nil || !ok {
					t.Fatalf("chunk %v: %v %v", sc, ok, err)
				}
				at := rec.addr + ds.f.base
				for i := c.from; i < rec.size; i++ {
					file[at+i] = 0xA5
				}
			}
			before := runtime.NumGoroutine()
			for range 5 {
				ds := openDataset(t, file, "/x", &Options{Threads: 4})
				_, err := ds.ReadAll()
				if err == nil {
					t.Fatal("no error for corrupt chunks")
				}
				msg := err.Error()
				if !strings.Contains(msg, "/x") || strings.Contains(msg, "\n") ||
					strings.Contains(msg, "chunk [17 1]") == strings.Contains(msg, "chunk [31 2]") {
					t.Fatalf("want one line naming /x and one corrupt chunk, got %q", msg)
				}
				t.Log(msg)
				if !errors.Is(err, ErrFormat) {
					t.Errorf("%q is not ErrFormat", msg)
				}
			}
			deadline := time.Now().Add(time.Second)
			for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > before {
				t.Fatalf("%d goroutines after the reads, %d before", n, before)
			}
		})
	}
}

// TestParallelWriterThreadsOption: Threads and its former name Workers
// may not disagree, and a negative count is refused.
func TestParallelWriterThreadsOption(t *testing.T) {
	for _, c := range []struct {
		opts WriterOptions
		err  string
	}{
		{WriterOptions{Threads: 2, Workers: 2}, ""},
		{WriterOptions{Workers: 3}, ""},
		{WriterOptions{Threads: 2, Workers: 3}, "Threads 2 and Workers 3"},
		{WriterOptions{Threads: -1}, "negative thread count -1"},
	} {
		w, err := NewWriter(&wDiscard{}, &c.opts)
		if c.err == "" {
			if err != nil {
				t.Fatalf("%+v: %v", c.opts, err)
			}
			if want := max(c.opts.Threads, c.opts.Workers); w.workers != want {
				t.Errorf("%+v: %d workers, want %d", c.opts, w.workers, want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: error %v, want %q", c.opts, err, c.err)
		}
	}
}

// TestParallelWriteCutByWorkers writes a 3-D dataset whose chunks do not
// span whole rows (so the workers cut them out of the rows) in batches of
// 7 rows from one buffer that is spoiled as soon as Write returns: the
// file is the same with 1 and 4 threads, and reads back as written.
func TestParallelWriteCutByWorkers(t *testing.T) {
	const rows, d1, d2 = 203, 9, 10
	data := wBenchNoisy((rows*d1*d2 + 15) / 16)[:rows*d1*d2*8]
	var files [][]byte
	for _, threads := range []int{1, 4} {
		for _, comp := range []Compression{CompressionLZ4, CompressionDeflate} {
			m := &wMem{}
			w, err := NewWriter(m, &WriterOptions{Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			d, err := w.Root().CreateDataset("x", npyio.Float64Type, []uint64{rows, d1, d2},
				&DatasetOptions{Chunk: []uint64{16, 4, 3}, Compression: comp, Shuffle: true})
			if err != nil {
				t.Fatal(err)
			}
			rowBytes := d1 * d2 * 8
			buf := make([]byte, 7*rowBytes)
			for r := 0; r < rows; r += 7 {
				k := min(7, rows-r)
				copy(buf, data[r*rowBytes:(r+k)*rowBytes])
				if err := d.Write(buf[:k*rowBytes]); err != nil {
					t.Fatal(err)
				}
				for i := range buf {
					buf[i] = 0xEE // the writer must not read the batch after Write
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := openDataset(t, m.b, "/x", nil).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("%s, %d threads: the values read back differ", comp, threads)
			}
			files = append(files, m.b)
		}
	}
	if !bytes.Equal(files[0], files[2]) || !bytes.Equal(files[1], files[3]) {
		t.Fatal("the file depends on the number of threads")
	}
}

// TestParallelChunkReadThreadCount: Threads goroutines, no more than the
// chunks to read, nor than decoded chunks fit in ChunkCacheBytes.
func TestParallelChunkReadThreadCount(t *testing.T) {
	file, _ := wParallelFile(t, 500, DatasetOptions{Compression: CompressionLZ4})
	const chunk = 50 * 8 * 8
	for _, c := range []struct {
		threads int
		cache   int64
		n       uint64
		want    int
	}{
		{4, 1 << 20, 100, 4},
		{4, 1 << 20, 3, 3},
		{4, 2 * chunk, 100, 2},
		{4, chunk / 2, 100, 1},
		{1, 1 << 20, 100, 1},
	} {
		ds := openDataset(t, file, "/x", &Options{Threads: c.threads, ChunkCacheBytes: c.cache})
		if err := ds.load(); err != nil {
			t.Fatal(err)
		}
		cr, err := newChunkReader(ds)
		if err != nil {
			t.Fatal(err)
		}
		if got := cr.threads(c.n); got != c.want {
			t.Errorf("%d threads, cache %d, %d chunks: %d goroutines, want %d", c.threads, c.cache, c.n, got, c.want)
		}
	}
}
