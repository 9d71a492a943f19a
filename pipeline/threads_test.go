package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// TestConvertThreads converts one record array to every output format
// and back to .npy with Threads 1 and 3: each output is the same bytes
// for both (a MAT-file's header text, which holds the time, aside), and
// the inputs and outputs are cut into enough row groups, chunks and
// record batches for the libraries to spread them over goroutines. The
// threads hook checks that every format library that takes a Threads
// option is given the plan's, and no other value.
func TestConvertThreads(t *testing.T) {
	dir := t.TempDir()
	rec, err := npyio.NewStruct([]npyio.Field{{Name: "id", Type: npyio.Int64Type}, {Name: "x", Type: npyio.Float64Type}})
	if err != nil {
		t.Fatal(err)
	}
	const rows = 100_000
	a := &npyio.Array{Header: &npyio.Header{DType: rec, Shape: []int{rows}}, DType: rec}
	a.Data = make([]byte, a.Header.DataSize())
	for i := range a.Data {
		a.Data[i] = byte(i*7 + i/13)
	}
	in := filepath.Join(dir, "in.npy")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := npyio.WriteArray(f, a); err != nil {
		t.Fatal(err)
	}
	f.Close()

	var mu sync.Mutex
	seen := map[string][]int{} // lib -> the Threads values it was given
	threadsHook = func(lib string, n int) {
		mu.Lock()
		defer mu.Unlock()
		if !slices.Contains(seen[lib], n) {
			seen[lib] = append(seen[lib], n)
		}
	}
	defer func() { threadsHook = nil }()

	convert := func(t *testing.T, from, to string, threads int, flags map[string]string) []string {
		t.Helper()
		mu.Lock()
		clear(seen)
		mu.Unlock()
		if _, err := Convert(context.Background(), from, to, &ConvertOptions{Threads: threads, Flags: flags}); err != nil {
			t.Fatalf("%s -> %s, threads %d: %v", filepath.Base(from), filepath.Base(to), threads, err)
		}
		mu.Lock()
		defer mu.Unlock()
		var libs []string
		for lib, ns := range seen {
			if !slices.Equal(ns, []int{threads}) {
				t.Errorf("%s -> %s, threads %d: %s was given %v", filepath.Base(from), filepath.Base(to), threads, lib, ns)
			}
			libs = append(libs, lib)
		}
		return libs
	}

	for _, c := range []struct {
		ext    string
		flags  map[string]string
		writer string // the library given Threads when writing ("": none takes it)
		reader string // ... and when reading
	}{
		{".parquet", map[string]string{"row-group-rows": "10000", "compression": "zstd"}, "parquet writer", "parquet reader"},
		{".arrow", map[string]string{"compression": "zstd"}, "", "arrow reader"},
		{".h5", map[string]string{"compression": "lz4"}, "hdf5 writer", "hdf5 reader"},
		{".nc", map[string]string{"compression": "zstd"}, "hdf5 writer", "hdf5 reader"},
		{".mat", nil, "mat writer", "mat reader"},
		{".zarr", map[string]string{"zarr-format": "2", "chunks": "7000", "compression": "zstd"}, "zarr writer", "zarr reader"},
		{".zip", map[string]string{"zarr-format": "2", "chunks": "7000", "compression": "zstd"}, "zarr_zip writer", "zarr_zip reader"},
		{".npz", nil, "", ""},
	} {
		t.Run(strings.TrimPrefix(c.ext, "."), func(t *testing.T) {
			var outs, backs [2][]byte
			for i, threads := range []int{1, 3} {
				out := filepath.Join(dir, "out"+string(rune('a'+i))+c.ext)
				libs := convert(t, in, out, threads, c.flags)
				if c.writer != "" && !slices.Contains(libs, c.writer) {
					t.Errorf("to %s, threads %d: the %s was not given Threads (given: %v)", c.ext, threads, c.writer, libs)
				}
				back := filepath.Join(dir, "back"+string(rune('a'+i))+c.ext+".npy")
				libs = convert(t, out, back, threads, nil)
				if c.reader != "" && !slices.Contains(libs, c.reader) {
					t.Errorf("from %s, threads %d: the %s was not given Threads (given: %v)", c.ext, threads, c.reader, libs)
				}
				outs[i], backs[i] = readOutput(t, out), readOutput(t, back)
			}
			if c.ext == ".mat" {
				// The 116-byte header text says when the file was written.
				for i := range outs {
					copy(outs[i], make([]byte, 116))
				}
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Errorf("%s: threads 1 and 3 wrote different bytes (%d and %d)", c.ext, len(outs[0]), len(outs[1]))
			}
			if !bytes.Equal(backs[0], backs[1]) {
				t.Errorf("%s back to .npy: threads 1 and 3 wrote different bytes (%d and %d)", c.ext, len(backs[0]), len(backs[1]))
			}
			got, err := npyio.ReadFile(filepath.Join(dir, "backb"+c.ext+".npy"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Data, a.Data) {
				t.Errorf("%s back to .npy: the rows differ from the input's", c.ext)
			}
		})
	}
}
