package arrowconv_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
)

// checkShown compares one element b of dt (validity fields included) with
// the producer's value v (nil: null): a field f followed by f_valid must
// have f_valid false exactly where the producer reads a null (or a null
// around it); null slots hold NaN (floats) or zeros.
func checkShown(dt *npyio.DType, shape []int, b []byte, v any) error {
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
			if err := checkShown(dt, nil, b[k*dt.Size:(k+1)*dt.Size], it); err != nil {
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
			n := f.Type.Size
			for _, d := range f.Shape {
				n *= d
			}
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
			if err := checkShown(f.Type, f.Shape, b[f.Offset:f.Offset+n], sub); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
		return nil
	}
	if v == nil {
		if dt.Kind == npyio.Float {
			if !math.IsNaN(math.Float64frombits(binary.LittleEndian.Uint64(b))) {
				return fmt.Errorf("null as % x, want NaN", b)
			}
		} else if !bytes.Equal(b, make([]byte, len(b))) {
			return fmt.Errorf("null as % x, want zeros", b)
		}
		return nil
	}
	var got string
	switch dt.Kind {
	case npyio.Int:
		x := uint64(0)
		for i := len(b) - 1; i >= 0; i-- {
			x = x<<8 | uint64(b[i])
		}
		sh := 64 - 8*len(b)
		got = strconv.FormatInt(int64(x<<sh)>>sh, 10)
	case npyio.Float:
		got = strconv.FormatFloat(math.Float64frombits(binary.LittleEndian.Uint64(b)), 'g', -1, 64)
		w, err := strconv.ParseFloat(v.(string), 64)
		if err != nil {
			return err
		}
		v = strconv.FormatFloat(w, 'g', -1, 64)
	case npyio.Bool:
		got = strconv.FormatBool(b[0] != 0)
		v = fmt.Sprint(v)
	case npyio.Unicode:
		var sb strings.Builder
		for k := 0; k+4 <= len(b); k += 4 {
			if c := binary.LittleEndian.Uint32(b[k:]); c != 0 {
				sb.WriteRune(rune(c))
			}
		}
		got = sb.String()
	default:
		return fmt.Errorf("no check for %s", dt)
	}
	if got != v {
		return fmt.Errorf("%s, want %v", got, v)
	}
	return nil
}

// TestValidityNested converts Arrow JS's struct whose rows, nested struct
// and fields are null, and its fixed_size_list and list of one length
// with null rows (arrowjs_nested_nulls, file and stream, whole batches
// and slices), with validity fields: st_valid after the struct, x_valid
// after each nullable field x inside it at any depth, fsl_valid and
// l2_valid after the lists; every value and validity byte is what Arrow
// JS reads. The dtype is the one parquetio gives DuckDB's file of the
// same shape (the one naming scheme of both readers).
func TestValidityNested(t *testing.T) {
	for _, tc := range []struct {
		opts  *arrowconv.MapOptions
		dtype string
	}{
		{&arrowconv.MapOptions{Validity: []string{"st", "fsl", "l2"}}, "[('k', '<i4'), ('st', [('a', '<i4'), ('a_valid', '|b1'), ('b', [('x', '<f8'), ('x_valid', '|b1'), ('y', '|b1'), ('y_valid', '|b1')]), ('b_valid', '|b1'), ('s', '<U3'), ('s_valid', '|b1')]), ('st_valid', '|b1'), ('fsl', '<i2', (3,)), ('fsl_valid', '|b1'), ('fsl_items_valid', '|b1', (3,)), ('l2', '<f8', (2,)), ('l2_valid', '|b1'), ('l2_items_valid', '|b1', (2,))]"},
		{&arrowconv.MapOptions{ValidityFields: true}, "[('k', '<i4'), ('st', [('a', '<i4'), ('a_valid', '|b1'), ('b', [('x', '<f8'), ('x_valid', '|b1'), ('y', '|b1'), ('y_valid', '|b1')]), ('b_valid', '|b1'), ('s', '<U3'), ('s_valid', '|b1')]), ('st_valid', '|b1'), ('fsl', '<i2', (3,)), ('fsl_valid', '|b1'), ('fsl_items_valid', '|b1', (3,)), ('l2', '<f8', (2,)), ('l2_valid', '|b1'), ('l2_items_valid', '|b1', (2,))]"},
	} {
		for _, name := range []string{"arrowjs_nested_nulls.arrow", "arrowjs_nested_nulls.arrows"} {
			for _, slice := range []bool{false, true} {
				path := filepath.Join("testdata", "foreign", name)
				exp := loadExpect(t, path)
				m, out, rows, err := readForeign(t, path, tc.opts, slice)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				dt, _ := m.DType()
				if got := dt.String(); got != tc.dtype {
					t.Fatalf("%s: dtype %s, want %s", name, got, tc.dtype)
				}
				if rows != 12 || len(out) != rows*dt.Size {
					t.Fatalf("%s: %d rows, %d bytes", name, rows, len(out))
				}
				nulls := 0
				for r := 0; r < rows; r++ {
					row := map[string]any{}
					for _, c := range exp.Columns {
						row[c.Name] = c.Values[r]
						if c.Values[r] == nil {
							nulls++
						}
					}
					if err := checkShown(dt, nil, out[r*dt.Size:(r+1)*dt.Size], row); err != nil {
						t.Fatalf("%s (slice %v) row %d: %v", name, slice, r, err)
					}
				}
				if nulls == 0 {
					t.Fatal("no null rows")
				}
			}
		}
	}
	// Without options the struct's null rows are refused, naming the
	// column and the first null (st.a's in a valid row comes first).
	_, _, _, err := readForeign(t, filepath.Join("testdata", "foreign", "arrowjs_nested_nulls.arrow"), nil, false)
	if err == nil || !strings.Contains(err.Error(), `column "st.a"`) || !strings.Contains(err.Error(), "first at row 1") {
		t.Fatalf("without options: %v", err)
	}
}

