package arrowconv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/npyio"
)

// mapRecord maps and encodes one record (scanning first when needed).
func mapRecord(t *testing.T, rec arrow.RecordBatch, opts *MapOptions) (*Mapping, []byte, error) {
	t.Helper()
	m, err := MapSchema(rec.Schema(), opts)
	if err != nil {
		return nil, nil, err
	}
	if m.NeedsScan() {
		if err := m.Scan(rec); err != nil {
			return m, nil, err
		}
	}
	out, err := m.Encode(rec, nil)
	return m, out, err
}

func fieldBytes(t *testing.T, m *Mapping, out []byte, row int, name string) []byte {
	t.Helper()
	dt, err := m.DType()
	if err != nil {
		t.Fatal(err)
	}
	if dt.Kind != npyio.Struct {
		return out[row*dt.Size:][:dt.Size]
	}
	for _, f := range dt.Fields {
		if f.Name == name {
			return out[row*dt.Size+f.Offset:][:f.Size()]
		}
	}
	t.Fatalf("no field %q in %s", name, dt)
	return nil
}

func TestMappingNullsAndOptions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{1, 0, 3}, []bool{true, false, true})
	b.Field(1).(*array.Float64Builder).AppendValues([]float64{1.5, 0, 2.5}, []bool{true, false, true})
	rec := b.NewRecordBatch()
	defer rec.Release()

	_, _, err := mapRecord(t, rec, nil)
	var ne *NullError
	if !errors.As(err, &ne) || ne.Column != "i" || ne.Nulls != 1 || ne.Row != 1 {
		t.Fatalf("want a NullError for i with 1 null at row 1, got %v", err)
	}
	if !strings.Contains(err.Error(), "i_valid") {
		t.Errorf("error does not name the validity field: %v", err)
	}

	m, out, err := mapRecord(t, rec, &MapOptions{Fill: map[string]any{"i": -1}})
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{1, -1, 3}
	for r, w := range want {
		if got := int32(binary.LittleEndian.Uint32(fieldBytes(t, m, out, r, "i"))); got != w {
			t.Errorf("row %d: i = %d, want %d", r, got, w)
		}
	}
	if f := math.Float64frombits(binary.LittleEndian.Uint64(fieldBytes(t, m, out, 1, "f"))); !math.IsNaN(f) {
		t.Errorf("null float is %v, want NaN", f)
	}

	m, out, err = mapRecord(t, rec, &MapOptions{ValidityFields: true})
	if err != nil {
		t.Fatal(err)
	}
	dt, _ := m.DType()
	if got := dt.String(); !strings.Contains(got, "i_valid") || !strings.Contains(got, "f_valid") {
		t.Fatalf("dtype %s lacks validity fields", got)
	}
	for r, w := range []byte{1, 0, 1} {
		if got := fieldBytes(t, m, out, r, "i_valid")[0]; got != w {
			t.Errorf("row %d: i_valid = %d, want %d", r, got, w)
		}
	}
	if got := binary.LittleEndian.Uint32(fieldBytes(t, m, out, 1, "i")); got != 0 {
		t.Errorf("null int with a validity field is %d, want 0", got)
	}
}

func TestMappingDecimalRounding(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	typ := &arrow.Decimal128Type{Precision: 38, Scale: 2}
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: typ}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	big1, _ := decimal128.FromString("12345678901234567890123456.78", 38, 2)
	vals := []decimal128.Num{decimal128.FromI64(33), decimal128.FromI64(-1), big1}
	b.Field(0).(*array.Decimal128Builder).AppendValues(vals, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	_, out, err := mapRecord(t, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.33, -0.01, 12345678901234567890123456.78}
	for i, w := range want {
		if got := math.Float64frombits(binary.LittleEndian.Uint64(out[8*i:])); got != w {
			t.Errorf("value %d: %v, want %v", i, got, w)
		}
	}
	_, err = MapSchema(schema, &MapOptions{Decimal: DecimalScaledInt64})
	var ue *UnsupportedError
	if !errors.As(err, &ue) || ue.Column != "d" {
		t.Errorf("precision 38 as scaled int64: want an UnsupportedError naming d, got %v", err)
	}
}

