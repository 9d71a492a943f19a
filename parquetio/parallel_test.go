package parquetio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/npyflow/npyflow/npyio"
)

// readThreads reads a whole file with opts and Threads threads: the
// header's dtype and shape, the rows, and the first error (io.EOF not
// one).
func readThreads(b []byte, opts ReadOptions, threads int) (string, []byte, error) {
	opts.Threads = threads
	rd, err := NewReaderOptions(bytes.NewReader(b), int64(len(b)), &opts)
	if err != nil {
		return "", nil, err
	}
	h := rd.Header()
	head := fmt.Sprint(h.DType.String(), h.Shape, h.FortranOrder)
	var got []byte
	for {
		bt, err := rd.Next(1000)
		if err == io.EOF {
			return head, got, nil
		}
		if err != nil {
			return head, got, err
		}
		got = append(got, bt.Data...)
	}
}

// waitGoroutines fails t if more goroutines than before are still running
// after a moment (a worker that outlives its read or write).
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Errorf("%d goroutines running, %d before: a worker did not stop", runtime.NumGoroutine(), before)
}

// TestParallelReadForeign reads every file of the foreign corpus (DuckDB,
// pyarrow, arrow-rs, parquet-go, parquet-testing; their values are checked
// against the producers' JSON by TestForeign*) with one thread and with
// four: the same header, rows and errors, with and without validity
// fields (which read a row group at a time).
func TestParallelReadForeign(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "foreign", "*.parquet"))
	if err != nil || len(paths) < 20 {
		t.Fatalf("foreign corpus: %d files, %v", len(paths), err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range []ReadOptions{{}, {Validity: []string{"*"}}} {
			h1, d1, e1 := readThreads(b, opts, 1)
			h4, d4, e4 := readThreads(b, opts, 4)
			if fmt.Sprint(e1) != fmt.Sprint(e4) {
				t.Errorf("%s %v: error with 1 thread %v, with 4 %v", filepath.Base(p), opts.Validity, e1, e4)
				continue
			}
			if h1 != h4 || !bytes.Equal(d1, d4) {
				t.Errorf("%s %v: 1 thread reads %s (%d bytes), 4 read %s (%d bytes), or the bytes differ", filepath.Base(p), opts.Validity, h1, len(d1), h4, len(d4))
			}
		}
	}
}

