package hdf5

import "bytes"

// bt2 is a version 2 B-tree header.
type bt2 struct {
	f        *File
	addr     uint64
	typ      uint8
	nodeSize uint64
	recSize  int
	depth    int
	root     uint64
	rootNrec int
	total    uint64
	// per depth: max records, bytes of the record count, bytes of the
	// cumulative count
	maxNrec     []uint64
	cumMax      []uint64
	cumMaxSize  []int
	maxNrecSize int
}

func limitEncSize(v uint64) int { return log2floor(v)/8 + 1 }

func (f *File) openBT2(addr uint64, wantType uint8) (*bt2, error) {
	b, err := f.readAt(addr, 4+1+1+4+2+2+1+1+8+2+8+4, "v2 B-tree header")
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(b[:4], []byte("BTHD")) {
		return nil, f.corrupt(int64(addr), "v2 B-tree header without BTHD signature")
	}
	if err := f.verifyChecksum(b, addr, "v2 B-tree header"); err != nil {
		return nil, err
	}
	d := &dec{b: b, pos: 4}
	if v := d.u8(); v != 0 {
		return nil, f.corrupt(int64(addr), "v2 B-tree version %d", v)
	}
	t := &bt2{f: f, addr: addr}
	t.typ = d.u8()
	t.nodeSize = uint64(d.u32())
	t.recSize = int(d.u16())
	t.depth = int(d.u16())
	d.skip(2)
	t.root = d.u64()
	t.rootNrec = int(d.u16())
	t.total = d.u64()
	if t.typ != wantType {
		return nil, f.corrupt(int64(addr), "v2 B-tree of type %d where type %d is expected", t.typ, wantType)
	}
	if t.nodeSize < 16 || t.nodeSize > maxMetaBlock || t.recSize == 0 || uint64(t.recSize) > t.nodeSize || t.depth > maxDepth {
		return nil, f.corrupt(int64(addr), "v2 B-tree with node size %d, record size %d, depth %d", t.nodeSize, t.recSize, t.depth)
	}
	const prefix = 10
	t.maxNrec = make([]uint64, t.depth+1)
	t.cumMax = make([]uint64, t.depth+1)
	t.cumMaxSize = make([]int, t.depth+1)
	t.maxNrec[0] = (t.nodeSize - prefix) / uint64(t.recSize)
	t.cumMax[0] = t.maxNrec[0]
	t.maxNrecSize = limitEncSize(t.maxNrec[0])
	for u := 1; u <= t.depth; u++ {
		ptr := uint64(8 + t.maxNrecSize)
		if u > 1 {
			ptr += uint64(t.cumMaxSize[u-1])
		}
		if t.nodeSize < prefix+ptr {
			return nil, f.corrupt(int64(addr), "v2 B-tree node size %d too small", t.nodeSize)
		}
		t.maxNrec[u] = (t.nodeSize - (prefix + ptr)) / (uint64(t.recSize) + ptr)
		c, ok := mulOK(t.maxNrec[u]+1, t.cumMax[u-1], 1<<62)
		if !ok {
			c = 1 << 62
		}
		t.cumMax[u] = c + t.maxNrec[u]
		t.cumMaxSize[u] = limitEncSize(t.cumMax[u])
	}
	return t, nil
}

// each calls fn with every record of the tree.
func (t *bt2) each(fn func(rec []byte) error) error {
	if t.root == undefAddr || t.total == 0 {
		return nil
	}
	seen := map[uint64]bool{}
	return t.node(t.root, t.rootNrec, t.depth, seen, fn)
}

func (t *bt2) node(addr uint64, nrec int, depth int, seen map[uint64]bool, fn func([]byte) error) error {
	f := t.f
	if seen[addr] {
		return f.corrupt(int64(addr), "v2 B-tree node visited twice (cycle)")
	}
	seen[addr] = true
	if uint64(nrec) > t.maxNrec[depth] {
		return f.corrupt(int64(addr), "v2 B-tree node with %d records (at most %d fit)", nrec, t.maxNrec[depth])
	}
	sig := "BTLF"
	size := uint64(6 + nrec*t.recSize + 4)
	ptrSize := 0
	if depth > 0 {
		sig = "BTIN"
		ptrSize = 8 + t.maxNrecSize
		if depth > 1 {
			ptrSize += t.cumMaxSize[depth-1]
		}
		size += uint64((nrec + 1) * ptrSize)
	}
	b, err := f.readAt(addr, size, "v2 B-tree node")
	if err != nil {
		return err
	}
	if string(b[:4]) != sig {
		return f.corrupt(int64(addr), "v2 B-tree node without %s signature", sig)
	}
	if err := f.verifyChecksum(b, addr, "v2 B-tree node"); err != nil {
		return err
	}
	if b[5] != t.typ {
		return f.corrupt(int64(addr), "v2 B-tree node of type %d in a tree of type %d", b[5], t.typ)
	}
	recs := b[6 : 6+nrec*t.recSize]
	if depth == 0 {
		for i := 0; i < nrec; i++ {
			if err := fn(recs[i*t.recSize : (i+1)*t.recSize]); err != nil {
				return err
			}
		}
		return nil
	}
	d := &dec{b: b, pos: 6 + nrec*t.recSize}
	for i := 0; i <= nrec; i++ {
		child := d.u64()
		cn := d.uvar(t.maxNrecSize)
		if depth > 1 {
			d.uvar(t.cumMaxSize[depth-1])
		}
		if !d.ok() {
			return f.corrupt(int64(addr), "truncated v2 B-tree node")
		}
		if cn > t.maxNrec[depth-1] {
			return f.corrupt(int64(addr), "v2 B-tree child with %d records", cn)
		}
		if err := t.node(child, int(cn), depth-1, seen, fn); err != nil {
			return err
		}
		if i < nrec {
			if err := fn(recs[i*t.recSize : (i+1)*t.recSize]); err != nil {
				return err
			}
		}
	}
	return nil
}
