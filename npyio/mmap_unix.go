//go:build unix

package npyio

import (
	"fmt"
	"os"
	"syscall"
)

// MappedArray is an Array whose Data is the file's own bytes, mapped into
// memory read-only (or copy-on-write with Options.MapWritable). A read-only
// Data must not be written, and no Data may be used after Close: touching
// it then faults.
type MappedArray struct {
	Array
	mapping []byte // nil when the data was copied (byte-swapped files)
}

// Mapped reports whether Data is memory-mapped (true) or a copy.
func (m *MappedArray) Mapped() bool { return m.mapping != nil }

// Map memory-maps the .npy file name and returns its data without copying.
// Files whose data is not in native byte order, or not aligned for its
// element type, are read into memory instead (Mapped reports false).
func Map(name string, opts *Options) (*MappedArray, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	wrap := func(err error) error { return fmt.Errorf("%s: %w", name, err) }
	h, err := readHeader(f, opts, size)
	if err != nil {
		return nil, wrap(err)
	}
	if err := h.DType.unsupported(); err != nil {
		return nil, wrap(err)
	}
	want := h.DataSize()
	if avail := size - h.DataOffset; want > avail {
		return nil, wrap(&TruncatedError{Section: "data", Want: want, Got: avail})
	}
	if !h.DType.IsNative() || h.DataOffset%8 != 0 || want == 0 || int64(int(size)) != size {
		a, err := ReadArrayAt(f, size, opts)
		if err != nil {
			return nil, wrap(err)
		}
		return &MappedArray{Array: *a}, nil
	}
	prot, flags := syscall.PROT_READ, syscall.MAP_SHARED
	if opts != nil && opts.MapWritable {
		prot, flags = syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, int(h.DataOffset+want), prot, flags)
	if err != nil {
		return nil, wrap(fmt.Errorf("mmap: %w", err))
	}
	data := m[h.DataOffset : h.DataOffset+want : h.DataOffset+want]
	return &MappedArray{Array: Array{Header: h, DType: h.DType.Native(), Data: data}, mapping: m}, nil
}

// Close unmaps the file. Data is invalid afterwards.
func (m *MappedArray) Close() error {
	if m.mapping == nil {
		return nil
	}
	err := syscall.Munmap(m.mapping)
	m.mapping = nil
	m.Data = nil
	return err
}
