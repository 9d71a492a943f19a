//go:build unix

package arrowconv

import (
	"fmt"
	"os"
	"syscall"
)

// mmapFile maps the first size bytes of f read-only and shared.
func mmapFile(f *os.File, size int) ([]byte, error) {
	data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("arrowconv: mapping %s: %w", f.Name(), err)
	}
	return data, nil
}

func munmapFile(data []byte) error {
	if data == nil {
		return nil
	}
	if err := syscall.Munmap(data); err != nil {
		return fmt.Errorf("arrowconv: unmapping an IPC file: %w", err)
	}
	return nil
}
