package arrowconv_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

var ipcVariants = []arrowconv.IPCOptions{
	{Format: arrowconv.IPCFile},
	{Format: arrowconv.IPCStream, Compression: arrowconv.Zstd},
	{Format: arrowconv.IPCFile, Compression: arrowconv.LZ4},
	{Format: arrowconv.IPCStream},
	{Format: arrowconv.IPCFile, Compression: arrowconv.Zstd},
	{Format: arrowconv.IPCStream, Compression: arrowconv.LZ4},
}

// TestRoundTrip converts every fixture npy -> Arrow -> npy, directly and
// through an IPC file or stream, and checks that the result has numpy's
// dtype (descr, byte order included), shape and values.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for i, fx := range fixtures.NPYs(t) {
		h := readHeader(t, fx.Path)
		if refusedUnit(h.DType) || overflowsAny(h, &fx) {
			continue // TestFixtures checks the refusal
		}
		// "stream-ipc" reads the file with a streaming npyio.Reader, whose
		// rows WriteIPC reads ahead on other goroutines.
		for _, via := range []string{"direct", "ipc", "stream-ipc"} {
			t.Run(fx.Name+"/"+via, func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				var rr *arrowconv.RecordReader
				if via == "stream-ipc" {
					f, err := os.Open(fx.Path)
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					st, _ := f.Stat()
					r, err := npyio.NewReaderAt(f, st.Size(), nil)
					if err != nil {
						t.Fatal(err)
					}
					rr, err = arrowconv.NewRecordReader(r, stem(fx.Path), 2, mem)
					if err != nil {
						t.Fatal(err)
					}
				} else {
					a, err := npyio.ReadFile(fx.Path, nil)
					if err != nil {
						t.Fatal(err)
					}
					rr, err = arrowconv.NewArrayRecordReader(a, stem(fx.Path), 2, mem)
					if err != nil {
						t.Fatal(err)
					}
				}
				defer rr.Release()
				var src array.RecordReader = rr
				if via != "direct" {
					opts := ipcVariants[i%len(ipcVariants)]
					var buf bytes.Buffer
					if _, err := arrowconv.WriteIPC(&buf, rr, opts, mem); err != nil {
						t.Fatal(err)
					}
					ir, err := arrowconv.NewIPCReader(bytes.NewReader(buf.Bytes()), mem)
					if err != nil {
						t.Fatal(err)
					}
					defer ir.Release()
					src = ir
				}
				out := filepath.Join(dir, fmt.Sprintf("%s-%s.npy", fx.Name, via))
				f, err := os.Create(out)
				if err != nil {
					t.Fatal(err)
				}
				n, err := arrowconv.WriteNPY(f, src, nil)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				if n != h.Rows() {
					t.Errorf("wrote %d rows, want %d", n, h.Rows())
				}
				checkNPY(t, out, &fx, h)
			})
		}
	}
}

func readHeader(t *testing.T, path string) *npyio.Header {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := npyio.ReadHeader(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func overflowsAny(h *npyio.Header, fx *fixtures.NPY) bool {
	for _, v := range fx.Values {
		if overflows(h.DType, nil, v) {
			return true
		}
	}
	return false
}

// checkNPY checks that the .npy file at path holds what numpy holds for
// the fixture: same descr, shape and element values.
func checkNPY(t *testing.T, path string, fx *fixtures.NPY, want *npyio.Header) {
	t.Helper()
	got, err := npyio.ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := got.Header.DType.String(), want.DType.String(); g != w {
		t.Fatalf("descr %s, want %s", g, w)
	}
	if !slices.Equal(got.Header.Shape, want.Shape) {
		t.Fatalf("shape %v, want %v", got.Header.Shape, want.Shape)
	}
	data := got.CData()
	size := got.DType.Size
	if int64(len(fx.Values)) != got.Header.Count() {
		t.Fatalf("%d values, numpy has %d", got.Header.Count(), len(fx.Values))
	}
	for i, raw := range fx.Values {
		if err := fixtures.CheckElement(got.DType, data[i*size:(i+1)*size], raw); err != nil {
			t.Fatalf("element %d: %v", i, err)
		}
	}
}
