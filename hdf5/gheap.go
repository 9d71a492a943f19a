package hdf5

import (
	"bytes"
	"encoding/binary"
)

// globalHeap returns the collection at addr (cached).
func (f *File) globalHeap(addr uint64) ([]byte, error) {
	f.mu.Lock()
	b, ok := f.gheaps[addr]
	f.mu.Unlock()
	if ok {
		return b, nil
	}
	hdr, err := f.readAt(addr, 16, "global heap collection")
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(hdr[:4], []byte("GCOL")) {
		return nil, f.corrupt(int64(addr), "global heap collection without GCOL signature")
	}
	size := binary.LittleEndian.Uint64(hdr[8:])
	if size < 16 || size > maxMetaBlock {
		return nil, f.corrupt(int64(addr), "global heap collection of %d bytes", size)
	}
	b, err = f.readAt(addr, size, "global heap collection")
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	if len(f.gheaps) > 256 || f.gheapBytes+int64(len(b)) > maxCacheBytes {
		f.gheaps, f.gheapBytes, f.gobjs = map[uint64][]byte{}, 0, nil
	}
	f.gheaps[addr] = b
	f.gheapBytes += int64(len(b))
	f.mu.Unlock()
	return b, nil
}

// globalObject returns object idx of the collection at addr. The
// collection's objects are indexed once (a dataset of variable-length
// strings asks for each of its objects in turn).
func (f *File) globalObject(addr uint64, idx uint32) ([]byte, error) {
	f.mu.Lock()
	objs, ok := f.gobjs[addr]
	f.mu.Unlock()
	if ok {
		if int(idx) < len(objs) && objs[idx] != nil {
			return objs[idx], nil
		}
		return f.scanGlobalObject(addr, idx)
	}
	b, err := f.globalHeap(addr)
	if err != nil {
		return nil, err
	}
	objs = indexGlobalHeap(b)
	f.mu.Lock()
	if f.gobjs == nil {
		f.gobjs = map[uint64][][]byte{}
	}
	f.gobjs[addr] = objs
	f.mu.Unlock()
	if int(idx) < len(objs) && objs[idx] != nil {
		return objs[idx], nil
	}
	return f.scanGlobalObject(addr, idx)
}

// indexGlobalHeap lists the well-formed objects of a collection by index
// (the first of an index; nil where none), up to the first malformed one.
func indexGlobalHeap(b []byte) [][]byte {
	var objs [][]byte
	d := &dec{b: b, pos: 16}
	for d.rest() >= 16 {
		i := int(d.u16())
		d.skip(6)
		size := d.u64()
		if i == 0 || size > uint64(d.rest()) {
			break
		}
		data := d.bytes(int(size))
		for len(objs) <= i {
			objs = append(objs, nil)
		}
		if objs[i] == nil {
			objs[i] = data[:len(data):len(data)]
		}
		d.align(8)
	}
	return objs
}

// scanGlobalObject finds object idx of the collection at addr by walking
// it, for the errors of an object the index does not have.
func (f *File) scanGlobalObject(addr uint64, idx uint32) ([]byte, error) {
	b, err := f.globalHeap(addr)
	if err != nil {
		return nil, err
	}
	d := &dec{b: b, pos: 16}
	for d.rest() >= 16 {
		i := d.u16()
		d.skip(6)
		size := d.u64()
		if i == 0 {
			break // free space: the rest of the collection
		}
		if size > uint64(d.rest()) {
			return nil, f.corrupt(int64(addr), "global heap object %d of %d bytes overruns its collection", i, size)
		}
		data := d.bytes(int(size))
		if uint32(i) == idx {
			return data, nil
		}
		d.align(8)
	}
	return nil, f.corrupt(int64(addr), "global heap object %d not found", idx)
}

// vlenItem decodes one variable-length descriptor (length, collection
// address, index) whose elements are esz bytes each.
func (f *File) vlenItem(desc []byte, esz int) ([]byte, error) {
	if len(desc) < 16 {
		return nil, f.corrupt(-1, "variable-length descriptor of %d bytes", len(desc))
	}
	n := uint64(binary.LittleEndian.Uint32(desc))
	addr := binary.LittleEndian.Uint64(desc[4:])
	idx := binary.LittleEndian.Uint32(desc[12:])
	if n == 0 {
		return []byte{}, nil
	}
	if addr == 0 || addr == undefAddr {
		return nil, f.corrupt(-1, "variable-length value with %d elements and no heap", n)
	}
	obj, err := f.globalObject(addr, idx)
	if err != nil {
		return nil, err
	}
	want, ok := mulOK(n, uint64(esz), uint64(len(obj)))
	if !ok || want > uint64(len(obj)) {
		return nil, f.corrupt(int64(addr), "variable-length value of %d x %d bytes in a %d-byte heap object", n, esz, len(obj))
	}
	return obj[:want], nil
}
