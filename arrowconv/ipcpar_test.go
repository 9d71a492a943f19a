package arrowconv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// parTestData is nb record batches of 300 rows (int64 with nulls,
// strings, float64), compressed with opts.Compression.
func parTestData(t testing.TB, opts IPCOptions, nb int) []byte {
	t.Helper()
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	var buf bytes.Buffer
	w, err := NewIPCWriter(&buf, schema, opts, mem)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for k := range nb {
		for i := range 300 {
			v := k*300 + i
			if v%7 == 3 {
				b.Field(0).AppendNull()
			} else {
				b.Field(0).(*array.Int64Builder).Append(int64(v) * 1e9)
			}
			b.Field(1).(*array.StringBuilder).Append(strings.Repeat(string(rune('a'+v%26)), 1+v%5))
			b.Field(2).(*array.Float64Builder).Append(float64(v) / 8)
		}
		rec := b.NewRecordBatch()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readAllRecords reads every record batch of data with threads goroutines.
func readAllRecords(t *testing.T, r io.Reader, threads int) ([]arrow.RecordBatch, error) {
	t.Helper()
	rr, err := NewIPCReaderThreads(r, nil, threads)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	var recs []arrow.RecordBatch
	for rr.Next() {
		rec := rr.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	return recs, rr.Err()
}

func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// waitGoroutines fails when more goroutines than before run a second on.
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines left, %d before", n, before)
	}
}

// TestParallelIPCReadThreads reads 40 compressed record batches (file
// and stream, zstd and lz4; seekable and as a plain reader) with 1 and
// with 4 goroutines: the same batches, in order, equal to what was
// written; the parallel reader is used where it should be.
func TestParallelIPCReadThreads(t *testing.T) {
	for _, opts := range []IPCOptions{{Format: IPCFile, Compression: Zstd}, {Format: IPCStream, Compression: LZ4}, {Format: IPCFile}} {
		data := parTestData(t, opts, 40)
		for _, plain := range []bool{false, true} {
			wrap := func() io.Reader {
				if plain {
					return io.MultiReader(bytes.NewReader(data))
				}
				return bytes.NewReader(data)
			}
			rr, err := NewIPCReaderThreads(wrap(), nil, 4)
			if err != nil {
				t.Fatal(err)
			}
			_, par := rr.(*parIPCReader)
			rr.Release()
			if want := opts.Compression != NoCompression; par != want {
				t.Errorf("%s plain=%v: parallel reader %v, want %v", fmtOpts(opts), plain, par, want)
			}
			one, err := readAllRecords(t, wrap(), 1)
			if err != nil {
				t.Fatal(err)
			}
			four, err := readAllRecords(t, wrap(), 4)
			if err != nil {
				t.Fatal(err)
			}
			if len(one) != 40 || len(four) != 40 {
				t.Fatalf("%s: %d and %d batches, want 40", fmtOpts(opts), len(one), len(four))
			}
			for i := range one {
				if !array.RecordEqual(one[i], four[i]) {
					t.Fatalf("%s plain=%v: batch %d differs between 1 and 4 threads", fmtOpts(opts), plain, i)
				}
				if got := four[i].Column(2).(*array.Float64).Value(0); got != float64(i*300)/8 {
					t.Fatalf("batch %d starts with f=%v, want %v", i, got, float64(i*300)/8)
				}
			}
			releaseAll(one)
			releaseAll(four)
		}
	}
}

// TestParallelIPCConvertThreads converts a zstd IPC file to .npy with 1
// and 3 threads: the same bytes.
func TestParallelIPCConvertThreads(t *testing.T) {
	data := parTestData(t, IPCOptions{Format: IPCFile, Compression: Zstd}, 25)
	dir := t.TempDir()
	var outs [][]byte
	for _, threads := range []int{1, 3} {
		path := filepath.Join(dir, "out.npy")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		n, _, err := ConvertIPC(f, bytes.NewReader(data), &MapOptions{Threads: threads, Fill: map[string]any{"x": -1}}, dir, nil)
		f.Close()
		if err != nil || n != 25*300 {
			t.Fatalf("threads %d: %d rows, %v", threads, n, err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b)
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatal("1 and 3 threads wrote different .npy files")
	}
}

// spoilBatchBuffer spoils the compressed bytes (not the length before
// them) of the largest buffer of record batch k of an IPC file.
func spoilBatchBuffer(t *testing.T, data []byte, blocks *fileBlocks, k int) {
	t.Helper()
	w := newBlockWalk(blocks, int64(len(data)))
	var meta []byte
	var b ipcBlock
	for i := -1 - len(blocks.dicts); i <= k; i++ { // the schema, the dictionaries, the batches
		var err error
		if meta, b, _, _, err = w.step(bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
	}
	msg, err := fbRoot(meta)
	if err != nil {
		t.Fatal(err)
	}
	rb, ok, err := msg.table(2)
	if err != nil || !ok {
		t.Fatalf("record batch %d: no header (%v)", k, err)
	}
	start, n, err := rb.vector(2, 16)
	if err != nil {
		t.Fatal(err)
	}
	var off, size int64
	for i := range n {
		e := rb.b[start+16*i:]
		if l := int64(binary.LittleEndian.Uint64(e[8:])); l > size {
			off, size = int64(binary.LittleEndian.Uint64(e)), l
		}
	}
	if size < 32 {
		t.Fatalf("record batch %d: largest buffer of %d bytes", k, size)
	}
	body := data[b.off+b.meta+off : b.off+b.meta+off+size]
	for i := 16; i < len(body); i++ {
		body[i] ^= 0xA5
	}
}

// TestParallelIPCReadCorrupt spoils record batch 17 of 40 compressed
// ones: the batches before it come out, then one error naming batch 17;
// the goroutines end at Release, also when the consumer stops early.
func TestParallelIPCReadCorrupt(t *testing.T) {
	for _, opts := range []IPCOptions{{Format: IPCFile, Compression: Zstd}, {Format: IPCFile, Compression: LZ4}} {
		data := parTestData(t, opts, 40)
		_, blocks, err := readIPCInfo(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		spoilBatchBuffer(t, data, blocks, 17)
		before := runtime.NumGoroutine()
		rr, err := NewIPCReaderThreads(bytes.NewReader(data), nil, 4)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := rr.(*parIPCReader); !ok {
			t.Fatalf("%T, want the parallel reader", rr)
		}
		n := 0
		for rr.Next() {
			n++
		}
		err = rr.Err()
		rr.Release()
		if n != 17 || err == nil || !strings.Contains(err.Error(), "record batch 17") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("%s: %d batches, then %v; want 17, then one line naming record batch 17", fmtOpts(opts), n, err)
		}
		t.Log(err)
		waitGoroutines(t, before)

		// A consumer that stops after 3 batches.
		rr, err = NewIPCReaderThreads(bytes.NewReader(data), nil, 4)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if !rr.Next() {
				t.Fatal(rr.Err())
			}
		}
		rr.Release()
		waitGoroutines(t, before)
	}
}

// TestIPCReadFileSpeed reads every record batch of the IPC file
// IPC_BENCH_FILE with IPC_BENCH_THREADS goroutines (0: GOMAXPROCS) and
// prints the time; skipped unless IPC_BENCH_FILE is set (see
// benchmarks/NOTES.md, issue 31).
func TestIPCReadFileSpeed(t *testing.T) {
	path := os.Getenv("IPC_BENCH_FILE")
	if path == "" {
		t.Skip("IPC_BENCH_FILE not set")
	}
	threads, _ := strconv.Atoi(os.Getenv("IPC_BENCH_THREADS"))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := time.Now()
	rr, err := NewIPCReaderThreads(f, nil, threads)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var rows int64
	for rr.Next() {
		rows += rr.RecordBatch().NumRows()
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("%s: %d rows, threads %d, GOMAXPROCS %d: %.3f s\n", path, rows, threads, runtime.GOMAXPROCS(0), time.Since(start).Seconds())
}

// TestParallelIPCReadWindow: the read-ahead shrinks to what
// parAheadBytes allows (one batch here), and the batches stay the same.
func TestParallelIPCReadWindow(t *testing.T) {
	data := parTestData(t, IPCOptions{Format: IPCFile, Compression: Zstd}, 12)
	want, err := readAllRecords(t, bytes.NewReader(data), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(want)
	for _, c := range []struct {
		ahead  int64
		window int
	}{{256 << 20, 8}, {1000, 1}, {2 * batchBytesOf(t, data), 2}} {
		old := parAheadBytes
		parAheadBytes = c.ahead
		rr, err := NewIPCReaderThreads(bytes.NewReader(data), nil, 4)
		parAheadBytes = old
		if err != nil {
			t.Fatal(err)
		}
		p, ok := rr.(*parIPCReader)
		if !ok || cap(p.order) != c.window {
			t.Fatalf("ahead %d: %T with a window of %d, want %d", c.ahead, rr, cap(p.order), c.window)
		}
		i := 0
		for ; rr.Next(); i++ {
			if !array.RecordEqual(rr.RecordBatch(), want[i]) {
				t.Fatalf("ahead %d: batch %d differs", c.ahead, i)
			}
		}
		if err := rr.Err(); err != nil || i != len(want) {
			t.Fatalf("ahead %d: %d batches, %v", c.ahead, i, err)
		}
		rr.Release()
	}
}

// batchBytesOf is the decompressed size of the first record batch of an
// IPC file.
func batchBytesOf(t *testing.T, data []byte) int64 {
	t.Helper()
	_, blocks, err := readIPCInfo(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	src := newBlockSource(bytes.NewReader(data), int64(len(data)), blocks)
	if _, _, _, err := src.next(); err != nil { // the schema
		t.Fatal(err)
	}
	meta, body, where, err := src.next()
	if err != nil {
		t.Fatal(err)
	}
	n := batchBytes(savedMsg{meta: meta, body: body, where: where})
	if n < 300*8*2 {
		t.Fatalf("first batch of %d bytes decompressed", n)
	}
	return n
}
