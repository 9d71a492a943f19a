package arrowconv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/npyflow/npyflow/npyio"
)

// DecimalMode says how Arrow decimal columns become numpy values.
type DecimalMode int

const (
	// DecimalFloat64 converts decimals to float64, correctly rounded
	// (round half to even) from the exact decimal value.
	DecimalFloat64 DecimalMode = iota
	// DecimalScaledInt64 keeps decimals of precision 18 or less exactly,
	// as int64 holding value * 10^scale; the field is renamed
	// "<name>_x1e<scale>" so the scale is visible ([ScaledName]).
	// Precision above 18 is refused.
	DecimalScaledInt64
)

// MapOptions configures [MapSchema]. The zero value (or nil) is the
// default mapping.
type MapOptions struct {
	// Threads is the number of goroutines [ConvertIPC] decodes compressed
	// record batches on (see [NewIPCReaderThreads]); 0 means
	// runtime.GOMAXPROCS(0). The output is the same whatever the number.
	Threads int
	// Decimal selects the conversion of decimal32/64/128/256 columns.
	Decimal DecimalMode
	// Fill gives, per top-level column name, the value written where the
	// column (or, for a dictionary, list or struct column, its elements)
	// is null. Accepted values: Go integers and floats, bool, string
	// (parsed for numeric, bool and datetime columns; the value itself for
	// string columns), []byte. The column's nulls then become the fill
	// instead of NaN or NaT.
	Fill map[string]any
	// ValidityFields adds, next to every nullable top-level column, a
	// bool field "<name>_valid" (see [ValidityName]) that is false where
	// the column is null (a struct or list row too); null values are
	// then written as their fill value, or NaN/NaT/zero bytes when there
	// is none. Inside a struct, each nullable field x (at any depth, also
	// in list elements) gets a bool field "x_valid" right after it,
	// inside the struct, false where x has no value (x or a struct or
	// list around it is null): numpy's arr["st"]["x_valid"].
	ValidityFields bool
	// Validity adds validity fields for these top-level columns only
	// (and the nullable fields inside them, as ValidityFields does).
	//
	// Element validity: a list column of one length (fixed_size_list or
	// a list whose lists all have one length) whose elements are not
	// lists gets, with a validity field, a second bool field
	// "<name>_items_valid" ([ItemsValidityName]) of the list's shape,
	// right after "<name>_valid" (or after the column when it has none):
	// false where the element is null (or the list itself is). It is
	// added for a list column named in Validity, and by ValidityFields
	// when the list's element field is nullable. Null elements then hold
	// their fill value, NaN, NaT or zero bytes instead of a refusal.
	Validity []string
	// StringWidths fixes, per top-level column name, the width of a string
	// (characters) or binary (bytes) column, or of string/binary values
	// anywhere inside it. A longer value is a [ValueError].
	StringWidths map[string]int
	// FixedBinaryBytes maps fixed_size_binary (and UUID) columns to
	// numpy bytes S<n> instead of the default void V<n>. Both keep every
	// byte in the file; numpy strips trailing NULs when it reads S values.
	FixedBinaryBytes bool
	// Measure, if not nil, gives the string widths and list lengths that
	// neither the schema nor StringWidths fix, in place of [Mapping.Scan],
	// for a source that measures its own data (parquetio reads its
	// column chunks): for the string or binary values of type t at path,
	// the length of the longest (characters or bytes); for the lists of
	// type t at path, the one length they all have, or an error, which
	// MapSchema returns as it is. path names values as errors do: the
	// column ("a"), a struct field ("a.b"), the elements of a list ("a[]").
	Measure func(path string, t arrow.DataType) (int, error)
}

// ScaledName is the field name [DecimalScaledInt64] gives a decimal column
// of the given scale: "price" with scale 2 becomes "price_x1e2".
func ScaledName(name string, scale int32) string {
	return name + "_x1e" + strconv.Itoa(int(scale))
}

// ValidityName is the name of the validity field added for a column.
func ValidityName(name string) string { return name + "_valid" }

// ItemsValidityName is the name of the element validity field of a list
// column: a bool subarray of the list's shape, false where an element
// is null (see [MapOptions.Validity]).
func ItemsValidityName(name string) string { return name + "_items_valid" }

// NullError reports a column that holds nulls where numpy has no null
// (integers, bools, strings, bytes, structs, intervals) and no option says
// what to write instead.
type NullError struct {
	Column string // path of the column ("a" or "a.b")
	Nulls  int64  // nulls found in the rows being converted (at most one record batch)
	Row    int64  // row (from the start of the stream) of the first null
}

func (e *NullError) Error() string {
	field := fmt.Sprintf("%q", ValidityName(topName(e.Column)))
	if strings.HasSuffix(e.Column, "[]") && !strings.Contains(strings.TrimSuffix(e.Column, "[]"), "[]") {
		// Elements of a list: its element validity field records them.
		field = fmt.Sprintf("%q (and %q for its elements)", ValidityName(topName(e.Column)), ItemsValidityName(topName(e.Column)))
	}
	return fmt.Sprintf("arrowconv: column %q holds %d null(s) (first at row %d) and numpy %s; "+
		"give a fill value for the column (MapOptions.Fill; convert --fill COLUMN=VALUE; fill on a job's source), "+
		"add a validity field %s (MapOptions.Validity; convert --validity COLUMN; validity on a job's source), or drop the column",
		e.Column, e.Nulls, e.Row, "has no null for its type", field)
}

func topName(path string) string {
	if i := strings.IndexAny(path, ".["); i > 0 {
		return path[:i]
	}
	return path
}

// mkind is how one Arrow array becomes numpy elements.
type mkind uint8

const (
	mFixed  mkind = iota // same bytes: ints, floats, intervals, fixed binary
	mBool                // bit-packed -> one byte
	mTime64              // int64 time values (timestamp, date64, duration, time64): NaT check
	mTime32              // int32 time values (date32, time32), widened
	mDecF8               // decimal -> float64
	mDecI64              // decimal -> scaled int64
	mString              // utf8 -> U<n>
	mBinary              // binary -> S<n>
	mStruct              // struct -> structured
	mList                // fixed or one-length list -> subarray
	mDict                // dictionary -> decoded values
)

// mnode is the plan of one Arrow array (a column or a child).
type mnode struct {
	path     string
	kind     mkind
	atype    arrow.DataType
	dt       *npyio.DType // element type; nil until the width is known
	shape    []int        // subarray shape (lists)
	size     int          // bytes of one value: dt.Size * prod(shape)
	children []*mnode     // struct fields, list element, dictionary values
	names    []string     // struct field names
	titles   []string
	nullable []bool // struct fields: declared nullable
	cvalid   []bool // struct fields: followed by a validity field "<name>_valid"
	foffs    []int  // struct fields: offset in the element
	cvoffs   []int  // struct fields: offset of the validity field after it, -1 if none
	nullB    []byte // struct and list with a validity field: the element where null (nullElem)
	width    int    // strings: characters or bytes; -1 unknown
	listLen  int    // lists: values per list; -1 unknown
	lshape   []int  // lists: the axes the list holds (nil: [listLen])
	listRow  int64  // row where listLen was first seen (for errors)
	scale    int32  // decimals
	prec     int32
	esize    int   // decimals, fixed: bytes of one source value
	factor   int64 // times: source units per numpy unit (numpy metadata; 0 or 1: the same)
	exact    bool  // the numpy type is the field's numpy.descr metadata: kept as it is
	isFloat  bool  // nulls become NaN
	isTime   bool  // nulls become NaT
	fill     any   // the column's fill value, nil if none
	fillB    []byte
	zeroNull bool // nulls become zero bytes (a validity field records them)
	scratch  []byte
	nulls    []byte  // scratch: one byte per value, 1 where null
	idx      []int64 // scratch: dictionary indexes

	dictData   arrow.ArrayData // the dictionary dictPacked holds
	dictPacked []byte          // its values, packed (c.pack's result)
}

// Mapping is the conversion of Arrow record batches of one schema to numpy
// rows: the one Arrow -> numpy type mapping and encoder of npyflow (see
// [MapSchema]; [NewRowEncoder], [DTypeFor] and [NPYWriter] use it too).
// A Mapping keeps scratch memory and is not safe for concurrent use.
type Mapping struct {
	schema  *arrow.Schema
	opts    MapOptions
	cols    []*mnode
	valid   []bool // per column: has a validity field
	items   []bool // per column: has an element validity field (lists)
	dt      *npyio.DType
	shape   []int
	offs    []int   // per column: offset in the row
	cdims   [][]dim // per column: where its values go within a row (nil: once, at offs)
	csize   []int   // per column: bytes of one placement (cdims), else the column's size
	voffs   []int   // per column: offset of its validity field, -1 if none
	ioffs   []int   // per column: offset of its element validity field, -1 if none
	rowSize int
	dense   bool
	single  bool // one column and no validity field: the column is the element
	frozen  bool
	rows    int64 // rows encoded
	scanned int64 // rows scanned
	didScan bool  // Scan was called or ScanRecords finished
	scans   bool  // the schema left widths or lengths to a Scan

	// The whole array's numpy metadata (schema written by npyflow, plain
	// options): its struct descr (padding, offsets) and the axes after
	// the first, or a 0-d array.
	src    *npyio.DType
	srcRow []int
	zeroD  bool

	// Set for NewRowEncoder, DTypeFor and NPYWriter: struct<real, imag>
	// of floats is a complex, and a null where numpy has none is the
	// ValueError those entry points have always given.
	complexStructs bool
	strict         bool
}

// MapSchema returns the numpy mapping of record batches of schema:
//
//	Arrow                                  numpy
//	int8..64, uint8..64                    same-width ints
//	float16/32/64                          f2/f4/f8 (null -> NaN)
//	bool                                   ?
//	utf8, large_utf8, utf8_view            U<n>
//	binary, large_binary, binary_view      S<n>
//	fixed_size_binary(n), UUID             V<n> (S<n> with FixedBinaryBytes)
//	decimal32/64/128/256(p, s)             f8 correctly rounded, or int64 x 10^s
//	date32 / date64                        datetime64[D] / datetime64[ms]
//	timestamp(unit, any tz)                datetime64[unit], UTC instants
//	time32/time64(unit)                    timedelta64[unit] since midnight
//	duration(unit)                         timedelta64[unit]
//	interval months / day_time / m_d_n     struct (months) / (days, milliseconds) /
//	                                       (months, days, nanoseconds)
//	struct                                 nested structured
//	fixed_size_list, list of one length    subarray
//	dictionary<T>                          the decoded T
//
// Datetime and timedelta nulls become NaT. Maps, unions, run-end encoded
// arrays, the null type and lists of varying lengths are refused, naming
// the column. Nulls in other columns are refused with a [*NullError] unless
// opts gives a fill value or a validity field for the column.
//
// n, the width of strings, comes from StringWidths, from the field's
// numpy.descr metadata, or from a pass over the data: when [Mapping.NeedsScan]
// is true, call [Mapping.Scan] on every record batch before [Mapping.DType]
// or [Mapping.Encode]. Schemas written by npyflow (numpy metadata) map back
// to their exact numpy dtype, byte order and padding included.
//
// One column gives rows of that column's type, unless that type is a
// numpy record (a struct, an interval, a subarray of either): then, as
// parquetio reads a lone group, a record of one field named for the
// column, so that the file is told apart from a table of the record's
// fields. Several columns (or a validity field) give a structured dtype
// with a field per column.
func MapSchema(schema *arrow.Schema, opts *MapOptions) (*Mapping, error) {
	return newMapping(schema, opts, false)
}

