package matfile

import (
	"syscall"
	"unsafe"
)

// adviseHuge asks Linux to back b (a large buffer about to be written
// out of order) with transparent huge pages where the system allows it
// on request: a few hundred page faults instead of one per 4 KiB. Errors
// are ignored (it is advice).
func adviseHuge(b []byte) {
	const huge = 2 << 20
	if len(b) < 4*huge {
		return
	}
	start := uintptr(unsafe.Pointer(&b[0]))
	lo := (start + huge - 1) &^ (huge - 1)
	hi := (start + uintptr(len(b))) &^ (huge - 1)
	if hi <= lo {
		return
	}
	_ = syscall.Madvise(b[lo-start:hi-start], syscall.MADV_HUGEPAGE)
}
