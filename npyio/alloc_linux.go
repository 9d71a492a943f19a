package npyio

import (
	"syscall"
	"unsafe"
)

// hugeMin is the size from which big buffers ask for transparent huge
// pages. Filling a buffer of 4 KiB pages costs one page fault per page,
// which dominates reading a large file from the page cache; numpy asks
// for huge pages on large arrays for the same reason.
const hugeMin = 4 << 20

// adviseHuge asks the kernel to back the 2 MiB-aligned interior of b with
// huge pages (MADV_HUGEPAGE). It is only advice: where transparent huge
// pages are off it does nothing, and errors are ignored.
func adviseHuge(b []byte) {
	if len(b) < hugeMin {
		return
	}
	const huge = 2 << 20
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + huge - 1) &^ (huge - 1)
	end := (p + uintptr(len(b))) &^ (huge - 1)
	if end <= start {
		return
	}
	_ = syscall.Madvise(b[start-p:end-p], 14 /* MADV_HUGEPAGE */)
}
