package arrowconv_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// stem is the column name a .npy file's array gets.
func stem(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".npy")
}

// refusedUnit reports whether dt holds a datetime unit that has no exact
// Arrow type (years, months, generic), anywhere in a struct.
func refusedUnit(dt *npyio.DType) bool {
	switch dt.Kind {
	case npyio.Struct:
		for i := range dt.Fields {
			if refusedUnit(dt.Fields[i].Type) {
				return true
			}
		}
	case npyio.Datetime, npyio.Timedelta:
		switch dt.Unit {
		case "", "Y", "M":
			return true
		}
	}
	return false
}

// timeFactor is the test's own table of how numpy time units map to Arrow:
// the factor to Arrow's unit and whether the target is Date32 (days).
func timeFactor(dt *npyio.DType) (factor int64, date bool) {
	m := max(dt.UnitMult, 1)
	delta := dt.Kind == npyio.Timedelta
	switch dt.Unit {
	case "W":
		if !delta {
			return 7 * m, true
		}
		return 7 * 86400 * m, false
	case "D":
		if !delta {
			return m, true
		}
		return 86400 * m, false
	case "h":
		return 3600 * m, false
	case "m":
		return 60 * m, false
	case "ps":
		return m / 1000, false
	case "fs":
		return m / 1000000, false
	case "as":
		return m / 1000000000, false
	}
	return m, false
}

// fits reports whether v*factor fits the target (int32 for dates, int64
// without MinInt64 otherwise), computed with big integers.
func fits(v, factor int64, date bool) bool {
	p := new(big.Int).Mul(big.NewInt(v), big.NewInt(factor))
	if date {
		return p.IsInt64() && p.Int64() >= math.MinInt32 && p.Int64() <= math.MaxInt32
	}
	return p.IsInt64() && p.Int64() != math.MinInt64
}

// overflows reports whether some value of the fixture (of type dt with
// subarray shape; raw is one element or, with a shape, a flat list) cannot
// be converted exactly.
func overflows(dt *npyio.DType, shape []int, raw json.RawMessage) bool {
	if len(shape) > 0 {
		for _, r := range fixtures.List(raw) {
			if overflows(dt, nil, r) {
				return true
			}
		}
		return false
	}
	switch dt.Kind {
	case npyio.Struct:
		vals := fixtures.List(raw)
		for i := range dt.Fields {
			if overflows(dt.Fields[i].Type, dt.Fields[i].Shape, vals[i]) {
				return true
			}
		}
	case npyio.Datetime, npyio.Timedelta:
		v := fixtures.Int(raw)
		if v == math.MinInt64 {
			return false
		}
		f, date := timeFactor(dt)
		return !fits(v, f, date)
	}
	return false
}

// checkValue compares value i of arr (of the Arrow type FieldType(dt,
// shape)) with numpy's JSON value: one element, or for a subarray the flat
// C-order list of its elements.
func checkValue(arr arrow.Array, i int, dt *npyio.DType, shape []int, raw json.RawMessage) error {
	if len(shape) == 0 {
		return checkElem(arr, i, dt, raw)
	}
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	l, ok := arr.(*array.FixedSizeList)
	if !ok {
		return fmt.Errorf("subarray column is %T, want a FixedSizeList", arr)
	}
	want := fixtures.List(raw)
	start, end := l.ValueOffsets(i)
	if int(end-start) != len(want) {
		return fmt.Errorf("list of %d values, want %d", end-start, len(want))
	}
	for k := range want {
		if err := checkElem(l.ListValues(), int(start)+k, dt, want[k]); err != nil {
			return fmt.Errorf("[%d]: %w", k, err)
		}
	}
	return nil
}

