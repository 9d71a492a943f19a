package pipeline

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/npyflow/npyflow/gonumconv"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
	"github.com/npyflow/npyflow/pipeline/job"
	"gonum.org/v1/gonum/mat"
)

// The describe and pca transforms: aggregations built on gonumconv. They
// consume every row batch by batch and, at the end, emit one small table
// as a single part named after the transform.

// numCols picks numeric columns out of rows and widens them to float64.
type numCols struct {
	names   []string
	offs    []int
	dts     []*npyio.DType
	rowSize int
	buf     []float64
	lane    rowbytes.Lane
}

// newNumCols selects the columns named in the component's fields option
// (default: every numeric one). A plain array's columns are its elements
// along axis 1, named "0", "1", ... Fields in skip are left out of the
// default (pca's keep columns).
func newNumCols(c *job.Component, in *Schema, fields []string, skip map[string]bool) (*numCols, error) {
	n := &numCols{rowSize: int(in.RowSize())}
	if in.DType.Kind != npyio.Struct {
		if !castable(in.DType) || len(in.Shape) > 1 {
			return nil, c.Errorf("input", "%s needs numbers in rows of at most one axis, but the input is %s", c.Type, in)
		}
		if len(fields) > 0 {
			return nil, c.Errorf("fields", "the input is a plain array, not records: it has no named fields")
		}
		cols := 1
		if len(in.Shape) == 1 {
			cols = in.Shape[0]
		}
		for j := 0; j < cols; j++ {
			n.names = append(n.names, strconv.Itoa(j))
			n.offs = append(n.offs, j*in.DType.Size)
			n.dts = append(n.dts, in.DType)
		}
		if cols == 0 {
			return nil, c.Errorf("input", "the rows have no columns")
		}
		return n, nil
	}
	if len(fields) > 0 {
		for i, name := range fields {
			k := rowbytes.FieldIndex(in.DType, name)
			if k < 0 {
				return nil, noField(c, "fields", i, name, in.DType)
			}
			f := in.DType.Fields[k]
			if !castable(f.Type) || len(f.Shape) > 0 {
				return nil, c.ItemErrorf("fields", i, "field %q is %s%s, not a numeric scalar (flatten subarrays, cast float16)", name, f.Type, shapeIf(f.Shape))
			}
			n.names, n.offs, n.dts = append(n.names, name), append(n.offs, f.Offset), append(n.dts, f.Type)
		}
		return n, nil
	}
	for _, f := range in.DType.Fields {
		if castable(f.Type) && len(f.Shape) == 0 && !skip[f.Name] {
			n.names, n.offs, n.dts = append(n.names, f.Name), append(n.offs, f.Offset), append(n.dts, f.Type)
		}
	}
	if len(n.names) == 0 {
		return nil, c.Errorf("input", "the input has no numeric scalar fields to %s", c.Type)
	}
	return n, nil
}

func shapeIf(s []int) string {
	if len(s) == 0 {
		return ""
	}
	return " " + npyio.FormatShape(s)
}

// matrix returns the batch's selected columns as a rows×cols Dense backed
// by a reused buffer.
func (n *numCols) matrix(b Batch) *mat.Dense {
	cols := len(n.names)
	need := b.Rows * cols
	if cap(n.buf) < need {
		n.buf = make([]float64, need)
	}
	buf := n.buf[:need]
	l := &n.lane
	for j := range n.names {
		for r0 := 0; r0 < b.Rows; r0 += castChunk {
			m := min(castChunk, b.Rows-r0)
			so := r0*n.rowSize + n.offs[j]
			vals := l.Floats(l.Load(n.dts[j], b.Data, so, n.rowSize, m), m)
			for i, v := range vals {
				buf[(r0+i)*cols+j] = v
			}
		}
	}
	return mat.NewDense(b.Rows, cols, buf)
}

// aggregate is the node shared by describe and pca.
type aggregate struct {
	base
	c      *job.Component
	cols   *numCols
	add    func(m mat.Matrix) error
	result func() (Batch, error)
	nrows  int64 // rows emitted
}

