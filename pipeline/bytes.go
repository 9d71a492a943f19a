package pipeline

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// load reads a T at b[off:], which must hold unsafe.Sizeof(T) bytes. Rows
// of records are not aligned for their fields, so this relies on the
// unaligned loads every platform Go supports for these sizes allows.
func load[T any](b []byte, off int) T {
	return *(*T)(unsafe.Pointer(&b[off]))
}

// store writes v at b[off:].
func store[T any](b []byte, off int, v T) {
	*(*T)(unsafe.Pointer(&b[off])) = v
}

func appendNative(b []byte, v uint64) []byte {
	return binary.NativeEndian.AppendUint64(b, v)
}

func appendFloat(b []byte, x float64) []byte {
	return appendNative(b, math.Float64bits(x))
}

// putUCS4 writes s as NUL-padded UCS-4 code points, truncating to fit.
func putUCS4(dst []byte, s string) {
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

// ucs4String decodes a NUL-padded UCS-4 string.
func ucs4String(b []byte) string {
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

// bytesString decodes a NUL-padded byte string (numpy's S type).
func bytesString(b []byte) string {
	n := len(b)
	for n > 0 && b[n-1] == 0 {
		n--
	}
	return string(b[:n])
}

// gather copies the rows whose mask is true from src (rows of rowSize
// bytes) into dst and returns the number copied.
func gather(dst, src []byte, rowSize int, keep []bool) int {
	n := 0
	for i, k := range keep {
		if !k {
			continue
		}
		// Copy runs of kept rows at once.
		copy(dst[n*rowSize:(n+1)*rowSize], src[i*rowSize:(i+1)*rowSize])
		n++
	}
	return n
}

func unsafeSizeof[T any](z T) uintptr { return unsafe.Sizeof(z) }
