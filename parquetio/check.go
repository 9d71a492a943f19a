package parquetio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go/format"
)

// parquet-go trusts the sizes a file declares: it allocates a page buffer
// of the page header's compressed_page_size, a decompression buffer of its
// uncompressed_page_size and level and offset buffers of its num_values,
// before reading a byte of the page. The checks here run first: the
// footer's column chunks must lie within the file (checkFooterChunks, at
// open), and every page header of a column chunk is decoded and checked
// against the chunk before parquet-go reads the chunk (scanChunk).

// Page limits.
const (
	// MaxPageSize is the largest uncompressed page a compressed column
	// may declare: parquet-go decompresses a page whole.
	MaxPageSize = 256 << 20
	// maxPageHeader bounds the size of one page header (statistics
	// included).
	maxPageHeader = 16 << 20
	// pageValuesFloor is the number of values any page may declare;
	// beyond it, a page needs at least one byte per 8 values (RLE runs
	// can hold more, but writers cut pages by value count long before).
	pageValuesFloor = 1 << 22
	// headerWindow is the first read of a page header.
	headerWindow = 1 << 10
)

// pageSizeLimit is the limit checkPage applies: MaxPageSize, lowered by
// the fuzz test so that no input can make it allocate much.
var pageSizeLimit int64 = MaxPageSize

// maxRatio is the largest expansion each codec can achieve (decoded bytes
// per encoded byte), plus a margin; 0 means unbounded (MaxPageSize only).
var maxRatio = map[format.CompressionCodec]int64{
	format.Snappy:       24,      // copy-2: 64 bytes from 3
	format.Gzip:         1040,    // deflate: 258 bytes from ~2 bits
	format.Lz4:          256,     // 255 bytes per length byte
	format.Lz4Raw:       256,     //
	format.Zstd:         1 << 15, // RLE block: 128 KiB from 4 bytes
	format.Brotli:       0,
	format.LZO:          0,
	format.Uncompressed: 0,
}

// errCorrupt marks the errors of these checks.
var errCorrupt = errors.New("corrupt Parquet file")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errCorrupt}, args...)...)
}

// checkFooterChunks checks the row counts and the byte ranges of every
// column chunk against the file (dataEnd is where the footer starts) and
// returns the rows of the row groups.
func checkFooterChunks(md *format.FileMetaData, dataEnd int64, leaves int) (int64, error) {
	var rows int64
	for i := range md.RowGroups {
		g := &md.RowGroups[i]
		if g.NumRows < 0 || rows+g.NumRows < rows {
			return 0, corrupt("row group %d claims %d rows", i, g.NumRows)
		}
		rows += g.NumRows
		if len(g.Columns) != leaves {
			return 0, corrupt("row group %d has %d column chunks, the schema has %d columns", i, len(g.Columns), leaves)
		}
		for j := range g.Columns {
			cc := &g.Columns[j]
			m := &cc.MetaData
			name := strings.Join(m.PathInSchema, ".")
			if cc.FilePath != "" {
				return 0, fmt.Errorf("parquetio: column %s of row group %d is in another file (%q); only single-file Parquet is read", name, i, cc.FilePath)
			}
			if g.NumRows == 0 {
				continue // never read (writers leave the offsets of an empty chunk 0)
			}
			start, _ := chunkStart(m)
			if start < 4 || start >= dataEnd {
				return 0, corrupt("column chunk %s of row group %d starts at byte %d, beyond the file's data (bytes 4 to %d)", name, i, start, dataEnd)
			}
			if m.TotalCompressedSize <= 0 || m.TotalCompressedSize > dataEnd-start {
				return 0, corrupt("column chunk %s of row group %d claims %d bytes from byte %d, beyond the file's data (which ends at byte %d)", name, i, m.TotalCompressedSize, start, dataEnd)
			}
			if m.DataPageOffset < start || m.DataPageOffset >= start+m.TotalCompressedSize {
				return 0, corrupt("column chunk %s of row group %d: data page offset %d outside the chunk (bytes %d to %d)", name, i, m.DataPageOffset, start, start+m.TotalCompressedSize)
			}
		}
	}
	return rows, nil
}

// chunkStart is where parquet-go starts reading a column chunk: its
// dictionary page if it has one.
func chunkStart(m *format.ColumnMetaData) (int64, bool) {
	if m.DictionaryPageOffset != 0 {
		return m.DictionaryPageOffset, true
	}
	return m.DataPageOffset, false
}

