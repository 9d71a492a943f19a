package parquetio

import (
	"encoding/binary"
	"math"
	"math/bits"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// zstdCodec is parquet-go's ZSTD codec with a window the size of a page.
// parquet-go's own keeps the zstd default window (8 MiB, a 16 MiB history
// per encoder) for pages of about 1 MiB that each start a new frame, and
// pools its encoders in a sync.Pool, which rebuilds them after garbage
// collections: with columns encoded in parallel that was the largest part
// of a Writer's memory. Matches never reach past a page, so the output is
// the same. Encoders are kept on a free list (as many as were ever in use
// at once).
type zstdCodec struct {
	window int
	mu     sync.Mutex
	free   []*zstd.Encoder
}

var zstdCodecs sync.Map // window size -> *zstdCodec

// zstdFor returns the shared ZSTD codec for pages of about page bytes.
func zstdFor(page int) *zstdCodec {
	w := 1 << bits.Len(uint(max(page, 1<<16)-1)) // next power of two
	w = min(w, zstd.MaxWindowSize)
	if c, ok := zstdCodecs.Load(w); ok {
		return c.(*zstdCodec)
	}
	c, _ := zstdCodecs.LoadOrStore(w, &zstdCodec{window: w})
	return c.(*zstdCodec)
}

func (c *zstdCodec) String() string                            { return "ZSTD" }
func (c *zstdCodec) CompressionCodec() format.CompressionCodec { return format.Zstd }

// Encode compresses src as one frame appended to dst[:0]. A page that
// looks incompressible (see [incompressible]) is stored in raw blocks
// instead: the encoder's match search over such a page (random floats,
// hashes) costs as much CPU as a compressible one and gains nothing.
func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	e, err := c.get()
	if err != nil {
		return nil, err
	}
	var out []byte
	if incompressible(e, src, dst[:0]) {
		out = rawFrame(dst[:0], src)
	} else {
		out = e.EncodeAll(src, dst[:0])
	}
	c.mu.Lock()
	c.free = append(c.free, e)
	c.mu.Unlock()
	return out, nil
}

// get takes an encoder from the free list or makes one.
func (c *zstdCodec) get() (*zstd.Encoder, error) {
	c.mu.Lock()
	var e *zstd.Encoder
	if n := len(c.free); n > 0 {
		e, c.free = c.free[n-1], c.free[:n-1]
	}
	c.mu.Unlock()
	if e == nil {
		var err error
		e, err = zstd.NewWriter(nil,
			zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderLevel(zstd.SpeedDefault),
			zstd.WithZeroFrames(true),
			zstd.WithEncoderCRC(false),
			zstd.WithWindowSize(c.window),
			zstd.WithLowerEncoderMem(true),
		)
		if err != nil {
			return nil, err
		}
	}
	return e, nil
}

// Probing for incompressible pages: pages of at least probeMin bytes are
// sampled at probeSamples places, probeLen bytes each; the page is stored
// raw when no sample compresses below probeKeep of its size.
const (
	probeMin     = 256 << 10
	probeLen     = 16 << 10
	probeSamples = 3
	probeKeep    = 0.97
)

// incompressible reports whether src is a large page whose samples do not
// compress. It costs one sample's compression (about 1.5% of the page's)
// for a page whose first sample compresses, and three for a page that is
// stored raw. scratch is reused for the samples' output.
func incompressible(e *zstd.Encoder, src, scratch []byte) bool {
	if len(src) < probeMin {
		return false
	}
	step := (len(src) - probeLen) / (probeSamples - 1)
	for i := range probeSamples {
		off := i * step
		out := e.EncodeAll(src[off:off+probeLen], scratch[:0])
		if float64(len(out)) < probeKeep*probeLen {
			return false
		}
		scratch = out[:0]
	}
	return true
}

// zstd frame format (RFC 8878): magic number, frame header and blocks.
const (
	zstdMagic    = 0xFD2FB528
	zstdMaxBlock = 128 << 10
)

// rawFrame appends to dst a zstd frame holding src in raw
// (uncompressed) blocks: a single-segment frame with the content size in
// its header, as every zstd decoder reads.
func rawFrame(dst, src []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, zstdMagic)
	n := len(src)
	switch {
	case n < 256: // Frame_Content_Size on 1 byte
		dst = append(dst, 0x20, byte(n))
	case n < 65536+256: // 2 bytes, minus 256
		dst = append(dst, 0x60)
		dst = binary.LittleEndian.AppendUint16(dst, uint16(n-256))
	case uint64(n) <= math.MaxUint32: // 4 bytes
		dst = append(dst, 0xA0)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	default: // 8 bytes
		dst = append(dst, 0xE0)
		dst = binary.LittleEndian.AppendUint64(dst, uint64(n))
	}
	for first := true; first || len(src) > 0; first = false {
		k := min(len(src), zstdMaxBlock)
		h := uint32(k) << 3 // Block_Type 0: raw
		if k == len(src) {
			h |= 1 // Last_Block
		}
		dst = append(dst, byte(h), byte(h>>8), byte(h>>16))
		dst = append(dst, src[:k]...)
		src = src[k:]
	}
	return dst
}

// Decode is parquet-go's.
func (c *zstdCodec) Decode(dst, src []byte) ([]byte, error) { return parquet.Zstd.Decode(dst, src) }
