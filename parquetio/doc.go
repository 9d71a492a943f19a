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
// Other nulls come from bool validity columns named by Options.Nulls
// (a MATLAB table's <missing> strings): the column is OPTIONAL, null where
// its validity column is false, and the validity column is not written.
// A datetime whose values would overflow the logical type after scaling
// (numpy allows ±2^63 seconds) is stored as INT64 in its own unit instead,
// so nothing is ever lost. Both need the data observed before writing
// ([Schema.Observe]). [WriteArray] and [WriteTable] writing to a file
// ([Restartable]) plan the time columns from the first row group and
// observe each later one before encoding it, so the input is read once;
// if a later row group needs another layout (a first NaT, a value out of
// range), the file is truncated and written again after an observation
// pass, which is what they always do for other outputs (opening the
// input twice). That pass reads only the sources holding time columns,
// checks ms/us/ns datetimes and timedeltas for NaT only (a tight loop;
// value ranges only where a unit conversion multiplies), and stops as
// soon as more data could not change the layout (every time column has
// shown a NaT and needs no range): for 10M rows of (i8, f8, f4, ?,
// M8[ms]) it costs about 37 ms, the reading included. The file is the
// same either way.
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
// columns are encoded and compressed in parallel, one goroutine per column
// at a time, at most Options.Threads (GOMAXPROCS by default) over all the
// row groups being encoded, and row groups are committed in order, so the
// file is the same bytes for every Threads and Concurrency. A table of
// fewer columns than threads encodes several row groups at once by
// default (Options.Concurrency: threads/columns, at most 4 and 256 MiB).
//
// Memory bound: a Writer holds at most Options.Concurrency+1 row groups of
// numpy data, 2 by default where the table has as many columns as there
// are threads (one filling, one encoding), each at most
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
// from their Parquet types through Arrow: each column is read as the Arrow
// type arrow-go's pqarrow gives it, and mapped by arrowconv.MapSchema, the
// one Arrow -> numpy mapping, so that a Parquet file and the Arrow table
// pyarrow or DuckDB would make of it convert alike (ENUM and JSON are
// text here, and an annotation npyflow does not interpret leaves the
// physical type):
//
//	Parquet                              numpy
//	BOOLEAN                              b1
//	INT(8..64, signed|unsigned), legacy  i1..i8, u1..u8
//	  INT_8..UINT_64; plain INT32/INT64  i4, i8
//	FLOAT16, FLOAT, DOUBLE               f2, f4, f8
//	DECIMAL(p,s) on INT32, INT64,        f8, correctly rounded from the exact
//	  FIXED_LEN_BYTE_ARRAY, BYTE_ARRAY   decimal (ties to even); or, with
//	                                     ReadOptions.Decimal, exact i8 holding
//	                                     value*10^s, field "<name>_x1e<s>" (p <= 18)
//	DATE                                 M8[D]
//	TIMESTAMP(ms|us|ns), any UTC flag    M8[ms|us|ns]
//	INT96 (Spark, Impala)                M8[ns]; M8[us] or M8[ms] when values
//	                                     lie beyond M8[ns]'s years (see below)
//	TIME(ms|us|ns)                       m8[ms|us|ns] (time since midnight)
//	STRING, ENUM, JSON                   U<n>, n the longest value
//	BYTE_ARRAY                           S<n>, n the longest value
//	FIXED_LEN_BYTE_ARRAY(n), UUID        V<n>
//	group                                nested struct
//	LIST (3- or 2-level, or a repeated   subarray field, when every list at
//	  primitive) at any depth: in          its place has one length and none
//	  structs, in lists (nested            is null; lists of lists are nested
//	  subarrays), arrow-rs's               subarrays (fixed_size_list<
//	  fixed_size_list                      fixed_size_list<i4, 2>, 3> is
//	                                       (3, 2) i4)
//	repeated group (the legacy 2-level   subarray of structs, as a LIST
//	  list of old parquet-mr and Hive;
//	  a repeated LIST group is a list
//	  of lists, old_list_structure)
//	INTERVAL (top level)                 struct (months, days, milliseconds), u4
//	                                     each; a file of that one column is a
//	                                     record of one field named after it
//	NULL (Arrow's Null type)             refused, naming the column: it has no
//	                                     values (its physical INT32 would be
//	                                     made-up zeros)
//	MAP                                  refused, naming the column
//
// INT96 timestamps take their unit from the data: datetime64[ns] when
// every value fits it, else the finest of datetime64[us] (Spark's
// precision) and datetime64[ms] whose range holds every value, if no value
// has finer digits (else the column is refused naming two such values);
// Spark's encoding of years near 290000, which wraps int64 microseconds,
// reads as Spark reads it. A logical type this reader does not know (a
// newer writer's) is ignored and the physical type read, as the format
// says; a footer row count the row groups do not hold is overruled by
// the row groups (as DuckDB does); both are warnings ([Reader.Warnings]).
// The longest string is found by a first pass over those columns alone,
// the length of lists by a pass over their levels, one pass per list
// place (a list inside a struct or a list is measured on its own; lists
// of varying length are refused naming the column, the place and the
// first row that differs; a null or empty list inside a struct or a list,
// which numpy's layout has no place for, naming its row).
// Nulls become NaN in float columns and NaT in time columns; in any other
// column a null is refused with a [*NullError] naming the column, the
// first null row and the null count of the statistics, unless
// [ReadOptions] gives a fill value or a validity field ("<name>_valid",
// a bool field after the column, false where it is null; a struct column
// also gets "x_valid" after each OPTIONAL field x inside it, and a list
// column of one length is null in a row where the list is; such a list
// also gets "<name>_items_valid", a bool subarray of its shape, false
// where an element or the list is null, the null elements then zeros
// instead of a refusal; with "*" only lists of OPTIONAL elements get it).
// A null list row holds NaN, NaT, the fill value or zeros in every place. A column
// declared OPTIONAL that holds no null converts as a REQUIRED one. [Describe]
// gives all of this from the footer alone, for inspect.
//
// Column chunks are decoded by arrow-go's Parquet column readers
// (parquet/file), which cover every encoding (PLAIN, RLE and the legacy
// BIT_PACKED levels, PLAIN_DICTIONARY and RLE_DICTIONARY, DELTA_BINARY_PACKED,
// DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT), data
// pages v1 and v2, and stop at each page's value count (DuckDB pads its
// last bit-packed run of levels and dictionary indexes beyond it). They
// are called page by page (a page that stops yielding values before its
// value count is corrupt: arrow-go's own batch loop would spin). Their
// values and levels go straight into the numpy rows: for a table of
// several columns read with [Reader.Next], into the records themselves.
// Decoding is parallel on at most ReadOptions.Threads goroutines
// (GOMAXPROCS by default). Row groups of up to 128Ki rows (DuckDB writes
// 122,880) are decoded a window at a time: consecutive row groups, at
// most 16 MiB of numpy rows and of column chunks (2 MiB a thread beyond
// 8 threads, at most 64 MiB), each (row group, column) pair a task taken
// by the next free goroutine, the chunks' page checks too; the next
// window is decoded while the caller reads this one (read-ahead of one
// window, so two windows of rows are held at most).
// A larger row group is decoded alone, its columns in parallel in steps
// of 64Ki rows, so the row buffers grow with the rows decoded. Validity
// fields ([ReadOptions].Validity) read a row group at a time. The values
// are the same for every Threads; after an error no task starts, and the
// error returned is that of the first task, in file order, that failed.
// parquet-go is the writer only.
//
// Page CRCs (CRC-32 of the stored page bytes, which parquet-go and
// parquet-mr write) are verified when a page header has one: arrow-go does
// not verify them; a mismatch is a corrupt-data error naming the column and
// page. The page checks and arrow-go share one read of a column chunk
// while the chunks held for a row group total at most 128 MiB (the row
// groups npyflow writes); beyond that, the checks read a chunk's page
// headers alone and its CRCs are checked on arrow-go's read of it, before
// arrow-go decodes a page.
// Byte-array values are copied out of a page's buffer before the
// next page of the same batch is read (arrow-go reuses the buffer).
//
// arrow-go decodes a page into a buffer of the size its header claims;
// npyflow registers its own decoders for SNAPPY, GZIP (several members
// included), ZSTD, BROTLI, LZ4_RAW and the legacy LZ4 (Hadoop-framed, as
// parquet-mr and Arrow C++ write it, or a bare LZ4 block; arrow-go has no
// codec for it) with arrow-go (compress.RegisterCodec:
// encoding stays arrow-go's), which decompress into exactly that buffer
// and call data that does not fill it exactly, or goes on beyond it,
// corrupt; ZSTD output is bounded by [MaxPageSize] whatever a frame claims.
//
// The footer and the page headers are decoded by npyflow's own Thrift
// decoder (thrift.go, footer.go), which checks every list length and
// binary length against the bytes that remain before it allocates, so a
// footer of n bytes costs O(n) whatever it claims; arrow-go then decodes
// the same checked footer bytes. A file's declared sizes are checked
// before anything is allocated by them: the schema's child counts must
// form one tree (at most 256 deep),
// the footer's column chunks must lie within the file (those of row
// groups of no rows are never read); each page header of a column chunk is decoded
// and checked before the chunk is read (a page must fit in what is left of
// its chunk, a compressed page may claim at most [MaxPageSize] bytes
// uncompressed and no more than its codec can expand to, a page stored
// uncompressed exactly its stored size, and a page at most 4Mi values or 8
// per byte); the pages of every column must hold exactly the values of the
// row group's rows. npyflow's metadata must fit the file (rows, values per
// row), and a row may hold at most [MaxRowValues] values. Panics of
// arrow-go's decoders are turned into corrupt-data errors naming the
// column and row group; a panic in npyflow's own code is never recovered.
//
// Limits: a row holds at most [MaxRowValues] values over all its columns
// (the layout of a row is kept in memory, 16 bytes per value); FLOAT16
// values are written as stored on little-endian machines (swapped on
// big-endian ones); U strings with code points that UTF-8 cannot encode
// (surrogates) are refused; a Writer, Reader or Schema is not safe for
// concurrent use.
//
// Where things live: writer.go, schema.go, meta.go and copy.go writing;
// reader.go, decode.go, decompress.go, dictpage.go, pagebuf.go, nulls.go,
// validity.go and int96.go reading; footer.go and thrift.go the file
// metadata; derive.go the numpy dtypes of other tools' files (through
// arrowconv's mapping); describe.go
// Describe; codec*.go the compression codecs; options.go read options.
package parquetio