func TestMappingStringsDictListsRefusals(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "d", Type: dictType},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int16)},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"a", "héllo"}, nil)
	db := b.Field(1).(*array.BinaryDictionaryBuilder)
	db.AppendString("xyz")
	db.AppendString("q")
	lb := b.Field(2).(*array.ListBuilder)
	vb := lb.ValueBuilder().(*array.Int16Builder)
	lb.Append(true)
	vb.AppendValues([]int16{1, 2, 3}, nil)
	lb.Append(true)
	vb.AppendValues([]int16{4, 5, 6}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	m, out, err := mapRecord(t, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	dt, _ := m.DType()
	if got, want := dt.String(), "[('s', '<U5'), ('d', '<U3'), ('l', '<i2', (3,))]"; got != want {
		t.Fatalf("dtype %s, want %s", got, want)
	}
	if got := fieldBytes(t, m, out, 1, "l"); binary.LittleEndian.Uint16(got[4:]) != 6 {
		t.Errorf("row 1 l[2] = %d, want 6", binary.LittleEndian.Uint16(got[4:]))
	}
	if got := fieldBytes(t, m, out, 0, "d"); got[0] != 'x' || got[8] != 'z' {
		t.Errorf("row 0 d = %q", got)
	}
	// Varying list lengths.
	lb.Append(true)
	vb.AppendValues([]int16{1}, nil)
	lb.Append(true)
	vb.AppendValues([]int16{1, 2}, nil)
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
	db.AppendString("q")
	db.AppendString("q")
	rec2 := b.NewRecordBatch()
	defer rec2.Release()
	_, _, err = mapRecord(t, rec2, nil)
	var ve *ValueError
	if !errors.As(err, &ve) || ve.Field != "l" || ve.Row != 1 || !strings.Contains(err.Error(), "--columns") {
		t.Errorf("varying lists: want a ValueError for l at row 1, got %v", err)
	}
	// Maps are refused by name.
	_, err = MapSchema(arrow.NewSchema([]arrow.Field{{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int8)}}, nil), nil)
	var ue *UnsupportedError
	if !errors.As(err, &ue) || ue.Column != "m" {
		t.Errorf("map: want an UnsupportedError naming m, got %v", err)
	}
}

func TestMappingNeedsScan(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	m, err := MapSchema(schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !m.NeedsScan() {
		t.Fatal("a string column without a width needs a scan")
	}
	if _, err := m.DType(); err == nil || !strings.Contains(err.Error(), "Scan") {
		t.Errorf("DType before a scan: %v", err)
	}
	m, err = MapSchema(schema, &MapOptions{StringWidths: map[string]int{"s": 4}})
	if err != nil || m.NeedsScan() {
		t.Fatalf("with a width: %v, needs scan %v", err, m.NeedsScan())
	}
	if dt, err := m.DType(); err != nil || dt.TypeStr() != "<U4" {
		t.Errorf("dtype %v, %v", dt, err)
	}
}

func TestDescribeSchema(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "t", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int8)},
		{Name: "l", Type: arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Int16)},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	got := DescribeSchema(schema, &MapOptions{Fill: map[string]any{"i": 0}})
	want := []struct{ dtype, nulls string }{{"<f8", "NaN"}, {"<M8[us]", "NaT"}, {"", "refused"}, {"", ""}, {"<i2 (3,)", "refused"}, {"<i4", "fill"}}
	for i, w := range want {
		if got[i].DType != w.dtype || got[i].NullPolicy != w.nulls {
			t.Errorf("%s: dtype %q nulls %q, want %q %q", got[i].Name, got[i].DType, got[i].NullPolicy, w.dtype, w.nulls)
		}
	}
	if !got[2].NeedsScan || got[3].Refused == nil || !strings.Contains(got[3].Refused.Error(), `"m"`) {
		t.Errorf("s needs scan %v; m refused %v", got[2].NeedsScan, got[3].Refused)
	}
	if got[0].ArrowType != "decimal(10, 2)" {
		t.Errorf("arrow type %q", got[0].ArrowType)
	}
}

