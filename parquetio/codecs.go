package parquetio

import (
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/parquet-go/parquet-go/format"
)

// arrow-go decodes a page into a buffer of the size its header claims,
// but some of its codecs size their output by the data (zstd by the frame
// header, gzip and brotli read to the end of the stream). npyflow
// registers its own decoders for them with arrow-go (compress.RegisterCodec,
// arrow-go's extension point): each decompresses into exactly the page's
// declared size and calls data that does not fill it exactly, or goes on
// beyond it, corrupt (see decompress). Encoding is left to arrow-go's own
// codecs, so arrow-go writers in the same process are unaffected.

// boundedCodec is an arrow-go codec whose decoding is npyflow's.
type boundedCodec struct {
	compress.Codec
	id format.CompressionCodec
}

func (c boundedCodec) Decode(dst, src []byte) []byte {
	out, err := c.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

// DecodeWithError decodes src into dst, which has the page's declared
// uncompressed size (arrow-go passes nil for a page of 0 bytes).
func (c boundedCodec) DecodeWithError(dst, src []byte) ([]byte, error) {
	if len(dst) == 0 && len(src) == 0 {
		// A page that declares no data and stores none (a data page v2
		// of nulls only): there is nothing to decompress, and 0 bytes
		// are no valid stream of most codecs (parquet-testing's
		// datapage_v2_empty_datapage.snappy.parquet).
		return []byte{}, nil
	}
	if dst == nil {
		dst = []byte{}
	}
	if err := decompress(c.id, dst, src); err != nil {
		return nil, err
	}
	return dst, nil
}

func init() {
	for _, c := range []struct {
		arrow compress.Compression
		id    format.CompressionCodec
	}{
		{compress.Codecs.Snappy, format.Snappy},
		{compress.Codecs.Gzip, format.Gzip},
		{compress.Codecs.Zstd, format.Zstd},
		{compress.Codecs.Brotli, format.Brotli},
		{compress.Codecs.Lz4Raw, format.Lz4Raw},
	} {
		orig, err := compress.GetCodec(c.arrow)
		if err != nil {
			continue
		}
		compress.RegisterCodec(c.arrow, boundedCodec{Codec: orig, id: c.id})
	}
	// arrow-go has no codec for the legacy (Hadoop-framed) LZ4.
	compress.RegisterCodec(compress.Codecs.Lz4, boundedCodec{Codec: hadoopLZ4Codec{}, id: format.Lz4})
}
