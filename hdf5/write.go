package hdf5

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
)

// WriterOptions configures NewWriter. The zero value (or nil) is a file
// with no user block that compresses with GOMAXPROCS workers.
type WriterOptions struct {
	// UserBlock is written at offset 0 and padded with zeros to 512 bytes or
	// the next power of two above; the HDF5 data starts after it. MATLAB's
	// v7.3 files have a 512-byte user block holding the MAT-file header.
	// Empty means no user block.
	UserBlock []byte
	// Threads is the number of goroutines filtering (shuffling and
	// compressing) chunks; 0 means runtime.GOMAXPROCS(0). Chunks are
	// written in order whatever the number: the file is the same.
	Threads int
	// Workers is the former name of Threads (0 or the same value).
	//
	// Deprecated: use Threads.
	Workers int
}

// ObjRef is the object reference the writer hands out: the same value as
// the reader's [Reference] (the address of an object's header, relative to
// the start of the HDF5 data, as stored in H5T_STD_REF_OBJ data).
type ObjRef = Reference

// Writer writes one HDF5 file. Create groups and datasets from Root, then
// call Close, which writes the metadata; the file is not valid before Close
// succeeds.
type Writer struct {
	f       io.WriteSeeker
	base    uint64 // user block size: absolute offset of relative address 0
	eof     uint64 // relative end of allocated space
	pos     int64  // absolute position of f; -1 when unknown
	written uint64 // relative end of the bytes actually written
	root    *GroupWriter
	groups  []*GroupWriter // in creation order
	headers []*wHeader     // every object header, in creation order
	dsets   []*DatasetWriter
	workers int
	pool    *wPool
	fifo    []*wChunkJob // chunks being filtered, written in this order
	err     error        // sticky: the first write error
	closed  bool
}

// The undefined address.
const wUndef = ^uint64(0)

const (
	wGroupLeafK     = 4  // a group node (SNOD) holds up to 2*4 entries
	wGroupInternalK = 16 // a group B-tree node holds up to 2*16 children
	wChunkK         = 32 // a chunk B-tree node holds up to 2*32 children
	wSuperblockSize = 96
)

// NewWriter starts an HDF5 file on f, which should be empty and positioned
// at its start.
func NewWriter(f io.WriteSeeker, opts *WriterOptions) (*Writer, error) {
	if f == nil {
		return nil, errors.New("hdf5: NewWriter needs a destination")
	}
	w := &Writer{f: f, pos: -1}
	var ub []byte
	if opts != nil {
		ub = opts.UserBlock
		w.workers = opts.Threads
		if opts.Workers != 0 && opts.Threads != 0 && opts.Workers != opts.Threads {
			return nil, fmt.Errorf("hdf5: WriterOptions with Threads %d and Workers %d (Workers is the former name of Threads)", opts.Threads, opts.Workers)
		}
		if w.workers == 0 {
			w.workers = opts.Workers
		}
		if w.workers < 0 {
			return nil, fmt.Errorf("hdf5: negative thread count %d", w.workers)
		}
	}
	if w.workers == 0 {
		w.workers = runtime.GOMAXPROCS(0)
	}
	if len(ub) > 0 {
		size := uint64(512)
		for size < uint64(len(ub)) {
			size *= 2
		}
		w.base = size
		block := make([]byte, size)
		copy(block, ub)
		if err := w.writeAbs(0, block); err != nil {
			return nil, err
		}
	}
	// The superblock is written at Close; reserve its space now.
	w.alloc(wSuperblockSize)
	root, err := w.newGroup(nil, "/")
	if err != nil {
		return nil, err
	}
	w.root = root
	return w, nil
}

// Root returns the root group "/".
func (w *Writer) Root() *GroupWriter { return w.root }

// alloc reserves n bytes at the end of the file and returns their relative
// address.
func (w *Writer) alloc(n uint64) uint64 {
	a := w.eof
	w.eof += n
	return a
}

// writeAbs writes b at absolute offset off.
func (w *Writer) writeAbs(off uint64, b []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.pos != int64(off) {
		if _, err := w.f.Seek(int64(off), io.SeekStart); err != nil {
			w.err = fmt.Errorf("hdf5: seek to %d: %w", off, err)
			w.pos = -1
			return w.err
		}
		w.pos = int64(off)
	}
	n, err := w.f.Write(b)
	w.pos += int64(n)
	if err != nil {
		w.err = fmt.Errorf("hdf5: write at %d: %w", off, err)
		w.pos = -1
		return w.err
	}
	return nil
}

// writeAt writes b at relative address addr.
func (w *Writer) writeAt(addr uint64, b []byte) error {
	if err := w.writeAbs(w.base+addr, b); err != nil {
		return err
	}
	if end := addr + uint64(len(b)); end > w.written {
		w.written = end
	}
	return nil
}

func (w *Writer) check() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("hdf5: the writer is closed")
	}
	return nil
}

// Close finishes every open dataset, writes the global heap, the group
// tables, every object header and the superblock. It does not close the
// underlying file. The file is valid only when Close returns nil.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	err := w.finish()
	w.closed = true
	if w.pool != nil {
		w.pool.stop()
		w.pool = nil
	}
	if err != nil && w.err == nil {
		w.err = err
	}
	return err
}

func (w *Writer) finish() error {
	if w.err != nil {
		return w.err
	}
	for _, d := range w.dsets {
		if !d.closed {
			if err := d.Close(); err != nil {
				return err
			}
		}
	}
	if err := w.writeGlobalHeap(); err != nil {
		return err
	}
	// Children are created after their parents, so finishing groups in
	// reverse creation order gives each entry its child's table addresses.
	for i := len(w.groups) - 1; i >= 0; i-- {
		if err := w.groups[i].writeTable(); err != nil {
			return err
		}
	}
	for _, h := range w.headers {
		if err := w.writeHeader(h); err != nil {
			return err
		}
	}
	if w.written < w.eof {
		// Space reserved but never written (an unwritten chunk area): make
		// the file as long as the end-of-file address says.
		if err := w.writeAt(w.eof-1, []byte{0}); err != nil {
			return err
		}
	}
	return w.writeAt(0, w.superblock())
}

func (w *Writer) superblock() []byte {
	b := make([]byte, wSuperblockSize)
	copy(b, "\x89HDF\r\n\x1a\n")
	// versions: superblock 0, free space 0, root symbol table entry 0,
	// reserved, shared header messages 0; sizes of offsets and lengths.
	b[13], b[14] = 8, 8
	le := binary.LittleEndian
	le.PutUint16(b[16:], wGroupLeafK)
	le.PutUint16(b[18:], wGroupInternalK)
	// b[20:24] file consistency flags 0; the base address is the
	// superblock's own offset, and the end-of-file address counts from the
	// start of the file, as the library writes them.
	le.PutUint64(b[24:], w.base)
	le.PutUint64(b[32:], wUndef)       // free-space info
	le.PutUint64(b[40:], w.eof+w.base) // end of file, absolute as the library stores it
	le.PutUint64(b[48:], wUndef)       // driver info
	w.root.entry(b[56:96], 0)
	return b
}
