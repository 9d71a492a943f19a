package npyio

import (
	"fmt"
	"io"
	"os"
	"unsafe"

	"github.com/npyflow/npyflow/internal/hugepage"
)

// Array is a whole array in memory.
//
// Data holds Header.Count() elements in native byte order, in the file's
// layout: row-major, or column-major when Header.FortranOrder is set (use
// CData for row-major bytes). Bools are normalized to 0 or 1 except in a
// memory-mapped Array, whose bytes are the file's own.
type Array struct {
	Header *Header
	DType  *DType // Header.DType in native byte order
	Data   []byte
}

// ReadArray reads a whole array from r. Memory grows as data arrives, so a
// header that lies about the size cannot force a huge allocation.
func ReadArray(r io.Reader, opts *Options) (*Array, error) {
	h, err := readHeader(r, opts, -1)
	if err != nil {
		return nil, err
	}
	if err := h.DType.unsupported(); err != nil {
		return nil, err
	}
	data, err := readGrow(r, nil, h.DataSize())
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, &TruncatedError{Section: "data", Want: h.DataSize(), Got: int64(len(data))}
		}
		return nil, fmt.Errorf("npyio: reading data: %w", err)
	}
	return newArray(h, data), nil
}

// ReadArrayAt reads a whole array from r, of total size size, with one
// allocation of exactly the data size (checked against size first).
func ReadArrayAt(r io.ReaderAt, size int64, opts *Options) (*Array, error) {
	h, err := readHeader(io.NewSectionReader(r, 0, size), opts, size)
	if err != nil {
		return nil, err
	}
	if err := h.DType.unsupported(); err != nil {
		return nil, err
	}
	want := h.DataSize()
	if avail := size - h.DataOffset; want > avail {
		return nil, &TruncatedError{Section: "data", Want: want, Got: avail}
	}
	data := alignedBytes(want)
	if n, err := r.ReadAt(data, h.DataOffset); n < len(data) {
		if err == nil || err == io.EOF {
			return nil, &TruncatedError{Section: "data", Want: want, Got: int64(n)}
		}
		return nil, fmt.Errorf("npyio: reading data: %w", err)
	}
	return newArray(h, data), nil
}

// ReadFile reads the whole .npy file name. Errors name the file.
func ReadFile(name string, opts *Options) (*Array, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	a, err := ReadArrayAt(f, st.Size(), opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return a, nil
}

func newArray(h *Header, data []byte) *Array {
	newFixer(h.DType, true).apply(data)
	return &Array{Header: h, DType: h.DType.Native(), Data: data}
}

// alignedBytes allocates n bytes aligned for 8-byte values.
func alignedBytes(n int64) []byte {
	if n == 0 {
		return []byte{}
	}
	w := make([]uint64, (n+7)/8)
	b := unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), n)
	hugepage.Advise(b)
	return b
}

// CData returns the elements in row-major (C) order: Data itself for a
// C-order array, a reordered copy for a Fortran-order one.
func (a *Array) CData() []byte {
	h := a.Header
	if !h.FortranOrder || len(h.Shape) < 2 || h.Count() == 0 {
		return a.Data
	}
	out := alignedBytes(int64(len(a.Data)))
	transposeF(out, a.Data, h.Shape[1:], h.Shape[0], a.DType.Size)
	return out
}

// Number is the set of Go types whose memory layout matches a numpy scalar.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// View reinterprets native-order element bytes as a []T without copying.
// It fails if len(b) is not a multiple of T's size or b is not aligned
// for T. The slice shares b's memory.
func View[T Number](b []byte) ([]T, error) {
	var z T
	sz := int(unsafe.Sizeof(z))
	if len(b)%sz != 0 {
		return nil, fmt.Errorf("npyio: %d bytes is not a whole number of %d-byte values", len(b), sz)
	}
	if len(b) == 0 {
		return []T{}, nil
	}
	if uintptr(unsafe.Pointer(&b[0]))%unsafe.Alignof(z) != 0 {
		return nil, fmt.Errorf("npyio: data is not aligned for %T values", z)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/sz), nil
}

// AsBytes reinterprets a slice of numbers as its bytes without copying.
func AsBytes[T Number](v []T) []byte {
	if len(v) == 0 {
		return []byte{}
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(z)))
}
