package matfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// TestV73ReadMemoryBounded (not -short): a 128 MiB v7.3 matrix and a
// 128 MiB column vector (one HDF5 row) read back through Open and
// OpenRowMajor grow the heap by a bounded amount (the whole variable
// was held before), and the row-major bytes are the rows written.
func TestV73ReadMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 256 MiB")
	}
	for _, shape := range [][]int{{16384, 1024}, {16 << 20, 1}} {
		h := &npyio.Header{DType: npyio.Float64Type, Shape: shape}
		path := filepath.Join(t.TempDir(), "m.mat")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w, err := NewWriter(f, &WriteOptions{Version: "7.3"})
		if err != nil {
			t.Fatal(err)
		}
		vw, err := w.CreateVariable("x", h)
		if err != nil {
			t.Fatal(err)
		}
		rs := int(h.RowSize())
		rows := (1 << 20) / rs
		batch := make([]byte, rows*rs)
		for i := range batch {
			batch[i] = byte(i * 31 >> 5)
		}
		for r := 0; r < shape[0]; r += rows {
			if err := vw.Write(batch[:min(rows, shape[0]-r)*rs]); err != nil {
				t.Fatal(err)
			}
		}
		if err := vw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()

		mf, err := OpenFile(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, rowMajor := range []bool{false, true} {
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			base, peak := ms.HeapAlloc, ms.HeapAlloc
			var total int64
			err = mf.WalkVariables([]string{"x"}, func(_ string, v *Var) error {
				open := v.Open
				if rowMajor {
					open = v.OpenRowMajor
				}
				rc, err := open()
				if err != nil {
					return err
				}
				defer rc.Close()
				buf := make([]byte, 1<<20)
				for k := 0; ; k++ {
					n, err := io.ReadFull(rc, buf)
					if rowMajor && n > 0 && !bytes.Equal(buf[:n], batch[total%int64(len(batch)):][:n]) {
						t.Fatalf("%v: row-major bytes at %d differ from those written", shape, total)
					}
					total += int64(n)
					if k%8 == 0 {
						// The live heap: garbage the collector has not
						// reached yet depends on the machine's load.
						runtime.GC()
						runtime.ReadMemStats(&ms)
						peak = max(peak, ms.HeapAlloc)
					}
					if err == io.EOF || err == io.ErrUnexpectedEOF {
						return nil
					}
					if err != nil {
						return err
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			grow := int64(peak) - int64(base)
			t.Logf("%v row-major %v: heap grew by %.1f MiB reading %d MiB", shape, rowMajor, float64(grow)/(1<<20), total>>20)
			if total != h.DataSize() {
				t.Errorf("%v: read %d bytes of %d", shape, total, h.DataSize())
			}
			// Row-major bands: a band, its reversal and a group of decoded
			// chunks. Storage order over chunks taller than a batch (the
			// writer's, made for row-major bands) also fills the chunk
			// cache (64 MiB).
			limit := int64(64 << 20)
			if !rowMajor {
				limit = 112 << 20
			}
			if grow > limit {
				t.Errorf("%v row-major %v: heap grew by %d MiB", shape, rowMajor, grow>>20)
			}
		}
		mf.Close()
	}
}

// BenchmarkReadV73Matrix: a 32 MiB double matrix (2048 x 2048) written by
// the v7.3 writer (chunked, deflated) read in storage order (Open) and in
// C order (OpenRowMajor: bands of HDF5 hyperslabs, reversed in memory).
func BenchmarkReadV73Matrix(b *testing.B) {
	h := &npyio.Header{DType: npyio.Float64Type, Shape: []int{2048, 2048}}
	path := filepath.Join(b.TempDir(), "m.mat")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w, err := NewWriter(f, &WriteOptions{Version: "7.3"})
	if err != nil {
		b.Fatal(err)
	}
	data := make([]byte, h.DataSize())
	for i := 0; i < len(data); i += 8 {
		binary.LittleEndian.PutUint64(data[i:], math.Float64bits(math.Round(math.Sin(float64(i)/800)*1e4)/64))
	}
	if err := w.WriteArray("x", &npyio.Array{Header: h, DType: h.DType, Data: data}); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	for _, rowMajor := range []bool{false, true} {
		name := "Open"
		if rowMajor {
			name = "OpenRowMajor"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(h.DataSize())
			for i := 0; i < b.N; i++ {
				mf, err := OpenFile(path, nil)
				if err != nil {
					b.Fatal(err)
				}
				err = mf.WalkVariables([]string{"x"}, func(_ string, v *Var) error {
					open := v.Open
					if rowMajor {
						open = v.OpenRowMajor
					}
					rc, err := open()
					if err != nil {
						return err
					}
					defer rc.Close()
					n, err := io.Copy(io.Discard, rc)
					if err == nil && n != h.DataSize() {
						err = fmt.Errorf("%d bytes", n)
					}
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
				mf.Close()
			}
		})
	}
}
