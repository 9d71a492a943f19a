package gonumconv

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// DefaultMaxValues is the default DescribeOptions.MaxValues: 2^27 values
// (1 GiB) kept for exact quantiles.
const DefaultMaxValues = 1 << 27

// DescribeOptions configures a Describer. A nil *DescribeOptions means the
// defaults, which match numpy's.
type DescribeOptions struct {
	// Quantiles are the probabilities, each in [0, 1], of the quantiles to
	// compute. Nil means 0.25, 0.5 and 0.75 (pandas' describe); an empty
	// non-nil slice means none, which makes the Describer run in constant
	// memory.
	Quantiles []float64

	// DDOF is the delta degrees of freedom of the standard deviation: the
	// sum of squared deviations is divided by Count-DDOF. 0, the default,
	// is np.std's population standard deviation; 1 is the sample standard
	// deviation of pandas' describe.
	DDOF int

	// SkipNaN ignores NaN values, like np.nanmean, np.nanstd and
	// np.nanquantile; Count is then the number of non-NaN values. Without
	// it a NaN anywhere in a column makes all of that column's statistics
	// NaN, like np.mean, np.std, np.min and np.quantile.
	SkipNaN bool

	// Sample, when positive, estimates quantiles from a uniform random
	// sample (reservoir sampling) of at most Sample values per column
	// instead of keeping every value; Description.Exact is then false as
	// soon as a column has more values than that. Count, mean, std, min
	// and max stay exact.
	Sample int

	// Seed seeds the sampling.
	Seed uint64

	// MaxValues limits how many values (over all columns) are kept for
	// exact quantiles; past it Add fails with ErrTooLarge. 0 means
	// DefaultMaxValues.
	MaxValues int64
}

// ColumnSummary holds the statistics of one column.
type ColumnSummary struct {
	Count     int64     // number of values (non-NaN values with SkipNaN)
	Mean      float64   // arithmetic mean
	Std       float64   // standard deviation with the configured DDOF
	Min       float64   // smallest value
	Quantiles []float64 // one per DescribeOptions.Quantiles probability
	Max       float64   // largest value
}

// Description is the result of a Describer.
type Description struct {
	Probs   []float64       // the quantile probabilities
	DDOF    int             // the DDOF used for Std
	Exact   bool            // whether the quantiles are exact (not from a sample)
	Columns []ColumnSummary // one per column
}

// colState is the running state of one column: Chan et al.'s pairwise
// update of count, mean and sum of squared deviations, plus extremes and
// the values kept for quantiles.
type colState struct {
	n        int64
	shift    float64 // subtracted from every value before the moments
	mean, m2 float64 // of the shifted values
	min, max float64
	nan      bool
	seen     int64 // values offered to the reservoir
	values   []float64
}

// Describer computes per-column summary statistics of a matrix fed to it
// batch by batch: count, mean and standard deviation (gonum's
// stat.PopMeanVariance per batch, merged with Chan et al.'s parallel
// update, so the result does not depend on how the rows are split), min,
// max, and quantiles with numpy's default linear interpolation. Everything
// but exact quantiles runs in constant memory; see DescribeOptions.
type Describer struct {
	cols    int
	opts    DescribeOptions
	probs   []float64
	state   []colState
	scratch []float64
	kept    int64
	rng     *rand.Rand
	err     error
}

// NewDescriber returns a Describer for matrices of cols columns.
func NewDescriber(cols int, opts *DescribeOptions) (*Describer, error) {
	d := &Describer{cols: cols}
	if opts != nil {
		d.opts = *opts
	}
	if cols < 1 {
		return nil, fmt.Errorf("%w: a Describer needs at least one column, got %d", ErrShape, cols)
	}
	d.probs = d.opts.Quantiles
	if d.probs == nil {
		d.probs = []float64{0.25, 0.5, 0.75}
	}
	for _, p := range d.probs {
		if !(p >= 0 && p <= 1) {
			return nil, fmt.Errorf("gonumconv: DescribeOptions.Quantiles: %v is not in [0, 1]", p)
		}
	}
	d.probs = slices.Clone(d.probs)
	if d.opts.DDOF < 0 {
		return nil, fmt.Errorf("gonumconv: DescribeOptions.DDOF is %d, must not be negative", d.opts.DDOF)
	}
	if d.opts.Sample < 0 {
		return nil, fmt.Errorf("gonumconv: DescribeOptions.Sample is %d, must not be negative", d.opts.Sample)
	}
	if d.opts.MaxValues <= 0 {
		d.opts.MaxValues = DefaultMaxValues
	}
	d.state = make([]colState, cols)
	for i := range d.state {
		d.state[i].min, d.state[i].max = math.Inf(1), math.Inf(-1)
	}
	d.rng = rand.New(rand.NewPCG(d.opts.Seed, 0x6e7079666c6f77))
	return d, nil
}

