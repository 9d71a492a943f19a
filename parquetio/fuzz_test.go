package parquetio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Fuzz limits: a page may claim at most fuzzPageLimit bytes uncompressed,
// and an input whose rows would exceed fuzzDataLimit bytes of numpy data
// is opened but not read (as a caller checking Header().DataSize() would
// do: Parquet holds long runs of nulls or repeated values in a few bytes,
// so a small file can legitimately decode to any size).
const (
	fuzzPageLimit = 1 << 20
	fuzzDataLimit = 16 << 20
	fuzzAllocMax  = 256 << 20
)

// FuzzParquetReader reads arbitrary bytes as a Parquet file through the
// public reader, as convert and the pipeline do (NewReader, Header,
// Columns, Next and NextColumns to the end, the rows written back as an
// .npy): no panic, no hang, no allocation out of proportion (at most
// fuzzAllocMax, with pages limited to fuzzPageLimit), every error an
// error of this package, and a read that succeeds returns the footer's
// row count in batches of the header's row size. The seeds are small
// files of every codec and layout the Writer produces, and files
// parquet-go writes itself (v2 pages, optional columns).
// testdata/fuzz/FuzzParquetReader holds the inputs it found.
func FuzzParquetReader(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer func(n int64) { pageSizeLimit = n }(pageSizeLimit)
		pageSizeLimit = fuzzPageLimit
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		fuzzRead(t, data)
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > fuzzAllocMax {
			t.Fatalf("%d bytes of input: allocated %d MiB", len(data), grew>>20)
		}
	})
}

// fuzzOptions are the read options of a fuzz input: inputs of odd length
// are read with a validity field for every nullable column (struct
// fields and lists included), as convert --validity '*' reads them.
func fuzzOptions(data []byte) *ReadOptions {
	if len(data)%2 == 1 {
		return &ReadOptions{Validity: []string{"*"}}
	}
	return nil
}

