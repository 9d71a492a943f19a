//go:build unix

package zarr

import "syscall"

// umask is the process's file creation mask (read once: Umask sets it).
var umask = func() uint32 {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return uint32(m)
}()
