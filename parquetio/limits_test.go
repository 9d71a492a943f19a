package parquetio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
	"github.com/parquet-go/parquet-go"
)

// allocated is the heap allocation of f.
var allocated = fixtures.Allocated

// TestRowValueLimit: a row layout is refused by its value count before
// anything is allocated per value (flatOffsets listed 2**62 offsets for
// the |S0 file of testdata/hostile), and a row without values needs no
// offsets at all, however long its other axes.
func TestRowValueLimit(t *testing.T) {
	s0, _ := npyio.NewString(npyio.Bytes, 0)
	rec, _ := npyio.ParseDescr("[('a', '<f8', (4096,)), ('b', '<i4', (4096, 4096))]")
	cases := []struct {
		name  string
		h     *npyio.Header
		want  string // error; "" means the schema is built
		leafs int
	}{
		{"S0 2**62 per row", &npyio.Header{DType: s0, Shape: []int{1, 1 << 31, 1 << 31}}, "too large", 0},
		{"f8 2**62 per row", &npyio.Header{DType: npyio.Float64Type, Shape: []int{0, 1 << 31, 1 << 31}}, "too large", 0},
		{"overflowing shape", &npyio.Header{DType: npyio.Float64Type, Shape: []int{1, 1 << 40, 1 << 40}}, "overflow", 0},
		{"struct over the limit", &npyio.Header{DType: rec, Shape: []int{2}}, "too large", 0},
		{"under the limit", &npyio.Header{DType: s0, Shape: []int{3, 1 << 10, 1 << 10}}, "", 1},
		{"empty axis last", &npyio.Header{DType: npyio.Float64Type, Shape: []int{5, 1 << 40, 0}}, "", 1},
		{"empty axis first", &npyio.Header{DType: npyio.Float64Type, Shape: []int{5, 0, 1 << 40}}, "", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s *Schema
			var err error
			n := allocated(func() { s, err = NewArraySchema(c.h, "a") })
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error %v, want %q", err, c.want)
				}
				if n > 1<<20 {
					t.Errorf("refusing allocated %d bytes", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(s.leaves) != c.leafs {
				t.Fatalf("%d leaves", len(s.leaves))
			}
			want := 1
			if cnt, _ := elementCount(c.h.Shape[1:]); cnt > 0 {
				want = cnt
			}
			if got := len(s.leaves[0].entries); got != want {
				t.Fatalf("%d entries per row, want %d", got, want)
			}
		})
	}
}

// TestEmptyAxisRoundTrip writes rows whose shape has a zero-length axis
// (no values, so no offsets) and reads the array back.
func TestEmptyAxisRoundTrip(t *testing.T) {
	for _, shape := range [][]int{{5, 3, 0}, {5, 0, 7}, {4, 0}} {
		t.Run(fmt.Sprint(shape), func(t *testing.T) { emptyAxisRoundTrip(t, shape) })
	}
}

func emptyAxisRoundTrip(t *testing.T, shape []int) {
	h := &npyio.Header{DType: npyio.Float64Type, Shape: shape}
	s, err := NewArraySchema(h, "a")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteColumns([][]byte{nil}, shape[0]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// arrow-go reads it too: the rows are empty lists.
	tbl := readPQArrow(t, buf.Bytes(), memory.NewGoAllocator())
	if tbl.NumRows() != int64(shape[0]) || tbl.NumCols() != 1 {
		t.Fatalf("pqarrow: %d rows, %d columns", tbl.NumRows(), tbl.NumCols())
	}
	tbl.Release()
	rd, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rd.Header().Shape); got != fmt.Sprint(h.Shape) {
		t.Fatalf("shape %s, want %v", got, h.Shape)
	}
	n, _, err := rd.NextColumns(10)
	if err != nil || n != shape[0] {
		t.Fatalf("%d rows, %v", n, err)
	}
	if _, _, err := rd.NextColumns(10); err != io.EOF {
		t.Fatalf("after the rows: %v", err)
	}
}

// hostileCase is an entry of testdata/hostile/cases.json.
type hostileCase struct {
	File    string `json:"file"`
	What    string `json:"what"`
	Kind    string `json:"kind"`
	Problem string `json:"problem"`
	OK      bool   `json:"ok"`
}

