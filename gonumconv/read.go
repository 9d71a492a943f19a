package gonumconv

import (
	"fmt"
	"math"

	"github.com/npyflow/npyflow/npyio"
	"gonum.org/v1/gonum/mat"
)

// DefaultMaxElements is the default Options.MaxElements: 2^28 float64
// values (2 GiB).
const DefaultMaxElements = 1 << 28

// Options controls how arrays become matrices. A nil *Options means the
// zero value: views only, no dtype conversion.
type Options struct {
	// Convert allows converting element types: bool, int, uint, float16
	// and float32 to float64, and complex64 to complex128. The result is a
	// new row-major matrix. Without Convert, only float64 (complex128)
	// arrays are accepted and anything else fails with ErrDType.
	Convert bool

	// Copy makes every function return a matrix with its own memory,
	// never a view of the array's data. Dense, CDense and Tri need it
	// for a Fortran-order array, which they must reorder.
	Copy bool

	// Fields selects the fields of a structured array read by a
	// RowReader, one or more columns each (a subarray field of shape
	// (2, 3) gives 6 columns, in C order). Nil means every field.
	Fields []string

	// Tolerance is the relative tolerance of Sym's symmetry check:
	// a[i,j] and a[j,i] must satisfy |x-y| <= Tolerance*max(|x|,|y|).
	// 0 means they must be exactly equal (two NaNs count as equal).
	Tolerance float64

	// MaxElements limits the matrix RowReader.ReadAll allocates from the
	// row count in a header; 0 means DefaultMaxElements.
	MaxElements int64
}

func (o *Options) convert() bool { return o != nil && o.Convert }
func (o *Options) copy() bool    { return o != nil && o.Copy }
func (o *Options) tolerance() float64 {
	if o == nil {
		return 0
	}
	return o.Tolerance
}
func (o *Options) maxElements() int64 {
	if o == nil || o.MaxElements <= 0 {
		return DefaultMaxElements
	}
	return o.MaxElements
}

// dims2 returns the dimensions of a non-empty 2-D array.
func dims2(a *npyio.Array, what string) (r, c int, err error) {
	s := a.Header.Shape
	if len(s) != 2 {
		return 0, 0, fmt.Errorf("%w: %s needs a 2-D array, this one has shape %v", ErrShape, what, s)
	}
	if s[0] == 0 || s[1] == 0 {
		return 0, 0, fmt.Errorf("%w: shape %v", ErrEmpty, s)
	}
	return s[0], s[1], nil
}

// colMajor reports whether a 2-D array's data is really laid out column by
// column (a Fortran-order array with one row or column is also row-major).
func colMajor(a *npyio.Array) bool {
	s := a.Header.Shape
	return a.Header.FortranOrder && len(s) == 2 && s[0] > 1 && s[1] > 1
}

// elemKind is what realData and complexData differ in: the dtype check,
// the dtype read without conversion, and the converting decoder.
type elemKind[T float64 | complex128] struct {
	check   func(*npyio.DType, *Options) error
	exact   func(*npyio.DType) bool
	decoder func(*npyio.DType) func(dst []T, dstStride int, src []byte, srcStride, n int)
}

var (
	realKind = elemKind[float64]{checkReal, isFloat64, func(dt *npyio.DType) func([]float64, int, []byte, int, int) {
		return realDecoderFor(dt)
	}}
	complexKind = elemKind[complex128]{checkComplex, isComplex128, func(dt *npyio.DType) func([]complex128, int, []byte, int, int) {
		return complexDecoderFor(dt)
	}}
)

// realData returns the r*c values of a real array. Without a conversion or
// Options.Copy it is a view of a.Data in the file's layout, and fortran
// reports whether that layout is column-major. Otherwise it is a new
// row-major slice and fortran is false.
func realData(a *npyio.Array, r, c int, opts *Options) ([]float64, bool, error) {
	return elemData(realKind, a, r, c, opts)
}

// complexData is realData for complex arrays.
func complexData(a *npyio.Array, r, c int, opts *Options) ([]complex128, bool, error) {
	return elemData(complexKind, a, r, c, opts)
}