// TestRowEncoderFallback: the older entry points (NewRowEncoder, DTypeFor,
// WriteNPY) convert foreign types through the Mapping.
func TestRowEncoderFallback(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.PrimitiveTypes.Int16}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}},
		{Name: "c", Type: dictType},
		{Name: "t", Type: arrow.FixedWidthTypes.Time64us},
	}, nil)
	dt, _, err := DTypeFor(schema)
	if err != nil || dt.String() != "[('d', '<f8'), ('c', '<i2'), ('t', '<m8[us]')]" {
		t.Fatalf("DTypeFor: %v, %v", dt, err)
	}
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.Decimal128Builder).Append(decimal128.FromI64(33))
	if err := b.Field(1).(*array.Int16DictionaryBuilder).Append(-7); err != nil {
		t.Fatal(err)
	}
	b.Field(2).(*array.Time64Builder).Append(5)
	rec := b.NewRecordBatch()
	defer rec.Release()
	enc, err := NewRowEncoder(schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := enc.Encode(rec, nil)
	if err != nil || len(out) != 18 || enc.Rows() != 1 {
		t.Fatalf("%d bytes, %d rows, %v", len(out), enc.Rows(), err)
	}
	if f := math.Float64frombits(binary.LittleEndian.Uint64(out)); f != 0.33 {
		t.Errorf("d = %v", f)
	}
	if c := int16(binary.LittleEndian.Uint16(out[8:])); c != -7 {
		t.Errorf("c = %d", c)
	}
	if v := binary.LittleEndian.Uint64(out[10:]); v != 5 {
		t.Errorf("t = %d", v)
	}
}

// TestDecimalFloatCorrectlyRounded compares decimalFloat with
// strconv.ParseFloat (correctly rounded) on random 32..256-bit unscaled
// values and scales, including the fast path's edges.
func TestDecimalFloatCorrectlyRounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 16))
	for k := 0; k < 20000; k++ {
		width := []int{4, 8, 16, 32}[k%4]
		b := make([]byte, width)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		// Many values near 2^53 and small ones too.
		switch rng.IntN(4) {
		case 0:
			for i := 7; i < width; i++ {
				b[i] = 0
			}
			if rng.IntN(2) == 0 {
				for i := 7; i < width; i++ {
					b[i] = 0xff
				}
			}
		case 1:
			if width < 8 {
				break
			}
			binary.LittleEndian.PutUint64(b, uint64(1<<53+rng.Int64N(5)-2))
			for i := 8; i < width; i++ {
				b[i] = 0
			}
		}
		scale := int32(rng.IntN(80) - 10)
		x := decimalBig(b)
		s := x.String()
		neg := strings.HasPrefix(s, "-")
		s = strings.TrimPrefix(s, "-")
		if scale > 0 {
			for len(s) <= int(scale) {
				s = "0" + s
			}
			s = s[:len(s)-int(scale)] + "." + s[len(s)-int(scale):]
		} else if scale < 0 {
			s += strings.Repeat("0", int(-scale))
		}
		if neg {
			s = "-" + s
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			t.Fatal(err)
		}
		if got := decimalFloat(b, scale); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s (width %d, scale %d): %v, want %v", s, width, scale, got, want)
		}
	}
}

