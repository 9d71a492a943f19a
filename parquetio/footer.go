package parquetio

import (
	"fmt"

	"github.com/parquet-go/parquet-go/format"
)

// decodeFooter decodes a file's FileMetaData (the footer) with tReader,
// filling the fields of format.FileMetaData that npyflow uses: the
// schema elements (names, types, child counts), the row count, and each
// row group's row count and column chunks (file path, offsets, sizes,
// codec, value count, path in the schema). Everything else (key-value
// metadata, statistics, encodings, column orders, ...) is checked and
// skipped: arrow-go decodes the same bytes for those.
//
// Logical types arrow-go does not know (a union member of a newer
// writer, a time unit it has no name for) are reported in unknown: the
// Parquet spec has a reader ignore such an annotation and read the
// physical type; patchFooter removes them for arrow-go.
func decodeFooter(b []byte) (*format.FileMetaData, []unknownLogical, error) {
	r := &tReader{b: b}
	md := new(format.FileMetaData)
	var unknown []unknownLogical
	err := r.readFields(1<<2|1<<3|1<<4, "the footer", func(id int16, typ byte) (set bool, err error) {
		switch {
		case id == 2 && typ == tList:
			err = r.readList(tStruct, func(n int) { md.Schema = make([]format.SchemaElement, n) }, func(i int) error {
				u, err := r.schemaElement(&md.Schema[i])
				if u != nil {
					u.element = i
					unknown = append(unknown, *u)
				}
				return err
			})
			set = true
		case id == 3:
			md.NumRows, set, err = r.i64(typ)
		case id == 4 && typ == tList:
			err = r.readList(tStruct, func(n int) { md.RowGroups = make([]format.RowGroup, n) }, func(i int) error {
				return r.rowGroup(&md.RowGroups[i])
			})
			set = true
		default:
			err = r.skip(typ)
		}
		return set, err
	})
	if err != nil {
		return nil, nil, err
	}
	return md, unknown, nil
}

// unknownLogical is a logical type annotation arrow-go cannot read: the
// bytes [start, end) of the footer hold the schema element's field 10;
// last is the id of the field before it, next the header of the field
// after it (at end), id its id.
type unknownLogical struct {
	element    int
	start, end int
	last, id   int16
	member     int16 // the union member's field id (-1: none)
	what       string
}

// knownLogical are the LogicalType union members arrow-go reads.
var knownLogical = [...]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true,
	10: true, 11: true, 12: true, 13: true, 14: true, 15: true, 16: true, 17: true, 18: true}

func (r *tReader) schemaElement(e *format.SchemaElement) (*unknownLogical, error) {
	var u *unknownLogical
	haveName := false
	var last int16
	err := r.readStruct(func(id int16, typ byte) error {
		defer func() { last = id }()
		var v int32
		var ok bool
		var err error
		switch id {
		case 1:
			v, ok, err = r.i32(typ)
			e.Type.V, e.Type.Valid = format.Type(v), ok
		case 2:
			e.TypeLength.V, e.TypeLength.Valid, err = r.i32(typ)
		case 3:
			v, ok, err = r.i32(typ)
			e.RepetitionType.V, e.RepetitionType.Valid = format.FieldRepetitionType(v), ok
		case 4:
			if typ != tBinary {
				return r.skip(typ)
			}
			haveName = true
			e.Name, err = r.str()
		case 5:
			e.NumChildren.V, e.NumChildren.Valid, err = r.i32(typ)
		case 7:
			e.Scale.V, e.Scale.Valid, err = r.i32(typ)
		case 8:
			e.Precision.V, e.Precision.Valid, err = r.i32(typ)
		case 10:
			if typ != tStruct {
				return r.skip(typ)
			}
			start := r.hdr
			member, what, err := r.logicalType()
			if err != nil {
				return err
			}
			if what != "" {
				u = &unknownLogical{start: start, end: r.pos, last: last, id: id, member: member, what: what}
			}
		default:
			err = r.skip(typ)
		}
		return err
	})
	if err == nil && !haveName {
		err = fmt.Errorf("a schema element without a name")
	}
	return u, err
}