// newMapping is MapSchema; legacy selects the rules of NewRowEncoder
// (complex structs, nulls refused with a ValueError).
func newMapping(schema *arrow.Schema, opts *MapOptions, legacy bool) (*Mapping, error) {
	if schema == nil || schema.NumFields() == 0 {
		return nil, errors.New("arrowconv: a schema with no columns has no numpy dtype")
	}
	m := &Mapping{schema: schema, complexStructs: legacy, strict: legacy}
	if opts != nil {
		m.opts = *opts
	}
	o := &m.opts
	for name := range o.Fill {
		if schema.FieldIndices(name) == nil {
			return nil, fmt.Errorf("arrowconv: fill value for %q: the schema has no such column", name)
		}
	}
	for name := range o.StringWidths {
		if schema.FieldIndices(name) == nil {
			return nil, fmt.Errorf("arrowconv: string width for %q: the schema has no such column", name)
		}
	}
	for _, name := range o.Validity {
		if schema.FieldIndices(name) == nil {
			return nil, fmt.Errorf("arrowconv: validity field for %q: the schema has no such column", name)
		}
	}
	if len(o.Fill) == 0 && !o.ValidityFields && len(o.Validity) == 0 {
		m.arrayMeta()
	}
	for _, f := range schema.Fields() {
		nd, err := m.plan(f, f.Name, f.Name, 0)
		if err != nil {
			return nil, err
		}
		v := f.Nullable && o.ValidityFields || slices.Contains(o.Validity, f.Name)
		if fv, ok := o.Fill[f.Name]; ok {
			setFill(nd, fv)
		} else if v {
			setZeroNull(nd)
		}
		if v || o.ValidityFields {
			setFieldValidity(nd)
		}
		it := false
		if ef, ok := listElemField(f.Type); ok && nd.kind == mList && !nd.exact {
			it = slices.Contains(o.Validity, f.Name) || o.ValidityFields && ef.Nullable
			if c := nd.children[0]; c.kind == mList || c.exact {
				it = false // lists of lists: no element validity field
			}
		}
		if it {
			// Null elements (and null lists) become zeros, NaN or NaT,
			// recorded by the element validity field.
			nd.zeroNull = true
			nd.children[0].zeroNull = true
		}
		m.cols = append(m.cols, nd)
		m.valid = append(m.valid, v)
		m.items = append(m.items, it)
	}
	m.single = len(m.cols) == 1 && !m.valid[0] && !m.items[0]
	m.scans = m.NeedsScan()
	if !m.scans {
		if err := m.freeze(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// arrayMeta reads the whole array's numpy metadata of a schema npyflow
// wrote ([Schema]): a structured descr (whose padding and offsets the
// rows keep when the columns are still its fields), the axes after the
// first, and whether the array is 0-d.
func (m *Mapping) arrayMeta() {
	md := m.schema.Metadata()
	var shape []int
	if s, ok := md.GetValue(MetaShape); ok {
		var err error
		if shape, err = parseShapeJSON(s); err != nil {
			return
		}
		m.zeroD = shape != nil && len(shape) == 0
	}
	if d, ok := md.GetValue(MetaDescr); ok {
		if st, err := npyio.ParseDescr(d); err == nil && st.Kind == npyio.Struct {
			m.src = st
			if len(shape) > 1 {
				m.srcRow = shape[1:]
			}
		}
	}
}

// listElemField is the element field of a list type (extension storage
// included).
func listElemField(t arrow.DataType) (arrow.Field, bool) {
	if ext, ok := t.(arrow.ExtensionType); ok {
		t = ext.StorageType()
	}
	switch t := t.(type) {
	case *arrow.FixedSizeListType:
		return t.ElemField(), true
	case *arrow.ListType, *arrow.LargeListType, *arrow.ListViewType, *arrow.LargeListViewType:
		return t.(arrow.ListLikeType).ElemField(), true
	}
	return arrow.Field{}, false
}

func setFill(nd *mnode, v any) {
	nd.fill = v
	// A struct's fill is every field's (at any depth), as parquetio
	// fills every leaf of a group: a null field holds it, and a null
	// struct holds it in every field.
	if nd.kind == mDict || nd.kind == mList || nd.kind == mStruct {
		for _, c := range nd.children {
			setFill(c, v)
		}
	}
}

// setZeroNull makes nulls of the column itself zeros (its validity field
// records them). Nulls of its children in rows where it is valid are
// recorded by their own validity fields (setFieldValidity) or refused.
func setZeroNull(nd *mnode) { nd.zeroNull = true }

// setFieldValidity gives each nullable field of the structs in nd (at any
// depth, in list elements too) a validity field "<name>_valid" right
// after it, inside the struct: false where the field has no value (it
// is null, or a struct or list around it is); its nulls become zeros
// (or the fill value, NaN, NaT).
func setFieldValidity(nd *mnode) {
	if nd.exact {
		return // a numpy type from metadata stays as it is
	}
	if nd.kind == mStruct {
		nd.cvalid = make([]bool, len(nd.children))
		for k, c := range nd.children {
			if nd.nullable[k] {
				nd.cvalid[k] = true
				c.zeroNull = true
			}
		}
	}
	if nd.kind == mStruct || nd.kind == mList {
		for _, c := range nd.children {
			setFieldValidity(c)
		}
	}
}

// unsupported builds the refusal of a column's type.
func unsupported(path string, t arrow.DataType, msg string) error {
	return &UnsupportedError{Column: path, DType: t.String(), Msg: msg}
}

const dropHint = "; leave the column out and read the others (--columns with convert or inspect; in a job, the source's columns option, or a select or drop leaving it out on every path from the source, through filter and cast)"

// plan builds the node of field f at path; top is the top-level column name.
func (m *Mapping) plan(f arrow.Field, path, top string, depth int) (*mnode, error) {
	if depth > maxDepth {
		return nil, unsupported(path, f.Type, "nested too deeply")
	}
	// npyflow's own fields: the exact numpy type from the metadata.
	if dt, shape, ok := metaDType(f); ok {
		return m.planNumpy(f.Type, dt, shape, path, depth)
	}
	nd := &mnode{path: path, atype: f.Type, width: -1, listLen: -1}
	t := f.Type
	if ext, ok := t.(arrow.ExtensionType); ok {
		t = ext.StorageType()
		nd.atype = t
		if ft, ok := ext.(*FixedShapeTensorType); ok && !ft.permuted() {
			// A tensor per row: a subarray of the tensor's shape (a
			// permuted one: its values in storage order).
			fsl := t.(*arrow.FixedSizeListType)
			c, err := m.plan(fsl.ElemField(), path+"[]", top, depth+1)
			if err != nil {
				return nil, err
			}
			nd.kind, nd.children, nd.listLen, nd.lshape = mList, []*mnode{c}, int(fsl.Len()), ft.shape
			return nd, nil
		}
	}
	fixed := func(d *npyio.DType) (*mnode, error) {
		nd.kind, nd.dt, nd.size, nd.esize = mFixed, d, d.Size, d.Size
		return nd, nil
	}
	timeDT := func(unit string, delta bool, k mkind) (*mnode, error) {
		d, err := npyio.NewDatetime(unit, 1, delta)
		if err != nil {
			return nil, err
		}
		nd.kind, nd.dt, nd.size, nd.isTime = k, d, 8, true
		return nd, nil
	}
	units := []string{"s", "ms", "us", "ns"}
	switch t := t.(type) {
	case *arrow.BooleanType:
		nd.kind, nd.dt, nd.size = mBool, npyio.BoolType, 1
		return nd, nil
	case *arrow.Int8Type:
		return fixed(npyio.Int8Type)
	case *arrow.Int16Type:
		return fixed(npyio.Int16Type)
	case *arrow.Int32Type:
		return fixed(npyio.Int32Type)
	case *arrow.Int64Type:
		return fixed(npyio.Int64Type)
	case *arrow.Uint8Type:
		return fixed(npyio.Uint8Type)
	case *arrow.Uint16Type:
		return fixed(npyio.Uint16Type)
	case *arrow.Uint32Type:
		return fixed(npyio.Uint32Type)
	case *arrow.Uint64Type:
		return fixed(npyio.Uint64Type)
	case *arrow.Float16Type:
		nd.isFloat = true
		return fixed(npyio.Float16Type)
	case *arrow.Float32Type:
		nd.isFloat = true
		return fixed(npyio.Float32Type)
	case *arrow.Float64Type:
		nd.isFloat = true
		return fixed(npyio.Float64Type)
	case *arrow.TimestampType:
		return timeDT(units[t.Unit], false, mTime64)
	case *arrow.DurationType:
		return timeDT(units[t.Unit], true, mTime64)
	case *arrow.Time64Type:
		return timeDT(units[t.Unit], true, mTime64)
	case *arrow.Time32Type:
		return timeDT(units[t.Unit], true, mTime32)
	case *arrow.Date32Type:
		return timeDT("D", false, mTime32)
	case *arrow.Date64Type:
		return timeDT("ms", false, mTime64)
	case *arrow.MonthIntervalType:
		st, err := npyio.NewStruct([]npyio.Field{{Name: "months", Type: npyio.Int32Type}})
		if err != nil {
			return nil, err
		}
		return fixed(st)
	case *arrow.DayTimeIntervalType:
		st, err := npyio.NewStruct([]npyio.Field{{Name: "days", Type: npyio.Int32Type}, {Name: "milliseconds", Type: npyio.Int32Type}})
		if err != nil {
			return nil, err
		}
		return fixed(st)
	case *arrow.MonthDayNanoIntervalType:
		st, err := npyio.NewStruct([]npyio.Field{{Name: "months", Type: npyio.Int32Type}, {Name: "days", Type: npyio.Int32Type}, {Name: "nanoseconds", Type: npyio.Int64Type}})
		if err != nil {
			return nil, err
		}
		return fixed(st)
	case *arrow.FixedSizeBinaryType:
		kind := npyio.Void
		if m.opts.FixedBinaryBytes {
			kind = npyio.Bytes
		}
		if t.ByteWidth == 0 {
			return nil, unsupported(path, t, "numpy has no zero-width "+kind.String()+" field")
		}
		d, err := npyio.NewString(kind, t.ByteWidth)
		if err != nil {
			return nil, err
		}
		return fixed(d)
	case arrow.DecimalType:
		nd.scale, nd.prec = t.GetScale(), t.GetPrecision()
		nd.esize = int(t.BitWidth() / 8)
		if m.opts.Decimal == DecimalScaledInt64 {
			if nd.prec > 18 {
				return nil, unsupported(path, t, "more than 18 digits do not fit an exact scaled int64; read it as f8 (the float64 decimal mode), or leave the column out")
			}
			nd.kind, nd.dt, nd.size = mDecI64, npyio.Int64Type, 8
			return nd, nil
		}
		nd.kind, nd.dt, nd.size, nd.isFloat = mDecF8, npyio.Float64Type, 8, true
		return nd, nil
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		nd.kind = mString
		return nd, m.width(nd, top)
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType:
		nd.kind = mBinary
		return nd, m.width(nd, top)
	case *arrow.StructType:
		if t.NumFields() == 0 {
			return nil, unsupported(path, t, "numpy has no empty structured field")
		}
		if m.complexStructs && isComplex(t) {
			dt := npyio.Complex128
			if t.Field(0).Type.ID() == arrow.FLOAT32 {
				dt = npyio.Complex64
			}
			return m.planNumpy(t, dt, nil, path, depth)
		}
		nd.kind = mStruct
		for _, cf := range t.Fields() {
			c, err := m.plan(cf, path+"."+cf.Name, top, depth+1)
			if err != nil {
				return nil, err
			}
			title, _ := cf.Metadata.GetValue(MetaTitle)
			nd.children = append(nd.children, c)
			nd.names = append(nd.names, cf.Name)
			nd.titles = append(nd.titles, title)
			nd.nullable = append(nd.nullable, cf.Nullable)
		}
		return nd, nil
	case *arrow.FixedSizeListType:
		c, err := m.plan(t.ElemField(), path+"[]", top, depth+1)
		if err != nil {
			return nil, err
		}
		nd.kind, nd.children, nd.listLen = mList, []*mnode{c}, int(t.Len())
		return nd, nil
	case *arrow.ListType, *arrow.LargeListType, *arrow.ListViewType, *arrow.LargeListViewType:
		if m.opts.Measure != nil {
			var err error
			if nd.listLen, err = m.opts.Measure(path, t); err != nil {
				return nil, err
			}
		}
		c, err := m.plan(t.(arrow.ListLikeType).ElemField(), path+"[]", top, depth+1)
		if err != nil {
			return nil, err
		}
		nd.kind, nd.children = mList, []*mnode{c}
		return nd, nil
	case *arrow.DictionaryType:
		c, err := m.plan(arrow.Field{Name: f.Name, Type: t.ValueType, Nullable: true}, path, top, depth+1)
		if err != nil {
			return nil, err
		}
		if !arrow.IsInteger(t.IndexType.ID()) {
			return nil, unsupported(path, t, "dictionary indexes are not integers")
		}
		nd.kind, nd.children = mDict, []*mnode{c}
		nd.isFloat, nd.isTime = c.isFloat, c.isTime
		return nd, nil
	case *arrow.MapType:
		return nil, unsupported(path, t, "numpy has no map type"+dropHint)
	case arrow.UnionType:
		return nil, unsupported(path, t, "numpy has no union type"+dropHint)
	case *arrow.RunEndEncodedType:
		return nil, unsupported(path, t, "run-end encoded arrays are not supported"+dropHint)
	case *arrow.NullType:
		return nil, unsupported(path, t, "a column of the null type has no values"+dropHint)
	}
	return nil, unsupported(path, t, "no numpy equivalent"+dropHint)
}

// metaDType returns the numpy type and subarray shape of f's numpy.descr
// metadata ([Schema]), if it is there and matches f's Arrow type.
func metaDType(f arrow.Field) (*npyio.DType, []int, bool) {
	d, ok := f.Metadata.GetValue(MetaDescr)
	if !ok {
		return nil, nil, false
	}
	var shape []int
	if s, ok := f.Metadata.GetValue(MetaShape); ok {
		var err error
		if shape, err = parseShapeJSON(s); err != nil {
			return nil, nil, false
		}
	}
	dt, err := npyio.ParseDescr(d)
	if err != nil {
		return nil, nil, false
	}
	t, err := FieldType(dt, shape)
	if err != nil || !arrow.TypeEqual(t, f.Type) {
		return nil, nil, false
	}
	return dt, shape, true
}

// planNumpy builds the node of an array of Arrow type t that holds numpy
// values of type dt with subarray shape shape, t being the type [Schema]
// gives them (FieldType(dt, shape)): the numpy type is kept exactly
// (byte order, padding, titles, time units), the bytes are native.
func (m *Mapping) planNumpy(t arrow.DataType, dt *npyio.DType, shape []int, path string, depth int) (*mnode, error) {
	if depth > maxDepth {
		return nil, unsupported(path, t, "nested too deeply")
	}
	if ext, ok := t.(arrow.ExtensionType); ok {
		t = ext.StorageType()
	}
	nd := &mnode{path: path, atype: t, exact: true, width: -1, listLen: -1}
	if len(shape) > 0 {
		// FieldType gives one fixed-size list (or a tensor of one) for
		// the axes of a subarray.
		fsl, ok := t.(*arrow.FixedSizeListType)
		if !ok || int(fsl.Len()) != prod(shape) {
			return nil, unsupported(path, t, "not the fixed-size list of a subarray")
		}
		c, err := m.planNumpy(fsl.Elem(), dt, nil, path+"[]", depth+1)
		if err != nil {
			return nil, err
		}
		nd.kind, nd.children, nd.listLen, nd.lshape = mList, []*mnode{c}, prod(shape), shape
		return nd, nil
	}
	nd.dt, nd.size, nd.esize = dt, dt.Size, dt.Size
	switch dt.Kind {
	case npyio.Bool:
		nd.kind = mBool
	case npyio.Int, npyio.Uint:
		nd.kind = mFixed
	case npyio.Float:
		nd.kind, nd.isFloat = mFixed, true
	case npyio.Complex:
		st, ok := t.(*arrow.StructType)
		if !ok || !isComplex(st) {
			return nil, unsupported(path, t, "not the struct<real, imag> of a complex")
		}
		part := &npyio.DType{Kind: npyio.Float, Order: dt.Order, Size: dt.Size / 2}
		nd.kind = mStruct
		for k, name := range []string{"real", "imag"} {
			nd.children = append(nd.children, &mnode{path: path + "." + name, kind: mFixed, atype: st.Field(k).Type, dt: part, size: part.Size, esize: part.Size, exact: true, isFloat: true})
			nd.names, nd.titles, nd.nullable = append(nd.names, name), append(nd.titles, ""), append(nd.nullable, true)
			nd.foffs = append(nd.foffs, k*part.Size)
		}
	case npyio.Unicode:
		nd.kind, nd.width = mString, dt.Size/4
	case npyio.Bytes:
		nd.kind, nd.width = mBinary, dt.Size
	case npyio.Void:
		nd.kind = mFixed
		if dt.Size == 0 {
			nd.kind, nd.width = mBinary, 0 // empty Binary values
		}
	case npyio.Datetime, npyio.Timedelta:
		tc, err := timeMapping(dt)
		if err != nil {
			return nil, err
		}
		nd.kind, nd.factor, nd.isTime, nd.size = mTime64, tc.factor, true, 8
		if tc.date32 {
			nd.kind = mTime32
		}
	case npyio.Struct:
		st, ok := t.(*arrow.StructType)
		if !ok || st.NumFields() != len(dt.Fields) {
			return nil, unsupported(path, t, "not the struct of a structured numpy type")
		}
		nd.kind = mStruct
		for k := range dt.Fields {
			f := &dt.Fields[k]
			c, err := m.planNumpy(st.Field(k).Type, f.Type, f.Shape, path+"."+f.Name, depth+1)
			if err != nil {
				return nil, err
			}
			nd.children = append(nd.children, c)
			nd.names, nd.titles = append(nd.names, f.Name), append(nd.titles, f.Title)
			nd.nullable, nd.foffs = append(nd.nullable, st.Field(k).Nullable), append(nd.foffs, f.Offset)
		}
	default:
		return nil, unsupported(path, t, "no numpy equivalent")
	}
	return nd, nil
}

// isComplex reports whether t is struct<real: f, imag: f> with f float32
// or float64, the Arrow form of a numpy complex.
func isComplex(t *arrow.StructType) bool {
	if t.NumFields() != 2 || t.Field(0).Name != "real" || t.Field(1).Name != "imag" {
		return false
	}
	a, b := t.Field(0).Type.ID(), t.Field(1).Type.ID()
	return a == b && (a == arrow.FLOAT32 || a == arrow.FLOAT64)
}

func prod(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// width fixes the width of a string or binary node, if StringWidths or
// Measure gives it.
func (m *Mapping) width(nd *mnode, top string) error {
	if w, ok := m.opts.StringWidths[top]; ok {
		nd.width = w
	} else if m.opts.Measure != nil {
		w, err := m.opts.Measure(nd.path, nd.atype)
		if err != nil {
			return err
		}
		nd.width = w
	}
	return nd.setWidth()
}

// setWidth makes the dtype of a string or binary node of known width.
func (nd *mnode) setWidth() error {
	if nd.width < 0 {
		return nil
	}
	kind, per := npyio.Unicode, 4
	if nd.kind == mBinary {
		kind, per = npyio.Bytes, 1
	}
	d, err := npyio.NewString(kind, max(nd.width, 1))
	if err != nil {
		return fmt.Errorf("arrowconv: column %q: %w", nd.path, err)
	}
	nd.dt, nd.size = d, d.Size
	_ = per
	return nil
}

// NeedsScan reports whether some string width or list length is not known
// from the schema, options or metadata, so that [Mapping.Scan] must see
// the data before [Mapping.DType] or [Mapping.Encode].
func (m *Mapping) NeedsScan() bool {
	if m.frozen {
		return false
	}
	for _, c := range m.cols {
		if c.needsScan() {
			return true
		}
	}
	return false
}

func (nd *mnode) needsScan() bool {
	if (nd.kind == mString || nd.kind == mBinary) && nd.dt == nil || nd.kind == mList && nd.listLen < 0 {
		return true
	}
	for _, c := range nd.children {
		if c.needsScan() {
			return true
		}
	}
	return false
}

// Schema returns the Arrow schema of the mapping.
func (m *Mapping) Schema() *arrow.Schema { return m.schema }

// Scan measures the strings and lists of rec (every batch of the input,
// before the first Encode): string widths become the widest value seen,
// list lengths the one length every list must have. A list whose length
// differs from the others is a [*ValueError] naming its row.
func (m *Mapping) Scan(rec arrow.RecordBatch) error {
	if m.frozen {
		if !m.scans {
			return nil // the schema fixes every width and length
		}
		return errors.New("arrowconv: Mapping.Scan after the dtype was fixed (by DType, Header or Encode)")
	}
	if err := m.check(rec); err != nil {
		return err
	}
	for k, c := range m.cols {
		if c.needsScan() || c.kind == mList {
			if err := c.scan(rec.Column(k), m.scanned, nil, nil); err != nil {
				return err
			}
		}
	}
	m.scanned += rec.NumRows()
	m.didScan = true
	return nil
}

// scan updates widths and list lengths from arr. rowOf maps value i to
// its row (nil: i itself); idx selects values (dictionary indexes).
func (nd *mnode) scan(arr arrow.Array, row0 int64, rowOf func(int) int64, sel []int) error {
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	row := func(i int) int64 {
		if rowOf != nil {
			return rowOf(i)
		}
		return row0 + int64(i)
	}
	n := arr.Len()
	switch nd.kind {
	case mString, mBinary:
		if nd.dt != nil && nd.width >= 0 && !nd.scanning() {
			return nil
		}
		get, err := bytesGetter(arr)
		if err != nil {
			return fmt.Errorf("arrowconv: column %q: %w", nd.path, err)
		}
		w := nd.width
		for i := 0; i < n; i++ {
			if arr.IsNull(i) {
				continue
			}
			v := get(i)
			l := len(v)
			if nd.kind == mString {
				l = utf8.RuneCount(v)
			}
			w = max(w, l)
		}
		if s, ok := nd.fill.(string); ok {
			if nd.kind == mString {
				w = max(w, utf8.RuneCountInString(s))
			} else {
				w = max(w, len(s))
			}
		} else if b, ok := nd.fill.([]byte); ok {
			w = max(w, len(b))
		}
		nd.width = w
	case mDict:
		d := arr.(*array.Dictionary)
		return nd.children[0].scan(d.Dictionary(), row0, func(int) int64 { return row0 }, nil)
	case mStruct:
		s := arr.(*array.Struct)
		for k, c := range nd.children {
			if err := c.scan(s.Field(k), row0, rowOf, nil); err != nil {
				return err
			}
		}
	case mList:
		l, ok := arr.(array.ListLike)
		if !ok {
			return fmt.Errorf("arrowconv: column %q is %s, not a list", nd.path, arr.DataType())
		}
		if _, fixed := l.DataType().(*arrow.FixedSizeListType); !fixed {
			for i := 0; i < n; i++ {
				if l.IsNull(i) {
					continue
				}
				s, e := l.ValueOffsets(i)
				k := int(e - s)
				if nd.listLen < 0 {
					nd.listLen, nd.listRow = k, row(i)
				} else if k != nd.listLen {
					return nd.lengthErr(row(i), k)
				}
			}
		}
		if nd.children[0].needsScan() {
			vals := l.ListValues()
			if _, fixed := l.DataType().(*arrow.FixedSizeListType); fixed {
				k := int64(nd.listLen)
				off := int64(l.Data().Offset())
				vals = array.NewSlice(vals, off*k, (off+int64(n))*k)
				defer vals.Release()
			}
			return nd.children[0].scan(vals, row0, func(int) int64 { return row0 }, nil)
		}
	}
	return nil
}

// scanning reports whether a string node's width still grows with scans.
func (nd *mnode) scanning() bool { return nd.dt == nil }

func (nd *mnode) lengthErr(row int64, k int) error {
	return &ValueError{Field: nd.path, Row: row, Err: fmt.Errorf(
		"%w: a list of %d values where row %d has %d; numpy needs one length per column (a subarray field)"+dropHint,
		ErrRange, k, nd.listRow, nd.listLen)}
}

// freeze fixes every width and builds the dtype.
func (m *Mapping) freeze() error {
	if m.frozen {
		return nil
	}
	if !m.didScan && m.NeedsScan() {
		return errors.New("arrowconv: the mapping needs a Scan of the data first (string widths or list lengths are not in the schema)")
	}
	for _, c := range m.cols {
		if err := c.build(); err != nil {
			return err
		}
	}
	fields := []npyio.Field{}
	for k, c := range m.cols {
		f := m.schema.Field(k)
		title, _ := f.Metadata.GetValue(MetaTitle)
		fields = append(fields, npyio.Field{Name: columnName(f.Name, c), Title: title, Type: c.dt, Shape: c.shape})
		if m.valid[k] {
			fields = append(fields, npyio.Field{Name: ValidityName(f.Name), Type: npyio.BoolType})
		}
		if m.items[k] {
			fields = append(fields, npyio.Field{Name: ItemsValidityName(f.Name), Type: npyio.BoolType, Shape: []int{c.listLen}})
		}
	}
	m.offs = make([]int, len(m.cols))
	m.voffs = make([]int, len(m.cols))
	m.ioffs = make([]int, len(m.cols))
	m.cdims = make([][]dim, len(m.cols))
	m.csize = make([]int, len(m.cols))
	for k, c := range m.cols {
		m.csize[k] = c.size
	}
	if m.src != nil && m.arrayFields(fields) {
		m.single = false
		for k := range m.cols {
			m.voffs[k], m.ioffs[k] = -1, -1
		}
	} else if m.single && m.cols[0].kind != mDecI64 && !m.cols[0].record() {
		c := m.cols[0]
		m.dt, m.shape, m.rowSize = c.dt, c.shape, c.size
		m.voffs[0], m.ioffs[0] = -1, -1
	} else {
		m.single = false
		st, err := npyio.NewStruct(fields)
		if err != nil {
			return fmt.Errorf("arrowconv: %w", err)
		}
		m.dt, m.rowSize = st, st.Size
		j := 0
		for k := range m.cols {
			m.offs[k] = st.Fields[j].Offset
			j++
			m.voffs[k], m.ioffs[k] = -1, -1
			if m.valid[k] {
				m.voffs[k] = st.Fields[j].Offset
				j++
			}
			if m.items[k] {
				m.ioffs[k] = st.Fields[j].Offset
				j++
			}
		}
	}
	m.dense = dense(m.dt)
	m.frozen = true
	return nil
}

// record reports whether nd (built) maps to a numpy record: a struct, an
// interval (months, days, ...), a list of one length of either, a
// dictionary of either. A column of it alone keeps its name, a one-field
// structured array, as parquetio keeps a lone group's, so that it is told
// apart from a table of its fields' columns.
func (nd *mnode) record() bool {
	return nd.dt != nil && nd.dt.Kind == npyio.Struct
}

// arrayFields lays rows out as the structured array the schema came from
// (its metadata, see arrayMeta), when fields (one per column, no
// validity fields) are still its fields: the axes after the first are
// the rows' shape again, taken off the front of every column's shape, and
// the source's descr keeps its padding and offsets when the fields are
// exactly its own.
func (m *Mapping) arrayFields(fields []npyio.Field) bool {
	row := m.srcRow
	stripped := make([]npyio.Field, len(fields))
	for i, f := range fields {
		if len(f.Shape) < len(row) || !slices.Equal(f.Shape[:len(row)], row) {
			return false
		}
		stripped[i] = f
		stripped[i].Shape = nil
		if len(f.Shape) > len(row) {
			stripped[i].Shape = f.Shape[len(row):]
		}
	}
	st := m.src
	if !sameFields(st.Fields, stripped) {
		var err error
		if st, err = npyio.NewStruct(stripped); err != nil {
			return false
		}
	}
	n := prod(row)
	m.dt, m.shape, m.rowSize = st, slices.Clone(row), st.Size*n
	for k := range m.cols {
		f := &st.Fields[k]
		m.offs[k] = f.Offset
		if len(row) > 0 {
			m.cdims[k], m.csize[k] = []dim{{n, st.Size}}, f.Size()
		}
	}
	return true
}

func sameFields(a, b []npyio.Field) bool {
	return slices.EqualFunc(a, b, func(x, y npyio.Field) bool {
		return x.Name == y.Name && x.Title == y.Title && x.Type.Equal(y.Type) && slices.Equal(x.Shape, y.Shape)
	})
}

// build computes the dtype and size of nd and its children.
func (nd *mnode) build() error {
	switch nd.kind {
	case mString, mBinary:
		if nd.width < 0 {
			nd.width = 0 // no value seen: numpy's one-character minimum
		}
		if nd.dt == nil {
			if err := nd.setWidth(); err != nil {
				return err
			}
		}
	case mStruct:
		fields := make([]npyio.Field, 0, len(nd.children))
		fidx := make([]int, len(nd.children))
		for k, c := range nd.children {
			if err := c.build(); err != nil {
				return err
			}
			if nd.exact {
				continue // dt and offsets from the metadata
			}
			fidx[k] = len(fields)
			fields = append(fields, npyio.Field{Name: columnName(nd.names[k], c), Title: nd.titles[k], Type: c.dt, Shape: c.shape})
			if nd.cvalid != nil && nd.cvalid[k] {
				fields = append(fields, npyio.Field{Name: ValidityName(nd.names[k]), Type: npyio.BoolType})
			}
		}
		nd.cvoffs = make([]int, len(nd.children))
		if nd.exact {
			for k := range nd.cvoffs {
				nd.cvoffs[k] = -1
			}
			break
		}
		st, err := npyio.NewStruct(fields)
		if err != nil {
			return fmt.Errorf("arrowconv: column %q: %w", nd.path, err)
		}
		nd.dt, nd.size = st, st.Size
		nd.foffs = make([]int, len(nd.children))
		for k, j := range fidx {
			nd.foffs[k], nd.cvoffs[k] = st.Fields[j].Offset, -1
			if nd.cvalid != nil && nd.cvalid[k] {
				nd.cvoffs[k] = st.Fields[j+1].Offset
			}
		}
	case mList:
		c := nd.children[0]
		if err := c.build(); err != nil {
			return err
		}
		if nd.listLen < 0 {
			nd.listLen = 0
		}
		axes := nd.lshape
		if axes == nil {
			axes = []int{nd.listLen}
		}
		nd.dt, nd.shape = c.dt, concatShape(axes, c.shape)
		nd.size = c.size * nd.listLen
	case mDict:
		c := nd.children[0]
		if err := c.build(); err != nil {
			return err
		}
		nd.dt, nd.shape, nd.size = c.dt, c.shape, c.size
	}
	if nd.dt == nil {
		return fmt.Errorf("arrowconv: column %q: no numpy type", nd.path)
	}
	if nd.size > maxRowBytes {
		return fmt.Errorf("arrowconv: column %q: a value of %d bytes is too large for a numpy row", nd.path, nd.size)
	}
	switch {
	case nd.kind == mList && nd.children[0].fillB != nil:
		nd.fillB = bytes.Repeat(nd.children[0].fillB, nd.listLen*prod(nd.children[0].shape))
	case nd.kind == mDict:
		nd.fillB = nd.children[0].fillB
	case nd.kind == mStruct && nd.fill != nil:
		nd.fillB = nd.nullElem() // every field's fill value
	}
	if nd.fill != nil && nd.kind != mList && nd.kind != mDict && nd.kind != mStruct {
		b, err := FillValue(nd.dt, nd.fill)
		if err != nil {
			return fmt.Errorf("arrowconv: column %q: fill value %v: %w", nd.path, nd.fill, err)
		}
		nd.fillB = b
	}
	return nil
}

// maxRowBytes bounds one row, so that widths from the data cannot ask for
// huge allocations.
const maxRowBytes = 1 << 30

// FillValue encodes v as one element of dt in native byte order: the
// bytes written where a column is null when it has a fill value
// ([MapOptions.Fill]; parquetio's ReadOptions.Fill). v may be a Go
// integer, float or bool, a string (parsed for numeric, bool and time
// types; the value itself, valid UTF-8, for U; its bytes for S and V), or
// []byte for S and V. A value the type cannot hold exactly is an error
// (wrapping [ErrRange] when it is out of range).
func FillValue(dt *npyio.DType, v any) ([]byte, error) {
	if dt.Size == 0 {
		return nil, fmt.Errorf("no fill value for %s", dt.TypeStr())
	}
	b := make([]byte, dt.Size)
	p := unsafe.Pointer(&b[0])
	str, isStr := v.(string)
	switch dt.Kind {
	case npyio.Bool:
		var x bool
		switch v := v.(type) {
		case bool:
			x = v
		case string:
			var err error
			if x, err = strconv.ParseBool(v); err != nil {
				return nil, err
			}
		default:
			i, err := toInt64(v)
			if err != nil || i < 0 || i > 1 {
				return nil, errors.New("not a bool")
			}
			x = i == 1
		}
		if x {
			b[0] = 1
		}
	case npyio.Int, npyio.Datetime, npyio.Timedelta:
		var i int64
		var err error
		if isStr {
			i, err = strconv.ParseInt(str, 10, 64)
		} else {
			i, err = toInt64(v)
		}
		if err != nil {
			return nil, err
		}
		bits := 8 * dt.Size
		if bits < 64 && (i < -1<<(bits-1) || i >= 1<<(bits-1)) {
			return nil, fmt.Errorf("%w: %d does not fit %s", ErrRange, i, dt.TypeStr())
		}
		putUint(p, dt.Size, uint64(i))
	case npyio.Uint:
		var u uint64
		var err error
		if isStr {
			u, err = strconv.ParseUint(str, 10, 64)
		} else {
			var i int64
			if x, ok := v.(uint64); ok {
				u = x
			} else if i, err = toInt64(v); err == nil {
				if i < 0 {
					err = fmt.Errorf("%w: %d is negative", ErrRange, i)
				}
				u = uint64(i)
			}
		}
		if err != nil {
			return nil, err
		}
		if bits := 8 * dt.Size; bits < 64 && u >= 1<<bits {
			return nil, fmt.Errorf("%w: %d does not fit %s", ErrRange, u, dt.TypeStr())
		}
		putUint(p, dt.Size, u)
	case npyio.Float:
		var f float64
		var err error
		switch v := v.(type) {
		case string:
			f, err = strconv.ParseFloat(v, 64)
		case float64:
			f = v
		case float32:
			f = float64(v)
		default:
			var i int64
			i, err = toInt64(v)
			f = float64(i)
		}
		if err != nil {
			return nil, err
		}
		switch dt.Size {
		case 2:
			*(*uint16)(p) = float16.New(float32(f)).Uint16()
		case 4:
			*(*float32)(p) = float32(f)
		case 8:
			*(*float64)(p) = f
		}
	case npyio.Unicode:
		if !isStr || !utf8.ValidString(str) {
			return nil, errors.New("not a string of valid UTF-8")
		}
		if utf8.RuneCountInString(str)*4 > dt.Size {
			return nil, fmt.Errorf("%w: longer than %s", ErrRange, dt.TypeStr())
		}
		k := 0
		for _, r := range str {
			*(*uint32)(unsafe.Pointer(&b[k])) = uint32(r)
			k += 4
		}
	case npyio.Bytes, npyio.Void:
		var s []byte
		switch v := v.(type) {
		case string:
			s = []byte(v)
		case []byte:
			s = v
		default:
			return nil, errors.New("not bytes or a string")
		}
		if len(s) > dt.Size || dt.Kind == npyio.Void && len(s) != dt.Size {
			return nil, fmt.Errorf("%w: %d bytes for %s", ErrRange, len(s), dt.TypeStr())
		}
		copy(b, s)
	default:
		return nil, fmt.Errorf("no fill value for %s", dt.TypeStr())
	}
	return b, nil
}

func toInt64(v any) (int64, error) {
	switch v := v.(type) {
	case int:
		return int64(v), nil
	case int8:
		return int64(v), nil
	case int16:
		return int64(v), nil
	case int32:
		return int64(v), nil
	case int64:
		return v, nil
	case uint8:
		return int64(v), nil
	case uint16:
		return int64(v), nil
	case uint32:
		return int64(v), nil
	case uint:
		if uint64(v) > math.MaxInt64 {
			return 0, ErrRange
		}
		return int64(v), nil
	case uint64:
		if v > math.MaxInt64 {
			return 0, ErrRange
		}
		return int64(v), nil
	case float64:
		if v != math.Trunc(v) || math.Abs(v) >= 1<<63 {
			return 0, fmt.Errorf("%w: %v is not a whole number", ErrRange, v)
		}
		return int64(v), nil
	}
	return 0, fmt.Errorf("%T is not a number", v)
}

func putUint(p unsafe.Pointer, size int, u uint64) {
	switch size {
	case 1:
		*(*uint8)(p) = uint8(u)
	case 2:
		*(*uint16)(p) = uint16(u)
	case 4:
		*(*uint32)(p) = uint32(u)
	case 8:
		*(*uint64)(p) = u
	}
}

// DType returns the numpy dtype of the rows (fixing string widths and
// list lengths: no Scan after it). The bytes [Mapping.Encode] writes are
// laid out as DType().Native().
func (m *Mapping) DType() (*npyio.DType, error) {
	if err := m.freeze(); err != nil {
		return nil, err
	}
	return m.dt, nil
}

// Fields returns the numpy field of each column: its name (a scaled
// decimal's [ScaledName]), title, element type, subarray shape and
// offset in a row (which, with validity fields, has fields in between).
func (m *Mapping) Fields() ([]npyio.Field, error) {
	if err := m.freeze(); err != nil {
		return nil, err
	}
	out := make([]npyio.Field, len(m.cols))
	for k, c := range m.cols {
		f := m.schema.Field(k)
		title, _ := f.Metadata.GetValue(MetaTitle)
		out[k] = npyio.Field{Name: columnName(f.Name, c), Title: title, Type: c.dt, Shape: c.shape, Offset: m.offs[k]}
	}
	return out, nil
}

// columnName is the numpy name of column (or struct field) name mapped
// by nd: a scaled decimal's is [ScaledName].
func columnName(name string, nd *mnode) string {
	if nd.kind == mDict {
		nd = nd.children[0]
	}
	if nd.kind == mDecI64 {
		return ScaledName(name, nd.scale)
	}
	return name
}

// RowShape returns the shape of one row (the axes after the first): a
// single list column's subarray shape, or nil.
func (m *Mapping) RowShape() []int {
	if m.freeze() != nil {
		return nil
	}
	return slices.Clone(m.shape)
}

// RowSize returns the bytes of one encoded row.
func (m *Mapping) RowSize() (int, error) {
	if err := m.freeze(); err != nil {
		return 0, err
	}
	return m.rowSize, nil
}

// Header returns the .npy header of rows rows (shape () for a 0-d array:
// a schema npyflow wrote from one, whose single row is the whole array).
func (m *Mapping) Header(rows int64) (*npyio.Header, error) {
	if err := m.freeze(); err != nil {
		return nil, err
	}
	if m.zeroD && len(m.shape) == 0 {
		return &npyio.Header{DType: m.dt, Shape: []int{}}, nil
	}
	return &npyio.Header{DType: m.dt, Shape: append([]int{int(rows)}, m.shape...)}, nil
}

// check verifies that rec has the mapping's column types.
func (m *Mapping) check(rec arrow.RecordBatch) error {
	if int(rec.NumCols()) != m.schema.NumFields() {
		return fmt.Errorf("arrowconv: record has %d columns, the schema %d", rec.NumCols(), m.schema.NumFields())
	}
	if rs := rec.Schema(); rs != m.schema {
		for i, f := range rs.Fields() {
			if !arrow.TypeEqual(f.Type, m.schema.Field(i).Type) {
				return fmt.Errorf("arrowconv: record column %d (%q) is %s, the schema says %s", i, f.Name, f.Type, m.schema.Field(i).Type)
			}
		}
	}
	return nil
}

// Encode appends the numpy rows of rec to dst and returns the extended
// slice. Values are converted as [MapSchema] documents, or refused with a
// [*ValueError] or [*NullError] naming the column and row.
func (m *Mapping) Encode(rec arrow.RecordBatch, dst []byte) ([]byte, error) {
	return m.EncodeRows(rec, 0, int(rec.NumRows()), dst)
}

// EncodeRows appends rows [start, end) of rec to dst.
func (m *Mapping) EncodeRows(rec arrow.RecordBatch, start, end int, dst []byte) ([]byte, error) {
	if err := m.freeze(); err != nil {
		return dst, err
	}
	if err := m.check(rec); err != nil {
		return dst, err
	}
	if start < 0 || end < start || int64(end) > rec.NumRows() {
		return dst, fmt.Errorf("arrowconv: rows [%d, %d) are out of a record of %d rows", start, end, rec.NumRows())
	}
	n := end - start
	need := n * m.rowSize
	dst = slices.Grow(dst, need)
	buf := dst[len(dst) : len(dst)+need]
	if !m.dense {
		clear(buf)
	}
	// Rows go in tiles that stay in cache while every column is scattered
	// into them.
	tile := max(1, tileBytes/max(m.rowSize, 1))
	for t0 := start; t0 < end; t0 += tile {
		t1 := min(end, t0+tile)
		if err := m.encodeTile(rec, t0, t1, buf[(t0-start)*m.rowSize:(t1-start)*m.rowSize], m.rows+int64(t0-start)); err != nil {
			var ne *NullError
			if errors.As(err, &ne) && (t0 > start || t1 < end) {
				// Count the nulls of the whole range, not the tile's.
				if err2 := m.encodeTile(rec, start, end, buf, m.rows); err2 != nil {
					err = err2
				}
			}
			return dst, err
		}
	}
	m.rows += int64(n)
	return dst[:len(dst)+need], nil
}

// tileBytes is the size of the row tiles EncodeRows fills column by
// column. Tiles of 128 KiB (to stay in cache) were measured 40% slower
// than one pass per column over 64Ki rows of 29 bytes (benchmarks/RESULTS.md,
// "Issue 16: Arrow IPC -> .npy, session 15"): the strided stores stream
// well, the extra slicing and passes per tile do not pay. Tiles now only
// bound the range one pass covers.
const tileBytes = 8 << 20

// encodeTile writes rows [start, end) of rec to buf; row0 numbers the
// first for errors.
func (m *Mapping) encodeTile(rec arrow.RecordBatch, start, end int, buf []byte, row0 int64) error {
	n := end - start
	dims := coalesce([]dim{{n, m.rowSize}})
	for k, c := range m.cols {
		col := rec.Column(k)
		if m.cdims[k] == nil && m.voffs[k] < 0 && m.ioffs[k] < 0 {
			if src, ok := c.storedValues(col, start, end); ok {
				scatter(buf, m.offs[k], dims, src, c.size)
				continue
			}
		}
		if start > 0 || end < col.Len() {
			col = array.NewSlice(col, int64(start), int64(end))
			defer col.Release()
		}
		src, err := c.pack(m, col, row0, nil, nil)
		if err != nil {
			return err
		}
		if m.cdims[k] != nil {
			scatter(buf, m.offs[k], coalesce(append([]dim{{n, m.rowSize}}, m.cdims[k]...)), src, m.csize[k])
		} else {
			scatter(buf, m.offs[k], dims, src, c.size)
		}
		if vo := m.voffs[k]; vo >= 0 {
			if col.NullN() > 0 {
				vb := c.scratchNulls(n)
				for i := range vb {
					vb[i] = 1
					if col.IsNull(i) {
						vb[i] = 0
					}
				}
				scatter(buf, vo, dims, vb, 1)
			} else {
				for i := 0; i < n; i++ {
					buf[i*m.rowSize+vo] = 1
				}
			}
		}
		if io := m.ioffs[k]; io >= 0 && c.listLen > 0 {
			vb, err := c.itemsValid(col)
			if err != nil {
				return err
			}
			scatter(buf, io, dims, vb, c.listLen)
		}
	}
	return nil
}

// storedValues returns what pack gives for rows [start, end) of arr
// when that is arr's values as stored (fixed-width elements numpy keeps
// as they are, no nulls), without slicing arr: EncodeRows is called on
// small ranges of large records, and a slice per column per call costs
// allocations.
func (nd *mnode) storedValues(arr arrow.Array, start, end int) ([]byte, bool) {
	if nd.kind != mFixed || nd.esize != nd.size || arr.NullN() > 0 {
		return nil, false
	}
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	if start == end {
		return nil, true
	}
	return values(arr, nd.esize)[start*nd.esize : end*nd.esize], true
}

// itemsValid is the element validity of list column arr (nd's lists of
// nd.listLen elements): one byte per element, 0 where the element is
// null (a null dictionary value too) or its list is.
func (nd *mnode) itemsValid(arr arrow.Array) ([]byte, error) {
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	l, ok := arr.(array.ListLike)
	if !ok {
		return nil, fmt.Errorf("arrowconv: column %q is %s, not a list", nd.path, arr.DataType())
	}
	n, k := arr.Len(), nd.listLen
	vb := nd.scratchNulls(n * k)
	vals := l.ListValues()
	if ext, ok := vals.(array.ExtensionArray); ok {
		vals = ext.Storage()
	}
	isNull := vals.IsNull
	if d, ok := vals.(*array.Dictionary); ok {
		if dv := d.Dictionary(); dv.NullN() > 0 {
			isNull = func(j int) bool { return d.IsNull(j) || dv.IsNull(d.GetValueIndex(j)) }
		}
	}
	_, fixed := l.DataType().(*arrow.FixedSizeListType)
	off := l.Data().Offset()
	for i := 0; i < n; i++ {
		row := vb[i*k : (i+1)*k]
		if l.IsNull(i) {
			clear(row)
			continue
		}
		var s int64
		if fixed {
			s = int64(off+i) * int64(k)
		} else {
			var e int64
			s, e = l.ValueOffsets(i)
			if int(e-s) != k {
				return nil, nd.lengthErr(int64(i), int(e-s))
			}
		}
		for j := range row {
			row[j] = b2u(!isNull(int(s) + j))
		}
	}
	return vb, nil
}

func (nd *mnode) scratchBytes(n int) []byte {
	if cap(nd.scratch) < n {
		nd.scratch = alignedBuf(max(n, 2*cap(nd.scratch)))
	}
	return nd.scratch[:n]
}

func (nd *mnode) scratchNulls(n int) []byte {
	if cap(nd.nulls) < n {
		nd.nulls = make([]byte, max(n, 2*cap(nd.nulls)))
	}
	return nd.nulls[:n]
}

// pack returns the values of arr as packed numpy elements (arr.Len() *
// nd.size bytes). The result may alias arr's buffers: read only, valid
// until the next pack of nd. row0 is the row of arr's first value;
// rowOf, if not nil, maps value i to its row. skip, if not nil, says
// which values do not count (their parent is null, or they are dictionary
// values, where the indexes decide): nulls there become zeros, never a
// refusal.
func (nd *mnode) pack(m *Mapping, arr arrow.Array, row0 int64, rowOf func(int) int64, skip func(int) bool) ([]byte, error) {
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	n := arr.Len()
	row := func(i int) int64 {
		if rowOf != nil {
			return rowOf(i)
		}
		return row0 + int64(i)
	}
	var out []byte
	switch nd.kind {
	case mFixed:
		out = values(arr, nd.esize)
	case mBool:
		out = nd.scratchBytes(n)
		if n > 0 {
			unpackBits(out, arr.Data().Buffers()[1].Bytes(), arr.Data().Offset())
		}
	case mTime64:
		out = values(arr, 8)
		v := unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(out))), n)
		if nd.factor > 1 {
			dst := unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(nd.scratchBytes(8*n)))), n)
			if err := nd.unscale(dst, v, arr, row); err != nil {
				return nil, err
			}
			out = nd.scratch[:8*n]
			break
		}
		// A stored NaT is refused unless the value is null (it becomes
		// NaT anyway).
		for i := 0; i < n; i++ {
			k := indexNaT(v[i:])
			if k < 0 {
				break
			}
			if i += k; !arr.IsNull(i) {
				return nil, &ValueError{Field: nd.path, Row: row(i), Err: fmt.Errorf("%w: %d is numpy's NaT", ErrRange, nat)}
			}
		}
	case mTime32:
		src := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(values(arr, 4)))), n)
		out = nd.scratchBytes(8 * n)
		dst := unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(out))), n)
		for i, x := range src {
			dst[i] = int64(x)
		}
		if nd.factor > 1 {
			if err := nd.unscale(dst, dst, arr, row); err != nil {
				return nil, err
			}
		}
	case mDecF8, mDecI64:
		src := values(arr, nd.esize)
		out = nd.scratchBytes(8 * n)
		dst := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(out))), n)
		hasNull := arr.NullN() > 0
		for i := range dst {
			if hasNull && arr.IsNull(i) {
				continue
			}
			v := src[i*nd.esize : (i+1)*nd.esize]
			if nd.kind == mDecF8 {
				dst[i] = math.Float64bits(decimalFloat(v, nd.scale))
			} else {
				x, ok := decimalInt64(v)
				if !ok {
					return nil, &ValueError{Field: nd.path, Row: row(i), Err: fmt.Errorf("%w: decimal does not fit an int64", ErrRange)}
				}
				dst[i] = uint64(x)
			}
		}
	case mString, mBinary:
		var err error
		if out, err = nd.packStrings(arr, row); err != nil {
			return nil, err
		}
	case mStruct:
		s, ok := arr.(*array.Struct)
		if !ok {
			return nil, fmt.Errorf("arrowconv: column %q is %s, not a struct", nd.path, arr.DataType())
		}
		out = nd.scratchBytes(n * nd.size)
		if !dense(nd.dt) {
			clear(out)
		}
		cskip := skip
		if s.NullN() > 0 {
			cskip = func(i int) bool { return s.IsNull(i) || skip != nil && skip(i) }
		}
		for k, c := range nd.children {
			ca := s.Field(k)
			src, err := c.pack(m, ca, row0, rowOf, cskip)
			if err != nil {
				return nil, err
			}
			scatter(out, nd.foffs[k], coalesce([]dim{{n, nd.size}}), src, c.size)
			if vo := nd.cvoffs[k]; vo >= 0 {
				for i := 0; i < n; i++ {
					out[i*nd.size+vo] = b2u(!ca.IsNull(i) && (cskip == nil || !cskip(i)))
				}
			}
		}
	case mList:
		var err error
		if out, err = nd.packList(m, arr, row0, row, skip); err != nil {
			return nil, err
		}
	case mDict:
		var err error
		if out, err = nd.packDict(m, arr.(*array.Dictionary), row0, row); err != nil {
			return nil, err
		}
		return nd.applyNulls(out, arr, row, skip, true, m.strict)
	}
	return nd.applyNulls(out, arr, row, skip, false, m.strict)
}