// TestMappingNestedNulls: nulls inside a null struct row do not count; a
// null int in a valid struct row is refused by its path; a validity field
// on the struct column records null rows; null lists and dictionary nulls
// take the fill value.
func TestMappingNestedNulls(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true})
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "st", Type: st, Nullable: true},
		{Name: "l", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int8), Nullable: true},
		{Name: "d", Type: dictType, Nullable: true},
	}, nil)
	build := func(childNullInValidRow bool) arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, schema)
		defer b.Release()
		sb := b.Field(0).(*array.StructBuilder)
		ab := sb.FieldBuilder(0).(*array.Int32Builder)
		sb.Append(true)
		ab.Append(1)
		sb.AppendNull() // its child is null too
		sb.Append(true)
		if childNullInValidRow {
			ab.AppendNull()
		} else {
			ab.Append(3)
		}
		lb := b.Field(1).(*array.FixedSizeListBuilder)
		vb := lb.ValueBuilder().(*array.Int8Builder)
		lb.Append(true)
		vb.AppendValues([]int8{1, 2}, nil)
		lb.AppendNull()
		lb.Append(true)
		vb.AppendValues([]int8{5, 6}, nil)
		db := b.Field(2).(*array.BinaryDictionaryBuilder)
		db.AppendString("x")
		db.AppendString("yy")
		db.AppendNull()
		return b.NewRecordBatch()
	}
	rec := build(false)
	defer rec.Release()
	_, _, err := mapRecord(t, rec, nil)
	var ne *NullError
	if !errors.As(err, &ne) || ne.Column != "st" || ne.Nulls != 1 || ne.Row != 1 {
		t.Fatalf("null struct row: want a NullError for st, got %v", err)
	}
	opts := &MapOptions{Validity: []string{"st", "l"}, Fill: map[string]any{"d": "?"}}
	m, out, err := mapRecord(t, rec, opts)
	if err != nil {
		t.Fatal(err)
	}
	dt, _ := m.DType()
	if got := dt.String(); got != "[('st', [('a', '<i4'), ('a_valid', '|b1')]), ('st_valid', '|b1'), ('l', '|i1', (2,)), ('l_valid', '|b1'), ('l_items_valid', '|b1', (2,)), ('d', '<U2')]" {
		t.Fatalf("dtype %s", got)
	}
	for r, want := range []struct {
		a    int32
		stOK byte
		l    [2]int8
		lOK  byte
		d    string
	}{{1, 1, [2]int8{1, 2}, 1, "x"}, {0, 0, [2]int8{0, 0}, 0, "yy"}, {3, 1, [2]int8{5, 6}, 1, "?"}} {
		if a := int32(binary.LittleEndian.Uint32(fieldBytes(t, m, out, r, "st"))); a != want.a {
			t.Errorf("row %d st.a = %d, want %d", r, a, want.a)
		}
		if v := fieldBytes(t, m, out, r, "st_valid")[0]; v != want.stOK {
			t.Errorf("row %d st_valid = %d", r, v)
		}
		if l := fieldBytes(t, m, out, r, "l"); int8(l[0]) != want.l[0] || int8(l[1]) != want.l[1] {
			t.Errorf("row %d l = %v, want %v", r, l, want.l)
		}
		if v := fieldBytes(t, m, out, r, "l_valid")[0]; v != want.lOK {
			t.Errorf("row %d l_valid = %d", r, v)
		}
		if v := fieldBytes(t, m, out, r, "l_items_valid"); v[0] != want.lOK || v[1] != want.lOK {
			t.Errorf("row %d l_items_valid = %v", r, v)
		}
		d := fieldBytes(t, m, out, r, "d")
		var got []rune
		for i := 0; i+4 <= len(d); i += 4 {
			if c := rune(binary.LittleEndian.Uint32(d[i:])); c != 0 {
				got = append(got, c)
			}
		}
		if string(got) != want.d {
			t.Errorf("row %d d = %q, want %q", r, string(got), want.d)
		}
	}
	rec2 := build(true)
	defer rec2.Release()
	_, _, err = mapRecord(t, rec2, &MapOptions{Validity: []string{"l"}, Fill: map[string]any{"d": "?"}})
	if !errors.As(err, &ne) || ne.Column != "st.a" || ne.Nulls != 1 || ne.Row != 2 {
		t.Errorf("null child in a valid struct row: want a NullError for st.a at row 2, got %v", err)
	}
	// The struct's validity field brings one for its nullable field a:
	// false in the null struct row and where a is null.
	m, out, err = mapRecord(t, rec2, opts)
	if err != nil {
		t.Fatal(err)
	}
	for r, want := range []byte{1, 0, 0} {
		st := fieldBytes(t, m, out, r, "st")
		if st[4] != want {
			t.Errorf("row %d st.a_valid = %d, want %d", r, st[4], want)
		}
		if r > 0 && binary.LittleEndian.Uint32(st) != 0 {
			t.Errorf("row %d: st.a %d where null, want 0", r, binary.LittleEndian.Uint32(st))
		}
	}
}