// TestParallelReadWindow checks that DuckDB's small row groups are decoded
// together: the three row groups of duck_rowgroups.parquet (2048, 2048
// and 404 rows, a DOUBLE column with nulls) arrive in one batch with
// four threads, one row group at a time with one, the same rows either way.
func TestParallelReadWindow(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "foreign", "duck_rowgroups.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var first [2]int
	var data [2][]byte
	for k, threads := range []int{1, 4} {
		rd, err := NewReaderOptions(bytes.NewReader(b), int64(len(b)), &ReadOptions{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		for {
			bt, err := rd.Next(1 << 20)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if first[k] == 0 {
				first[k] = bt.Rows
			}
			data[k] = append(data[k], bt.Data...)
		}
	}
	if first != [2]int{2048, 4500} {
		t.Errorf("first batches of %v rows with 1 and 4 threads, want [2048 4500]", first)
	}
	if !bytes.Equal(data[0], data[1]) || len(data[0]) != 4500*16 {
		t.Errorf("%d and %d bytes read, want the same %d", len(data[0]), len(data[1]), 4500*16)
	}
}

// smallGroups writes rows rows of (i8 i, f8 x, bool ok) in row groups of
// 500 rows, the column i null where ok is false (Options.Nulls) when
// nulls is set; i and x are functions of the row.
func smallGroups(t *testing.T, rows int, nullRow int) []byte {
	t.Helper()
	dt, err := npyio.ParseDescr("[('i', '<i8'), ('x', '<f8'), ('ok', '|b1')]")
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, rows*dt.Size)
	for r := 0; r < rows; r++ {
		row := data[r*dt.Size:]
		copy(row[0:8], i64s(int64(r)*31-7))
		copy(row[8:16], npyio.AsBytes([]float64{math.Sqrt(float64(r))}))
		if r != nullRow {
			row[16] = 1
		}
	}
	opts := &Options{RowGroupRows: 500, Compression: "snappy"}
	if nullRow >= 0 {
		opts.Nulls = map[string]string{"i": "ok"}
	}
	b, err := writeMem(t, &npyio.Header{DType: dt, Shape: []int{rows}}, data, opts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParallelReadDamagedChunk damages the page of column x in row group
// 6 of 12: reading with 1 or 4 threads fails with the same one error
// naming the column, the row group and the page CRC, and no worker is left.
func TestParallelReadDamagedChunk(t *testing.T) {
	b := smallGroups(t, 6000, -1)
	rd, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.fmd.RowGroups) != 12 {
		t.Fatalf("%d row groups, want 12", len(rd.fmd.RowGroups))
	}
	m := &rd.fmd.RowGroups[6].Columns[1].MetaData
	start, _ := chunkStart(m)
	bad := bytes.Clone(b)
	bad[start+m.TotalCompressedSize-5] ^= 0x55
	before := runtime.NumGoroutine()
	_, _, e1 := readThreads(bad, ReadOptions{}, 1)
	_, _, e4 := readThreads(bad, ReadOptions{}, 4)
	waitGoroutines(t, before)
	if e1 == nil || e4 == nil || e1.Error() != e4.Error() {
		t.Fatalf("errors %v (1 thread) and %v (4 threads), want the same error", e1, e4)
	}
	if msg := e4.Error(); !strings.Contains(msg, "column x, row group 6") || !strings.Contains(msg, "CRC") || strings.Contains(msg, "\n") {
		t.Errorf("error %q, want one line naming column x, row group 6 and the CRC", msg)
	}
}

// TestParallelReadNullStops reads a file whose column i has one null, in
// row 3210 (row group 6 of 12): the task of that row group fails while the
// others decode, and the error is the same NullError as with one thread,
// naming the row.
func TestParallelReadNullStops(t *testing.T) {
	b := smallGroups(t, 6000, 3210)
	before := runtime.NumGoroutine()
	_, _, e1 := readThreads(b, ReadOptions{}, 1)
	_, _, e4 := readThreads(b, ReadOptions{}, 4)
	waitGoroutines(t, before)
	var ne *NullError
	if !errors.As(e4, &ne) || ne.Column != "i" || ne.Row != 3210 || fmt.Sprint(e1) != fmt.Sprint(e4) {
		t.Fatalf("errors %v (1 thread) and %v (4 threads), want the NullError of column i, row 3210, both", e1, e4)
	}
	// With a fill value both read every row (i and x: the validity column
	// is not written), the null one filled.
	_, d1, e1 := readThreads(b, ReadOptions{Fill: map[string]any{"i": -1}}, 1)
	_, d4, e4 := readThreads(b, ReadOptions{Fill: map[string]any{"i": -1}}, 4)
	if e1 != nil || e4 != nil || !bytes.Equal(d1, d4) || len(d1) != 6000*16 {
		t.Fatalf("filled: errors %v, %v; %d and %d bytes", e1, e4, len(d1), len(d4))
	}
	if got := load[int64](d4, 3210*16); got != -1 {
		t.Errorf("row 3210 holds %d, want the fill value -1", got)
	}
	if got := load[int64](d4, 5999*16); got != 5999*31-7 {
		t.Errorf("row 5999 holds %d, want %d", got, 5999*31-7)
	}
}

// parallelTable is 20,000 rows of (i8, f8, U4, M8[ms]) whose U4 field
// holds the code point bad in row badRow (if >= 0).
func parallelTable(badRow int, bad uint32) (*npyio.Header, []byte) {
	dt, _ := npyio.ParseDescr("[('i', '<i8'), ('x', '<f8'), ('s', '<U4'), ('t', '<M8[ms]')]")
	n := 20000
	data := make([]byte, n*dt.Size)
	for r := 0; r < n; r++ {
		row := data[r*dt.Size:]
		copy(row[0:8], i64s(int64(r*r%977)))
		copy(row[8:16], npyio.AsBytes([]float64{math.Sin(float64(r))}))
		s := []uint32{'a' + uint32(r%26), 'A' + uint32(r%7), 0, 0}
		if r == badRow {
			s[1] = bad
		}
		copy(row[16:32], npyio.AsBytes(s))
		copy(row[32:40], i64s(1700000000000+int64(r)*1013))
	}
	return &npyio.Header{DType: dt, Shape: []int{n}}, data
}

// TestParallelWriteSameBytes writes one table with one thread and with
// several, several row groups at once or one: the files are the same
// bytes, and read back as the table.
func TestParallelWriteSameBytes(t *testing.T) {
	h, data := parallelTable(-1, 0)
	var want []byte
	for _, o := range []Options{{Threads: 1, Concurrency: 1}, {Threads: 4}, {Threads: 3, Concurrency: 3}, {Threads: 2, Concurrency: 2, Compression: "zstd"}} {
		o.RowGroupRows = 1500
		b, err := writeMem(t, h, data, &o)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = b
			_, got, err := readThreads(b, ReadOptions{}, 2)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("read back: %v, %d bytes equal %v", err, len(got), bytes.Equal(got, data))
			}
			continue
		}
		if !bytes.Equal(b, want) {
			t.Errorf("Threads %d, Concurrency %d: %d bytes, not the %d of one thread", o.Threads, o.Concurrency, len(b), len(want))
		}
	}
}

