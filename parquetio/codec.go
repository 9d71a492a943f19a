package parquetio

import (
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

// Encode compresses src as one frame appended to dst[:0].
func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
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
	out := e.EncodeAll(src, dst[:0])
	c.mu.Lock()
	c.free = append(c.free, e)
	c.mu.Unlock()
	return out, nil
}

// Decode is parquet-go's.
func (c *zstdCodec) Decode(dst, src []byte) ([]byte, error) { return parquet.Zstd.Decode(dst, src) }