// TestMappingListLayouts: list views out of order and lists whose null
// entries break contiguity go through the gather path.
func TestMappingListLayouts(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	vb := array.NewInt16Builder(mem)
	vb.AppendValues([]int16{1, 2, 3, 4}, nil)
	vals := vb.NewArray()
	vb.Release()
	defer vals.Release()
	i32 := func(xs ...int32) *memory.Buffer {
		b := make([]byte, 4*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
		}
		return memory.NewBufferBytes(b)
	}
	lvType := arrow.ListViewOf(arrow.PrimitiveTypes.Int16)
	lvData := array.NewData(lvType, 2, []*memory.Buffer{nil, i32(2, 0), i32(2, 2)}, []arrow.ArrayData{vals.Data()}, 0, 0)
	lv := array.MakeFromData(lvData)
	lvData.Release()
	defer lv.Release()
	// [[1, 2], null, [3, 4]]: offsets 0, 2, 2, 4.
	valid := memory.NewBufferBytes([]byte{0b101})
	lType := arrow.ListOf(arrow.PrimitiveTypes.Int16)
	lData := array.NewData(lType, 3, []*memory.Buffer{valid, i32(0, 2, 2, 4)}, []arrow.ArrayData{vals.Data()}, 1, 0)
	l := array.MakeFromData(lData)
	lData.Release()
	defer l.Release()

	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "lv", Type: lvType}}, nil), []arrow.Array{lv}, 2)
	defer rec.Release()
	m, out, err := mapRecord(t, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if dt, _ := m.DType(); dt.TypeStr() != "<i2" || fmt.Sprint(m.RowShape()) != "[2]" {
		t.Fatalf("dtype %s shape %v", dt, m.RowShape())
	}
	want := []int16{3, 4, 1, 2}
	for i, w := range want {
		if got := int16(binary.LittleEndian.Uint16(out[2*i:])); got != w {
			t.Errorf("list view value %d = %d, want %d", i, got, w)
		}
	}

	rec2 := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "l", Type: lType, Nullable: true}}, nil), []arrow.Array{l}, 3)
	defer rec2.Release()
	_, _, err = mapRecord(t, rec2, nil)
	var ne *NullError
	if !errors.As(err, &ne) || ne.Column != "l" || ne.Row != 1 {
		t.Fatalf("null list: want a NullError for l at row 1, got %v", err)
	}
	m, out, err = mapRecord(t, rec2, &MapOptions{ValidityFields: true})
	if err != nil {
		t.Fatal(err)
	}
	if dt, _ := m.DType(); dt.String() != "[('l', '<i2', (2,)), ('l_valid', '|b1'), ('l_items_valid', '|b1', (2,))]" {
		t.Fatalf("dtype %s", dt)
	}
	wantRows := [][3]int{{1, 2, 1}, {0, 0, 0}, {3, 4, 1}}
	for r, w := range wantRows {
		b := out[7*r:]
		if int(int16(binary.LittleEndian.Uint16(b))) != w[0] || int(int16(binary.LittleEndian.Uint16(b[2:]))) != w[1] || int(b[4]) != w[2] || int(b[5]) != w[2] || int(b[6]) != w[2] {
			t.Errorf("row %d: % x, want %v", r, b[:7], w)
		}
	}
}

func TestMappingScaledDecimalNames(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	st := arrow.StructOf(arrow.Field{Name: "price", Type: &arrow.Decimal64Type{Precision: 10, Scale: 2}})
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: st}, {Name: "q", Type: &arrow.Decimal128Type{Precision: 18, Scale: -3}}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	sb := b.Field(0).(*array.StructBuilder)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.Decimal64Builder).Append(-12345)
	b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(7))
	rec := b.NewRecordBatch()
	defer rec.Release()
	m, out, err := mapRecord(t, rec, &MapOptions{Decimal: DecimalScaledInt64})
	if err != nil {
		t.Fatal(err)
	}
	if dt, _ := m.DType(); dt.String() != "[('s', [('price_x1e2', '<i8')]), ('q_x1e-3', '<i8')]" {
		t.Fatalf("dtype %s", dt)
	}
	if a, q := int64(binary.LittleEndian.Uint64(out)), int64(binary.LittleEndian.Uint64(out[8:])); a != -12345 || q != 7 {
		t.Errorf("values %d %d", a, q)
	}
}

