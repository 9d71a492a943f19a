package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Blosc2 filter (id 32026, hdf5-blosc2 as in hdf5plugin and PyTables).
// Each HDF5 chunk is stored as a Blosc2 contiguous frame (c-blosc2's
// README_CFRAME_FORMAT.rst) holding one Blosc2 chunk; for chunks of 2 to
// 8 dimensions the frame carries a "b2nd" metalayer (README_B2ND_METALAYER.rst)
// and the chunk's blocks are hyperrectangles of the HDF5 chunk.
//
// The frame starts with a msgpack header at fixed offsets:
//
//	offset  size  field (big endian)
//	0       11    0x9e, 0xa8, "b2frame\x00"
//	11      4     header length (after an 0xd2 marker at 10)
//	16      8     frame length (marker 0xcf at 15)
//	25      1     general flags: bits 0-3 format version (at most 3),
//	              bits 4-5 offset size (1: 64 bits), bit 7 variable-length
//	              blocks
//	26      1     frame type: 0 contiguous
//	30      8     decoded size of all chunks (marker 0xd3 at 29)
//	39      8     stored size of all chunks (marker 0xd3 at 38)
//	48      4     type size (marker 0xd2 at 47)
//	53      4     block size (marker 0xd2 at 52)
//	58      4     chunk size, 0 for chunks of varying sizes (marker at 57)
//	87      ...   metalayers: [0x93, 0xcd size, 0xde map of name -> int32
//	              offset (from the frame's start) of a bin32 value, ...]
//
// The chunks follow the header; after them (at header length + stored
// size) comes the offsets chunk, a Blosc2 chunk of little-endian int64
// offsets of each chunk from the header's end. A negative offset is a
// chunk of special values (bits 56-58: 1 zeros, 2 NaN, 4 uninitialized).
// The msgpack trailer after it is not needed to read.
//
// The filter reads chunk 0 (it writes one chunk). With a b2nd metalayer
// (7-item msgpack array: version, ndim, shape as int64s, chunk shape and
// block shape as int32s, dtype format, dtype), the chunk's data are the
// blocks of the chunk padded to whole blocks, in C order, each block in C
// order; the HDF5 chunk is the array's shape in C order.

const frameHeaderMin = 87

// blosc2Frame is a parsed contiguous frame.
type blosc2Frame struct {
	src       []byte // the frame, frame length long
	headerLen int
	nbytes    int64
	cbytes    int64
	typesize  int
	chunksize int64
	b2nd      *b2ndMeta
}

// b2ndMeta is a b2nd metalayer's geometry.
type b2ndMeta struct {
	shape, chunkshape, blockshape []int64
}

func parseFrame(src []byte) (*blosc2Frame, error) {
	if len(src) < frameHeaderMin {
		return nil, fmt.Errorf("blosc2: %d bytes, shorter than a frame header", len(src))
	}
	if src[0] != 0x9e || src[1] != 0xa8 || string(src[2:10]) != "b2frame\x00" {
		return nil, errors.New("blosc2: no frame signature (b2frame)")
	}
	for _, m := range []struct {
		off int
		b   byte
	}{{10, 0xd2}, {15, 0xcf}, {24, 0xa4}, {29, 0xd3}, {38, 0xd3}, {47, 0xd2}, {52, 0xd2}, {57, 0xd2}} {
		if src[m.off] != m.b {
			return nil, fmt.Errorf("blosc2: frame header byte %d is %#x, want %#x", m.off, src[m.off], m.b)
		}
	}
	fr := &blosc2Frame{
		headerLen: int(int32(binary.BigEndian.Uint32(src[11:]))),
		nbytes:    int64(binary.BigEndian.Uint64(src[30:])),
		cbytes:    int64(binary.BigEndian.Uint64(src[39:])),
		typesize:  int(int32(binary.BigEndian.Uint32(src[48:]))),
		chunksize: int64(int32(binary.BigEndian.Uint32(src[58:]))),
	}
	frameLen := binary.BigEndian.Uint64(src[16:])
	flags := src[25]
	switch {
	case flags&0x0f > 3:
		return nil, &UnsupportedError{fmt.Sprintf("blosc2 frame format version %d (up to 3 is read)", flags&0x0f)}
	case flags>>4&3 != 1:
		return nil, &UnsupportedError{fmt.Sprintf("blosc2 frame with offsets of code %d (64-bit offsets are read)", flags>>4&3)}
	case flags&0x80 != 0:
		return nil, &UnsupportedError{"blosc2 frame with variable-length blocks"}
	case src[26]&0x0f != 0:
		return nil, &UnsupportedError{fmt.Sprintf("blosc2 frame of type %d (contiguous frames are read)", src[26]&0x0f)}
	case frameLen > uint64(len(src)):
		return nil, fmt.Errorf("blosc2: frame of %d bytes, %d stored", frameLen, len(src))
	case fr.headerLen < frameHeaderMin || uint64(fr.headerLen) > frameLen:
		return nil, fmt.Errorf("blosc2: frame header length %d", fr.headerLen)
	case fr.nbytes < 0 || fr.cbytes < 0 || fr.cbytes > int64(frameLen)-int64(fr.headerLen):
		return nil, fmt.Errorf("blosc2: frame sizes %d/%d", fr.nbytes, fr.cbytes)
	case fr.typesize <= 0:
		return nil, fmt.Errorf("blosc2: frame type size %d", fr.typesize)
	case fr.chunksize < 0:
		return nil, fmt.Errorf("blosc2: frame chunk size %d", fr.chunksize)
	}
	fr.src = src[:frameLen]
	meta, err := fr.metalayer("b2nd")
	if err == nil && meta == nil {
		meta, err = fr.metalayer("caterva")
	}
	if err != nil {
		return nil, err
	}
	if meta != nil {
		if fr.b2nd, err = parseB2nd(meta); err != nil {
			return nil, err
		}
	}
	return fr, nil
}

