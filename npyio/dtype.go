package npyio

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unsafe"
)

// Kind is the kind of a numpy data type.
type Kind uint8

// The kinds of numpy data type. Each corresponds to one numpy typestr
// letter, except Struct (a list descr).
const (
	Invalid   Kind = iota
	Bool           // b1: one byte, nonzero is true
	Int            // i1 i2 i4 i8
	Uint           // u1 u2 u4 u8
	Float          // f2 f4 f8 (f16 is recognized but unsupported)
	Complex        // c8 c16 (c32 is recognized but unsupported)
	Bytes          // S<n>: NUL-padded byte string
	Unicode        // U<n>: NUL-padded UCS-4 string, 4n bytes
	Void           // V<n>: raw bytes
	Datetime       // M8[unit]: int64 count of units since the epoch; NaT is math.MinInt64
	Timedelta      // m8[unit]: int64 count of units; NaT is math.MinInt64
	Struct         // a structured (record) type with named fields
	Object         // O: pickled Python objects (never read)
)

var kindNames = [...]string{"invalid", "bool", "int", "uint", "float", "complex", "bytes", "unicode", "void", "datetime64", "timedelta64", "struct", "object"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Byte orders, as numpy writes them in a typestr.
const (
	LittleEndian  byte = '<'
	BigEndian     byte = '>'
	NotApplicable byte = '|'
)

// NativeOrder is the byte order of the machine running this code.
var NativeOrder = func() byte {
	x := uint16(1)
	if *(*byte)(unsafe.Pointer(&x)) == 1 {
		return LittleEndian
	}
	return BigEndian
}()

// DType describes the type of one array element, like numpy's dtype.
//
// Scalar types have Kind, Order and Size set (and Unit, UnitMult for
// datetimes). Struct types have Fields and Size (which includes padding).
// A DType is immutable once built; share it freely.
type DType struct {
	Kind  Kind
	Order byte // '<', '>' or '|' (one-byte types, bytes, void, struct)
	Size  int  // bytes per element (for Unicode, 4 per character)

	// Datetime and Timedelta only: the unit ("Y", "M", "W", "D", "h", "m",
	// "s", "ms", "us", "ns", "ps", "fs", "as", or "" for generic) and its
	// multiplier (1 unless written like [10ms]).
	Unit     string
	UnitMult int64

	// Struct only: the named fields in numpy's order. Padding is not a field;
	// it is the space between fields and up to Size.
	Fields []Field
}

// Field is one named field of a structured DType.
type Field struct {
	Name   string
	Title  string // optional title ("" if none), numpy's (title, name) form
	Type   *DType // the element type (never itself a subarray)
	Shape  []int  // subarray shape; nil for a scalar field
	Offset int    // byte offset within the record

	// groups records how Shape splits into nested subarray levels, outermost
	// first, when numpy nests them (a field type "(('<f8', (2,)), (3,))"
	// keeps two levels: Shape [3 2], groups [1 1]). nil means one level.
	groups []int
}

// Count is the number of Type elements in the field (the product of Shape).
func (f *Field) Count() int {
	n := 1
	for _, d := range f.Shape {
		n *= d
	}
	return n
}

// Size is the field's size in bytes.
func (f *Field) Size() int { return f.Type.Size * f.Count() }

// Common dtypes in native byte order.
var (
	BoolType    = &DType{Kind: Bool, Order: NotApplicable, Size: 1}
	Int8Type    = &DType{Kind: Int, Order: NotApplicable, Size: 1}
	Int16Type   = &DType{Kind: Int, Order: NativeOrder, Size: 2}
	Int32Type   = &DType{Kind: Int, Order: NativeOrder, Size: 4}
	Int64Type   = &DType{Kind: Int, Order: NativeOrder, Size: 8}
	Uint8Type   = &DType{Kind: Uint, Order: NotApplicable, Size: 1}
	Uint16Type  = &DType{Kind: Uint, Order: NativeOrder, Size: 2}
	Uint32Type  = &DType{Kind: Uint, Order: NativeOrder, Size: 4}
	Uint64Type  = &DType{Kind: Uint, Order: NativeOrder, Size: 8}
	Float16Type = &DType{Kind: Float, Order: NativeOrder, Size: 2}
	Float32Type = &DType{Kind: Float, Order: NativeOrder, Size: 4}
	Float64Type = &DType{Kind: Float, Order: NativeOrder, Size: 8}
	Complex64   = &DType{Kind: Complex, Order: NativeOrder, Size: 8}
	Complex128  = &DType{Kind: Complex, Order: NativeOrder, Size: 16}
)

// NewDatetime returns a native-order datetime64 (or timedelta64 when delta
// is true) dtype with the given unit and multiplier.
func NewDatetime(unit string, mult int64, delta bool) (*DType, error) {
	if !validUnit(unit) {
		return nil, &DTypeError{Descr: strconv.Quote(unit), Msg: "unknown datetime unit"}
	}
	if mult < 1 {
		return nil, &DTypeError{Msg: "datetime multiplier must be positive"}
	}
	k := Datetime
	if delta {
		k = Timedelta
	}
	return &DType{Kind: k, Order: NativeOrder, Size: 8, Unit: unit, UnitMult: mult}, nil
}

// NewString returns an S<n> (bytes), U<n> (unicode, native order) or V<n>
// (void) dtype of n characters or bytes.
func NewString(kind Kind, n int) (*DType, error) {
	if n < 0 {
		return nil, &DTypeError{Msg: "negative string length"}
	}
	switch kind {
	case Bytes, Void:
		return &DType{Kind: kind, Order: NotApplicable, Size: n}, nil
	case Unicode:
		if n > (1<<62)/4 {
			return nil, &DTypeError{Msg: "string too long"}
		}
		return &DType{Kind: kind, Order: NativeOrder, Size: 4 * n}, nil
	}
	return nil, &DTypeError{Msg: "NewString needs Bytes, Unicode or Void, not " + kind.String()}
}

// maxStructSize bounds the item size of a struct NewStruct builds, as
// numpy bounds itemsize by a C int.
const maxStructSize = 1<<31 - 1

// NewStruct returns a packed struct dtype with the given fields laid out in
// order (offsets are computed; any offsets already set are ignored). It
// refuses negative sizes and dimensions and items over 2 GiB.
func NewStruct(fields []Field) (*DType, error) {
	out := make([]Field, len(fields))
	off := 0
	seen := make(map[string]bool, len(fields))
	for i, f := range fields {
		if f.Type == nil {
			return nil, &DTypeError{Msg: fmt.Sprintf("field %q has no type", f.Name)}
		}
		if seen[f.Name] {
			return nil, &DTypeError{Msg: fmt.Sprintf("duplicate field name %q", f.Name)}
		}
		seen[f.Name] = true
		// Sizes are checked so that a bad type (from a foreign schema,
		// say) cannot make a struct whose offsets index outside a row.
		size := int64(f.Type.Size)
		if size < 0 {
			return nil, &DTypeError{Msg: fmt.Sprintf("field %q has a negative size %d", f.Name, f.Type.Size)}
		}
		for _, d := range f.Shape {
			if d < 0 {
				return nil, &DTypeError{Msg: fmt.Sprintf("field %q has a negative dimension in shape %v", f.Name, f.Shape)}
			}
			if d > 0 && size > maxStructSize/int64(d) {
				return nil, &DTypeError{Msg: fmt.Sprintf("field %q of shape %v is over %d bytes", f.Name, f.Shape, maxStructSize)}
			}
			size *= int64(d)
		}
		if int64(off)+size > maxStructSize {
			return nil, &DTypeError{Msg: fmt.Sprintf("the struct is over %d bytes at field %q", maxStructSize, f.Name)}
		}
		out[i] = f
		out[i].Offset = off
		out[i].Shape = append([]int(nil), f.Shape...)
		off += int(size)
	}
	return &DType{Kind: Struct, Order: NotApplicable, Size: off, Fields: out}, nil
}

// Chars is the number of characters of a Bytes or Unicode type.
func (d *DType) Chars() int {
	if d.Kind == Unicode {
		return d.Size / 4
	}
	return d.Size
}

// IsSupported reports whether element data of this type can be read: false
// for objects and platform long doubles, also inside structs.
func (d *DType) IsSupported() bool { return d.unsupported() == nil }

func (d *DType) unsupported() error {
	switch d.Kind {
	case Object:
		return &UnsupportedError{Feature: "dtype " + d.String(), Err: ErrObject}
	case Float:
		if d.Size == 16 || d.Size == 12 {
			return &UnsupportedError{Feature: "dtype " + d.String() + " (platform long double, layout differs between machines)"}
		}
	case Complex:
		if d.Size == 32 || d.Size == 24 {
			return &UnsupportedError{Feature: "dtype " + d.String() + " (platform long double complex, layout differs between machines)"}
		}
	case Struct:
		for i := range d.Fields {
			if err := d.Fields[i].Type.unsupported(); err != nil {
				return err
			}
		}
	}
	return nil
}

// scalarOrder reports the byte order of a scalar's multi-byte units; it is
// '|' for types whose bytes never need swapping.
func (d *DType) swapUnit() int {
	switch d.Kind {
	case Int, Uint, Float, Datetime, Timedelta:
		if d.Size > 1 {
			return d.Size
		}
	case Complex:
		return d.Size / 2
	case Unicode:
		return 4
	}
	return 0
}

// IsNative reports whether every multi-byte value of d (including struct
// fields) is stored in this machine's byte order.
func (d *DType) IsNative() bool {
	if d.Kind == Struct {
		for i := range d.Fields {
			if !d.Fields[i].Type.IsNative() {
				return false
			}
		}
		return true
	}
	return d.swapUnit() == 0 || d.Order == NativeOrder
}

// WithOrder returns d with every multi-byte value in the given byte order
// ('<' or '>'), sharing d when nothing changes.
func (d *DType) WithOrder(order byte) *DType {
	if d.Kind == Struct {
		var fields []Field
		for i := range d.Fields {
			t := d.Fields[i].Type.WithOrder(order)
			if t != d.Fields[i].Type && fields == nil {
				fields = append([]Field(nil), d.Fields...)
			}
			if fields != nil {
				fields[i].Type = t
			}
		}
		if fields == nil {
			return d
		}
		c := *d
		c.Fields = fields
		return &c
	}
	if d.swapUnit() == 0 && d.Kind != Unicode || d.Order == order {
		return d
	}
	c := *d
	c.Order = order
	return &c
}

// Native returns d in this machine's byte order.
func (d *DType) Native() *DType { return d.WithOrder(NativeOrder) }

// Equal reports whether two dtypes describe the same layout and types.
func (d *DType) Equal(o *DType) bool {
	if d == o {
		return true
	}
	if d == nil || o == nil {
		return false
	}
	return d.String() == o.String()
}

// String returns numpy's descr for d: the typestr (dtype.str) for scalar
// types, or the Python repr of dtype.descr for structs, exactly as np.save
// writes it in a header.
func (d *DType) String() string {
	var sb strings.Builder
	d.writeDescr(&sb)
	return sb.String()
}

// TypeStr returns numpy's dtype.str: "<f8", "|S5", "<M8[10ms]", "|V12" for
// a struct.
func (d *DType) TypeStr() string {
	order := d.Order
	var body string
	switch d.Kind {
	case Bool:
		return "|b1"
	case Int, Uint, Float, Complex:
		body = string("?iufc"[d.Kind-Bool]) + strconv.Itoa(d.Size)
		if d.Size == 1 {
			order = NotApplicable
		}
	case Bytes:
		return "|S" + strconv.Itoa(d.Size)
	case Unicode:
		body = "U" + strconv.Itoa(d.Size/4)
	case Void, Struct:
		return "|V" + strconv.Itoa(d.Size)
	case Datetime, Timedelta:
		body = "M8"
		if d.Kind == Timedelta {
			body = "m8"
		}
		if d.Unit != "" {
			body += "["
			if d.UnitMult > 1 {
				body += strconv.FormatInt(d.UnitMult, 10)
			}
			body += d.Unit + "]"
		}
	case Object:
		return "|O"
	default:
		return "invalid"
	}
	if order != LittleEndian && order != BigEndian && order != NotApplicable {
		order = NativeOrder
	}
	return string(order) + body
}

func (d *DType) writeDescr(sb *strings.Builder) {
	if d.Kind != Struct {
		writePyStr(sb, d.TypeStr())
		return
	}
	sb.WriteByte('[')
	off := 0
	n := 0
	sep := func() {
		if n > 0 {
			sb.WriteString(", ")
		}
		n++
	}
	pad := func(k int) {
		sep()
		sb.WriteString("('', '|V")
		sb.WriteString(strconv.Itoa(k))
		sb.WriteString("')")
	}
	for i := range d.Fields {
		f := &d.Fields[i]
		if f.Offset > off {
			pad(f.Offset - off)
			off = f.Offset
		}
		sep()
		sb.WriteByte('(')
		if f.Title != "" {
			sb.WriteByte('(')
			writePyStr(sb, f.Title)
			sb.WriteString(", ")
			writePyStr(sb, f.Name)
			sb.WriteByte(')')
		} else {
			writePyStr(sb, f.Name)
		}
		sb.WriteString(", ")
		if f.Shape == nil {
			f.Type.writeDescr(sb)
		} else {
			groups := f.groups
			if groups == nil {
				groups = []int{len(f.Shape)}
			}
			writeSubarray(sb, f.Type, f.Shape[groups[0]:], groups[1:])
			sb.WriteString(", ")
			writePyTuple(sb, f.Shape[:groups[0]])
		}
		sb.WriteByte(')')
		off += f.Size()
	}
	if d.Size > off {
		pad(d.Size - off)
	}
	sb.WriteByte(']')
}

// writeSubarray writes the type of a subarray field below its outermost
// level: the base type, wrapped in a (type, shape) tuple per nested level.
func writeSubarray(sb *strings.Builder, base *DType, shape []int, groups []int) {
	if len(groups) == 0 {
		base.writeDescr(sb)
		return
	}
	sb.WriteByte('(')
	writeSubarray(sb, base, shape[groups[0]:], groups[1:])
	sb.WriteString(", ")
	writePyTuple(sb, shape[:groups[0]])
	sb.WriteByte(')')
}

// writePyTuple writes a tuple of ints as Python's repr does.
func writePyTuple(sb *strings.Builder, s []int) {
	sb.WriteByte('(')
	for i, v := range s {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strconv.Itoa(v))
	}
	if len(s) == 1 {
		sb.WriteByte(',')
	}
	sb.WriteByte(')')
}