func elemData[T float64 | complex128](k elemKind[T], a *npyio.Array, r, c int, opts *Options) (data []T, fortran bool, err error) {
	dt := a.DType
	if err := k.check(dt, opts); err != nil {
		return nil, false, err
	}
	f := colMajor(a)
	if k.exact(dt) && !opts.copy() {
		if v, err := npyio.View[T](a.Data); err == nil && len(v) == r*c {
			return v, f, nil
		}
		// Misaligned memory (npyio's readers never produce it): copy.
	}
	if int64(len(a.Data)) < int64(r)*int64(c)*int64(dt.Size) {
		return nil, false, fmt.Errorf("%w: %d data bytes for shape %v of %s", ErrShape, len(a.Data), a.Header.Shape, dt.TypeStr())
	}
	out := make([]T, r*c)
	if k.exact(dt) {
		if v, err := npyio.View[T](a.Data); err == nil && len(v) == r*c {
			if f {
				transpose(out, v, c, r)
			} else {
				copy(out, v)
			}
			return out, false, nil
		}
	}
	dec := k.decoder(dt)
	if f {
		// Column j is contiguous in the file: decode it into a strided
		// destination column, fusing the conversion and the transpose.
		for j := 0; j < c; j++ {
			dec(out[j:], c, a.Data[j*r*dt.Size:], dt.Size, r)
		}
	} else {
		dec(out, 1, a.Data, dt.Size, r*c)
	}
	return out, false, nil
}

// Dense returns a 2-D real array as a row-major *mat.Dense.
//
// A float64 array in C order (the np.save default) becomes a view of
// a.Data with no copy; see the package documentation for its lifetime. A
// Fortran-order array must be reordered, which Dense does only with
// opts.Copy (Matrix gives a view instead); other real dtypes are converted
// only with opts.Convert. Both produce a new row-major Dense.
func Dense(a *npyio.Array, opts *Options) (*mat.Dense, error) {
	r, c, err := dims2(a, "Dense")
	if err != nil {
		return nil, err
	}
	if colMajor(a) && isFloat64(a.DType) && !opts.copy() {
		return nil, fmt.Errorf("%w: the %dx%d array is in Fortran order; set Options.Copy for a row-major copy, or use Matrix for a view (the transpose of a Dense over the data)", ErrLayout, r, c)
	}
	data, _, err := realData(a, r, c, opts)
	if err != nil {
		return nil, err
	}
	return mat.NewDense(r, c, data), nil
}

// Matrix returns a 2-D real array as a mat.Matrix without reordering it:
// a *mat.Dense for C order and, for Fortran order, a mat.Transpose of the
// c×r *mat.Dense whose rows are the array's columns. Both are views of
// a.Data for a float64 array (see the package documentation for their
// lifetime). With opts.Copy or a conversion (opts.Convert) the result is a
// new row-major *mat.Dense.
func Matrix(a *npyio.Array, opts *Options) (mat.Matrix, error) {
	r, c, err := dims2(a, "Matrix")
	if err != nil {
		return nil, err
	}
	data, fortran, err := realData(a, r, c, opts)
	if err != nil {
		return nil, err
	}
	if fortran {
		return mat.NewDense(c, r, data).T(), nil
	}
	return mat.NewDense(r, c, data), nil
}

// Vec returns a 1-D real array as a *mat.VecDense: a view of a.Data for
// float64 (see the package documentation for its lifetime), a new vector
// with opts.Copy or a conversion (opts.Convert).
func Vec(a *npyio.Array, opts *Options) (*mat.VecDense, error) {
	s := a.Header.Shape
	if len(s) != 1 {
		return nil, fmt.Errorf("%w: Vec needs a 1-D array, this one has shape %v", ErrShape, s)
	}
	if s[0] == 0 {
		return nil, fmt.Errorf("%w: shape %v", ErrEmpty, s)
	}
	data, _, err := realData(a, s[0], 1, opts)
	if err != nil {
		return nil, err
	}
	return mat.NewVecDense(s[0], data), nil
}

// CDense returns a 2-D complex array as a row-major *mat.CDense: a view of
// a.Data for complex128 in C order (see the package documentation for its
// lifetime). Fortran order needs opts.Copy (or use CMatrix for a view) and
// complex64 needs opts.Convert; both give a new row-major CDense.
func CDense(a *npyio.Array, opts *Options) (*mat.CDense, error) {
	r, c, err := dims2(a, "CDense")
	if err != nil {
		return nil, err
	}
	if colMajor(a) && isComplex128(a.DType) && !opts.copy() {
		return nil, fmt.Errorf("%w: the %dx%d array is in Fortran order; set Options.Copy for a row-major copy, or use CMatrix for a view", ErrLayout, r, c)
	}
	data, _, err := complexData(a, r, c, opts)
	if err != nil {
		return nil, err
	}
	return mat.NewCDense(r, c, data), nil
}

// CMatrix returns a 2-D complex array as a mat.CMatrix without reordering:
// a *mat.CDense for C order, a mat.CTranspose (plain, not conjugate) of a
// *mat.CDense for Fortran order. Both are views of a.Data for complex128;
// opts.Copy or a conversion gives a new row-major *mat.CDense.
func CMatrix(a *npyio.Array, opts *Options) (mat.CMatrix, error) {
	r, c, err := dims2(a, "CMatrix")
	if err != nil {
		return nil, err
	}
	data, fortran, err := complexData(a, r, c, opts)
	if err != nil {
		return nil, err
	}
	if fortran {
		return mat.NewCDense(c, r, data).T(), nil
	}
	return mat.NewCDense(r, c, data), nil
}

