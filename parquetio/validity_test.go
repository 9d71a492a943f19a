package parquetio

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/npyflow/npyflow/npyio"
)

// jsonValue decodes a value DuckDB wrote as JSON (to_json), numbers kept
// as their text; nil for SQL NULL.
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		return nil
	}
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return out
}

// checkShown compares one element b of dt (validity fields included)
// with the producer's value v (nil: null): a field f followed by f_valid
// must have f_valid false exactly where the producer reads a null, and
// its null slots hold NaN (floats) or zeros (fill: the fill's bytes).
func checkShown(dt *npyio.DType, shape []int, b []byte, v any, fill []byte) error {
	if len(shape) > 0 {
		items, _ := v.([]any)
		if v != nil && len(items) != shape[0] {
			return fmt.Errorf("%d items for shape %v", len(items), shape)
		}
		for k := 0; k < shape[0]; k++ {
			var it any
			if v != nil {
				it = items[k]
			}
			if err := checkShown(dt, nil, b[k*dt.Size:(k+1)*dt.Size], it, fill); err != nil {
				return fmt.Errorf("item %d: %w", k, err)
			}
		}
		return nil
	}
	if dt.Kind == npyio.Struct {
		m, _ := v.(map[string]any)
		for k, f := range dt.Fields {
			if k > 0 && f.Name == dt.Fields[k-1].Name+"_valid" {
				continue
			}
			if k > 0 && (f.Name == dt.Fields[k-1].Name+"_items_valid" || k > 1 && f.Name == dt.Fields[k-2].Name+"_items_valid") {
				continue
			}
			var sub any
			if m != nil {
				sub = m[f.Name]
			}
			fb := b[f.Offset : f.Offset+f.Type.Size*prod(f.Shape)]
			if k+1 < len(dt.Fields) && dt.Fields[k+1].Name == f.Name+"_valid" {
				want := byte(0)
				if sub != nil {
					want = 1
				}
				if got := b[dt.Fields[k+1].Offset]; got != want {
					return fmt.Errorf("%s_valid %d, want %d (producer: %v)", f.Name, got, want, sub)
				}
			}
			// The element validity field of a list: false where the
			// element or the list is null.
			for _, j := range []int{k + 1, k + 2} {
				if j < len(dt.Fields) && dt.Fields[j].Name == f.Name+"_items_valid" {
					items, _ := sub.([]any)
					for e := 0; e < f.Shape[0]; e++ {
						want := byte(0)
						if items != nil && items[e] != nil {
							want = 1
						}
						if got := b[dt.Fields[j].Offset+e]; got != want {
							return fmt.Errorf("%s_items_valid[%d] %d, want %d (producer: %v)", f.Name, e, got, want, sub)
						}
					}
				}
			}
			if err := checkShown(f.Type, f.Shape, fb, sub, nil); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
		return nil
	}
	if v == nil {
		switch {
		case fill != nil:
			if !bytes.Equal(b, fill) {
				return fmt.Errorf("null as % x, want the fill % x", b, fill)
			}
		case dt.Kind == npyio.Float:
			if !math.IsNaN(math.Float64frombits(le(b))) {
				return fmt.Errorf("null as % x, want NaN", b)
			}
		default:
			if !bytes.Equal(b, make([]byte, len(b))) {
				return fmt.Errorf("null as % x, want zeros", b)
			}
		}
		return nil
	}
	want := v
	switch x := v.(type) {
	case json.Number:
		want = x.String()
	case bool:
		want = fmt.Sprint(x)
	}
	pt := "BIGINT"
	if dt.Kind == npyio.Float {
		pt = "DOUBLE"
	}
	return checkForeignValue(dt, pt, b, want)
}

// TestValidityNested: DuckDB's and pqarrow's struct column whose rows, nested struct
// and fields are null (duck_struct_nulls) and its lists of one length
// (LIST and fixed-size ARRAY) with null rows (duck_list_nulls), read with
// validity fields: st_valid after the struct, x_valid after each OPTIONAL
// field x inside it (at every depth), l_valid after a list; every value
// and every validity byte is DuckDB's reading (to_json of the row), read
// as records (Next) and as columns (NextColumns).
func TestValidityNested(t *testing.T) {
	for _, tc := range []struct {
		file     string
		validity []string
		dtype    string
	}{
		{"duck_struct_nulls.parquet", []string{"st"}, "[('k', '<i8'), ('st', [('a', '<i8'), ('a_valid', '|b1'), ('b', [('x', '<f8'), ('x_valid', '|b1'), ('y', '|b1'), ('y_valid', '|b1')]), ('b_valid', '|b1'), ('s', '<U3'), ('s_valid', '|b1')]), ('st_valid', '|b1')]"},
		{"duck_struct_nulls.parquet", []string{"*"}, "[('k', '<i8'), ('k_valid', '|b1'), ('st', [('a', '<i8'), ('a_valid', '|b1'), ('b', [('x', '<f8'), ('x_valid', '|b1'), ('y', '|b1'), ('y_valid', '|b1')]), ('b_valid', '|b1'), ('s', '<U3'), ('s_valid', '|b1')]), ('st_valid', '|b1')]"},
		{"duck_list_nulls.parquet", []string{"l3", "a2"}, "[('k', '<i8'), ('l3', '<i8', (3,)), ('l3_valid', '|b1'), ('l3_items_valid', '|b1', (3,)), ('l2f', '<f8', (2,)), ('a2', '<i4', (2,)), ('a2_valid', '|b1'), ('a2_items_valid', '|b1', (2,))]"},
		{"duck_list_nulls.parquet", []string{"*"}, "[('k', '<i8'), ('k_valid', '|b1'), ('l3', '<i8', (3,)), ('l3_valid', '|b1'), ('l3_items_valid', '|b1', (3,)), ('l2f', '<f8', (2,)), ('l2f_valid', '|b1'), ('l2f_items_valid', '|b1', (2,)), ('a2', '<i4', (2,)), ('a2_valid', '|b1'), ('a2_items_valid', '|b1', (2,))]"},
		{"duck_list_item_nulls.parquet", []string{"l3", "a2s", "lb"}, "[('k', '<i8'), ('l3', '<i8', (3,)), ('l3_valid', '|b1'), ('l3_items_valid', '|b1', (3,)), ('l2f', '<f8', (2,)), ('a2s', '<U3', (2,)), ('a2s_valid', '|b1'), ('a2s_items_valid', '|b1', (2,)), ('lb', '|b1', (2,)), ('lb_valid', '|b1'), ('lb_items_valid', '|b1', (2,))]"},
		{"duck_list_item_nulls.parquet", []string{"*"}, "[('k', '<i8'), ('k_valid', '|b1'), ('l3', '<i8', (3,)), ('l3_valid', '|b1'), ('l3_items_valid', '|b1', (3,)), ('l2f', '<f8', (2,)), ('l2f_valid', '|b1'), ('l2f_items_valid', '|b1', (2,)), ('a2s', '<U3', (2,)), ('a2s_valid', '|b1'), ('a2s_items_valid', '|b1', (2,)), ('lb', '|b1', (2,)), ('lb_valid', '|b1'), ('lb_items_valid', '|b1', (2,))]"},
		{"pqa_nested_nulls.parquet", []string{"*"}, "[('k', '<i8'), ('st', [('a', '<i4'), ('a_valid', '|b1'), ('b', [('x', '<f8'), ('x_valid', '|b1'), ('y', '|b1'), ('y_valid', '|b1')]), ('b_valid', '|b1')]), ('st_valid', '|b1'), ('fsl', '<i2', (3,)), ('fsl_valid', '|b1'), ('fsl_items_valid', '|b1', (3,)), ('l2', '<f8', (2,)), ('l2_valid', '|b1'), ('l2_items_valid', '|b1', (2,))]"},
		{"pqa_nested_nulls.parquet", []string{"st", "l2"}, "[('k', '<i8'), ('st', [('a', '<i4'), ('a_valid', '|b1'), ('b', [('x', '<f8'), ('x_valid', '|b1'), ('y', '|b1'), ('y_valid', '|b1')]), ('b_valid', '|b1')]), ('st_valid', '|b1'), ('fsl', '<i2', (3,)), ('l2', '<f8', (2,)), ('l2_valid', '|b1'), ('l2_items_valid', '|b1', (2,))]"},
	} {
		for _, records := range []bool{true, false} {
			ff, rd, data := readCorpus(t, tc.file, &ReadOptions{Validity: tc.validity}, records)
			dt := rd.Header().DType
			if got := dt.String(); got != tc.dtype {
				t.Fatalf("%s %v: dtype %s, want %s", tc.file, tc.validity, got, tc.dtype)
			}
			if !records {
				// The columns of NextColumns, interleaved, are the records.
				cols := rd.Columns()
				if len(cols) != len(dt.Fields) {
					t.Fatalf("%d columns for %d fields", len(cols), len(dt.Fields))
				}
				rec := make([]byte, ff.Rows*dt.Size)
				for k, f := range dt.Fields {
					w := cols[k].RowSize()
					if len(data[k]) != ff.Rows*w {
						t.Fatalf("column %s: %d bytes", f.Name, len(data[k]))
					}
					for r := 0; r < ff.Rows; r++ {
						copy(rec[r*dt.Size+f.Offset:], data[k][r*w:(r+1)*w])
					}
				}
				data = [][]byte{rec}
			}
			nulls, checked := 0, 0
			for r := 0; r < ff.Rows; r++ {
				row := map[string]any{}
				for _, c := range ff.Columns {
					v := c.Values[r]
					if c.Type != "BIGINT" && c.PType != "BIGINT" {
						v = jsonValue(t, v) // STRUCT, LIST: JSON text
					}
					row[c.Name] = v
					if v == nil {
						nulls++
					}
				}
				if err := checkShown(dt, nil, data[0][r*dt.Size:(r+1)*dt.Size], row, nil); err != nil {
					t.Fatalf("%s %v (records %v) row %d: %v", tc.file, tc.validity, records, r, err)
				}
				checked++
			}
			if nulls == 0 || checked != ff.Rows {
				t.Fatalf("%s: %d null rows, %d rows checked", tc.file, nulls, checked)
			}
		}
	}
}

// TestListNullRows: without a validity field, the null rows of a list
// of floats are NaN values (DuckDB's l2f), a list of integers with null
// rows is refused naming it and its first null row, and with a fill value
// a null row holds the fill in every place.
func TestListNullRows(t *testing.T) {
	ff, rd, data := readCorpus(t, "duck_list_nulls.parquet", &ReadOptions{Columns: []string{"l2f", "a2"}, Fill: map[string]any{"a2": -9}}, true)
	dt := rd.Header().DType
	if got := dt.String(); got != "[('l2f', '<f8', (2,)), ('a2', '<i4', (2,))]" {
		t.Fatalf("dtype %s", got)
	}
	fill := []byte{0xf7, 0xff, 0xff, 0xff}
	for r := 0; r < ff.Rows; r++ {
		row := map[string]any{}
		for _, c := range ff.Columns {
			row[c.Name] = jsonValue(t, c.Values[r])
		}
		b := data[0][r*dt.Size : (r+1)*dt.Size]
		if err := checkShown(dt.Fields[0].Type, dt.Fields[0].Shape, b[:16], row["l2f"], nil); err != nil {
			t.Fatalf("row %d l2f: %v", r, err)
		}
		if err := checkShown(dt.Fields[1].Type, dt.Fields[1].Shape, b[16:], row["a2"], fill); err != nil {
			t.Fatalf("row %d a2: %v", r, err)
		}
	}
	b := readFile(t, "duck_list_nulls.parquet")
	rd, err := NewReaderOptions(bytes.NewReader(b), int64(len(b)), &ReadOptions{Columns: []string{"a2"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = rd.Next(100)
	if err == nil || !strings.Contains(err.Error(), "column a2 holds 12 nulls") || !strings.Contains(err.Error(), "first in row 4") {
		t.Fatalf("a2 without options: %v", err)
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "foreign", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestListNullRowsLarge: a list column whose rows are null one in three,
// over more rows than one decoding step (stepRows) in one row group, as
// arrow-go's pqarrow writes it: the rows of a step end at a null or a
// non-null list wherever the step boundary falls; with a validity field
// every value and validity byte is pqarrow's own reading of the file.
func TestListNullRowsLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("150k rows")
	}
	const n = 150001
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "l", Type: arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), Nullable: true},
		{Name: "f", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	lb, fb := b.Field(0).(*array.ListBuilder), b.Field(1).(*array.ListBuilder)
	for i := 0; i < n; i++ {
		if i%3 == 1 {
			lb.AppendNull()
		} else {
			lb.Append(true)
			lb.ValueBuilder().(*array.Int32Builder).AppendValues([]int32{int32(i), int32(-i)}, nil)
		}
		if i%7 == 5 {
			fb.AppendNull()
		} else {
			fb.Append(true)
			fb.ValueBuilder().(*array.Float64Builder).AppendValues([]float64{float64(i) / 8, 1, 2}, nil)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(n), parquet.WithDataPageSize(4096))
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// pqarrow's reading of the file.
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if pf.NumRowGroups() != 1 || tbl.NumRows() != n {
		t.Fatalf("%d row groups, %d rows", pf.NumRowGroups(), tbl.NumRows())
	}
	rd, err := NewReaderOptions(bytes.NewReader(buf.Bytes()), int64(buf.Len()), &ReadOptions{Validity: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	dt := rd.Header().DType
	if got := dt.String(); got != "[('l', '<i4', (2,)), ('l_valid', '|b1'), ('l_items_valid', '|b1', (2,)), ('f', '<f8', (3,)), ('f_valid', '|b1'), ('f_items_valid', '|b1', (3,))]" {
		t.Fatalf("dtype %s", got)
	}
	var out []byte
	for {
		bt, err := rd.Next(50000)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, bt.Data...)
	}
	if len(out) != n*dt.Size {
		t.Fatalf("%d bytes", len(out))
	}
	ok := 0
	for ci, c := range []arrow.Array{tbl.Column(0).Data().Chunk(0), tbl.Column(1).Data().Chunk(0)} {
		if tbl.Column(ci).Data().Len() != c.Len() {
			t.Fatal("several chunks")
		}
		l := c.(*array.List)
		f := dt.Fields[3*ci]
		for r := 0; r < n; r++ {
			row := out[r*dt.Size:]
			valid := row[dt.Fields[3*ci+1].Offset]
			if want := b2u(!l.IsNull(r)); valid != want {
				t.Fatalf("%s row %d: valid %d, want %d", f.Name, r, valid, want)
			}
			s, e := l.ValueOffsets(r)
			for k := 0; k < f.Shape[0]; k++ {
				if got, want := row[dt.Fields[3*ci+2].Offset+k], b2u(!l.IsNull(r) && !l.ListValues().IsNull(int(s)+k)); got != want {
					t.Fatalf("%s row %d item %d: items_valid %d, want %d", f.Name, r, k, got, want)
				}
				p := row[f.Offset+k*f.Type.Size:]
				switch v := l.ListValues().(type) {
				case *array.Int32:
					want := int32(0)
					if !l.IsNull(r) {
						want = v.Value(int(s) + k)
					}
					if got := int32(binary.LittleEndian.Uint32(p)); got != want || e-s != 2 && !l.IsNull(r) {
						t.Fatalf("l row %d item %d: %d, want %d", r, k, got, want)
					}
				case *array.Float64:
					got := math.Float64frombits(binary.LittleEndian.Uint64(p))
					if l.IsNull(r) && !math.IsNaN(got) || !l.IsNull(r) && got != v.Value(int(s)+k) {
						t.Fatalf("f row %d item %d: %v", r, k, got)
					}
				}
				ok++
			}
		}
	}
	if ok != n*5 {
		t.Fatalf("%d values checked", ok)
	}
}
