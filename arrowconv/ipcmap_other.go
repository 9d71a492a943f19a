//go:build !unix

package arrowconv

import (
	"errors"
	"fmt"
	"os"
)

// mmapFile is not available here: MapIPC fails and callers read the file.
func mmapFile(f *os.File, size int) ([]byte, error) {
	return nil, fmt.Errorf("arrowconv: memory mapping %s: %w", f.Name(), errors.ErrUnsupported)
}

func munmapFile(data []byte) error { return nil }