// Add adds the rows of batch, which must have the Describer's number of
// columns. batch is only read during the call. Errors are sticky.
func (d *Describer) Add(batch mat.Matrix) error {
	if d.err != nil {
		return d.err
	}
	r, c := batch.Dims()
	if c != d.cols {
		return fmt.Errorf("%w: batch has %d columns, the Describer %d", ErrShape, c, d.cols)
	}
	if r == 0 {
		return nil
	}
	if cap(d.scratch) < r {
		d.scratch = make([]float64, r)
	}
	wantQ := len(d.probs) > 0
	if wantQ && d.opts.Sample == 0 && d.kept+int64(r)*int64(c) > d.opts.MaxValues {
		d.err = fmt.Errorf("%w: exact quantiles keep every value, and %d values exceed DescribeOptions.MaxValues (%d); set Sample for estimated quantiles, raise MaxValues, or ask for no quantiles", ErrTooLarge, d.kept+int64(r)*int64(c), d.opts.MaxValues)
		return d.err
	}
	for j := 0; j < c; j++ {
		col := mat.Col(d.scratch[:r], j, batch)
		st := &d.state[j]
		if d.opts.SkipNaN {
			col = slices.DeleteFunc(col, math.IsNaN)
		} else if slices.ContainsFunc(col, math.IsNaN) {
			st.nan = true
		}
		if len(col) == 0 {
			continue
		}
		for _, v := range col {
			// Comparisons keep NaN out of min and max; st.nan covers it.
			if v < st.min {
				st.min = v
			}
			if v > st.max {
				st.max = v
			}
		}
		if wantQ {
			d.keep(st, col)
		}
		// Moments are accumulated about a shift, the column's first value,
		// so that data with a large mean and a small spread (1e6 ± 1e-3)
		// keeps its precision: x - shift is exact for values within a
		// factor of two of it.
		if st.n == 0 && !math.IsInf(col[0], 0) {
			st.shift = col[0]
		}
		if st.shift != 0 {
			floats.AddConst(-st.shift, col)
		}
		mb, vb := stat.PopMeanVariance(col, nil)
		nb := int64(len(col))
		st.merge(nb, mb, vb*float64(nb))
	}
	return nil
}

// merge folds a batch of nb values with mean mb and sum of squared
// deviations m2b into the running state.
func (st *colState) merge(nb int64, mb, m2b float64) {
	if st.n == 0 {
		st.n, st.mean, st.m2 = nb, mb, m2b
		return
	}
	na := float64(st.n)
	n := na + float64(nb)
	delta := mb - st.mean
	st.mean += delta * float64(nb) / n
	st.m2 += m2b + delta*delta*na*float64(nb)/n
	st.n += nb
}

func (d *Describer) keep(st *colState, col []float64) {
	k := d.opts.Sample
	if k == 0 {
		st.values = append(st.values, col...)
		d.kept += int64(len(col))
		return
	}
	for _, v := range col {
		if len(st.values) < k {
			st.values = append(st.values, v)
		} else if j := d.rng.Int64N(st.seen + 1); j < int64(k) {
			st.values[j] = v
		}
		st.seen++
	}
}

// Result returns the statistics of every row added so far. More rows may
// be added afterwards.
func (d *Describer) Result() (*Description, error) {
	if d.err != nil {
		return nil, d.err
	}
	out := &Description{Probs: slices.Clone(d.probs), DDOF: d.opts.DDOF, Exact: true, Columns: make([]ColumnSummary, d.cols)}
	nan := math.NaN()
	for j := range d.state {
		st := &d.state[j]
		cs := ColumnSummary{Count: st.n, Mean: nan, Std: nan, Min: nan, Max: nan, Quantiles: make([]float64, len(d.probs))}
		for i := range cs.Quantiles {
			cs.Quantiles[i] = nan
		}
		if d.opts.Sample > 0 && st.seen > int64(d.opts.Sample) {
			out.Exact = false
		}
		if st.n > 0 && !st.nan {
			cs.Mean, cs.Min, cs.Max = st.shift+st.mean, st.min, st.max
			if dof := st.n - int64(d.opts.DDOF); dof > 0 {
				cs.Std = math.Sqrt(st.m2 / float64(dof))
			}
			if len(d.probs) > 0 {
				slices.Sort(st.values)
				for i, p := range d.probs {
					cs.Quantiles[i] = QuantileLinear(st.values, p)
				}
			}
		}
		out.Columns[j] = cs
	}
	return out, nil
}

// Describe computes the statistics of every column of m in one call.
func Describe(m mat.Matrix, opts *DescribeOptions) (*Description, error) {
	_, c := m.Dims()
	d, err := NewDescriber(c, opts)
	if err != nil {
		return nil, err
	}
	if err := d.Add(m); err != nil {
		return nil, err
	}
	return d.Result()
}

// QuantileLinear returns the p-quantile of sorted (ascending, no NaN)
// with numpy's default "linear" method (Hyndman and Fan's type 7):
// position h = (n-1)p between sorted[floor(h)] and the next value, with
// numpy's own interpolation formula so that results agree to the last bit.
// It returns NaN for an empty slice. One deliberate difference: when the
// position falls exactly on a value, that value is returned even if it is
// infinite, where numpy's formula gives NaN (inf - inf).
func QuantileLinear(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	h := float64(n-1) * p
	lo := math.Floor(h)
	gamma := h - lo
	i := int(lo)
	j := i + 1
	if h >= float64(n-1) {
		i, j = n-1, n-1
	} else if h < 0 {
		i, j = 0, 0
	}
	if i == j || gamma == 0 {
		return sorted[i]
	}
	a, b := sorted[i], sorted[j]
	diff := b - a
	if gamma >= 0.5 {
		return b - diff*(1-gamma)
	}
	return a + diff*gamma
}