// metalayer returns the content of the named metalayer, nil if absent.
func (fr *blosc2Frame) metalayer(name string) ([]byte, error) {
	h := fr.src[:fr.headerLen]
	if len(h) == frameHeaderMin {
		return nil, nil // no metalayer section
	}
	m := &msgpack{b: h, pos: frameHeaderMin}
	if n, ok := m.arrayLen(); !ok || n != 3 {
		return nil, errors.New("blosc2: frame metalayers are not a 3-item array")
	}
	if _, ok := m.int(); !ok {
		return nil, errors.New("blosc2: frame metalayer index size")
	}
	n, ok := m.mapLen()
	if !ok {
		return nil, errors.New("blosc2: frame metalayer index is not a map")
	}
	for i := 0; i < n; i++ {
		key, ok := m.str()
		if !ok {
			return nil, errors.New("blosc2: frame metalayer name")
		}
		off, ok := m.int()
		if !ok {
			return nil, errors.New("blosc2: frame metalayer offset")
		}
		if key != name {
			continue
		}
		if off < 0 || off+5 > int64(len(h)) || h[off] != 0xc6 {
			return nil, fmt.Errorf("blosc2: metalayer %s at %d", name, off)
		}
		ln := int64(binary.BigEndian.Uint32(h[off+1:]))
		if ln > int64(len(h))-off-5 {
			return nil, fmt.Errorf("blosc2: metalayer %s of %d bytes runs past the header", name, ln)
		}
		return h[off+5 : off+5+ln], nil
	}
	return nil, nil
}

// parseB2nd reads a b2nd (or older caterva) metalayer.
func parseB2nd(b []byte) (*b2ndMeta, error) {
	m := &msgpack{b: b}
	n, ok := m.arrayLen()
	if !ok || n < 5 {
		return nil, errors.New("blosc2: b2nd metalayer is not an array of at least 5 items")
	}
	if _, ok := m.int(); !ok { // version
		return nil, errors.New("blosc2: b2nd metalayer version")
	}
	nd, ok := m.int()
	if !ok || nd < 1 || nd > 16 {
		return nil, fmt.Errorf("blosc2: b2nd metalayer of %d dimensions", nd)
	}
	meta := &b2ndMeta{}
	for _, dst := range []*[]int64{&meta.shape, &meta.chunkshape, &meta.blockshape} {
		k, ok := m.arrayLen()
		if !ok || int64(k) != nd {
			return nil, errors.New("blosc2: b2nd metalayer shapes")
		}
		for i := 0; i < k; i++ {
			v, ok := m.int()
			if !ok || v <= 0 || v > 1<<40 {
				return nil, fmt.Errorf("blosc2: b2nd metalayer extent %d", v)
			}
			*dst = append(*dst, v)
		}
	}
	for i := range meta.shape {
		if meta.chunkshape[i] < meta.blockshape[i] {
			return nil, fmt.Errorf("blosc2: b2nd block extent %d over the chunk's %d", meta.blockshape[i], meta.chunkshape[i])
		}
	}
	return meta, nil
}

