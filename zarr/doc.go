// Package zarr reads and writes Zarr v2 and v3 arrays and groups: the
// chunked array stores of zarr-python, xarray, dask, zarrita and
// TensorStore.
//
// A [Store] holds the hierarchy: [FSStore] a local directory or a bucket
// prefix through internal/storage (s3://, gs://, azblob:// once objstore
// is imported), [ZipStore] a .zip archive (read, or written once),
// [MemStore] memory. [OpenArray] and [OpenGroup] read metadata (v3
// zarr.json, v2 .zarray/.zgroup/.zattrs, consolidated metadata of both);
// [Array.Read] reads any region in C order, decoding only the chunks (or
// inner chunks of shards) it touches, [Array.ReadStrings] the items of a
// variable-length string array. [CreateArray] and [GroupWriter] write:
// rows along the first axis ([ArrayWriter.WriteRows], buffered one band
// of chunks or shards deep) or whole-chunk regions, the metadata last
// (Close), consolidated metadata after every array. [CreateRegion] writes
// one band of whole chunks of an array and no metadata, for several
// writers of one array (the tasks of a sharded run).
//
// Supported: every numpy type of v2 (both byte orders, datetimes,
// strings, structured types), v3's core types, raw bits and strings;
// fill values in every form; C and F order, transpose; chunk key
// encodings default and v2 with either separator; missing chunks read
// as the fill value; compressors blosc, zstd, lz4, zlib, gzip, bz2 and
// crc32c, v2's delta filter, v3's sharding_indexed with its index at the
// start or the end (empty inner chunks 2^64-1). The codecs are
// internal/codec's, shared with package hdf5.
//
// Variable-length strings: [Array.ReadStrings] gives the items,
// [Array.StringWidth] and [Array.ReadFixed] numpy's fixed-width U or S of
// the longest item (an item ending in NUL, which numpy would strip, is
// an error). [CreateOptions.Strings] "vlen" writes numpy U and S arrays
// as zarr-python 2 writes object arrays (v2 "|O" with numcodecs'
// vlen-utf8 or vlen-bytes, the same chunk bytes) and U as v3's string
// data type with the vlen-utf8 codec.
//
// Concurrency and memory: [Array.Read] decodes the chunks a region
// touches on [Array.Threads] goroutines (0: GOMAXPROCS), a chunk that
// lies whole and contiguous in the destination straight into it. Reads
// of whole rows in order (npyflow's engine reads about 256 KiB at a
// time) go through a window of at most 2 x Threads decoded chunks: a
// chunk is decoded once however many reads it serves, and the next ones
// are decoded while the caller works. [ArrayWriter.WriteRows] hands each
// full band of chunks to [CreateOptions.Threads] encoders and returns;
// at most 2 x Threads chunks are in flight, so converting an array
// holds a few bands whatever its size. An Array may be read by several
// goroutines at once (one of them uses the window, the others read
// directly); an ArrayWriter is used by one.
//
// Limits: Blosc is
// written with lz4, lz4hc, zlib or zstd inside and byte shuffle or none;
// v2 filters other than delta, v3 extension data types, storage
// transformers and nested sharding are refused by name; variable-length
// strings are not written sharded, nor as v3 bytes. A decoded chunk
// may have at most 2 GiB, and nothing larger than a chunk's declared
// size is allocated for it: hostile input (broken JSON, lying codec
// headers, shard indexes past the end) is an *[Error] naming the array
// and chunk.
package zarr
