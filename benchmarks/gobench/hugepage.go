package main

import (
	"fmt"
	"os"
	"syscall"

	"github.com/npyflow/npyflow/npyio"
)

// readHugepage is a prototype of what npyio.ReadFile could do for large
// arrays: read the data into anonymous memory advised MADV_HUGEPAGE, as
// numpy's allocator does, so that the kernel faults in 2 MiB pages instead
// of 4 KiB ones. Little-endian float64 only (no byte swapping).
func readHugepage(args []string) (result, error) {
	var data []byte
	secs, err := timed(func() error {
		f, err := os.Open(args[0])
		if err != nil {
			return err
		}
		defer f.Close()
		h, err := npyio.ReadHeader(f, nil)
		if err != nil {
			return err
		}
		if !h.DType.IsNative() {
			return fmt.Errorf("prototype reads native-order data only")
		}
		n := int(h.DataSize())
		data, err = syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			return err
		}
		if err := syscall.Madvise(data, 14 /* MADV_HUGEPAGE */); err != nil {
			return err
		}
		_, err = f.ReadAt(data, h.DataOffset)
		return err
	})
	if err != nil {
		return result{}, err
	}
	v, err := npyio.View[float64](data)
	if err != nil {
		return result{}, err
	}
	return result{secs: secs, check: f64Check(v)}, nil
}
