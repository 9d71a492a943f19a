package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zlib"
	"github.com/pierrec/lz4/v4"
)

// Blosc chunks (the format of c-blosc's README_CHUNK_FORMAT.rst and of
// c-blosc2's, which extends it). The Blosc filter (id 32001, hdf5-blosc as
// in h5py's hdf5plugin, PyTables and pandas) stores each HDF5 chunk as one
// Blosc chunk; the Blosc2 filter (32026) stores Blosc2 chunks inside a
// frame (filter_blosc2.go).
//
//	offset  size  field (little endian)
//	0       1     format version: 1 or 2 c-blosc 1.x, 3 to 6 c-blosc2
//	1       1     codec format version
//	2       1     flags: 0x01 byte shuffle, 0x02 stored uncompressed
//	              (memcpyed), 0x04 bit shuffle, 0x10 blocks not split,
//	              bits 5-7 the codec: 0 blosclz, 1 lz4 or lz4hc,
//	              2 snappy (c-blosc 1.x), 3 zlib, 4 zstd, 6 the codec
//	              named in byte 22 (c-blosc2 plugins)
//	3       1     type size (for shuffles and splits)
//	4       4     decoded size nbytes
//	8       4     block size
//	12      4     chunk size cbytes, this header included
//
// When flags 0x01 and 0x04 are both set (c-blosc2), 16 more bytes follow:
// 6 filter ids (16-21; 0 none, 1 shuffle, 2 bitshuffle, 3 delta, 4
// truncated precision, 35 bytedelta, 36 integer truncation; undone from
// the last to the first), the plugin
// codec (22), codec metadata (23), 6 filter metadata bytes (24-29),
// flags2 (30, 0x01 variable-length blocks) and blosc2 flags (31: 0x01
// dictionary, 0x08 lazy chunk, bits 4-6 a chunk of special values:
// 1 zeros, 2 NaN, 3 one repeated value stored after the header, 4
// uninitialized, read as zeros).
//
// A memcpyed chunk is the header then the nbytes bytes. Otherwise the
// data are cut in blocks of blocksize bytes (the last one shorter); after
// the header, one int32 per block gives where the block starts in the
// chunk. A block is one stream, or typesize streams of blocksize/typesize
// bytes each (split: the flag 0x10 is clear, the block is not the last
// short one and, for c-blosc 1.x chunks, typesize <= 16 and
// blocksize/typesize >= 128). A stream is its int32 stored size then its
// bytes: stored size equal to the stream's decoded size means raw bytes;
// in c-blosc2 chunks 0 means zeros and a negative size followed by a
// token byte with bit 0 set a run of the byte -size. The streams of a
// block decoded one after the other give the block, whose filters are
// then undone.
//
// Bit shuffle in c-blosc 1.x chunks (version 2) transforms a block only
// when its element count is a multiple of 8 (else it is stored as is);
// from version 3 the largest multiple of 8 elements is transformed and
// the rest stored as is.

const (
	bloscMinHeader = 16
	bloscExtHeader = 32

	bloscShuffle    = 0x01
	bloscMemcpyed   = 0x02
	bloscBitshuffle = 0x04
	bloscDelta      = 0x08
	bloscDontSplit  = 0x10

	// c-blosc2 filter ids
	blosc2NoFilter   = 0
	blosc2Shuffle    = 1
	blosc2Bitshuffle = 2
	blosc2Delta      = 3
	blosc2TruncPrec  = 4
	blosc2ByteDelta  = 35 // plugin filters: bytedelta
	blosc2IntTrunc   = 36 // and integer truncation (nothing to undo)

	bloscMaxBlock = 536866816 // BLOSC2_MAXBLOCKSIZE
)

// blosc2Plugins names the codecs of c-blosc2's plugin registry.
var blosc2Plugins = map[uint8]string{32: "ndlz", 33: "zfp (fixed accuracy)", 34: "zfp (fixed precision)",
	35: "zfp (fixed rate)", 36: "openhtj2k", 37: "grok", 38: "openzl", 39: "j2k", 40: "htj2k"}

// bloscChunk is a parsed Blosc chunk header and the chunk's bytes.
type bloscChunk struct {
	src       []byte // the chunk, cbytes long
	version   uint8
	flags     uint8
	typesize  int
	nbytes    int
	blocksize int
	overhead  int // header length: 16 or 32
	ext       bool

	filters     [6]uint8
	filtersMeta [6]uint8
	udcodec     uint8
	b2flags     uint8
	b2flags2    uint8
}

