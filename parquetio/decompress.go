package parquetio

import (
	"bytes"
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
