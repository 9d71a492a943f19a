// Package gonumconv moves NumPy arrays (.npy, read and written by
// [github.com/npyflow/npyflow/npyio]) in and out of gonum matrices, and
// provides two analysis steps built on gonum/stat that work batch by batch:
// [Describer] (count, mean, std, min, quantiles, max per column) and
// [PCAFitter] / [PCA] (principal components fitted with stat.PC, then rows
// projected onto k components).
//
// # Reading
//
// The functions taking an [*npyio.Array] turn a whole array into a matrix:
//
//	function    array                   result          no copy when
//	Dense       2-D real                *mat.Dense      float64, C order
//	Matrix      2-D real                mat.Matrix      float64 (C order: *Dense;
//	                                                    Fortran: mat.Transpose of a *Dense)
//	Vec         1-D real                *mat.VecDense   float64
//	CDense      2-D complex             *mat.CDense     complex128, C order
//	CMatrix     2-D complex             mat.CMatrix     complex128 (Fortran: mat.CTranspose)
//	Sym         square, symmetric       *mat.SymDense   float64, either order
//	Tri         square, triangular      *mat.TriDense   float64, C order
//
// "No copy" means the matrix is a view: its backing slice is the Array's
// Data. Writes through the matrix change the Array and the other way round,
// and the matrix is valid exactly as long as the Array's Data is:
//
//   - for an Array from [npyio.ReadFile], [npyio.ReadArray] or
//     [npyio.ReadArrayAt], Data is ordinary Go memory and the view stays
//     valid for as long as it is referenced;
//   - for an Array inside an [npyio.MappedArray] that reports Mapped, Data
//     is the file's pages, mapped read-only. The view must not be written
//     (a write is a fatal fault, not a recoverable panic) and must not be
//     used after the MappedArray's Close (reading it then faults too).
//     Pass Options.Copy to get a matrix with its own memory, copy the view
//     with mat.DenseCopyOf before closing, or map the file with
//     npyio.Options.MapWritable for a private copy-on-write view that may be
//     written (changes never reach the file).
//
// Every other case copies into new memory owned by the result: a
// Fortran-order array read as a row-major Dense (only with Options.Copy),
// and any dtype conversion (only with Options.Convert). Conversions are
// never silent: reading an int32 array as a Dense without Convert fails with
// [ErrDType]. Convert turns bool, int, uint, float16 and float32 into
// float64 (int64 and uint64 values above 2^53 are rounded to the nearest
// float64, like numpy's astype), and complex64 into complex128.
//
// [RowReader] streams a 1-D or 2-D numeric array, or selected numeric
// fields of a structured (record) array, in batches of rows from an
// [npyio.Reader] in bounded memory; [RowReader.ReadInto] fills a
// preallocated Dense. Each batch it returns is valid until the next call.
//
// # Writing
//
// [WriteMatrix] writes any mat.Matrix as a float64 .npy and [WriteCMatrix]
// any mat.CMatrix as complex128, byte-identical to np.save of the
// corresponding numpy array: a contiguous Dense is written straight from its
// backing slice, the transpose of a contiguous Dense is written with
// fortran_order True straight from the same slice (numpy does the same for
// a.T), a strided view (a Slice of a larger Dense) and its transpose are
// written in C order, like numpy's non-contiguous arrays, and a mat.Vector
// such as *mat.VecDense is written as a 1-D array. [SaveMatrix] and
// [SaveCMatrix] write a file through a temporary file and a rename, so a
// failed write leaves no partial file.
//
// # Analysis
//
// [Describer] matches numpy's defaults: the standard deviation uses
// ddof = 0 (np.std; pandas' describe uses 1, set DescribeOptions.DDOF),
// quantiles use numpy's default "linear" method (Hyndman and Fan type 7,
// np.quantile; gonum's stat.Quantile has no such method), and NaN
// propagates into every statistic unless DescribeOptions.SkipNaN asks for
// the np.nan* behaviour. Count, mean, std, min and max are streamed in
// constant memory; exact quantiles need every value, so they are kept (up
// to a limit), or estimated from a fixed-size uniform sample when asked.
//
// [PCAFitter] collects rows (all of them, or a uniform reservoir sample)
// and fits them with gonum's stat.PC; [PCA.Project] then maps any batch of
// rows onto the first k components. Variances use n-1, like
// sklearn's explained_variance_.
//
// Limits: arrays of more than two dimensions are refused ([ErrShape]),
// as are empty arrays, which gonum matrices cannot represent ([ErrEmpty]).
// Datetime, string and object dtypes are refused ([ErrDType]).
// RowReader, Describer and PCAFitter are not safe for concurrent use; a
// fitted PCA is, and the functions reading an Array may be called
// concurrently on the same Array.
//
// Where things live: read.go and rows.go reading into matrices (whole, or
// batch by batch), write.go writing them, convert.go the element
// conversions, describe.go and pca.go the analysis steps, errors.go the
// errors.
package gonumconv
