package hdf5

import "github.com/npyflow/npyflow/internal/codec"

// The plugin filters that Zarr uses too (Blosc, LZ4, Zstandard, bzip2,
// bitshuffle and the byte shuffle) live in internal/codec, one
// implementation for both formats; these names keep filterCodecs and the
// chunk reader as they were.

// codecUnsupportedError is a well-formed encoded chunk using a feature the
// decoders do not implement; unfilter reports it as unsupported.
type codecUnsupportedError = codec.UnsupportedError

func decodeBlosc(p filterParams, src []byte, want uint64, dst []byte) ([]byte, error) {
	return codec.DecodeBlosc(p, src, want, dst)
}

func decodeBlosc2(p filterParams, src []byte, want uint64, dst []byte) ([]byte, error) {
	return codec.DecodeBlosc2(p, src, want, dst)
}

func decodeLZ4(p filterParams, src []byte, want uint64, dst []byte) ([]byte, error) {
	return codec.DecodeLZ4(p, src, want, dst)
}

func decodeZstd(p filterParams, src []byte, want uint64, dst []byte) ([]byte, error) {
	return codec.DecodeZstd(p, src, want, dst)
}

func decodeBZip2(p filterParams, src []byte, want uint64, dst []byte) ([]byte, error) {
	return codec.DecodeBZip2(p, src, want, dst)
}

func decodeBitshuffle(p filterParams, src []byte, want uint64, dst []byte) ([]byte, error) {
	return codec.DecodeBitshuffle(p, src, want, dst)
}

// unshuffle undoes HDF5's byte shuffle filter into dst.
func unshuffle(src []byte, es int, dst []byte) []byte { return codec.Unshuffle(src, es, dst) }

// decodeTarget returns the n bytes a decoder writes into: dst when it is
// the last filter undone, else a new buffer bounded by the chunk's size.
func decodeTarget(dst []byte, n, want uint64) ([]byte, error) {
	return codec.DecodeTarget(dst, n, want)
}

// The shared helpers under the names hdf5's filters have used: pooled
// scratch buffers, the decoded-size error, bitshuffle's transform,
// BloscLZ.
func getScratch(n int) *[]byte                     { return codec.GetScratch(n) }
func putScratch(p *[]byte)                         { codec.PutScratch(p) }
func errDecodedSize(n, want uint64) error          { return codec.ErrDecodedSize(n, want) }
func bitUnshuffle(dst, src, tmp []byte, n, es int) { codec.BitUnshuffle(dst, src, tmp, n, es) }
func bshufDefaultBlock(es int) int                 { return codec.BitshuffleDefaultBlock(es) }
func blosclzDecode(src, out []byte) error          { return codec.BlosclzDecode(src, out) }
