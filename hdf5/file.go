package hdf5

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sync"
)

// Options are limits for reading a file. The zero value (or a nil
// *Options) gives the defaults documented on each field.
type Options struct {
	// MaxReadBytes bounds the bytes one ReadAll, ReadStrings, attribute
	// value or chunk may hold. Default 1 GiB.
	MaxReadBytes int64
	// ChunkCacheBytes bounds the decompressed chunks a RowReader keeps.
	// Default 64 MiB (at least one chunk is always kept).
	ChunkCacheBytes int64
	// Threads is the number of goroutines that read and decode the chunks
	// of one read of a chunked dataset; 0 (or less) means
	// runtime.GOMAXPROCS(0), 1 decodes them on the calling goroutine.
	Threads int
	// Name is used in error messages instead of the file name (Open has
	// none).
	Name string

	noChecksums bool // tests only: see File.noChecksums
}

const (
	defaultMaxRead    = 1 << 30
	defaultChunkCache = 64 << 20
	maxMetaBlock      = 64 << 20 // largest metadata structure read at once
	maxDepth          = 64       // nesting depth of B-trees, heaps, types, paths
	maxCacheBytes     = 64 << 20 // bound of each metadata cache (headers, global heaps)
)

var signature = []byte("\x89HDF\r\n\x1a\n")

// File is an open HDF5 file. Its methods may be called from several
// goroutines; the objects it returns share its caches.
type File struct {
	ra     io.ReaderAt
	size   int64
	closer io.Closer
	name   string
	opts   Options

	base      uint64 // absolute offset that addresses are relative to
	userBlock int64
	sbVersion int
	rootAddr  uint64
	eof       uint64 // end-of-file address from the superblock

	mu      sync.Mutex
	headers map[uint64]*objectHeader
	gheaps  map[uint64][]byte
	gobjs   map[uint64][][]byte // objects of the cached collections, by index

	headerBytes, gheapBytes int64
	paths                   map[uint64]string // object address -> path, for Deref

	linkCache  map[uint64][]Link
	linkCacheN int

	// noChecksums skips checksum verification; only tests set it, so that
	// fuzzing reaches the parsers of checksummed structures.
	noChecksums bool
}

// OpenFile opens the named HDF5 file. Close it when done.
func OpenFile(name string, opts *Options) (*File, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = name
	}
	f, err := Open(fh, st.Size(), &o)
	if err != nil {
		fh.Close()
		return nil, err
	}
	f.closer = fh
	return f, nil
}

// Open reads the superblock of an HDF5 file of the given size held by r.
// The superblock may follow a user block of 512, 1024, 2048, ... bytes
// (MATLAB's v7.3 MAT-files have a 512-byte one).
func Open(r io.ReaderAt, size int64, opts *Options) (*File, error) {
	f := &File{ra: r, size: size, headers: map[uint64]*objectHeader{}, gheaps: map[uint64][]byte{}, linkCache: map[uint64][]Link{}}
	if opts != nil {
		f.opts = *opts
	}
	f.name = f.opts.Name
	f.noChecksums = f.opts.noChecksums
	if f.opts.MaxReadBytes <= 0 {
		f.opts.MaxReadBytes = defaultMaxRead
	}
	if f.opts.ChunkCacheBytes <= 0 {
		f.opts.ChunkCacheBytes = defaultChunkCache
	}
	if size < 0 {
		return nil, f.corrupt(-1, "negative file size")
	}
	var sig [8]byte
	found := false
	for off := int64(0); off+8 <= size; {
		if _, err := r.ReadAt(sig[:], off); err != nil {
			return nil, fmt.Errorf("hdf5: %s: reading the signature at %d: %w", f.name, off, err)
		}
		if bytes.Equal(sig[:], signature) {
			f.userBlock = off
			found = true
			break
		}
		if off == 0 {
			off = 512
		} else {
			off *= 2
		}
	}
	if !found {
		var magic [4]byte
		if n, _ := r.ReadAt(magic[:], 0); n == 4 {
			if v := NetCDF3Version(magic[:]); v != 0 {
				return nil, fmt.Errorf("hdf5: %s: %w (%s, magic %q); netCDF-3 files are not read, netCDF-4 files are", f.name, ErrNetCDF3, netCDF3Names[v], magic[:])
			}
		}
		return nil, f.corrupt(-1, "no HDF5 signature (at offset 0, 512, 1024, ...): not an HDF5 file")
	}
	if err := f.readSuperblock(); err != nil {
		return nil, err
	}
	return f, nil
}

// Close closes the underlying file if OpenFile opened it.
func (f *File) Close() error {
	if f.closer != nil {
		c := f.closer
		f.closer = nil
		return c.Close()
	}
	return nil
}

// Name is the name used in error messages (the file name for OpenFile,
// Options.Name otherwise).
func (f *File) Name() string { return f.name }

// UserBlockSize is the size of the user block before the superblock (0 if
// none; 512 for MATLAB files).
func (f *File) UserBlockSize() int64 { return f.userBlock }

// SuperblockVersion is the version of the superblock (0 to 3).
func (f *File) SuperblockVersion() int { return f.sbVersion }

// Root returns the root group.
func (f *File) Root() *Group {
	return &Group{object{f: f, addr: f.rootAddr, path: "/", name: "/"}}
}

func (f *File) corrupt(addr int64, format string, args ...any) error {
	return &FormatError{File: f.name, Addr: addr, Msg: fmt.Sprintf(format, args...)}
}

