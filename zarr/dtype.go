package zarr

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// DType is an array's element type in numpy's terms: what a reader gets
// back and what a writer is given.
type DType struct {
	// Descr is numpy's type string of the elements as Read returns them:
	// "<f8", ">i4", "|b1", "<M8[ns]", "|S5", "<U3", "|V4". For a
	// structured type it is "" and Fields lists the fields.
	Descr string
	// Fields are a structured type's fields in order (Zarr v2 only).
	Fields []Field
	// VarString is set for variable-length strings (v2 "|O" with a
	// vlen-utf8 or vlen-bytes filter, v3 "string"): Read returns them as
	// fixed-width "<U"/"|S" of the longest item, Descr then gives the
	// kind ("<U0" text, "|S0" bytes).
	VarString bool
}

// Field is one field of a structured type.
type Field struct {
	Name  string
	Type  DType
	Shape []int64 // a sub-array field's shape, or nil
}

// Kind is numpy's kind character: b i u f c M m S U V, or 'V' for a
// structured type.
func (d DType) Kind() byte {
	if d.Fields != nil || len(d.Descr) < 2 {
		return 'V'
	}
	return d.Descr[1]
}

// ByteOrder is '<', '>' or '|'.
func (d DType) ByteOrder() byte {
	if d.Fields != nil || d.Descr == "" {
		return '|'
	}
	return d.Descr[0]
}

// ItemSize is the size in bytes of one element (0 for a variable-length
// string type).
func (d DType) ItemSize() int {
	if d.Fields != nil {
		n := 0
		for _, f := range d.Fields {
			k := f.Type.ItemSize()
			for _, s := range f.Shape {
				k *= int(s)
			}
			n += k
		}
		return n
	}
	n, _ := descrSize(d.Descr)
	return n
}

// descrSize parses the size of a simple numpy type string.
func descrSize(s string) (int, error) {
	if len(s) < 3 {
		return 0, fmt.Errorf("data type %q is not a numpy type string", s)
	}
	switch s[0] {
	case '<', '>', '|':
	default:
		return 0, fmt.Errorf("data type %q has no byte order character", s)
	}
	rest := s[2:]
	unit := ""
	if i := strings.IndexByte(rest, '['); i >= 0 {
		if !strings.HasSuffix(rest, "]") {
			return 0, fmt.Errorf("data type %q: bad unit", s)
		}
		unit = rest[i+1 : len(rest)-1]
		rest = rest[:i]
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 || n > 1<<30 {
		return 0, fmt.Errorf("data type %q has no valid size", s)
	}
	k := s[1]
	switch k {
	case 'b':
		if n != 1 {
			return 0, fmt.Errorf("data type %q: bool is 1 byte", s)
		}
	case 'i', 'u':
		if n != 1 && n != 2 && n != 4 && n != 8 {
			return 0, fmt.Errorf("data type %q: integers are 1, 2, 4 or 8 bytes", s)
		}
	case 'f':
		if n != 2 && n != 4 && n != 8 && n != 16 {
			return 0, fmt.Errorf("data type %q: floats are 2, 4, 8 or 16 bytes", s)
		}
	case 'c':
		if n != 8 && n != 16 && n != 32 {
			return 0, fmt.Errorf("data type %q: complex numbers are 8, 16 or 32 bytes", s)
		}
	case 'M', 'm':
		if n != 8 {
			return 0, fmt.Errorf("data type %q: datetimes are 8 bytes", s)
		}
		if !validUnit(unit) {
			return 0, fmt.Errorf("data type %q: unknown time unit %q", s, unit)
		}
		return 8, nil
	case 'S', 'V':
	case 'U':
		n *= 4
	default:
		return 0, fmt.Errorf("data type %q: unknown kind %q", s, k)
	}
	if unit != "" {
		return 0, fmt.Errorf("data type %q: only datetimes have units", s)
	}
	return n, nil
}

func validUnit(u string) bool {
	u = strings.TrimLeft(u, "0123456789")
	switch u {
	case "", "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "μs", "ns", "ps", "fs", "as", "generic":
		return true
	}
	return false
}

// parseV2DType reads a .zarray "dtype": a type string or, for a
// structured type, a list of [name, type] or [name, type, shape].
func parseV2DType(raw json.RawMessage, depth int) (DType, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "|O" {
			return DType{Descr: "|O"}, nil
		}
		if _, err := descrSize(s); err != nil {
			return DType{}, err
		}
		return DType{Descr: s}, nil
	}
	if depth > 8 {
		return DType{}, fmt.Errorf("structured data type nested too deep")
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
		return DType{}, fmt.Errorf("dtype is neither a type string nor a list of fields")
	}
	d := DType{Fields: make([]Field, 0, len(list))}
	for _, item := range list {
		var parts []json.RawMessage
		if err := json.Unmarshal(item, &parts); err != nil || len(parts) < 2 || len(parts) > 3 {
			return DType{}, fmt.Errorf("structured dtype field %s is not [name, type] or [name, type, shape]", item)
		}
		var f Field
		if err := json.Unmarshal(parts[0], &f.Name); err != nil {
			return DType{}, fmt.Errorf("structured dtype field name %s is not a string", parts[0])
		}
		t, err := parseV2DType(parts[1], depth+1)
		if err != nil {
			return DType{}, fmt.Errorf("field %q: %v", f.Name, err)
		}
		if t.Descr == "|O" {
			return DType{}, fmt.Errorf("field %q: object fields are not supported", f.Name)
		}
		f.Type = t
		if len(parts) == 3 {
			if err := json.Unmarshal(parts[2], &f.Shape); err != nil {
				return DType{}, fmt.Errorf("field %q: shape %s is not a list of integers", f.Name, parts[2])
			}
			for _, n := range f.Shape {
				if n < 0 || n > 1<<20 {
					return DType{}, fmt.Errorf("field %q: bad shape %v", f.Name, f.Shape)
				}
			}
		}
		d.Fields = append(d.Fields, f)
	}
	if d.ItemSize() > 1<<30 {
		return DType{}, fmt.Errorf("structured dtype of %d bytes", d.ItemSize())
	}
	return d, nil
}