// chunk0 returns the frame's first chunk: a Blosc chunk, or the special
// value (1 zeros, 2 NaN, 4 uninitialized) and decoded size of a chunk
// stored as a special offset. The offsets chunk is decoded whole if not
// larger than the HDF5 chunk (want) or 64 KiB.
func (fr *blosc2Frame) chunk0(want uint64) (*bloscChunk, int, int64, error) {
	if fr.nbytes == 0 {
		return nil, 0, 0, errors.New("blosc2: frame without chunks")
	}
	if fr.chunksize == 0 {
		return nil, 0, 0, &UnsupportedError{"blosc2 frame with chunks of varying sizes"}
	}
	nchunks := (fr.nbytes + fr.chunksize - 1) / fr.chunksize
	pos := int64(fr.headerLen) + fr.cbytes
	off, err := parseBlosc(fr.src[pos:])
	if err != nil {
		return nil, 0, 0, fmt.Errorf("offsets chunk: %w", err)
	}
	if int64(off.nbytes) != 8*nchunks {
		return nil, 0, 0, fmt.Errorf("blosc2: offsets chunk of %d bytes for %d chunks", off.nbytes, nchunks)
	}
	if uint64(off.nbytes) > max(want, 1<<16) {
		return nil, 0, 0, &UnsupportedError{fmt.Sprintf("blosc2 frame of %d chunks", nchunks)}
	}
	offs := make([]byte, off.nbytes)
	if err := off.decode(offs); err != nil {
		return nil, 0, 0, fmt.Errorf("offsets chunk: %w", err)
	}
	first := int64(binary.LittleEndian.Uint64(offs))
	size := min(fr.chunksize, fr.nbytes)
	if first < 0 {
		sp := int(uint64(first)>>56) & 7
		switch sp {
		case 1, 2, 4:
			return nil, sp, size, nil
		}
		return nil, 0, 0, fmt.Errorf("blosc2: special chunk offset %#x", uint64(first))
	}
	if first > fr.cbytes {
		return nil, 0, 0, fmt.Errorf("blosc2: chunk offset %d past the chunks' %d bytes", first, fr.cbytes)
	}
	c, err := parseBlosc(fr.src[int64(fr.headerLen)+first : pos])
	if err != nil {
		return nil, 0, 0, err
	}
	return c, 0, int64(c.nbytes), nil
}

