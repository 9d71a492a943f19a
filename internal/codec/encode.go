package codec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Encoder compresses chunks. One Encoder keeps its compressors from chunk
// to chunk; it is not safe for concurrent use (give each worker its own).
type Encoder struct {
	zstd map[int]*zstd.Encoder // by 2 x level, +1 single-segment
	lz   lz4.Compressor
	lzhc lz4.CompressorHC
	zw   *zlib.Writer
	zl   int
	gz   *gzip.Writer
	gl   int
	buf  []byte
}

// Zstd appends to dst one Zstandard frame of src at level (1-22, libzstd's
// scale), with the frame content size in its header (tensorstore and
// other readers need it) and no checksum.
//
// Frames of up to 1 MiB are single-segment (the window is the content);
// larger ones keep the level's window, so that no reader needs a window
// as large as a chunk. Each kind has its own encoder: a frame of fewer
// than 256 bytes that is not single-segment has no room for its content
// size in the format.
func (e *Encoder) Zstd(dst, src []byte, level int) ([]byte, error) {
	single := len(src) <= 1<<20
	key := 2 * level
	if single {
		key++
	}
	z := e.zstd[key]
	if z == nil {
		var err error
		z, err = zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)),
			zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderCRC(false),
			zstd.WithSingleSegment(single))
		if err != nil {
			return nil, err
		}
		if e.zstd == nil {
			e.zstd = map[int]*zstd.Encoder{}
		}
		e.zstd[key] = z
	}
	return z.EncodeAll(src, dst), nil
}

// Zlib appends to dst the zlib stream of src at level (0-9).
func (e *Encoder) Zlib(dst, src []byte, level int) ([]byte, error) {
	out := bytes.NewBuffer(dst)
	var err error
	if e.zw == nil || e.zl != level {
		e.zw, err = zlib.NewWriterLevel(out, level)
		e.zl = level
		if err != nil {
			e.zw = nil
			return nil, err
		}
	} else {
		e.zw.Reset(out)
	}
	if _, err := e.zw.Write(src); err != nil {
		return nil, err
	}
	if err := e.zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// Gzip appends to dst the gzip member of src at level (0-9).
func (e *Encoder) Gzip(dst, src []byte, level int) ([]byte, error) {
	out := bytes.NewBuffer(dst)
	var err error
	if e.gz == nil || e.gl != level {
		e.gz, err = gzip.NewWriterLevel(out, level)
		e.gl = level
		if err != nil {
			e.gz = nil
			return nil, err
		}
	} else {
		e.gz.Reset(out)
	}
	if _, err := e.gz.Write(src); err != nil {
		return nil, err
	}
	if err := e.gz.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// lz4Block appends src as one LZ4 block; data LZ4 cannot shrink is
// written as one run of literals (still a valid block).
func (e *Encoder) lz4Block(dst, src []byte, hc bool) []byte {
	bound := lz4.CompressBlockBound(len(src))
	at := len(dst)
	dst = slices.Grow(dst, bound)[:at+bound]
	var n int
	var err error
	if hc {
		n, err = e.lzhc.CompressBlock(src, dst[at:])
	} else {
		n, err = e.lz.CompressBlock(src, dst[at:])
	}
	if err == nil && n > 0 {
		return dst[:at+n]
	}
	dst = dst[:at]
	// Literals only: a token whose high nibble is 15, the length's
	// extension bytes, then the bytes.
	l := len(src)
	if l < 15 {
		dst = append(dst, byte(l<<4))
	} else {
		dst = append(dst, 0xf0)
		for l -= 15; l >= 255; l -= 255 {
			dst = append(dst, 255)
		}
		dst = append(dst, byte(l))
	}
	return append(dst, src...)
}

// LZ4 appends src in numcodecs' LZ4 framing: its size as a little-endian
// uint32, then one LZ4 block.
func (e *Encoder) LZ4(dst, src []byte) ([]byte, error) {
	if uint64(len(src)) > 0x7e000000 {
		return nil, fmt.Errorf("lz4: %d bytes is more than one LZ4 block takes", len(src))
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(src)))
	return e.lz4Block(dst, src, false), nil
}

// DecodeLZ4Numcodecs decodes numcodecs' LZ4 framing (a little-endian
// uint32 size, then one block). want < 0 accepts any size up to limit.
func DecodeLZ4Numcodecs(src []byte, want, limit int64) ([]byte, error) {
	if len(src) < 4 {
		return nil, fmt.Errorf("lz4: %d bytes, shorter than its size header", len(src))
	}
	n := int64(binary.LittleEndian.Uint32(src))
	if want >= 0 && n != want || n > limit {
		return nil, fmt.Errorf("lz4: declares %d decoded bytes, want %d", n, want)
	}
	out := make([]byte, n)
	k, err := lz4.UncompressBlock(src[4:], out)
	if err != nil {
		return nil, fmt.Errorf("lz4: %v", err)
	}
	if int64(k) != n {
		return nil, fmt.Errorf("lz4: decodes to %d bytes, want %d", k, n)
	}
	return out, nil
}

// DecodeLZ4NumcodecsInto decodes numcodecs' LZ4 framing into dst, which
// the data must fill exactly.
func DecodeLZ4NumcodecsInto(src, dst []byte) error {
	if len(src) < 4 {
		return fmt.Errorf("lz4: %d bytes, shorter than its size header", len(src))
	}
	if n := int64(binary.LittleEndian.Uint32(src)); n != int64(len(dst)) {
		return fmt.Errorf("lz4: declares %d decoded bytes, want %d", n, len(dst))
	}
	k, err := lz4.UncompressBlock(src[4:], dst)
	if err != nil {
		return fmt.Errorf("lz4: %v", err)
	}
	if k != len(dst) {
		return fmt.Errorf("lz4: decodes to %d bytes, want %d", k, len(dst))
	}
	return nil
}

// ReadBounded reads r to its end into a buffer grown with the output
// (so a tiny stream claiming much costs nothing up front); more than
// limit bytes is an error.
func ReadBounded(r io.Reader, sizeHint, limit int64) ([]byte, error) {
	out := make([]byte, 0, min(max(sizeHint, 512), limit+1))
	for {
		if int64(len(out)) > limit {
			return nil, fmt.Errorf("decodes to over %d bytes", limit)
		}
		if len(out) == cap(out) {
			out = append(out, 0)[:len(out)]
		}
		k, err := r.Read(out[len(out):min(int64(cap(out)), limit+1)])
		out = out[:len(out)+k]
		if int64(len(out)) > limit {
			return nil, fmt.Errorf("decodes to over %d bytes", limit)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// DecodeGzip decodes a gzip stream of at most limit bytes.
func DecodeGzip(src []byte, sizeHint, limit int64) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("gzip: %v", err)
	}
	out, err := ReadBounded(zr, sizeHint, limit)
	if err != nil {
		return nil, fmt.Errorf("gzip: %v", err)
	}
	return out, nil
}

// DecodeZlib decodes a zlib stream of at most limit bytes.
func DecodeZlib(src []byte, sizeHint, limit int64) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("zlib: %v", err)
	}
	out, err := ReadBounded(zr, sizeHint, limit)
	if err != nil {
		return nil, fmt.Errorf("zlib: %v", err)
	}
	return out, nil
}

