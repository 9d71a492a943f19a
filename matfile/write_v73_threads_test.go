package matfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteV73ParallelThreads writes the verified v7.3 files (whole and
// streamed in tiny chunks, so that many chunks are compressed at once)
// with 1 and with 4 compressing goroutines: both are the verified bytes.
func TestWriteV73ParallelThreads(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("testdata", "written", "src.npz")
	check := func(name string, stream bool) {
		t.Helper()
		want, err := os.ReadFile(filepath.Join("testdata", "written", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{1, 4} {
			out := filepath.Join(dir, name)
			wWriteNPZOpts(t, src, out, &WriteOptions{Version: "7.3", Threads: threads}, stream, false, 2)
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s, %d threads: %d bytes differ from the verified file (%d bytes)", name, threads, len(got), len(want))
			}
		}
	}
	check("out_v73.mat", false)
	defer wTinyChunks()()
	check("stream_v73.mat", true)
}