// TestParallelWriteErrorStops writes a table whose row 12345 cannot be
// encoded (a surrogate code point) with four threads and three row groups
// at once: one error naming the column and the row, and no encoder left.
func TestParallelWriteErrorStops(t *testing.T) {
	h, data := parallelTable(12345, 0xD800)
	before := runtime.NumGoroutine()
	for _, o := range []Options{{Threads: 1, Concurrency: 1}, {Threads: 4, Concurrency: 3}} {
		o.RowGroupRows = 1000
		_, err := writeMem(t, h, data, &o)
		if err == nil || !strings.Contains(err.Error(), "column s, row 12345: code point U+D800") {
			t.Errorf("Threads %d: error %v, want column s, row 12345, U+D800", o.Threads, err)
		}
	}
	waitGoroutines(t, before)
	if _, err := NewWriter(io.Discard, mustSchema(t, h), &Options{Threads: -1}); err == nil {
		t.Error("Threads -1 accepted")
	}
	if _, err := NewReaderOptions(bytes.NewReader(nil), 0, &ReadOptions{Threads: -2}); err == nil || !strings.Contains(err.Error(), "Threads") {
		t.Errorf("ReadOptions.Threads -2: error %v", err)
	}
}

func mustSchema(t *testing.T, h *npyio.Header) *Schema {
	t.Helper()
	s, err := NewArraySchema(h, "t")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestParallelReadAhead reads 12 row groups in windows of 3, each window
// decoded while the one before is read (prefetch): in batches of 7 rows
// and of a whole window, by Next and NextColumns, the rows are those of
// one thread; a null in row 3210 (the third window, decoded ahead) is the
// same error, and a damaged chunk in it too.
func TestParallelReadAhead(t *testing.T) {
	defer func(v int) { windowGroups = v }(windowGroups)
	windowGroups = 3
	b := smallGroups(t, 6000, -1)
	_, want, err := readThreads(b, ReadOptions{}, 1)
	if err != nil || len(want) != 6000*17 {
		t.Fatalf("one thread: %v, %d bytes", err, len(want))
	}
	for _, batch := range []int{7, 1500} {
		rd, err := NewReaderOptions(bytes.NewReader(b), int64(len(b)), &ReadOptions{Threads: 4})
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		for k := 0; ; k++ {
			if k%2 == 0 {
				bt, err := rd.Next(batch)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, bt.Data...)
				continue
			}
			n, cols, err := rd.NextColumns(batch)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(cols) != 1 { // an array: one source of whole records
				t.Fatalf("%d column sources, want 1", len(cols))
			}
			got = append(got, cols[0][:n*17]...)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("batches of %d rows: %d bytes, not the %d of one thread", batch, len(got), len(want))
		}
	}
	before := runtime.NumGoroutine()
	nb := smallGroups(t, 6000, 3210)
	_, _, e1 := readThreads(nb, ReadOptions{}, 1)
	_, got, e4 := readThreads(nb, ReadOptions{}, 4)
	var ne *NullError
	if !errors.As(e4, &ne) || ne.Row != 3210 || fmt.Sprint(e1) != fmt.Sprint(e4) || len(got) != 3000*16 {
		t.Errorf("null: errors %v and %v after %d bytes, want the NullError of row 3210 after the 3000 rows before its window", e1, e4, len(got))
	}
	rd, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	m := &rd.fmd.RowGroups[7].Columns[0].MetaData
	start, _ := chunkStart(m)
	bad := bytes.Clone(b)
	bad[start+m.TotalCompressedSize-3] ^= 0x0f
	_, _, e1 = readThreads(bad, ReadOptions{}, 1)
	_, _, e4 = readThreads(bad, ReadOptions{}, 4)
	if e4 == nil || fmt.Sprint(e1) != fmt.Sprint(e4) || !strings.Contains(e4.Error(), "column i, row group 7") {
		t.Errorf("damaged: errors %v and %v, want the same naming column i, row group 7", e1, e4)
	}
	waitGoroutines(t, before)
}

