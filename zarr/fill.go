package zarr

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// parseFill turns a metadata fill_value into one element of d in d's
// byte order (nil for v2's null: missing chunks then read as zeros).
// Numbers, "NaN", "Infinity", "-Infinity", hex bit patterns "0x..." (v3),
// [re, im] pairs for complex numbers, base64 for byte strings, raw and
// structured types (v2), strings for text types.
func parseFill(raw json.RawMessage, d DType) ([]byte, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if d.VarString {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			// zarr-python 2 writes 0 for object arrays: missing chunks
			// then hold empty strings here.
			var n float64
			if json.Unmarshal(raw, &n) == nil {
				return nil, nil
			}
			return nil, fmt.Errorf("fill_value %s of a string array is not a string", raw)
		}
		return []byte(s), nil
	}
	size := d.ItemSize()
	out := make([]byte, size)
	var str string
	isStr := json.Unmarshal(raw, &str) == nil
	kind := d.Kind()
	if d.Fields != nil || kind == 'S' || kind == 'V' {
		if !isStr {
			if kind == 'S' || d.Fields != nil {
				// zarr-python 2 writes 0 for a zero-filled structured type.
				var n float64
				if json.Unmarshal(raw, &n) == nil && n == 0 {
					return out, nil
				}
			}
			var list []byte
			if json.Unmarshal(raw, &list) == nil && len(list) == size { // v3 raw: list of bytes
				return list, nil
			}
			return nil, fmt.Errorf("fill_value %s of a %s array is not base64", raw, d.name())
		}
		b, err := base64.StdEncoding.DecodeString(str)
		if err != nil {
			return nil, fmt.Errorf("fill_value %q is not base64: %v", str, err)
		}
		if len(b) > size {
			return nil, fmt.Errorf("fill_value %q decodes to %d bytes, the type has %d", str, len(b), size)
		}
		copy(out, b)
		return out, nil
	}
	if kind == 'U' {
		if !isStr {
			return nil, fmt.Errorf("fill_value %s of a %s array is not a string", raw, d.Descr)
		}
		i := 0
		for _, r := range str {
			if 4*i+4 > size {
				return nil, fmt.Errorf("fill_value %q is longer than %s", str, d.Descr)
			}
			putUint(out[4*i:], uint64(r), 4, d.ByteOrder() == '>')
			i++
		}
		return out, nil
	}
	be := d.ByteOrder() == '>'
	switch kind {
	case 'b':
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			var n float64
			if json.Unmarshal(raw, &n) != nil {
				return nil, fmt.Errorf("fill_value %s of a bool array is not true or false", raw)
			}
			b = n != 0
		}
		if b {
			out[0] = 1
		}
		return out, nil
	case 'c':
		var pair []json.RawMessage
		if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
			// A real number (zarr-python 2 writes 0 sometimes).
			if err := putFloat(out[:size/2], raw, be); err != nil {
				return nil, err
			}
			return out, nil
		}
		if err := putFloat(out[:size/2], pair[0], be); err != nil {
			return nil, err
		}
		if err := putFloat(out[size/2:], pair[1], be); err != nil {
			return nil, err
		}
		return out, nil
	case 'f':
		return out, putFloat(out, raw, be)
	case 'i', 'u', 'M', 'm':
		if isStr {
			if strings.HasPrefix(str, "0x") {
				return out, putHex(out, str, be)
			}
			if (kind == 'M' || kind == 'm') && str == "NaT" {
				putUint(out, 1<<63, 8, be)
				return out, nil
			}
			return nil, fmt.Errorf("fill_value %q of a %s array is not an integer", str, d.name())
		}
		var n big.Int
		if _, ok := n.SetString(string(raw), 10); !ok {
			// 1.0 style
			f, err := strconv.ParseFloat(string(raw), 64)
			if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return nil, fmt.Errorf("fill_value %s of a %s array is not an integer", raw, d.name())
			}
			n.SetInt64(int64(f))
		}
		bits := uint(8 * size)
		lo, hi := new(big.Int), new(big.Int)
		if kind == 'u' {
			hi.Lsh(big.NewInt(1), bits).Sub(hi, big.NewInt(1))
		} else {
			lo.Lsh(big.NewInt(1), bits-1).Neg(lo)
			hi.Lsh(big.NewInt(1), bits-1).Sub(hi, big.NewInt(1))
		}
		if n.Cmp(lo) < 0 || n.Cmp(hi) > 0 {
			return nil, fmt.Errorf("fill_value %s does not fit %s", raw, d.name())
		}
		var v uint64
		if n.Sign() < 0 {
			v = uint64(n.Int64())
		} else {
			v = n.Uint64()
		}
		putUint(out, v, size, be)
		return out, nil
	}
	return nil, fmt.Errorf("fill_value %s: no fill value for %s", raw, d.name())
}

