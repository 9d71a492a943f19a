package hdf5

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// chunkRec locates one stored chunk.
type chunkRec struct {
	addr uint64
	size uint64 // stored (possibly filtered) size
	mask uint32 // filters skipped
}

// chunkReader reads and decodes the chunks of one dataset.
type chunkReader struct {
	f        *File
	path     string
	layout   *Layout
	dims     []uint64 // dataset dims
	maxDims  []uint64
	filters  []Filter
	elemSize int
	nchunks  []uint64 // chunks per dim over the current dims
	fill     []byte   // one element of fill value, nil for zeros

	states []*decodeState // one per decoding goroutine, reused
	pool   sync.Pool      // *[]byte of chunkSize: decoded chunks not cached

	// index state
	loaded  bool
	table   map[uint64]chunkRec // B-tree indexes: key = linear index over nchunks
	farray  []chunkRec          // fixed array
	ea      *extArray
	maxDown []uint64 // down products over the max chunk grid (implicit, fixed array, extensible)
	unlim   int      // extensible array: the unlimited dimension

	// cache of decoded chunks
	cache     map[uint64][]byte
	order     []uint64
	cacheSize int64
	cacheMax  int64
}

// newChunkReader makes the chunk reader of a dataset whose metadata are
// loaded, after checking that its filters can be undone (CheckFilters).
func newChunkReader(ds *Dataset) (*chunkReader, error) {
	if err := ds.CheckFilters(); err != nil {
		return nil, err
	}
	return newChunkReaderNoCheck(ds)
}

func newChunkReaderNoCheck(ds *Dataset) (*chunkReader, error) {
	info := ds.info
	l := info.layout
	r := &chunkReader{f: ds.f, path: ds.path, layout: l, dims: info.space.dims, filters: l.Filters,
		elemSize: info.dtype.Size, fill: info.fill, cache: map[uint64][]byte{}, cacheMax: ds.f.opts.ChunkCacheBytes}
	r.maxDims = info.space.maxDims
	if r.maxDims == nil {
		r.maxDims = r.dims
	}
	if l.elemSize != uint64(info.dtype.Size) {
		return nil, ds.f.corrupt(int64(ds.addr), "%s: chunk element size %d for a %d-byte datatype", ds.path, l.elemSize, info.dtype.Size)
	}
	if l.chunkSize > uint64(ds.f.opts.MaxReadBytes) {
		return nil, ds.f.unsupported(ds.path, "chunks of %d bytes (over the MaxReadBytes limit)", l.chunkSize)
	}
	total := uint64(1)
	r.nchunks = make([]uint64, len(r.dims))
	for i, d := range r.dims {
		r.nchunks[i] = (d + l.Chunk[i] - 1) / l.Chunk[i]
		var ok bool
		if total, ok = mulOK(total, r.nchunks[i], 1<<62); !ok {
			return nil, ds.f.corrupt(int64(ds.addr), "%s: chunk grid too large", ds.path)
		}
	}
	// max chunk grid, for the newer indexes
	r.unlim = -1
	maxc := make([]uint64, len(r.dims))
	for i, m := range r.maxDims {
		if m == undefAddr {
			if r.unlim < 0 {
				r.unlim = i
			}
			maxc[i] = 0
			continue
		}
		if m < r.dims[i] {
			m = r.dims[i]
		}
		maxc[i] = (m + l.Chunk[i] - 1) / l.Chunk[i]
	}
	order := make([]int, 0, len(r.dims))
	if l.Index == IndexExtensible && r.unlim >= 0 {
		order = append(order, r.unlim)
	}
	for i := range r.dims {
		if !(l.Index == IndexExtensible && i == r.unlim) {
			order = append(order, i)
		}
	}
	r.maxDown = make([]uint64, len(r.dims))
	down := uint64(1)
	for k := len(order) - 1; k >= 0; k-- {
		i := order[k]
		r.maxDown[i] = down
		if maxc[i] != 0 {
			var ok bool
			if down, ok = mulOK(down, maxc[i], 1<<62); !ok {
				return nil, ds.f.corrupt(int64(ds.addr), "%s: maximum chunk grid too large", ds.path)
			}
		}
	}
	return r, nil
}

func (r *chunkReader) linear(scaled []uint64) uint64 {
	var k uint64
	for i, s := range scaled {
		k = k*r.nchunks[i] + s
	}
	return k
}

