package hdf5

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// TestReadAllLarge reads a 24 MiB chunked dataset whole (over the size
// from which ReadAll advises its buffer to huge pages on Linux): chunks
// of 100 x 256 land out of order in a (1536, 2048) float64 buffer, which
// must hold the values written.
func TestReadAllLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("24 MiB written and read")
	}
	data := wBenchData(1536 * 2048 / 16)
	path := filepath.Join(t.TempDir(), "large.h5")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := wOK(NewWriter(f, nil))
	d := wOK(w.Root().CreateDataset("x", npyio.Float64Type, []uint64{1536, 2048}, &DatasetOptions{Chunk: []uint64{100, 256}}))
	if err := d.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	hf, err := OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hf.Close()
	o, err := hf.OpenPath("/x")
	if err != nil {
		t.Fatal(err)
	}
	got, err := o.(*Dataset).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 24<<20 || !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes, not the %d written", len(got), len(data))
	}
}