// values returns the values of a fixed-width array of esize bytes each, as
// stored: nil for an empty array, whose values buffer arrow-go's IPC
// reader leaves out.
func values(arr arrow.Array, esize int) []byte {
	n := arr.Len()
	if n == 0 {
		return nil
	}
	b := arr.Data().Buffers()[1].Bytes()
	off := arr.Data().Offset() * esize
	return b[off : off+n*esize : off+n*esize]
}

// unscale writes the times v, in units factor times finer than nd's
// numpy unit (numpy metadata: hours stored as seconds, weeks as days),
// to dst in the numpy unit, refusing those that are not a whole number
// of it. Nulls are left to applyNulls.
func (nd *mnode) unscale(dst, v []int64, arr arrow.Array, row func(int) int64) error {
	f, hasNull := nd.factor, arr.NullN() > 0
	for i, x := range v {
		if hasNull && arr.IsNull(i) {
			continue
		}
		if x%f != 0 {
			return &ValueError{Field: nd.path, Row: row(i), Err: fmt.Errorf("%w: %d %s is not a whole number of numpy %s units", ErrRange, x, arr.DataType(), nd.dt.TypeStr())}
		}
		dst[i] = x / f
	}
	return nil
}

// applyNulls writes the null value of nd over the nulls of arr in out (a
// copy, if out aliases arr), or refuses them. For a dictionary, nulls in
// the dictionary values count too. strict refuses nulls with the
// ValueError of NewRowEncoder rather than a NullError.
func (nd *mnode) applyNulls(out []byte, arr arrow.Array, row func(int) int64, skip func(int) bool, dict, strict bool) ([]byte, error) {
	n := arr.Len()
	isNull := arr.IsNull
	if dict {
		d := arr.(*array.Dictionary)
		dv := d.Dictionary()
		if dv.NullN() > 0 {
			isNull = func(i int) bool { return d.IsNull(i) || dv.IsNull(d.GetValueIndex(i)) }
		} else if d.NullN() == 0 {
			return out, nil
		}
	} else if arr.NullN() == 0 {
		return out, nil
	}
	var nb []byte
	switch {
	case nd.fillB != nil:
		nb = nd.fillB
	case nd.isFloat && nd.kind != mList:
		nb = make([]byte, nd.size)
		putNaN(nb, nd.size)
	case nd.isTime && nd.kind != mList:
		nb = make([]byte, 8)
		*(*int64)(unsafe.Pointer(&nb[0])) = nat
	case nd.zeroNull && (nd.kind == mStruct || nd.kind == mList), nd.nanList():
		if nd.nullB == nil {
			nd.nullB = nd.nullElem()
		}
		nb = nd.nullB
	case nd.zeroNull:
		nb = make([]byte, nd.size)
	}
	if nb == nil {
		var cnt int64
		first := -1
		for i := 0; i < n; i++ {
			if isNull(i) && (skip == nil || !skip(i)) {
				if first < 0 {
					first = i
				}
				cnt++
			}
		}
		if cnt > 0 && strict {
			return nil, &ValueError{Field: nd.path, Row: row(first), Err: errors.New(nd.nullWord() + ": numpy has no nulls")}
		}
		if cnt > 0 {
			return nil, &NullError{Column: nd.path, Nulls: cnt, Row: row(first)}
		}
		nb = make([]byte, nd.size)
	}
	if len(nd.scratch) == 0 || unsafe.SliceData(out) != unsafe.SliceData(nd.scratch) {
		s := nd.scratchBytes(len(out))
		copy(s, out)
		out = s
	}
	sz := nd.size
	for i := 0; i < n; i++ {
		if isNull(i) {
			copy(out[i*sz:(i+1)*sz], nb)
		}
	}
	return out, nil
}