func (r *chunkReader) maxLinear(scaled []uint64) uint64 {
	var k uint64
	for i, s := range scaled {
		k += s * r.maxDown[i]
	}
	return k
}

// lookup finds the chunk with the given scaled coordinates.
func (r *chunkReader) lookup(scaled []uint64) (chunkRec, bool, error) {
	l := r.layout
	f := r.f
	if l.addr == undefAddr {
		return chunkRec{}, false, nil
	}
	if !r.loaded {
		if err := r.load(); err != nil {
			return chunkRec{}, false, err
		}
		r.loaded = true
	}
	switch l.Index {
	case IndexBTree1, IndexBTree2:
		c, ok := r.table[r.linear(scaled)]
		return c, ok, nil
	case IndexSingle:
		c := chunkRec{addr: l.addr, size: l.chunkSize}
		if l.flags&2 != 0 {
			c.size, c.mask = l.single.size, l.single.mask
		}
		return c, true, nil
	case IndexImplicit:
		idx := r.maxLinear(scaled)
		off, ok := mulOK(idx, l.chunkSize, 1<<62)
		if !ok {
			return chunkRec{}, false, f.corrupt(int64(l.addr), "%s: implicit chunk index overflows", r.path)
		}
		return chunkRec{addr: l.addr + off, size: l.chunkSize}, true, nil
	case IndexFixedArray:
		idx := r.maxLinear(scaled)
		if idx >= uint64(len(r.farray)) {
			return chunkRec{}, false, f.corrupt(int64(l.addr), "%s: chunk %v beyond the fixed array", r.path, scaled)
		}
		c := r.farray[idx]
		return c, c.addr != undefAddr, nil
	case IndexExtensible:
		c, err := r.ea.get(r.maxLinear(scaled))
		if err != nil {
			return chunkRec{}, false, err
		}
		return c, c.addr != undefAddr, nil
	}
	return chunkRec{}, false, f.unsupported(r.path, "chunk index type %d", l.Index)
}

func (r *chunkReader) filtered() bool { return len(r.filters) > 0 }

func (r *chunkReader) chunkSizeLen() int {
	n := 1 + (log2floor(r.layout.chunkSize)+8)/8
	if n > 8 {
		n = 8
	}
	return n
}

func (r *chunkReader) load() error {
	l := r.layout
	f := r.f
	switch l.Index {
	case IndexBTree1:
		r.table = map[uint64]chunkRec{}
		return r.loadBTree1(l.addr, 0, map[uint64]bool{})
	case IndexBTree2:
		r.table = map[uint64]chunkRec{}
		typ := uint8(10)
		if r.filtered() {
			typ = 11
		}
		t, err := f.openBT2(l.addr, typ)
		if err != nil {
			return err
		}
		rank := len(r.dims)
		csl := t.recSize - 8 - 8*rank
		if r.filtered() {
			csl -= 4
		}
		if csl < 0 || (csl > 8) || (r.filtered() && csl == 0) || (!r.filtered() && csl != 0) {
			return f.corrupt(int64(l.addr), "%s: chunk B-tree record of %d bytes for rank %d", r.path, t.recSize, rank)
		}
		scaled := make([]uint64, rank)
		return t.each(func(rec []byte) error {
			d := &dec{b: rec}
			c := chunkRec{addr: d.u64(), size: l.chunkSize}
			if r.filtered() {
				c.size = d.uvar(csl)
				c.mask = d.u32()
			}
			for i := range scaled {
				scaled[i] = d.u64()
			}
			if !d.ok() {
				return f.corrupt(int64(l.addr), "%s: truncated chunk record", r.path)
			}
			if r.inGrid(scaled) {
				r.table[r.linear(scaled)] = c
			}
			return nil
		})
	case IndexFixedArray:
		return r.loadFixedArray()
	case IndexExtensible:
		ea, err := r.openExtArray()
		if err != nil {
			return err
		}
		r.ea = ea
	}
	return nil
}

func (r *chunkReader) inGrid(scaled []uint64) bool {
	for i, s := range scaled {
		if s >= r.nchunks[i] {
			return false
		}
	}
	return true
}