func checkElem(arr arrow.Array, i int, dt *npyio.DType, raw json.RawMessage) error {
	isTime := dt.Kind == npyio.Datetime || dt.Kind == npyio.Timedelta
	if arr.IsNull(i) && !isTime {
		return fmt.Errorf("unexpected null")
	}
	switch dt.Kind {
	case npyio.Bool:
		if got, want := arr.(*array.Boolean).Value(i), fixtures.Bool(raw); got != want {
			return fmt.Errorf("bool %v, want %v", got, want)
		}
	case npyio.Int:
		var got int64
		switch a := arr.(type) {
		case *array.Int8:
			got = int64(a.Value(i))
		case *array.Int16:
			got = int64(a.Value(i))
		case *array.Int32:
			got = int64(a.Value(i))
		case *array.Int64:
			got = a.Value(i)
		default:
			return fmt.Errorf("int column is %T", arr)
		}
		if want := fixtures.Int(raw); got != want || arr.DataType().(arrow.FixedWidthDataType).BitWidth() != 8*dt.Size {
			return fmt.Errorf("int %d (%s), want %d (%d bytes)", got, arr.DataType(), want, dt.Size)
		}
	case npyio.Uint:
		var got uint64
		switch a := arr.(type) {
		case *array.Uint8:
			got = uint64(a.Value(i))
		case *array.Uint16:
			got = uint64(a.Value(i))
		case *array.Uint32:
			got = uint64(a.Value(i))
		case *array.Uint64:
			got = a.Value(i)
		default:
			return fmt.Errorf("uint column is %T", arr)
		}
		if want := fixtures.Uint(raw); got != want || arr.DataType().(arrow.FixedWidthDataType).BitWidth() != 8*dt.Size {
			return fmt.Errorf("uint %d (%s), want %d", got, arr.DataType(), want)
		}
	case npyio.Float:
		got, err := floatValue(arr, i, dt.Size)
		if err != nil {
			return err
		}
		if want := fixtures.Float(raw); !fixtures.SameFloat(got, want) {
			return fmt.Errorf("float %v, want %v", got, want)
		}
	case npyio.Complex:
		s, ok := arr.(*array.Struct)
		if !ok || s.NumField() != 2 {
			return fmt.Errorf("complex column is %s", arr.DataType())
		}
		parts := fixtures.List(raw)
		for k, name := range []string{"real", "imag"} {
			if got := s.DataType().(*arrow.StructType).Field(k).Name; got != name {
				return fmt.Errorf("complex part %d is named %q, want %q", k, got, name)
			}
			got, err := floatValue(s.Field(k), i, dt.Size/2)
			if err != nil {
				return err
			}
			if want := fixtures.Float(parts[k]); !fixtures.SameFloat(got, want) {
				return fmt.Errorf("complex %s %v, want %v", name, got, want)
			}
		}
	case npyio.Bytes:
		a, ok := arr.(*array.Binary)
		if !ok {
			return fmt.Errorf("bytes column is %T", arr)
		}
		if got, want := a.Value(i), fixtures.Hex(raw); !bytes.Equal(got, want) {
			return fmt.Errorf("bytes %q, want %q", got, want)
		}
	case npyio.Unicode:
		a, ok := arr.(*array.String)
		if !ok {
			return fmt.Errorf("unicode column is %T", arr)
		}
		if got, want := a.Value(i), fixtures.Str(raw); got != want {
			return fmt.Errorf("string %q, want %q", got, want)
		}
	case npyio.Void:
		if dt.Size == 0 { // Arrow has no zero-width FixedSizeBinary
			if a, ok := arr.(*array.Binary); !ok || a.ValueLen(i) != 0 {
				return fmt.Errorf("V0 column is %s, want empty binary values", arr.DataType())
			}
			return nil
		}
		a, ok := arr.(*array.FixedSizeBinary)
		if !ok {
			return fmt.Errorf("void column is %T", arr)
		}
		if got, want := a.Value(i), fixtures.Hex(raw); !bytes.Equal(got, want) || len(got) != dt.Size {
			return fmt.Errorf("void %x, want %x", got, want)
		}
	case npyio.Datetime, npyio.Timedelta:
		want := fixtures.Int(raw)
		if want == math.MinInt64 {
			if !arr.IsNull(i) {
				return fmt.Errorf("NaT is not null")
			}
			return nil
		}
		if arr.IsNull(i) {
			return fmt.Errorf("null, want %d", want)
		}
		f, date := timeFactor(dt)
		var got int64
		switch a := arr.(type) {
		case *array.Date32:
			if !date {
				return fmt.Errorf("%s is a Date32", dt)
			}
			got = int64(a.Value(i))
		case *array.Timestamp:
			got = int64(a.Value(i))
		case *array.Duration:
			got = int64(a.Value(i))
		default:
			return fmt.Errorf("time column is %T", arr)
		}
		if got != want*f {
			return fmt.Errorf("time %d (%s), want %d*%d", got, arr.DataType(), want, f)
		}
	case npyio.Struct:
		s, ok := arr.(*array.Struct)
		if !ok {
			return fmt.Errorf("struct column is %T", arr)
		}
		vals := fixtures.List(raw)
		if s.NumField() != len(dt.Fields) || len(vals) != len(dt.Fields) {
			return fmt.Errorf("struct of %d fields, numpy has %d (%d values)", s.NumField(), len(dt.Fields), len(vals))
		}
		for k := range dt.Fields {
			f := &dt.Fields[k]
			if got := s.DataType().(*arrow.StructType).Field(k).Name; got != f.Name {
				return fmt.Errorf("field %d is %q, want %q", k, got, f.Name)
			}
			if err := checkValue(s.Field(k), i, f.Type, f.Shape, vals[k]); err != nil {
				return fmt.Errorf(".%s: %w", f.Name, err)
			}
		}
	default:
		return fmt.Errorf("unexpected kind %v", dt.Kind)
	}
	return nil
}