// FormatShape returns a shape as numpy prints it (Python's tuple repr):
// "()", "(5,)", "(2, 3)".
func FormatShape(shape []int) string {
	var sb strings.Builder
	writePyTuple(&sb, shape)
	return sb.String()
}

// pyRepr returns Python's repr of a string.
func pyRepr(s string) string {
	var sb strings.Builder
	writePyStr(&sb, s)
	return sb.String()
}

// writePyStr writes s as Python 3's repr(str) does.
func writePyStr(sb *strings.Builder, s string) {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	sb.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r == '\t':
			sb.WriteString(`\t`)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(sb, `\x%02x`, r)
		case r < 0x7f:
			sb.WriteRune(r)
		case unicode.IsPrint(r):
			sb.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(sb, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(sb, `\u%04x`, r)
		default:
			fmt.Fprintf(sb, `\U%08x`, r)
		}
	}
	sb.WriteByte(q)
}

var dateUnits = []string{"Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"}

func validUnit(u string) bool {
	if u == "" {
		return true
	}
	for _, x := range dateUnits {
		if x == u {
			return true
		}
	}
	return false
}

// ParseTypeStr parses a numpy typestr such as "<f8", "|S10", ">U3",
// "<M8[10ms]" or "|V4". It accepts what numpy writes in .npy headers
// (dtype.str), plus '=' for native order and the old "a<n>" and "O8" forms.
func ParseTypeStr(s string) (*DType, error) {
	bad := func(msg string) (*DType, error) {
		return nil, &DTypeError{Descr: strconv.Quote(s), Msg: msg}
	}
	if s == "" {
		return bad("empty typestr")
	}
	order := byte(0)
	body := s
	switch s[0] {
	case '<', '>', '|', '=':
		order = s[0]
		body = s[1:]
	}
	if order == '=' {
		order = NativeOrder
	}
	if body == "" {
		return bad("missing type code")
	}
	code := body[0]
	rest := body[1:]
	if code == '?' && rest == "" {
		return &DType{Kind: Bool, Order: NotApplicable, Size: 1}, nil
	}
	if code == 'M' || code == 'm' {
		k := Datetime
		if code == 'm' {
			k = Timedelta
		}
		if !strings.HasPrefix(rest, "8") {
			return bad("datetime types must be 8 bytes (M8 or m8)")
		}
		rest = rest[1:]
		d := &DType{Kind: k, Order: byteOrder(order), Size: 8, UnitMult: 1}
		if rest == "" {
			return d, nil
		}
		if rest[0] != '[' || rest[len(rest)-1] != ']' {
			return bad("expected [unit] after M8/m8")
		}
		u := rest[1 : len(rest)-1]
		j := 0
		for j < len(u) && u[j] >= '0' && u[j] <= '9' {
			j++
		}
		if j > 0 {
			m, err := strconv.ParseInt(u[:j], 10, 64)
			if err != nil || m < 1 || m > 1<<31 {
				return bad("invalid datetime unit multiplier")
			}
			d.UnitMult = m
		}
		d.Unit = u[j:]
		if d.Unit == "generic" {
			d.Unit = ""
		}
		if !validUnit(d.Unit) || (d.Unit == "" && j > 0) {
			return bad(fmt.Sprintf("unknown datetime unit %q", u[j:]))
		}
		return d, nil
	}
	if code == 'O' {
		if rest == "" || rest == "8" || rest == "4" {
			return &DType{Kind: Object, Order: NotApplicable, Size: 8}, nil
		}
		return bad("invalid object typestr")
	}
	n := -1
	if rest != "" {
		for _, c := range []byte(rest) {
			if c < '0' || c > '9' {
				return bad("invalid size")
			}
		}
		v, err := strconv.ParseInt(rest, 10, 64)
		if err != nil || v > 1<<40 {
			return bad("size out of range")
		}
		n = int(v)
	}
	switch code {
	case 'b':
		if n == 1 {
			return &DType{Kind: Bool, Order: NotApplicable, Size: 1}, nil
		}
		return bad("bool must be b1")
	case 'i', 'u':
		if n == 1 || n == 2 || n == 4 || n == 8 {
			k := Int
			if code == 'u' {
				k = Uint
			}
			o := byteOrder(order)
			if n == 1 {
				o = NotApplicable
			}
			return &DType{Kind: k, Order: o, Size: n}, nil
		}
		return bad("integer size must be 1, 2, 4 or 8")
	case 'f':
		if n == 2 || n == 4 || n == 8 || n == 16 || n == 12 {
			return &DType{Kind: Float, Order: byteOrder(order), Size: n}, nil
		}
		return bad("float size must be 2, 4 or 8")
	case 'c':
		if n == 8 || n == 16 || n == 32 || n == 24 {
			return &DType{Kind: Complex, Order: byteOrder(order), Size: n}, nil
		}
		return bad("complex size must be 8 or 16")
	case 'S', 'a':
		if n < 0 {
			n = 0
		}
		return &DType{Kind: Bytes, Order: NotApplicable, Size: n}, nil
	case 'U':
		if n < 0 {
			n = 0
		}
		return &DType{Kind: Unicode, Order: byteOrder(order), Size: 4 * n}, nil
	case 'V':
		if n < 0 {
			return bad("void type needs a size")
		}
		return &DType{Kind: Void, Order: NotApplicable, Size: n}, nil
	}
	return bad(fmt.Sprintf("unknown type code %q", code))
}