func TestDecimalFloatExtremeScales(t *testing.T) {
	one := make([]byte, 32)
	one[0] = 1
	minus := make([]byte, 32)
	for i := range minus {
		minus[i] = 0xff
	}
	for _, c := range []struct {
		b     []byte
		scale int32
		want  float64
	}{
		{one, 1 << 30, 0}, {minus, 1 << 30, math.Copysign(0, -1)}, {one, -(1 << 30), math.Inf(1)}, {minus, -(1 << 30), math.Inf(-1)},
		{one, 324, 1e-324}, {one, 323, 1e-323}, {one, -308, 1e308}, {one, -309, math.Inf(1)},
	} {
		if got := decimalFloat(c.b, c.scale); math.Float64bits(got) != math.Float64bits(c.want) {
			t.Errorf("scale %d: %v, want %v", c.scale, got, c.want)
		}
	}
}

func TestFeatherV1Refused(t *testing.T) {
	data := append([]byte("FEA1"), make([]byte, 60)...)
	copy(data[len(data)-4:], "FEA1")
	for _, r := range []io.Reader{bytes.NewReader(data), io.MultiReader(bytes.NewReader(data))} {
		_, err := NewIPCReader(r, nil)
		var ue *UnsupportedError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "Feather v2") {
			t.Errorf("Feather v1: %v", err)
		}
	}
}

// failWriter fails once more than limit bytes were written.
type failWriter struct {
	n, limit int
}

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n+len(p) > w.limit {
		return 0, errors.New("disk full")
	}
	w.n += len(p)
	return len(p), nil
}

func (w *failWriter) Seek(off int64, whence int) (int64, error) { return 0, nil }

// TestWriteMappedNPYErrors: an encoding error in a later batch and a
// failing writer end WriteMappedNPY with that error (no deadlock, no
// leak), whatever the pipeline stage.
func TestWriteMappedNPYErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	var recs []arrow.RecordBatch
	for k := 0; k < 6; k++ {
		b := array.NewRecordBuilder(mem, schema)
		ib := b.Field(0).(*array.Int64Builder)
		for i := 0; i < 100000; i++ {
			if k == 4 && i == 7 {
				ib.AppendNull()
			} else {
				ib.Append(int64(i))
			}
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	run := func(w io.WriteSeeker) (int64, error) {
		rr, err := array.NewRecordReader(schema, recs)
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Release()
		m, err := MapSchema(schema, nil)
		if err != nil {
			t.Fatal(err)
		}
		return WriteMappedNPY(w, rr, m)
	}
	n, err := run(&failWriter{limit: 1 << 40})
	var ne *NullError
	if !errors.As(err, &ne) || ne.Row != 400007 || ne.Column != "i" {
		t.Errorf("null in batch 4: %d rows, %v", n, err)
	}
	if _, err := run(&failWriter{limit: 1 << 20}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("failing writer: %v", err)
	}
}

// TestMappingTimeNaT checks the NaT scan of timestamp columns: a stored
// NaT is refused with its row unless the value is null (null slots may
// hold any bytes, NaT included), past any number of null NaTs, at a slice
// offset and in a later row range.
func TestMappingTimeNaT(t *testing.T) {
	const n = 2000
	typ := &arrow.TimestampType{Unit: arrow.Microsecond}
	// column builds a timestamp array over vals, null where null[i], and
	// returns it sliced from off.
	column := func(vals []int64, null map[int]bool, off int) arrow.Array {
		bits := make([]byte, (n+7)/8)
		for i := range n {
			if !null[i] {
				bits[i/8] |= 1 << (i % 8)
			}
		}
		data := make([]byte, 8*n)
		for i, v := range vals {
			binary.LittleEndian.PutUint64(data[8*i:], uint64(v))
		}
		d := array.NewData(typ, n, []*memory.Buffer{memory.NewBufferBytes(bits), memory.NewBufferBytes(data)}, nil, len(null), 0)
		defer d.Release()
		a := array.MakeFromData(d)
		defer a.Release()
		return array.NewSlice(a, int64(off), n)
	}
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = int64(i)*1_000_003 - 77
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "t", Type: typ, Nullable: true}}, nil)
	encode := func(col arrow.Array, from int) ([]int64, error) {
		defer col.Release()
		rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
		defer rec.Release()
		m, err := MapSchema(schema, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.cols[0].kind != mTime64 {
			t.Fatalf("kind %d, want mTime64", m.cols[0].kind)
		}
		// Rows before from are encoded first, so rows count from 0.
		out, err := m.EncodeRows(rec, 0, from, nil)
		if err != nil {
			return nil, err
		}
		if out, err = m.EncodeRows(rec, from, col.Len(), out); err != nil {
			return nil, err
		}
		got := make([]int64, len(out)/8)
		for i := range got {
			got[i] = int64(binary.LittleEndian.Uint64(out[8*i:]))
		}
		return got, nil
	}
	withNaT := func(idx ...int) []int64 {
		v := append([]int64(nil), vals...)
		for _, i := range idx {
			v[i] = math.MinInt64
		}
		return v
	}
	const off = 3
	// NaT stored in null slots only: converts, the nulls as NaT.
	nulls := map[int]bool{5: true, 6: true, 100: true, 1500: true}
	got, err := encode(column(withNaT(5, 6, 100, 1500), nulls, off), 400)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		want := vals[off+i]
		if nulls[off+i] {
			want = math.MinInt64
		}
		if v != want {
			t.Fatalf("row %d: %d, want %d", i, v, want)
		}
	}
	// A non-null NaT after null ones is refused, naming its row.
	for _, bad := range []int{7, 101, 1999} {
		_, err := encode(column(withNaT(5, 6, 100, bad), nulls, off), 400)
		var ve *ValueError
		if !errors.As(err, &ve) || ve.Row != int64(bad-off) || ve.Field != "t" || !errors.Is(err, ErrRange) {
			t.Fatalf("NaT in row %d: %v", bad-off, err)
		}
	}
}

