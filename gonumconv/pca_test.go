package gonumconv

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
	"gonum.org/v1/gonum/mat"
)

type pcaExpect struct {
	Rows       int                 `json:"rows"`
	Cols       int                 `json:"cols"`
	K          int                 `json:"k"`
	Mean       []json.RawMessage   `json:"mean"`
	Var        []json.RawMessage   `json:"explained_variance"`
	Ratio      []json.RawMessage   `json:"explained_variance_ratio"`
	Components [][]json.RawMessage `json:"components"`
	Scores     [][]json.RawMessage `json:"scores"`
}

func loadPCA(t *testing.T) pcaExpect {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "pca.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e pcaExpect
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

func floatsOf(raw []json.RawMessage) []float64 {
	out := make([]float64, len(raw))
	for i, r := range raw {
		out[i] = fixtures.Float(r)
	}
	return out
}

// checkPCA compares a fit with numpy's SVD: explained variance and its
// ratio to 1e-9 relative, component directions and scores to 1e-9 up to
// each component's sign.
func checkPCA(t *testing.T, p *PCA, e pcaExpect, x mat.Matrix) {
	t.Helper()
	const tol = 1e-9
	if p.Components() != e.K {
		t.Fatalf("%d components, want %d", p.Components(), e.K)
	}
	for j, want := range floatsOf(e.Mean) {
		if got := p.Mean()[j]; !relClose(got, want, 1e-12) {
			t.Errorf("mean %d = %v, numpy %v", j, got, want)
		}
	}
	wantVar, wantRatio := floatsOf(e.Var), floatsOf(e.Ratio)
	for k, got := range p.ExplainedVariance() {
		if !relClose(got, wantVar[k], tol) {
			t.Errorf("explained variance %d = %v, numpy %v", k, got, wantVar[k])
		}
		if r := p.ExplainedVarianceRatio()[k]; !relClose(r, wantRatio[k], tol) {
			t.Errorf("explained variance ratio %d = %v, numpy %v", k, r, wantRatio[k])
		}
	}
	vecs := p.Vectors()
	signs := make([]float64, e.K)
	for k := 0; k < e.K; k++ {
		want := floatsOf(e.Components[k])
		got := mat.Col(nil, k, vecs)
		signs[k] = 1
		if got[0]*want[0] < 0 {
			signs[k] = -1
		}
		for j := range want {
			if math.Abs(signs[k]*got[j]-want[j]) > tol {
				t.Errorf("component %d[%d] = %v, numpy %v (up to sign)", k, j, got[j], want[j])
			}
		}
	}
	var scores mat.Dense
	if err := p.Project(&scores, x); err != nil {
		t.Fatal(err)
	}
	for i, row := range e.Scores {
		for k, want := range floatsOf(row) {
			if got := signs[k] * scores.At(i, k); math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
				t.Fatalf("score [%d,%d] = %v, numpy %v (up to sign)", i, k, got, want)
			}
		}
	}
}

func TestPCANumpy(t *testing.T) {
	e := loadPCA(t)
	x := loadMatrix(t, "pca_data.npy")
	t.Run("FitPCA", func(t *testing.T) {
		p, err := FitPCA(x, &PCAOptions{Components: e.K})
		if err != nil {
			t.Fatal(err)
		}
		if p.Rows() != e.Rows {
			t.Errorf("fit on %d rows, want %d", p.Rows(), e.Rows)
		}
		checkPCA(t, p, e, x)
	})
	for _, batch := range []int{1, 50, 400} {
		t.Run("PCAFitter/batch"+itoa(batch), func(t *testing.T) {
			// A sample at least as large as the data is the full data.
			f, err := NewPCAFitter(e.Cols, &PCAOptions{Components: e.K, SampleRows: 1000})
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < e.Rows; i += batch {
				if err := f.Add(sliceRows(x, i, min(i+batch, e.Rows))); err != nil {
					t.Fatal(err)
				}
			}
			p, err := f.Fit()
			if err != nil {
				t.Fatal(err)
			}
			checkPCA(t, p, e, x)
			// Projecting batch by batch gives the same scores.
			whole := mat.NewDense(e.Rows, e.K, nil)
			if err := p.Project(whole, x); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < e.Rows; i += batch {
				var part mat.Dense
				if err := p.Project(&part, sliceRows(x, i, min(i+batch, e.Rows))); err != nil {
					t.Fatal(err)
				}
				if !mat.EqualApprox(&part, whole.Slice(i, min(i+batch, e.Rows), 0, e.K), 1e-12) {
					t.Fatalf("batch projection at row %d differs", i)
				}
			}
		})
	}
}

// TestPCASample fits on a 120-row reservoir sample: the fit must be the
// exact stat.PC fit of the rows it kept, and close to the full-data one.
func TestPCASample(t *testing.T) {
	e := loadPCA(t)
	x := loadMatrix(t, "pca_data.npy")
	f, err := NewPCAFitter(e.Cols, &PCAOptions{Components: 2, SampleRows: 120, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < e.Rows; i += 64 {
		if err := f.Add(sliceRows(x, i, min(i+64, e.Rows))); err != nil {
			t.Fatal(err)
		}
	}
	if f.Rows() != int64(e.Rows) {
		t.Fatalf("Rows() = %d", f.Rows())
	}
	p, err := f.Fit()
	if err != nil {
		t.Fatal(err)
	}
	kept := mat.NewDense(120, e.Cols, f.data)
	// Every kept row is a row of x.
	for i := 0; i < 120; i++ {
		found := false
		for r := 0; r < e.Rows && !found; r++ {
			found = mat.Equal(kept.RowView(i), mat.NewVecDense(e.Cols, mat.Row(nil, r, x)))
		}
		if !found {
			t.Fatalf("sample row %d is not a row of the data", i)
		}
	}
	ref, err := FitPCA(kept, &PCAOptions{Components: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(p.Vectors(), ref.Vectors()) || p.Rows() != 120 {
		t.Error("sample fit differs from the fit of the sampled rows")
	}
	// The leading component of a 120-row sample is close to numpy's.
	want := floatsOf(e.Components[0])
	got := mat.Col(nil, 0, p.Vectors())
	dot := 0.0
	for j := range want {
		dot += got[j] * want[j]
	}
	if math.Abs(dot) < 0.99 {
		t.Errorf("sampled first component %v is far from numpy's %v (|cos| = %v)", got, want, math.Abs(dot))
	}
}

func TestPCARefusals(t *testing.T) {
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"one row", func() error { _, err := FitPCA(mat.NewDense(1, 3, nil), nil); return err }, ErrShape},
		{"too many components", func() error { _, err := NewPCAFitter(3, &PCAOptions{Components: 4}); return err }, nil},
		{"no rows", func() error { f, _ := NewPCAFitter(3, nil); _, err := f.Fit(); return err }, ErrShape},
		{"wrong columns", func() error { f, _ := NewPCAFitter(3, nil); return f.Add(mat.NewDense(2, 2, nil)) }, ErrShape},
		{"over the limit", func() error {
			f, _ := NewPCAFitter(3, &PCAOptions{MaxElements: 10})
			return f.Add(mat.NewDense(4, 3, nil))
		}, ErrTooLarge},
		{"project wrong columns", func() error {
			p, err := FitPCA(base(5, 3), nil)
			if err != nil {
				return err
			}
			return p.Project(&mat.Dense{}, base(2, 4))
		}, ErrShape},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}
