package arrowconv

import (
	"encoding/binary"
	"errors"
	"math"
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
