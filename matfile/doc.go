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
//     surrogate pairs become one character; trailing NULs are not kept;
//   - sparse matrices become dense arrays (Var.Sparse is set), refused
//     above Options.MaxSparseBytes; duplicate entries add up as in
//     scipy's toarray;
//   - empty arrays keep their MATLAB shape (0x0, 1x0, 0x3 ...), including
//     v7.3's MATLAB_empty, where the dataset holds the shape (see
//     [EmptyShapeOrder] for hdf5storage 0.1.19's reversed order);
//   - an empty cell or struct (no elements), or a struct with no fields,
//     becomes a marker (Var.Marker, Class "cell" or "struct"): an empty
//     float64 array of the container's shape, with a trailing 0 dimension
//     for a struct without fields but with elements;
//   - function handles, objects (old-style and classdef, MATLAB's string,
//     table, datetime ...) and the #subsystem# data that stores them have
//     no numpy form: each is skipped with one [Warning] naming its class,
//     or is an [UnsupportedError] with Options.Strict.
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
// matrices are read whole; so is a Level 5 variable read row-major
// (OpenRowMajor reorders it in memory, band by band).
//
// Nesting depth (Options.MaxDepth), the number of cell and struct
// elements per variable (Options.MaxElements) and reference cycles in
// v7.3 files are checked. Malformed files give a [*FormatError] naming
// the file, the variable and the offset; limits a [*LimitError] naming
// the option to raise.
package matfile