// parseBlosc reads the header of the Blosc chunk at the start of src.
func parseBlosc(src []byte) (*bloscChunk, error) {
	if len(src) < bloscMinHeader {
		return nil, fmt.Errorf("blosc: %d bytes, shorter than a Blosc header", len(src))
	}
	c := &bloscChunk{
		version:   src[0],
		flags:     src[2],
		typesize:  int(src[3]),
		nbytes:    int(binary.LittleEndian.Uint32(src[4:])),
		blocksize: int(binary.LittleEndian.Uint32(src[8:])),
		overhead:  bloscMinHeader,
	}
	cbytes := binary.LittleEndian.Uint32(src[12:])
	switch {
	case c.version == 0:
		return nil, errors.New("blosc: format version 0")
	case c.version > 6:
		return nil, &UnsupportedError{fmt.Sprintf("blosc format version %d (versions 1 to 6 are read)", c.version)}
	case int32(c.nbytes) < 0 || int32(c.blocksize) < 0:
		return nil, errors.New("blosc: negative size in header")
	case cbytes < bloscMinHeader:
		return nil, fmt.Errorf("blosc: chunk size %d in header", cbytes)
	case uint64(cbytes) > uint64(len(src)):
		return nil, fmt.Errorf("blosc: header says %d bytes, only %d stored", cbytes, len(src))
	}
	c.src = src[:cbytes]
	if c.flags&(bloscShuffle|bloscBitshuffle) == bloscShuffle|bloscBitshuffle {
		if cbytes < bloscExtHeader {
			return nil, fmt.Errorf("blosc: chunk size %d, shorter than an extended header", cbytes)
		}
		c.ext = true
		c.overhead = bloscExtHeader
		copy(c.filters[:], src[16:22])
		c.udcodec = src[22]
		copy(c.filtersMeta[:], src[24:30])
		c.b2flags2 = src[30]
		c.b2flags = src[31]
		if c.version == 3 {
			// The alpha format left the last slot undefined.
			c.filters[5], c.filtersMeta[5] = 0, 0
		}
	} else if c.flags&bloscDelta != 0 {
		return nil, &UnsupportedError{"blosc delta flag in a c-blosc 1.x header"}
	}
	if c.nbytes > 0 {
		if c.blocksize <= 0 || c.blocksize > bloscMaxBlock {
			return nil, fmt.Errorf("blosc: block size %d", c.blocksize)
		}
		if c.typesize == 0 {
			return nil, errors.New("blosc: type size 0")
		}
		if c.blocksize > c.nbytes {
			c.blocksize = c.nbytes
		}
	}
	return c, nil
}

// special returns the kind of special chunk (c-blosc2), 0 for none.
func (c *bloscChunk) special() int {
	if !c.ext {
		return 0
	}
	return int(c.b2flags>>4) & 7
}

// decode decodes the chunk into out (nbytes long).
func (c *bloscChunk) decode(out []byte) error {
	if len(out) != c.nbytes {
		return ErrDecodedSize(uint64(c.nbytes), uint64(len(out)))
	}
	return c.decodeBlocks(func(j, n int) []byte { return out[j*c.blocksize : j*c.blocksize+n] }, nil)
}

