package main

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"

	"github.com/npyflow/npyflow/npyio"
)

// adviseHuge asks the kernel to back the 2 MiB-aligned interior of b, not
// touched yet, with transparent huge pages (MADV_HUGEPAGE). Errors are
// ignored: it is only advice.
func adviseHuge(b []byte) {
	const huge = 2 << 20
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + huge - 1) &^ (huge - 1)
	end := (p + uintptr(len(b))) &^ (huge - 1)
	if end <= start {
		return
	}
	syscall.Syscall(syscall.SYS_MADVISE, start, end-start, 14 /* MADV_HUGEPAGE */)
}

// hugeData is the array readHugepage read last.
var hugeData []byte

// readHugepage is a prototype of what npyio.ReadFile could do for large
// arrays: read the data into anonymous memory advised MADV_HUGEPAGE, as
// numpy's allocator does, so that the kernel faults in 2 MiB pages instead
// of 4 KiB ones. The buffer is ordinary Go heap memory; only the madvise
// call is added. Native-order float64 only (no byte swapping).
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
		// Go heap memory, as npyio allocates it; only the advice is new.
		w := make([]uint64, (n+7)/8)
		data = unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), n)
		adviseHuge(data)
		_, err = f.ReadAt(data, h.DataOffset)
		return err
	})
	if err != nil {
		return result{}, err
	}
	hugeData = data
	v, err := npyio.View[float64](data)
	if err != nil {
		return result{}, err
	}
	return result{secs: secs, check: f64Check(v)}, nil
}

// writeHugepage is write-npyflow with the input loaded by the readHugepage
// prototype: it shows how much of npyio.WriteArray's time is the kernel
// copying out of a buffer backed by 4 KiB pages.
func writeHugepage(args []string) (result, error) {
	in, err := readHugepage(args[:1])
	if err != nil {
		return result{}, err
	}
	h, err := readHeaderFile(args[0])
	if err != nil {
		return result{}, err
	}
	a := &npyio.Array{Header: h, DType: h.DType.Native(), Data: hugeData}
	var n int64
	secs, err := timed(func() (err error) {
		n, err = writeTo(args[1], func(w io.Writer) error { return npyio.WriteArray(w, a) })
		return err
	})
	return result{secs: secs, check: in.check, outBytes: n}, err
}

func readHeaderFile(name string) (*npyio.Header, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return npyio.ReadHeader(f, nil)
}
