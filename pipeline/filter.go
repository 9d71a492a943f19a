package pipeline

import (
	"github.com/npyflow/npyflow/pipeline/expr"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The filter transform: rows matching a predicate of package expr.

type filterNode struct {
	base
	p       *expr.Expr
	rowSize int
	mask    []bool
	buf     []byte
}

func buildFilter(c *job.Component, in *Schema, _ *buildEnv) (node, error) {
	if err := needRecords(c, in); err != nil {
		return nil, err
	}
	p, err := expr.Parse(job.Options[filterTransformOpts](c).Where)
	if err != nil {
		return nil, c.Errorf("where", "%v", err) // checked at load; not reached
	}
	if err := p.Bind(in.DType); err != nil {
		pe := err.(*expr.Error)
		e := c.Errorf("where", "%s", pe.Msg)
		e.Pos = c.PosAt("where", pe.Offset)
		return nil, e
	}
	f := &filterNode{p: p, rowSize: int(in.RowSize())}
	f.schema = in
	return f, nil
}

func (f *filterNode) planRows(rows int64, _ bool) (int64, bool) {
	return rows, false
}

func (f *filterNode) Push(b Batch) error {
	if cap(f.mask) < b.Rows {
		f.mask = make([]bool, b.Rows)
	}
	mask := f.mask[:b.Rows]
	f.p.Eval(b.Data, f.rowSize, b.Rows, mask)
	return f.pushMasked(b, mask, f.rowSize, &f.buf)
}