// decodeBlocks decodes the chunk block after block: block j, of n bytes,
// is decoded into dst(j, n), then handed to visit when visit is not nil
// (dst may then return the same buffer for every block).
func (c *bloscChunk) decodeBlocks(dst func(j, n int) []byte, visit func(j int, b []byte)) error {
	if c.nbytes == 0 {
		return nil
	}
	if c.ext {
		switch {
		case c.b2flags2&0x01 != 0:
			return &UnsupportedError{"blosc2 chunk with variable-length blocks"}
		case c.b2flags&0x01 != 0:
			return &UnsupportedError{"blosc2 chunk compressed with a dictionary"}
		case c.b2flags&0x08 != 0 && c.special() == 0:
			return errors.New("blosc2: lazy chunk stored in a file")
		case c.b2flags&0x80 != 0:
			return &UnsupportedError{"blosc2 chunk with an instrumented codec"}
		}
	}
	nblocks := (c.nbytes + c.blocksize - 1) / c.blocksize
	size := func(j int) int {
		if j == nblocks-1 && c.nbytes%c.blocksize != 0 {
			return c.nbytes % c.blocksize
		}
		return c.blocksize
	}
	// Chunks of one value, or stored uncompressed: fill each block.
	var fill func(j int, b []byte) error
	switch sp := c.special(); sp {
	case 0:
		if c.flags&bloscMemcpyed != 0 {
			if len(c.src) != c.overhead+c.nbytes {
				return fmt.Errorf("blosc: uncompressed chunk of %d bytes for %d", len(c.src)-c.overhead, c.nbytes)
			}
			fill = func(j int, b []byte) error {
				copy(b, c.src[c.overhead+j*c.blocksize:])
				return nil
			}
		}
	case 1, 4: // zeros; uninitialized values read as zeros
		fill = func(j int, b []byte) error {
			clear(b)
			return nil
		}
	case 2:
		if c.blocksize%c.typesize != 0 {
			return fmt.Errorf("blosc: chunk of NaNs with blocks of %d bytes", c.blocksize)
		}
		fill = func(j int, b []byte) error { return fillNaN(b, c.typesize) }
	case 3:
		ts := len(c.src) - c.overhead
		if ts <= 0 || c.nbytes%ts != 0 {
			return fmt.Errorf("blosc: repeated value of %d bytes for %d bytes", ts, c.nbytes)
		}
		v := c.src[c.overhead:]
		fill = func(j int, b []byte) error {
			at := j * c.blocksize % ts // where the block starts in the value
			for i := range b {
				b[i] = v[at]
				if at++; at == ts {
					at = 0
				}
			}
			return nil
		}
	default:
		return fmt.Errorf("blosc: special chunk kind %d", sp)
	}
	if fill != nil {
		for j := 0; j < nblocks; j++ {
			b := dst(j, size(j))
			if err := fill(j, b); err != nil {
				return err
			}
			if visit != nil {
				visit(j, b)
			}
		}
		return nil
	}
	code := int(c.flags >> 5)
	switch {
	case code == 6 && c.ext:
		name := blosc2Plugins[c.udcodec]
		if name == "" {
			name = "unregistered"
		}
		return &UnsupportedError{fmt.Sprintf("blosc2 plugin codec %d (%s)", c.udcodec, name)}
	case code == 2 && c.ext, code > 4:
		return &UnsupportedError{fmt.Sprintf("blosc codec %d", code)}
	}
	filters, err := c.pipeline()
	if err != nil {
		return err
	}
	bstarts := c.overhead + 4*nblocks
	if bstarts > len(c.src) {
		return fmt.Errorf("blosc: %d block offsets run past the chunk's end", nblocks)
	}
	var tmp, ref []byte
	if len(filters) > 0 {
		p := GetScratch(3 * c.blocksize)
		defer PutScratch(p)
		tmp = *p
	}
	for j := 0; j < nblocks; j++ {
		start := int(binary.LittleEndian.Uint32(c.src[c.overhead+4*j:]))
		if start < bstarts || start >= len(c.src) {
			return fmt.Errorf("blosc: block %d starts at %d, outside the chunk", j, start)
		}
		bsize := size(j)
		b := dst(j, bsize)
		raw := b
		if len(filters) > 0 {
			raw = tmp[:bsize]
		}
		if err := c.decodeStreams(code, c.src[start:], raw, j == nblocks-1 && bsize < c.blocksize); err != nil {
			return fmt.Errorf("block %d: %w", j, err)
		}
		if len(filters) > 0 {
			c.unfilterBlock(filters, raw, b, tmp[c.blocksize:], ref, j == 0)
		}
		if j == 0 {
			// The delta filter refers to the first block, decoded.
			ref = b
			if visit != nil {
				ref = append([]byte(nil), b...)
			}
		}
		if visit != nil {
			visit(j, b)
		}
	}
	return nil
}

// bloscStep is one filter of a block's pipeline and its metadata byte.
type bloscStep struct{ id, meta uint8 }

// pipeline returns the filters to undo on each block, in order.
func (c *bloscChunk) pipeline() ([]bloscStep, error) {
	var fl []bloscStep
	if !c.ext {
		if c.flags&bloscShuffle != 0 && c.typesize > 1 {
			fl = append(fl, bloscStep{id: blosc2Shuffle})
		}
		if c.flags&bloscBitshuffle != 0 {
			fl = append(fl, bloscStep{id: blosc2Bitshuffle})
		}
		return fl, nil
	}
	for i := 5; i >= 0; i-- {
		switch f := c.filters[i]; f {
		case blosc2NoFilter, blosc2TruncPrec, blosc2IntTrunc: // truncation needs no undoing
		case blosc2Shuffle, blosc2Bitshuffle, blosc2ByteDelta:
			fl = append(fl, bloscStep{f, c.filtersMeta[i]})
		case blosc2Delta:
			for _, g := range c.filters[:i] {
				if g != blosc2NoFilter && g != blosc2TruncPrec && g != blosc2IntTrunc {
					return nil, &UnsupportedError{"blosc2 delta filter before another filter"}
				}
			}
			fl = append(fl, bloscStep{f, c.filtersMeta[i]})
		default:
			return nil, &UnsupportedError{fmt.Sprintf("blosc2 filter %d", f)}
		}
	}
	return fl, nil
}

