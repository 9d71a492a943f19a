package parquetio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Every column chunk is read here rather than by parquet-go v0.32.0's
// page reader: its LZ4 decoder keeps the wrong buffer when a page
// compressed less than 3:1 (its issue #608: the values come back as
// zeros or garbage) and doubles its buffer forever on corrupt data, its
// gzip and brotli decoders read to the end of the data whatever the page
// header says, and it decodes every chunk of a column with the codec of
// the column's first chunk.
//
// rawPages walks the chunk's page headers itself (checked like every
// chunk's, see scan), decompresses each page into a buffer of exactly its
// declared size (see decompress: data that does not fill it exactly is
// corrupt), checks its encoded streams (see checkPageData) and hands the
// uncompressed page to parquet-go's public decoders
// ((*parquet.Column).DecodeDictionary, DecodeDataPageV1/V2) of a shadow
// column: the same schema opened from a footer without row groups, so it
// has no codec and decodes the page as it is. Values, levels and
// encodings are parquet-go's own; the decompression and checks are ours.
//
// Those decoders take parquet-go's page header types, whose only field
// (a pointer to the format header) is unexported. headerCast checks with
// reflect that each is exactly that one pointer before they are built
// from one; if a parquet-go version changes them, Parquet files are
// refused with an error saying so (and TestRawPagesHook fails).

// headerCast reports whether parquet-go's page header types are a single
// pointer to their format header, so a *format header converts to them.
var headerCast = isPointerWrapper(reflect.TypeFor[parquet.DataPageHeaderV1](), reflect.TypeFor[*format.DataPageHeader]()) &&
	isPointerWrapper(reflect.TypeFor[parquet.DataPageHeaderV2](), reflect.TypeFor[*format.DataPageHeaderV2]()) &&
	isPointerWrapper(reflect.TypeFor[parquet.DictionaryPageHeader](), reflect.TypeFor[*format.DictionaryPageHeader]())

func isPointerWrapper(t, ptr reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.NumField() == 1 && t.Field(0).Type == ptr && t.Size() == ptr.Size()
}

func headerV1(h *format.DataPageHeader) parquet.DataPageHeaderV1 {
	return *(*parquet.DataPageHeaderV1)(unsafe.Pointer(&h))
}

func headerV2(h *format.DataPageHeaderV2) parquet.DataPageHeaderV2 {
	return *(*parquet.DataPageHeaderV2)(unsafe.Pointer(&h))
}

func headerDict(h *format.DictionaryPageHeader) parquet.DictionaryPageHeader {
	return *(*parquet.DictionaryPageHeader)(unsafe.Pointer(&h))
}

// pageSource is what readLeaf and maxLen read pages from.
type pageSource = *rawPages

// rawChunk reports whether column chunk m is read by rawPages: LZ4_RAW,
// or a codec other than the one parquet-go decodes its column with.
func rawChunk(m *format.ColumnMetaData, col *parquet.Column) bool {
	if m.Codec == format.Lz4Raw {
		return true
	}
	c := col.Compression()
	colCodec := format.Uncompressed
	if c != nil {
		colCodec = c.CompressionCodec()
	}
	return m.Codec != colCodec
}

// shadowLeaves opens the schema of md alone (no row groups: its columns
// have no codec) and returns its leaf columns in file order.
func shadowLeaves(md *format.FileMetaData) ([]*parquet.Column, error) {
	footer, err := thrift.Marshal(&compact, &format.FileMetaData{Version: md.Version, Schema: md.Schema})
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(footer)+12)
	b = append(b, "PAR1"...)
	b = append(b, footer...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(footer)))
	b = append(b, "PAR1"...)
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)), parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		return nil, err
	}
	return fileLeaves(f.Root(), nil), nil
}

// rawPages reads the pages of one column chunk (see above). A page it
// returns is valid until the next ReadPage: its data may live in a buffer
// the next page reuses.
type rawPages struct {
	ra io.ReaderAt
	*rawBuffers
	col   *parquet.Column // shadow column: no codec
	codec format.CompressionCodec
	rg    int   // row group, for errors
	off   int64 // next page header
	end   int64 // end of the chunk
	page  int
	dict  parquet.Dictionary
}

// rawBuffers are the buffers of rawPages, shared by the chunks a Reader
// reads one after the other.
type rawBuffers struct {
	cs   chunkScanner
	comp []byte // compressed page
	data []byte // uncompressed data page
}

func newRawPages(ra io.ReaderAt, bufs *rawBuffers, col *parquet.Column, rg int, m *format.ColumnMetaData) *rawPages {
	start, _ := chunkStart(m)
	return &rawPages{ra: ra, rawBuffers: bufs, col: col, codec: m.Codec, rg: rg, off: start, end: start + m.TotalCompressedSize}
}

// Close does nothing: rawPages holds no resources of its own.
func (p *rawPages) Close() error { return nil }

// ReadPage returns the next data page of the chunk, or io.EOF.
func (p *rawPages) ReadPage() (parquet.Page, error) {
	if !headerCast {
		return nil, errors.New("cannot read the pages: this version of parquet-go changed its page header types (npyflow reads pages itself: parquet-go v0.32.0 reads LZ4_RAW pages compressed less than 3:1 wrong and trusts the sizes pages claim)")
	}
	for p.off < p.end {
		page, off := p.page, p.off
		var h format.PageHeader
		hlen, head, err := p.cs.header(p.ra, off, p.end, &h)
		if err != nil {
			return nil, fmt.Errorf("row group %d, page %d: %w", p.rg, page, err)
		}
		if err := checkPage(&h, p.codec, p.end-off-int64(hlen), head); err != nil {
			return nil, fmt.Errorf("row group %d, page %d (at byte %d): %w", p.rg, page, off, err)
		}
		p.off += int64(hlen) + int64(h.CompressedPageSize)
		p.page++
		pg, err := p.decode(&h, off+int64(hlen))
		if err != nil {
			return nil, fmt.Errorf("row group %d, page %d (at byte %d): %w", p.rg, page, off, err)
		}
		if pg != nil {
			return pg, nil
		}
	}
	return nil, io.EOF
}

