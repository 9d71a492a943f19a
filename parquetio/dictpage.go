package parquetio

import (
	"encoding/binary"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// A dictionary-encoded data page starts its values with the bit width of
// the dictionary indexes, at most 32 (indexes are 32-bit; Arrow C++
// refuses more as corrupt, arrow-go does not check). checkedPages wraps
// arrow-go's page reader and checks it on each page as arrow-go loads it.
//
// A width of 0 is valid, whatever the dictionary's size: every index is
// 0 (parquet-java's ZeroIntegerValuesReader). Impala writes it for pages
// of one repeated value over dictionaries of hundreds of entries
// (parquet-testing's alltypes_tiny_pages.parquet), and a dictionary of one
// entry needs no more (bad_data/ARROW-GH-43605.parquet, which crashed
// arrow-go once; pyarrow, parquet-java and DuckDB read its 21186 zeros).

// columnReader returns arrow-go's reader of column col of row group g,
// reading its pages through checkedPages.
func (r *Reader) columnReader(g, col int) (file.ColumnChunkReader, error) {
	var cr file.ColumnChunkReader
	err := guard(func() error {
		pr, err := r.pf.RowGroup(g).GetColumnPageReader(col)
		if err != nil {
			return err
		}
		descr := r.pf.MetaData().Schema.Column(col)
		cr = file.NewColumnReader(descr, &checkedPages{PageReader: pr, col: descr}, memory.DefaultAllocator, r.pf.BufferPool())
		return nil
	})
	return cr, err
}

// checkedPages is a page reader that checks the index bit width of each
// dictionary-encoded data page.
type checkedPages struct {
	file.PageReader
	col *schema.Column
	err error
}

func (p *checkedPages) Next() bool {
	if p.err != nil || !p.PageReader.Next() {
		return false
	}
	p.err = p.check(p.PageReader.Page())
	return p.err == nil
}

func (p *checkedPages) Err() error {
	if p.err != nil {
		return p.err
	}
	return p.PageReader.Err()
}

func (p *checkedPages) check(pg file.Page) error {
	var values []byte // the page's values section
	switch pg := pg.(type) {
	case *file.DataPageV1:
		if !dictEncoded(parquet.Encoding(pg.Encoding())) {
			return nil
		}
		b := pg.Data()
		for _, l := range []struct {
			max int16
			enc parquet.Encoding
		}{{p.col.MaxRepetitionLevel(), pg.RepetitionLevelEncoding()}, {p.col.MaxDefinitionLevel(), pg.DefinitionLevelEncoding()}} {
			if l.max == 0 {
				continue
			}
			n := int64(-1)
			switch l.enc {
			case parquet.Encodings.RLE:
				if len(b) >= 4 {
					n = 4 + int64(binary.LittleEndian.Uint32(b))
				}
			case parquet.Encodings.BitPacked:
				n = (int64(pg.NumValues())*int64(bits.Len16(uint16(l.max))) + 7) / 8
			}
			if n < 0 || n > int64(len(b)) {
				return nil // arrow-go reports the levels
			}
			b = b[n:]
		}
		values = b
	case *file.DataPageV2:
		if !dictEncoded(parquet.Encoding(pg.Encoding())) {
			return nil
		}
		n := int64(pg.RepetitionLevelByteLen()) + int64(pg.DefinitionLevelByteLen())
		b := pg.Data()
		if n < 0 || n > int64(len(b)) {
			return nil
		}
		values = b[n:]
	default:
		return nil
	}
	if len(values) == 0 {
		return nil // no values (or arrow-go reports it)
	}
	if w := values[0]; w > 32 {
		return corrupt("a dictionary-encoded page declares indexes of %d bits (at most 32)", w)
	}
	return nil
}

func dictEncoded(e parquet.Encoding) bool {
	return e == parquet.Encodings.RLEDict || e == parquet.Encodings.PlainDict
}