// TestItemsValidity: arrow-go's every_type files (file, stream, LZ4,
// ZSTD, whole batches and slices) hold a fixed_size_list<float32>[3]
// with a null element ([4, null, 6]): with a validity field for fsl,
// fsl_items_valid follows fsl_valid and is false exactly where the
// producer reads a null, the element NaN; with ValidityFields the lists
// of nullable elements get one too; without options there is none.
func TestItemsValidity(t *testing.T) {
	for _, name := range []string{"every_type.arrow", "every_type_lz4.arrows", "every_type_zstd.arrow"} {
		for _, slice := range []bool{false, true} {
			path := filepath.Join("testdata", "foreign", name)
			exp := loadExpect(t, path)
			var want []any
			for _, c := range exp.Columns {
				if c.Name == "fsl" {
					want = c.Values
				}
			}
			m, out, rows, err := readForeign(t, path, &arrowconv.MapOptions{Validity: []string{"fsl"}}, slice)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			dt, _ := m.DType()
			var fsl, items npyio.Field
			for k, f := range dt.Fields {
				switch f.Name {
				case "fsl":
					fsl = f
					if dt.Fields[k+1].Name != "fsl_valid" || dt.Fields[k+2].Name != "fsl_items_valid" {
						t.Fatalf("%s: %s", name, dt)
					}
				case "fsl_items_valid":
					items = f
				}
			}
			if items.Type.TypeStr() != "|b1" || len(items.Shape) != 1 || items.Shape[0] != 3 || rows != len(want) {
				t.Fatalf("%s: %s, %d rows", name, dt, rows)
			}
			nulls := 0
			for r := 0; r < rows; r++ {
				row := out[r*dt.Size:]
				for j, e := range want[r].([]any) {
					g := math.Float32frombits(binary.LittleEndian.Uint32(row[fsl.Offset+4*j:]))
					v := row[items.Offset+j]
					if e == nil {
						nulls++
						if v != 0 || !math.IsNaN(float64(g)) {
							t.Errorf("%s row %d item %d: %v valid %d, want NaN 0", name, r, j, g, v)
						}
						continue
					}
					w, _ := strconv.ParseFloat(e.(string), 32)
					if v != 1 || g != float32(w) {
						t.Errorf("%s row %d item %d: %v valid %d, want %v 1", name, r, j, g, v, w)
					}
				}
			}
			if nulls != 1 {
				t.Errorf("%s: %d null items", name, nulls)
			}
		}
	}
	path := filepath.Join("testdata", "foreign", "every_type.arrow")
	m, _, _, err := readForeign(t, path, &arrowconv.MapOptions{ValidityFields: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	dt, _ := m.DType()
	var got []string
	for _, f := range dt.Fields {
		if strings.HasSuffix(f.Name, "_items_valid") {
			got = append(got, f.Name+" "+npyio.FormatShape(f.Shape))
		}
	}
	// fsl2 is a list of lists: no element validity field.
	if s := strings.Join(got, ", "); s != "fsl_items_valid (3,), list_items_valid (2,), llist_items_valid (1,), listview_items_valid (3,)" {
		t.Errorf("ValidityFields: %s", s)
	}
	m, _, _, err = readForeign(t, path, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if dt, _ = m.DType(); strings.Contains(dt.String(), "valid") {
		t.Errorf("without options: %s", dt)
	}
}
