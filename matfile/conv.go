package matfile

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/npyflow/npyflow/npyio"
)

// nativeLE reports whether this machine is little-endian.
var nativeLE = npyio.NativeOrder == npyio.LittleEndian

// allocFor allocates n elements of dt (8-byte aligned).
func allocFor(n int64, size int) []byte {
	total := n * int64(size)
	if total == 0 {
		return []byte{}
	}
	w := make([]uint64, (total+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), total)
}

// checkCount verifies that src holds exactly n elements of typ.
func checkCount(typ DataType, src []byte, n int64) error {
	es := typ.ElemSize()
	if es == 0 || typ == MiUTF8 || typ == MiUTF16 || typ == MiUTF32 {
		return fmt.Errorf("data of type %s is not numeric", typ)
	}
	if n > int64(len(src)) || int64(len(src)) != n*int64(es) {
		return fmt.Errorf("%d bytes of %s are not the %d elements of the dimensions", len(src), typ, n)
	}
	return nil
}

// decodeInto converts n elements of storage type typ (in byte order bo)
// to dt, writing element i at index i*stride+idx of out viewed as dt's Go
// type. Values are converted exactly: one that the class cannot hold
// (1.5 in an int8 array, 2^53+1 in a double) is an error. A bool target
// takes any nonzero value as true.
func decodeInto(out []byte, dt *npyio.DType, stride, idx int, typ DataType, src []byte, bo binary.ByteOrder, n int64) error {
	if err := checkCount(typ, src, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	// Fast path: same type, one component, copy (and swap).
	if stride == 1 && dt.Kind != npyio.Bool && naturalType(dt) == typ {
		copy(out, src)
		if (bo == binary.BigEndian) == nativeLE && dt.Size > 1 {
			swapBytes(out[:len(src)], dt.Size)
		}
		return nil
	}
	switch {
	case dt.Kind == npyio.Bool:
		return decodeBool(out, typ, src, bo, int(n))
	case dt.Kind == npyio.Float && dt.Size == 8, dt.Kind == npyio.Complex && dt.Size == 16:
		return decodeT(view[float64](out), stride, idx, typ, src, bo, int(n), tgtF64)
	case dt.Kind == npyio.Float && dt.Size == 4, dt.Kind == npyio.Complex && dt.Size == 8:
		return decodeT(view[float32](out), stride, idx, typ, src, bo, int(n), tgtF32)
	case dt.Kind == npyio.Int && dt.Size == 1:
		return decodeT(view[int8](out), stride, idx, typ, src, bo, int(n), tgtInt)
	case dt.Kind == npyio.Int && dt.Size == 2:
		return decodeT(view[int16](out), stride, idx, typ, src, bo, int(n), tgtInt)
	case dt.Kind == npyio.Int && dt.Size == 4:
		return decodeT(view[int32](out), stride, idx, typ, src, bo, int(n), tgtInt)
	case dt.Kind == npyio.Int && dt.Size == 8:
		return decodeT(view[int64](out), stride, idx, typ, src, bo, int(n), tgtInt)
	case dt.Kind == npyio.Uint && dt.Size == 1:
		return decodeT(view[uint8](out), stride, idx, typ, src, bo, int(n), tgtUint)
	case dt.Kind == npyio.Uint && dt.Size == 2:
		return decodeT(view[uint16](out), stride, idx, typ, src, bo, int(n), tgtUint)
	case dt.Kind == npyio.Uint && dt.Size == 4:
		return decodeT(view[uint32](out), stride, idx, typ, src, bo, int(n), tgtUint)
	case dt.Kind == npyio.Uint && dt.Size == 8:
		return decodeT(view[uint64](out), stride, idx, typ, src, bo, int(n), tgtUint)
	}
	return fmt.Errorf("no conversion to %s", dt)
}

// real is the set of Go types of MATLAB's numeric classes.
type real interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

func view[T real](b []byte) []T {
	var z T
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(z)))
}

// naturalType is the storage type whose elements are dt's.
func naturalType(dt *npyio.DType) DataType {
	switch dt.Kind {
	case npyio.Float:
		if dt.Size == 8 {
			return MiDOUBLE
		}
		return MiSINGLE
	case npyio.Int:
		switch dt.Size {
		case 1:
			return MiINT8
		case 2:
			return MiINT16
		case 4:
			return MiINT32
		case 8:
			return MiINT64
		}
	case npyio.Uint:
		switch dt.Size {
		case 1:
			return MiUINT8
		case 2:
			return MiUINT16
		case 4:
			return MiUINT32
		case 8:
			return MiUINT64
		}
	}
	return 0
}

func swapBytes(b []byte, size int) {
	switch size {
	case 2:
		for i := 0; i+1 < len(b); i += 2 {
			b[i], b[i+1] = b[i+1], b[i]
		}
	case 4:
		for i := 0; i+3 < len(b); i += 4 {
			binary.LittleEndian.PutUint32(b[i:], binary.BigEndian.Uint32(b[i:]))
		}
	case 8:
		for i := 0; i+7 < len(b); i += 8 {
			binary.LittleEndian.PutUint64(b[i:], binary.BigEndian.Uint64(b[i:]))
		}
	}
}

type tgtKind int

const (
	tgtF64 tgtKind = iota
	tgtF32
	tgtInt
	tgtUint
)

