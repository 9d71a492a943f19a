//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process pid exists: kill(pid, 0) fails
// with ESRCH only for a process that does not (EPERM: it exists but is
// not ours).
func processAlive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
