package gonumconv

import "errors"

// Sentinel errors. Errors returned by this package wrap them with details
// (the dtype, the shape, the option to set); test with errors.Is.
var (
	// ErrDType reports a dtype that cannot become the requested matrix:
	// one that needs a conversion Options.Convert did not allow, or one that
	// is not numeric at all (strings, datetimes, structs outside RowReader).
	ErrDType = errors.New("gonumconv: unsupported dtype")
	// ErrShape reports an array or matrix of the wrong shape for the call.
	ErrShape = errors.New("gonumconv: wrong shape")
	// ErrEmpty reports an array with a zero-length axis: gonum matrices
	// cannot have zero rows or columns.
	ErrEmpty = errors.New("gonumconv: empty array (gonum matrices cannot have a zero dimension)")
	// ErrLayout reports a Fortran-order array asked for as a row-major
	// matrix without Options.Copy.
	ErrLayout = errors.New("gonumconv: layout needs a copy")
	// ErrNotSymmetric reports a Sym request on data that is not symmetric.
	ErrNotSymmetric = errors.New("gonumconv: matrix is not symmetric")
	// ErrNotTriangular reports a Tri request on data with nonzero values
	// outside the requested triangle.
	ErrNotTriangular = errors.New("gonumconv: matrix is not triangular")
	// ErrTooLarge reports a result over Options.MaxElements or a
	// describe/PCA buffer over its limit.
	ErrTooLarge = errors.New("gonumconv: too large")
	// ErrField reports a structured-array field that is missing or not
	// numeric.
	ErrField = errors.New("gonumconv: bad field")
)
