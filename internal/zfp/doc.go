// Package zfp decodes zfp-compressed arrays as the HDF5 filter H5Z-ZFP
// (filter id 32013) stores them, in pure Go.
//
// zfp (https://zfp.io, LLNL) compresses a d-dimensional array (d = 1 to 4)
// of int32, int64, float32 or float64 values in blocks of 4^d values. Each
// block is converted to integers (for floats, relative to the block's
// largest exponent), decorrelated by a lifting transform along each axis,
// reordered by sequency, mapped to negabinary and coded one bit plane at a
// time from the most significant down, with group tests for the bits that
// become significant. How many bits a block gets is set by the stream's
// mode: fixed rate (every block has exactly maxbits bits), fixed precision
// (maxprec bit planes), fixed accuracy (the planes above 2^minexp) or
// reversible (lossless: an exact integer transform and, for floats, the
// bits of the values themselves). Decoding is deterministic, so this
// package gives, bit for bit, the values the zfp library gives for the
// same stream.
//
// # H5Z-ZFP layout
//
// The filter's client data (cd_values) hold the stream's header, the
// chunk's data holds the blocks only:
//
//	cd[0]     versions: zfp library << 16 | zfp codec << 12 | H5Z-ZFP
//	cd[1:]    the zfp header as a bit stream (little-endian 32-bit words,
//	          read least significant bit first):
//	            32 bits  magic "zfp" and the codec version (5)
//	            52 bits  field: scalar type (2), dimensions - 1 (2), then
//	                     nx-1, ny-1, ... (48 bits shared by the dimensions)
//	            12 bits  mode, or 64 bits when the 12 bits are all ones
//	                     (minbits, maxbits, maxprec, minexp in full)
//
// The field's dimensions are the chunk's dimensions of length > 1, the
// last (fastest varying) one first: a chunk of shape (1, 30, 40) is a 2-D
// field with nx = 40 and ny = 30. The blocks follow one another in the
// chunk's C order of blocks (x fastest), edge blocks padded.
//
// # Limits
//
// Only codec version 5 (zfp 0.5.0 to 1.0) is read. Streams written on a
// big-endian machine (whose header words the filter stores byte-swapped)
// are refused as unsupported. The rounding mode zfp may be built with
// (ZFP_ROUNDING_MODE) is its default, "never", as in every packaged build.
// Malformed input gives an error, never a panic: the output size is the
// caller's (the chunk's size), checked against the header before anything
// is decoded, and a stream that ends before its blocks do is an error.
// A [Header] is safe for concurrent use; decoding keeps its state on the
// stack of the call.
package zfp
