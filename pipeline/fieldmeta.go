package pipeline

import (
	"fmt"
	"maps"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/parquetio"
)

// Field metadata: what a source knows of a column beyond its numpy dtype
// (a MAT-file's datetime time zone, a categorical's categories, which
// bool field records a column's missing values). It rides on the
// [Schema] from the source to the sinks it feeds directly; sinks that
// have a place for it (Arrow, Parquet) use it, the others write the
// numpy values as they are. A transform makes a new schema without it.

// FieldMeta describes one top-level field of a [Schema] (or, under the
// name "", a plain array's one column).
type FieldMeta struct {
	// TimeZone is set on a datetime64 field holding the UTC instants of
	// times in this zone: Arrow writes timestamp[tz=zone], Parquet
	// TIMESTAMP isAdjustedToUTC=true.
	TimeZone string
	// Categories, in order, are set on a text field whose values are
	// these categories or "" for none (a MATLAB categorical): Arrow and
	// Parquet write it dictionary-encoded, "" as null.
	Categories []string
	Ordered    bool
	// ValidityOf is set on a bool field that records the missing values
	// of the field it names (false where it has none): Arrow and Parquet
	// write those values as nulls and leave this field out.
	ValidityOf string
}

// validityFields lists the fields of s that Arrow and Parquet sinks turn
// into nulls of another field (and leave out).
func (s *Schema) validityFields() map[string]string {
	var out map[string]string
	for name, m := range s.Meta {
		if m != nil && m.ValidityOf != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[name] = m.ValidityOf
		}
	}
	return out
}

// hasArrowMeta reports whether Arrow output of s changes with its field
// metadata.
func (s *Schema) hasArrowMeta() bool {
	for _, m := range s.Meta {
		if m != nil && (m.TimeZone != "" || m.Categories != nil || m.ValidityOf != "") {
			return true
		}
	}
	return false
}

// metaName is the field-metadata key of an Arrow column: the name, or ""
// for the one column of a plain array.
func (s *Schema) metaName(col string) string {
	if len(s.DType.Fields) == 0 {
		return ""
	}
	return col
}

// arrowSchemaMeta applies the schema's field metadata to the Arrow schema
// of its rows: time zones on timestamps, categories as dictionaries,
// validity fields left out.
func (s *Schema) arrowSchemaMeta(sc *arrow.Schema) (*arrow.Schema, error) {
	if !s.hasArrowMeta() {
		return sc, nil
	}
	var fields []arrow.Field
	for _, f := range sc.Fields() {
		m := s.Meta[s.metaName(f.Name)]
		if m != nil && m.ValidityOf != "" {
			continue
		}
		t, err := metaType(f, m)
		if err != nil {
			return nil, err
		}
		f.Type = t
		fields = append(fields, f)
	}
	md := sc.Metadata()
	return arrow.NewSchema(fields, &md), nil
}

// metaType is the Arrow type of column f with metadata m: a time zone
// on a timestamp (or the timestamps of a fixed-size list), categories on
// a scalar string column. Metadata that does not fit the type (a
// categorical matrix) leaves it as it is.
func metaType(f arrow.Field, m *FieldMeta) (arrow.DataType, error) {
	if m == nil {
		return f.Type, nil
	}
	switch {
	case m.TimeZone != "":
		return zoned(f.Type, m.TimeZone), nil
	case m.Categories != nil && f.Type.ID() == arrow.STRING:
		return &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String, Ordered: m.Ordered}, nil
	}
	return f.Type, nil
}

// zoned is t with time zone tz on its timestamps: t itself, or the
// elements of a fixed-size list.
func zoned(t arrow.DataType, tz string) arrow.DataType {
	switch t := t.(type) {
	case *arrow.TimestampType:
		return &arrow.TimestampType{Unit: t.Unit, TimeZone: tz}
	case *arrow.FixedSizeListType:
		el := t.ElemField()
		el.Type = zoned(el.Type, tz)
		return arrow.FixedSizeListOfField(t.Len(), el)
	}
	return t
}

// zonedData is d with its type zoned (see zoned); bitmap, if not nil,
// replaces its validity with nulls nulls.
func zonedData(d arrow.ArrayData, tz string, bitmap *memory.Buffer, nulls int) arrow.ArrayData {
	bufs := slices.Clone(d.Buffers())
	if bitmap != nil {
		bufs[0] = bitmap
	} else {
		nulls = d.NullN()
	}
	children := d.Children()
	typ := d.DataType()
	if tz != "" {
		typ = zoned(typ, tz)
		if len(children) == 1 {
			children = []arrow.ArrayData{zonedData(children[0], tz, nil, 0)}
			defer children[0].Release()
		}
	}
	return array.NewData(typ, d.Len(), bufs, children, nulls, d.Offset())
}