func DecodeBlosc2(p Params, src []byte, want uint64, dst []byte) ([]byte, error) {
	fr, err := parseFrame(src)
	if err != nil {
		return nil, err
	}
	c, special, size, err := fr.chunk0(want)
	if err != nil {
		return nil, err
	}
	fill := func(out []byte) error {
		switch special {
		case 0:
			return c.decode(out)
		case 2:
			return fillNaN(out, fr.typesize)
		default:
			clear(out)
			return nil
		}
	}
	m := fr.b2nd
	if m == nil {
		out, err := DecodeTarget(dst, uint64(size), want)
		if err != nil {
			return nil, err
		}
		return out, fill(out)
	}
	// The chunk holds whole blocks; the HDF5 chunk is the array's shape.
	nd := len(m.shape)
	ts := int64(fr.typesize)
	items, extItems, blockItems := int64(1), int64(1), int64(1)
	ext := make([]int64, nd)
	for i := range m.shape {
		if m.shape[i] > m.chunkshape[i] {
			return nil, &UnsupportedError{"blosc2 b2nd array of several chunks"}
		}
		ext[i] = (m.chunkshape[i] + m.blockshape[i] - 1) / m.blockshape[i] * m.blockshape[i]
		// Extents are below 2^41 and padded ones below twice that.
		if items > (int64(want)+1)/m.shape[i] || extItems > (1<<61)/ext[i] {
			return nil, fmt.Errorf("blosc2: b2nd array over the chunk's %d bytes", want)
		}
		items *= m.shape[i]
		extItems *= ext[i]
		blockItems *= m.blockshape[i]
	}
	if items > int64(want)/ts+1 {
		return nil, fmt.Errorf("blosc2: b2nd array of %d items of %d bytes for a chunk of %d bytes", items, ts, want)
	}
	if extItems > (1<<62)/ts || extItems*ts != size {
		return nil, fmt.Errorf("blosc2: b2nd chunk of %d bytes for %d items of %d bytes", size, extItems, ts)
	}
	out, err := DecodeTarget(dst, uint64(items*ts), want)
	if err != nil {
		return nil, err
	}
	// Blocks that span the trailing dimensions whole, with no padding,
	// are already in C order; so is any chunk of one value.
	inOrder := ext[0] == m.shape[0]
	for i := 1; i < nd; i++ {
		inOrder = inOrder && m.blockshape[i] == m.shape[i] && ext[i] == m.shape[i]
	}
	if special != 0 || inOrder {
		return out, fill(out)
	}
	if int64(c.blocksize) != blockItems*ts {
		return nil, fmt.Errorf("blosc2: b2nd chunk with blocks of %d bytes for blocks of %d items of %d bytes", c.blocksize, blockItems, ts)
	}
	p2 := GetScratch(c.blocksize)
	defer PutScratch(p2)
	blk := *p2
	g := b2ndGrid{shape: m.shape, block: m.blockshape, ts: ts}
	for i := range ext {
		g.nblocks = append(g.nblocks, ext[i]/m.blockshape[i])
	}
	err = c.decodeBlocks(func(j, n int) []byte { return blk[:n] }, func(j int, b []byte) { g.copyBlock(out, b, int64(j)) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// b2ndGrid places the blocks of a b2nd chunk in the array.
type b2ndGrid struct {
	shape, block, nblocks []int64
	ts                    int64
}

// copyBlock copies block k (its items in C order over the block shape,
// in the grid of blocks in C order) to out, the array in C order; the
// parts of the block past the array's edges are padding.
func (g *b2ndGrid) copyBlock(out, b []byte, k int64) {
	nd := len(g.shape)
	var bidx, row [16]int64
	for i := nd - 1; i >= 0; i-- {
		bidx[i] = k % g.nblocks[i]
		k /= g.nblocks[i]
	}
	last := nd - 1
	c0 := bidx[last] * g.block[last]
	if c0 >= g.shape[last] {
		return
	}
	n := min(g.block[last], g.shape[last]-c0) * g.ts
	for r := int64(0); ; r++ {
		off, inside := int64(0), true
		for i := 0; i < last; i++ {
			c := bidx[i]*g.block[i] + row[i]
			if c >= g.shape[i] {
				inside = false
				break
			}
			off = off*g.shape[i] + c
		}
		if inside {
			off = (off*g.shape[last] + c0) * g.ts
			src := r * g.block[last] * g.ts
			copy(out[off:off+n], b[src:src+n])
		}
		i := last - 1
		for ; i >= 0; i-- {
			if row[i]++; row[i] < g.block[i] {
				break
			}
			row[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// msgpack reads the few msgpack items of Blosc2 frames.
type msgpack struct {
	b   []byte
	pos int
}

func (m *msgpack) next(n int) ([]byte, bool) {
	if n < 0 || n > len(m.b)-m.pos {
		return nil, false
	}
	v := m.b[m.pos : m.pos+n]
	m.pos += n
	return v, true
}

func (m *msgpack) tag() (byte, bool) {
	v, ok := m.next(1)
	if !ok {
		return 0, false
	}
	return v[0], true
}

// int reads an integer of any msgpack encoding.
func (m *msgpack) int() (int64, bool) {
	t, ok := m.tag()
	if !ok {
		return 0, false
	}
	switch {
	case t <= 0x7f:
		return int64(t), true
	case t >= 0xe0:
		return int64(int8(t)), true
	}
	size := map[byte]int{0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8, 0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8}[t]
	v, ok := m.next(size)
	if size == 0 || !ok {
		return 0, false
	}
	var u uint64
	for _, c := range v {
		u = u<<8 | uint64(c)
	}
	if t >= 0xd0 { // signed: extend
		shift := 64 - 8*uint(size)
		return int64(u<<shift) >> shift, true
	}
	if u > 1<<62 {
		return 0, false
	}
	return int64(u), true
}

func (m *msgpack) arrayLen() (int, bool) {
	t, ok := m.tag()
	switch {
	case !ok:
		return 0, false
	case t&0xf0 == 0x90:
		return int(t & 0x0f), true
	case t == 0xdc:
		v, ok := m.next(2)
		return int(binary.BigEndian.Uint16(v)), ok
	}
	return 0, false
}

func (m *msgpack) mapLen() (int, bool) {
	t, ok := m.tag()
	switch {
	case !ok:
		return 0, false
	case t&0xf0 == 0x80:
		return int(t & 0x0f), true
	case t == 0xde:
		v, ok := m.next(2)
		return int(binary.BigEndian.Uint16(v)), ok
	}
	return 0, false
}

func (m *msgpack) str() (string, bool) {
	t, ok := m.tag()
	n := 0
	switch {
	case !ok:
		return "", false
	case t&0xe0 == 0xa0:
		n = int(t & 0x1f)
	case t == 0xd9:
		v, ok := m.next(1)
		if !ok {
			return "", false
		}
		n = int(v[0])
	default:
		return "", false
	}
	v, ok := m.next(n)
	return string(v), ok
}