func (d DType) name() string {
	if d.Fields != nil {
		return "structured"
	}
	return d.Descr
}

func putUint(b []byte, v uint64, size int, be bool) {
	for i := 0; i < size; i++ {
		if be {
			b[size-1-i] = byte(v >> (8 * i))
		} else {
			b[i] = byte(v >> (8 * i))
		}
	}
}

// putHex stores a hex bit pattern "0x7fc00000" as the element's bits.
func putHex(b []byte, s string, be bool) error {
	h := s[2:]
	if len(h) != 2*len(b) {
		return fmt.Errorf("fill_value %q: a %d-byte type takes %d hex digits", s, len(b), 2*len(b))
	}
	v, err := strconv.ParseUint(h, 16, 64)
	if err != nil {
		return fmt.Errorf("fill_value %q is not a hex bit pattern", s)
	}
	putUint(b, v, len(b), be)
	return nil
}

// putFloat stores a float fill value (a number, "NaN", "Infinity",
// "-Infinity" or a hex bit pattern) in b (2, 4 or 8 bytes).
func putFloat(b []byte, raw json.RawMessage, be bool) error {
	var f float64
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "NaN":
			f = math.Float64frombits(0x7ff8000000000000) // numpy's NaN
		case "Infinity":
			f = math.Inf(1)
		case "-Infinity":
			f = math.Inf(-1)
		default:
			if strings.HasPrefix(s, "0x") {
				return putHex(b, s, be)
			}
			return fmt.Errorf("fill_value %q is not a number", s)
		}
	} else if err := json.Unmarshal(raw, &f); err != nil {
		return fmt.Errorf("fill_value %s is not a number", raw)
	}
	switch len(b) {
	case 8:
		putUint(b, math.Float64bits(f), 8, be)
	case 4:
		putUint(b, uint64(math.Float32bits(float32(f))), 4, be)
	case 2:
		putUint(b, uint64(float16bits(f)), 2, be)
	default:
		return fmt.Errorf("no fill value for %d-byte floats", len(b))
	}
	return nil
}

// float16bits rounds f to IEEE half precision (round to nearest even).
func float16bits(f float64) uint16 {
	b := math.Float32bits(float32(f))
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b>>23&0xff == 0xff: // inf, nan
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint(14 - exp)
		half := uint32(1) << (shift - 1)
		v := mant >> shift
		if r := mant & (1<<shift - 1); r > half || r == half && v&1 == 1 {
			v++
		}
		return sign | uint16(v)
	}
	v := uint32(exp)<<10 | mant>>13
	if r := mant & 0x1fff; r > 0x1000 || r == 0x1000 && v&1 == 1 {
		v++
	}
	return sign | uint16(v)
}

// fillJSON is the metadata fill_value for the element fill (nil: 0 or
// v2 null) of type d.
func fillJSON(fill []byte, d DType, v3 bool) any {
	if d.VarString {
		if fill == nil {
			return ""
		}
		return string(fill)
	}
	kind := d.Kind()
	if fill == nil {
		switch {
		case kind == 'b':
			return false
		case kind == 'c':
			return []any{0.0, 0.0}
		case d.Fields != nil || kind == 'S' || kind == 'V' || kind == 'U':
			if v3 {
				return make([]int, d.ItemSize())
			}
			return nil
		}
		return 0
	}
	be := d.ByteOrder() == '>'
	get := func(b []byte) uint64 {
		var v uint64
		for i := range b {
			if be {
				v = v<<8 | uint64(b[i])
			} else {
				v |= uint64(b[i]) << (8 * i)
			}
		}
		return v
	}
	flt := func(b []byte) any {
		var f float64
		switch len(b) {
		case 8:
			f = math.Float64frombits(get(b))
		case 4:
			f = float64(math.Float32frombits(uint32(get(b))))
		default:
			return fmt.Sprintf("0x%0*x", 2*len(b), get(b))
		}
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "Infinity"
		case math.IsInf(f, -1):
			return "-Infinity"
		}
		return f
	}
	switch kind {
	case 'b':
		return fill[0] != 0
	case 'u':
		return get(fill)
	case 'i', 'M', 'm':
		v := get(fill)
		sh := 64 - 8*uint(len(fill))
		return int64(v<<sh) >> sh
	case 'f':
		return flt(fill)
	case 'c':
		return []any{flt(fill[:len(fill)/2]), flt(fill[len(fill)/2:])}
	case 'U':
		var sb strings.Builder
		for i := 0; i+4 <= len(fill); i += 4 {
			r := rune(get(fill[i : i+4]))
			if r == 0 {
				break
			}
			sb.WriteRune(r)
		}
		return sb.String()
	}
	if v3 {
		out := make([]int, len(fill))
		for i, c := range fill {
			out[i] = int(c)
		}
		return out
	}
	return base64.StdEncoding.EncodeToString(fill)
}

var _ = binary.LittleEndian
