package hdf5

import "encoding/binary"

const (
	wGheapMin     = 4096    // the smallest global heap collection
	wGheapTarget  = 1 << 20 // start a new collection past this size
	wGheapMaxObjs = 0xffff  // object indexes are 16-bit and 0 is free space
)

// writeGlobalHeap stores every variable-length sequence of every attribute
// in global heap collections and records each one's 16-byte reference
// (length, collection address, object index) in its attribute.
func (w *Writer) writeGlobalHeap() error {
	var objs [][]byte // current collection's objects
	var refs []*[16]byte
	size := uint64(16) // collection header
	flush := func() error {
		if len(objs) == 0 {
			return nil
		}
		total := size + 16 // room for the free-space object
		if total < wGheapMin {
			total = wGheapMin
		}
		addr := w.alloc(total)
		b := make([]byte, 16, total)
		copy(b, "GCOL")
		b[4] = 1
		binary.LittleEndian.PutUint64(b[8:], total)
		for i, o := range objs {
			var hdr [16]byte
			binary.LittleEndian.PutUint16(hdr[0:], uint16(i+1))
			binary.LittleEndian.PutUint16(hdr[2:], 1) // reference count
			binary.LittleEndian.PutUint64(hdr[8:], uint64(len(o)))
			b = append(b, hdr[:]...)
			b = append(b, o...)
			b = append(b, make([]byte, wPad8(len(o))-len(o))...)
			binary.LittleEndian.PutUint64(refs[i][4:], addr)
			binary.LittleEndian.PutUint32(refs[i][12:], uint32(i+1))
		}
		// Object 0: the free space, its size counting its own header.
		var hdr [16]byte
		binary.LittleEndian.PutUint64(hdr[8:], total-uint64(len(b)))
		b = append(b, hdr[:]...)
		b = append(b, make([]byte, int(total)-len(b))...)
		objs, refs, size = objs[:0], refs[:0], 16
		return w.writeAt(addr, b)
	}
	for _, h := range w.headers {
		for _, a := range h.attrs {
			if a.val.vlen == nil {
				continue
			}
			a.gref = make([][16]byte, len(a.val.vlen))
			for i, s := range a.val.vlen {
				elem := len(s)
				if n := len(a.val.typ); n >= 16 {
					// the base type's size is in the nested datatype message
					if bs := binary.LittleEndian.Uint32(a.val.typ[12:]); bs > 0 {
						elem = len(s) / int(bs)
					}
				}
				binary.LittleEndian.PutUint32(a.gref[i][0:], uint32(elem))
				if len(s) == 0 {
					continue // an empty sequence points nowhere
				}
				if len(objs) > 0 && (len(objs) == wGheapMaxObjs || size+16+uint64(wPad8(len(s))) > wGheapTarget) {
					if err := flush(); err != nil {
						return err
					}
				}
				objs = append(objs, s)
				refs = append(refs, &a.gref[i])
				size += 16 + uint64(wPad8(len(s)))
			}
		}
	}
	return flush()
}
