package gonumconv

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// PCAOptions configures a principal components fit. A nil *PCAOptions
// means the defaults.
type PCAOptions struct {
	// Components is k, the number of components kept for projection.
	// 0 means all of them: min(rows, columns).
	Components int

	// SampleRows, when positive, fits on a uniform random sample of at
	// most this many rows (reservoir sampling over everything added)
	// instead of on every row.
	SampleRows int

	// Seed seeds the sampling.
	Seed uint64

	// MaxElements limits the rows*columns values a PCAFitter holds for the
	// fit; past it Add fails with ErrTooLarge. 0 means DefaultMaxElements.
	MaxElements int64
}

// PCAFitter collects rows, batch by batch, for a principal components
// fit: all of them, or a uniform sample of PCAOptions.SampleRows rows.
// stat.PC needs the data in memory, so that is what the fitter holds.
type PCAFitter struct {
	cols int
	opts PCAOptions
	data []float64 // row-major rows kept
	seen int64
	row  []float64
	rng  *rand.Rand
	err  error
}

// NewPCAFitter returns a PCAFitter for rows of cols columns.
func NewPCAFitter(cols int, opts *PCAOptions) (*PCAFitter, error) {
	f := &PCAFitter{cols: cols}
	if opts != nil {
		f.opts = *opts
	}
	if cols < 1 {
		return nil, fmt.Errorf("%w: PCA needs at least one column, got %d", ErrShape, cols)
	}
	if f.opts.Components < 0 || f.opts.Components > cols {
		return nil, fmt.Errorf("gonumconv: PCAOptions.Components is %d, want 0 to %d (the number of columns)", f.opts.Components, cols)
	}
	if f.opts.SampleRows < 0 {
		return nil, fmt.Errorf("gonumconv: PCAOptions.SampleRows is %d, must not be negative", f.opts.SampleRows)
	}
	if f.opts.MaxElements <= 0 {
		f.opts.MaxElements = DefaultMaxElements
	}
	if f.opts.SampleRows > 0 && int64(f.opts.SampleRows) > f.opts.MaxElements/int64(cols) {
		return nil, fmt.Errorf("%w: a sample of %d rows of %d columns exceeds PCAOptions.MaxElements (%d)", ErrTooLarge, f.opts.SampleRows, cols, f.opts.MaxElements)
	}
	f.row = make([]float64, cols)
	f.rng = rand.New(rand.NewPCG(f.opts.Seed, 0x7063615f73616d70))
	return f, nil
}

// Add adds the rows of batch, which must have the fitter's number of
// columns. The rows are copied; batch is only read during the call.
// Errors are sticky.
func (f *PCAFitter) Add(batch mat.Matrix) error {
	if f.err != nil {
		return f.err
	}
	r, c := batch.Dims()
	if c != f.cols {
		return fmt.Errorf("%w: batch has %d columns, the fitter %d", ErrShape, c, f.cols)
	}
	k := f.opts.SampleRows
	if k == 0 && int64(len(f.data)/c+r) > f.opts.MaxElements/int64(c) {
		f.err = fmt.Errorf("%w: fitting on every row needs %d rows of %d columns in memory, over PCAOptions.MaxElements (%d); set SampleRows to fit on a sample", ErrTooLarge, len(f.data)/c+r, c, f.opts.MaxElements)
		return f.err
	}
	for i := 0; i < r; i++ {
		switch {
		case k == 0 || len(f.data) < k*c:
			f.data = append(f.data, mat.Row(f.row, i, batch)...)
		default:
			if j := f.rng.Int64N(f.seen + 1); j < int64(k) {
				mat.Row(f.data[j*int64(c):(j+1)*int64(c)], i, batch)
			}
		}
		f.seen++
	}
	return nil
}

// Rows returns the number of rows added so far.
func (f *PCAFitter) Rows() int64 { return f.seen }

// Fit fits the principal components of the rows kept so far with stat.PC.
// It needs at least two rows. More rows may be added and Fit called again.
func (f *PCAFitter) Fit() (*PCA, error) {
	if f.err != nil {
		return nil, f.err
	}
	n := len(f.data) / f.cols
	if n < 2 {
		return nil, fmt.Errorf("%w: PCA needs at least 2 rows, got %d", ErrShape, n)
	}
	return fitPCA(mat.NewDense(n, f.cols, f.data), f.opts.Components)
}

