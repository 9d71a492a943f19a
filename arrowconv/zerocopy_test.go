package arrowconv_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// TestZeroCopy checks that native fixed-width columns of a memory-mapped
// or whole-file array are the file's bytes, not copies, and that values
// read through them are numpy's.
func TestZeroCopy(t *testing.T) {
	cases := []struct {
		fixture string
		share   bool // the column's values buffer is the file's bytes
	}{
		{"f8_le_1d", true},
		{"i2_le_2d_c", true},   // FixedSizeList child
		{"f8_le_3d_c", true},   // fixed_shape_tensor storage child
		{"M8_ns_le_nat", true}, // values shared, validity bitmap built
		{"f8_be_1d", true},     // npyio already swapped into a native copy: no second copy
		{"b1_1d", false},       // bit-packing forces a copy
		{"f8_le_2d_f", false},  // Fortran order is reordered to C order first
	}
	for _, c := range cases {
		for _, how := range []string{"mmap", "readfile"} {
			t.Run(c.fixture+"/"+how, func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				fx := fixtures.NPYByName(t, c.fixture)
				var a *npyio.Array
				if how == "mmap" {
					m, err := npyio.Map(fx.Path, nil)
					if err != nil {
						t.Fatal(err)
					}
					defer m.Close()
					if c.share && !m.Mapped() && a0Native(fx) {
						t.Fatal("native file not mapped")
					}
					a = &m.Array
				} else {
					var err error
					if a, err = npyio.ReadFile(fx.Path, nil); err != nil {
						t.Fatal(err)
					}
				}
				rec, err := arrowconv.NewRecordBatch(a, c.fixture, mem)
				if err != nil {
					t.Fatal(err)
				}
				defer rec.Release()
				if err := checkRecord(rec, 0, a.Header, &fx); err != nil {
					t.Fatal(err)
				}
				d := rec.Column(0).Data()
				for len(d.Children()) > 0 {
					d = d.Children()[0]
				}
				vals := d.Buffers()[len(d.Buffers())-1].Bytes()
				shared := unsafe.SliceData(vals) == unsafe.SliceData(a.Data)
				if shared != c.share {
					t.Errorf("values shared with the file's bytes: %v, want %v", shared, c.share)
				}
				if c.fixture == "b1_1d" && mem.CurrentAlloc() == 0 {
					t.Errorf("copied column allocated nothing from the allocator")
				}
			})
		}
	}
}

// writeNPY writes a native-order array to a temporary file.
func writeNPY(tb testing.TB, dt *npyio.DType, shape []int, data []byte) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "a.npy")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := npyio.WriteArray(f, &npyio.Array{Header: &npyio.Header{DType: dt, Shape: shape}, DType: dt, Data: data}); err != nil {
		tb.Fatal(err)
	}
	return path
}

func float64Array(n int) *npyio.Array {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i) * 0.5
	}
	return &npyio.Array{Header: &npyio.Header{DType: npyio.Float64Type, Shape: []int{n}}, DType: npyio.Float64Type, Data: npyio.AsBytes(v)}
}

// TestZeroCopyAllocs checks that converting a native float64 array
// allocates no allocator bytes and only a small, length-independent amount
// of Go heap: a copy of the 8 MiB column would show up as megabytes per
// call. (Allocation counts are not compared: the runtime and the race
// detector may add a stray allocation to either run.)
func TestZeroCopyAllocs(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const runs = 5
	perCall := map[int]uint64{}
	for _, n := range []int{1 << 10, 1 << 20} {
		a := float64Array(n)
		convert := func() {
			rec, err := arrowconv.NewRecordBatch(a, "x", mem)
			if err != nil {
				t.Fatal(err)
			}
			if mem.CurrentAlloc() != 0 {
				t.Fatalf("zero-copy batch allocated %d bytes", mem.CurrentAlloc())
			}
			if got := rec.Column(0).(*array.Float64).Value(n - 1); got != float64(n-1)*0.5 {
				t.Fatalf("last value %v", got)
			}
			rec.Release()
		}
		convert() // warm up lazily built state
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := 0; i < runs; i++ {
			convert()
		}
		runtime.ReadMemStats(&after)
		perCall[n] = (after.TotalAlloc - before.TotalAlloc) / runs
	}
	const limit = 64 << 10 // the 1M-row column alone is 8 MiB
	for n, b := range perCall {
		if b > limit {
			t.Fatalf("converting %d rows allocated %d heap bytes per call (limit %d): the column was copied", n, b, limit)
		}
	}
	t.Logf("heap bytes per batch: %v", perCall)
}

// TestStreamPlainReadsIntoColumn checks that the streaming reader builds a
// plain native column on the buffer it reads into, with no second copy:
// over the whole stream the allocator hands out at most one byte per byte
// of data (less when buffers are recycled), never two.
func TestStreamPlainReadsIntoColumn(t *testing.T) {
	checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer checked.AssertSize(t, 0)
	mem := &countingAllocator{Allocator: checked}
	const rows, batch = 1000, 256
	a := float64Array(rows)
	r, err := npyio.NewReaderAt(bytes.NewReader(fileBytes(t, a)), int64(len(fileBytes(t, a))), nil)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := arrowconv.NewRecordReader(r, "x", batch, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	row := 0
	for rr.Next() {
		rec := rr.RecordBatch()
		col := rec.Column(0).(*array.Float64)
		for i := 0; i < col.Len(); i++ {
			if want := float64(row) * 0.5; col.Value(i) != want || math.IsNaN(col.Value(i)) {
				t.Fatalf("row %d: %v, want %v", row, col.Value(i), want)
			}
			row++
		}
	}
	if rr.Err() != nil || row != rows {
		t.Fatalf("read %d rows: %v", row, rr.Err())
	}
	batches := (rows + batch - 1) / batch
	if limit := rows*8 + batches*64; mem.total > limit {
		t.Fatalf("%d bytes allocated for %d bytes of data in %d batches (limit %d): a second copy", mem.total, rows*8, batches, limit)
	}
}

// countingAllocator counts the bytes allocated through it.
type countingAllocator struct {
	memory.Allocator
	total int
}

func (c *countingAllocator) Allocate(n int) []byte {
	c.total += n
	return c.Allocator.Allocate(n)
}

func fileBytes(tb testing.TB, a *npyio.Array) []byte {
	var buf bytes.Buffer
	if err := npyio.WriteArray(&buf, a); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// a0Native reports whether the fixture is stored in native byte order
// (only those are memory-mapped rather than read).
func a0Native(fx fixtures.NPY) bool {
	dt, err := npyio.ParseTypeStr(fx.DTypeStr)
	return err == nil && dt.IsNative()
}
