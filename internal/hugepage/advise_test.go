package hugepage

import "testing"

// Advise leaves every byte of the buffer as it was and accepts buffers
// of any size and alignment, including empty and unaligned slices.
func TestAdvisePreservesContents(t *testing.T) {
	for _, n := range []int{0, 1, Min - 1, Min, Min + 12345, 3*huge + 7} {
		buf := make([]byte, n+3)
		for i := range buf {
			buf[i] = byte(i * 7)
		}
		b := buf[3:] // not 2 MiB aligned
		Advise(b)
		for i := range buf {
			if buf[i] != byte(i*7) {
				t.Fatalf("size %d: byte %d changed to %d", n, i, buf[i])
			}
		}
	}
}