func (r *chunkReader) loadBTree1(addr uint64, depth int, seen map[uint64]bool) error {
	f := r.f
	if depth > maxDepth {
		return f.corrupt(int64(addr), "%s: chunk B-tree deeper than %d", r.path, maxDepth)
	}
	if seen[addr] {
		return f.corrupt(int64(addr), "%s: chunk B-tree node visited twice (cycle)", r.path)
	}
	seen[addr] = true
	hdr, err := f.readAt(addr, 24, "chunk B-tree node")
	if err != nil {
		return err
	}
	if !bytes.Equal(hdr[:4], []byte("TREE")) || hdr[4] != 1 {
		return f.corrupt(int64(addr), "%s: chunk B-tree node without TREE signature or of type %d", r.path, hdr[4])
	}
	level := int(hdr[5])
	n := int(binary.LittleEndian.Uint16(hdr[6:]))
	rank := len(r.dims)
	keySize := 8 + 8*(rank+1)
	b, err := f.readAt(addr+24, uint64(n*(keySize+8)+keySize), "chunk B-tree node")
	if err != nil {
		return err
	}
	d := &dec{b: b}
	scaled := make([]uint64, rank)
	for i := 0; i < n; i++ {
		size := d.u32()
		mask := d.u32()
		ok := true
		for j := 0; j <= rank; j++ {
			off := d.u64()
			if j < rank {
				if off%r.layout.Chunk[j] != 0 {
					return f.corrupt(int64(addr), "%s: chunk offset %d not a multiple of the chunk size %d", r.path, off, r.layout.Chunk[j])
				}
				scaled[j] = off / r.layout.Chunk[j]
				if scaled[j] >= r.nchunks[j] {
					ok = false
				}
			}
		}
		child := d.u64()
		if !d.ok() {
			return f.corrupt(int64(addr), "%s: truncated chunk B-tree node", r.path)
		}
		if level > 0 {
			if err := r.loadBTree1(child, depth+1, seen); err != nil {
				return err
			}
			continue
		}
		if ok {
			r.table[r.linear(scaled)] = chunkRec{addr: child, size: uint64(size), mask: mask}
		}
	}
	return nil
}

func (r *chunkReader) elemRecSize() int {
	if r.filtered() {
		return 8 + r.chunkSizeLen() + 4
	}
	return 8
}

// decodeRec decodes one chunk record of a fixed or extensible array; a
// truncated record gives an undefined address (d.ok() tells).
func (r *chunkReader) decodeRec(d *dec) chunkRec {
	c := chunkRec{addr: d.u64(), size: r.layout.chunkSize}
	if r.filtered() {
		c.size = d.uvar(r.chunkSizeLen())
		c.mask = d.u32()
	}
	if !d.ok() {
		c.addr = undefAddr
	}
	return c
}

func (r *chunkReader) loadFixedArray() error {
	f := r.f
	l := r.layout
	b, err := f.readAt(l.addr, 4+1+1+1+1+8+8+4, "fixed array header")
	if err != nil {
		return err
	}
	if string(b[:4]) != "FAHD" {
		return f.corrupt(int64(l.addr), "%s: fixed array header without FAHD signature", r.path)
	}
	if err := f.verifyChecksum(b, l.addr, "fixed array header"); err != nil {
		return err
	}
	d := &dec{b: b, pos: 5}
	d.skip(1) // client
	esz := int(d.u8())
	pageBits := d.u8()
	n := d.u64()
	dblk := d.u64()
	if esz != r.elemRecSize() || pageBits > 32 {
		return f.corrupt(int64(l.addr), "%s: fixed array of %d-byte elements (want %d)", r.path, esz, r.elemRecSize())
	}
	if n > uint64(f.size)/uint64(esz) {
		return f.corrupt(int64(l.addr), "%s: fixed array of %d elements larger than the file", r.path, n)
	}
	r.farray = make([]chunkRec, 0, n)
	if dblk == undefAddr {
		for i := uint64(0); i < n; i++ {
			r.farray = append(r.farray, chunkRec{addr: undefAddr})
		}
		return nil
	}
	pageElems := uint64(1) << pageBits
	prefix := uint64(4 + 1 + 1 + 8)
	if n <= pageElems {
		b, err := f.readAt(dblk, prefix+n*uint64(esz)+4, "fixed array data block")
		if err != nil {
			return err
		}
		if string(b[:4]) != "FADB" {
			return f.corrupt(int64(dblk), "%s: fixed array data block without FADB signature", r.path)
		}
		if err := f.verifyChecksum(b, dblk, "fixed array data block"); err != nil {
			return err
		}
		d := &dec{b: b, pos: int(prefix)}
		for i := uint64(0); i < n; i++ {
			r.farray = append(r.farray, r.decodeRec(d))
		}
		return nil
	}
	npages := (n + pageElems - 1) / pageElems
	bitmapLen := (npages + 7) / 8
	hb, err := f.readAt(dblk, prefix+bitmapLen+4, "fixed array data block")
	if err != nil {
		return err
	}
	if string(hb[:4]) != "FADB" {
		return f.corrupt(int64(dblk), "%s: fixed array data block without FADB signature", r.path)
	}
	if err := f.verifyChecksum(hb, dblk, "fixed array data block"); err != nil {
		return err
	}
	bitmap := hb[prefix : prefix+bitmapLen]
	pos := dblk + uint64(len(hb))
	for p := uint64(0); p < npages; p++ {
		cnt := pageElems
		if p == npages-1 {
			cnt = n - p*pageElems
		}
		size := cnt*uint64(esz) + 4
		if bitmap[p/8]&(0x80>>(p%8)) == 0 {
			for i := uint64(0); i < cnt; i++ {
				r.farray = append(r.farray, chunkRec{addr: undefAddr})
			}
			pos += pageElems*uint64(esz) + 4
			continue
		}
		pb, err := f.readAt(pos, size, "fixed array page")
		if err != nil {
			return err
		}
		if err := f.verifyChecksum(pb, pos, "fixed array page"); err != nil {
			return err
		}
		d := &dec{b: pb}
		for i := uint64(0); i < cnt; i++ {
			r.farray = append(r.farray, r.decodeRec(d))
		}
		pos += pageElems*uint64(esz) + 4
	}
	return nil
}

