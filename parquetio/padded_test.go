package parquetio

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/parquet-go/parquet-go/format"
)

// runSlots sums the slots the runs of an RLE/bit-packed hybrid stream of
// bit width w cover (a bit-packed run covers 8 slots a group, its last
// group padded), reading at most the stream b.
func runSlots(t *testing.T, b []byte, w int) int {
	t.Helper()
	slots := 0
	for len(b) > 0 {
		h, n := binary.Uvarint(b)
		if n <= 0 {
			t.Fatalf("bad run header % x", b[:min(len(b), 8)])
		}
		b = b[n:]
		if h&1 == 1 {
			groups := int(h >> 1)
			slots += 8 * groups
			b = b[min(len(b), groups*w):]
		} else {
			slots += int(h >> 1)
			b = b[min(len(b), (w+7)/8):]
		}
	}
	return slots
}

// paddedPages counts the v1 data pages of column col (row group 0) of a
// corpus file whose definition levels (defs) or dictionary indexes (else)
// cover more slots than the page's value count.
func paddedPages(t *testing.T, name string, col int, defs bool) (pages, padded int) {
	t.Helper()
	b := readFile(t, name)
	fmd, _, err := checkFooter(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	m := &fmd.RowGroups[0].Columns[col].MetaData
	start, _ := chunkStart(m)
	end := start + m.TotalCompressedSize
	var cs chunkScanner
	for off := start; off < end; {
		var h format.PageHeader
		hl, _, err := cs.header(bytes.NewReader(b), off, end, &h)
		if err != nil {
			t.Fatal(err)
		}
		data := b[off+int64(hl) : off+int64(hl)+int64(h.CompressedPageSize)]
		off += int64(hl) + int64(h.CompressedPageSize)
		if h.Type != format.DataPage {
			continue
		}
		page := make([]byte, h.UncompressedPageSize)
		if err := decompress(m.Codec, page, data); err != nil {
			t.Fatal(err)
		}
		n := int(h.DataPageHeader.V.NumValues)
		pages++
		var slots int
		if defs {
			ln := int(binary.LittleEndian.Uint32(page))
			slots = runSlots(t, page[4:4+ln], 1)
		} else {
			enc := h.DataPageHeader.V.Encoding
			if enc != format.RLEDictionary && enc != format.PlainDictionary {
				continue
			}
			slots = runSlots(t, page[1:], int(page[0]))
		}
		if slots > n {
			padded++
		}
	}
	return pages, padded
}

// TestCorpusHasPaddedRuns: the corpus files of the regression tests of
// issue 16's false "corrupt" claims (TestDuckDBPaddedRuns, and their
// values in TestForeignDuckDB) do hold what the claims were about:
// DuckDB's pages whose definition levels (a nullable column with nulls)
// and dictionary indexes (ENUM, low-cardinality UTINYINT) end with a
// bit-packed run padded beyond the page's value count. A regenerated
// corpus without them would leave the regression untested.
func TestCorpusHasPaddedRuns(t *testing.T) {
	for _, c := range []struct {
		file string
		col  int
		defs bool
	}{
		{"duck_nulls.parquet", 0, true},  // f8n: definition levels
		{"duck_nulls.parquet", 6, false}, // u1_dict: dictionary indexes
		{"duck_nulls.parquet", 7, false}, // e_dict: ENUM dictionary indexes
	} {
		pages, padded := paddedPages(t, c.file, c.col, c.defs)
		if pages == 0 || padded == 0 {
			t.Errorf("%s column %d: %d of %d pages padded, want some", c.file, c.col, padded, pages)
		}
		t.Logf("%s column %d: %d of %d pages padded", c.file, c.col, padded, pages)
	}
}