// arrowRecordMeta applies the field metadata to a record batch of the
// schema's rows (converted by arrowconv) and returns the record of
// schema sc (made by arrowSchemaMeta). It releases rec.
func (s *Schema) arrowRecordMeta(rec arrow.RecordBatch, sc *arrow.Schema, mem memory.Allocator) (arrow.RecordBatch, error) {
	if !s.hasArrowMeta() {
		return rec, nil
	}
	defer rec.Release()
	in := rec.Schema()
	valid := map[string]arrow.Array{} // column -> its validity field
	for i, f := range in.Fields() {
		if m := s.Meta[s.metaName(f.Name)]; m != nil && m.ValidityOf != "" {
			valid[m.ValidityOf] = rec.Column(i)
		}
	}
	var cols []arrow.Array
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for i, f := range in.Fields() {
		name := s.metaName(f.Name)
		m := s.Meta[name]
		if m != nil && m.ValidityOf != "" {
			continue
		}
		col, err := metaColumn(rec.Column(i), valid[name], m, mem)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		cols = append(cols, col)
	}
	out := array.NewRecordBatch(sc, cols, rec.NumRows())
	return out, nil
}

// metaColumn is col with the nulls of its validity field (a bool array,
// may be nil), its time zone or its categories as a dictionary.
func metaColumn(col, valid arrow.Array, m *FieldMeta, mem memory.Allocator) (arrow.Array, error) {
	d := col.Data()
	n := d.Len()
	bitmap := d.Buffers()[0]
	nulls := d.NullN()
	var own *memory.Buffer
	if vl, ok := valid.(*array.FixedSizeList); ok {
		return itemsColumn(col, vl, m, mem)
	}
	if valid != nil {
		vb, ok := valid.(*array.Boolean)
		if !ok {
			return nil, fmt.Errorf("validity field of type %s, not bool", valid.DataType())
		}
		own = memory.NewResizableBuffer(mem)
		own.Resize(int(bitutil.BytesForBits(int64(n))))
		bits := own.Bytes()
		nulls = 0
		for k := 0; k < n; k++ {
			ok := vb.Value(k) && (bitmap == nil || bitutil.BitIsSet(bitmap.Bytes(), d.Offset()+k))
			bitutil.SetBitTo(bits, k, ok)
			if !ok {
				nulls++
			}
		}
		defer own.Release()
	}
	if m != nil && m.Categories != nil && col.DataType().ID() == arrow.STRING {
		return dictColumn(col, own, m, mem)
	}
	if own != nil && d.Offset() != 0 {
		return nil, fmt.Errorf("a sliced column")
	}
	tz := ""
	if m != nil {
		tz = m.TimeZone
	}
	nd := zonedData(d, tz, own, nulls)
	defer nd.Release()
	return array.MakeFromData(nd), nil
}

// itemsColumn is the fixed-size list column col with the nulls of its
// element validity field valid (a bool list of the same shape), and its
// time zone.
func itemsColumn(col arrow.Array, valid *array.FixedSizeList, m *FieldMeta, mem memory.Allocator) (arrow.Array, error) {
	nd, err := itemsData(col.Data(), valid.Data(), mem)
	if err != nil {
		return nil, err
	}
	defer nd.Release()
	if m != nil && m.TimeZone != "" {
		zd := zonedData(nd, m.TimeZone, nil, 0)
		defer zd.Release()
		return array.MakeFromData(zd), nil
	}
	return array.MakeFromData(nd), nil
}

// itemsData is d with the nulls of v, of the same fixed-size list shape
// (nested lists for more axes), applied to its elements: null where v is
// false or d already is.
func itemsData(d, v arrow.ArrayData, mem memory.Allocator) (arrow.ArrayData, error) {
	if d.Offset() != 0 || v.Offset() != 0 {
		return nil, fmt.Errorf("a sliced column")
	}
	if d.Len() != v.Len() {
		return nil, fmt.Errorf("%d values, but %d in its validity field", d.Len(), v.Len())
	}
	dl, dok := d.DataType().(*arrow.FixedSizeListType)
	vl, vok := v.DataType().(*arrow.FixedSizeListType)
	switch {
	case dok && vok:
		if dl.Len() != vl.Len() {
			return nil, fmt.Errorf("lists of %d, but of %d in its validity field", dl.Len(), vl.Len())
		}
		child, err := itemsData(d.Children()[0], v.Children()[0], mem)
		if err != nil {
			return nil, err
		}
		defer child.Release()
		return array.NewData(d.DataType(), d.Len(), d.Buffers(), []arrow.ArrayData{child}, d.NullN(), 0), nil
	case dok || vok || v.DataType().ID() != arrow.BOOL:
		return nil, fmt.Errorf("%s with a validity field of type %s", d.DataType(), v.DataType())
	}
	n := d.Len()
	vb := array.NewBooleanData(v)
	defer vb.Release()
	bitmap := d.Buffers()[0]
	own := memory.NewResizableBuffer(mem)
	defer own.Release()
	own.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := own.Bytes()
	nulls := 0
	for k := 0; k < n; k++ {
		ok := vb.IsValid(k) && vb.Value(k) && (bitmap == nil || bitutil.BitIsSet(bitmap.Bytes(), k))
		bitutil.SetBitTo(bits, k, ok)
		if !ok {
			nulls++
		}
	}
	bufs := slices.Clone(d.Buffers())
	bufs[0] = own
	return array.NewData(d.DataType(), n, bufs, d.Children(), nulls, 0), nil
}