// parallelBenchRows are the rows of the parallel benchmarks: 2Mi rows of
// bench4 (i8, f8, f4, b1), 44 MB of numpy rows.
const parallelBenchRows = 2 << 20

func parallelBenchData(b *testing.B) (*npyio.Header, []byte) {
	dt, err := npyio.ParseDescr(bench4.descr)
	if err != nil {
		b.Fatal(err)
	}
	data := make([]byte, parallelBenchRows*dt.Size)
	for r := 0; r < parallelBenchRows; r++ {
		i, f64, f32, bo, _ := benchValue(r)
		row := data[r*dt.Size:]
		store(row[0:], i)
		store(row[8:], f64)
		store(row[16:], f32)
		if bo {
			row[20] = 1
		}
	}
	return &npyio.Header{DType: dt, Shape: []int{parallelBenchRows}}, data
}

// BenchmarkParallelRead reads zstd Parquet of DuckDB's row groups (122,880
// rows) and of npyflow's (1Mi rows) into numpy records, on as many
// threads as -cpu gives: go test -run X -bench ParallelRead -cpu 1,2.
func BenchmarkParallelRead(b *testing.B) {
	h, data := parallelBenchData(b)
	for _, groups := range []int{122880, 1 << 20} {
		file, err := writeMem(b, h, data, &Options{RowGroupRows: groups})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprint("groups=", groups), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				rd, err := NewReader(bytes.NewReader(file), int64(len(file)))
				if err != nil {
					b.Fatal(err)
				}
				rows := 0
				for {
					bt, err := rd.Next(1 << 16)
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					rows += bt.Rows
				}
				if rows != parallelBenchRows {
					b.Fatalf("%d rows", rows)
				}
			}
		})
	}
}

// BenchmarkParallelWrite writes the same rows as zstd Parquet (1Mi-row
// groups) to memory: go test -run X -bench ParallelWrite -cpu 1,2.
func BenchmarkParallelWrite(b *testing.B) {
	h, data := parallelBenchData(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := writeMem(b, h, data, nil); err != nil {
			b.Fatal(err)
		}
	}
}