// nullWord names a null of nd in a ValueError.
func (nd *mnode) nullWord() string {
	switch {
	case nd.kind == mBool:
		return "null boolean"
	case nd.kind == mStruct:
		return "null struct"
	case nd.kind == mList:
		return "null subarray"
	case nd.dt != nil && (nd.dt.Kind == npyio.Int || nd.dt.Kind == npyio.Uint):
		return "null integer"
	case nd.dt != nil && (nd.dt.Kind == npyio.Unicode || nd.dt.Kind == npyio.Bytes || nd.dt.Kind == npyio.Void):
		return "null string"
	}
	return "null value"
}

// nullElem is the element of nd where it has no value and a validity
// field records it: each place holds its fill value, NaN, NaT or zeros
// (validity fields false), as a Parquet leaf below a null struct or list
// does.
func (nd *mnode) nullElem() []byte {
	b := make([]byte, nd.size)
	switch {
	case nd.fillB != nil && len(nd.fillB) == nd.size:
		copy(b, nd.fillB)
	case nd.kind == mStruct:
		for k, c := range nd.children {
			copy(b[nd.foffs[k]:], c.nullElem())
		}
	case nd.kind == mList:
		if e := nd.children[0].nullElem(); len(e) > 0 {
			for off := 0; off+len(e) <= len(b); off += len(e) {
				copy(b[off:], e)
			}
		}
	case nd.isFloat:
		putNaN(b, nd.size)
	case nd.isTime:
		*(*int64)(unsafe.Pointer(&b[0])) = nat
	}
	return b
}

