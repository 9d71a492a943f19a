package arrowconv

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/npyflow/npyflow/npyio"
)

// Metadata keys written by [Schema] and read by [DTypeFor].
const (
	// MetaDescr is the numpy descr of a field's element type (field
	// metadata) or of the whole array (schema metadata), as in an .npy
	// header: "'<f8'" or "[('x', '<i4'), ('y', '>f8', (2,))]".
	MetaDescr = "numpy.descr"
	// MetaShape is a JSON list of ints: the subarray shape of a field
	// (field metadata, absent for scalar fields) or the array's shape
	// (schema metadata).
	MetaShape = "numpy.shape"
	// MetaFortranOrder is "true" or "false" (schema metadata): the source
	// file's fortran_order. Columns are always in logical C order.
	MetaFortranOrder = "numpy.fortran_order"
	// MetaTitle is a structured field's numpy title, when it has one.
	MetaTitle = "numpy.title"
)

// Schema returns the Arrow schema of the record batches an array with
// header h converts to.
//
// A structured array gives one column per named field, in numpy's order
// (padding dropped). Any other array gives one column called name. Axis 0
// is the row; the remaining axes of the array (and a field's own subarray
// axes) become a FixedSizeList, a [FixedShapeTensorType] column for two or
// more axes, always in logical C order. A 0-d array is one row.
//
// Each field carries its numpy descr under [MetaDescr] (and its subarray
// shape under [MetaShape]); the schema carries the array's descr, shape and
// fortran_order.
func Schema(h *npyio.Header, name string) (*arrow.Schema, error) {
	if h == nil || h.DType == nil {
		return nil, fmt.Errorf("arrowconv: nil header")
	}
	var rowShape []int
	if len(h.Shape) > 1 {
		rowShape = h.Shape[1:]
	}
	var fields []arrow.Field
	if h.DType.Kind == npyio.Struct {
		fields = make([]arrow.Field, 0, len(h.DType.Fields))
		for i := range h.DType.Fields {
			f := &h.DType.Fields[i]
			af, err := arrowField(f.Name, f.Title, f.Type, concatShape(rowShape, f.Shape))
			if err != nil {
				return nil, err
			}
			fields = append(fields, af)
		}
	} else {
		af, err := arrowField(name, "", h.DType, rowShape)
		if err != nil {
			return nil, err
		}
		fields = []arrow.Field{af}
	}
	meta := arrow.NewMetadata(
		[]string{MetaDescr, MetaShape, MetaFortranOrder},
		[]string{h.DType.String(), shapeJSON(h.Shape), strconv.FormatBool(h.FortranOrder)},
	)
	return arrow.NewSchema(fields, &meta), nil
}

// FieldType returns the Arrow type of one numpy element of type dt with
// subarray shape shape (nil or empty for a scalar): the element type itself,
// a FixedSizeList of it for one axis, or a [FixedShapeTensorType] for two
// or more. The byte order of dt does not matter.
//
// It returns an [UnsupportedError] for types with no exact Arrow
// equivalent: datetime64 in years, months, or without a unit; sub-nanosecond
// units whose multiplier is not a whole number of nanoseconds; objects and
// long doubles.
func FieldType(dt *npyio.DType, shape []int) (arrow.DataType, error) {
	if dt == nil {
		return nil, fmt.Errorf("arrowconv: nil dtype")
	}
	nd, err := compileField(dt, shape, "", 0)
	if err != nil {
		return nil, err
	}
	return nd.typ, nil
}

// wrapShape wraps elem in a FixedSizeList (one axis) or a fixed_shape_tensor
// (two or more axes).
func wrapShape(elem arrow.DataType, shape []int, dt *npyio.DType) (arrow.DataType, error) {
	if len(shape) == 0 {
		return elem, nil
	}
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return nil, fmt.Errorf("arrowconv: negative dimension in subarray shape %v", shape)
		}
		n *= int64(d)
		if n > math.MaxInt32 {
			return nil, &UnsupportedError{DType: dt.String(), Msg: fmt.Sprintf("subarray shape %v has more than 2^31-1 elements", shape)}
		}
	}
	if n == 0 {
		// arrow-go cannot build a FixedSizeList of zero elements.
		return nil, &UnsupportedError{DType: dt.String(), Msg: fmt.Sprintf("axes %v hold no elements: Arrow has no fixed-size list of length 0 (Parquet output handles it)", shape)}
	}
	if len(shape) == 1 {
		return arrow.FixedSizeListOf(int32(n), elem), nil
	}
	return NewFixedShapeTensorType(elem, shape, nil, nil)
}

// maxDepth bounds struct nesting (npyio already bounds it; this is a guard).
const maxDepth = 64