// chunkScanner decodes page headers (and checks page CRCs); its buffers
// are reused.
type chunkScanner struct {
	win  []byte
	page []byte
	// crcs, when not nil, collects the CRCs to check instead of reading
	// the pages (heldReader checks them as arrow-go reads the chunk).
	crcs *[]pageCRC
}

// pageCRC is the CRC of the n bytes at off of page number page, whose
// header starts at byte hdr.
type pageCRC struct {
	off, hdr int64
	n        int
	page     int
	crc      uint32
}

// check checks the page's CRC against b, its bytes.
func (pc *pageCRC) check(b []byte) error {
	if got := crc32.ChecksumIEEE(b); got != pc.crc {
		return fmt.Errorf("page %d (at byte %d): %w", pc.page, pc.hdr, corrupt("the page's CRC is %08x, its data's %08x: the page is damaged", pc.crc, got))
	}
	return nil
}

// checkCRC verifies the CRC of a page: CRC-32 (IEEE) of the page's
// stored bytes, as the format defines it (arrow-go's readers do not
// verify it), or, collecting (cs.crcs), adds it to the CRCs to check.
func (cs *chunkScanner) checkCRC(ra io.ReaderAt, pc *pageCRC) error {
	if cs.crcs != nil {
		*cs.crcs = append(*cs.crcs, *pc)
		return nil
	}
	n := pc.n // checked against its chunk
	if cap(cs.page) < n {
		cs.page = make([]byte, n)
	}
	b := cs.page[:n]
	if k, err := ra.ReadAt(b, pc.off); k < n {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("page %d (at byte %d): reading the page: %w", pc.page, pc.hdr, err)
	}
	return pc.check(b)
}

// scan checks every page header of the column chunk m read from ra and
// returns the number of values its data pages hold (nulls included).
func (cs *chunkScanner) scan(ra io.ReaderAt, m *format.ColumnMetaData) (int64, error) {
	start, _ := chunkStart(m)
	end := start + m.TotalCompressedSize
	codec := m.Codec
	var values int64
	for off, page := start, 0; off < end; page++ {
		var h format.PageHeader
		hlen, data, err := cs.header(ra, off, end, &h)
		if err != nil {
			return 0, fmt.Errorf("page %d: %w", page, err)
		}
		if err := checkPage(&h, codec, end-off-int64(hlen), data); err != nil {
			return 0, fmt.Errorf("page %d (at byte %d): %w", page, off, err)
		}
		if h.CRC != 0 { // 0 counts as absent (the footer decoder cannot tell them apart)
			pc := pageCRC{off: off + int64(hlen), hdr: off, n: int(h.CompressedPageSize), page: page, crc: uint32(h.CRC)}
			if err := cs.checkCRC(ra, &pc); err != nil {
				return 0, err
			}
		}
		switch h.Type {
		case format.DataPage:
			values += int64(h.DataPageHeader.V.NumValues)
		case format.DataPageV2:
			values += int64(h.DataPageHeaderV2.V.NumValues)
		}
		off += int64(hlen) + int64(h.CompressedPageSize)
	}
	return values, nil
}

// header decodes the page header at off (before end) into h and returns
// its length and the first bytes of the page data that follow it.
func (cs *chunkScanner) header(ra io.ReaderAt, off, end int64, h *format.PageHeader) (int, []byte, error) {
	for n := int64(headerWindow); ; n *= 8 {
		n = min(n, end-off, maxPageHeader)
		if int64(cap(cs.win)) < n {
			cs.win = make([]byte, n)
		}
		w := cs.win[:n]
		k, err := ra.ReadAt(w, off)
		if k < len(w) {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, nil, fmt.Errorf("reading the page header: %w", err)
		}
		hl, err := decodePageHeader(w, h)
		if err == nil {
			return hl, w[hl:], nil
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return 0, nil, corrupt("undecodable page header: %v", err)
		}
		if n == end-off {
			return 0, nil, corrupt("page header cut off by the end of its column chunk")
		}
		if n == maxPageHeader {
			return 0, nil, corrupt("page header larger than %d bytes", maxPageHeader)
		}
	}
}