// nanList reports whether nd is a list of floats or times (at any list
// depth): a null list is NaN or NaT in every place, as a float or time
// column's null is (and as parquetio reads a null list).
func (nd *mnode) nanList() bool {
	if nd.kind != mList {
		return false
	}
	c := nd.children[0]
	if c.kind == mList {
		return c.nanList()
	}
	return (c.isFloat || c.isTime) && c.kind != mStruct
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func (nd *mnode) packStrings(arr arrow.Array, row func(int) int64) ([]byte, error) {
	get, err := bytesGetter(arr)
	if err != nil {
		return nil, fmt.Errorf("arrowconv: column %q: %w", nd.path, err)
	}
	n, esize := arr.Len(), nd.size
	out := nd.scratchBytes(n * esize)
	clear(out)
	hasNull := arr.NullN() > 0
	for i := 0; i < n; i++ {
		if hasNull && arr.IsNull(i) {
			continue
		}
		v := get(i)
		dst := out[i*esize : (i+1)*esize]
		if nd.kind == mBinary {
			if len(v) > esize {
				return nil, &ValueError{Field: nd.path, Row: row(i), Err: fmt.Errorf("%w: %d bytes do not fit %s", ErrRange, len(v), nd.dt.TypeStr())}
			}
			copy(dst, v)
			continue
		}
		k := 0
		for len(v) > 0 {
			r, size := rune(v[0]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRune(v)
				if r == utf8.RuneError && size <= 1 {
					return nil, &ValueError{Field: nd.path, Row: row(i), Err: fmt.Errorf("%w: invalid UTF-8", ErrRange)}
				}
			}
			if k+4 > esize {
				return nil, &ValueError{Field: nd.path, Row: row(i), Err: fmt.Errorf("%w: a string of %d characters does not fit %s", ErrRange, utf8.RuneCount(get(i)), nd.dt.TypeStr())}
			}
			*(*uint32)(unsafe.Pointer(&dst[k])) = uint32(r)
			k += 4
			v = v[size:]
		}
	}
	return out, nil
}

func (nd *mnode) packList(m *Mapping, arr arrow.Array, row0 int64, row func(int) int64, skip func(int) bool) ([]byte, error) {
	l, ok := arr.(array.ListLike)
	if !ok {
		return nil, fmt.Errorf("arrowconv: column %q is %s, not a list", nd.path, arr.DataType())
	}
	n, k, c := arr.Len(), nd.listLen, nd.children[0]
	if k == 0 || n == 0 {
		return nd.scratchBytes(0), nil
	}
	childRow := func(j int) int64 { return row(j / max(k, 1)) }
	childSkip := skip
	if l.NullN() > 0 || skip != nil {
		childSkip = func(j int) bool { return l.IsNull(j/k) || skip != nil && skip(j/k) }
	}
	if _, fixed := l.DataType().(*arrow.FixedSizeListType); fixed {
		off := int64(l.Data().Offset())
		vals := array.NewSlice(l.ListValues(), off*int64(k), (off+int64(n))*int64(k))
		defer vals.Release()
		return c.pack(m, vals, row0, childRow, childSkip)
	}
	// Variable-size lists: every non-null list must have k values.
	contiguous := true
	var base int64
	for i := 0; i < n; i++ {
		s, e := l.ValueOffsets(i)
		if l.IsNull(i) {
			if e-s != int64(k) {
				contiguous = false
			}
			continue
		}
		if int(e-s) != k {
			return nil, nd.lengthErr(row(i), int(e-s))
		}
	}
	if n == 0 || k == 0 {
		return nd.scratchBytes(0), nil
	}
	base, _ = l.ValueOffsets(0)
	for i := 1; i < n && contiguous; i++ {
		if s, _ := l.ValueOffsets(i); s != base+int64(i*k) {
			contiguous = false
		}
	}
	if contiguous {
		vals := array.NewSlice(l.ListValues(), base, base+int64(n*k))
		defer vals.Release()
		return c.pack(m, vals, row0, childRow, childSkip)
	}
	// Gather: pack the values the lists use, then copy list by list.
	lo, hi := int64(math.MaxInt64), int64(0)
	for i := 0; i < n; i++ {
		if !l.IsNull(i) {
			s, e := l.ValueOffsets(i)
			lo, hi = min(lo, s), max(hi, e)
		}
	}
	out := nd.scratchBytes(n * nd.size)
	clear(out)
	if lo >= hi {
		return out, nil
	}
	owner := make([]int32, hi-lo)
	for j := range owner {
		owner[j] = -1
	}
	for i := 0; i < n; i++ {
		if !l.IsNull(i) && (skip == nil || !skip(i)) {
			s, e := l.ValueOffsets(i)
			for j := s; j < e; j++ {
				owner[j-lo] = int32(i)
			}
		}
	}
	vals := array.NewSlice(l.ListValues(), lo, hi)
	defer vals.Release()
	src, err := c.pack(m, vals, row0, func(j int) int64 { return row(max(int(owner[j]), 0)) }, func(j int) bool { return owner[j] < 0 })
	if err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		if !l.IsNull(i) {
			s, _ := l.ValueOffsets(i)
			p := int(s-lo) * c.size
			copy(out[i*nd.size:(i+1)*nd.size], src[p:p+nd.size])
		}
	}
	return out, nil
}