// decodeStreams decodes the streams of one block, starting at src, into
// raw (the block's size).
func (c *bloscChunk) decodeStreams(code int, src, raw []byte, last bool) error {
	n := 1
	if c.flags&bloscDontSplit == 0 && !last {
		if c.ext {
			n = c.typesize
		} else if c.typesize <= 16 && c.blocksize/c.typesize >= 128 {
			n = c.typesize
		}
	}
	if len(raw)%n != 0 {
		return fmt.Errorf("%d bytes in %d streams", len(raw), n)
	}
	ns := len(raw) / n
	for s := 0; s < n; s++ {
		if len(src) < 4 {
			return fmt.Errorf("stream %d: truncated", s)
		}
		cs := int32(binary.LittleEndian.Uint32(src))
		src = src[4:]
		dst := raw[s*ns : (s+1)*ns]
		switch {
		case cs == 0 && c.ext:
			clear(dst)
		case cs < 0 && c.ext:
			if len(src) < 1 || src[0]&1 == 0 || cs < -255 {
				return fmt.Errorf("stream %d: stored size %d", s, cs)
			}
			src = src[1:]
			b := byte(-cs)
			for i := range dst {
				dst[i] = b
			}
		case cs < 0 || int(cs) > len(src):
			return fmt.Errorf("stream %d: stored size %d, %d bytes left", s, cs, len(src))
		case int(cs) == ns:
			copy(dst, src[:cs])
			src = src[cs:]
		default:
			if err := bloscDecodeStream(code, src[:cs], dst); err != nil {
				return fmt.Errorf("stream %d: %w", s, err)
			}
			src = src[cs:]
		}
	}
	return nil
}

// unfilterBlock undoes the filters fl on a block: raw (decoded streams)
// becomes dst. scratch holds 2*blocksize bytes; ref is the chunk's first
// block, decoded (the delta filter refers to it).
func (c *bloscChunk) unfilterBlock(fl []bloscStep, raw, dst, scratch, ref []byte, first bool) {
	cur := raw
	for i, f := range fl {
		target := dst
		if i < len(fl)-1 {
			// Alternate between raw's buffer and the first half of scratch.
			if &cur[0] == &raw[0] {
				target = scratch[:len(raw)]
			} else {
				target = raw
			}
		}
		switch f.id {
		case blosc2Shuffle:
			es := c.typesize
			if f.meta != 0 {
				es = int(f.meta) // bytes grouped together (c-blosc2)
			}
			if r := Unshuffle(cur, es, target); &r[0] != &target[0] {
				copy(target, cur)
			}
		case blosc2Bitshuffle:
			c.bitUnshuffleBlock(cur, target, scratch[c.blocksize:])
		case blosc2Delta:
			if &cur[0] != &target[0] {
				copy(target, cur)
			}
			deltaDecode(target, ref, c.typesize, first)
		case blosc2ByteDelta:
			es := c.typesize
			if f.meta != 0 {
				es = int(f.meta)
			}
			byteDeltaDecode(target, cur, es)
		}
		cur = target
	}
}

// bitUnshuffleBlock undoes Blosc's bit shuffle of one block.
func (c *bloscChunk) bitUnshuffleBlock(src, dst, tmp []byte) {
	ts := c.typesize
	if len(src) < ts {
		copy(dst, src)
		return
	}
	n := len(src) / ts
	if c.version <= 2 {
		if n%8 != 0 {
			copy(dst, src)
			return
		}
	} else {
		n -= n % 8
	}
	BitUnshuffle(dst, src, tmp, n, ts)
	copy(dst[n*ts:], src[n*ts:])
}