// bounds of an integer T, as int64/uint64 (only for tgtInt/tgtUint).
func intBounds[T real]() (lo int64, hi uint64) {
	var z T
	bits := uint(unsafe.Sizeof(z)) * 8
	var neg T = 0
	neg--
	if neg < 0 { // signed
		return -1 << (bits - 1), 1<<(bits-1) - 1
	}
	if bits == 64 {
		return 0, math.MaxUint64
	}
	return 0, 1<<bits - 1
}

type exactError struct {
	i   int
	val string
	typ DataType
}

func (e *exactError) Error() string {
	return fmt.Sprintf("element %d (%s, stored as %s) is not exactly representable in the array's class", e.i+1, e.val, e.typ)
}

func decodeT[T real](dst []T, stride, idx int, typ DataType, src []byte, bo binary.ByteOrder, n int, tk tgtKind) error {
	lo, hi := intBounds[T]()
	fromInt := func(i int, v int64) error {
		switch tk {
		case tgtInt:
			if v < lo || (v > 0 && uint64(v) > hi) {
				return &exactError{i, fmt.Sprint(v), typ}
			}
		case tgtUint:
			if v < 0 || uint64(v) > hi {
				return &exactError{i, fmt.Sprint(v), typ}
			}
		case tgtF64:
			if f := float64(v); f >= 0x1p63 || int64(f) != v {
				return &exactError{i, fmt.Sprint(v), typ}
			}
		case tgtF32:
			if f := float64(float32(v)); f >= 0x1p63 || int64(f) != v {
				return &exactError{i, fmt.Sprint(v), typ}
			}
		}
		dst[i*stride+idx] = T(v)
		return nil
	}
	fromUint := func(i int, v uint64) error {
		if v <= math.MaxInt64 {
			return fromInt(i, int64(v))
		}
		switch tk {
		case tgtUint:
			if v > hi {
				return &exactError{i, fmt.Sprint(v), typ}
			}
		case tgtF64:
			if f := float64(v); f >= 0x1p64 || uint64(f) != v {
				return &exactError{i, fmt.Sprint(v), typ}
			}
		case tgtF32:
			if f := float64(float32(v)); f >= 0x1p64 || uint64(f) != v {
				return &exactError{i, fmt.Sprint(v), typ}
			}
		default:
			return &exactError{i, fmt.Sprint(v), typ}
		}
		dst[i*stride+idx] = T(v)
		return nil
	}
	fromFloat := func(i int, v float64) error {
		switch tk {
		case tgtF64:
			dst[i*stride+idx] = T(v)
			return nil
		case tgtF32:
			if v == v && float64(float32(v)) != v {
				return &exactError{i, fmt.Sprint(v), typ}
			}
			dst[i*stride+idx] = T(float32(v))
			return nil
		}
		if v != math.Trunc(v) || math.IsInf(v, 0) {
			return &exactError{i, fmt.Sprint(v), typ}
		}
		if v < 0 {
			if v < -0x1p63 {
				return &exactError{i, fmt.Sprint(v), typ}
			}
			return fromInt(i, int64(v))
		}
		if v >= 0x1p64 {
			return &exactError{i, fmt.Sprint(v), typ}
		}
		return fromUint(i, uint64(v))
	}
	var err error
	switch typ {
	case MiINT8:
		for i := 0; i < n && err == nil; i++ {
			err = fromInt(i, int64(int8(src[i])))
		}
	case MiUINT8:
		for i := 0; i < n && err == nil; i++ {
			err = fromInt(i, int64(src[i]))
		}
	case MiINT16:
		for i := 0; i < n && err == nil; i++ {
			err = fromInt(i, int64(int16(bo.Uint16(src[2*i:]))))
		}
	case MiUINT16:
		for i := 0; i < n && err == nil; i++ {
			err = fromInt(i, int64(bo.Uint16(src[2*i:])))
		}
	case MiINT32:
		for i := 0; i < n && err == nil; i++ {
			err = fromInt(i, int64(int32(bo.Uint32(src[4*i:]))))
		}
	case MiUINT32:
		for i := 0; i < n && err == nil; i++ {
			err = fromInt(i, int64(bo.Uint32(src[4*i:])))
		}
	case MiINT64:
		for i := 0; i < n && err == nil; i++ {
			err = fromInt(i, int64(bo.Uint64(src[8*i:])))
		}
	case MiUINT64:
		for i := 0; i < n && err == nil; i++ {
			err = fromUint(i, bo.Uint64(src[8*i:]))
		}
	case MiSINGLE:
		for i := 0; i < n && err == nil; i++ {
			err = fromFloat(i, float64(math.Float32frombits(bo.Uint32(src[4*i:]))))
		}
	case MiDOUBLE:
		for i := 0; i < n && err == nil; i++ {
			err = fromFloat(i, math.Float64frombits(bo.Uint64(src[8*i:])))
		}
	default:
		return fmt.Errorf("data of type %s is not numeric", typ)
	}
	return err
}

// decodeBool stores 1 for each nonzero element, 0 otherwise.
func decodeBool(out []byte, typ DataType, src []byte, bo binary.ByteOrder, n int) error {
	es := typ.ElemSize()
	for i := 0; i < n; i++ {
		e := src[i*es : (i+1)*es]
		var nz bool
		switch typ {
		case MiSINGLE:
			nz = math.Float32frombits(bo.Uint32(e)) != 0
		case MiDOUBLE:
			nz = math.Float64frombits(bo.Uint64(e)) != 0
		default:
			for _, c := range e {
				if c != 0 {
					nz = true
					break
				}
			}
		}
		if nz {
			out[i] = 1
		} else {
			out[i] = 0
		}
	}
	return nil
}