// logicalType reads a LogicalType union; what describes it if arrow-go
// cannot read it ("" if it can).
func (r *tReader) logicalType() (member int16, what string, err error) {
	member = -1
	err = r.readStruct(func(id int16, typ byte) error {
		member = id
		if id < 0 || int(id) >= len(knownLogical) || !knownLogical[id] || typ != tStruct {
			what = fmt.Sprintf("an unknown logical type (union member %d)", id)
			return r.skip(typ)
		}
		if id != 7 && id != 8 { // TIME, TIMESTAMP: the unit must be known
			return r.skip(typ)
		}
		name := map[int16]string{7: "TIME", 8: "TIMESTAMP"}[id]
		unit := int16(-1)
		err := r.readStruct(func(id int16, typ byte) error {
			if id != 2 || typ != tStruct {
				return r.skip(typ)
			}
			return r.readStruct(func(id int16, typ byte) error {
				unit = id
				return r.skip(typ)
			})
		})
		if err == nil && (unit < 1 || unit > 3) {
			what = fmt.Sprintf("%s of an unknown unit (union member %d)", name, unit)
		}
		return err
	})
	if err == nil && member < 0 {
		what = "an empty logical type"
	}
	return member, what, err
}

func (r *tReader) rowGroup(g *format.RowGroup) error {
	return r.readFields(1<<1|1<<3, "a row group", func(id int16, typ byte) (set bool, err error) {
		switch {
		case id == 1 && typ == tList:
			err = r.readList(tStruct, func(n int) { g.Columns = make([]format.ColumnChunk, n) }, func(i int) error {
				return r.columnChunk(&g.Columns[i])
			})
			set = true
		case id == 2:
			g.TotalByteSize, set, err = r.i64(typ)
		case id == 3:
			g.NumRows, set, err = r.i64(typ)
		default:
			err = r.skip(typ)
		}
		return set, err
	})
}

func (r *tReader) columnChunk(c *format.ColumnChunk) error {
	haveMeta, encrypted := false, false
	err := r.readStruct(func(id int16, typ byte) error {
		var err error
		var v int32
		switch {
		case id == 1 && typ == tBinary:
			c.FilePath, err = r.str()
		case id == 2:
			c.FileOffset, _, err = r.i64(typ)
		case id == 3 && typ == tStruct:
			haveMeta = true
			err = r.columnMeta(&c.MetaData)
		case id == 4:
			c.OffsetIndexOffset, _, err = r.i64(typ)
		case id == 5:
			v, _, err = r.i32(typ)
			c.OffsetIndexLength = v
		case id == 6:
			c.ColumnIndexOffset, _, err = r.i64(typ)
		case id == 7:
			v, _, err = r.i32(typ)
			c.ColumnIndexLength = v
		case id == 8 || id == 9:
			encrypted = true
			err = r.skip(typ)
		default:
			err = r.skip(typ)
		}
		return err
	})
	switch {
	case err != nil:
		return err
	case !haveMeta && encrypted:
		return errEncryptedColumn
	case !haveMeta:
		return fmt.Errorf("a column chunk without its metadata")
	}
	return nil
}

// readFields reads a struct whose field function reports each field it
// read (set); the fields whose ids are in required must all be set.
func (r *tReader) readFields(required uint32, what string, field func(id int16, typ byte) (set bool, err error)) error {
	var have uint32
	err := r.readStruct(func(id int16, typ byte) error {
		set, err := field(id, typ)
		if set && id >= 0 && id < 32 {
			have |= 1 << id
		}
		return err
	})
	if err == nil && have&required != required {
		err = fmt.Errorf("%s without its required fields", what)
	}
	return err
}

var errEncryptedColumn = fmt.Errorf("an encrypted column chunk (Parquet modular encryption is not read)")

func (r *tReader) columnMeta(m *format.ColumnMetaData) error {
	const required = 1<<1 | 1<<3 | 1<<4 | 1<<5 | 1<<7 | 1<<9
	return r.readFields(required, "column metadata", func(id int16, typ byte) (set bool, err error) {
		var v int32
		switch id {
		case 1:
			v, set, err = r.i32(typ)
			m.Type = format.Type(v)
		case 3:
			if typ != tList {
				return false, r.skip(typ)
			}
			err = r.readList(tBinary, func(n int) { m.PathInSchema = make([]string, n) }, func(i int) error {
				var err error
				m.PathInSchema[i], err = r.str()
				return err
			})
			set = true
		case 4:
			v, set, err = r.i32(typ)
			m.Codec = format.CompressionCodec(v)
		case 5:
			m.NumValues, set, err = r.i64(typ)
		case 6:
			m.TotalUncompressedSize, set, err = r.i64(typ)
		case 7:
			m.TotalCompressedSize, set, err = r.i64(typ)
		case 9:
			m.DataPageOffset, set, err = r.i64(typ)
		case 10:
			m.IndexPageOffset, set, err = r.i64(typ)
		case 11:
			m.DictionaryPageOffset, set, err = r.i64(typ)
		default:
			err = r.skip(typ)
		}
		return set, err
	})
}

