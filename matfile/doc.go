// Package matfile reads (and, in write*.go, writes) MATLAB MAT-files:
// Level 5 (MATLAB's save -v6, and -v7 with zlib-compressed variables) and
// v7.3 (HDF5, through the pure-Go hdf5 package, with MATLAB's and
// hdf5storage's conventions). Nothing is ever executed or unpickled.
//
// # Reading
//
// [Open] (an io.ReaderAt and its size) or [OpenFile] return a [File].
// [File.Version] is "5" or "7.3"; [File.SaveFormat] names it as MATLAB's
// save flag ("-v6", "-v7", "-v7.3"). [File.Variables] lists the top-level
// variables (name, class, MATLAB size, bytes, compression) without reading
// their data. [File.Walk] (or [File.WalkVariables] for some of them)
// flattens every variable into numpy arrays, each a [Var] with an
// npyio.Header and a reader of its data; [ReadArrays] reads a whole file
// into memory as npyio.NamedArrays.
//
// Paths follow MATLAB's syntax: "x" for a variable, "s.a" for a field of
// a 1x1 struct, "s(2).a" for a field of element 2 of a struct array (the
// 1-based linear, column-major index), "c{3}" for element 3 of a cell,
// nesting as in "s.c{2}.x".
//
// Values:
//   - numeric classes keep their class: double f8, single f4, int8..uint64
//     i1..u8; Level 5 data stored in a smaller type (MATLAB writes a double
//     array of small integers as miUINT8) is converted to the class, and a
//     value the class cannot hold exactly is an error;
//   - logical is bool; complex double and single are c16 and c8 (complex
//     integer arrays have no numpy type: skipped with a warning);
//   - shapes are MATLAB's (at least 2-D) and the data is column-major
//     (Header.FortranOrder), so a[i, j] is MATLAB's a(i+1, j+1);
//   - char arrays become numpy U strings along the last dimension, one per
//     row of a 2-D array (shape (m,) for an m x n char, width max(n, 1)),
//     as scipy.io.loadmat(chars_as_strings=True) returns them; UTF-16
//     surrogate pairs (characters outside the BMP, which MATLAB stores
//     so) become one character, the width still counting code units; a
//     pair split by the array's shape stays two lone surrogates, as MATLAB
//     holds it; trailing NULs are not kept;
//   - sparse matrices become dense arrays (Var.Sparse is set), refused
//     above Options.MaxSparseBytes; duplicate entries add up as in
//     scipy's toarray; a logical one is bool (in Level 5 MATLAB stores its
//     values one byte each under an miDOUBLE tag);
//   - a v7.3 struct's field names are its MATLAB_fields attribute or, for
//     a long list (MATLAB: from about 4096 characters of names), the
//     dataset in #refs# that attribute refers to;
//   - empty arrays keep their MATLAB shape (0x0, 1x0, 0x3 ...), including
//     v7.3's MATLAB_empty, where the dataset holds the shape (see
//     [EmptyShapeOrder] for hdf5storage 0.1.19's reversed order);
//   - an empty cell or struct (no elements), or a struct with no fields,
//     becomes a marker (Var.Marker, Class "cell" or "struct"): an empty
//     float64 array of the container's shape, with a trailing 0 dimension
//     for a struct without fields but with elements;
//   - MATLAB's classdef objects (string, datetime, table ...) are decoded
//     from the file's object subsystem, see "MATLAB objects" below;
//   - function handles, old-style (class 3) objects, Java and COM objects
//     and graphics objects have no numpy form: each is skipped with one
//     [Warning] naming its class, or is an [UnsupportedError] with
//     Options.Strict.
//
// Octave 7 writes a logical sparse matrix as a uint8 logical array holding
// the sparse index and value subelements; it is read as the sparse logical
// matrix it stands for.
//
// # Memory and limits
//
// A Level 5 variable holds at most Options.MaxVariableBytes (2 GiB by
// default, the format's own limit for v7): a zlib stream declaring more
// is refused, and buffers grow with the data actually present, so a size
// that lies cannot force an allocation. A large real numeric or logical
// variable (over 64 KiB uncompressed, over 1 MiB inflated) streams when
// its Var is opened: read from the file, or inflated, and converted to
// its class in batches of 128K elements; other variables (complex, char,
// cells, structs, sparse) are read whole.
//
// A v7.3 numeric variable is not read until its Var is opened and then
// streams through the hdf5 package's element reader in batches of about
// 4 MiB in storage order (column-major), whatever its shape: a MATLAB
// vector, which is a single HDF5 row, streams too. [Var.OpenRowMajor]
// delivers the same array in C order (what a table, a C-order .npy or a
// row-by-row consumer wants) in bands of about 8 MiB of rows: each band
// is one HDF5 hyperslab (MATLAB rows are the last HDF5 dimension), which
// decodes only the chunks it meets, reversed in memory. Memory is a few
// bands plus the hdf5 chunk cache (64 MiB at most), never the variable:
// a 256 MiB matrix converts to .npy with a peak RSS of about 85 MiB.
// [Var.Array] reads a v7.3 array in one call (bounded by
// Options.MaxVariableBytes). Char arrays, cells, structs and sparse
// matrices are read whole. Read row-major, a large uncompressed Level 5
// numeric variable (v6) is read band by band from the file (one read per
// column and band). A compressed one (v7) is one zlib stream in
// column-major order, inflated in its own goroutine a few 1 MiB buffers
// ahead of the consumer (the conversion, and the reorder or the writing,
// run meanwhile on another core), so [Var.Open] streams it in bounded
// memory. Read row-major, a 2-D one of at most 64 MiB is scattered block
// of columns by block into a C-order buffer of the whole variable (on
// Linux advised to transparent huge pages); a larger one, or one of more
// dimensions, is inflated to a temporary file (os.TempDir, unlinked at
// once where the system allows it) and read back band by band as a v6
// one: memory stays bounded, at the cost of writing and reading the
// inflated data once more.
//
// # MATLAB objects
//
// MATLAB R2016b and later store string, datetime, duration,
// calendarDuration, categorical, table, timetable, containers.Map,
// dictionary, enumerations and classdef objects as MCOS objects: a
// variable holds object ids and a class id, and the object subsystem
// (the unnamed uint8 element at the header's subsystem offset in a
// Level 5 file, #subsystem#/MCOS in a v7.3 file) holds the class and
// object tables and each object's saved properties. The subsystem is
// read once, when the first variable that needs it is read; a file
// without objects never reads it. Objects read the same from Level 5
// and v7.3, at the top level, in struct fields, in cells and inside
// other objects. Their numpy forms, and the Parquet/Arrow form a
// converter gives them ([Var.Valid] and [Var.Meta] keep what numpy
// cannot say):
//
//	MATLAB            numpy (Var, Column)                      Parquet / Arrow
//	string            U<n>, n the longest (code points, >= 1);  STRING / utf8;
//	                  <missing> is "" with Valid false          <missing> null
//	datetime          datetime64 of the wall-clock values, or   TIMESTAMP without / with a
//	                  with a time zone of the UTC instants      zone (Meta.TimeZone)
//	                  (Meta.TimeZone); NaT is NaT
//	duration          timedelta64; NaN is NaT                   INT64 in its unit / duration
//	calendarDuration  struct (months i4, days i4, millis i8);   the same struct
//	                  a NaN part: zeros, Valid false
//	categorical       U<n> of the category names; <undefined>   dictionary-encoded STRING
//	                  is "" with Valid false; Meta.Categories   (the categories in order)
//	                  in order, Meta.Ordered
//	enumeration       U<n> of the member names                  STRING
//	table, timetable  one structured array of shape (rows,):    one table, a column per
//	                  a field per variable (a timetable's row   field (Meta.Table)
//	                  times, a table's row names first)
//	containers.Map,   a structured array of rows (key, value)   a two-column table
//	dictionary        when keys and values are scalars of one
//	                  type each
//	classdef object   the struct of its saved properties (class
//	(value, handle)   defaults included, dynamic properties by
//	                  name), as struct(obj) gives; a Warning
//	                  (Kept) names the class once
//
// datetime64 and timedelta64 take the finest unit of ns, us, ms and s
// whose range holds every value: ns for times between the years 1678
// and 2262. MATLAB's double milliseconds are rounded to it (in a unit
// coarser than ns, a value that was not whole is reported by a Warning
// with Kept set).
//
// Tables ([Table], [Column]): a table variable of N rows becomes a
// column: N-by-1 variables scalar columns, N-by-k ones subarrays (k,);
// string, categorical, cellstr and char-matrix variables text (a char
// matrix one string per row, trailing blanks removed as cellstr removes
// them); nested tables and struct arrays (or cells of 1x1 structs of the
// same fields) nested structs. A timetable's row times are given, or
// computed from a start time and a sample rate or a time step (a
// duration, or a calendarDuration added in calendar months and days, as
// MATLAB adds them; a zoned start stepped by calendar units is refused).
// A variable with no column form (a cell of mixed types, classdef
// objects) is left out of the table with a Warning naming the table and
// the variable, and listed in Table.LeftOut (TableInfo.LeftOut).
// [File.ReadTable] reads a table, timetable, map or dictionary as a
// Table, and also a 1x1 struct whose fields all have N rows
// (struct2table's layout), its fields as columns named without the
// variable's name. [File.Variables] gives each object variable's class
// and true size (a 3x1 string is 3x1, a table rows by variables) and, in
// [VarInfo.Table], a table's row count and columns.
//
// Limits: a class the package does not know reads as a classdef object;
// an array of several objects of a built-in class (MATLAB keeps one
// object per array), a map or dictionary whose keys or values are cells,
// or are not scalars of one type, and an unconfigured dictionary are
// skipped with a Warning; timeseries and function-handle workspaces are
// skipped; only the MCOS type system is read (Java and COM objects are
// skipped; in a v7.3 file, where they carry MATLAB_object_decode 3 like
// MCOS objects but hold serialized bytes or references, [File.Variables]
// gives them MATLAB's size, 1x1). Subsystem metadata of versions 2 to 4 is read (4 is what
// MATLAB R2021 and later write).
//
// # Damaged input
//
// Each variable is read on its own: a variable that cannot be read (a
// damaged element or dataset, a reference cycle, an object whose
// reference points outside the subsystem, a damaged subsystem, a value
// over a limit) is skipped with a [Warning] whose Err is the error, and
// the other variables read; [File.Variables] lists it with VarInfo.Err.
// With Options.Strict the error is returned instead. Damage that hides
// the variables themselves (the Level 5 element chain, the v7.3 root
// group) is an error of the file. Every count and length read from the
// subsystem is checked against the bytes that hold it, text padded to
// its longest string against Options.MaxVariableBytes, and the values
// one variable's objects expand to (objects may share objects, handle
// objects may refer back) against four times Options.MaxElements.
//
// Nesting depth (Options.MaxDepth), the number of cell and struct
// elements per variable (Options.MaxElements) and reference cycles in
// v7.3 files are checked. Malformed files give a [*FormatError] naming
// the file, the variable and the offset; limits a [*LimitError] naming
// the option to raise.
//
// # Writing
//
// [NewWriter] (an io.WriteSeeker and [WriteOptions]) returns a [Writer];
// [Writer.WriteArray] writes an array held in memory,
// [Writer.CreateVariable] a variable whose C-order rows arrive in batches
// ([VarWriter.Write], then Close; a row count of -1 when it is not known
// yet), [Writer.WriteReader] streams an npyio.Reader and
// [Writer.WriteNPZ] every member of an .npz. Nothing is valid before
// [Writer.Close] returns nil.
//
// WriteOptions.Version is MATLAB's save flag (the command line's
// --mat-version):
//   - "7.3" (the default): an HDF5 file through package hdf5, in the
//     layout MATLAB writes (superblock 0 after a 512-byte user block,
//     old-style groups) with hdf5storage's matlab_compatible conventions
//     (and MATLAB's where they differ): the user block holds the 116-byte
//     header text (platform naming npyflow and its version, the creation
//     date) and the version and endian bytes; every variable has
//     MATLAB_class; dimensions are reversed, so a MATLAB m-by-n array is an
//     HDF5 dataset of shape (n, m) holding the column-major data and
//     MATLAB and hdf5storage see numpy's shape; logical is uint8 with
//     MATLAB_int_decode 1; complex a compound of "real" and "imag"; char
//     uint16 UTF-16 code units with MATLAB_int_decode 2 (see strings
//     below); an empty array is a uint64 dataset holding its MATLAB
//     size in MATLAB's order, with MATLAB_empty 1 (an empty complex array
//     reads back real: the convention has no place for complexity);
//     structs are groups with MATLAB_class "struct" and MATLAB_fields.
//     Datasets of up to 4 KiB are compact; larger ones are chunked
//     (chunks of at most 1 MiB) and deflated at level 3, MATLAB's default,
//     on all cores, unless WriteOptions.NoCompression (--compression
//     none). No size limit.
//   - "7": Level 5, each variable one zlib stream (miCOMPRESSED),
//     compressed in parallel blocks. A variable is assembled whole in
//     column-major order first: in memory up to 64 MiB, else in a
//     temporary file (WriteOptions.TempDir), each batch of rows written
//     to its place in every column, then compressed from the file. At
//     most 2 GiB per variable (MATLAB's own limit for -v7).
//   - "6": Level 5 uncompressed. Variables without char data are written
//     in place (headers first, each batch of rows seeked to its place in
//     every column), so they stream in bounded memory; char data (whose
//     storage type depends on all of it) is assembled whole as v7's
//     variables are. At most 2 GiB per variable.
//
// Level 5 stores numeric data in its class's own type, logical as
// miUINT8 with the logical flag, complex as the real part then the
// imaginary part, and char data as miUTF8 when it is all ASCII, miUTF16
// otherwise.
//
// Strings: char data is UTF-16 code units in every version, as MATLAB
// stores it: a character outside the BMP (an emoji) is a surrogate pair,
// and the last dimension counts code units, so a string with such
// characters is that many units longer (["a😀b", "xy"] is a 2x4 char
// array, "xy" padded with two spaces); the reader joins the pairs again.
// The width is known once every string has been seen: [Writer.WriteArray]
// looks at the whole array, [Writer.CreateVariable] spools a variable
// holding strings to a temporary file (WriteOptions.TempDir) first, as it
// does rows of unknown count. MATLAB, Octave and hdf5storage read such
// files; scipy 1.10 refuses surrogate pairs in Level 5 files, MATLAB's
// own as well ("buffer is too small for requested array").
//
// The mapping from numpy (all versions):
//   - bool is logical, int8..uint64 keep their class, float16 becomes
//     single (exact), float32 single, float64 double, complex64 and
//     complex128 complex single and double;
//   - U<n> and S<n> strings are char arrays: an array of shape S of
//     n-character strings is a char array of shape S+(n) (a 0-d string is
//     a 1xn row), shorter strings padded with spaces as MATLAB's char()
//     pads them (numpy's trailing NULs are that padding; a NUL inside a
//     string is kept, char(0), as MATLAB and hdf5storage keep it); S<n>
//     bytes must be ASCII, as hdf5storage requires;
//   - datetime64 is double POSIX seconds since 1970-01-01 and
//     timedelta64 double seconds (NaT is NaN): MATLAB uses them with
//     datetime(x, 'ConvertFrom', 'posixtime') and seconds(x). Each value
//     is numpy's t / np.timedelta64(1, 's'): the count times the unit's
//     whole multiple, divided once by an exact power of ten (or its
//     divisor, 100 for [10ms]), so it is the double nearest the exact
//     value whenever that product is below 2^53 (every realistic time in
//     us and coarser units) and at most one ulp from it otherwise (ns
//     times past April 1970); round(x * 10^k) gives a count of 10^-k s
//     back below 2^51. Strict refuses both; month and year timedeltas and
//     generic units are refused;
//   - a structured array (a Parquet or Arrow table) becomes a 1x1 struct
//     whose fields hold the columns: N records give N-by-1 column vectors
//     (what struct2table turns into a table), a field of subarray shape
//     (k,) an N-by-k matrix; nested structured fields are nested 1x1
//     structs. A struct array of N elements would be N HDF5 objects, so
//     records are not written as one;
//   - shapes: numpy's shape is MATLAB's size; a 0-d array is 1x1, a 1-D
//     array of n elements a 1xn row vector (scipy's and hdf5storage's
//     default oned_as='row'), except struct fields, which are columns;
//   - refused, naming the variable: object arrays, void without fields,
//     long double, structured fields with a subarray shape of records
//     (struct arrays), and anything else MATLAB has no class
//     for;
//   - names: variables and struct fields must be MATLAB identifiers
//     (a letter, then letters, digits and underscores, at most 63
//     characters, not a keyword; [ValidName]); [CheckNames] checks a whole
//     .npz at once, listing every offending name, or renames them
//     (WriteOptions.RenameInvalid with [MakeValidName]'s rules, each
//     rename reported through OnRename and [Writer.Renames]).
//
// Memory: v7.3 holds one band of chunks per field (the chunks' extent
// along numpy's axis 0 times the other dimensions, laid out column-major
// and cut into chunks), v6 one batch, v7 and v6 char data a variable of
// up to 64 MiB, or of a larger one a band of at most 16 MiB (or one row
// when a row is larger) and a tile of at most 16 MiB (whose
// column-major data goes to a temporary file in WriteOptions.TempDir,
// which needs room for it: at most 2 GiB, char data 4 bytes per
// character); a row count of -1 spools the rows to a temporary file
// there first. Temporary files are unlinked as soon as they are
// created where the system allows it (Unix), so none is left behind
// even when the process is killed; elsewhere they are removed when the
// variable ends, with an error or not.
package matfile