// TestMappingItemsValidityDict: a fixed_size_list of dictionary-encoded
// strings, one element a null index and one an index of a null
// dictionary value, and a list sliced at an offset: the element validity
// field is false for both nulls (each zeros in the list) and true
// elsewhere; the same rows from a slice of the record give the same
// bytes.
func TestMappingItemsValidityDict(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dict, _, err := array.FromJSON(mem, arrow.BinaryTypes.String, strings.NewReader(`["a", null, "cc"]`))
	if err != nil {
		t.Fatal(err)
	}
	defer dict.Release()
	idx, _, err := array.FromJSON(mem, arrow.PrimitiveTypes.Int8, strings.NewReader(`[0, 2, 1, 2, null, 0, 2, 2]`))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Release()
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	da := array.NewDictionaryArray(dt, idx, dict)
	defer da.Release()
	lt := arrow.FixedSizeListOf(2, dt)
	ld := array.NewData(lt, 4, []*memory.Buffer{nil}, []arrow.ArrayData{da.Data()}, 0, 0)
	defer ld.Release()
	l := array.NewFixedSizeListData(ld)
	defer l.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "l", Type: lt}}, nil), []arrow.Array{l}, 4)
	defer rec.Release()
	if _, _, err := mapRecord(t, rec, nil); err == nil {
		t.Fatal("null elements without a validity field: no error")
	}
	m, out, err := mapRecord(t, rec, &MapOptions{ValidityFields: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := m.DType(); got.String() != "[('l', '<U2', (2,)), ('l_items_valid', '|b1', (2,))]" {
		t.Fatalf("dtype %s", got)
	}
	want := [][2]string{{"a", "cc"}, {"", "cc"}, {"", "a"}, {"cc", "cc"}}
	for r, w := range want {
		items := fieldBytes(t, m, out, r, "l_items_valid")
		vals := fieldBytes(t, m, out, r, "l")
		for j := 0; j < 2; j++ {
			var s []rune
			for q := 0; q < 8; q += 4 {
				if c := binary.LittleEndian.Uint32(vals[8*j+q:]); c != 0 {
					s = append(s, rune(c))
				}
			}
			if string(s) != w[j] || items[j] != b2u(w[j] != "") {
				t.Errorf("row %d item %d: %q valid %d, want %q", r, j, string(s), items[j], w[j])
			}
		}
	}
	// Rows 1-3 of a slice: the same bytes.
	sl := rec.NewSlice(1, 4)
	defer sl.Release()
	m2, out2, err := mapRecord(t, sl, &MapOptions{ValidityFields: true})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out2, out[m2.rowSize:]) {
		t.Errorf("slice: % x, want % x", out2, out[m2.rowSize:])
	}
}