// patchFooter returns the footer b without the logical type annotations
// of unknown (as decodeFooter found them, in order), for arrow-go: the
// field after each one gets a header relative to the field before it.
func patchFooter(b []byte, unknown []unknownLogical) []byte {
	out := make([]byte, 0, len(b))
	prev := 0
	for _, u := range unknown {
		out = append(out, b[prev:u.start]...)
		rest := b[u.end:]
		if c := rest[0]; c&0x0f != tStop && c>>4 != 0 {
			// A short header (delta from this field): rewrite it
			// relative to the field before this one.
			out = appendFieldHeader(out, c&0x0f, u.id+int16(c>>4), u.last)
			prev = u.end + 1
		} else {
			prev = u.end
		}
	}
	return append(out, b[prev:]...)
}

// decodePageHeader decodes a page header from the start of b into h and
// returns its length: the fields npyflow checks (type, sizes, CRC, the
// value, null and row counts, level lengths and encodings of each kind of
// page header); statistics are skipped.
func decodePageHeader(b []byte, h *format.PageHeader) (int, error) {
	r := &tReader{b: b}
	*h = format.PageHeader{}
	err := r.readFields(1<<1|1<<2|1<<3, "a page header", func(id int16, typ byte) (set bool, err error) {
		var v int32
		switch {
		case id == 1:
			v, set, err = r.i32(typ)
			h.Type = format.PageType(v)
		case id == 2:
			h.UncompressedPageSize, set, err = r.i32(typ)
		case id == 3:
			h.CompressedPageSize, set, err = r.i32(typ)
		case id == 4:
			h.CRC, set, err = r.i32(typ)
		case id == 5 && typ == tStruct:
			h.DataPageHeader.Valid = true
			err = r.dataPageHeader(&h.DataPageHeader.V)
		case id == 7 && typ == tStruct:
			h.DictionaryPageHeader.Valid = true
			err = r.dictPageHeader(&h.DictionaryPageHeader.V)
		case id == 8 && typ == tStruct:
			h.DataPageHeaderV2.Valid = true
			err = r.dataPageHeaderV2(&h.DataPageHeaderV2.V)
		default:
			err = r.skip(typ)
		}
		return set, err
	})
	if err != nil {
		return 0, err
	}
	return r.pos, nil
}

func (r *tReader) dataPageHeader(d *format.DataPageHeader) error {
	return r.readFields(1<<1|1<<2|1<<3|1<<4, "a data page header", func(id int16, typ byte) (set bool, err error) {
		var v int32
		switch id {
		case 1:
			d.NumValues, set, err = r.i32(typ)
		case 2:
			v, set, err = r.i32(typ)
			d.Encoding = format.Encoding(v)
		case 3:
			v, set, err = r.i32(typ)
			d.DefinitionLevelEncoding = format.Encoding(v)
		case 4:
			v, set, err = r.i32(typ)
			d.RepetitionLevelEncoding = format.Encoding(v)
		default:
			err = r.skip(typ)
		}
		return set, err
	})
}

func (r *tReader) dictPageHeader(d *format.DictionaryPageHeader) error {
	return r.readFields(1<<1|1<<2, "a dictionary page header", func(id int16, typ byte) (set bool, err error) {
		var v int32
		switch id {
		case 1:
			d.NumValues, set, err = r.i32(typ)
		case 2:
			v, set, err = r.i32(typ)
			d.Encoding = format.Encoding(v)
		case 3:
			d.IsSorted, set, err = r.boolean(typ)
		default:
			err = r.skip(typ)
		}
		return set, err
	})
}

func (r *tReader) dataPageHeaderV2(d *format.DataPageHeaderV2) error {
	return r.readFields(1<<1|1<<2|1<<3|1<<4|1<<5|1<<6, "a data page v2 header", func(id int16, typ byte) (set bool, err error) {
		var v int32
		switch id {
		case 1:
			d.NumValues, set, err = r.i32(typ)
		case 2:
			d.NumNulls, set, err = r.i32(typ)
		case 3:
			d.NumRows, set, err = r.i32(typ)
		case 4:
			v, set, err = r.i32(typ)
			d.Encoding = format.Encoding(v)
		case 5:
			d.DefinitionLevelsByteLength, set, err = r.i32(typ)
		case 6:
			d.RepetitionLevelsByteLength, set, err = r.i32(typ)
		case 7:
			d.IsCompressed.V, d.IsCompressed.Valid, err = r.boolean(typ)
		default:
			err = r.skip(typ)
		}
		return set, err
	})
}