func byteOrder(o byte) byte {
	if o == 0 || o == '|' {
		return NativeOrder
	}
	return o
}

// ParseDescr parses numpy's descr as written in a header: a typestr
// ("<f8") or a Python list of fields ("[('x', '<i4'), ('y', '<f8', (2,))]").
// A top-level subarray descr ("('<f8', (2,))") is rejected here; header
// parsing folds it into the array shape.
func ParseDescr(s string) (*DType, error) {
	v, err := parsePyLiteral(s)
	if err != nil {
		return nil, err
	}
	d, groups, err := descrToDType(v, 0)
	if err != nil {
		return nil, err
	}
	if groups != nil {
		return nil, &DTypeError{Descr: s, Msg: "a subarray type is not an element type"}
	}
	return d, nil
}

// descrToDType converts a parsed descr literal. A (type, shape) tuple yields
// the base type and the subarray shapes, outermost level first.
func descrToDType(v pyValue, depth int) (*DType, [][]int, error) {
	if depth > maxNesting {
		return nil, nil, &HeaderError{Pos: v.pos, Msg: "descr nested too deeply"}
	}
	switch v.kind {
	case pyStr:
		d, err := ParseTypeStr(v.str)
		if err != nil {
			return nil, nil, withPos(err, v.pos)
		}
		return d, nil, nil
	case pyTuple:
		if len(v.items) != 2 {
			return nil, nil, &HeaderError{Pos: v.pos, Msg: "a subarray type must be a (type, shape) pair"}
		}
		base, inner, err := descrToDType(v.items[0], depth+1)
		if err != nil {
			return nil, nil, err
		}
		outer, err := shapeOf(v.items[1], true)
		if err != nil {
			return nil, nil, err
		}
		return base, addGroup(outer, inner), nil
	case pyList:
		d, err := structFromList(v, depth)
		return d, nil, err
	}
	return nil, nil, &HeaderError{Pos: v.pos, Msg: fmt.Sprintf("descr must be a string, a list of fields or a (type, shape) tuple, not a %s", v.kind)}
}