// deltaDecode undoes Blosc2's delta filter in place on block b: the
// chunk's first block was XORed with itself shifted by one item, every
// other block with the first block (ref, already decoded).
func deltaDecode(b, ref []byte, ts int, first bool) {
	switch {
	case ts == 1 || ts == 2 || ts == 4 || ts == 8:
	case ts%8 == 0:
		ts = 8
	default:
		ts = 1
	}
	n := len(b) / ts * ts
	if first {
		for i := ts; i < n; i++ {
			b[i] ^= b[i-ts]
		}
		return
	}
	for i := 0; i < n; i++ {
		b[i] ^= ref[i]
	}
}

// byteDeltaDecode undoes Blosc2's bytedelta filter: src holds es streams
// of len/es bytes (a byte shuffle's planes), each stored as differences
// from the previous byte; the bytes after the streams are as they are.
func byteDeltaDecode(dst, src []byte, es int) {
	n := len(src) / es
	for s := 0; s < es; s++ {
		var v byte
		d, in := dst[s*n:(s+1)*n], src[s*n:(s+1)*n]
		for i, b := range in {
			v += b
			d[i] = v
		}
	}
	copy(dst[n*es:], src[n*es:])
}

func fillNaN(out []byte, ts int) error {
	switch {
	case ts == 4 && len(out)%4 == 0:
		for i := 0; i < len(out); i += 4 {
			binary.LittleEndian.PutUint32(out[i:], 0x7FC00000)
		}
	case ts == 8 && len(out)%8 == 0:
		for i := 0; i < len(out); i += 8 {
			binary.LittleEndian.PutUint64(out[i:], 0x7FF8000000000000)
		}
	default:
		return fmt.Errorf("blosc: chunk of NaNs with %d-byte items for %d bytes", ts, len(out))
	}
	return nil
}

// bloscDecodeStream decodes one compressed stream, which must fill dst.
func bloscDecodeStream(code int, src, dst []byte) error {
	switch code {
	case 0:
		return BlosclzDecode(src, dst)
	case 1:
		n, err := lz4.UncompressBlock(src, dst)
		if err != nil {
			return fmt.Errorf("lz4: %v", err)
		}
		if n != len(dst) {
			return fmt.Errorf("lz4 data decode to %d bytes, want %d", n, len(dst))
		}
	case 2:
		n, err := snappy.DecodedLen(src)
		if err != nil {
			return fmt.Errorf("snappy: %v", err)
		}
		if n != len(dst) {
			return fmt.Errorf("snappy data decode to %d bytes, want %d", n, len(dst))
		}
		got, err := snappy.Decode(dst, src)
		if err != nil {
			return fmt.Errorf("snappy: %v", err)
		}
		if len(got) != len(dst) || &got[0] != &dst[0] {
			copy(dst, got)
		}
	case 3:
		return ZlibDecodeInto(src, dst)
	case 4:
		return ZstdDecodeInto(src, dst)
	default:
		return &UnsupportedError{fmt.Sprintf("blosc codec %d", code)}
	}
	return nil
}

var zlibReaders sync.Pool // io.ReadCloser from zlib.NewReader

// ZlibDecodeInto decodes the zlib stream src, which must fill dst exactly.
func ZlibDecodeInto(src, dst []byte) error {
	br := bytes.NewReader(src)
	var zr io.ReadCloser
	var err error
	if r, ok := zlibReaders.Get().(io.ReadCloser); ok {
		zr = r
		err = zr.(zlib.Resetter).Reset(br, nil)
	} else {
		zr, err = zlib.NewReader(br)
	}
	if err != nil {
		return fmt.Errorf("zlib: %v", err)
	}
	defer zlibReaders.Put(zr)
	if _, err := io.ReadFull(zr, dst); err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return fmt.Errorf("zlib data decode to fewer than %d bytes", len(dst))
		}
		return fmt.Errorf("zlib: %v", err)
	}
	var one [1]byte
	if n, err := zr.Read(one[:]); n > 0 {
		return fmt.Errorf("zlib data decode to over %d bytes", len(dst))
	} else if err != nil && err != io.EOF {
		return fmt.Errorf("zlib: %v", err)
	}
	return nil
}

// DecodeBlosc undoes the Blosc filter (id 32001). Its cd_values (filter
// and library versions, type size, chunk size, level, shuffle, codec)
// are the writer's settings, all repeated in the chunk's own header.
func DecodeBlosc(p Params, src []byte, want uint64, dst []byte) ([]byte, error) {
	c, err := parseBlosc(src)
	if err != nil {
		return nil, err
	}
	out, err := DecodeTarget(dst, uint64(c.nbytes), want)
	if err != nil {
		return nil, err
	}
	if err := c.decode(out); err != nil {
		return nil, err
	}
	return out, nil
}
