package hdf5

import (
	"bytes"
	"errors"
	"fmt"
)

// fheap is a fractal heap (dense link and attribute storage).
type fheap struct {
	f            *File
	addr         uint64
	idLen        int
	checksummed  bool // direct blocks carry a checksum
	width        uint64
	startBlock   uint64
	maxDirect    uint64
	maxHeapBits  int
	rootAddr     uint64
	curRows      int
	offSize      int
	lenSize      int
	maxDirRows   int
	blockOffSize int
	hugeBT       uint64 // v2 B-tree of huge objects
}

func (f *File) openHeap(addr uint64) (*fheap, error) {
	b, err := f.readUpTo(addr, 256, "fractal heap header")
	if err != nil {
		return nil, err
	}
	if len(b) < 4 || !bytes.Equal(b[:4], []byte("FRHP")) {
		return nil, f.corrupt(int64(addr), "fractal heap header without FRHP signature")
	}
	d := &dec{b: b, pos: 4}
	if v := d.u8(); v != 0 {
		return nil, f.corrupt(int64(addr), "fractal heap version %d", v)
	}
	h := &fheap{f: f, addr: addr}
	h.idLen = int(d.u16())
	filterLen := d.u16()
	flags := d.u8()
	h.checksummed = flags&2 != 0
	maxManaged := d.u32()
	d.skip(8) // next huge object ID
	h.hugeBT = d.u64()
	d.skip(8 + 8 + 8 + 8 + 8 + 8 + 8 + 8 + 8 + 8)
	h.width = uint64(d.u16())
	h.startBlock = d.u64()
	h.maxDirect = d.u64()
	h.maxHeapBits = int(d.u16())
	d.skip(2) // starting rows
	h.rootAddr = d.u64()
	h.curRows = int(d.u16())
	if filterLen > 0 {
		return nil, f.unsupported("", "fractal heap with I/O filters")
	}
	end := d.pos
	d.skip(4)
	if !d.ok() {
		return nil, f.corrupt(int64(addr), "truncated fractal heap header")
	}
	if err := f.verifyChecksum(b[:end+4], addr, "fractal heap header"); err != nil {
		return nil, err
	}
	pow2 := func(v uint64) bool { return v != 0 && v&(v-1) == 0 }
	if h.width == 0 || h.width > 1<<16 || !pow2(h.width) || !pow2(h.startBlock) || !pow2(h.maxDirect) ||
		h.maxDirect < h.startBlock || h.maxDirect > maxMetaBlock || h.maxHeapBits < 1 || h.maxHeapBits > 64 || h.curRows > 64 {
		return nil, f.corrupt(int64(addr), "fractal heap with width %d, block sizes %d..%d, %d bits", h.width, h.startBlock, h.maxDirect, h.maxHeapBits)
	}
	// Row sizes (start << (row-1)) times the width must not overflow.
	if log2floor(h.startBlock)+log2floor(h.width)+h.curRows > 63 {
		return nil, f.corrupt(int64(addr), "fractal heap with %d rows of width %d from %d-byte blocks", h.curRows, h.width, h.startBlock)
	}
	h.blockOffSize = (h.maxHeapBits + 7) / 8
	h.offSize = h.blockOffSize
	h.lenSize = (log2floor(h.maxDirect) + 7) / 8
	if l := limitEncSize(uint64(maxManaged)); l < h.lenSize {
		h.lenSize = l
	}
	h.maxDirRows = log2floor(h.maxDirect) - log2floor(h.startBlock) + 2
	return h, nil
}

func (h *fheap) rowSize(r int) uint64 {
	if r == 0 {
		return h.startBlock
	}
	return h.startBlock << uint(r-1)
}

// get returns the object a heap ID names.
func (h *fheap) get(id []byte) ([]byte, error) {
	f := h.f
	if len(id) < 1 {
		return nil, f.corrupt(int64(h.addr), "empty fractal heap ID")
	}
	switch id[0] >> 4 & 3 {
	case 0: // managed
		d := &dec{b: id, pos: 1}
		off := d.uvar(h.offSize)
		n := d.uvar(h.lenSize)
		if !d.ok() {
			return nil, f.corrupt(int64(h.addr), "fractal heap ID too short")
		}
		return h.managed(off, n)
	case 2: // tiny
		if len(id) <= 18 {
			n := int(id[0]&0x0f) + 1
			if 1+n > len(id) {
				return nil, f.corrupt(int64(h.addr), "tiny fractal heap object of %d bytes in a %d-byte ID", n, len(id))
			}
			return id[1 : 1+n], nil
		}
		if len(id) < 2 {
			return nil, f.corrupt(int64(h.addr), "fractal heap ID too short")
		}
		n := (int(id[0]&0x0f)<<8 | int(id[1])) + 1
		if 2+n > len(id) {
			return nil, f.corrupt(int64(h.addr), "tiny fractal heap object of %d bytes in a %d-byte ID", n, len(id))
		}
		return id[2 : 2+n], nil
	case 1:
		return h.huge(id)
	}
	return nil, f.corrupt(int64(h.addr), "fractal heap ID of type %d", id[0]>>4&3)
}