// extArray reads an extensible array chunk index.
type extArray struct {
	r          *chunkReader
	addr       uint64
	esz        int
	maxBits    uint8
	idxElems   uint64
	minElems   uint64
	minPtrs    uint64
	pageBits   uint8
	iblock     []byte
	nsblkIdx   int // super blocks whose data blocks the index block holds
	ndblkAddrs uint64
	sblk       []eaSuper
	blocks     map[uint64][]byte
	blockBytes int64
}

type eaSuper struct {
	ndblks, dblkElems, startIdx, startDblk uint64
}

func (r *chunkReader) openExtArray() (*extArray, error) {
	f := r.f
	l := r.layout
	b, err := f.readAt(l.addr, 4+1+1+1+1+1+1+1+1+6*8+8+4, "extensible array header")
	if err != nil {
		return nil, err
	}
	if string(b[:4]) != "EAHD" {
		return nil, f.corrupt(int64(l.addr), "%s: extensible array header without EAHD signature", r.path)
	}
	if err := f.verifyChecksum(b, l.addr, "extensible array header"); err != nil {
		return nil, err
	}
	d := &dec{b: b, pos: 6}
	ea := &extArray{r: r, addr: l.addr, blocks: map[uint64][]byte{}}
	ea.esz = int(d.u8())
	ea.maxBits = d.u8()
	ea.idxElems = uint64(d.u8())
	ea.minElems = uint64(d.u8())
	ea.minPtrs = uint64(d.u8())
	ea.pageBits = d.u8()
	d.skip(6 * 8)
	iaddr := d.u64()
	pow2 := func(v uint64) bool { return v != 0 && v&(v-1) == 0 }
	if ea.esz != r.elemRecSize() || ea.maxBits == 0 || ea.maxBits > 64 || !pow2(ea.minElems) || !pow2(ea.minPtrs) || ea.pageBits > 32 {
		return nil, f.corrupt(int64(l.addr), "%s: extensible array parameters (element size %d, bits %d, min elements %d, min pointers %d)", r.path, ea.esz, ea.maxBits, ea.minElems, ea.minPtrs)
	}
	nsblks := 1 + int(ea.maxBits) - log2floor(ea.minElems)
	if nsblks < 1 || nsblks > 128 {
		return nil, f.corrupt(int64(l.addr), "%s: extensible array with %d super blocks", r.path, nsblks)
	}
	var start, startD uint64
	for u := 0; u < nsblks; u++ {
		s := eaSuper{ndblks: 1 << uint(u/2), startIdx: start, startDblk: startD}
		s.dblkElems = (uint64(1) << uint((u+1)/2)) * ea.minElems
		ea.sblk = append(ea.sblk, s)
		if u < 62 {
			start += s.ndblks * s.dblkElems
			startD += s.ndblks
		}
	}
	ea.nsblkIdx = 2 * log2floor(ea.minPtrs)
	ea.ndblkAddrs = 2 * (ea.minPtrs - 1)
	nsblkAddrs := uint64(0)
	if nsblks > ea.nsblkIdx {
		nsblkAddrs = uint64(nsblks - ea.nsblkIdx)
	}
	if iaddr == undefAddr {
		return ea, nil
	}
	size := uint64(4+1+1+8) + ea.idxElems*uint64(ea.esz) + ea.ndblkAddrs*8 + nsblkAddrs*8 + 4
	ib, err := f.readAt(iaddr, size, "extensible array index block")
	if err != nil {
		return nil, err
	}
	if string(ib[:4]) != "EAIB" {
		return nil, f.corrupt(int64(iaddr), "%s: extensible array index block without EAIB signature", r.path)
	}
	if err := f.verifyChecksum(ib, iaddr, "extensible array index block"); err != nil {
		return nil, err
	}
	ea.iblock = ib
	return ea, nil
}

