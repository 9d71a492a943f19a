// Package npyio reads and writes NumPy's .npy and .npz formats.
//
// It reads every array numpy writes without pickle: all scalar types in
// both byte orders, strings (S, U, V), datetime64 and timedelta64 with any
// unit and multiplier, and structured dtypes with nested structs, subarray
// fields, titles, explicit offsets and padding. Headers of format versions
// 1.0, 2.0 and 3.0 are parsed by a strict, linear-time parser of the Python
// literal subset numpy uses. Writing is byte-identical to np.save.
//
// The NPY layout (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html):
//
//	offset  size  content
//	0       6     magic "\x93NUMPY"
//	6       1     major version (1, 2 or 3)
//	7       1     minor version (0)
//	8       2|4   header length, little-endian (uint16 in 1.0, uint32 after)
//	10|12   n     header: a Python dict literal {'descr', 'fortran_order',
//	              'shape'}, latin-1 (1.0, 2.0) or UTF-8 (3.0), padded with
//	              spaces and '\n' so the data starts on a 64-byte boundary
//	...           data: prod(shape) elements, C or Fortran order
//
// There are four ways to read:
//
//   - [ReadHeader] reads only the header (like png.DecodeConfig).
//   - [Reader] streams rows (axis 0) in batches in bounded memory, from an
//     io.Reader or, faster, an io.ReaderAt. Data arrives in native byte order
//     and logical C order, Fortran-order files included.
//   - [ReadFile], [ReadArray], [ReadArrayAt] read a whole array at once.
//   - [Map] memory-maps a native-order file and returns its bytes with no
//     copy.
//
// [Writer] writes an array of known shape; [NewStreamWriter] writes one whose
// number of rows is found as it goes, fixing the header on Close.
// [NPZReader] and [NPZWriter] handle archives, with Stored and Deflate
// members and zip64.
//
// Limits: object arrays (pickled Python data) are refused with [ErrObject];
// platform long doubles (f16, c32, whose layout depends on the machine that
// wrote them) are recognized and refused with an [UnsupportedError]. Headers
// are limited to [DefaultMaxHeaderSize] bytes unless [Options] says
// otherwise. Sizes read from a file are checked before anything is
// allocated from them.
//
// Readers and Writers are not safe for concurrent use; DTypes and Headers
// are immutable once built and may be shared.
//
// Where things live: header.go and dtype.go the header and dtypes
// (pylit.go its Python-literal syntax), reader.go and part.go streamed
// reads, array.go whole-array reads, mmap_unix.go memory-mapped ones,
// writer.go writes, npz.go .npz archives, swap.go and half.go byte order
// and float16, errors.go the error types.
package npyio
