package arrowconv

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// copyFileRange copies n bytes of in from offset off to out at its file
// offset with copy_file_range, and returns how many it copied: fewer than
// n (and no error) where the kernel or file system cannot (the caller
// writes the rest) or in ended early.
func copyFileRange(out, in *os.File, off, n int64) (int64, error) {
	var done int64
	for done < n {
		k, err := unix.CopyFileRange(int(in.Fd()), &off, int(out.Fd()), nil, int(min(n-done, 1<<30)), 0)
		if err != nil {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if done == 0 && (errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EXDEV) ||
				errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EBADF)) {
				return 0, nil // not here: write instead
			}
			return done, err
		}
		if k == 0 {
			break // in ended
		}
		done += int64(k)
	}
	return done, nil
}