func (ea *extArray) get(idx uint64) (chunkRec, error) {
	r := ea.r
	f := r.f
	none := chunkRec{addr: undefAddr}
	if ea.iblock == nil {
		return none, nil
	}
	base := 4 + 1 + 1 + 8
	if idx < ea.idxElems {
		d := &dec{b: ea.iblock, pos: base + int(idx)*ea.esz}
		return r.decodeRec(d), nil
	}
	idx -= ea.idxElems
	si := log2floor(idx/ea.minElems + 1)
	if si >= len(ea.sblk) {
		return none, f.corrupt(int64(ea.addr), "%s: extensible array index %d beyond its maximum", r.path, idx)
	}
	s := ea.sblk[si]
	rel := idx - s.startIdx
	dblkInSuper := rel / s.dblkElems
	elem := rel % s.dblkElems
	var dblkAddr uint64
	if si < ea.nsblkIdx {
		k := s.startDblk + dblkInSuper
		if k >= ea.ndblkAddrs {
			return none, f.corrupt(int64(ea.addr), "%s: extensible array data block %d beyond the index block", r.path, k)
		}
		d := &dec{b: ea.iblock, pos: base + int(ea.idxElems)*ea.esz + int(k)*8}
		dblkAddr = d.u64()
	} else {
		d := &dec{b: ea.iblock, pos: base + int(ea.idxElems)*ea.esz + int(ea.ndblkAddrs)*8 + (si-ea.nsblkIdx)*8}
		saddr := d.u64()
		if !d.ok() {
			return none, f.corrupt(int64(ea.addr), "%s: truncated extensible array index block", r.path)
		}
		if saddr == undefAddr {
			return none, nil
		}
		sb, err := ea.superBlock(saddr, s)
		if err != nil {
			return none, err
		}
		pageInit := 0
		if s.dblkElems > uint64(1)<<ea.pageBits {
			npages := s.dblkElems >> ea.pageBits
			pageInit = int((npages + 7) / 8 * s.ndblks)
		}
		d = &dec{b: sb, pos: base + ea.offSize() + pageInit + int(dblkInSuper)*8}
		dblkAddr = d.u64()
		if !d.ok() {
			return none, f.corrupt(int64(saddr), "%s: truncated extensible array super block", r.path)
		}
	}
	if dblkAddr == undefAddr {
		return none, nil
	}
	pageElems := uint64(1) << ea.pageBits
	prefix := uint64(base + ea.offSize())
	if s.dblkElems <= pageElems {
		b, err := ea.block(dblkAddr, prefix+s.dblkElems*uint64(ea.esz)+4, "EADB")
		if err != nil {
			return none, err
		}
		d := &dec{b: b, pos: int(prefix) + int(elem)*ea.esz}
		return r.decodeRec(d), nil
	}
	page := elem / pageElems
	inPage := elem % pageElems
	paddr := dblkAddr + prefix + 4 + page*(pageElems*uint64(ea.esz)+4)
	b, err := ea.block(paddr, pageElems*uint64(ea.esz)+4, "")
	if err != nil {
		return none, err
	}
	d := &dec{b: b, pos: int(inPage) * ea.esz}
	return r.decodeRec(d), nil
}

func (ea *extArray) offSize() int { return (int(ea.maxBits) + 7) / 8 }

func (ea *extArray) superBlock(addr uint64, s eaSuper) ([]byte, error) {
	pageInit := uint64(0)
	if s.dblkElems > uint64(1)<<ea.pageBits {
		npages := s.dblkElems >> ea.pageBits
		pageInit = (npages + 7) / 8 * s.ndblks
	}
	return ea.block(addr, uint64(4+1+1+8+ea.offSize())+pageInit+s.ndblks*8+4, "EASB")
}