// checkPage checks one page header: room is the bytes left in the chunk
// after the header; data holds the first bytes of the page.
func checkPage(h *format.PageHeader, codec format.CompressionCodec, room int64, data []byte) error {
	comp, unc := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
	if comp < 0 || unc < 0 {
		return corrupt("negative page size")
	}
	if comp > room {
		return corrupt("compressed_page_size %d, but only %d bytes of the column chunk remain", comp, room)
	}
	var nvalues int64
	var levels int64
	decompressed := codec != format.Uncompressed
	switch h.Type {
	case format.DataPage:
		if !h.DataPageHeader.Valid {
			return corrupt("data page without its header")
		}
		nvalues = int64(h.DataPageHeader.V.NumValues)
	case format.DataPageV2:
		v := &h.DataPageHeaderV2
		if !v.Valid {
			return corrupt("data page v2 without its header")
		}
		nvalues = int64(v.V.NumValues)
		levels = int64(v.V.RepetitionLevelsByteLength) + int64(v.V.DefinitionLevelsByteLength)
		if v.V.RepetitionLevelsByteLength < 0 || v.V.DefinitionLevelsByteLength < 0 || levels > comp {
			return corrupt("level lengths %d and %d in a page of %d bytes", v.V.RepetitionLevelsByteLength, v.V.DefinitionLevelsByteLength, comp)
		}
		if v.V.NumNulls < 0 || int64(v.V.NumNulls) > nvalues || v.V.NumRows < 0 || int64(v.V.NumRows) > nvalues {
			return corrupt("page claims %d values, %d nulls and %d rows", nvalues, v.V.NumNulls, v.V.NumRows)
		}
		decompressed = decompressed && (!v.V.IsCompressed.Valid || v.V.IsCompressed.V)
	case format.DictionaryPage:
		if !h.DictionaryPageHeader.Valid {
			return corrupt("dictionary page without its header")
		}
		nvalues = int64(h.DictionaryPageHeader.V.NumValues)
	default:
		return nil // parquet-go skips or refuses it
	}
	if nvalues < 0 {
		return corrupt("page claims %d values", nvalues)
	}
	size := comp
	if !decompressed && unc != comp {
		return corrupt("page stored uncompressed in %d bytes claims %d bytes uncompressed", comp, unc)
	}
	if decompressed {
		if unc > pageSizeLimit {
			return corrupt("page claims %d bytes uncompressed: too large (the limit is %d)", unc, pageSizeLimit)
		}
		if r := maxRatio[codec]; r > 0 && unc-levels > (comp-levels)*r+4096 {
			return corrupt("page claims %d bytes uncompressed from %d compressed, more than %s can expand to", unc, comp, codec)
		}
		if codec == format.Snappy && len(data) > int(levels) {
			if n, k := binary.Uvarint(data[levels:]); k > 0 && int64(n) != unc-levels {
				return corrupt("page claims %d bytes uncompressed, its snappy data holds %d", unc-levels, n)
			}
		}
		size = unc
	}
	limit := max(pageValuesFloor, 8*size+8)
	if nvalues > limit {
		return corrupt("page claims %d values in %d bytes: too many values", nvalues, size)
	}
	return nil
}

// maxSchemaDepth bounds the nesting of a Parquet schema.
const maxSchemaDepth = 256

// checkSchemaTree checks that the schema elements form one tree: every
// group's child count is non-negative and its children are there, and
// groups nest at most maxSchemaDepth deep.
func checkSchemaTree(s []format.SchemaElement) error {
	if len(s) == 0 {
		return nil // parquet-go reports it
	}
	// stack holds the children still expected by each open group.
	stack := make([]int64, 0, 16)
	for i := range s {
		if len(stack) > 0 {
			stack[len(stack)-1]--
		} else if i > 0 {
			return corrupt("schema element %d (%q) is outside the schema tree", i, s[i].Name)
		}
		if c := s[i].NumChildren; c.Valid && c.V != 0 {
			if c.V < 0 || int64(c.V) > int64(len(s)-1-i) {
				return corrupt("schema element %d (%q) claims %d children, %d elements follow it", i, s[i].Name, c.V, len(s)-1-i)
			}
			if len(stack) >= maxSchemaDepth {
				return corrupt("schema nested more than %d deep", maxSchemaDepth)
			}
			stack = append(stack, int64(c.V))
		}
		for len(stack) > 0 && stack[len(stack)-1] == 0 {
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		return corrupt("schema element claims %d more children than the schema holds", stack[len(stack)-1])
	}
	return nil
}