// addGroup puts an outer subarray level before inner ones; numpy drops a
// level of shape ().
func addGroup(outer []int, inner [][]int) [][]int {
	if len(outer) == 0 {
		return inner
	}
	return append([][]int{outer}, inner...)
}

// flatten joins subarray levels into one shape and the level sizes.
func flatten(groups [][]int) (shape []int, sizes []int) {
	if len(groups) == 0 {
		return nil, nil
	}
	for _, g := range groups {
		shape = append(shape, g...)
		sizes = append(sizes, len(g))
	}
	if len(sizes) == 1 {
		sizes = nil
	}
	return shape, sizes
}

func withPos(err error, pos int) error {
	if de, ok := err.(*DTypeError); ok {
		return &HeaderError{Pos: pos, Msg: strings.TrimPrefix(de.Error(), "npyio: ")}
	}
	return err
}

func structFromList(v pyValue, depth int) (*DType, error) {
	d := &DType{Kind: Struct, Order: NotApplicable}
	off := 0
	seen := make(map[string]bool, len(v.items))
	for _, fv := range v.items {
		if fv.kind != pyTuple || (len(fv.items) != 2 && len(fv.items) != 3) {
			return nil, &HeaderError{Pos: fv.pos, Msg: "each field must be a (name, type) or (name, type, shape) tuple"}
		}
		nv := fv.items[0]
		var name, title string
		switch {
		case nv.kind == pyStr:
			name = nv.str
		case nv.kind == pyTuple && len(nv.items) == 2 && nv.items[0].kind == pyStr && nv.items[1].kind == pyStr:
			title, name = nv.items[0].str, nv.items[1].str
		default:
			return nil, &HeaderError{Pos: nv.pos, Msg: "a field name must be a string or a (title, name) pair of strings"}
		}
		typ, groups, err := descrToDType(fv.items[1], depth+1)
		if err != nil {
			return nil, err
		}
		if len(fv.items) == 3 {
			outer, err := shapeOf(fv.items[2], true)
			if err != nil {
				return nil, err
			}
			groups = addGroup(outer, groups)
		}
		shape, sizes := flatten(groups)
		f := Field{Name: name, Title: title, Type: typ, Shape: shape, Offset: off, groups: sizes}
		size, ok := mulSize(typ.Size, shape)
		if !ok || off+size < off || off+size > 1<<40 {
			return nil, &HeaderError{Pos: fv.pos, Msg: fmt.Sprintf("field %q is too large", name)}
		}
		off += size
		if name == "" && title == "" && typ.Kind == Void {
			continue // padding
		}
		if seen[name] {
			return nil, &HeaderError{Pos: nv.pos, Msg: fmt.Sprintf("duplicate field name %q", name)}
		}
		if title != "" {
			if seen[title] || title == name {
				return nil, &HeaderError{Pos: nv.pos, Msg: fmt.Sprintf("title %q duplicates a field name or title", title)}
			}
			seen[title] = true
		}
		seen[name] = true
		d.Fields = append(d.Fields, f)
	}
	d.Size = off
	return d, nil
}

