package parquetio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// foreignRow is a row of a file written by parquet-go itself: a plain
// column, an optional one and a dictionary-encoded string.
type foreignRow struct {
	X int64    `parquet:"x"`
	Y *float64 `parquet:"y,optional"`
	S string   `parquet:"s,dict"`
}

func foreignValue(i int) foreignRow {
	r := foreignRow{X: int64(i) * 3, S: fmt.Sprintf("k%d", i%7)}
	if i%5 != 0 {
		y := float64(i) / 4
		r.Y = &y
	}
	return r
}

// foreignFile writes rows rows with parquet-go (codec, page version,
// rowGroup rows per row group, small pages).
func foreignFile(t testing.TB, rows, rowGroup int, codec parquet.WriterOption, v2 bool) []byte {
	t.Helper()
	var b bytes.Buffer
	opts := []parquet.WriterOption{codec, parquet.PageBufferSize(4096)}
	if v2 {
		opts = append(opts, parquet.DataPageVersion(2))
	} else {
		opts = append(opts, parquet.DataPageVersion(1))
	}
	w := parquet.NewGenericWriter[foreignRow](&b, opts...)
	for r0 := 0; r0 < rows; r0 += rowGroup {
		batch := make([]foreignRow, min(rowGroup, rows-r0))
		for i := range batch {
			batch[i] = foreignValue(r0 + i)
		}
		if _, err := w.Write(batch); err != nil {
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

var compactProto = &thrift.CompactProtocol{}

func footerOf(t testing.TB, b []byte) (*format.FileMetaData, int) {
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	start := len(b) - 8 - n
	var md format.FileMetaData
	if err := thrift.Unmarshal(compactProto, b[start:len(b)-8], &md); err != nil {
		t.Fatal(err)
	}
	return &md, start
}

// editFirstPage rewrites the first page header of column col (its
// dictionary page if it has one, else its first data page), moving what
// follows and fixing the footer's offsets.
func editFirstPage(t testing.TB, b []byte, col int, edit func(h *format.PageHeader)) []byte {
	md, start := footerOf(t, b)
	m := &md.RowGroups[0].Columns[col].MetaData
	off, _ := chunkStart(m)
	r := compactProto.NewReaderFromBytes(b[off:start])
	var h format.PageHeader
	if err := thrift.NewDecoder(r).Decode(&h); err != nil {
		t.Fatal(err)
	}
	old := r.BytesRead()
	edit(&h)
	nh, err := thrift.Marshal(compactProto, &h)
	if err != nil {
		t.Fatal(err)
	}
	delta := int64(len(nh) - old)
	out := append(bytes.Clone(b[:off]), nh...)
	out = append(out, b[off+int64(old):start]...)
	for i := range md.RowGroups {
		for j := range md.RowGroups[i].Columns {
			c := &md.RowGroups[i].Columns[j]
			c.ColumnIndexOffset, c.ColumnIndexLength, c.OffsetIndexOffset, c.OffsetIndexLength = 0, 0, 0, 0
			cm := &c.MetaData
			if cm.DataPageOffset > off {
				cm.DataPageOffset += delta
			}
			if cm.DictionaryPageOffset > off {
				cm.DictionaryPageOffset += delta
			}
			if c.FileOffset > off {
				c.FileOffset += delta
			}
			if i == 0 && j == col {
				cm.TotalCompressedSize += delta
				cm.TotalUncompressedSize += delta
			}
		}
	}
	f, err := thrift.Marshal(compactProto, md)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, f...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(f)))
	return append(out, "PAR1"...)
}

// TestForeignPages reads files parquet-go writes (v1 and v2 pages,
// dictionaries, nulls, every codec, several row groups): the page checks
// pass and every value comes back.
func TestForeignPages(t *testing.T) {
	codecs := map[string]parquet.WriterOption{
		"none": parquet.Compression(&parquet.Uncompressed), "snappy": parquet.Compression(&parquet.Snappy),
		"gzip": parquet.Compression(&parquet.Gzip), "zstd": parquet.Compression(&parquet.Zstd), "lz4": parquet.Compression(&parquet.Lz4Raw),
	}
	const rows = 5000
	for name, codec := range codecs {
		for _, v2 := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/v2=%v", name, v2), func(t *testing.T) {
				b := foreignFile(t, rows, 1500, codec, v2)
				rd, err := NewReader(bytes.NewReader(b), int64(len(b)))
				if err != nil {
					t.Fatal(err)
				}
				if got := rd.Header().DType.String(); got != "[('x', '<i8'), ('y', '<f8'), ('s', '<U2')]" {
					t.Fatalf("dtype %s", got)
				}
				r := 0
				for {
					n, cols, err := rd.NextColumns(700)
					if err != nil {
						if r != rows {
							t.Fatalf("%d rows: %v", r, err)
						}
						break
					}
					for k := 0; k < n; k, r = k+1, r+1 {
						want := foreignValue(r)
						x := load[int64](cols[0], k*8)
						y := load[float64](cols[1], k*8)
						s := string([]byte{cols[2][k*8], cols[2][k*8+4]})
						if x != want.X || (want.Y == nil) != math.IsNaN(y) || (want.Y != nil && *want.Y != y) || strings.TrimRight(s, "\x00") != want.S {
							t.Fatalf("row %d: %d %v %q, want %+v", r, x, y, s, want)
						}
					}
				}
			})
		}
	}
}

// TestPageHeaderLies edits the first page header of files parquet-go
// writes: each lie must be refused before parquet-go allocates by it.
func TestPageHeaderLies(t *testing.T) {
	zstd := parquet.Compression(&parquet.Zstd)
	cases := []struct {
		name  string
		codec parquet.WriterOption
		v2    bool
		col   int
		edit  func(h *format.PageHeader)
		want  string
	}{
		{"uncompressed 2 GiB", zstd, false, 0, func(h *format.PageHeader) { h.UncompressedPageSize = math.MaxInt32 }, "too large"},
		{"uncompressed beyond zstd", zstd, false, 0, func(h *format.PageHeader) { h.UncompressedPageSize = 200 << 20 }, "more than ZSTD can expand"},
		{"snappy length", parquet.Compression(&parquet.Snappy), false, 0, func(h *format.PageHeader) { h.UncompressedPageSize++ }, "snappy data holds"},
		{"compressed past the chunk", zstd, true, 1, func(h *format.PageHeader) { h.CompressedPageSize = 1 << 30 }, "remain"},
		{"dictionary values", zstd, false, 2, func(h *format.PageHeader) { h.DictionaryPageHeader.V.NumValues = 1 << 30 }, "too many values"},
		{"v2 level lengths", zstd, true, 1, func(h *format.PageHeader) { h.DataPageHeaderV2.V.DefinitionLevelsByteLength = 1 << 20 }, "level lengths"},
		{"v2 nulls", zstd, true, 1, func(h *format.PageHeader) { h.DataPageHeaderV2.V.NumNulls = h.DataPageHeaderV2.V.NumValues + 1 }, "nulls"},
		{"values beyond the rows", zstd, false, 0, func(h *format.PageHeader) { h.DataPageHeader.V.NumValues += 10 }, "hold"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := editFirstPage(t, foreignFile(t, 3000, 3000, c.codec, c.v2), c.col, c.edit)
			var err error
			if n := allocated(func() { _, err = readParquet(b) }); n > 16<<20 {
				t.Errorf("allocated %d MiB", n>>20)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}