// decode reads the page of header h whose data starts at off: a data
// page, or nil after a dictionary page.
func (p *rawPages) decode(h *format.PageHeader, off int64) (parquet.Page, error) {
	switch h.Type {
	case format.DictionaryPage:
		if p.dict != nil {
			return nil, nil // parquet-go skips repeated dictionaries too
		}
		// The dictionary's buffer is its own: the dictionary outlives
		// the pages.
		data, err := p.read(h, off, 0, nil)
		if err != nil {
			return nil, err
		}
		d, err := decodeGuard(func() (parquet.Dictionary, error) {
			return p.col.DecodeDictionary(headerDict(&h.DictionaryPageHeader.V), data)
		})
		if err != nil {
			return nil, err
		}
		p.dict = d
		return nil, nil
	case format.DataPage:
		v := &h.DataPageHeader.V
		if err := p.needDict(v.Encoding); err != nil {
			return nil, err
		}
		data, err := p.read(h, off, 0, p.data)
		if err != nil {
			return nil, err
		}
		p.data = data
		if err := checkPageData(p.col, h, data); err != nil {
			return nil, err
		}
		return decodeGuard(func() (parquet.Page, error) { return p.col.DecodeDataPageV1(headerV1(v), data, p.dict) })
	case format.DataPageV2:
		v := &h.DataPageHeaderV2.V
		if err := p.needDict(v.Encoding); err != nil {
			return nil, err
		}
		levels := int64(v.RepetitionLevelsByteLength) + int64(v.DefinitionLevelsByteLength)
		if v.IsCompressed.Valid && !v.IsCompressed.V {
			levels = -1 // stored as is
		}
		data, err := p.read(h, off, levels, p.data)
		if err != nil {
			return nil, err
		}
		p.data = data
		if err := checkPageData(p.col, h, data); err != nil {
			return nil, err
		}
		return decodeGuard(func() (parquet.Page, error) { return p.col.DecodeDataPageV2(headerV2(v), data, p.dict) })
	}
	return nil, fmt.Errorf("cannot read a page of type %s", h.Type)
}

func (p *rawPages) needDict(e format.Encoding) error {
	if (e == format.PlainDictionary || e == format.RLEDictionary) && p.dict == nil {
		return corrupt("dictionary-encoded page without a dictionary page before it")
	}
	return nil
}

// read reads the page data of header h at off and returns it uncompressed
// (in buf if it fits): its first levels bytes are stored as they are
// (the levels of a v2 page), levels < 0 means the whole page is.
func (p *rawPages) read(h *format.PageHeader, off, levels int64, buf []byte) ([]byte, error) {
	comp, unc := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
	if levels < 0 || p.codec == format.Uncompressed {
		// Stored as is: the uncompressed size is not used (parquet-go
		// ignores it too).
		levels, unc = comp, comp
	}
	if unc < levels {
		return nil, corrupt("page claims %d bytes uncompressed, less than its %d bytes of levels", unc, levels)
	}
	if int64(cap(p.comp)) < comp {
		p.comp = make([]byte, comp)
	}
	in := p.comp[:comp]
	if k, err := p.ra.ReadAt(in, off); k < len(in) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("reading the page: %w", err)
	}
	if int64(cap(buf)) < unc {
		buf = make([]byte, unc)
	}
	out := buf[:unc]
	copy(out, in[:levels])
	if levels == unc {
		return out, nil // nothing compressed (or nothing beyond the levels)
	}
	if err := decompress(p.codec, out[levels:], in[levels:]); err != nil {
		return nil, err
	}
	return out, nil
}

// where names the page ReadPage returned last, for errors.
func (p *rawPages) where() string {
	return fmt.Sprintf("row group %d, page %d", p.rg, p.page-1)
}

// errDecodePanic marks the panics of parquet-go's decoders converted to
// errors (see decodeGuard).
var errDecodePanic = errors.New("values parquet-go cannot decode")

// decodeGuard calls a parquet-go page decoder (f holds nothing else)
// and turns a panic of it into a corrupt-data error. parquet-go v0.32.0
// indexes its buffers by values of the page without bounds checks in
// places (a dictionary index beyond the dictionary, in its amd64 lookup,
// is one), and checking every such value before it would decode the
// page twice. Only these calls are guarded: a panic of npyflow's own
// code still crashes.
func decodeGuard[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if e := recover(); e != nil {
			var zero T
			v, err = zero, corrupt("%w: %v", errDecodePanic, e)
		}
	}()
	return f()
}

// readValues is vr.ReadValues(vals) under decodeGuard: parquet-go decodes
// some values as they are read (dictionary lookups, levels).
func readValues(vr parquet.ValueReader, vals []parquet.Value) (int, error) {
	var n int
	_, err := decodeGuard(func() (struct{}, error) {
		var err error
		n, err = vr.ReadValues(vals)
		return struct{}{}, err
	})
	return n, err
}
