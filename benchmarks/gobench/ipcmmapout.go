//go:build linux

package main

import (
	"os"
	"strconv"
	"syscall"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
)

// ipcToNPYMmapOut is a prototype: an IPC file to .npy with the rows
// encoded straight into a shared writable mapping of the output file
// (ftruncate to its final size first) instead of a buffer then write(2).
func ipcToNPYMmapOut(args []string) (result, error) {
	var rows int64
	secs, err := timed(func() error {
		in, err := os.Open(args[0])
		if err != nil {
			return err
		}
		defer in.Close()
		st, err := in.Stat()
		if err != nil {
			return err
		}
		info, err := arrowconv.ReadIPCInfo(in, st.Size())
		if err != nil {
			return err
		}
		rr, err := arrowconv.NewIPCReader(in, memory.DefaultAllocator)
		if err != nil {
			return err
		}
		defer rr.Release()
		m, err := arrowconv.MapSchema(rr.Schema(), nil)
		if err != nil {
			return err
		}
		h, err := m.Header(info.Rows)
		if err != nil {
			return err
		}
		hb, err := npyio.EncodeHeader(h)
		if err != nil {
			return err
		}
		size := int64(len(hb)) + h.DataSize()
		out, err := os.Create(args[1])
		if err != nil {
			return err
		}
		defer out.Close()
		if err := out.Truncate(size); err != nil {
			return err
		}
		mp, err := syscall.Mmap(int(out.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
		if err != nil {
			return err
		}
		defer syscall.Munmap(mp)
		pos := copy(mp, hb)
		rs, _ := m.RowSize()
		for rr.Next() {
			rec := rr.RecordBatch()
			n := int(rec.NumRows())
			if _, err := m.EncodeRows(rec, 0, n, mp[pos:pos:pos+n*rs]); err != nil {
				return err
			}
			pos += n * rs
			rows += int64(n)
		}
		return rr.Err()
	})
	if err != nil {
		return result{}, err
	}
	return result{secs: secs, check: "rows=" + strconv.FormatInt(rows, 10)}, nil
}