// Sym returns a square real array as a *mat.SymDense after checking that
// it is symmetric (within opts.Tolerance). It refuses a non-square array
// with ErrShape and an asymmetric one with ErrNotSymmetric, naming the
// first pair of elements that differ. A float64 array becomes a view of
// a.Data in either order, since a symmetric matrix equals its transpose;
// opts.Copy or a conversion gives a new matrix.
func Sym(a *npyio.Array, opts *Options) (*mat.SymDense, error) {
	r, c, err := dims2(a, "Sym")
	if err != nil {
		return nil, err
	}
	if r != c {
		return nil, fmt.Errorf("%w: a symmetric matrix must be square, this array is %dx%d", ErrShape, r, c)
	}
	data, _, err := realData(a, r, c, opts)
	if err != nil {
		return nil, err
	}
	tol := opts.tolerance()
	for i := 0; i < r; i++ {
		for j := i + 1; j < r; j++ {
			x, y := data[i*r+j], data[j*r+i]
			if !closeEnough(x, y, tol) {
				// The data may be the transpose (Fortran order); the message
				// names the array's own indices either way.
				if colMajor(a) && isFloat64(a.DType) && !opts.copy() {
					x, y = y, x
				}
				return nil, fmt.Errorf("%w: a[%d,%d] = %v but a[%d,%d] = %v", ErrNotSymmetric, i, j, x, j, i, y)
			}
		}
	}
	return mat.NewSymDense(r, data), nil
}

func closeEnough(x, y, tol float64) bool {
	if x == y || (math.IsNaN(x) && math.IsNaN(y)) {
		return true
	}
	return tol > 0 && math.Abs(x-y) <= tol*math.Max(math.Abs(x), math.Abs(y))
}

// Tri returns a square real array as a *mat.TriDense of the given kind
// (mat.Upper or mat.Lower) after checking that every element outside that
// triangle is zero; it refuses with ErrNotTriangular naming the first
// nonzero element (NaN counts as nonzero). A float64 C-order array becomes
// a view of a.Data; Fortran order needs opts.Copy, and other dtypes
// opts.Convert, for a new matrix.
func Tri(a *npyio.Array, kind mat.TriKind, opts *Options) (*mat.TriDense, error) {
	r, c, err := dims2(a, "Tri")
	if err != nil {
		return nil, err
	}
	if r != c {
		return nil, fmt.Errorf("%w: a triangular matrix must be square, this array is %dx%d", ErrShape, r, c)
	}
	if colMajor(a) && isFloat64(a.DType) && !opts.copy() {
		return nil, fmt.Errorf("%w: the %dx%d array is in Fortran order; set Options.Copy for a row-major copy", ErrLayout, r, c)
	}
	data, _, err := realData(a, r, c, opts)
	if err != nil {
		return nil, err
	}
	where := "below"
	if kind == mat.Lower {
		where = "above"
	}
	for i := 0; i < r; i++ {
		lo, hi := 0, i // strictly lower part of row i
		if kind == mat.Lower {
			lo, hi = i+1, r
		}
		for j := lo; j < hi; j++ {
			if v := data[i*r+j]; v != 0 {
				return nil, fmt.Errorf("%w: a[%d,%d] = %v is %s the diagonal of a %s-triangular request", ErrNotTriangular, i, j, v, where, triName(kind))
			}
		}
	}
	return mat.NewTriDense(r, kind, data), nil
}

func triName(k mat.TriKind) string {
	if k == mat.Lower {
		return "lower"
	}
	return "upper"
}

// ReadDense reads the .npy file name with npyio.ReadFile and returns it as
// a Dense (see Dense). The Dense owns its memory: it is a view of a buffer
// nobody else holds. Errors name the file.
func ReadDense(name string, opts *Options) (*mat.Dense, error) {
	a, err := npyio.ReadFile(name, nil)
	if err != nil {
		return nil, err
	}
	d, err := Dense(a, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}

// transpose writes the transpose of src, an r×c row-major matrix, into dst
// (c×r, row-major), in cache-sized blocks.
func transpose[T any](dst, src []T, r, c int) {
	const blk = 32
	for i0 := 0; i0 < r; i0 += blk {
		i1 := min(i0+blk, r)
		for j0 := 0; j0 < c; j0 += blk {
			j1 := min(j0+blk, c)
			for i := i0; i < i1; i++ {
				row := src[i*c : i*c+c]
				for j := j0; j < j1; j++ {
					dst[j*r+i] = row[j]
				}
			}
		}
	}
}
