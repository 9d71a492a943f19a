package arrowconv_test

import (
	"bytes"
	"errors"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
)

// structFile returns an .npy file of n records of (i8, f8, b1, M8[ms]),
// with bool bytes other than 0 and 1 (numpy reads any non-zero as true).
func structFile(t *testing.T, n int) []byte {
	t.Helper()
	dt, err := npyio.ParseDescr("[('id', '<i8'), ('x', '<f8'), ('ok', '|b1'), ('t', '<M8[ms]')]")
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, n*dt.Size)
	for i := 0; i < n; i++ {
		rec := data[i*dt.Size:]
		putU64(rec[0:], uint64(i))
		putU64(rec[8:], math.Float64bits(float64(3*i)))
		rec[16] = byte(i % 3 * 0x41) // 0, 0x41, 0x82
		putU64(rec[17:], uint64(1_700_000_000_000+i))
	}
	var buf bytes.Buffer
	if err := npyio.WriteArray(&buf, &npyio.Array{Header: &npyio.Header{DType: dt, Shape: []int{n}}, DType: dt, Data: data}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func putU64(b []byte, v uint64) {
	for k := 0; k < 8; k++ {
		b[k] = byte(v >> (8 * k))
	}
}

// failingReaderAt fails every read that reaches past limit.
type failingReaderAt struct {
	b     []byte
	limit int64
}

var errDisk = errors.New("injected read error")

func (f failingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.limit {
		return 0, errDisk
	}
	return copy(p, f.b[off:]), nil
}

// failingWriter accepts limit bytes, then fails.
type failingWriter struct{ n, limit int }

var errFull = errors.New("injected write error: disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n+len(p) > w.limit {
		return 0, errFull
	}
	w.n += len(p)
	return len(p), nil
}

// waitGoroutines fails unless the goroutine count comes back to base.
func waitGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left running, want %d:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// TestWriteIPCReadAhead checks the values WriteIPC writes when it reads a
// streaming source ahead (raw rows, records and writes on three
// goroutines), and that it stops cleanly on a read error and on a write
// error: the error comes back, no goroutine is left and every buffer is
// released.
func TestWriteIPCReadAhead(t *testing.T) {
	const n = 10_000
	file := structFile(t, n)
	open := func(t *testing.T, ra io.ReaderAt, mem memory.Allocator) *arrowconv.RecordReader {
		r, err := npyio.NewReaderAt(ra, int64(len(file)), nil)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := arrowconv.NewRecordReader(r, "x", 999, mem)
		if err != nil {
			t.Fatal(err)
		}
		return rr
	}

	t.Run("values", func(t *testing.T) {
		base := runtime.NumGoroutine()
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		rr := open(t, bytes.NewReader(file), mem)
		var out bytes.Buffer
		rows, err := arrowconv.WriteIPC(&out, rr, arrowconv.IPCOptions{}, mem)
		rr.Release()
		if err != nil || rows != n {
			t.Fatalf("wrote %d rows: %v", rows, err)
		}
		waitGoroutines(t, base)
		ir, err := arrowconv.NewIPCReader(bytes.NewReader(out.Bytes()), mem)
		if err != nil {
			t.Fatal(err)
		}
		defer ir.Release()
		i := 0
		for ir.Next() {
			rec := ir.RecordBatch()
			id := rec.Column(0).(*array.Int64)
			x := rec.Column(1).(*array.Float64)
			ok := rec.Column(2).(*array.Boolean)
			ts := rec.Column(3).(*array.Timestamp)
			for k := 0; k < int(rec.NumRows()); k, i = k+1, i+1 {
				if id.Value(k) != int64(i) || x.Value(k) != float64(3*i) || ok.Value(k) != (i%3 != 0) || int64(ts.Value(k)) != 1_700_000_000_000+int64(i) || ts.IsNull(k) {
					t.Fatalf("row %d: %v %v %v %v", i, id.Value(k), x.Value(k), ok.Value(k), ts.Value(k))
				}
			}
		}
		if ir.Err() != nil || i != n {
			t.Fatalf("read back %d rows: %v", i, ir.Err())
		}
	})

	t.Run("read error", func(t *testing.T) {
		base := runtime.NumGoroutine()
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		rr := open(t, failingReaderAt{file, int64(len(file)) * 2 / 3}, mem)
		rows, err := arrowconv.WriteIPC(io.Discard, rr, arrowconv.IPCOptions{}, mem)
		if !errors.Is(err, errDisk) {
			t.Fatalf("got %v, want the read error", err)
		}
		if rows == 0 || rows >= n || rows%999 != 0 {
			t.Errorf("wrote %d rows before the error, want whole batches before row %d", rows, 2*n/3)
		}
		rr.Release()
		waitGoroutines(t, base)
	})

	t.Run("write error", func(t *testing.T) {
		base := runtime.NumGoroutine()
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		rr := open(t, bytes.NewReader(file), mem)
		_, err := arrowconv.WriteIPC(&failingWriter{limit: 100_000}, rr, arrowconv.IPCOptions{}, mem)
		if !errors.Is(err, errFull) {
			t.Fatalf("got %v, want the write error", err)
		}
		// The rows read ahead are gone: the reader must say so, not
		// resume from a later row.
		if rr.Next() {
			t.Fatal("Next after an abandoned WriteIPC returned a record")
		}
		if err := rr.Err(); err == nil || !strings.Contains(err.Error(), "stopped mid-stream") {
			t.Fatalf("Err after an abandoned WriteIPC: %v", err)
		}
		rr.Release()
		waitGoroutines(t, base)
	})
}

func TestDefaultIPCOptions(t *testing.T) {
	for _, c := range []struct {
		path string
		want arrowconv.IPCOptions
	}{
		{"x.arrow", arrowconv.IPCOptions{Format: arrowconv.IPCFile}},
		{"dir/X.ARROW", arrowconv.IPCOptions{Format: arrowconv.IPCFile}},
		{"x.arrows", arrowconv.IPCOptions{Format: arrowconv.IPCStream}},
		{"-", arrowconv.IPCOptions{Format: arrowconv.IPCStream}},
		{"x.feather", arrowconv.IPCOptions{Format: arrowconv.IPCFile, Compression: arrowconv.LZ4}},
		{"x.ipc", arrowconv.IPCOptions{Format: arrowconv.IPCFile}},
	} {
		if got := arrowconv.DefaultIPCOptions(c.path); got != c.want {
			t.Errorf("DefaultIPCOptions(%q) = %+v, want %+v", c.path, got, c.want)
		}
	}
	for name, want := range map[string]arrowconv.Compression{"zstd": arrowconv.Zstd, "LZ4": arrowconv.LZ4, "lz4_frame": arrowconv.LZ4, "none": arrowconv.NoCompression} {
		if got, err := arrowconv.ParseCompression(name); err != nil || got != want {
			t.Errorf("ParseCompression(%q) = %v, %v", name, got, err)
		}
	}
	if _, err := arrowconv.ParseCompression("snappy"); err == nil {
		t.Error("snappy accepted for IPC")
	}
}