// readParquet opens and reads the whole file, as convert does.
func readParquet(b []byte) (rows int64, err error) {
	rd, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return 0, err
	}
	for {
		n, _, err := rd.NextColumns(1 << 16)
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		rows += int64(n)
	}
}

// TestHostileParquet reads every Parquet file of testdata/hostile: each
// lying one must fail with its problem named, without allocating by the
// sizes it claims (page sizes, row counts, row shapes); the valid ones
// must read.
func TestHostileParquet(t *testing.T) {
	dir := filepath.Join(fixtures.Root(), "hostile")
	b, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []hostileCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		if c.Kind != "parquet" {
			continue
		}
		n++
		t.Run(c.File, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, c.File))
			if err != nil {
				t.Fatal(err)
			}
			var rows int64
			alloc := allocated(func() { rows, err = readParquet(data) })
			if alloc > 16<<20 {
				t.Errorf("%s: allocated %d MiB", c.What, alloc>>20)
			}
			if c.OK {
				if err != nil || rows == 0 {
					t.Fatalf("%s: %d rows, %v", c.What, rows, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("%s: read %d rows without an error", c.What, rows)
			}
			if !regexp.MustCompile("(?i)" + c.Problem).MatchString(strings.TrimPrefix(err.Error(), "parquetio: ")) {
				t.Errorf("%s: error %q does not match %q", c.What, err, c.Problem)
			}
			t.Logf("%s: %v", c.File, err)
		})
	}
	if n < 10 {
		t.Fatalf("only %d Parquet cases", n)
	}
}

