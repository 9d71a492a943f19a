// Package hdf5 reads HDF5 files (and MATLAB v7.3 MAT-files, which are HDF5
// files with a 512-byte user block) in pure Go, without cgo.
//
// It follows the HDF5 File Format Specification version 3.0 and reads what
// h5py, hdf5storage and MATLAB write:
//
//   - superblock versions 0 to 3 after an optional user block; 8-byte
//     offsets and lengths only (other sizes are refused with
//     ErrUnsupported);
//   - object headers version 1 and 2 with continuation blocks;
//   - groups: old-style symbol tables (v1 B-tree, local heap, symbol table
//     nodes) and new-style compact links and dense links (fractal heap and
//     v2 B-tree); hard and soft links (external links are listed, not
//     followed);
//   - attributes in object headers and in dense storage;
//   - datatypes: fixed-point, floating point (f2, f4, f8), fixed and
//     variable-length strings, compound, enum, array, variable-length
//     sequences, bitfield, opaque and object references (region references
//     are refused);
//   - layouts compact, contiguous and chunked (layout messages 1 to 4);
//     chunk indexes v1 B-tree, single chunk, implicit, fixed array,
//     extensible array and v2 B-tree; the filters deflate, shuffle,
//     fletcher32, szip, n-bit, scale-offset, lzo (PyTables), bzip2 and lzf
//     (h5py) and the plugin filters listed under "Plugin filters", decoded
//     in pure Go (any other filter is an error naming it);
//     integers narrower than their bytes (precision below the size, or a
//     bit offset, as n-bit datasets have) read as full integers, as h5py
//     reads them;
//   - the global heap (variable-length data) and Jenkins lookup3
//     checksums, verified on every version 2 structure read.
//
// # API
//
// [Open] (an io.ReaderAt and its size) and [OpenFile] return a [File];
// [File.Root], [File.OpenPath] ("/g/d") and [File.Deref] (an object
// [Reference]) give [Object]s: *[Group], *[Dataset] or *[NamedDatatype].
// [Group.Members] lists member names sorted by name ([Group.Links] with
// link kinds and targets); [Group.Open] opens a member; [File.Walk] visits
// every object once, depth first in name order. Every object has [Attribute]s, decoded by
// [Attribute.String], [Attribute.Strings] (also variable-length sequences
// of characters, such as MATLAB_fields), [Attribute.Int64s],
// [Attribute.Uint64s], [Attribute.Float64s], [Attribute.References],
// [Attribute.VarLen] and [Attribute.Bytes].
//
// A Dataset tells its [Dataset.Shape], stored [Dataset.Type] (a
// [Datatype]), [Dataset.Layout] (class, chunk shape, index kind, filters)
// and [Dataset.Describe] without reading data. [Dataset.DType] maps the
// type to numpy's as h5py does: compound to a structured dtype with HDF5's
// offsets (fields in offset order, as numpy's descr needs: HDF5 may store
// members out of offset order, and h5py keeps that order), enum to its
// base integer (h5py's FALSE/TRUE enum to bool),
// bitfield to an unsigned integer, fixed-length ASCII strings to S<n>,
// variable-length strings to S<n> (ASCII) or U<n> (UTF-8), and
// fixed-length UTF-8 strings to U<n> (the numpy U they are written from),
// with n found by reading every value once; a fixed-length UTF-8 member
// of a compound (or element of an array type) to U<n>, n its byte width
// (the most characters it holds; h5py gives its bytes), decoded while
// reading (invalid UTF-8 is an error naming the field); an opaque type tagged
// "NUMPY:<dtype>" (h5py.opaque_dtype, how h5py stores datetime64 and
// timedelta64) to that dtype, also inside compounds. Object references,
// other opaque types, time, variable-length sequences and region
// references have no faithful numpy type and are refused with an error
// naming the dataset; read references
// with [Dataset.ReadReferences], strings with [Dataset.ReadStrings] and
// sequences with [Dataset.ReadVarLen].
//
// Data come back as bytes in C order in the layout of the DType, in the
// file's byte order (a big-endian dataset has a '>' DType); bytes are never
// reinterpreted. Fixed-length strings (also inside compounds and arrays)
// come back as h5py reads them through HDF5's conversion to its NULLPAD
// memory type: NULLPAD strings as stored, a NULLTERM string cut at its
// first NUL, a SPACEPAD string's trailing blanks turned into NULs (numpy
// shows b"ab" for the stored "ab   "). [Dataset.ReadAll] reads everything up to
// Options.MaxReadBytes; [Dataset.NewRowReader] streams batches of rows
// (slices along the first dimension; a scalar has one row) with
// [RowReader.Read], or any row range with [RowReader.ReadRows];
// [RowReader.ReadSlab] and [Dataset.ReadSlab] read any box [lo, hi) (a
// hyperslab with unit stride: only the chunks it meets are decoded;
// contiguous storage is read run by run); [Dataset.NewElementReader]
// streams the elements in C order in batches of bounded bytes whatever
// the shape (a huge single row is read in parts). The chunks a batch
// touches are read and decoded by Options.Threads goroutines (GOMAXPROCS
// by default), each copying its chunk into the batch, so memory holds one
// decoded chunk per goroutine; chunks that are one run of the batch are
// decoded straight into it, and those a batch ends inside are kept in a
// cache of at most Options.ChunkCacheBytes for the next batch. Memory
// stays bounded whatever the dataset size.
// Unwritten chunks and storage read as the fill value.
//
// # Filters
//
// [Dataset.FilterPipeline] describes a dataset's filters by registered
// name and parameters (a [FilterInfo]: "deflate(level=4)",
// "sz(...) [lossy, optional, not decodable]"); [RegisteredFilterName]
// names any id of the HDF Group's list of registered filters. zfp (32013,
// lossy) is decoded as H5Z-ZFP decodes it, by package internal/zfp. A
// dataset that needs a filter without a decoder here (a lossy one such as
// sz 32017, or an unregistered id) is refused before any data is
// read, by [Dataset.CheckFilters] and every read, with an
// [*UnsupportedFilterError] (ErrUnsupported) naming the dataset, the id
// and the registered name; its metadata stay readable and the file's
// other datasets read. An optional filter the writer skipped in every
// chunk needs no decoder.
//
// # netCDF-4
//
// netCDF-4 files (.nc, .nc4) are HDF5 files and read like any other.
// Their dimensions are HDF5 dimension scales: [Dataset.Dimensions] and
// [Dataset.DimensionNames] give a variable's dimensions (from its
// DIMENSION_LIST), [File.NetCDF] the file's dimensions and writer
// (_NCProperties, _nc3_strict), [Group.Variables] the netCDF variables in
// netCDF's order (without the dimension-only datasets netCDF-C writes for
// a dimension with no coordinate variable: [Dataset.IsNetCDFDimensionOnly]),
// [Dataset.CFAttributes] the _FillValue, units, scale_factor and
// add_offset attributes, [IsNetCDFInternalAttr] the bookkeeping
// attributes. Values are always the stored ones: no masking, scaling or
// time decoding. [File.DimensionTables] groups the one-dimensional
// variables of each group by dimension into tables ([DimTable]) read as
// packed records ([TableReader]): the columns xarray's to_dataframe gives
// (the coordinate variable first, as its index, then the group's 1-D
// variables along the dimension in netCDF's order); see DimTable for the
// details. A netCDF-3 file (magic "CDF\x01", "CDF\x02", "CDF\x05":
// [NetCDF3Version]) is refused by Open with ErrNetCDF3, not called
// malformed.
//
// Variables read as netCDF readers (netCDF4-python, xarray) read them:
// [Dataset.NetCDFShape] is as long as each unlimited dimension now is
// (a variable written for fewer records, or never written, is shorter
// in the file), [Dataset.NewNetCDFReader] reads it with the missing
// elements at [Dataset.NetCDFFill] (the _FillValue, else netCDF's
// default fill of the type; a string _FillValue widens the string dtype
// to hold it), and DimTable columns are padded the same way.
// [Dataset.NetCDFName] and [File.OpenVariable] undo netCDF-C's
// _nc4_non_coord_ prefix (a variable named like a dimension it is not
// the coordinate variable of).
//
// [NewNetCDFWriter] writes netCDF-4 files laid out as netCDF-C lays
// them out: dimension scales with CLASS, NAME, REFERENCE_LIST and
// _Netcdf4Dimid (a dimension without a coordinate variable gets
// netCDF-C's dataset without data), DIMENSION_LIST and
// _Netcdf4Coordinates on variables, _NCProperties on the root, a root
// group tracking creation order ([GroupWriter.TrackOrder]); numeric
// variables and strings (NC_STRING). One group, fixed dimensions.
//
// # Limits and safety
//
// Every address, size, count and nesting depth read from the file is
// checked against the file size and fixed limits before use; loops in
// B-trees, heaps, continuation blocks and groups are detected. Malformed
// input gives a *FormatError (errors.Is ErrFormat), valid but unsupported
// features an *UnsupportedError (ErrUnsupported; a filter without a
// decoder an *UnsupportedFilterError). Not supported: offsets
// or lengths other than 8 bytes, virtual datasets, external storage,
// filters without a decoder, fractal heaps with I/O
// filters, shared object header messages, region references. Paged data
// blocks of extensible array chunk indexes (over 131,000 chunks) are read
// but not covered by a fixture. Layout messages 1 and 2 are tested on
// files built by hand from the specification (libhdf5 1.10 reads them
// with the same values): no HDF5 library since 1.6 writes them, and
// h5py's libver='earliest' writes version 3.
//
// A File may be used from several goroutines; a RowReader may not.
//
// # Plugin filters
//
// Decoded in pure Go (no cgo, no HDF5 plugin to install): Blosc (32001,
// c-blosc 1.x and c-blosc2 chunks: blosclz, lz4, lz4hc, snappy, zlib and
// zstd, byte and bit shuffle, split and memcpyed blocks), LZ4 (32004, the
// framing of HDF5's LZ4 plugin), Bitshuffle (32008: plain, LZ4 or
// Zstandard), Zstandard (32015) and Blosc2 (32026: hdf5-blosc2's frames of
// one chunk, 1-D or b2nd blocks; shuffle, bitshuffle and delta filters;
// zero, NaN and repeated-value chunks). BloscLZ, the Blosc/Blosc2 chunk,
// frame and b2nd layouts and the bit shuffle are written from their format
// documents; LZ4, Zstandard, Snappy and zlib are pierrec/lz4 and
// klauspost/compress. Each decoder is bounded by the chunk's declared size
// (a header claiming more is an error before anything is allocated) and
// decodes the last filter straight into the caller's buffer. Not read:
// Blosc2 plugin codecs and filters (ZFP, NDLZ, bytedelta...), dictionaries
// and variable-length blocks, frames of several chunks (the filter writes
// one): valid chunks using them give an *UnsupportedError.
//
// # Writing
//
// [NewWriter] writes HDF5 files in the layout MATLAB v7.3 writes, which
// every HDF5 reader opens (the HDF5 library, h5py, hdf5storage, MATLAB):
// an optional user block (MATLAB's is 512 bytes), superblock version 0 with
// 8-byte offsets and lengths (files over 4 GiB work), version 1 object
// headers (a continuation block when attributes outgrow the space reserved
// at creation), old-style groups (v1 B-tree of symbol table nodes plus a
// local heap, any number of members), and datasets in the compact layout
// (data in the object header: automatic up to [CompactAuto] bytes),
// contiguous, or chunked with a v1 B-tree chunk index, the shuffle filter
// and one compression (DatasetOptions.Compression): deflate, which every
// reader has, or the plugin filters LZ4 (32004, the framing of HDF5's LZ4
// plugin) and Zstandard (32015, one frame per chunk), written with the
// cd_values and filter names the reference plugins store, so that h5py
// with hdf5plugin and the HDF5 tools with the plugins read them.
// Variable-length attribute data go to global heap
// collections. Data are written in the byte order of the given dtype
// (little-endian for npyio's common types); no byte is reinterpreted.
//
// Datatypes: numpy bool as h5py writes it (an int8 enum FALSE=0, TRUE=1,
// read back as bool; MATLAB's logical is uint8, so a MATLAB writer passes
// uint8); integers of 1, 2, 4, 8 bytes; floats f2, f4, f8; complex as h5py's
// compound {r, i} (pass a struct dtype with fields real and imag for
// MATLAB's form); S<n> as fixed-length NULLPAD ASCII strings, as h5py;
// U<n> (numpy's UCS-4, either byte order) converted to UTF-8 strings:
// fixed-length NULLPAD with the UTF-8 character set
// (h5py.string_dtype('utf-8', n)), n from DatasetOptions.UnicodeBytes
// (measured with [UnicodeSizer]), or variable-length
// (DatasetOptions.Strings [StringsVlen], h5py.string_dtype(); their bytes
// go to global heap collections written with each Write; a value holding
// NUL is refused, as h5py refuses it); a code point UTF-8 cannot encode (a
// surrogate) is an error; datetime64 and timedelta64 as h5py's opaque
// type tagged "NUMPY:" plus the dtype's str ([NumpyOpaqueTag]), the bytes
// unchanged; structured dtypes as compounds (subarray fields as array
// members; U fields as fixed-length UTF-8, the offsets after them moved
// by the width change); object references
// ([GroupWriter.CreateRefDataset], [RefsAttr]; an [ObjRef] holds the same
// address as the reader's [Reference]). Void, object and zero-length (S0,
// U0) dtypes are refused with an error naming the dataset, as h5py
// refuses them. Attributes: [StringAttr] (MATLAB_class),
// [NumAttr], [NumsAttr], [ArrayAttr] (any dtype above, any shape),
// [VlenAttr] and [FieldNamesAttr] (MATLAB_fields), [VlenStringsAttr]
// (h5py's str lists), [RefsAttr]; each must fit in an object header
// (64 KiB).
//
// Streaming: [DatasetWriter.Write] appends whole rows; a chunked dataset is
// cut into chunks as each block of Chunk[0] rows fills, the chunks are
// filtered by GOMAXPROCS worker goroutines (WriterOptions.Threads) and
// written in a deterministic order (the same bytes whatever the number of
// workers), so memory stays bounded by one block of chunk rows plus two
// chunks per worker. The number of rows may stay open until the end
// (DatasetOptions.Unlimited). [DatasetWriter.WriteChunk] writes whole chunks
// at chunk-grid coordinates in any order (for writers that reorder data,
// such as MATLAB's column-major transposition). Object headers, group
// tables, chunk indexes, the global heap and the superblock are written by
// [Writer.Close]: nothing in the file is valid before Close returns nil,
// and Close fails while a fixed-shape dataset misses rows.
//
// A Writer and everything it creates must be used from one goroutine at a
// time; call Close even after an error (it stops the workers). Deflate is
// klauspost/compress's at the given level: faster than zlib's, files a
// little larger; Zstandard is klauspost/compress's (zstd levels map to its
// four speeds, the level asked for is stored); LZ4 is pierrec/lz4's fast
// compressor.
package hdf5
