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
		got, err := zstdDecoder(pageSizeLimit).DecodeAll(src, dst[:0])
		if err != nil {
			return corrupt("ZSTD page data does not decompress: %v", err)
		}
		if len(got) != len(dst) {
			return corrupt("ZSTD page data decompresses to %d bytes, its header says %d", len(got), len(dst))
		}
		if &got[0] != &dst[0] { // len(dst) > 0 here
			copy(dst, got)
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

var zstdDecoders sync.Map // output limit -> *zstd.Decoder

// zstdDecoder returns a shared ZSTD decoder whose output and window are
// bounded by limit bytes (klauspost's default is 64 GiB).
func zstdDecoder(limit int64) *zstd.Decoder {
	if d, ok := zstdDecoders.Load(limit); ok {
		return d.(*zstd.Decoder)
	}
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(uint64(limit)),
		zstd.WithDecoderMaxWindow(uint64(max(limit, zstd.MinWindowSize))), zstd.WithDecoderLowmem(true))
	if err != nil {
		panic(err) // only for bad options
	}
	v, _ := zstdDecoders.LoadOrStore(limit, d)
	return v.(*zstd.Decoder)
}
