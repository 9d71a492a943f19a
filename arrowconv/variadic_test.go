package arrowconv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
)

// TestIPCVariadicCounts damages the variadic buffer counts of the
// binary-view columns (sv, bv) of an IPC file arrow-go wrote: arrow-go
// sizes a buffer list by the count before taking a buffer, and a count of
// 2**40 killed the process ("fatal error: out of memory" in loadCommon).
// Each is now a *CorruptError on one line, having allocated little.
func TestIPCVariadicCounts(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("testdata", "foreign", "every_type.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drainBatches(bytes.NewReader(orig)); err != nil {
		t.Fatalf("the file itself: %v", err)
	}
	_, rb, _ := firstBatch(t, orig)
	_, n, err := rb.vector(4, 8)
	if err != nil || n < 2 {
		t.Fatalf("%d variadic counts (%v): the file has no binary-view columns", n, err)
	}
	for i := range n {
		for _, v := range []int64{1 << 40, 0x7fffffff, 1 << 20, 40, -1} {
			b := bytes.Clone(orig)
			_, rb, _ := firstBatch(t, b) // its tables are b's bytes
			start, _, _ := rb.vector(4, 8)
			binary.LittleEndian.PutUint64(rb.b[start+8*i:], uint64(v))
			var rerr error
			alloc := fixtures.Allocated(func() {
				_, rerr = drainBatches(bytes.NewReader(b))
			})
			var ce *CorruptError
			if !errors.As(rerr, &ce) || strings.Contains(rerr.Error(), "\n") {
				t.Errorf("count %d set to %d: %v, want one line of a *CorruptError", i, v, rerr)
			}
			if alloc > 16<<20 {
				t.Errorf("count %d set to %d: allocated %d MiB", i, v, alloc>>20)
			}
		}
	}
}

// drainBatches reads every record batch of IPC data (validated by the
// reader), converting none.
func drainBatches(r io.Reader) (int64, error) {
	rr, err := NewIPCReader(r, nil)
	if err != nil {
		return 0, err
	}
	defer rr.Release()
	var rows int64
	for rr.Next() {
		rows += rr.RecordBatch().NumRows()
	}
	return rows, rr.Err()
}

// TestIPCInfoOneLine flips every byte of the first 2 KiB of IPC streams
// and files arrow-go and apache-arrow (JS) wrote and checks that
// ReadIPCInfo's refusals are one line (a malformed schema message was
// errFlatbuffer joined with itself: the same sentence on two lines).
func TestIPCInfoOneLine(t *testing.T) {
	for _, name := range []string{"every_type.arrow", "every_type_lz4.arrows", "arrowjs_every_type.arrows", "union.arrow"} {
		orig, err := os.ReadFile(filepath.Join("testdata", "foreign", name))
		if err != nil {
			t.Fatal(err)
		}
		refused := 0
		for i := range min(len(orig), 2048) {
			for _, x := range []byte{0x01, 0xff} {
				b := bytes.Clone(orig)
				b[i] ^= x
				_, err := ReadIPCInfo(bytes.NewReader(b), int64(len(b)))
				if err == nil {
					continue
				}
				refused++
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("%s, byte %d ^ %#x: %q spans lines", name, i, x, err)
				}
			}
		}
		t.Logf("%s: %d refusals, each one line", name, refused)
	}
}