// FitPCA fits the principal components of every row of x (n×d, one
// observation per row) with stat.PC and keeps k components (opts.Components,
// 0 meaning all). opts.SampleRows is ignored: x is already in memory.
func FitPCA(x mat.Matrix, opts *PCAOptions) (*PCA, error) {
	k := 0
	if opts != nil {
		k = opts.Components
	}
	n, d := x.Dims()
	if n < 2 || d < 1 {
		return nil, fmt.Errorf("%w: PCA needs at least 2 rows and 1 column, got %dx%d", ErrShape, n, d)
	}
	if k < 0 || k > d {
		return nil, fmt.Errorf("gonumconv: PCAOptions.Components is %d, want 0 to %d (the number of columns)", k, d)
	}
	return fitPCA(x, k)
}

func fitPCA(x mat.Matrix, k int) (*PCA, error) {
	n, d := x.Dims()
	var pc stat.PC
	if !pc.PrincipalComponents(x, nil) {
		return nil, fmt.Errorf("gonumconv: PCA: the SVD of the %dx%d centred data did not converge", n, d)
	}
	m := min(n, d)
	if k == 0 || k > m {
		k = m
	}
	var vecs mat.Dense
	pc.VectorsTo(&vecs)
	p := &PCA{
		rows: n,
		vars: pc.VarsTo(nil),
		mean: make([]float64, d),
		vecs: mat.DenseCopyOf(vecs.Slice(0, d, 0, k)),
	}
	for j := 0; j < d; j++ {
		p.mean[j] = stat.Mean(mat.Col(nil, j, x), nil)
	}
	// Fix the sign of each component, which the SVD leaves arbitrary: its
	// entry of largest magnitude is made positive.
	for c := 0; c < k; c++ {
		col := mat.Col(nil, c, p.vecs)
		if i := floats.MaxIdx(absAll(col)); col[i] < 0 {
			floats.Scale(-1, col)
			p.vecs.SetCol(c, col)
		}
	}
	p.total = floats.Sum(p.vars)
	return p, nil
}

func absAll(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Abs(x)
	}
	return out
}

// PCA is a fitted principal components analysis. It is immutable, and safe
// for concurrent use.
type PCA struct {
	rows  int
	mean  []float64
	vecs  *mat.Dense // d×k, one component per column
	vars  []float64  // variance of every component, descending
	total float64
}

// Components returns k, the number of components Project keeps.
func (p *PCA) Components() int { _, k := p.vecs.Dims(); return k }

// Rows returns the number of rows the fit used.
func (p *PCA) Rows() int { return p.rows }

// Mean returns a copy of the column means subtracted before projecting.
func (p *PCA) Mean() []float64 { return append([]float64(nil), p.mean...) }

// Vectors returns a copy of the d×k matrix whose columns are the kept
// component directions (unit vectors), in order of decreasing variance.
// Each direction's sign is fixed so that its entry of largest magnitude is
// positive; other tools (numpy's SVD, sklearn) may return the opposite
// sign.
func (p *PCA) Vectors() *mat.Dense { return mat.DenseCopyOf(p.vecs) }

// ExplainedVariance returns the variance of the data along each of the k
// kept components (the squared singular values of the centred data
// divided by rows-1, as sklearn's explained_variance_).
func (p *PCA) ExplainedVariance() []float64 {
	return append([]float64(nil), p.vars[:p.Components()]...)
}

// ExplainedVarianceRatio returns each kept component's share of the total
// variance (over all components).
func (p *PCA) ExplainedVarianceRatio() []float64 {
	out := p.ExplainedVariance()
	floats.Scale(1/p.total, out)
	return out
}

// Project projects the rows of x (n×d) onto the k components: dst =
// (x - mean) * Vectors. dst must be n×k, or empty, in which case it is
// resized. x is only read.
func (p *PCA) Project(dst *mat.Dense, x mat.Matrix) error {
	n, d := x.Dims()
	if d != len(p.mean) {
		return fmt.Errorf("%w: x has %d columns, the PCA was fitted on %d", ErrShape, d, len(p.mean))
	}
	k := p.Components()
	if !dst.IsEmpty() {
		if r, c := dst.Dims(); r != n || c != k {
			return fmt.Errorf("%w: dst is %dx%d, want %dx%d", ErrShape, r, c, n, k)
		}
	}
	if n == 0 {
		return nil
	}
	centred := mat.DenseCopyOf(x)
	raw := centred.RawMatrix()
	for i := 0; i < n; i++ {
		floats.Sub(raw.Data[i*raw.Stride:i*raw.Stride+d], p.mean)
	}
	dst.Mul(centred, p.vecs)
	return nil
}
