// Package codec holds the compression codecs and byte transforms that
// npyflow's chunked formats share: HDF5's plugin filters and Zarr's
// compressors are one implementation each.
//
// Decoders: Blosc (c-blosc 1.x and c-blosc2 chunks, every internal codec:
// blosclz, lz4, lz4hc, snappy, zlib, zstd; byte and bit shuffle, delta),
// Blosc2 frames, LZ4 in HDF5's framing and in numcodecs' framing, raw
// LZ4 blocks, Zstandard, zlib, gzip, bzip2, bitshuffle and the byte
// shuffle. Encoders: Zstandard (frames carry their content size), Blosc
// (c-blosc 1.x chunks with lz4, zstd, zlib or no compression and any
// shuffle), numcodecs' LZ4, gzip and zlib.
//
// Every decoder is bounded by the size its caller expects (want): an
// encoded chunk that declares or produces more fails without allocating
// what it claims. Limits: the Blosc encoder writes no blosclz or snappy
// streams (blosclz is read only) and no c-blosc2 chunks; Blosc2 plugin
// codecs (zfp, ndlz, ...) are reported as unsupported.
package codec

// Params is what a decoder knows of the data it decodes: a filter's
// client data (HDF5 cd_values) and the element size in bytes.
type Params struct {
	CD       []uint32
	ElemSize int
}

// Slack is how far a decoder's output may exceed want when a later step
// strips bytes (HDF5's fletcher32 strips 4).
const Slack = 64

// Out is the buffer a decoder of unknown output size appends to: dst[:0]
// when given, else a new buffer of capacity want+Slack.
func Out(want uint64, dst []byte) []byte {
	if dst != nil {
		return dst[:0:want]
	}
	return make([]byte, 0, want+Slack)
}
