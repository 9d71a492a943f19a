package parquetio

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// byteCounter counts the bytes read through it.
type byteCounter struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *byteCounter) ReadAt(p []byte, off int64) (int, error) {
	k, err := c.r.ReadAt(p, off)
	c.n.Add(int64(k))
	return k, err
}

// readCounted reads every column of b and returns the bytes read at open
// and after it, and the bytes of the file's column chunks.
func readCounted(t *testing.T, b []byte) (open, data, chunks int64) {
	t.Helper()
	c := &byteCounter{r: bytes.NewReader(b)}
	rd, err := NewReader(c, int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	open = c.n.Swap(0)
	for {
		_, _, err := rd.NextColumns(1000)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range rd.fmd.RowGroups {
		for _, cc := range g.Columns {
			chunks += cc.MetaData.TotalCompressedSize
		}
	}
	return open, c.n.Load(), chunks
}

// TestChunkReadOnce: the pages of parquet-go's CRC file (8 KiB pages,
// each with a CRC) are checked and decoded from one read of each column
// chunk: the data read after the open is exactly the column chunks.
// Without room to hold a chunk (holdBudget 0) the page headers are read
// for the checks (in windows of headerWindow bytes) and the CRCs checked
// on arrow-go's read of the chunk: the chunks once plus the windows. The
// reader of before (pages read for their CRCs, then by arrow-go) read
// 74413 bytes after the open here.
func TestChunkReadOnce(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "foreign", "pgo_crc.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	open, data, chunks := readCounted(t, b)
	t.Logf("file %d bytes: %d read at open, %d after (column chunks: %d bytes)", len(b), open, data, chunks)
	if data != chunks {
		t.Errorf("read %d bytes of data, want the %d bytes of the column chunks", data, chunks)
	}
	// The open reads the footer (arrow-go reads up to 64 KiB of the end
	// at once: all of this small file).
	if max := int64(len(b)) + 64<<10; open+data > max {
		t.Errorf("read %d bytes in all, more than the file's %d plus 64 KiB", open+data, len(b))
	}

	defer func(v int64) { holdBudget = v }(holdBudget)
	holdBudget = 0
	_, unheld, _ := readCounted(t, b)
	pages := countPages(t, b)
	t.Logf("without holding: %d bytes read after the open (%d pages)", unheld, pages)
	if unheld <= chunks || unheld > chunks+int64(pages)*headerWindow {
		t.Errorf("without holding, %d bytes read; want more than the %d bytes of the column chunks, at most %d more", unheld, chunks, pages*headerWindow)
	}
}

// countPages counts the pages of the column chunks of Parquet file b.
func countPages(t *testing.T, b []byte) int {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var cs chunkScanner
	var crcs []pageCRC
	cs.crcs = &crcs
	for g := range rd.fmd.RowGroups {
		for c := range rd.fmd.RowGroups[g].Columns {
			if _, err := cs.scan(bytes.NewReader(b), &rd.fmd.RowGroups[g].Columns[c].MetaData); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(crcs) < 6 {
		t.Fatalf("%d pages with a CRC, want several per column", len(crcs))
	}
	return len(crcs)
}

// TestPageCRCUnheld: with no chunk held (holdBudget 0), CRCs checked on
// arrow-go's read refuse damaged pages as the checks on held chunks do.
func TestPageCRCUnheld(t *testing.T) {
	defer func(v int64) { holdBudget = v }(holdBudget)
	holdBudget = 0
	t.Run("PageCRC", TestPageCRC)
	t.Run("CorruptLZ4", TestCorruptLZ4)
}
