// Package hugepage asks the kernel to back large buffers with transparent
// huge pages. Filling a fresh buffer of 4 KiB pages costs one page fault
// per page, which dominates reading a large file from the page cache or
// scattering chunks into an array out of order; with huge pages it is one
// fault per 2 MiB. It is only advice: off Linux, or where transparent huge
// pages are disabled, nothing happens and the buffer works the same.
package hugepage

// Min is the buffer size from which Advise asks for huge pages; smaller
// buffers are left alone.
const Min = 4 << 20

// huge is the size of a transparent huge page on the platforms that have
// them (x86-64, arm64 with 4 KiB base pages).
const huge = 2 << 20
