package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
)

// TestParquetTimesFromRows writes records with datetime64[s] values that
// only INT64 holds (int64's extremes scaled to ms overflow) and a NaT
// through a filter to Parquet, in row groups of 2 rows: the sink, pushed
// rows, plans the time column from all of them as a copy does. The file
// is byte-identical to what convert writes from the rows the filter
// keeps, and reads back to them.
func TestParquetTimesFromRows(t *testing.T) {
	dir := t.TempDir()
	ts, err := npyio.NewDatetime("s", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := npyio.NewStruct([]npyio.Field{{Name: "id", Type: npyio.Int64Type}, {Name: "t", Type: ts}})
	if err != nil {
		t.Fatal(err)
	}
	times := []int64{0, 1, math.MinInt64 /* NaT */, 86400, math.MaxInt64, -5, math.MinInt64 + 1, 7, 42, 1e12}
	save := func(name string, from int) string {
		n := len(times) - from
		data := make([]byte, 16*n)
		for i := range n {
			binary.LittleEndian.PutUint64(data[16*i:], uint64(from+i))
			binary.LittleEndian.PutUint64(data[16*i+8:], uint64(times[from+i]))
		}
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		a := &npyio.Array{Header: &npyio.Header{DType: rec, Shape: []int{n}}, DType: rec, Data: data}
		if err := npyio.WriteArray(f, a); err != nil {
			t.Fatal(err)
		}
		return path
	}
	all, kept := save("all.npy", 0), save("kept.npy", 1)
	want := filepath.Join(dir, "convert.parquet")
	opts := &ConvertOptions{Flags: map[string]string{"name": "v", "row-group-rows": "2"}}
	if _, err := Convert(context.Background(), kept, want, opts); err != nil {
		t.Fatal(err)
	}
	got := filepath.Join(dir, "job.parquet")
	runJobText(t, dir, fmt.Sprintf("version: 1\nsources:\n  s: {type: npy, paths: %q}\ntransforms:\n  f: {type: filter, input: s, where: \"id >= 1\"}\nsinks:\n  o: {type: parquet, input: f, path: %q, column: v, row_group_rows: 2}\n", all, got))
	wb, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	gb, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gb, wb) {
		t.Errorf("the job's file (%d bytes) differs from convert's (%d bytes)", len(gb), len(wb))
	}
	f, err := os.Open(got)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	r, err := parquetio.NewReaderOptions(f, st.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if dt := r.Header().DType; !dt.Equal(rec) {
		t.Fatalf("read back as %s, want %s", dt, rec)
	}
	var data []byte
	for {
		b, err := r.Next(100)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, b.Data...)
	}
	if len(data) != 16*(len(times)-1) {
		t.Fatalf("%d bytes read back, want %d rows", len(data), len(times)-1)
	}
	for i := range len(times) - 1 {
		id, v := int64(binary.LittleEndian.Uint64(data[16*i:])), int64(binary.LittleEndian.Uint64(data[16*i+8:]))
		if id != int64(i+1) || v != times[i+1] {
			t.Errorf("row %d: (%d, %d), want (%d, %d)", i, id, v, i+1, times[i+1])
		}
	}
}
