// Package rowbytes reads and writes values inside rows of numpy records
// held as native-order bytes: fields by name, unaligned loads and
// stores, chunks of a numeric column widened into a [Lane], and
// NUL-padded strings (numpy's U and S types). It is shared by the engine's transforms (package
// pipeline) and the filter language (package pipeline/expr).
package rowbytes

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/suggest"
)

// FieldIndex returns the index of the field name of the record dtype dt,
// or -1.
func FieldIndex(dt *npyio.DType, name string) int {
	for i, f := range dt.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// FieldNames returns the names of the fields of dt, in order.
func FieldNames(dt *npyio.DType) []string {
	n := make([]string, len(dt.Fields))
	for i, f := range dt.Fields {
		n[i] = f.Name
	}
	return n
}

// NoField is the message for a field name missing from the record
// dtype dt, with a "did you mean" hint and the fields there are.
func NoField(dt *npyio.DType, name string) string {
	names := FieldNames(dt)
	return fmt.Sprintf("no field %q in the input%s; fields: %s", name, suggest.DidYouMean(name, names), strings.Join(names, ", "))
}

// Load reads a T at b[off:], which must hold unsafe.Sizeof(T) bytes. Rows
// of records are not aligned for their fields, so this relies on the
// unaligned loads every platform Go supports for these sizes allows.
func Load[T any](b []byte, off int) T {
	return *(*T)(unsafe.Pointer(&b[off]))
}

// Store writes v at b[off:].
func Store[T any](b []byte, off int, v T) {
	*(*T)(unsafe.Pointer(&b[off])) = v
}

// AppendNative appends v in native byte order.
func AppendNative(b []byte, v uint64) []byte {
	return binary.NativeEndian.AppendUint64(b, v)
}

// AppendFloat appends x as a native-order float64.
func AppendFloat(b []byte, x float64) []byte {
	return AppendNative(b, math.Float64bits(x))
}

// PutUCS4 writes s as NUL-padded UCS-4 code points, truncating to fit.
func PutUCS4(dst []byte, s string) {
	i := 0
	for _, r := range s {
		if i+4 > len(dst) {
			break
		}
		binary.NativeEndian.PutUint32(dst[i:], uint32(r))
		i += 4
	}
	clear(dst[i:])
}

// UCS4String decodes a NUL-padded UCS-4 string.
func UCS4String(b []byte) string {
	rs := make([]rune, 0, len(b)/4)
	for i := 0; i+4 <= len(b); i += 4 {
		r := rune(binary.NativeEndian.Uint32(b[i:]))
		if r == 0 {
			break
		}
		rs = append(rs, r)
	}
	return string(rs)
}

// BytesString decodes a NUL-padded byte string (numpy's S type).
func BytesString(b []byte) string {
	n := len(b)
	for n > 0 && b[n-1] == 0 {
		n--
	}
	return string(b[:n])
}

// Gather copies the rows whose mask is true from src (rows of rowSize
// bytes) into dst and returns the number copied.
func Gather(dst, src []byte, rowSize int, keep []bool) int {
	n := 0
	for i, k := range keep {
		if !k {
			continue
		}
		copy(dst[n*rowSize:(n+1)*rowSize], src[i*rowSize:(i+1)*rowSize])
		n++
	}
	return n
}

// Lane holds a chunk of values of one column widened to one of int64
// (I), uint64 (U) or float64 (F); which one is the caller's to know, as a
// kind byte 'i', 'u' or 'f'.
type Lane struct {
	I []int64
	U []uint64
	F []float64
}

// Float returns value i of the lane of the given kind ('i', 'u' or
// float) as a float64.
func (l *Lane) Float(kind byte, i int) float64 {
	switch kind {
	case 'i':
		return float64(l.I[i])
	case 'u':
		return float64(l.U[i])
	}
	return l.F[i]
}

// Load loads n values of a numeric column of dtype f, the one at off of
// every row of stride bytes of data, into the slice of the lane that
// holds its type exactly, and returns which: 'i' (bool, int8..int64,
// uint8..uint32, datetime64, timedelta64), 'u' (uint64) or 'f' (float32,
// float64).
func (l *Lane) Load(f *npyio.DType, data []byte, off, stride, n int) byte {
	switch {
	case f.Kind == npyio.Bool || f.Kind == npyio.Int && f.Size == 1:
		l.I = loadI[int8](l.I, data, off, stride, n)
	case f.Kind == npyio.Int && f.Size == 2:
		l.I = loadI[int16](l.I, data, off, stride, n)
	case f.Kind == npyio.Int && f.Size == 4:
		l.I = loadI[int32](l.I, data, off, stride, n)
	case f.Kind == npyio.Int || f.Kind == npyio.Datetime || f.Kind == npyio.Timedelta:
		l.I = loadI[int64](l.I, data, off, stride, n)
	case f.Kind == npyio.Uint && f.Size == 1:
		l.I = loadI[uint8](l.I, data, off, stride, n)
	case f.Kind == npyio.Uint && f.Size == 2:
		l.I = loadI[uint16](l.I, data, off, stride, n)
	case f.Kind == npyio.Uint && f.Size == 4:
		l.I = loadI[uint32](l.I, data, off, stride, n)
	case f.Kind == npyio.Uint:
		l.U = l.U[:0]
		for i := 0; i < n; i++ {
			l.U = append(l.U, Load[uint64](data, off+i*stride))
		}
		return 'u'
	case f.Size == 4:
		l.F = loadF[float32](l.F, data, off, stride, n)
		return 'f'
	default:
		l.F = loadF[float64](l.F, data, off, stride, n)
		return 'f'
	}
	return 'i'
}

// Floats returns the first n values of the lane's slice of kind as
// float64 (F itself for 'f').
func (l *Lane) Floats(kind byte, n int) []float64 {
	if kind == 'f' {
		return l.F[:n]
	}
	l.F = l.F[:0]
	for i := 0; i < n; i++ {
		l.F = append(l.F, l.Float(kind, i))
	}
	return l.F
}

func loadI[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32](buf []int64, src []byte, off, stride, n int) []int64 {
	buf = buf[:0]
	for i := 0; i < n; i++ {
		buf = append(buf, int64(Load[T](src, off+i*stride)))
	}
	return buf
}

func loadF[T float32 | float64](buf []float64, src []byte, off, stride, n int) []float64 {
	buf = buf[:0]
	for i := 0; i < n; i++ {
		buf = append(buf, float64(Load[T](src, off+i*stride)))
	}
	return buf
}