// v2JSON is the .zarray "dtype" value for d.
func (d DType) v2JSON() any {
	if d.VarString {
		return "|O"
	}
	if d.Fields == nil {
		return d.Descr
	}
	out := make([]any, len(d.Fields))
	for i, f := range d.Fields {
		if f.Shape != nil {
			out[i] = []any{f.Name, f.Type.v2JSON(), f.Shape}
		} else {
			out[i] = []any{f.Name, f.Type.v2JSON()}
		}
	}
	return out
}

// v3Types maps Zarr v3's core data types to numpy type strings (little
// endian: the bytes codec's endianness is undone while decoding).
var v3Types = map[string]string{
	"bool": "|b1", "int8": "|i1", "uint8": "|u1",
	"int16": "<i2", "int32": "<i4", "int64": "<i8",
	"uint16": "<u2", "uint32": "<u4", "uint64": "<u8",
	"float16": "<f2", "float32": "<f4", "float64": "<f8",
	"complex64": "<c8", "complex128": "<c16",
}

// parseV3DType reads a zarr.json "data_type".
func parseV3DType(raw json.RawMessage) (DType, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		var obj struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &obj) == nil && obj.Name != "" {
			return DType{}, fmt.Errorf("data type %q is not supported", obj.Name)
		}
		return DType{}, fmt.Errorf("data_type %s is not a string", raw)
	}
	if t, ok := v3Types[s]; ok {
		return DType{Descr: t}, nil
	}
	switch {
	case s == "string":
		return DType{Descr: "<U0", VarString: true}, nil
	case s == "bytes":
		return DType{Descr: "|S0", VarString: true}, nil
	case strings.HasPrefix(s, "r"):
		bits, err := strconv.Atoi(s[1:])
		if err != nil || bits <= 0 || bits%8 != 0 || bits > 1<<20 {
			return DType{}, fmt.Errorf("data type %q: raw bits must be a positive multiple of 8", s)
		}
		return DType{Descr: "|V" + strconv.Itoa(bits/8)}, nil
	}
	return DType{}, fmt.Errorf("data type %q is not supported", s)
}

// v3Name is the zarr.json data_type for d, or an error naming why d has
// none.
func (d DType) v3Name() (string, error) {
	if d.VarString {
		if d.Kind() == 'S' {
			return "bytes", nil
		}
		return "string", nil
	}
	if d.Fields != nil {
		return "", fmt.Errorf("structured types have no Zarr v3 data type")
	}
	le := "<" + d.Descr[1:]
	if d.ByteOrder() == '|' {
		le = d.Descr
	}
	for name, t := range v3Types {
		if t == le {
			return name, nil
		}
	}
	if d.Kind() == 'V' {
		return "r" + strconv.Itoa(8*d.ItemSize()), nil
	}
	return "", fmt.Errorf("numpy type %s has no Zarr v3 core data type", d.Descr)
}