// fuzzRead reads data through the public API and checks what comes back.
func fuzzRead(t *testing.T, data []byte) {
	checkErr := func(what string, err error) {
		if err == nil || err == io.EOF {
			return
		}
		if !strings.HasPrefix(err.Error(), "parquetio: ") {
			t.Fatalf("%s: error %q (%T) does not say where it comes from", what, err, err)
		}
	}
	r, err := NewReaderOptions(bytes.NewReader(data), int64(len(data)), fuzzOptions(data))
	if err != nil {
		checkErr("NewReader", err)
		return
	}
	h := r.Header()
	cols := r.Columns()
	if h.DType == nil || len(cols) == 0 {
		t.Fatalf("reader without a dtype (%v) or columns (%d)", h.DType, len(cols))
	}
	footerRows := fuzzFooterRows(t, data)
	if r.Rows() != footerRows || (len(h.Shape) > 0 && int64(h.Shape[0]) != footerRows) {
		t.Fatalf("footer has %d rows; Rows() %d, header shape %v", footerRows, r.Rows(), h.Shape)
	}
	if h.DataSize() > fuzzDataLimit || h.DataSize() < 0 {
		return
	}
	colSize := make([]int, len(cols))
	for i := range cols {
		colSize[i] = cols[i].RowSize()
	}
	// Write the rows back as an .npy, as convert does.
	hh := *h
	hh.FortranOrder = false
	var npy bytes.Buffer
	nw, err := npyio.NewWriter(&npy, &hh)
	if err != nil {
		t.Fatalf("header %s %v of a readable file: %v", h.DType, h.Shape, err)
	}
	var rows int64
	for call := 0; ; call++ {
		var n int
		if call%2 == 0 {
			var b npyio.Batch
			b, err = r.Next(7)
			if err == nil {
				n = b.Rows
				if b.Start != rows || int64(len(b.Data)) != int64(n)*h.RowSize() {
					t.Fatalf("batch of %d rows at %d (%d read): %d bytes for %d-byte rows", n, b.Start, rows, len(b.Data), h.RowSize())
				}
				if _, werr := nw.Write(b.Data); werr != nil {
					t.Fatalf("writing %d rows to the .npy: %v", n, werr)
				}
			}
		} else {
			var cs [][]byte
			n, cs, err = r.NextColumns(13)
			if err == nil {
				if len(cs) != len(cols) {
					t.Fatalf("%d column slices for %d columns", len(cs), len(cols))
				}
				for i, c := range cs {
					if len(c) != n*colSize[i] {
						t.Fatalf("column %d: %d bytes for %d rows of %d bytes", i, len(c), n, colSize[i])
					}
				}
				if len(cs) == 1 {
					if _, werr := nw.Write(cs[0]); werr != nil {
						t.Fatalf("writing %d rows to the .npy: %v", n, werr)
					}
				} else {
					// Interleave as Next does: the .npy gets records.
					rec := make([]byte, n*h.DType.Size)
					for i, c := range cs {
						off, w := h.DType.Fields[i].Offset, colSize[i]
						for k := 0; k < n; k++ {
							copy(rec[k*h.DType.Size+off:], c[k*w:(k+1)*w])
						}
					}
					if _, werr := nw.Write(rec); werr != nil {
						t.Fatalf("writing %d rows to the .npy: %v", n, werr)
					}
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			checkErr("reading rows", err)
			// Errors are sticky.
			if _, _, err2 := r.NextColumns(1); err2 == nil || err2 == io.EOF {
				t.Fatalf("after %v, NextColumns returned %v", err, err2)
			}
			return
		}
		if n <= 0 {
			t.Fatalf("batch of %d rows without an error", n)
		}
		rows += int64(n)
		if r.Remaining() != r.Rows()-rows {
			t.Fatalf("Remaining %d after %d of %d rows", r.Remaining(), rows, r.Rows())
		}
	}
	if rows != footerRows {
		t.Fatalf("read %d rows, the footer says %d", rows, footerRows)
	}
	if err := nw.Close(); err != nil {
		t.Fatalf("closing the .npy of %d rows: %v", rows, err)
	}
	// The .npy reads back as the header says.
	nr, err := npyio.NewReaderAt(bytes.NewReader(npy.Bytes()), int64(npy.Len()), nil)
	if err != nil {
		t.Fatalf("re-reading the .npy: %v", err)
	}
	if got := nr.Header(); got.DType.String() != hh.DType.String() || fmt.Sprint(got.Shape) != fmt.Sprint(hh.Shape) {
		t.Fatalf(".npy header %s %v, want %s %v", got.DType, got.Shape, hh.DType, hh.Shape)
	}
}

// fuzzFooterRows decodes the footer itself and returns the rows of its
// row groups (NewReader has accepted the footer, so it decodes; the rows
// read are the row groups' whatever the footer's own count says).
func fuzzFooterRows(t *testing.T, b []byte) int64 {
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	md, _, err := decodeFooter(b[len(b)-8-n : len(b)-8])
	if err != nil {
		t.Fatalf("decoding the footer NewReader accepted: %v", err)
	}
	var rows int64
	for _, g := range md.RowGroups {
		rows += g.NumRows
	}
	return rows
}

// fuzzSeeds writes the seed files: a table of most numpy kinds with
// every codec (several row groups and pages, dictionaries, bloom filters,
// NaT), arrays with extra axes (LIST columns), nested structs, and files
// parquet-go writes itself.
func fuzzSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	add := func(h *npyio.Header, opts *Options) {
		b, err := writeMem(t, h, fuzzRows(h), opts)
		if err != nil {
			t.Fatalf("%s %v: %v", h.DType, h.Shape, err)
		}
		seeds = append(seeds, b)
	}
	dtype := func(descr string) *npyio.DType {
		dt, err := npyio.ParseDescr(descr)
		if err != nil {
			t.Fatalf("%s: %v", descr, err)
		}
		return dt
	}
	table := dtype("[('i', '<i4'), ('f', '<f8'), ('s', '|S5'), ('u', '<U3'), ('t', '<M8[ms]'), ('b', '|b1'), ('c', '<c8'), ('h', '<f2'), ('v', '|V3')]")
	for _, codec := range []string{"none", "snappy", "gzip", "zstd", "lz4"} {
		add(&npyio.Header{DType: table, Shape: []int{16}}, &Options{
			Compression: codec, RowGroupRows: 6, PageSize: 64,
			Dictionary: []string{"s", "u", "i"}, BloomFilters: []string{"i", "s"},
		})
	}
	add(&npyio.Header{DType: dtype("[('a', '<i2', (3,)), ('p', [('x', '<f4'), ('y', '>i8')]), ('d', '<M8[D]'), ('m', '<m8[s]')]"), Shape: []int{9}}, &Options{Compression: "snappy", RowGroupRows: 4, PageSize: 32})
	add(&npyio.Header{DType: npyio.Float32Type, Shape: []int{6, 2, 3}}, &Options{Compression: "zstd", RowGroupRows: 4})
	add(&npyio.Header{DType: dtype("'<M8[ns]'"), Shape: []int{12}}, &Options{Compression: "lz4", RowGroupRows: 5, PageSize: 16})
	add(&npyio.Header{DType: dtype("'<U4'"), Shape: []int{3, 2}}, &Options{Compression: "gzip", Dictionary: []string{"t"}})
	add(&npyio.Header{DType: dtype("'<i8'"), Shape: []int{}}, &Options{Compression: "none"})
	for _, c := range []struct {
		codec parquet.WriterOption
		v2    bool
	}{
		{parquet.Compression(&parquet.Zstd), true},
		{parquet.Compression(&parquet.Snappy), false},
		{parquet.Compression(&parquet.Uncompressed), true},
		{parquet.Compression(&parquet.Gzip), false},
		{parquet.Compression(&parquet.Lz4Raw), true},
	} {
		seeds = append(seeds, foreignFile(t, 40, 15, c.codec, c.v2))
	}
	seeds = append(seeds, deltaFile(t, false), deltaFile(t, true))
	// Files other producers wrote with nulls in structs and lists (of odd
	// length: read with validity fields, see fuzzOptions), and the legacy
	// types.
	for _, name := range []string{"duck_struct_nulls.parquet", "duck_list_nulls.parquet", "pqa_nested_nulls.parquet", "pqlow_legacy_types.parquet"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "foreign", name)); err == nil {
			seeds = append(seeds, b)
		}
	}
	return seeds
}