func floatValue(arr arrow.Array, i, size int) (float64, error) {
	switch a := arr.(type) {
	case *array.Float16:
		if size == 2 {
			return float64(npyio.HalfToFloat32(a.Value(i).Uint16())), nil
		}
	case *array.Float32:
		if size == 4 {
			return float64(a.Value(i)), nil
		}
	case *array.Float64:
		if size == 8 {
			return a.Value(i), nil
		}
	}
	return 0, fmt.Errorf("%d-byte float column is %s", size, arr.DataType())
}

// checkRecord compares a record batch whose first row is row0 with the
// fixture's values (in logical C order over the whole array).
func checkRecord(rec arrow.RecordBatch, row0 int64, h *npyio.Header, fx *fixtures.NPY) error {
	if err := array.ValidateRecordFull(rec); err != nil {
		return fmt.Errorf("ValidateRecordFull: %w", err)
	}
	var rowShape []int
	if len(h.Shape) > 1 {
		rowShape = h.Shape[1:]
	}
	per := 1
	for _, d := range rowShape {
		per *= d
	}
	for i := 0; i < int(rec.NumRows()); i++ {
		r := int(row0) + i
		elems := fx.Values[r*per : (r+1)*per]
		if h.DType.Kind != npyio.Struct {
			raw := elems[0]
			if len(rowShape) > 0 {
				raw, _ = json.Marshal(elems)
			}
			if err := checkValue(rec.Column(0), i, h.DType, rowShape, raw); err != nil {
				return fmt.Errorf("row %d: %w", r, err)
			}
			continue
		}
		lists := make([][]json.RawMessage, len(elems))
		for e := range elems {
			lists[e] = fixtures.List(elems[e])
		}
		for k := range h.DType.Fields {
			f := &h.DType.Fields[k]
			shape := append(append([]int(nil), rowShape...), f.Shape...)
			var raw json.RawMessage
			if len(shape) == 0 {
				raw = lists[0][k]
			} else {
				// Flatten: the row's elements, each the field's (flat) subarray.
				var flat []json.RawMessage
				for e := range elems {
					v := lists[e][k]
					if len(f.Shape) > 0 {
						flat = append(flat, fixtures.List(v)...)
					} else {
						flat = append(flat, v)
					}
				}
				raw, _ = json.Marshal(flat)
			}
			if err := checkValue(rec.Column(k), i, f.Type, shape, raw); err != nil {
				return fmt.Errorf("row %d, field %q: %w", r, f.Name, err)
			}
		}
	}
	return nil
}

var _ = arrowconv.DefaultBatchRows