// dictColumn encodes a string column of categories (or "", no value) as
// a dictionary of the categories in order; "" and invalid values are
// null.
func dictColumn(col arrow.Array, valid *memory.Buffer, m *FieldMeta, mem memory.Allocator) (arrow.Array, error) {
	strs, ok := col.(*array.String)
	if !ok {
		return nil, fmt.Errorf("categories on %s, not a string", col.DataType())
	}
	index := make(map[string]int32, len(m.Categories))
	for i, c := range m.Categories {
		index[c] = int32(i)
	}
	ib := array.NewInt32Builder(mem)
	defer ib.Release()
	ib.Reserve(strs.Len())
	for k := 0; k < strs.Len(); k++ {
		v := strs.Value(k)
		i, known := index[v]
		if strs.IsNull(k) || v == "" && !known || valid != nil && !bitutil.BitIsSet(valid.Bytes(), k) {
			ib.AppendNull()
			continue
		}
		if !known {
			return nil, fmt.Errorf("row %d: %q is not one of the categories", k, v)
		}
		ib.Append(i)
	}
	idx := ib.NewArray()
	defer idx.Release()
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	sb.AppendValues(m.Categories, nil)
	dict := sb.NewArray()
	defer dict.Release()
	typ := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String, Ordered: m.Ordered}
	return array.NewDictionaryArray(typ, idx, dict), nil
}

// membersMeta is the field metadata of a table of the arrays heads (see
// tableHead): each plain array's metadata under its member name.
func membersMeta(heads []partHead) map[string]*FieldMeta {
	var out map[string]*FieldMeta
	for _, h := range heads {
		if m := h.meta[""]; m != nil {
			if out == nil {
				out = map[string]*FieldMeta{}
			}
			out[h.member] = m
		}
	}
	return out
}

// parquetMeta is o with the schema's field metadata applied: categorical
// columns dictionary-encoded, zoned datetimes stored as UTC instants,
// validity fields written as the nulls of their columns (Options.Nulls).
// column names a plain array's one column.
func (s *Schema) parquetMeta(o *parquetio.Options, column string) *parquetio.Options {
	if len(s.Meta) == 0 {
		return o
	}
	out := *o
	out.Dictionary = slices.Clone(o.Dictionary)
	out.UTC = slices.Clone(o.UTC)
	for name, m := range s.Meta {
		if m == nil {
			continue
		}
		if name == "" {
			name = column
		}
		if m.Categories != nil && !slices.Contains(out.Dictionary, name) {
			out.Dictionary = append(out.Dictionary, name)
		}
		if m.TimeZone != "" {
			out.UTC = append(out.UTC, name)
		}
		if m.ValidityOf != "" {
			if s.subarrayField(name) {
				continue // element nulls of a list: parquetio writes the field as it is
			}
			if out.Nulls == nil {
				out.Nulls = maps.Clone(o.Nulls)
				if out.Nulls == nil {
					out.Nulls = map[string]string{}
				}
			}
			out.Nulls[m.ValidityOf] = name
		}
	}
	slices.Sort(out.Dictionary[len(o.Dictionary):])
	slices.Sort(out.UTC)
	return &out
}

// subarrayField reports whether the schema's field name has a subarray
// shape (a list column).
func (s *Schema) subarrayField(name string) bool {
	for _, f := range s.DType.Fields {
		if f.Name == name {
			return len(f.Shape) > 0
		}
	}
	return false
}

// warnLostZones warns, once per array or table column, of the datetimes
// in a time zone that a numpy sink writes as datetime64 of their UTC
// instants: numpy has no zones, so the zone is lost (Arrow and Parquet
// keep it). parts are the parts reaching the sink; each part's own
// metadata (its raw schema) names the zone.
func warnLostZones(warn func(string), sink string, parts []*Part) {
	seen := map[string]bool{}
	for _, p := range parts {
		if p.raw == nil {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(p.raw.Meta)) {
			m := p.raw.Meta[name]
			if m == nil || m.TimeZone == "" {
				continue
			}
			what := p.Member
			if name != "" {
				what += "." + name
			}
			msg := fmt.Sprintf("%s: %s: datetime in time zone %s written to %s as datetime64 of its UTC instants; numpy has no time zones, so %s is lost (Arrow and Parquet keep it)",
				storage.Redact(p.Path), what, m.TimeZone, sink, m.TimeZone)
			if !seen[msg] {
				seen[msg] = true
				warn(msg)
			}
		}
	}
}
