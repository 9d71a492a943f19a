package pipeline

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
)

// TestConvertParquetSinglePass: convert gives parquetio its local output
// as a Restartable (so a table with time columns is read once), and a NaT
// first seen in the last row group gives the same file as the two-pass
// write (observation first) into a buffer: OPTIONAL time column.
func TestConvertParquetSinglePass(t *testing.T) {
	dir := t.TempDir()
	w, err := storage.Create(context.Background(), filepath.Join(dir, "probe.parquet"), storage.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if r, ok := any(&sinkFile{WriteSeeker: w}).(parquetio.Restartable); !ok || r.Truncate(0) != nil {
		t.Fatal("a local output is not given to parquetio as a Restartable")
	}

	dt, err := npyio.ParseDescr(`[('id', '<i4'), ('t', '<M8[ms]')]`)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	var rows []byte
	for i := range n {
		v := int64(1700000000000 + i)
		if i == n-1 {
			v = math.MinInt64 // NaT, in the last of 10 row groups
		}
		rows = append(rows, npyio.AsBytes([]int32{int32(i)})...)
		rows = append(rows, npyio.AsBytes([]int64{v})...)
	}
	var npy bytes.Buffer
	nw, err := npyio.NewWriter(&npy, &npyio.Header{DType: dt, Shape: []int{n}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nw.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := nw.Close(); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "x.npy")
	if err := os.WriteFile(in, npy.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "x.parquet")
	if _, err := Convert(context.Background(), in, out, &ConvertOptions{Flags: map[string]string{"row-group-rows": "100"}}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	open := func() ([]*npyio.Reader, error) {
		r, err := npyio.NewReaderAt(bytes.NewReader(npy.Bytes()), int64(npy.Len()), nil)
		return []*npyio.Reader{r}, err
	}
	var want bytes.Buffer
	if _, err := parquetio.WriteArray(&want, open, "x", &parquetio.Options{RowGroupRows: 100}, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("convert wrote %d bytes, the two-pass write %d: files differ", len(got), want.Len())
	}
	rd, err := parquetio.NewReader(bytes.NewReader(got), int64(len(got)))
	if err != nil {
		t.Fatal(err)
	}
	if rd.Rows() != n {
		t.Errorf("%d rows, want %d", rd.Rows(), n)
	}
}
