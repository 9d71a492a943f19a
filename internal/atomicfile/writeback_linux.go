//go:build linux

package atomicfile

import "golang.org/x/sys/unix"

// startWriteback asks the kernel to start writing f's dirty pages to disk
// without waiting (sync_file_range with SYNC_FILE_RANGE_WRITE), so that
// the fsync in Commit finds most of the data already written.
func startWriteback(f *File) {
	unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}