// Blosc shuffle modes (numcodecs' numbering).
const (
	BloscNoShuffle  = 0
	BloscShuffle    = 1
	BloscBitShuffle = 2
)

// bloscEncBlock is the block size the Blosc encoder cuts chunks in.
const bloscEncBlock = 256 << 10

// Blosc appends src as one c-blosc 1.x chunk (format version 2), as
// numcodecs' Blosc writes it: cname lz4, lz4hc, zlib or zstd at clevel
// (0-9), with byte shuffle (BloscShuffle) or none, typesize the element
// size. Blocks are not split; a block the codec cannot shrink is stored
// raw, and a chunk that does not shrink is stored whole (memcpyed).
func (e *Encoder) Blosc(dst, src []byte, cname string, clevel, shuffle, typesize int) ([]byte, error) {
	var code uint8
	switch cname {
	case "lz4", "lz4hc":
		code = 1
	case "zlib":
		code = 3
	case "zstd":
		code = 4
	default:
		return nil, fmt.Errorf("blosc: writing with cname %q is not supported (lz4, lz4hc, zlib, zstd are)", cname)
	}
	if shuffle == BloscBitShuffle {
		return nil, fmt.Errorf("blosc: writing bit shuffle is not supported")
	}
	if typesize < 1 || typesize > 255 {
		typesize = 1
	}
	if len(src) > 0x7fffffff-64 {
		return nil, fmt.Errorf("blosc: a chunk of %d bytes is too large", len(src))
	}
	flags := uint8(0x10) | code<<5
	if shuffle == BloscShuffle && typesize > 1 {
		flags |= 0x01
	}
	block := min(len(src), bloscEncBlock/typesize*typesize)
	if block == 0 {
		block = len(src)
	}
	dst = slices.Grow(dst, 16+len(src)+len(src)/64+64)
	at := len(dst)
	header := func(flags uint8, cbytes int) {
		dst = append(dst, 2, 1, flags, uint8(typesize))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(src)))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(block))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(cbytes))
	}
	memcpy := func() []byte {
		dst = dst[:at]
		header(0x02|0x10|code<<5, 16+len(src))
		return append(dst, src...)
	}
	if clevel == 0 || len(src) == 0 {
		return memcpy(), nil
	}
	nblocks := 0
	if block > 0 {
		nblocks = (len(src) + block - 1) / block
	}
	header(flags, 0)
	starts := len(dst)
	dst = append(dst, make([]byte, 4*nblocks)...)
	if cap(e.buf) < block {
		e.buf = make([]byte, block)
	}
	for j := 0; j < nblocks; j++ {
		b := src[j*block : min(len(src), (j+1)*block)]
		if flags&0x01 != 0 {
			sh := e.buf[:len(b)]
			Shuffle(b, typesize, sh)
			b = sh
		}
		binary.LittleEndian.PutUint32(dst[starts+4*j:], uint32(len(dst)-at))
		sz := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		var err error
		switch cname {
		case "lz4":
			dst = e.lz4Block(dst, b, false)
		case "lz4hc":
			dst = e.lz4Block(dst, b, true)
		case "zlib":
			dst, err = e.Zlib(dst, b, clevel)
		case "zstd":
			dst, err = e.Zstd(dst, b, bloscZstdLevel(clevel))
		}
		if err != nil {
			return nil, err
		}
		n := len(dst) - sz - 4
		if n >= len(b) {
			dst = append(dst[:sz+4], b...)
			n = len(b)
		}
		binary.LittleEndian.PutUint32(dst[sz:], uint32(n))
		if len(dst)-at >= 16+len(src) {
			return memcpy(), nil
		}
	}
	binary.LittleEndian.PutUint32(dst[at+12:], uint32(len(dst)-at))
	return dst, nil
}