// complexType is the Arrow type of a numpy complex: struct<real, imag>.
func complexType(part arrow.DataType) *arrow.StructType {
	return arrow.StructOf(
		arrow.Field{Name: "real", Type: part, Nullable: true},
		arrow.Field{Name: "imag", Type: part, Nullable: true},
	)
}

func arrowField(name, title string, dt *npyio.DType, shape []int) (arrow.Field, error) {
	t, err := FieldType(dt, shape)
	if err != nil {
		if name != "" {
			return arrow.Field{}, fmt.Errorf("field %q: %w", name, err)
		}
		return arrow.Field{}, err
	}
	return arrow.Field{Name: name, Type: t, Nullable: true, Metadata: fieldMeta(dt, shape, title)}, nil
}

func fieldMeta(dt *npyio.DType, shape []int, title string) arrow.Metadata {
	keys := []string{MetaDescr}
	vals := []string{dt.String()}
	if len(shape) > 0 {
		keys = append(keys, MetaShape)
		vals = append(vals, shapeJSON(shape))
	}
	if title != "" {
		keys = append(keys, MetaTitle)
		vals = append(vals, title)
	}
	return arrow.NewMetadata(keys, vals)
}

func concatShape(a, b []int) []int {
	if len(a)+len(b) == 0 {
		return nil
	}
	s := make([]int, 0, len(a)+len(b))
	return append(append(s, a...), b...)
}

func shapeJSON(s []int) string {
	if s == nil {
		s = []int{}
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func parseShapeJSON(s string) ([]int, error) {
	var v []int
	if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &v); err != nil {
		return nil, fmt.Errorf("arrowconv: bad %s metadata %q: %w", MetaShape, s, err)
	}
	for _, d := range v {
		if d < 0 {
			return nil, fmt.Errorf("arrowconv: bad %s metadata %q: negative dimension", MetaShape, s)
		}
	}
	return v, nil
}

// timeConv says how numpy datetime64/timedelta64 values become Arrow
// values: multiply by factor (exactly, refusing overflow), then store as
// typ. NaT becomes null.
type timeConv struct {
	typ    arrow.DataType
	factor int64
	date32 bool
}

// timeMapping chooses the Arrow type of a datetime64 or timedelta64:
// Timestamp/Duration in the numpy unit for s, ms, us, ns; Date32 for
// datetime64 days and weeks; seconds for hours and minutes (and timedelta
// days and weeks); nanoseconds for sub-nanosecond units with a multiplier
// that is a whole number of nanoseconds. The multiplier is folded into the
// factor.
func timeMapping(dt *npyio.DType) (timeConv, error) {
	delta := dt.Kind == npyio.Timedelta
	mult := dt.UnitMult
	if mult < 1 {
		mult = 1
	}
	refuse := func(msg string) (timeConv, error) {
		return timeConv{}, &UnsupportedError{DType: dt.TypeStr(), Msg: msg}
	}
	var unit arrow.TimeUnit
	var per int64 // arrow units per numpy unit
	date := false
	switch dt.Unit {
	case "":
		return refuse("datetime64/timedelta64 without a unit has no fixed scale")
	case "Y", "M":
		return refuse("years and months have no fixed length in seconds; cast to datetime64[D] or finer in numpy first")
	case "W":
		unit, per, date = arrow.Second, 7*86400, !delta
	case "D":
		unit, per, date = arrow.Second, 86400, !delta
	case "h":
		unit, per = arrow.Second, 3600
	case "m":
		unit, per = arrow.Second, 60
	case "s":
		unit, per = arrow.Second, 1
	case "ms":
		unit, per = arrow.Millisecond, 1
	case "us":
		unit, per = arrow.Microsecond, 1
	case "ns":
		unit, per = arrow.Nanosecond, 1
	case "ps", "fs", "as":
		div := map[string]int64{"ps": 1e3, "fs": 1e6, "as": 1e9}[dt.Unit]
		if mult%div != 0 {
			return refuse("Arrow's finest unit is the nanosecond; this unit is finer")
		}
		unit, per, mult = arrow.Nanosecond, 1, mult/div
	default:
		return refuse("unknown unit")
	}
	if date {
		days := per / 86400
		if mult > math.MaxInt64/days {
			return refuse("unit multiplier too large")
		}
		return timeConv{typ: arrow.FixedWidthTypes.Date32, factor: mult * days, date32: true}, nil
	}
	if mult > math.MaxInt64/per {
		return refuse("unit multiplier too large")
	}
	if delta {
		return timeConv{typ: &arrow.DurationType{Unit: unit}, factor: mult * per}, nil
	}
	return timeConv{typ: &arrow.TimestampType{Unit: unit}, factor: mult * per}, nil
}