func (nd *mnode) packDict(m *Mapping, d *array.Dictionary, row0 int64, row func(int) int64) ([]byte, error) {
	c := nd.children[0]
	// The dictionary's values are packed once per dictionary (slices of a
	// batch share it), not once per tile.
	src := nd.dictPacked
	if dd := d.Dictionary().Data(); dd != nd.dictData || src == nil {
		var err error
		if src, err = c.pack(m, d.Dictionary(), row0, func(int) int64 { return row0 }, func(int) bool { return true }); err != nil {
			nd.dictData, nd.dictPacked = nil, nil
			return nil, err
		}
		nd.dictData, nd.dictPacked = dd, src
	}
	n, sz := d.Len(), nd.size
	out := nd.scratchBytes(n * sz)
	dn := d.Dictionary().Len()
	idx, err := dictIndexes(d, nd.scratchIdx(n))
	if err != nil {
		return nil, fmt.Errorf("arrowconv: column %q: %w", nd.path, err)
	}
	hasNull := d.NullN() > 0
	for i, j := range idx {
		if uint64(j) >= uint64(dn) {
			if hasNull && d.IsNull(i) {
				idx[i] = 0
				continue
			}
			return nil, &ValueError{Field: nd.path, Row: row(i), Err: fmt.Errorf("dictionary index %d is out of a dictionary of %d values", j, dn)}
		}
	}
	if dn == 0 {
		clear(out)
		return out, nil
	}
	switch sz {
	case 8:
		gatherFixed[uint64](out, src, idx)
	case 4:
		gatherFixed[uint32](out, src, idx)
	case 2:
		gatherFixed[uint16](out, src, idx)
	case 1:
		for i, j := range idx {
			out[i] = src[j]
		}
	default:
		for i, j := range idx {
			copy(out[i*sz:(i+1)*sz], src[int(j)*sz:(int(j)+1)*sz])
		}
	}
	return out, nil
}