// TestWriterMemory: a writer buffers at most Concurrency+1 row groups of
// numpy data (2 by default), and its buffers grow with the rows written,
// so a file of few rows (one of many open partition files) costs little.
func TestWriterMemory(t *testing.T) {
	dt, _ := npyio.ParseDescr("[('k', '<i8'), ('v', '<f8', (127,))]") // 1 KiB rows
	row := make([]byte, dt.Size)
	t.Run("few rows", func(t *testing.T) {
		s, err := NewArraySchema(&npyio.Header{DType: dt, Shape: []int{10}}, "a")
		if err != nil {
			t.Fatal(err)
		}
		var w *Writer
		n := allocated(func() {
			w, err = NewWriter(io.Discard, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 10; i++ {
				if _, err := w.Write(row); err != nil {
					t.Fatal(err)
				}
			}
		})
		if w.RowGroupRows() != MaxRowGroupBytes/dt.Size {
			t.Fatalf("row groups of %d rows", w.RowGroupRows())
		}
		// A full row group would be 128 MiB.
		if n > 4<<20 {
			t.Errorf("10 rows of 1 KiB buffered with %d KiB", n>>10)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	})
	for _, c := range []struct{ conc, slots int }{{0, 2}, {1, 2}, {3, 4}} {
		t.Run(fmt.Sprintf("concurrency %d", c.conc), func(t *testing.T) {
			s, err := NewArraySchema(&npyio.Header{DType: dt, Shape: []int{400}}, "a")
			if err != nil {
				t.Fatal(err)
			}
			w, err := NewWriter(io.Discard, s, &Options{RowGroupRows: 10, Concurrency: c.conc, Compression: "none"})
			if err != nil {
				t.Fatal(err)
			}
			most := 0
			for i := 0; i < 400; i++ {
				if _, err := w.Write(row); err != nil {
					t.Fatal(err)
				}
				most = max(most, w.nslots)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if most != c.slots {
				t.Errorf("%d row groups buffered at most, want %d", most, c.slots)
			}
		})
	}
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r *bytes.Reader
	n *int64
}

func (c countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	k, err := c.r.ReadAt(p, off)
	*c.n += int64(k)
	return k, err
}

// npyBytes writes an npy file in memory.
func npyBytes(t testing.TB, h *npyio.Header, data []byte) []byte {
	var b bytes.Buffer
	w, err := npyio.NewWriter(&b, h)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestObservePass: opening the input twice for the time columns reads,
// the first time, only the sources that hold time columns, and stops as
// soon as nothing more can change the layout (a NaT in an ms column); the
// file written is the same.
func TestObservePass(t *testing.T) {
	const rows = 4 * observeRows
	ms, _ := npyio.ParseTypeStr("<M8[ms]")
	sec, _ := npyio.ParseTypeStr("<M8[s]")
	vals := make([]int64, rows)
	for i := range vals {
		vals[i] = int64(i) * 1000
	}
	withNaT := append([]int64{math.MinInt64}, vals[1:]...)
	cases := []struct {
		name      string
		dt        *npyio.DType
		times     []int64
		wantFirst int64 // most bytes of the time source read by the first pass
		optional  bool
	}{
		{"ms, no NaT: every value checked", ms, vals, rows*8 + 1024, false},
		{"ms, NaT first: one batch", ms, withNaT, observeRows*8 + 1024, true},
		{"s, NaT first: the range still counts", sec, withNaT, rows*8 + 1024, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tfile := npyBytes(t, &npyio.Header{DType: c.dt, Shape: []int{rows}}, i64s(c.times...))
			vfile := npyBytes(t, &npyio.Header{DType: npyio.Float64Type, Shape: []int{rows}}, make([]byte, rows*8))
			var reads [2][2]int64 // [open][source]
			opens := 0
			open := func() ([]*npyio.Reader, error) {
				if opens >= 2 {
					return nil, fmt.Errorf("opened %d times", opens+1)
				}
				var rs []*npyio.Reader
				for i, f := range [][]byte{vfile, tfile} {
					r, err := npyio.NewReaderAt(countingReaderAt{bytes.NewReader(f), &reads[opens][i]}, int64(len(f)), nil)
					if err != nil {
						return nil, err
					}
					rs = append(rs, r)
				}
				opens++
				return rs, nil
			}
			cols := []Column{{Name: "v", DType: npyio.Float64Type}, {Name: "t", DType: c.dt}}
			var out bytes.Buffer
			if _, err := WriteTable(&out, cols, open, nil, nil); err != nil {
				t.Fatal(err)
			}
			if reads[0][0] > 1024 {
				t.Errorf("the observation read %d bytes of the column without time", reads[0][0])
			}
			if reads[0][1] > c.wantFirst {
				t.Errorf("the observation read %d bytes of the time column, want at most %d", reads[0][1], c.wantFirst)
			}
			f, err := parquet.OpenFile(bytes.NewReader(out.Bytes()), int64(out.Len()))
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Root().Columns()[1].Optional(); got != c.optional {
				t.Errorf("optional %v, want %v", got, c.optional)
			}
			rd, err := NewReader(bytes.NewReader(out.Bytes()), int64(out.Len()))
			if err != nil {
				t.Fatal(err)
			}
			var got []byte
			for {
				_, cs, err := rd.NextColumns(1 << 20)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, cs[1]...)
			}
			if !bytes.Equal(got, i64s(c.times...)) {
				t.Errorf("time values differ")
			}
		})
	}
}

// TestReaderGrowth reads row groups larger than the reader's first
// buffer (which grows as rows decode): a record of several fields in one
// source, a list field and a second row group of another size.
func TestReaderGrowth(t *testing.T) {
	dt, _ := npyio.ParseDescr("[('i', '<i8'), ('f', '<f4'), ('s', '|S3'), ('v', '<i2', (3,))]")
	const n = 3*firstRows + 123
	data := make([]byte, n*dt.Size)
	for r := 0; r < n; r++ {
		row := data[r*dt.Size:]
		copy(row[0:8], i64s(int64(r)*7919-5))
		copy(row[8:12], npyio.AsBytes([]float32{float32(r) / 3}))
		copy(row[12:15], []byte{byte('a' + r%26), byte('A' + r%26), byte('0' + r%10)})
		copy(row[15:21], npyio.AsBytes([]int16{int16(r), int16(-r), int16(r >> 3)}))
	}
	b, err := writeMem(t, &npyio.Header{DType: dt, Shape: []int{n}}, data, &Options{RowGroupRows: n - 1000})
	if err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, rd); !bytes.Equal(got, data) {
		t.Fatal("data differs")
	}
}