func (a *aggregate) Begin(*Part) error { return nil }
func (a *aggregate) End(*Part) error   { return nil }
func (a *aggregate) Push(b Batch) error {
	if b.Rows == 0 {
		return nil
	}
	if err := a.add(a.cols.matrix(b)); err != nil {
		return fmt.Errorf("%s: %w", a.c.Path(), err)
	}
	return nil
}

func (a *aggregate) part() *Part {
	n := a.c.Name
	return &Part{Source: n, Path: n, Rows: a.nrows, Vars: map[string]string{"source": n, "stem": n, "name": n, "dir": "", "member": "", "index": "0"}}
}

func (a *aggregate) planParts([]*Part) []*Part { return []*Part{a.part()} }
func (a *aggregate) planRows(int64, bool) (int64, bool) {
	return a.nrows, true
}

func (a *aggregate) Finish() error {
	b, err := a.result()
	if err != nil {
		return fmt.Errorf("%s: %w", a.c.Path(), err)
	}
	p := a.part()
	if err := a.out.Begin(p); err != nil {
		return err
	}
	if err := a.out.Push(b); err != nil {
		return err
	}
	return a.out.End(p)
}

// tableBuilder lays out a small result table.
type tableBuilder struct {
	dt   *npyio.DType
	rows int
	data []byte
}

func newTable(fields []npyio.Field, rows int) (*tableBuilder, error) {
	dt, err := npyio.NewStruct(fields)
	if err != nil {
		return nil, err
	}
	return &tableBuilder{dt: dt, rows: rows, data: make([]byte, rows*dt.Size)}, nil
}

func (t *tableBuilder) f64(row, field int, v float64) {
	rowbytes.Store(t.data, row*t.dt.Size+t.dt.Fields[field].Offset, v)
}

func (t *tableBuilder) i64(row, field int, v int64) {
	rowbytes.Store(t.data, row*t.dt.Size+t.dt.Fields[field].Offset, v)
}

func (t *tableBuilder) str(row, field int, s string) {
	f := t.dt.Fields[field]
	off := row*t.dt.Size + f.Offset
	rowbytes.PutUCS4(t.data[off:off+f.Type.Size], s)
}

func (t *tableBuilder) batch() Batch { return Batch{Rows: t.rows, Data: t.data} }

func maxLen(names []string) int {
	n := 1
	for _, s := range names {
		n = max(n, len([]rune(s)))
	}
	return n
}

func quantileName(p float64) string {
	s := strconv.FormatFloat(p*100, 'f', -1, 64)
	return "q" + strings.ReplaceAll(s, ".", "_")
}

func buildDescribe(c *job.Component, in *Schema, _ *buildEnv) (node, error) {
	o := job.Options[describeTransformOpts](c)
	cols, err := newNumCols(c, in, o.Fields, nil)
	if err != nil {
		return nil, err
	}
	var probs []float64
	for i, q := range o.Quantiles {
		p, err := strconv.ParseFloat(q, 64)
		if err != nil || !(p >= 0 && p <= 1) {
			return nil, c.ItemErrorf("quantiles", i, "%q is not a probability between 0 and 1", q)
		}
		probs = append(probs, p)
	}
	if probs == nil {
		probs = []float64{0.25, 0.5, 0.75}
	}
	opts := &gonumconv.DescribeOptions{Quantiles: probs, DDOF: int(o.Ddof), SkipNaN: o.SkipNan, Sample: int(o.Sample)}
	d, err := gonumconv.NewDescriber(len(cols.names), opts)
	if err != nil {
		return nil, c.Errorf("", "%v", err)
	}
	name, _ := npyio.NewString(npyio.Unicode, maxLen(cols.names))
	fields := []npyio.Field{{Name: "column", Type: name}, {Name: "count", Type: npyio.Int64Type},
		{Name: "mean", Type: npyio.Float64Type}, {Name: "std", Type: npyio.Float64Type}, {Name: "min", Type: npyio.Float64Type}}
	for _, p := range probs {
		fields = append(fields, npyio.Field{Name: quantileName(p), Type: npyio.Float64Type})
	}
	fields = append(fields, npyio.Field{Name: "max", Type: npyio.Float64Type})
	dt, err := npyio.NewStruct(fields)
	if err != nil {
		return nil, c.Errorf("quantiles", "%v", err)
	}
	a := &aggregate{c: c, cols: cols, add: d.Add, nrows: int64(len(cols.names))}
	a.schema = &Schema{DType: dt}
	a.result = func() (Batch, error) {
		res, err := d.Result()
		if err != nil {
			return Batch{}, err
		}
		t, err := newTable(fields, len(cols.names))
		if err != nil {
			return Batch{}, err
		}
		for j, cs := range res.Columns {
			t.str(j, 0, cols.names[j])
			t.i64(j, 1, cs.Count)
			t.f64(j, 2, cs.Mean)
			t.f64(j, 3, cs.Std)
			t.f64(j, 4, cs.Min)
			for k, q := range cs.Quantiles {
				t.f64(j, 5+k, q)
			}
			t.f64(j, 5+len(probs), cs.Max)
		}
		return t.batch(), nil
	}
	return a, nil
}

