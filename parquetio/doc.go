// Package parquetio writes NumPy arrays (package npyio) to Apache Parquet
// and reads Parquet files back into numpy rows.
//
// # Layout
//
// Columns, names and order are arrowconv's mapping (numpy field order is
// kept; parquet-go's Group would sort it):
//
//	numpy                      Parquet
//	b1                         BOOLEAN
//	i1..i8, u1..u8             INT(8|16|32|64, signed|unsigned)
//	f2                         FIXED_LEN_BYTE_ARRAY(2) FLOAT16 (no page bounds:
//	                           parquet-go would compute them bytewise)
//	f4, f8                     FLOAT, DOUBLE
//	c8, c16                    group {real, imag} of FLOAT or DOUBLE
//	S<n>                       BYTE_ARRAY, trailing NULs dropped
//	U<n>                       STRING (UTF-8), trailing NULs dropped
//	V<n>                       FIXED_LEN_BYTE_ARRAY(n) (BYTE_ARRAY for V0)
//	M8[ms|us|ns]               TIMESTAMP(unit, isAdjustedToUTC=false)
//	M8[s|m|h], M8[k*unit]      TIMESTAMP(MILLIS), values scaled exactly
//	M8[D], M8[W]               DATE
//	other datetimes, m8        INT64 in numpy's unit (unit in the metadata)
//	struct                     one column per field; nested structs are groups
//	subarray, extra axes       LIST of the flattened C-order values
//
// NaT becomes null: a time column is OPTIONAL only when the data holds NaT.
// A datetime whose values would overflow the logical type after scaling
// (numpy allows ±2^63 seconds) is stored as INT64 in its own unit instead,
// so nothing is ever lost. Both need the data observed before writing
// ([Schema.Observe]; [WriteArray] and [WriteTable] do it by opening the
// input twice when it has time columns). That first pass reads only the
// sources holding time columns, checks ms/us/ns datetimes and timedeltas
// for NaT only (a tight loop; value ranges only where a unit conversion
// multiplies), and stops as soon as more data could not change the layout
// (every time column has shown a NaT and needs no range): for 10M rows of
// (i8, f8, f4, ?, M8[ms]) it costs about 37 ms, the reading included.
//
// The footer carries npyflow's description of the source ([MetaTable]:
// numpy descr, byte order included, shape and fortran_order), the source
// descr and shape under numpy.descr / numpy.shape, and ARROW:schema (the
// Arrow schema as pyarrow serializes it) so Arrow readers restore Float16,
// FixedSizeList sizes and the arrow.fixed_shape_tensor extension. Time
// columns appear there as they are stored (Timestamp, Date32, Int64):
// arrow-go's Parquet reader refuses a stored Duration.
//
// # Writing
//
// [Writer] fills parquet-go column writers with tight per-type loops from
// the numpy row bytes (no reflection, no per-row maps) and flushes a row
// group every Options.RowGroupRows rows itself (parquet-go does not on
// this path). A full row group is encoded while the next one fills: its
// columns are encoded in parallel by up to GOMAXPROCS goroutines (one per
// column at a time), and row groups are committed in order.
//
// Memory bound: a Writer holds at most Options.Concurrency+1 row groups of
// numpy data, 2 by default (one filling, one encoding), each at most
// RowGroupRows rows (by default 1Mi rows or 128 MiB, whichever is
// smaller); its row-group buffers grow with the rows written (doubling
// from 64 KiB, or sized to the rows left when reading an npy file), so a
// file of few rows costs memory for those rows only. On top of that come
// the encoded pages of the row groups not yet committed (compressed, about
// the size of their share of the output), one page buffer per column being
// encoded (Options.PageSize) and, for ZSTD, one encoder per encoding
// goroutine (about 2.5 MiB with the default page size: the window is the
// page size). Converting 10M rows of (i8, f8, f4, ?), 21 MiB row groups,
// peaks at about 120 MB resident.
//
// # Reading
//
// [Reader] decodes one row group at a time into numpy rows. Files written
// here come back numpy-equal (dtype, shape, values); other files are mapped
// from their Parquet types (see [Reader]); LIST columns need npyflow's
// metadata.
//
// A file's declared sizes are checked before anything is allocated by
// them (parquet-go trusts them): the schema's child counts must form one
// tree (at most 256 deep), the footer's column chunks must lie
// within the file and its row groups add up to its row count; each page
// header of a column chunk is decoded and checked before parquet-go reads
// the chunk (a page must fit in what is left of its chunk, a compressed
// page may claim at most [MaxPageSize] bytes uncompressed and no more than
// its codec can expand to, and a page at most 4Mi values or 8 per byte);
// the pages of every column must hold exactly the values of the row
// group's rows; and the row buffers grow as rows decode. npyflow's
// metadata must fit the file (rows, values per row), and a row may hold
// at most [MaxRowValues] values.
//
// Column chunks are read by npyflow rather than by parquet-go v0.32.0's
// page reader, whose LZ4 decoder returns zeros for pages compressed less
// than 3:1 (its issue #608), whose gzip and brotli decoders read to the
// end of the data whatever the page header says, and which takes a
// column's codec from its first chunk for every row group: npyflow walks
// the chunk's pages, decompresses each itself into a buffer of exactly
// its declared size (data that does not fill it exactly, or goes on
// beyond it, is corrupt; ZSTD windows are bounded by [MaxPageSize]) and
// hands it to
// parquet-go's public page decoders ((*parquet.Column).DecodeDataPageV1
// and the like) of a codec-less copy of the column. Those take parquet-go
// page header types with an unexported field, built from the format
// header by a conversion that is checked against their layout at start-up
// (if a parquet-go upgrade changes them, files are refused with an error
// saying so). This runs at the speed of parquet-go's own reader.
//
// Before a page reaches parquet-go's decoders, the encoded streams whose
// sizes parquet-go trusts are checked against the page's value count:
// RLE/bit-packed levels, dictionary indexes and RLE booleans (run headers
// only: an RLE run of 2**31 values takes five bytes), DELTA_BINARY_PACKED
// headers, and the lengths of DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY
// values (which must lie within the page, and decode to at most
// [MaxPageSize] bytes).
//
// Panics of parquet-go are converted to corrupt-data errors in two places
// only: its page decoders (DecodeDictionary, DecodeDataPageV1/V2) and the
// reading of a decoded page's values (ValueReader.ReadValues), which hold
// parquet-go code alone. parquet-go v0.32.0 indexes its buffers by values
// of the page without bounds checks (a dictionary index beyond the
// dictionary, in its amd64 lookup, panics with an index out of range), and
// checking every such value first would decode each page twice. The error
// names the column, row group and page ("values parquet-go cannot
// decode"); a panic in npyflow's own code is never recovered.
//
// Limits: a row holds at most [MaxRowValues] values over all its columns
// (the layout of a row is kept in memory, 16 bytes per value); FLOAT16
// values are written as stored on little-endian machines (swapped on
// big-endian ones); U strings with code points that UTF-8 cannot encode
// (surrogates) are refused; a Writer, Reader or Schema is not safe for
// concurrent use.
package parquetio
