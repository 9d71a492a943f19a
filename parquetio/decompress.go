package parquetio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// decompress decodes the compressed page data src of codec into dst,
// which has exactly the page's declared uncompressed size: data that
// does not fill it exactly is corrupt. Nothing is allocated by what the
// data claims: parquet-go's decoders read gzip and brotli to their end
// whatever the page header says (a page of a few KiB can expand to
// GiBs) and size zstd's output by the frame header, so npyflow decodes
// every codec itself, into dst.
func decompress(codec format.CompressionCodec, dst, src []byte) error {
	switch codec {
	case format.Lz4:
		if hadoopLZ4(dst, src) {
			return nil
		}
		// Some writers stored bare LZ4 blocks under this codec (Arrow C++
		// reads them the same way).
		n, err := lz4.UncompressBlock(src, dst)
		if err != nil || n != len(dst) {
			return corrupt("LZ4 (legacy codec) page data is neither Hadoop-framed LZ4 nor an LZ4 block of its %d bytes", len(dst))
		}
		return nil
	case format.Lz4Raw:
		n, err := lz4.UncompressBlock(src, dst)
		if err != nil || n != len(dst) {
			return corrupt("LZ4_RAW page data does not decompress to its %d bytes", len(dst))
		}
		return nil
	case format.Snappy:
		n, err := snappy.DecodedLen(src)
		if err != nil || n != len(dst) {
			return corrupt("SNAPPY page data does not decompress to its %d bytes", len(dst))
		}
		if _, err := snappy.Decode(dst, src); err != nil {
			return corrupt("SNAPPY page data does not decompress: %v", err)
		}
		return nil
	case format.Zstd:
		// DecodeAll appends to dst[:0]: the output stays in dst unless
		// the data decodes to more than dst holds (then it is refused
		// below); the decoder refuses output beyond its memory limit
		// (pageSizeLimit), whatever the frame header claims.
		pool := zstdPool(pageSizeLimit)
		zr := pool.Get().(*zstd.Decoder)
		defer pool.Put(zr)
		var h zstd.Header
		if err := h.Decode(src); err != nil || !h.HasFCS {
			// No content size: the streaming decoder fills dst exactly.
			if err := zr.Reset(bytes.NewReader(src)); err != nil {
				return corrupt("ZSTD page data does not decompress: %v", err)
			}
			return readExactly(zr, dst, codec)
		}
		if h.FrameContentSize != uint64(len(dst)) {
			return corrupt("ZSTD page data holds a frame of %d bytes, its header says %d", h.FrameContentSize, len(dst))
		}
		out, err := zr.DecodeAll(src, dst[:0])
		if err != nil {
			return corrupt("ZSTD page data does not decompress: %v", err)
		}
		if len(out) != len(dst) {
			return corrupt("ZSTD page data decompresses to %d bytes, its header says %d", len(out), len(dst))
		}
		return nil
	case format.Gzip:
		zr := gzipReaders.Get().(*gzip.Reader)
		defer gzipReaders.Put(zr)
		if err := zr.Reset(bytes.NewReader(src)); err != nil {
			return corrupt("GZIP page data does not decompress: %v", err)
		}
		return readExactly(zr, dst, codec)
	case format.Brotli:
		return readExactly(brotli.NewReader(bytes.NewReader(src)), dst, codec)
	}
	return fmt.Errorf("compression codec %s is not supported", codec)
}

// readExactly fills dst from r and checks that r ends there.
func readExactly(r io.Reader, dst []byte, codec format.CompressionCodec) error {
	n, err := io.ReadFull(r, dst)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return corrupt("%s page data decompresses to %d bytes, its header says %d", codec, n, len(dst))
		}
		return corrupt("%s page data does not decompress: %v", codec, err)
	}
	var one [1]byte
	if k, err := r.Read(one[:]); k > 0 || (err != nil && err != io.EOF) {
		if err != nil && err != io.EOF {
			return corrupt("%s page data does not decompress: %v", codec, err)
		}
		return corrupt("%s page data decompresses to more than its header's %d bytes", codec, len(dst))
	}
	return nil
}

var gzipReaders = sync.Pool{New: func() any { return new(gzip.Reader) }}

var zstdPools sync.Map // window limit -> *sync.Pool of *zstd.Decoder

// zstdPool returns the pool of streaming ZSTD decoders (synchronous, so
// they hold no goroutines) whose window is at most limit bytes: the
// output is bounded by the page buffer they fill, never by the size a
// frame header claims (DecodeAll sizes its output by that).
func zstdPool(limit int64) *sync.Pool {
	if p, ok := zstdPools.Load(limit); ok {
		return p.(*sync.Pool)
	}
	w := uint64(min(max(limit, zstd.MinWindowSize), zstd.MaxWindowSize))
	p := &sync.Pool{New: func() any {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(w), zstd.WithDecoderMaxMemory(uint64(limit)))
		if err != nil {
			panic(err) // only for bad options
		}
		return d
	}}
	v, _ := zstdPools.LoadOrStore(limit, p)
	return v.(*sync.Pool)
}

// hadoopLZ4 decodes the legacy LZ4 codec as Hadoop frames it (parquet-mr,
// Arrow C++): blocks of [uncompressed size, compressed size] (4 bytes each,
// big-endian) and an LZ4 block, until src ends. It reports whether src is
// such blocks filling dst exactly.
func hadoopLZ4(dst, src []byte) bool {
	out := 0
	for len(src) > 0 {
		if len(src) < 8 {
			return false
		}
		usize, csize := int(binary.BigEndian.Uint32(src)), int(binary.BigEndian.Uint32(src[4:]))
		src = src[8:]
		if csize > len(src) || usize > len(dst)-out {
			return false
		}
		n, err := lz4.UncompressBlock(src[:csize], dst[out:out+usize])
		if err != nil || n != usize {
			return false
		}
		out += usize
		src = src[csize:]
	}
	return out == len(dst)
}

// hadoopLZ4Codec is the legacy LZ4 codec for arrow-go, which has none:
// decoding as above, encoding one Hadoop-framed block as Arrow C++ does.
type hadoopLZ4Codec struct{}

func (hadoopLZ4Codec) Encode(dst, src []byte) []byte {
	bound := lz4.CompressBlockBound(len(src))
	if cap(dst) < 8+bound {
		dst = make([]byte, 8+bound)
	}
	dst = dst[:8+bound]
	var c lz4.Compressor
	n, err := c.CompressBlock(src, dst[8:])
	if err != nil {
		panic(err)
	}
	binary.BigEndian.PutUint32(dst, uint32(len(src)))
	binary.BigEndian.PutUint32(dst[4:], uint32(n))
	return dst[:8+n]
}

func (c hadoopLZ4Codec) EncodeLevel(dst, src []byte, _ int) []byte { return c.Encode(dst, src) }

func (hadoopLZ4Codec) CompressBound(n int64) int64 {
	return 8 + int64(lz4.CompressBlockBound(int(n)))
}

func (hadoopLZ4Codec) Decode(dst, src []byte) []byte {
	if err := decompress(format.Lz4, dst, src); err != nil {
		panic(err)
	}
	return dst
}
