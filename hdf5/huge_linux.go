package hdf5

import (
	"syscall"
	"unsafe"
)

// hugeAdvise marks the whole 2 MiB pages inside b, a large buffer that is
// about to be filled (chunks land in it out of order), for transparent
// huge pages where Linux grants them on request: one fault per 2 MiB
// instead of one per 4 KiB on first touch. The result is ignored: the
// buffer works the same without it.
func hugeAdvise(b []byte) {
	const page = 2 << 20
	if len(b) < 8*page {
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (base + page - 1) &^ (page - 1)
	hi := (base + uintptr(len(b))) &^ (page - 1)
	if lo >= hi {
		return
	}
	_ = syscall.Madvise(b[lo-base:hi-base], syscall.MADV_HUGEPAGE)
}