// mulSize returns size*prod(shape) and whether it fits in 2^62.
func mulSize(size int, shape []int) (int, bool) {
	// Zero dimensions are skipped while checking, as numpy does: (0, 2**62,
	// 4) has no elements but its rows would still overflow.
	n, zero := size, false
	for _, s := range shape {
		if s == 0 {
			zero = true
			continue
		}
		if n > (1<<62)/s {
			return 0, false
		}
		n *= s
	}
	if zero {
		return 0, true
	}
	return n, true
}

// shapeOf converts a shape literal: a tuple of non-negative ints (or, when
// allowInt, a bare int as numpy accepts in a field's subarray shape).
func shapeOf(v pyValue, allowInt bool) ([]int, error) {
	if allowInt && v.kind == pyInt {
		v = pyValue{kind: pyTuple, pos: v.pos, items: []pyValue{v}}
	}
	if v.kind != pyTuple {
		return nil, &HeaderError{Pos: v.pos, Msg: fmt.Sprintf("shape must be a tuple of non-negative integers, not a %s", v.kind)}
	}
	s := make([]int, len(v.items))
	for i, it := range v.items {
		if it.kind != pyInt {
			return nil, &HeaderError{Pos: it.pos, Msg: fmt.Sprintf("shape dimension %d is a %s, not an integer", i, it.kind)}
		}
		if it.big || it.num > 1<<62 {
			return nil, &HeaderError{Pos: it.pos, Msg: fmt.Sprintf("shape dimension %d (%s) is too large", i, it.str)}
		}
		if it.num < 0 {
			return nil, &HeaderError{Pos: it.pos, Msg: fmt.Sprintf("shape dimension %d is negative (%d)", i, it.num)}
		}
		s[i] = int(it.num)
	}
	return s, nil
}

// putUint16 etc. are shorthands used by the header writer.
func putUint16(b []byte, v uint16) { binary.LittleEndian.PutUint16(b, v) }
func putUint32(b []byte, v uint32) { binary.LittleEndian.PutUint32(b, v) }
