package gonumconv

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
	"gonum.org/v1/gonum/mat"
)

type describeCase struct {
	Name      string              `json:"name"`
	File      string              `json:"file"`
	DDOF      int                 `json:"ddof"`
	SkipNaN   bool                `json:"skipnan"`
	Probs     []float64           `json:"probs"`
	Count     []int64             `json:"count"`
	Mean      []json.RawMessage   `json:"mean"`
	Std       []json.RawMessage   `json:"std"`
	Min       []json.RawMessage   `json:"min"`
	Max       []json.RawMessage   `json:"max"`
	Quantiles [][]json.RawMessage `json:"quantiles"`
}

func loadDescribe(t *testing.T) []describeCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "describe.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Cases []describeCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d.Cases
}

// relClose reports whether got agrees with want to a relative tolerance
// (NaN only with NaN; an exact zero must be exact).
func relClose(got, want, tol float64) bool {
	if math.IsNaN(want) || math.IsNaN(got) {
		return math.IsNaN(want) && math.IsNaN(got)
	}
	return got == want || math.Abs(got-want) <= tol*math.Abs(want)
}

func loadMatrix(t *testing.T, name string) mat.Matrix {
	t.Helper()
	a, err := npyio.ReadFile(filepath.Join("testdata", name), nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Matrix(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDescribeNumpy compares Describer results with numpy's np.mean,
// np.std(ddof), np.min, np.max, np.quantile and their nan* versions, to
// 1e-12 relative, whatever the batch split and the memory order.
func TestDescribeNumpy(t *testing.T) {
	const tol = 1e-12
	for _, tc := range loadDescribe(t) {
		files := []string{tc.File}
		if tc.File == "describe_data.npy" {
			files = append(files, "describe_data_f.npy") // a Transpose view
		}
		for _, file := range files {
			m := loadMatrix(t, file)
			rows, cols := m.Dims()
			for _, batch := range []int{rows, 1, 7, 333} {
				t.Run(tc.Name+"/"+file+"/batch"+itoa(batch), func(t *testing.T) {
					d, err := NewDescriber(cols, &DescribeOptions{Quantiles: tc.Probs, DDOF: tc.DDOF, SkipNaN: tc.SkipNaN})
					if err != nil {
						t.Fatal(err)
					}
					for i := 0; i < rows; i += batch {
						if err := d.Add(sliceRows(m, i, min(i+batch, rows))); err != nil {
							t.Fatal(err)
						}
					}
					res, err := d.Result()
					if err != nil {
						t.Fatal(err)
					}
					if !res.Exact || res.DDOF != tc.DDOF {
						t.Errorf("Exact %v DDOF %d", res.Exact, res.DDOF)
					}
					for j, cs := range res.Columns {
						if cs.Count != tc.Count[j] {
							t.Errorf("col %d count %d, numpy %d", j, cs.Count, tc.Count[j])
						}
						for _, s := range []struct {
							what      string
							got, want float64
						}{
							{"mean", cs.Mean, fixtures.Float(tc.Mean[j])},
							{"std", cs.Std, fixtures.Float(tc.Std[j])},
							{"min", cs.Min, fixtures.Float(tc.Min[j])},
							{"max", cs.Max, fixtures.Float(tc.Max[j])},
						} {
							if !relClose(s.got, s.want, tol) {
								t.Errorf("col %d %s = %v, numpy %v (rel err %.3g)", j, s.what, s.got, s.want, math.Abs(s.got-s.want)/math.Abs(s.want))
							}
						}
						for k, p := range tc.Probs {
							if got, want := cs.Quantiles[k], fixtures.Float(tc.Quantiles[j][k]); !relClose(got, want, tol) {
								t.Errorf("col %d quantile %v = %v, numpy %v", j, p, got, want)
							}
						}
					}
				})
			}
		}
	}
}

// sliceRows returns rows [i, k) of m, a Dense or the transpose of one.
func sliceRows(m mat.Matrix, i, k int) mat.Matrix {
	switch v := m.(type) {
	case *mat.Dense:
		return v.Slice(i, k, 0, v.RawMatrix().Cols)
	case mat.Transpose:
		d := v.Matrix.(*mat.Dense)
		r, _ := d.Dims()
		return d.Slice(0, r, i, k).T()
	}
	panic("unexpected matrix type")
}

// TestDescribeSample checks the sampled-quantile mode: exact moments,
// estimated quantiles close to numpy's, Exact reported false.
func TestDescribeSample(t *testing.T) {
	tc := loadDescribe(t)[0]
	m := loadMatrix(t, tc.File)
	res, err := Describe(m, &DescribeOptions{Quantiles: tc.Probs, Sample: 400, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Exact {
		t.Error("Exact is true for a sample of 400 of 1000 values")
	}
	for j, cs := range res.Columns {
		if !relClose(cs.Mean, fixtures.Float(tc.Mean[j]), 1e-12) || !relClose(cs.Std, fixtures.Float(tc.Std[j]), 1e-12) {
			t.Errorf("col %d moments changed by sampling", j)
		}
		// The median of a 400-value sample is within a few percent of the
		// column's spread of the true one.
		k := 3 // p = 0.5
		want := fixtures.Float(tc.Quantiles[j][k])
		spread := fixtures.Float(tc.Max[j]) - fixtures.Float(tc.Min[j])
		if math.Abs(cs.Quantiles[k]-want) > 0.1*spread {
			t.Errorf("col %d sampled median %v, numpy %v (spread %v)", j, cs.Quantiles[k], want, spread)
		}
	}
}

func TestDescribeLimits(t *testing.T) {
	m := loadMatrix(t, "describe_data.npy")
	_, err := Describe(m, &DescribeOptions{MaxValues: 5999})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	// No quantiles: no values kept, no limit.
	res, err := Describe(m, &DescribeOptions{Quantiles: []float64{}, MaxValues: 1})
	if err != nil || len(res.Columns[0].Quantiles) != 0 {
		t.Fatalf("without quantiles: %v, %v", res, err)
	}
	for _, o := range []*DescribeOptions{{Quantiles: []float64{1.5}}, {DDOF: -1}, {Sample: -2}} {
		if _, err := NewDescriber(3, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	d, _ := NewDescriber(6, nil)
	if err := d.Add(mat.NewDense(2, 5, nil)); !errors.Is(err, ErrShape) {
		t.Errorf("wrong column count: err = %v", err)
	}
}

func TestQuantileLinear(t *testing.T) {
	// Values from numpy: np.quantile([1, 2, 4, 8], p).
	x := []float64{1, 2, 4, 8}
	tests := []struct{ p, want float64 }{
		{0, 1}, {1, 8}, {0.5, 3}, {0.25, 1.75}, {0.9, 6.800000000000001}, {1.0 / 3, 2},
	}
	for _, tc := range tests {
		if got := QuantileLinear(x, tc.p); got != tc.want {
			t.Errorf("p=%v: %v, want %v", tc.p, got, tc.want)
		}
	}
	if !math.IsNaN(QuantileLinear(nil, 0.5)) {
		t.Error("empty input is not NaN")
	}
}