func (ea *extArray) block(addr, size uint64, sig string) ([]byte, error) {
	if b, ok := ea.blocks[addr]; ok {
		return b, nil
	}
	f := ea.r.f
	b, err := f.readAt(addr, size, "extensible array block")
	if err != nil {
		return nil, err
	}
	if sig != "" && string(b[:4]) != sig {
		return nil, f.corrupt(int64(addr), "%s: extensible array block without %s signature", ea.r.path, sig)
	}
	if err := f.verifyChecksum(b, addr, "extensible array block"); err != nil {
		return nil, err
	}
	if len(ea.blocks) > 1024 || ea.blockBytes+int64(len(b)) > maxCacheBytes {
		ea.blocks, ea.blockBytes = map[uint64][]byte{}, 0
	}
	ea.blocks[addr] = b
	ea.blockBytes += int64(len(b))
	return b, nil
}

// locate finds a chunk's record, checking its stored size (ok=false for
// a chunk that was never written).
func (r *chunkReader) locate(scaled []uint64) (chunkRec, bool, error) {
	c, ok, err := r.lookup(scaled)
	if err != nil || !ok || c.addr == undefAddr {
		return c, false, err
	}
	want := r.layout.chunkSize
	if c.size > uint64(r.f.size) || (!r.filtered() && c.size != want) {
		return c, false, r.f.corrupt(int64(c.addr), "%s: chunk of %d bytes (expected %d)", r.path, c.size, want)
	}
	return c, true, nil
}

// decodeState is one decoding goroutine's zlib reader and scratch
// buffers (the stored chunk, a filter's intermediate output).
type decodeState struct {
	zr  io.ReadCloser
	raw []byte
	tmp []byte
}

// state returns the decodeState of goroutine w.
func (r *chunkReader) state(w int) *decodeState {
	for len(r.states) <= w {
		r.states = append(r.states, &decodeState{})
	}
	return r.states[w]
}

// getBuf returns a chunkSize buffer for a decoded chunk; putBuf takes it
// back once its bytes are copied out.
func (r *chunkReader) getBuf() []byte {
	if b, ok := r.pool.Get().(*[]byte); ok && uint64(len(*b)) == r.layout.chunkSize {
		return *b
	}
	return make([]byte, r.layout.chunkSize)
}

func (r *chunkReader) putBuf(b []byte) {
	if uint64(len(b)) == r.layout.chunkSize {
		r.pool.Put(&b)
	}
}

// decode reads and decodes one stored chunk into out (chunkSize bytes; a
// new buffer when nil). It is safe to call from several goroutines, each
// with its own decodeState.
func (r *chunkReader) decode(c chunkRec, st *decodeState, out []byte) ([]byte, error) {
	if out == nil {
		out = make([]byte, r.layout.chunkSize)
	}
	if !r.filtered() {
		if err := r.f.readInto(out, c.addr, "chunk"); err != nil {
			return nil, err
		}
		return out, nil
	}
	if c.size > maxMetaBlock && c.size > uint64(r.f.opts.MaxReadBytes) {
		return nil, r.f.corrupt(int64(c.addr), "%s: stored chunk of %d bytes is over the limit", r.path, c.size)
	}
	if uint64(cap(st.raw)) < c.size {
		st.raw = make([]byte, c.size)
	}
	raw := st.raw[:c.size]
	if err := r.f.readInto(raw, c.addr, "chunk"); err != nil {
		return nil, err
	}
	return r.unfilter(raw, c.mask, r.layout.chunkSize, c.addr, st, out)
}

func (r *chunkReader) remember(key uint64, data []byte) {
	if _, ok := r.cache[key]; ok {
		return
	}
	for r.cacheSize+int64(len(data)) > r.cacheMax && len(r.order) > 0 {
		old := r.order[0]
		r.order = r.order[1:]
		r.cacheSize -= int64(len(r.cache[old]))
		delete(r.cache, old)
	}
	r.cache[key] = data
	r.order = append(r.order, key)
	r.cacheSize += int64(len(data))
}