func (nd *mnode) scratchIdx(n int) []int64 {
	if cap(nd.idx) < n {
		nd.idx = make([]int64, max(n, 2*cap(nd.idx)))
	}
	return nd.idx[:n]
}

// gatherFixed sets element i of out to element idx[i] of src.
func gatherFixed[T uint16 | uint32 | uint64](out, src []byte, idx []int64) {
	o := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(out))), len(idx))
	s := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(src))), len(src)/int(unsafe.Sizeof(T(0))))
	for i, j := range idx {
		o[i] = s[j]
	}
}

// widenIdx converts n indexes of type T at element off of buf to int64.
func widenIdx[T int8 | uint8 | int16 | uint16 | int32 | uint32 | int64 | uint64](dst []int64, buf []byte, off, n int) {
	var z T
	src := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(buf[off*int(unsafe.Sizeof(z)):]))), n)
	for i, v := range src {
		dst[i] = int64(v)
	}
}

// dictIndexes widens the indexes of d to int64 in dst.
func dictIndexes(d *array.Dictionary, dst []int64) ([]int64, error) {
	data := d.Indices().Data()
	buf := data.Buffers()[1].Bytes()
	off, n := data.Offset(), data.Len()
	switch data.DataType().ID() {
	case arrow.INT8:
		widenIdx[int8](dst, buf, off, n)
	case arrow.UINT8:
		widenIdx[uint8](dst, buf, off, n)
	case arrow.INT16:
		widenIdx[int16](dst, buf, off, n)
	case arrow.UINT16:
		widenIdx[uint16](dst, buf, off, n)
	case arrow.INT32:
		widenIdx[int32](dst, buf, off, n)
	case arrow.UINT32:
		widenIdx[uint32](dst, buf, off, n)
	case arrow.INT64:
		widenIdx[int64](dst, buf, off, n)
	case arrow.UINT64:
		// Indexes above MaxInt64 wrap to negative: out of the dictionary.
		widenIdx[uint64](dst, buf, off, n)
	default:
		return nil, fmt.Errorf("dictionary indexes of type %s", data.DataType())
	}
	return dst[:n], nil
}