// bloscZstdLevel is the libzstd level c-blosc uses for a Blosc clevel.
func bloscZstdLevel(clevel int) int {
	if clevel >= 9 {
		return 22
	}
	return clevel * 2
}

// Shuffle is the byte shuffle (HDF5's filter, Blosc's): dst gets byte 0
// of every element of src, then byte 1 of every element, ...; bytes past
// the last whole element are copied as they are.
func Shuffle(src []byte, es int, dst []byte) {
	n := len(src) / es
	switch es {
	case 8:
		p0, p1, p2, p3 := dst[:n], dst[n:2*n], dst[2*n:3*n], dst[3*n:4*n]
		p4, p5, p6, p7 := dst[4*n:5*n], dst[5*n:6*n], dst[6*n:7*n], dst[7*n:8*n]
		// Eight elements at a time: an 8x8 byte transpose, then one
		// 8-byte store to each plane (not 64 single-byte ones).
		i := 0
		for ; i+8 <= n; i += 8 {
			s := src[8*i : 8*i+64]
			w0, w1, w2, w3, w4, w5, w6, w7 := transposeBytes8x8(
				binary.LittleEndian.Uint64(s[0:]), binary.LittleEndian.Uint64(s[8:]),
				binary.LittleEndian.Uint64(s[16:]), binary.LittleEndian.Uint64(s[24:]),
				binary.LittleEndian.Uint64(s[32:]), binary.LittleEndian.Uint64(s[40:]),
				binary.LittleEndian.Uint64(s[48:]), binary.LittleEndian.Uint64(s[56:]))
			binary.LittleEndian.PutUint64(p0[i:], w0)
			binary.LittleEndian.PutUint64(p1[i:], w1)
			binary.LittleEndian.PutUint64(p2[i:], w2)
			binary.LittleEndian.PutUint64(p3[i:], w3)
			binary.LittleEndian.PutUint64(p4[i:], w4)
			binary.LittleEndian.PutUint64(p5[i:], w5)
			binary.LittleEndian.PutUint64(p6[i:], w6)
			binary.LittleEndian.PutUint64(p7[i:], w7)
		}
		for ; i < n; i++ {
			v := binary.LittleEndian.Uint64(src[8*i:])
			p0[i], p1[i], p2[i], p3[i] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
			p4[i], p5[i], p6[i], p7[i] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
		}
		copy(dst[n*es:], src[n*es:])
		return
	case 4:
		p0, p1, p2, p3 := dst[:n], dst[n:2*n], dst[2*n:3*n], dst[3*n:4*n]
		// Sixteen elements at a time: word k holds elements k and k+8,
		// so that after the 8x8 byte transpose word j (j < 4) is byte j
		// of elements 0-7 and word j+4 byte j of elements 8-15.
		i := 0
		for ; i+16 <= n; i += 16 {
			s := src[4*i : 4*i+64]
			word := func(k int) uint64 {
				return uint64(binary.LittleEndian.Uint32(s[4*k:])) | uint64(binary.LittleEndian.Uint32(s[4*k+32:]))<<32
			}
			w0, w1, w2, w3, w4, w5, w6, w7 := transposeBytes8x8(word(0), word(1), word(2), word(3), word(4), word(5), word(6), word(7))
			binary.LittleEndian.PutUint64(p0[i:], w0)
			binary.LittleEndian.PutUint64(p0[i+8:], w4)
			binary.LittleEndian.PutUint64(p1[i:], w1)
			binary.LittleEndian.PutUint64(p1[i+8:], w5)
			binary.LittleEndian.PutUint64(p2[i:], w2)
			binary.LittleEndian.PutUint64(p2[i+8:], w6)
			binary.LittleEndian.PutUint64(p3[i:], w3)
			binary.LittleEndian.PutUint64(p3[i+8:], w7)
		}
		for ; i < n; i++ {
			v := binary.LittleEndian.Uint32(src[4*i:])
			p0[i], p1[i], p2[i], p3[i] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		}
		copy(dst[n*es:], src[n*es:])
		return
	}
	for j := 0; j < es; j++ {
		plane := dst[j*n : (j+1)*n]
		for i := range plane {
			plane[i] = src[i*es+j]
		}
	}
	copy(dst[n*es:], src[n*es:])
}