// threads is the number of goroutines one read decodes its n chunks with.
func (r *chunkReader) threads(n uint64) int {
	t := r.f.opts.Threads
	if t <= 0 {
		t = runtime.GOMAXPROCS(0)
	}
	// Stored chunks that are small and unfiltered are cheaper to copy
	// than to hand to another goroutine.
	if !r.filtered() && r.layout.chunkSize < 64<<10 {
		t = 1
	}
	// Each goroutine holds a decoded chunk: together no more than the
	// cache may hold (at least one).
	if lim := uint64(r.cacheMax) / max(r.layout.chunkSize, 1); uint64(t) > lim {
		t = int(max(lim, 1))
	}
	return int(min(uint64(t), max(n, 1)))
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// readRows copies rows [start, start+n) of the dataset (dim 0) into dst,
// which holds n*rowBytes bytes.
func (r *chunkReader) readRows(start, n uint64, dst []byte) error {
	lo := make([]uint64, len(r.dims))
	hi := append([]uint64(nil), r.dims...)
	lo[0], hi[0] = start, start+n
	return r.readRegion(lo, hi, dst)
}

// regionRead is one readRegion call: the box [lo, hi) of the dataset,
// the chunks it touches (cfirst to clast, counted in C order), and what
// the goroutines decoding them share.
type regionRead struct {
	r                *chunkReader
	lo, hi           []uint64
	cfirst, cspan    []uint64
	rstride, cstride []uint64
	dst              []byte

	next atomic.Uint64 // the next chunk to take, by its rank in the box
	stop atomic.Bool   // set at the first error: the others stop
	mu   sync.Mutex    // guards the chunk index walk, the cache and err
	err  error
}

// readRegion copies the hyperslab [lo, hi) of the dataset into dst (C
// order, the region's own shape). Only the chunks the region touches are
// read. Threads goroutines (Options.Threads) each take the next chunk,
// read and decode it and copy its part into dst: the parts are disjoint,
// so no chunk waits for another, and memory stays at one decoded chunk per
// goroutine (no more goroutines than chunks fit in ChunkCacheBytes) plus
// the cache. A chunk that is one run of dst is decoded
// straight into it; one that is partly outside the region is kept in the
// cache for the next read. The first error stops every goroutine and is
// the one returned, naming the chunk.
func (r *chunkReader) readRegion(lo, hi []uint64, dst []byte) error {
	rank := len(r.dims)
	ch := r.layout.Chunk
	es := uint64(r.elemSize)
	g := &regionRead{r: r, lo: lo, hi: hi, dst: dst,
		cfirst: make([]uint64, rank), cspan: make([]uint64, rank),
		rstride: make([]uint64, rank), cstride: make([]uint64, rank)}
	rs, cs := es, es
	for i := rank - 1; i >= 0; i-- {
		g.rstride[i], g.cstride[i] = rs, cs
		rs *= hi[i] - lo[i]
		cs *= ch[i]
	}
	total := uint64(1)
	for i := range g.cfirst {
		if hi[i] <= lo[i] {
			return nil
		}
		g.cfirst[i] = lo[i] / ch[i]
		g.cspan[i] = (hi[i]-1)/ch[i] - g.cfirst[i] + 1
		total *= g.cspan[i] // at most the region's element count
	}
	if !r.loaded && r.layout.addr != undefAddr {
		if err := r.load(); err != nil {
			return err
		}
		r.loaded = true
	}
	workers := r.threads(total)
	for w := range workers {
		r.state(w) // before the goroutines start: state appends
	}
	if workers == 1 {
		g.work(r.state(0), total)
		return g.err
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		st := r.state(w)
		go func() {
			defer wg.Done()
			g.work(st, total)
		}()
	}
	wg.Wait()
	return g.err
}

// work takes chunks until none is left or another goroutine failed.
func (g *regionRead) work(st *decodeState, total uint64) {
	rank := len(g.lo)
	scaled := make([]uint64, rank)
	for !g.stop.Load() {
		k := g.next.Add(1) - 1
		if k >= total {
			return
		}
		for i := rank - 1; i >= 0; i-- {
			scaled[i] = g.cfirst[i] + k%g.cspan[i]
			k /= g.cspan[i]
		}
		if err := g.chunk(st, scaled); err != nil {
			g.fail(err, scaled)
			return
		}
	}
}

// fail records the first error, naming the chunk, and stops the others.
func (g *regionRead) fail(err error, scaled []uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err != nil {
		return
	}
	g.stop.Store(true)
	r := g.r
	at := make([]uint64, len(scaled))
	for i, s := range scaled {
		at[i] = s * r.layout.Chunk[i]
	}
	where := fmt.Sprintf("chunk %v (at element %v)", scaled, at)
	var fe *FormatError
	if errors.As(err, &fe) {
		c := *fe
		if !strings.Contains(c.Msg, r.path) {
			c.Msg = r.path + ": " + c.Msg
		}
		c.Msg += ", " + where
		g.err = &c
		return
	}
	var ue *UnsupportedError
	if errors.As(err, &ue) {
		g.err = err
		return
	}
	g.err = fmt.Errorf("hdf5: %s: %s: %s: %w", r.f.name, r.path, where, err)
}

// inside reports a chunk wholly inside the region (used once by a
// sequential reader: not worth caching).
func (g *regionRead) inside(sc []uint64) bool {
	ch := g.r.layout.Chunk
	for i := range sc {
		o := sc[i] * ch[i]
		if o < g.lo[i] || o+ch[i] > g.hi[i] {
			return false
		}
	}
	return true
}

// direct returns the part of dst a chunk fills when it is one run of
// dst, else nil. A chunk inside the region is one run when, for some p,
// it is one element thick along every dimension before p and spans the
// region along every dimension after p: its C-order bytes are then the
// run's.
func (g *regionRead) direct(sc []uint64) []byte {
	if !g.inside(sc) {
		return nil
	}
	ch := g.r.layout.Chunk
	rank := len(sc)
	p := 0
	for p < rank && ch[p] == 1 {
		p++
	}
	for i := p + 1; i < rank; i++ {
		if ch[i] != g.hi[i]-g.lo[i] {
			return nil
		}
	}
	var off uint64
	for i := range sc {
		off += (sc[i]*ch[i] - g.lo[i]) * g.rstride[i]
	}
	return g.dst[off : off+g.r.layout.chunkSize]
}

// chunk reads one chunk (from the cache when there) and copies its part
// of the region into dst.
func (g *regionRead) chunk(st *decodeState, scaled []uint64) error {
	r := g.r
	key := r.linear(scaled)
	g.mu.Lock()
	if b, ok := r.cache[key]; ok {
		g.mu.Unlock()
		// Cached chunks are never written to, and one evicted meanwhile
		// stays valid for this copy.
		r.copyChunk(b, scaled, g.lo, g.hi, g.rstride, g.cstride, g.dst)
		return nil
	}
	c, ok, err := r.locate(scaled) // the extensible array caches blocks
	g.mu.Unlock()
	if err != nil {
		return err
	}
	if !ok {
		r.copyChunk(nil, scaled, g.lo, g.hi, g.rstride, g.cstride, g.dst)
		return nil
	}
	if out := g.direct(scaled); out != nil {
		_, err := r.decode(c, st, out)
		return err
	}
	buf := r.getBuf()
	b, err := r.decode(c, st, buf)
	if err != nil {
		r.putBuf(buf)
		return err
	}
	r.copyChunk(b, scaled, g.lo, g.hi, g.rstride, g.cstride, g.dst)
	if g.inside(scaled) {
		r.putBuf(buf)
		return nil
	}
	g.mu.Lock()
	r.remember(key, b)
	g.mu.Unlock()
	return nil
}

// copyChunk copies the part of one decoded chunk inside the region [lo, hi)
// to dst, in runs along the last dimension; a nil chunk (never written)
// fills its part with the fill value.
func (r *chunkReader) copyChunk(data []byte, scaled, lo, hi, rstride, cstride []uint64, dst []byte) {
	rank := len(scaled)
	ch := r.layout.Chunk
	es := uint64(r.elemSize)
	ilo := make([]uint64, rank)
	ihi := make([]uint64, rank)
	for i := range scaled {
		o := scaled[i] * ch[i]
		ilo[i] = max(o, lo[i])
		ihi[i] = min(o+ch[i], hi[i])
	}
	last := rank - 1
	runBytes := (ihi[last] - ilo[last]) * es
	idx := append([]uint64(nil), ilo...)
	for {
		var so, do uint64
		for i := 0; i < rank; i++ {
			so += (idx[i] - scaled[i]*ch[i]) * cstride[i]
			do += (idx[i] - lo[i]) * rstride[i]
		}
		if data == nil {
			fillElems(dst[do:do+runBytes], r.fill, r.elemSize)
		} else {
			copy(dst[do:do+runBytes], data[so:so+runBytes])
		}
		k := last - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < ihi[k] {
				break
			}
			idx[k] = ilo[k]
		}
		if k < 0 {
			return
		}
	}
}