// decimalFloat returns the float64 nearest to the decimal whose unscaled
// value is the little-endian two's-complement integer b, divided by
// 10^scale (ties to even).
func decimalFloat(b []byte, scale int32) float64 {
	if x, ok := decimalInt64(b); ok {
		return DecimalToFloat(x, scale)
	}
	return BigDecimalToFloat(decimalBig(b), scale)
}

// DecimalToFloat returns the float64 nearest to the decimal unscaled /
// 10^scale, correctly rounded (ties to even): the f8 a decimal column
// becomes ([DecimalFloat64]), from Arrow as from Parquet.
func DecimalToFloat(unscaled int64, scale int32) float64 {
	// Exact fast path: both operands exact, one correctly rounded
	// operation.
	if x := unscaled; x > -1<<53 && x < 1<<53 {
		switch {
		case scale == 0:
			return float64(x)
		case scale > 0 && scale <= 22:
			return float64(x) / pow10[scale]
		case scale < 0 && scale >= -22:
			return float64(x) * pow10[-scale]
		}
	}
	return BigDecimalToFloat(big.NewInt(unscaled), scale)
}

// BigDecimalToFloat is [DecimalToFloat] of an unscaled value of any size.
func BigDecimalToFloat(x *big.Int, scale int32) float64 {
	// |x| < 2^255 < 10^77 for the decimals of Arrow and of Parquet's 64
	// bytes at most, about 10^154: beyond these scales the value rounds
	// to zero or overflows (and 10^scale would be huge to compute).
	if scale > 154+324+2 || x.Sign() == 0 {
		if x.Sign() < 0 {
			return math.Copysign(0, -1)
		}
		return 0
	}
	if scale < -310 {
		return math.Inf(x.Sign())
	}
	r := new(big.Rat).SetInt(x)
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs32(scale))), nil)
	if scale >= 0 {
		r.Quo(r, new(big.Rat).SetInt(p))
	} else {
		r.Mul(r, new(big.Rat).SetInt(p))
	}
	f, _ := r.Float64()
	return f
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

var pow10 = func() [23]float64 {
	var p [23]float64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// decimalInt64 returns the little-endian two's-complement integer b if it
// fits an int64.
func decimalInt64(b []byte) (int64, bool) {
	switch len(b) {
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(b))), true
	case 8:
		return int64(binary.LittleEndian.Uint64(b)), true
	}
	lo := int64(binary.LittleEndian.Uint64(b))
	ext := uint64(lo >> 63) // 0 or all ones
	for k := 8; k < len(b); k += 8 {
		if binary.LittleEndian.Uint64(b[k:]) != ext {
			return 0, false
		}
	}
	return lo, true
}

// decimalBig returns the little-endian two's-complement integer b.
func decimalBig(b []byte) *big.Int {
	be := make([]byte, len(b))
	for i := range b {
		be[len(b)-1-i] = b[i]
	}
	x := new(big.Int).SetBytes(be)
	if b[len(b)-1]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return x
}

// ColumnInfo describes how one top-level column maps to numpy, for
// inspect-style listings (see [DescribeSchema]).
type ColumnInfo struct {
	Name     string
	Field    string // the numpy field name (a scaled decimal's "<name>_x1e<scale>")
	Validity string // the validity field after it, "" if none
	// ItemsValidity is the element validity field of a list column
	// ([ItemsValidityName]), "" if none; ItemsDType its numpy type
	// ("|b1 (3,)"), "" while the list length needs the data.
	ItemsValidity string
	ItemsDType    string
	ArrowType     string // the Arrow type, e.g. "decimal(10, 2)", "timestamp[us, tz=UTC]"
	Nullable      bool
	// DType is the numpy type the column becomes ("<f8", "<M8[us]",
	// "<i2 (3,)" for a subarray), or "" when it is refused or its width
	// needs a pass over the data (NeedsScan).
	DType     string
	NeedsScan bool  // string widths or list lengths come from the data
	Refused   error // why the column cannot be converted, naming it
	// NullPolicy says what nulls become: "NaN", "NaT", or "refused"
	// (integers, bools, strings, bytes, structs: a fill value or a
	// validity field is needed if the data holds nulls).
	NullPolicy string
}

// DescribeSchema maps each column of schema on its own (opts as for
// [MapSchema]) and reports the result, refusals included, without
// failing on the first refused column.
func DescribeSchema(schema *arrow.Schema, opts *MapOptions) []ColumnInfo {
	var out []ColumnInfo
	for _, f := range schema.Fields() {
		ci := ColumnInfo{Name: f.Name, ArrowType: f.Type.String(), Nullable: f.Nullable}
		var o *MapOptions
		if opts != nil {
			c := *opts
			o = &c
			if _, ok := opts.Fill[f.Name]; !ok {
				o.Fill = nil
			} else {
				o.Fill = map[string]any{f.Name: opts.Fill[f.Name]}
			}
			if w, ok := opts.StringWidths[f.Name]; ok {
				o.StringWidths = map[string]int{f.Name: w}
			} else {
				o.StringWidths = nil
			}
			if !slices.Contains(opts.Validity, f.Name) {
				o.Validity = nil
			} else {
				o.Validity = []string{f.Name}
			}
		}
		m, err := MapSchema(arrow.NewSchema([]arrow.Field{f}, nil), o)
		ci.Field = f.Name
		if m != nil {
			ci.Field = columnName(f.Name, m.cols[0])
			if m.valid[0] {
				ci.Validity = ValidityName(f.Name)
			}
			if m.items[0] {
				ci.ItemsValidity = ItemsValidityName(f.Name)
			}
		}
		switch {
		case err != nil:
			ci.Refused = err
		case m.NeedsScan():
			ci.NeedsScan = true
		default:
			nd := m.cols[0]
			ci.DType = nd.dt.TypeStr()
			if nd.dt.Kind == npyio.Struct {
				ci.DType = nd.dt.String()
			}
			if len(nd.shape) > 0 {
				ci.DType += " " + npyio.FormatShape(nd.shape)
			}
			if m.items[0] {
				ci.ItemsDType = npyio.BoolType.TypeStr() + " " + npyio.FormatShape(nd.shape[:1])
			}
		}
		if m != nil {
			nd := m.cols[0]
			switch {
			case nd.fill != nil:
				ci.NullPolicy = "fill"
			case nd.isFloat && nd.kind != mList:
				ci.NullPolicy = "NaN"
			case nd.isTime && nd.kind != mList:
				ci.NullPolicy = "NaT"
			case nd.nanList():
				ci.NullPolicy = "NaN or NaT in every place"
			case nd.zeroNull:
				ci.NullPolicy = "validity field"
			default:
				ci.NullPolicy = "refused"
			}
		}
		out = append(out, ci)
	}
	return out
}