// deltaRow is a row of deltaFile.
type deltaRow struct {
	A int64    `parquet:"a"`
	B int32    `parquet:"b"`
	D *float64 `parquet:"d,optional"`
	F float32  `parquet:"f"`
	L string   `parquet:"l"`
	S string   `parquet:"s"`
	Y bool     `parquet:"y"`
}

// deltaFile writes rows with parquet-go in the encodings npyflow never
// writes: DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY,
// BYTE_STREAM_SPLIT and RLE booleans (v2 pages), with nulls.
func deltaFile(t testing.TB, v2 bool) []byte {
	t.Helper()
	schema := parquet.NewSchema("delta", parquet.Group{
		"a": parquet.Encoded(parquet.Int(64), &parquet.DeltaBinaryPacked),
		"b": parquet.Encoded(parquet.Int(32), &parquet.DeltaBinaryPacked),
		"d": parquet.Optional(parquet.Encoded(parquet.Leaf(parquet.DoubleType), &parquet.ByteStreamSplit)),
		"f": parquet.Encoded(parquet.Leaf(parquet.FloatType), &parquet.ByteStreamSplit),
		"l": parquet.Encoded(parquet.String(), &parquet.DeltaLengthByteArray),
		"s": parquet.Encoded(parquet.String(), &parquet.DeltaByteArray),
		"y": parquet.Encoded(parquet.Leaf(parquet.BooleanType), &parquet.RLE),
	})
	version := 1
	if v2 {
		version = 2
	}
	var b bytes.Buffer
	w := parquet.NewGenericWriter[deltaRow](&b, schema, parquet.DataPageVersion(version), parquet.PageBufferSize(256), parquet.Compression(&parquet.Snappy))
	rows := make([]deltaRow, 40)
	for i := range rows {
		rows[i] = deltaRow{A: int64(i * i * 1000), B: int32(100 - 3*i), F: float32(i) / 7, L: strings.Repeat("l", i%9), S: fmt.Sprintf("prefix-%03d", i/3), Y: i%3 == 0}
		if i%4 != 1 {
			d := float64(i) * 1.5
			rows[i].D = &d
		}
	}
	for _, half := range [][]deltaRow{rows[:25], rows[25:]} {
		if _, err := w.Write(half); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// fuzzRows fills the rows of h with deterministic values of its dtype
// (NaT every seventh time value).
func fuzzRows(h *npyio.Header) []byte {
	n := 1
	for _, d := range h.Shape {
		n *= d
	}
	b := make([]byte, n*h.DType.Size)
	for i := 0; i < n; i++ {
		fuzzValue(h.DType, b[i*h.DType.Size:], i)
	}
	return b
}

func fuzzValue(dt *npyio.DType, b []byte, i int) {
	put := func(v uint64) {
		for k := 0; k < dt.Size; k++ {
			if dt.Order == npyio.BigEndian {
				b[dt.Size-1-k] = byte(v >> (8 * k))
			} else {
				b[k] = byte(v >> (8 * k))
			}
		}
	}
	switch dt.Kind {
	case npyio.Bool:
		b[0] = byte(i % 2)
	case npyio.Int, npyio.Uint:
		put(uint64(i*37 - 100))
	case npyio.Float:
		switch dt.Size {
		case 2:
			put(uint64(0x3c00 + i))
		case 4:
			put(uint64(math.Float32bits(float32(i) / 3)))
		default:
			put(math.Float64bits(float64(i) / 3))
		}
	case npyio.Complex:
		h := dt.Size / 2
		if h == 4 {
			binary.LittleEndian.PutUint32(b, math.Float32bits(float32(i)))
			binary.LittleEndian.PutUint32(b[4:], math.Float32bits(-float32(i)/2))
		} else {
			binary.LittleEndian.PutUint64(b, math.Float64bits(float64(i)))
			binary.LittleEndian.PutUint64(b[8:], math.Float64bits(-float64(i)/2))
		}
	case npyio.Bytes:
		copy(b[:dt.Size], fmt.Sprintf("s%d", i%11))
	case npyio.Void:
		for k := 0; k < dt.Size; k++ {
			b[k] = byte(i + k)
		}
	case npyio.Unicode:
		for k := 0; k < i%(dt.Size/4+1); k++ {
			binary.LittleEndian.PutUint32(b[4*k:], uint32('a'+(i+k)%26))
		}
	case npyio.Datetime, npyio.Timedelta:
		v := uint64(int64(i) * 86400123)
		if i%7 == 3 {
			v = 1 << 63 // NaT
		}
		put(v)
	case npyio.Struct:
		for j := range dt.Fields {
			fd := &dt.Fields[j]
			for k := 0; k < fd.Count(); k++ {
				fuzzValue(fd.Type, b[fd.Offset+k*fd.Type.Size:], i*5+j+k)
			}
		}
	}
}

// TestFuzzSeeds: every seed is a file the reader reads whole with the
// fuzzer's options (a seed it refused would only exercise the refusal),
// and together they are small.
func TestFuzzSeeds(t *testing.T) {
	total := 0
	for i, b := range fuzzSeeds(t) {
		total += len(b)
		t.Logf("seed %d: %d bytes", i, len(b))
		rows, err := int64(0), error(nil)
		if rd, err2 := NewReaderOptions(bytes.NewReader(b), int64(len(b)), fuzzOptions(b)); err2 != nil {
			err = err2
		} else {
			for err == nil {
				var n int
				n, _, err = rd.NextColumns(1 << 16)
				rows += int64(n)
			}
			if err == io.EOF {
				err = nil
			}
		}
		if err != nil || rows == 0 {
			t.Errorf("seed %d (%d bytes): %d rows, %v", i, len(b), rows, err)
		}
		if len(b) > 16<<10 {
			t.Errorf("seed %d: %d bytes", i, len(b))
		}
	}
	t.Logf("%d bytes of seeds", total)
	// The delta files hold the encodings they are for.
	for _, v2 := range []bool{false, true} {
		md, _ := footerOf(t, deltaFile(t, v2))
		used := map[format.Encoding]bool{}
		for _, c := range md.RowGroups[0].Columns {
			for _, e := range c.MetaData.Encoding {
				used[e] = true
			}
		}
		for _, e := range []format.Encoding{format.DeltaBinaryPacked, format.DeltaLengthByteArray, format.DeltaByteArray, format.ByteStreamSplit, format.RLE} {
			if !used[e] {
				t.Errorf("v2 %v: no %s column (%v)", v2, e, used)
			}
		}
	}
}

// TestDecompressBounded: page data that decompresses to more than the
// page header's size is refused without allocating what it expands to
// (parquet-go's gzip and brotli decoders read to the end of the data).
func TestDecompressBounded(t *testing.T) {
	big := make([]byte, 64<<20)
	compressed := map[format.CompressionCodec][]byte{}
	for _, c := range []format.CompressionCodec{format.Gzip, format.Snappy, format.Zstd, format.Brotli, format.Lz4Raw} {
		b, err := parquet.LookupCompressionCodec(c).Encode(nil, big)
		if err != nil {
			t.Fatal(err)
		}
		compressed[c] = b
	}
	for c, src := range compressed {
		for _, size := range []int{1000, len(big) + 1} {
			dst := make([]byte, size)
			var err error
			n := allocated(func() { err = decompress(c, dst, src) })
			if err == nil || !strings.Contains(err.Error(), "corrupt Parquet file") {
				t.Errorf("%s, %d bytes into %d: error %v", c, len(big), size, err)
			}
			if n > 16<<20 {
				t.Errorf("%s, %d bytes into %d: allocated %d MiB", c, len(big), size, n>>20)
			}
		}
		dst := make([]byte, len(big))
		if err := decompress(c, dst, src); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
}
