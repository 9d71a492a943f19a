package matfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/npyflow/npyflow/npyio"
)

// writeV7 writes data (C order, shape) as variable x of a v7 (compressed)
// MAT-file and returns its path.
func writeV7(t *testing.T, h *npyio.Header, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.mat")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(f, &WriteOptions{Version: "7"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteArray("x", &npyio.Array{Header: h, DType: h.DType, Data: data}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

// TestOpenRowMajorV7Matrix: a compressed 2-D variable is inflated in a
// goroutine and scattered block by block into C order; the bytes equal
// those written, for each element size and block size (whole columns
// and parts of one column).
func TestOpenRowMajorV7Matrix(t *testing.T) {
	oldMin, oldBlk := streamMin, colBlock
	defer func() { streamMin, colBlock = oldMin, oldBlk }()
	streamMin = 1 << 10
	type tc struct {
		dt    *npyio.DType
		shape []int
	}
	cases := []tc{{npyio.Float64Type, []int{301, 67}}, {npyio.Float32Type, []int{301, 67}}, {npyio.Int16Type, []int{301, 67}}, {npyio.BoolType, []int{301, 67}}}
	// Over 8 MiB: the result buffer is advised to huge pages (Linux).
	cases = append(cases, tc{npyio.Float64Type, []int{1100, 1001}})
	for _, c := range cases {
		dt := c.dt
		h := &npyio.Header{DType: dt, Shape: c.shape}
		data := make([]byte, h.DataSize())
		for i := range data {
			data[i] = byte(i*7 + i/1000)
		}
		if dt.Kind == npyio.Bool {
			for i := range data {
				data[i] &= 1
			}
		}
		path := writeV7(t, h, data)
		for _, cb := range []int{1000, 64 << 10, 4 << 20} {
			if h.DataSize() > 1<<20 && cb != 4<<20 {
				continue
			}
			colBlock = cb
			mf, err := OpenFile(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = mf.WalkVariables([]string{"x"}, func(_ string, v *Var) error {
				if v.slab == nil {
					t.Fatalf("%s: no row-major stream for a compressed matrix", dt)
				}
				rc, err := v.OpenRowMajor()
				if err != nil {
					return err
				}
				got, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					return err
				}
				if !bytes.Equal(got, data) {
					t.Errorf("%s blocks of %d bytes: row-major bytes differ from those written", dt, cb)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			mf.Close()
		}
	}
}

// TestV7PipeErrors: a corrupt compressed matrix is an error naming the
// variable (not a hang), and a stream closed before its end stops the
// inflating goroutine.
func TestV7PipeErrors(t *testing.T) {
	oldMin := streamMin
	defer func() { streamMin = oldMin }()
	streamMin = 1 << 10
	h := &npyio.Header{DType: npyio.Float64Type, Shape: []int{500, 90}}
	data := make([]byte, h.DataSize())
	for i := range data {
		data[i] = byte(i * 13 / 7)
	}
	path := writeV7(t, h, data)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	err = readCorruptedX(t, raw)
	if err == nil || !strings.Contains(err.Error(), "x") {
		t.Fatalf("corrupt stream: got %v, want an error naming x", err)
	}

	t.Logf("corrupt: %v", err)
	before := runtime.NumGoroutine()
	mf, err := OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer mf.Close()
	for i := 0; i < 20; i++ {
		err = mf.WalkVariables([]string{"x"}, func(_ string, v *Var) error {
			rc, err := v.Open()
			if err != nil {
				return err
			}
			var b [100]byte
			if _, err := io.ReadFull(rc, b[:]); err != nil {
				return err
			}
			if !bytes.Equal(b[:8], data[:8]) {
				t.Errorf("first element: got % x, want % x", b[:8], data[:8])
			}
			return rc.Close()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(50 * time.Millisecond)
	if n := runtime.NumGoroutine(); n > before+2 {
		t.Errorf("%d goroutines after closing 20 streams early, %d before", n, before)
	}
}

// TestOpenRowMajorV7Spooled: a compressed variable over spoolMin (2-D or
// not) is inflated to a temporary file and read back in bands of rows:
// the bytes equal those written, the file is gone after Close, the heap
// grows by a bounded amount, and a corrupt stream is an error naming
// the variable.
func TestOpenRowMajorV7Spooled(t *testing.T) {
	oldMin, oldSpool, oldBand := streamMin, spoolMin, bandBytes
	defer func() { streamMin, spoolMin, bandBytes = oldMin, oldSpool, oldBand }()
	streamMin, spoolMin, bandBytes = 1<<10, 1<<10, 4<<10
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	type tc struct {
		dt    *npyio.DType
		shape []int
	}
	for _, c := range []tc{{npyio.Float64Type, []int{301, 67}}, {npyio.Int16Type, []int{41, 5, 7}}, {npyio.BoolType, []int{700, 9}}, {npyio.Float32Type, []int{2, 3, 4, 50}}} {
		h := &npyio.Header{DType: c.dt, Shape: c.shape}
		data := make([]byte, h.DataSize())
		for i := range data {
			data[i] = byte(i*7 + i/1000)
			if c.dt.Kind == npyio.Bool {
				data[i] &= 1
			}
		}
		path := writeV7(t, h, data)
		mf, err := OpenFile(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = mf.WalkVariables([]string{"x"}, func(_ string, v *Var) error {
			rc, err := v.OpenRowMajor()
			if err != nil {
				return err
			}
			if _, ok := rc.(*spooled); !ok {
				t.Errorf("%s %v: not spooled (%T)", c.dt, c.shape, rc)
			}
			got, err := io.ReadAll(rc)
			if err != nil {
				return err
			}
			if err := rc.Close(); err != nil {
				return err
			}
			if !bytes.Equal(got, data) {
				t.Errorf("%s %v: row-major bytes differ from those written", c.dt, c.shape)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		mf.Close()
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("%s %v: %d files left in TMPDIR", c.dt, c.shape, len(left))
		}
	}

	// Corrupt: an error naming x, no file left.
	h := &npyio.Header{DType: npyio.Float64Type, Shape: []int{500, 90}}
	data := make([]byte, h.DataSize())
	for i := range data {
		data[i] = byte(i * 13 / 7)
	}
	raw, err := os.ReadFile(writeV7(t, h, data))
	if err != nil {
		t.Fatal(err)
	}
	err = readCorruptedX(t, raw)
	if err == nil || !strings.Contains(err.Error(), "x") {
		t.Errorf("corrupt stream: got %v, want an error naming x", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("corrupt stream: %d files left in TMPDIR", len(left))
	}

	if testing.Short() {
		return
	}
	// 48 MiB: the heap grows by about a band (two 1 MiB buffers), the
	// copy buffer and the inflating ring, not by the variable.
	spoolMin, bandBytes = 1<<20, 1<<20
	h = &npyio.Header{DType: npyio.Float64Type, Shape: []int{3072, 2048}}
	data = make([]byte, h.DataSize())
	for i := range data {
		data[i] = byte(i * 31 >> 7)
	}
	path := writeV7(t, h, data)
	mf, err := OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer mf.Close()
	err = mf.WalkVariables([]string{"x"}, func(_ string, v *Var) error {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		rc, err := v.OpenRowMajor()
		if err != nil {
			return err
		}
		defer rc.Close()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		peak := ms.HeapAlloc
		buf := make([]byte, 1<<20)
		off := 0
		for {
			n, err := rc.Read(buf)
			if n > 0 && !bytes.Equal(buf[:n], data[off:off+n]) {
				t.Fatalf("bytes at %d differ", off)
			}
			off += n
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
		if off != len(data) {
			t.Errorf("%d bytes, want %d", off, len(data))
		}
		if grew := int64(peak) - int64(base); grew > 16<<20 {
			t.Errorf("the heap grew by %d MiB reading a 48 MiB variable", grew>>20)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// readCorruptedX flips 64 bytes in the middle of a v7 file's deflate
// stream (raw is left as it is) and reads variable x row-major to its
// end, returning the error.
func readCorruptedX(t *testing.T, raw []byte) error {
	t.Helper()
	bad := append([]byte(nil), raw...)
	for i := len(bad) / 2; i < len(bad)/2+64; i++ {
		bad[i] ^= 0x5a
	}
	mf, err := Open(bytes.NewReader(bad), int64(len(bad)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return mf.WalkVariables([]string{"x"}, func(_ string, v *Var) error {
		rc, err := v.OpenRowMajor()
		if err == nil {
			_, err = io.ReadAll(rc)
			rc.Close()
		}
		return err
	})
}