func (h *fheap) managed(off, n uint64) ([]byte, error) {
	f := h.f
	if n == 0 || n > h.maxDirect {
		return nil, f.corrupt(int64(h.addr), "fractal heap object of %d bytes", n)
	}
	if h.curRows == 0 {
		return h.fromDirect(h.rootAddr, h.startBlock, 0, off, n)
	}
	iaddr := h.rootAddr
	nrows := h.curRows
	base := uint64(0)
	for depth := 0; ; depth++ {
		if depth > maxDepth {
			return nil, f.corrupt(int64(h.addr), "fractal heap nested too deeply")
		}
		ndirect := nrows
		if ndirect > h.maxDirRows {
			ndirect = h.maxDirRows
		}
		nindirect := nrows - ndirect
		entries := uint64(ndirect) * h.width
		size := uint64(4+1+8+h.blockOffSize) + entries*8 + uint64(nindirect)*h.width*8 + 4
		b, err := f.readAt(iaddr, size, "fractal heap indirect block")
		if err != nil {
			return nil, err
		}
		if string(b[:4]) != "FHIB" {
			return nil, f.corrupt(int64(iaddr), "fractal heap indirect block without FHIB signature")
		}
		if err := f.verifyChecksum(b, iaddr, "fractal heap indirect block"); err != nil {
			return nil, err
		}
		rel := off - base
		r := 0
		for ; r < nrows; r++ {
			span := h.rowSize(r) * h.width
			if rel < span {
				break
			}
			rel -= span
		}
		if r == nrows {
			return nil, f.corrupt(int64(iaddr), "fractal heap offset %d beyond its indirect block", off)
		}
		bs := h.rowSize(r)
		col := rel / bs
		blockBase := off - rel + col*bs
		d := &dec{b: b, pos: 4 + 1 + 8 + h.blockOffSize}
		if r < h.maxDirRows {
			d.skip(int((uint64(r)*h.width + col) * 8))
			child := d.u64()
			if !d.ok() || child == undefAddr {
				return nil, f.corrupt(int64(iaddr), "fractal heap object in an unallocated block")
			}
			return h.fromDirect(child, bs, blockBase, off, n)
		}
		d.skip(int(entries*8 + (uint64(r-h.maxDirRows)*h.width+col)*8))
		child := d.u64()
		if !d.ok() || child == undefAddr {
			return nil, f.corrupt(int64(iaddr), "fractal heap object in an unallocated block")
		}
		iaddr = child
		nrows = log2floor(bs) - log2floor(h.startBlock*h.width) + 1
		if nrows < 1 {
			return nil, f.corrupt(int64(iaddr), "fractal heap indirect block of %d rows", nrows)
		}
		base = blockBase
	}
}

func (h *fheap) fromDirect(addr, blockSize, blockBase, off, n uint64) ([]byte, error) {
	f := h.f
	b, err := f.readAt(addr, blockSize, "fractal heap direct block")
	if err != nil {
		return nil, err
	}
	if string(b[:4]) != "FHDB" {
		return nil, f.corrupt(int64(addr), "fractal heap direct block without FHDB signature")
	}
	hdr := 4 + 1 + 8 + h.blockOffSize
	if h.checksummed && !f.noChecksums {
		if len(b) < hdr+4 {
			return nil, f.corrupt(int64(addr), "fractal heap direct block too small")
		}
		stored := b[hdr : hdr+4]
		var save [4]byte
		copy(save[:], stored)
		tmp := append([]byte(nil), b...)
		copy(tmp[hdr:hdr+4], []byte{0, 0, 0, 0})
		sum := lookup3(tmp)
		if sum != uint32(save[0])|uint32(save[1])<<8|uint32(save[2])<<16|uint32(save[3])<<24 {
			return nil, f.corrupt(int64(addr), "fractal heap direct block checksum mismatch")
		}
	}
	rel := off - blockBase
	if rel < uint64(hdr) || rel > blockSize || n > blockSize-rel {
		return nil, f.corrupt(int64(addr), "fractal heap object (offset %d, %d bytes) outside its block", off, n)
	}
	// Copy, so that a small object does not keep its whole block alive.
	return append([]byte(nil), b[rel:rel+n]...), nil
}

// huge returns a huge object: stored outside the heap's blocks, found
// directly from the ID (address and length) when it is long enough, else
// through the heap's v2 B-tree of huge objects.
func (h *fheap) huge(id []byte) ([]byte, error) {
	f := h.f
	var addr, n uint64
	if len(id)-1 >= 16 {
		d := &dec{b: id, pos: 1}
		addr, n = d.u64(), d.u64()
	} else {
		kl := min(len(id)-1, 8)
		d := &dec{b: id, pos: 1}
		key := d.uvar(kl)
		if !d.ok() || h.hugeBT == undefAddr {
			return nil, f.corrupt(int64(h.addr), "huge fractal heap object without its B-tree")
		}
		t, err := f.openBT2(h.hugeBT, 1)
		if err != nil {
			return nil, err
		}
		found := false
		err = t.each(func(rec []byte) error {
			rd := &dec{b: rec}
			a, l, k := rd.u64(), rd.u64(), rd.u64()
			if rd.ok() && k == key {
				addr, n, found = a, l, true
				return errStop
			}
			return nil
		})
		if err != nil && err != errStop {
			return nil, err
		}
		if !found {
			return nil, f.corrupt(int64(h.hugeBT), "huge fractal heap object %d not found", key)
		}
	}
	if n > uint64(f.opts.MaxReadBytes) {
		return nil, fmt.Errorf("hdf5: %s: huge heap object of %d bytes over the read limit: %w", f.name, n, ErrTooLarge)
	}
	return f.readAt(addr, n, "huge fractal heap object")
}

var errStop = errors.New("stop")
