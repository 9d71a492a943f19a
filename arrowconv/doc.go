// Package arrowconv converts NumPy arrays (package npyio) to Apache Arrow
// record batches, schemas, tensors and IPC files, and Arrow record streams
// back to .npy files.
//
// # Mapping (numpy -> Arrow)
//
//	numpy                      Arrow
//	b1                         Boolean (bit-packed)
//	i1..i8, u1..u8             Int8..Int64, Uint8..Uint64
//	f2, f4, f8                 Float16, Float32, Float64
//	c8, c16                    struct<real: float32|float64, imag: same>
//	S<n>                       Binary, trailing NULs dropped (numpy's semantics)
//	U<n>                       String (UTF-8), trailing NULs dropped
//	V<n>                       FixedSizeBinary(n); V0 -> Binary (empty values)
//	M8[s|ms|us|ns]             Timestamp(unit), no time zone
//	M8[D], M8[W]               Date32 (weeks times 7)
//	M8[h], M8[m]               Timestamp(s), scaled exactly
//	m8[s|ms|us|ns]             Duration(unit)
//	m8[W|D|h|m]                Duration(s), scaled exactly
//	M8/m8[k*unit]              the unit's type, values times k (exactly)
//	M8/m8 ps, fs, as           Timestamp/Duration(ns) when k is a whole number of ns
//	struct                     one column per named field (top level), Struct (nested)
//	subarray / extra axes      FixedSizeList (1 axis), arrow.fixed_shape_tensor (2+ axes)
//
// NaT becomes null. Datetime64 in years or months or without a unit,
// objects and long doubles are refused with an [UnsupportedError]; a value
// that overflows when scaled (hours to seconds, days to Date32) is refused
// with a [ValueError] wrapping [ErrRange]. Nothing is ever rounded.
//
// Axis 0 of an array is the row; the remaining axes are flattened in
// logical C order, whatever the file's fortran_order. Every Arrow field
// carries its numpy descr in its metadata ([MetaDescr]), so [DTypeFor] and
// [NPYWriter] restore the exact numpy type, byte order included.
//
// # Reading
//
// [NewRecordReader] streams an npyio.Reader as record batches of bounded
// size. [NewArrayRecordReader] and [NewRecordBatch] convert a whole array
// (npyio.ReadFile, or npyio.Map for a memory-mapped file) and reference its
// bytes without copying for native-order fixed-width columns that are
// contiguous (plain numeric arrays, and datetime64 in s/ms/us/ns, where only
// a validity bitmap is built); bit-packing, byte swapping, strings, scaled
// datetimes and strided struct fields are copied.
//
// [NewTensor] views a whole numeric array as an arrow/tensor with numpy's
// strides (a Fortran-order file is a column-major tensor, no copy).
//
// # Mapping (Arrow -> numpy)
//
// [MapSchema] is the one Arrow -> numpy mapping, for records from any
// producer (pyarrow, Polars, DuckDB, Spark through Arrow, arrow-go, Arrow
// JS, Parquet read through pqarrow):
//
//	Arrow                                  numpy
//	int8..64, uint8..64                    same-width ints
//	float16/32/64                          f2/f4/f8
//	bool                                   b1
//	utf8, large_utf8, utf8_view            U<n>, n the widest value
//	binary, large_binary, binary_view      S<n>
//	fixed_size_binary(n), arrow.uuid       V<n> (S<n> on request)
//	decimal32/64/128/256(p, s)             f8, correctly rounded from the exact
//	                                       decimal; or int64 * 10^s (p <= 18),
//	                                       field "<name>_x1e<s>"
//	date32, date64                         M8[D], M8[ms]
//	timestamp(unit, tz or none)            M8[unit], UTC instants
//	time32/time64(unit)                    m8[unit] since midnight
//	duration(unit)                         m8[unit]
//	interval months/day_time/month_day_nano  struct (months) / (days, milliseconds) /
//	                                       (months, days, nanoseconds); a column
//	                                       alone keeps its name: a record of
//	                                       one field holding the struct
//	struct                                 nested structured field; a column
//	                                       alone keeps its name too (as does a
//	                                       list of structs or intervals)
//	fixed_size_list, lists of one length   subarray field; lists of lists
//	  (at any depth, in structs)           nested subarrays
//	dictionary<T> (deltas, replacements)   the decoded T
//	map, union, run-end encoded, null,     refused, naming the column (and, for
//	lists of varying length                lists, the first row that differs)
//
// Nulls become NaN in floats and NaT in datetimes and timedeltas. In
// other columns a null is refused with a [*NullError] (column, null
// count, first row) unless [MapOptions] gives the column a fill value or a
// validity field ("<name>_valid", false where null; a struct column's
// nullable fields x, at any depth, get "x_valid" right after them inside
// the struct, as parquetio names them). A list column of one length
// named for a validity field (or, with ValidityFields, one whose elements
// are nullable) also gets "<name>_items_valid", a bool subarray of the
// list's shape, false where an element (or the list) is null; its null
// elements become zeros (or NaN, NaT, the fill value) instead of a
// refusal. A null list of floats or times is NaN or NaT in every place. String widths and
// list lengths not fixed by options or numpy metadata come from a pass
// over the data ([Mapping.Scan]; [ConvertIPC] rereads a file or spools a
// pipe for it). [DescribeSchema] reports each column's mapping and
// refusal for inspection. [Mapping.Encode] writes numpy rows with bulk
// copies and per-type loops (no per-value interfaces), in cache-sized
// tiles; [WriteMappedNPY] overlaps reading, encoding and writing.
//
// The Mapping is the one encoder: [NewRowEncoder], [DTypeFor],
// [NPYWriter] and [WriteNPY] build one with default options for schemas
// whose widths are known up front (numpy metadata, or
// [WriteOptions.StringChars]), where struct<real, imag> of floats is a
// complex and a null numpy cannot hold is a [ValueError].
//
// # Writing
//
// [NPYWriter] and [WriteNPY] write a record stream as a structured .npy (or
// a plain one for a single column whose type is not a record) through npyio's streaming writer.
// [RowEncoder] turns record batches (or row ranges of them) into numpy
// rows in memory, native byte order and C order, for callers that write
// .npz members or feed pipelines.
// [NewIPCWriter], [WriteIPC] and [NewIPCReader] handle the Arrow IPC file
// format (Feather v2, .arrow/.feather) and stream format, with optional zstd
// or lz4 compression; [DefaultIPCOptions] gives the ecosystem's defaults
// per file name (.arrow and .arrows uncompressed as pyarrow.ipc and Polars
// write them, .feather LZ4 as pyarrow.feather does). An IPC file's schema
// is read from its footer (Arrow JS writes none at the start); file
// bodies are read into recycled buffers. Compressed record batches are
// read and decoded on several goroutines and handed out in order
// ([NewIPCReaderThreads]; uncompressed ones and inputs with dictionaries
// on one). arrow-go's reader swaps
// big-endian IPC data to native order (tested on files and streams as
// arrow-go writes them on a big-endian machine; see gen_foreign.go). [ReadIPCInfo] gives the schema and row count of an
// IPC file or stream from its metadata alone.
//
// IPC input is untrusted: [NewIPCReader] reads the IPC messages itself
// and checks every length in them before arrow-go sees them or anything is
// allocated: metadata and bodies against the input's size, buffers
// against their body and against the lengths the schema implies, and
// compressed buffers against what their codec can expand them to. It
// refuses a single buffer above [MaxIPCBuffer], validates each record
// batch (array.ValidateRecordFull) and reports contradictions as a
// [*CorruptError] ("corrupt IPC data: ..."), never a panic. The layout
// check covers the types numpy data maps to, lists, maps, structs and
// dictionaries; for other layouts (views, unions, run-end encoding) it
// checks buffers against the body and leaves the rest to the validation.
//
// # Memory and concurrency
//
// All Arrow memory comes from the memory.Allocator passed in. Zero-copy
// arrays do not own the bytes they view: keep an npyio.MappedArray open
// until every record built from it is released. Readers and writers are
// not safe for concurrent use. [FixedShapeTensorType] is registered with
// arrow's extension registry when the package is loaded.
//
// Where things live: schema.go and tensor*.go numpy to Arrow types and
// tensors, reader.go record batches from .npy data, mapping.go and rows.go
// the one Arrow-to-numpy mapping and its row encoder, npywriter.go .npy
// files from record streams, ipc*.go Arrow IPC files and streams (reading,
// memory mapping, copies as stored, ConvertIPC), errors.go the errors.
package arrowconv
