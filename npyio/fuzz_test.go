package npyio_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// seedFiles adds every fixture and malformed file as a fuzz seed.
func seedFiles(f *testing.F, patterns ...string) {
	for _, pat := range patterns {
		paths, _ := filepath.Glob(filepath.Join(fixtures.Root(), pat))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			if len(b) <= 64<<10 {
				f.Add(b)
			}
		}
	}
}

var fuzzOpts = &npyio.Options{MaxHeaderSize: 1 << 20, MaxBufferSize: 64 << 20}

func FuzzParseHeader(f *testing.F) {
	for _, fx := range fixtures.NPYs(f) {
		if len(fx.Header) < 4096 {
			f.Add(fx.Header)
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		h, err := npyio.ParseHeader(text)
		if err != nil {
			return
		}
		// What parses must print back to a header that parses the same.
		hdr, err := npyio.EncodeHeader(h)
		if err != nil {
			return // e.g. object dtype, which is parsed but never written
		}
		h2, err := npyio.ReadHeader(bytes.NewReader(hdr), nil)
		if err != nil {
			t.Fatalf("re-reading encoded header %q: %v", hdr, err)
		}
		if h2.DType.String() != h.DType.String() || len(h2.Shape) != len(h.Shape) {
			t.Fatalf("round trip changed %s %v to %s %v", h.DType, h.Shape, h2.DType, h2.Shape)
		}
	})
}

func FuzzReader(f *testing.F) {
	seedFiles(f, "npy/*.npy", "malformed/*.npy")
	f.Fuzz(func(t *testing.T, data []byte) {
		var rowsAt, rowsStream int64 = -1, -1
		var sumAt, sumStream []byte
		if r, err := npyio.NewReaderAt(bytes.NewReader(data), int64(len(data)), fuzzOpts); err == nil {
			rowsAt, sumAt = drainAll(t, r)
		}
		if r, err := npyio.NewReader(bytes.NewReader(data), fuzzOpts); err == nil {
			rowsStream, sumStream = drainAll(t, r)
		}
		// Both paths agree whenever both succeed.
		if rowsAt >= 0 && rowsStream >= 0 && (rowsAt != rowsStream || !bytes.Equal(sumAt, sumStream)) {
			t.Fatalf("ReaderAt read %d rows, stream %d; data differ: %v", rowsAt, rowsStream, !bytes.Equal(sumAt, sumStream))
		}
		if a, err := npyio.ReadArray(bytes.NewReader(data), fuzzOpts); err == nil {
			var buf bytes.Buffer
			if err := npyio.WriteArray(&buf, a); err != nil {
				t.Fatalf("writing back a readable array: %v", err)
			}
		}
	})
}

// drainAll reads all rows, returning the count and (for small arrays) the
// bytes.
func drainAll(t *testing.T, r *npyio.Reader) (int64, []byte) {
	var rows int64
	var all []byte
	for {
		b, err := r.Next(7)
		if err == io.EOF {
			return rows, all
		}
		if err != nil {
			return -1, nil
		}
		rows += int64(b.Rows)
		if len(all) < 1<<20 {
			all = append(all, b.Data...)
		}
	}
}

func FuzzNPZ(f *testing.F) {
	seedFiles(f, "npz/*.npz", "malformed/*.npz")
	f.Fuzz(func(t *testing.T, data []byte) {
		nz, err := npyio.NewNPZReader(bytes.NewReader(data), int64(len(data)), fuzzOpts)
		if err != nil {
			return
		}
		for _, m := range nz.Members {
			if r, err := m.Open(); err == nil {
				drainAll(t, r)
			}
			_, _ = m.ReadAll(1 << 20)
		}
	})
}