func (f *File) unsupported(obj string, format string, args ...any) error {
	return &UnsupportedError{File: f.name, Object: obj, Feature: fmt.Sprintf(format, args...)}
}

// checkRange reports whether n bytes at relative address addr lie inside
// the file.
func (f *File) checkRange(addr, n uint64) bool {
	if addr == undefAddr {
		return false
	}
	abs := addr + f.base
	if abs < addr || abs > uint64(f.size) {
		return false
	}
	return n <= uint64(f.size)-abs
}

// readAt reads n bytes at relative address addr after checking that they
// lie inside the file and n is below limit.
func (f *File) readAt(addr uint64, n uint64, what string) ([]byte, error) {
	if n > maxMetaBlock && n > uint64(f.opts.MaxReadBytes) {
		return nil, f.corrupt(int64(addr), "%s of %d bytes is over the limit", what, n)
	}
	if !f.checkRange(addr, n) {
		return nil, f.corrupt(int64(addr), "%s of %d bytes lies outside the file (size %d)", what, n, f.size)
	}
	b := make([]byte, n)
	if _, err := f.ra.ReadAt(b, int64(addr+f.base)); err != nil && !(err == io.EOF && n == 0) {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("hdf5: %s: reading %s at %#x: %w", f.name, what, addr, err)
	}
	return b, nil
}

// readInto fills b from relative address addr (bounds checked).
func (f *File) readInto(b []byte, addr uint64, what string) error {
	if !f.checkRange(addr, uint64(len(b))) {
		return f.corrupt(int64(addr), "%s of %d bytes lies outside the file (size %d)", what, len(b), f.size)
	}
	if _, err := f.ra.ReadAt(b, int64(addr+f.base)); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("hdf5: %s: reading %s at %#x: %w", f.name, what, addr, err)
	}
	return nil
}

// readUpTo reads up to n bytes at addr, fewer if the file ends first (for
// structures whose size is only known after parsing their start).
func (f *File) readUpTo(addr uint64, n uint64, what string) ([]byte, error) {
	if addr == undefAddr || addr+f.base < addr || addr+f.base >= uint64(f.size) {
		return nil, f.corrupt(int64(addr), "%s address lies outside the file (size %d)", what, f.size)
	}
	if avail := uint64(f.size) - (addr + f.base); n > avail {
		n = avail
	}
	return f.readAt(addr, n, what)
}

// verifyChecksum checks the lookup3 checksum stored in the last 4 bytes of b.
func (f *File) verifyChecksum(b []byte, addr uint64, what string) error {
	if len(b) < 4 {
		return f.corrupt(int64(addr), "%s too short for its checksum", what)
	}
	n := len(b) - 4
	if f.noChecksums {
		return nil
	}
	if got, want := lookup3(b[:n]), binary.LittleEndian.Uint32(b[n:]); got != want {
		return f.corrupt(int64(addr), "%s checksum mismatch (stored %#08x, computed %#08x)", what, want, got)
	}
	return nil
}

func (f *File) readSuperblock() error {
	at := uint64(f.userBlock)
	b := make([]byte, 128)
	n, err := f.ra.ReadAt(b, int64(at))
	if err != nil && err != io.EOF {
		return fmt.Errorf("hdf5: %s: reading the superblock: %w", f.name, err)
	}
	b = b[:n]
	d := &dec{b: b, pos: 8}
	ver := int(d.u8())
	f.sbVersion = ver
	switch ver {
	case 0, 1:
		d.skip(3) // free-space, root symbol table entry, reserved
		d.skip(1) // shared header message format version
		so, sl := d.u8(), d.u8()
		if d.ok() && (so != 8 || sl != 8) {
			return f.unsupported("", "superblock with %d-byte offsets and %d-byte lengths (only 8-byte ones are read)", so, sl)
		}
		d.skip(1)
		d.skip(4) // group leaf/internal K
		d.skip(4) // consistency flags
		if ver == 1 {
			d.skip(4)
		}
		base := d.u64()
		d.skip(8) // free-space info
		f.eof = d.u64()
		d.skip(8) // driver info
		// root group symbol table entry
		d.skip(8)
		f.rootAddr = d.u64()
		cache := d.u32()
		d.skip(4)
		d.skip(16)
		_ = cache
		if !d.ok() {
			return f.corrupt(-1, "truncated superblock")
		}
		f.base = base
	case 2, 3:
		so, sl := d.u8(), d.u8()
		if d.ok() && (so != 8 || sl != 8) {
			return f.unsupported("", "superblock with %d-byte offsets and %d-byte lengths (only 8-byte ones are read)", so, sl)
		}
		d.skip(1)
		base := d.u64()
		d.skip(8) // superblock extension
		f.eof = d.u64()
		f.rootAddr = d.u64()
		d.skip(4)
		if !d.ok() {
			return f.corrupt(-1, "truncated superblock")
		}
		if got, want := lookup3(b[:d.pos-4]), binary.LittleEndian.Uint32(b[d.pos-4:]); got != want && !f.noChecksums {
			return f.corrupt(-1, "superblock checksum mismatch (stored %#08x, computed %#08x)", want, got)
		}
		f.base = base
	default:
		return f.unsupported("", "superblock version %d", ver)
	}
	// The base address is absolute; files written by the library use the
	// superblock's own offset.
	if f.base > uint64(f.size) {
		return f.corrupt(-1, "base address %#x beyond the end of the file", f.base)
	}
	if !f.checkRange(f.rootAddr, 1) {
		return f.corrupt(-1, "root group address %#x outside the file", f.rootAddr)
	}
	return nil
}
