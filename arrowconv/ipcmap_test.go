package arrowconv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/npyio"
)

// npyToIPCFile writes the .npy bytes npy as an IPC file of batchRows-row
// batches (through NewRecordReader and WriteIPC) and returns its path.
func npyToIPCFile(t testing.TB, npy []byte, batchRows int, opts IPCOptions) string {
	t.Helper()
	r, err := npyio.NewReaderAt(bytes.NewReader(npy), int64(len(npy)), nil)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := NewRecordReader(r, "x", batchRows, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	path := filepath.Join(t.TempDir(), "in.arrow")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := WriteIPC(f, rr, opts, memory.DefaultAllocator); err != nil {
		t.Fatal(err)
	}
	return path
}

// npyBytes is the .npy of a 1-d array of dtype descr holding data.
func npyBytes(t testing.TB, descr string, data []byte) []byte {
	t.Helper()
	dt, err := npyio.ParseTypeStr(descr)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	h := &npyio.Header{DType: dt, Shape: []int{len(data) / dt.Size}}
	if err := npyio.WriteArray(&b, &npyio.Array{Header: h, DType: dt, Data: data}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// convertFile runs ConvertIPC of the file in into a new file and returns
// its bytes; pread hides the *os.File (the general path).
func convertFile(t testing.TB, in string, pread bool) ([]byte, error) {
	t.Helper()
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	outPath := filepath.Join(t.TempDir(), "out.npy")
	out, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var r io.Reader = f
	if pread {
		r = struct {
			io.Reader
			io.ReaderAt
			io.Seeker
		}{f, f, f}
	}
	if _, _, err := ConvertIPC(out, r, nil, "", nil); err != nil {
		return nil, err
	}
	return os.ReadFile(outPath)
}

func TestConvertIPCIdentityColumn(t *testing.T) {
	const n = 10000
	i8 := make([]byte, 8*n)
	f4 := make([]byte, 4*n)
	ts := make([]byte, 8*n)
	for i := range n {
		binary.LittleEndian.PutUint64(i8[8*i:], uint64(int64(i*i-5000)))
		binary.LittleEndian.PutUint32(f4[4*i:], math.Float32bits(float32(i)/3))
		binary.LittleEndian.PutUint64(ts[8*i:], uint64(1704067200000+int64(i)*997))
	}
	u1 := make([]byte, n)
	for i := range u1 {
		u1[i] = byte(i * 7)
	}
	for _, c := range []struct {
		descr string
		data  []byte
		batch int
	}{
		{"<i8", i8, 999}, {"<f4", f4, 4096}, {"<M8[ms]", ts, 1 << 20}, {"|u1", u1, 333},
	} {
		npy := npyBytes(t, c.descr, c.data)
		for _, comp := range []Compression{NoCompression, Zstd} {
			in := npyToIPCFile(t, npy, c.batch, IPCOptions{Compression: comp})
			if ok := identityFile(t, in); ok != (comp == NoCompression) {
				t.Errorf("%s (compression %d): copied as stored %v, want %v", c.descr, comp, ok, !ok)
			}
			for _, pread := range []bool{false, true} {
				got, err := convertFile(t, in, pread)
				if err != nil {
					t.Fatalf("%s (compression %d, pread %v): %v", c.descr, comp, pread, err)
				}
				if !bytes.Equal(got, npy) {
					t.Errorf("%s (compression %d, pread %v): the .npy differs from the one the .arrow was made of (%d bytes, want %d)", c.descr, comp, pread, len(got), len(npy))
				}
			}
		}
	}
}

// identityFile reports whether ConvertIPC copies the values of the IPC
// file in as stored (identityRanges).
func identityFile(t testing.TB, in string) bool {
	t.Helper()
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mi, err := MapIPC(f, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer mi.Close()
	m, err := MapSchema(mi.Info().Schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, ok, err := identityRanges(mi, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// writeArrowFile writes rec as an IPC file and returns its path.
func writeArrowFile(t testing.TB, rec arrow.RecordBatch) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rec.arrow")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := NewIPCWriter(f, rec.Schema(), IPCOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// A column with nulls, or a sliced one, is not copied as stored: the
// result is the general path's (NaN for the float nulls).
func TestConvertIPCIdentityNulls(t *testing.T) {
	b := array.NewFloat64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues([]float64{1.5, 2, 0, 4}, []bool{true, true, false, true})
	arr := b.NewArray()
	defer arr.Release()
	sch := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
	rec := array.NewRecordBatch(sch, []arrow.Array{arr}, 4)
	defer rec.Release()
	in := writeArrowFile(t, rec)
	if identityFile(t, in) {
		t.Error("a column with nulls is copied as stored")
	}
	got, err := convertFile(t, in, false)
	if err != nil {
		t.Fatal(err)
	}
	want, err := convertFile(t, in, true)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("mapped and pread conversions differ")
	}
	a, err := npyio.ReadArray(bytes.NewReader(got), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := math.Float64frombits(binary.LittleEndian.Uint64(a.Data[16:])); !math.IsNaN(v) {
		t.Errorf("row 2 = %v, want NaN", v)
	}
	if v := math.Float64frombits(binary.LittleEndian.Uint64(a.Data[24:])); v != 4 {
		t.Errorf("row 3 = %v, want 4", v)
	}
}

// A mapped file truncated while its records are read gives an error
// wrapping ErrFileChanged, not a crash (SIGBUS).
func TestMappedIPCTruncated(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no mmap")
	}
	const n = 1 << 18
	data := make([]byte, 8*n)
	for i := range n {
		binary.LittleEndian.PutUint64(data[8*i:], uint64(i))
	}
	in := npyToIPCFile(t, npyBytes(t, "<i8", data), 1<<14, IPCOptions{})
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mi, err := MapIPC(f, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer mi.Close()
	rr, err := mi.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	if err := os.Truncate(in, 4096); err != nil {
		t.Fatal(err)
	}
	var sum uint64
	err = mi.Guard(func() error {
		for rr.Next() {
			for _, v := range rr.RecordBatch().Column(0).(*array.Int64).Int64Values() {
				sum += uint64(v)
			}
		}
		return rr.Err()
	})
	if err == nil {
		t.Fatalf("reading a truncated mapping succeeded (sum %d)", sum)
	}
	t.Log(err)
	if !errors.Is(err, ErrFileChanged) {
		if cerr := mi.Changed(); !errors.Is(cerr, ErrFileChanged) {
			t.Fatalf("error %v, and Changed gives %v; want ErrFileChanged", err, cerr)
		}
	}
	// And through ConvertIPC: the file is now too short for its footer.
	f2, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	var out bytes.Buffer
	if _, _, err := ConvertIPC(nopSeeker{&out}, f2, nil, "", nil); err == nil {
		t.Fatal("ConvertIPC of a truncated file succeeded")
	}
}

// nopSeeker is a Writer whose Seek reports offset 0 (enough for a stream
// writer's start).
type nopSeeker struct{ w io.Writer }

func (s nopSeeker) Write(p []byte) (int, error)    { return s.w.Write(p) }
func (s nopSeeker) Seek(int64, int) (int64, error) { return 0, nil }

// BenchmarkConvertIPCOneColumn converts a 4M-row int64 IPC file (32 MB)
// to .npy: copied by the kernel from the mapping's offsets (mapped) or
// read through pread and encoded (pread).
func BenchmarkConvertIPCOneColumn(b *testing.B) {
	const n = 4 << 20
	data := make([]byte, 8*n)
	for i := range n {
		binary.LittleEndian.PutUint64(data[8*i:], uint64(i)*3)
	}
	in := npyToIPCFile(b, npyBytes(b, "<i8", data), 0, IPCOptions{})
	for _, pread := range []bool{false, true} {
		name := "mapped"
		if pread {
			name = "pread"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			out, err := os.Create(filepath.Join(b.TempDir(), "out.npy"))
			if err != nil {
				b.Fatal(err)
			}
			defer out.Close()
			for b.Loop() {
				f, err := os.Open(in)
				if err != nil {
					b.Fatal(err)
				}
				var r io.Reader = f
				if pread {
					r = struct {
						io.Reader
						io.ReaderAt
						io.Seeker
					}{f, f, f}
				}
				if err := out.Truncate(0); err != nil {
					b.Fatal(err)
				}
				if _, err := out.Seek(0, io.SeekStart); err != nil {
					b.Fatal(err)
				}
				_, _, err = ConvertIPC(out, r, nil, "", nil)
				f.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Timestamps with a time zone and durations are copied as stored too;
// an output that is not a file gets the bytes written from the mapping;
// a file without rows gives the general path's .npy.
func TestConvertIPCIdentityTypes(t *testing.T) {
	mem := memory.DefaultAllocator
	tsType := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "Europe/Paris"}
	tb := array.NewTimestampBuilder(mem, tsType)
	defer tb.Release()
	db := array.NewDurationBuilder(mem, &arrow.DurationType{Unit: arrow.Nanosecond})
	defer db.Release()
	for i := range 1000 {
		tb.Append(arrow.Timestamp(1704067200000000 + int64(i)*1234567))
		db.Append(arrow.Duration(int64(i) * -987654321))
	}
	for _, c := range []struct {
		name string
		arr  arrow.Array
		want string
	}{
		{"ts", tb.NewArray(), "<M8[us]"},
		{"dur", db.NewArray(), "<m8[ns]"},
	} {
		defer c.arr.Release()
		sch := arrow.NewSchema([]arrow.Field{{Name: c.name, Type: c.arr.DataType()}}, nil)
		for _, rows := range []int64{int64(c.arr.Len()), 0} {
			arr := array.NewSlice(c.arr, 0, rows)
			rec := array.NewRecordBatch(sch, []arrow.Array{arr}, rows)
			in := writeArrowFile(t, rec)
			rec.Release()
			arr.Release()
			if rows > 0 && !identityFile(t, in) {
				t.Errorf("%s: not copied as stored", c.name)
			}
			want, err := convertFile(t, in, true)
			if err != nil {
				t.Fatal(err)
			}
			got, err := convertFile(t, in, false)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s, %d rows: the copy differs from the general path's .npy", c.name, rows)
			}
			f, err := os.Open(in)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			_, _, err = ConvertIPC(nopSeeker{&buf}, f, nil, "", nil)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%s, %d rows: written from the mapping, the .npy differs", c.name, rows)
			}
			a, err := npyio.ReadArray(bytes.NewReader(got), nil)
			if err != nil {
				t.Fatal(err)
			}
			if a.Header.DType.TypeStr() != c.want || int64(len(a.Data)) != 8*rows {
				t.Errorf("%s: %s, %d bytes; want %s, %d", c.name, a.Header.DType.TypeStr(), len(a.Data), c.want, 8*rows)
			}
			if rows > 0 {
				first := int64(binary.LittleEndian.Uint64(a.Data))
				last := int64(binary.LittleEndian.Uint64(a.Data[8*(rows-1):]))
				if c.name == "ts" && (first != 1704067200000000 || last != 1704067200000000+999*1234567) {
					t.Errorf("ts: first %d, last %d", first, last)
				}
				if c.name == "dur" && (first != 0 || last != 999*-987654321) {
					t.Errorf("dur: first %d, last %d", first, last)
				}
			}
		}
	}
}
