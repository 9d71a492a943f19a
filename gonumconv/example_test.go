package gonumconv_test

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/npyflow/npyflow/gonumconv"
	"github.com/npyflow/npyflow/npyio"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Load a matrix numpy saved and compute its covariance with gonum. The
// Dense is a view of the array read from the file (no copy).
func Example_covariance() {
	a, err := npyio.ReadFile("testdata/small.npy", nil)
	if err != nil {
		log.Fatal(err)
	}
	x, err := gonumconv.Dense(a, nil)
	if err != nil {
		log.Fatal(err)
	}
	var cov mat.SymDense
	stat.CovarianceMatrix(&cov, x, nil) // like np.cov(x, rowvar=False)
	fmt.Printf("%.5g\n", mat.Formatted(&cov))
	// Output:
	// ⎡    2.5    4.875    0.125⎤
	// ⎢  4.875    9.675  0.20625⎥
	// ⎣  0.125  0.20625  0.08125⎦
}

// Save a gonum result for numpy: the transpose of a Dense is written in
// Fortran order straight from the Dense's memory, exactly as np.save
// writes a.T, so np.load gives the same array.
func Example_save() {
	x := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	dir, err := os.MkdirTemp("", "gonumconv")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "xt.npy")
	if err := gonumconv.SaveMatrix(name, x.T()); err != nil {
		log.Fatal(err)
	}
	h, err := readHeader(name)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(h.Text)
	// Output:
	// {'descr': '<f8', 'fortran_order': True, 'shape': (3, 2), }
}

func readHeader(name string) (*npyio.Header, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return npyio.ReadHeader(bytes.NewReader(b), nil)
}

// Describe a matrix batch by batch, with numpy's defaults (np.std with
// ddof=0, np.quantile's linear interpolation).
func ExampleDescriber() {
	a, err := npyio.ReadFile("testdata/small.npy", nil)
	if err != nil {
		log.Fatal(err)
	}
	x, err := gonumconv.Dense(a, nil)
	if err != nil {
		log.Fatal(err)
	}
	d, err := gonumconv.NewDescriber(3, &gonumconv.DescribeOptions{Quantiles: []float64{0.5}})
	if err != nil {
		log.Fatal(err)
	}
	for i := 0; i < 5; i += 2 { // batches of two rows
		if err := d.Add(x.Slice(i, min(i+2, 5), 0, 3)); err != nil {
			log.Fatal(err)
		}
	}
	res, err := d.Result()
	if err != nil {
		log.Fatal(err)
	}
	for j, c := range res.Columns {
		fmt.Printf("col %d: n=%d mean=%.4g std=%.4g min=%g median=%g max=%g\n", j, c.Count, c.Mean, c.Std, c.Min, c.Quantiles[0], c.Max)
	}
	// Output:
	// col 0: n=5 mean=3 std=1.414 min=1 median=3 max=5
	// col 1: n=5 mean=5.6 std=2.782 min=2 median=5 max=9.5
	// col 2: n=5 mean=0.6 std=0.255 min=0.25 median=0.5 max=1
}

// Fit principal components and project rows onto the first one (numpy
// gives the same: np.linalg.svd of the centred data).
func ExampleFitPCA() {
	x := mat.NewDense(4, 2, []float64{
		1, 1,
		2, 2,
		3, 3,
		4, 4.5,
	})
	p, err := gonumconv.FitPCA(x, &gonumconv.PCAOptions{Components: 1})
	if err != nil {
		log.Fatal(err)
	}
	var scores mat.Dense
	if err := p.Project(&scores, x); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("explained variance ratio %.4f\n", p.ExplainedVarianceRatio()[0])
	fmt.Printf("scores %.3f\n", mat.Formatted(scores.T()))
	// Output:
	// explained variance ratio 0.9972
	// scores [-2.210  -0.800   0.611   2.399]
}

// Stream selected fields of a structured array into a matrix.
func ExampleFields() {
	f, err := os.Open("testdata/rec.npy")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		log.Fatal(err)
	}
	r, err := npyio.NewReaderAt(f, st.Size(), nil)
	if err != nil {
		log.Fatal(err)
	}
	m, err := gonumconv.Fields(r, []string{"id", "pos"}, &gonumconv.Options{Convert: true})
	if err != nil {
		log.Fatal(err)
	}
	rows, cols := m.Dims()
	fmt.Println(rows, cols, m.At(0, 0), m.At(299, 0))
	// Output:
	// 300 4 -150 149
}