// TestEncodeRowsRangesFixed encodes fixed-width columns without nulls
// (int8, int64, uint16, float32, fixed_size_binary(3), bool), from a
// record that is itself a slice (offset 5), in ranges of several sizes:
// every range must give the bytes of those rows in the whole record's
// encoding, and the rows must hold the values.
func TestEncodeRowsRangesFixed(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const n = 300
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int8},
		{Name: "b", Type: arrow.PrimitiveTypes.Int64},
		{Name: "c", Type: arrow.PrimitiveTypes.Uint16},
		{Name: "d", Type: arrow.PrimitiveTypes.Float32},
		{Name: "e", Type: &arrow.FixedSizeBinaryType{ByteWidth: 3}},
		{Name: "f", Type: arrow.FixedWidthTypes.Boolean},
	}, nil)
	bld := array.NewRecordBuilder(mem, schema)
	defer bld.Release()
	for i := range n + 5 {
		bld.Field(0).(*array.Int8Builder).Append(int8(i))
		bld.Field(1).(*array.Int64Builder).Append(int64(i) * 1e12)
		bld.Field(2).(*array.Uint16Builder).Append(uint16(i * 201))
		bld.Field(3).(*array.Float32Builder).Append(float32(i) / 4)
		bld.Field(4).(*array.FixedSizeBinaryBuilder).Append([]byte{byte(i), byte(i >> 8), 7})
		bld.Field(5).(*array.BooleanBuilder).Append(i%3 == 1)
	}
	full := bld.NewRecordBatch()
	defer full.Release()
	rec := full.NewSlice(5, n+5)
	defer rec.Release()
	m, err := MapSchema(schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := m.RowSize()
	if err != nil || rs != 1+8+2+4+3+1 {
		t.Fatalf("row size %d, %v", rs, err)
	}
	whole, err := m.Encode(rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	for r := range n {
		i := r + 5
		row := whole[r*rs : (r+1)*rs]
		want := binary.LittleEndian.AppendUint64([]byte{byte(int8(i))}, uint64(int64(i)*1e12))
		want = binary.LittleEndian.AppendUint16(want, uint16(i*201))
		want = binary.LittleEndian.AppendUint32(want, math.Float32bits(float32(i)/4))
		want = append(want, byte(i), byte(i>>8), 7, map[bool]byte{false: 0, true: 1}[i%3 == 1])
		if !bytes.Equal(row, want) {
			t.Fatalf("row %d = %x, want %x", r, row, want)
		}
	}
	for _, step := range []int{1, 7, 64, 299, 300} {
		var got []byte
		for s := 0; s < n; s += step {
			if got, err = m.EncodeRows(rec, s, min(n, s+step), got); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got, whole) {
			t.Errorf("ranges of %d rows differ from the whole record's rows", step)
		}
	}
}

// TestOneColumnRecordKeepsName: a column alone whose type maps to a
// numpy record (the interval types) keeps its name, a one-field
// structured array, so that it is not taken for a table of months,
// days, ... columns (issue 30); with a second column nothing changes.
func TestOneColumnRecordKeepsName(t *testing.T) {
	for _, c := range []struct {
		f    arrow.Field
		want string
	}{
		{arrow.Field{Name: "ym", Type: arrow.FixedWidthTypes.MonthInterval}, "[('ym', [('months', '<i4')])]"},
		{arrow.Field{Name: "dt", Type: arrow.FixedWidthTypes.DayTimeInterval}, "[('dt', [('days', '<i4'), ('milliseconds', '<i4')])]"},
		{arrow.Field{Name: "mdn", Type: arrow.FixedWidthTypes.MonthDayNanoInterval}, "[('mdn', [('months', '<i4'), ('days', '<i4'), ('nanoseconds', '<i8')])]"},
		{arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32}, "'<i4'"},
	} {
		m, err := MapSchema(arrow.NewSchema([]arrow.Field{c.f}, nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		dt, err := m.DType()
		if err != nil {
			t.Fatal(err)
		}
		if dt.String() != c.want {
			t.Errorf("%s: %s, want %s", c.f.Type, dt, c.want)
		}
		two, err := MapSchema(arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, c.f}, nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		dt2, _ := two.DType()
		if len(dt2.Fields) != 2 || dt2.Fields[1].Name != c.f.Name {
			t.Errorf("%s beside k: %s", c.f.Type, dt2)
		}
	}
}