func buildPCA(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	o := job.Options[pcaTransformOpts](c)
	scores := o.Output == "scores"
	if len(o.Keep) > 0 && !scores {
		return nil, c.Errorf("keep", "keep applies to output: scores (the components output has one row per component)")
	}
	var keep []int
	skip := map[string]bool{}
	if len(o.Keep) > 0 {
		if in.DType.Kind != npyio.Struct || len(in.Shape) > 0 {
			return nil, c.Errorf("keep", "the input is %s, not records: it has no named columns to keep", in)
		}
		for i, name := range o.Keep {
			j := rowbytes.FieldIndex(in.DType, name)
			if j < 0 {
				return nil, noField(c, "keep", i, name, in.DType)
			}
			if skip[name] {
				return nil, c.ItemErrorf("keep", i, "column %q listed twice", name)
			}
			skip[name] = true
			keep = append(keep, j)
		}
	}
	cols, err := newNumCols(c, in, o.Fields, skip)
	if err != nil {
		return nil, err
	}
	k := int(o.Components)
	if k > len(cols.names) {
		return nil, c.Errorf("components", "%d components of %d columns: at most %d", k, len(cols.names), len(cols.names))
	}
	if scores {
		return newPCAScores(c, in, env, cols, keep, k)
	}
	f, err := gonumconv.NewPCAFitter(len(cols.names), &gonumconv.PCAOptions{Components: k, SampleRows: int(o.SampleRows), Seed: uint64(o.Seed)})
	if err != nil {
		return nil, c.Errorf("", "%v", err)
	}
	fields := []npyio.Field{{Name: "component", Type: npyio.Int64Type},
		{Name: "explained_variance", Type: npyio.Float64Type}, {Name: "explained_variance_ratio", Type: npyio.Float64Type}}
	seen := map[string]bool{"component": true, "explained_variance": true, "explained_variance_ratio": true}
	for _, n := range cols.names {
		if seen[n] {
			return nil, c.Errorf("fields", "column %q clashes with a result column; rename it first", n)
		}
		fields = append(fields, npyio.Field{Name: n, Type: npyio.Float64Type})
	}
	dt, err := npyio.NewStruct(fields)
	if err != nil {
		return nil, c.Errorf("", "%v", err)
	}
	a := &aggregate{c: c, cols: cols, add: f.Add, nrows: int64(k)}
	a.schema = &Schema{DType: dt}
	a.result = func() (Batch, error) {
		p, err := f.Fit()
		if err != nil {
			return Batch{}, err
		}
		t, err := newTable(fields, p.Components())
		if err != nil {
			return Batch{}, err
		}
		ev, ratio, vecs := p.ExplainedVariance(), p.ExplainedVarianceRatio(), p.Vectors()
		for j := 0; j < p.Components(); j++ {
			t.i64(j, 0, int64(j))
			t.f64(j, 1, ev[j])
			t.f64(j, 2, ratio[j])
			for i := range cols.names {
				t.f64(j, 3+i, vecs.At(i, j))
			}
		}
		return t.batch(), nil
	}
	return a, nil
}
