package hdf5

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/npyflow/npyflow/npyio"
)

// Test helpers: deterministic data for any dtype, its values as JSON (the
// same form hdf5/testdata/check_written.py makes from h5py's reading), and
// a semantic JSON comparison.

func wOrder(dt *npyio.DType) binary.ByteOrder {
	if dt.Order == npyio.BigEndian {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// wPutValue encodes element i's test value of dt into b.
func wPutValue(b []byte, dt *npyio.DType, i int) {
	o := wOrder(dt)
	switch dt.Kind {
	case npyio.Bool:
		b[0] = 0
		if i%3 == 0 {
			b[0] = 1
		}
	case npyio.Int, npyio.Uint:
		bits := uint(8 * dt.Size)
		var v uint64
		switch {
		case i == 1 && dt.Kind == npyio.Int:
			v = 1 << (bits - 1) // min
		case i == 2:
			v = (1 << (bits - 1)) - 1 // signed max
			if dt.Kind == npyio.Uint {
				v = math.MaxUint64 >> (64 - bits)
			}
		default:
			v = uint64(int64(i*37 - 50))
			if dt.Kind == npyio.Uint {
				v = uint64(i * 37)
			}
		}
		switch dt.Size {
		case 1:
			b[0] = byte(v)
		case 2:
			o.PutUint16(b, uint16(v))
		case 4:
			o.PutUint32(b, uint32(v))
		case 8:
			o.PutUint64(b, v)
		}
	case npyio.Float:
		f := float64(i)*0.25 - 1.5
		if i == 3 {
			f = math.Inf(-1)
		}
		if i == 4 {
			f = math.NaN()
		}
		wPutFloat(b, dt.Size, f, o)
	case npyio.Complex:
		wPutFloat(b, dt.Size/2, float64(i)*0.5, o)
		wPutFloat(b[dt.Size/2:], dt.Size/2, -float64(i), o)
	case npyio.Bytes:
		clear(b[:dt.Size])
		copy(b[:dt.Size], fmt.Sprintf("s%d-abcdefgh", i))
	case npyio.Struct:
		for _, f := range dt.Fields {
			for k := 0; k < f.Count(); k++ {
				wPutValue(b[f.Offset+k*f.Type.Size:], f.Type, i*f.Count()+k+1)
			}
		}
	}
}

func wPutFloat(b []byte, size int, f float64, o binary.ByteOrder) {
	switch size {
	case 2:
		o.PutUint16(b, npyio.Float32ToHalf(float32(f)))
	case 4:
		o.PutUint32(b, math.Float32bits(float32(f)))
	case 8:
		o.PutUint64(b, math.Float64bits(f))
	}
}

func wTestData(dt *npyio.DType, n int) []byte {
	b := make([]byte, n*dt.Size)
	for i := 0; i < n; i++ {
		wPutValue(b[i*dt.Size:], dt, i)
	}
	return b
}

func wJSONFloat(f float64) any {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return f
}

func wGetFloat(b []byte, size int, o binary.ByteOrder) float64 {
	switch size {
	case 2:
		return float64(npyio.HalfToFloat32(o.Uint16(b)))
	case 4:
		return float64(math.Float32frombits(o.Uint32(b)))
	}
	return math.Float64frombits(o.Uint64(b))
}

// wValue is the JSON form of one element.
func wValue(dt *npyio.DType, b []byte) any {
	o := wOrder(dt)
	switch dt.Kind {
	case npyio.Bool:
		return b[0] != 0
	case npyio.Int:
		switch dt.Size {
		case 1:
			return int64(int8(b[0]))
		case 2:
			return int64(int16(o.Uint16(b)))
		case 4:
			return int64(int32(o.Uint32(b)))
		}
		return int64(o.Uint64(b))
	case npyio.Uint:
		switch dt.Size {
		case 1:
			return uint64(b[0])
		case 2:
			return uint64(o.Uint16(b))
		case 4:
			return uint64(o.Uint32(b))
		}
		return o.Uint64(b)
	case npyio.Float:
		return wJSONFloat(wGetFloat(b, dt.Size, o))
	case npyio.Complex:
		h := dt.Size / 2
		return []any{wJSONFloat(wGetFloat(b, h, o)), wJSONFloat(wGetFloat(b[h:], h, o))}
	case npyio.Bytes:
		return wLatin1(bytes.TrimRight(b[:dt.Size], "\x00"))
	case npyio.Struct:
		m := map[string]any{}
		for _, f := range dt.Fields {
			if f.Shape == nil {
				m[f.Name] = wValue(f.Type, b[f.Offset:])
				continue
			}
			vs := make([]any, f.Count())
			for k := range vs {
				vs[k] = wValue(f.Type, b[f.Offset+k*f.Type.Size:])
			}
			m[f.Name] = vs
		}
		return m
	}
	panic("no JSON form for " + dt.String())
}

func wLatin1(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

func wValues(dt *npyio.DType, data []byte) []any {
	out := make([]any, len(data)/dt.Size)
	for i := range out {
		out[i] = wValue(dt, data[i*dt.Size:])
	}
	return out
}

// wDTypeJSON is the dtype as check_written.py reports h5py's: the typestr,
// or a descr list for a struct.
func wDTypeJSON(dt *npyio.DType) any {
	if dt.Kind != npyio.Struct {
		return dt.TypeStr()
	}
	var fs []any
	for _, f := range dt.Fields {
		e := []any{f.Name, wDTypeJSON(f.Type)}
		if f.Shape != nil {
			sh := make([]any, len(f.Shape))
			for i, d := range f.Shape {
				sh[i] = d
			}
			e = append(e, sh)
		}
		fs = append(fs, e)
	}
	return fs
}

// wJSONEqual compares two JSON documents: numbers by value (integers
// exactly), objects by keys.
func wJSONEqual(a, b []byte) (bool, string) {
	var x, y any
	da := json.NewDecoder(bytes.NewReader(a))
	da.UseNumber()
	db := json.NewDecoder(bytes.NewReader(b))
	db.UseNumber()
	if err := da.Decode(&x); err != nil {
		return false, err.Error()
	}
	if err := db.Decode(&y); err != nil {
		return false, err.Error()
	}
	return wEqual(x, y, "")
}

func wEqual(x, y any, at string) (bool, string) {
	switch a := x.(type) {
	case json.Number:
		b, ok := y.(json.Number)
		if !ok {
			return false, fmt.Sprintf("%s: %v vs %v", at, x, y)
		}
		if a == b {
			return true, ""
		}
		ia, ea := strconv.ParseInt(string(a), 10, 64)
		ib, eb := strconv.ParseInt(string(b), 10, 64)
		if ea == nil && eb == nil {
			return ia == ib, at + ": " + string(a) + " vs " + string(b)
		}
		ua, ea := strconv.ParseUint(string(a), 10, 64)
		ub, eb := strconv.ParseUint(string(b), 10, 64)
		if ea == nil && eb == nil {
			return ua == ub, at + ": " + string(a) + " vs " + string(b)
		}
		fa, _ := strconv.ParseFloat(string(a), 64)
		fb, _ := strconv.ParseFloat(string(b), 64)
		return fa == fb, at + ": " + string(a) + " vs " + string(b)
	case []any:
		b, ok := y.([]any)
		if !ok || len(a) != len(b) {
			return false, fmt.Sprintf("%s: %.200v vs %.200v", at, x, y)
		}
		for i := range a {
			if ok, why := wEqual(a[i], b[i], at+"["+strconv.Itoa(i)+"]"); !ok {
				return false, why
			}
		}
		return true, ""
	case map[string]any:
		b, ok := y.(map[string]any)
		if !ok || len(a) != len(b) {
			var ka, kb []string
			for k := range a {
				ka = append(ka, k)
			}
			if ok {
				for k := range b {
					kb = append(kb, k)
				}
			}
			return false, fmt.Sprintf("%s: keys %v vs %v", at, ka, kb)
		}
		for k, v := range a {
			if ok, why := wEqual(v, b[k], at+"."+k); !ok {
				return false, why
			}
		}
		return true, ""
	}
	if x != y {
		return false, fmt.Sprintf("%s: %v vs %v", at, x, y)
	}
	return true, ""
}

// wExpect records what a test file should hold, in check_written.py's form.
type wExpect struct {
	Objects map[string]map[string]any `json:"objects"`
}

func newWExpect() *wExpect {
	return &wExpect{Objects: map[string]map[string]any{"/": {"kind": "group", "attrs": map[string]any{}}}}
}

func (e *wExpect) group(path string) {
	e.Objects[path] = map[string]any{"kind": "group", "attrs": map[string]any{}}
}

func wShapeJSON(shape []uint64) []any {
	s := make([]any, len(shape))
	for i, d := range shape {
		s[i] = d
	}
	return s
}

func (e *wExpect) dataset(path string, dtype any, shape []uint64, values []any, layout string, opts *DatasetOptions, chunks []uint64) {
	o := map[string]any{"kind": "dataset", "dtype": dtype, "shape": wShapeJSON(shape), "values": values,
		"layout": layout, "chunks": nil, "compression": nil, "compression_opts": nil, "shuffle": false, "attrs": map[string]any{}}
	if chunks != nil {
		o["chunks"] = wShapeJSON(chunks)
	}
	ms := wShapeJSON(shape)
	if opts != nil && opts.Unlimited {
		ms[0] = nil
	}
	o["maxshape"] = ms
	if opts != nil {
		c, level, err := opts.compression()
		if err != nil {
			panic(err)
		}
		switch c {
		case CompressionDeflate:
			o["compression"], o["compression_opts"] = "gzip", level
		case CompressionLZ4:
			o["compression"], o["compression_opts"] = "lz4", []any{0}
		case CompressionZstd:
			o["compression"], o["compression_opts"] = "zstd", []any{level}
		}
	}
	if opts != nil && opts.Shuffle {
		o["shuffle"] = true
	}
	e.Objects[path] = o
}

func (e *wExpect) attr(path, name string, dtype any, shape []uint64, values []any) {
	e.Objects[path]["attrs"].(map[string]any)[name] = map[string]any{"dtype": dtype, "shape": wShapeJSON(shape), "values": values}
}

func (e *wExpect) marshal() []byte {
	b, err := json.MarshalIndent(e, "", " ")
	if err != nil {
		panic(err)
	}
	return b
}
