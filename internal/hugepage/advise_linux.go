package hugepage

import (
	"syscall"
	"unsafe"
)

// Advise marks the 2 MiB-aligned interior of b, a buffer of at least Min
// bytes about to be filled, for transparent huge pages (MADV_HUGEPAGE).
// Errors are ignored: it is advice.
func Advise(b []byte) {
	if len(b) < Min {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + huge - 1) &^ (huge - 1)
	end := (p + uintptr(len(b))) &^ (huge - 1)
	if end <= start {
		return
	}
	_ = syscall.Madvise(b[start-p:end-p], syscall.MADV_HUGEPAGE)
}
