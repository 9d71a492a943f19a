package pipeline

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/npyflow/npyflow/gonumconv"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
	"github.com/npyflow/npyflow/pipeline/job"
	"gonum.org/v1/gonum/mat"
)

// pca with output: scores. The fit needs every row (or the sample) before
// the first score, so the node holds the rows it will project:
//
//   - fitting on every row (sample_rows: 0), the rows' float64 values are
//     what stat.PC fits anyway; they and the kept columns stay in memory,
//     at most pcaHoldBytes, past which the run fails naming sample_rows;
//   - fitting on a sample, only the sample is in memory (gonumconv's
//     reservoir); every row's values and kept columns are spilled to a
//     temporary file, read back batch by batch to project, and removed.
//
// The node replays the input's parts (Begin, batches, End) when it
// finishes, so per-input sink paths work and rows keep their order.

// pcaHoldBytes limits what a full-data scores fit holds in memory: 2 GiB,
// gonumconv's default limit for a fit.
var pcaHoldBytes int64 = gonumconv.DefaultMaxElements * 8

// pcaEmitBytes is about the size of the batches the scores are emitted in.
const pcaEmitBytes = 4 << 20

type heldPart struct {
	p    *Part
	rows int64
}

type pcaScores struct {
	base
	c    *job.Component
	env  *buildEnv
	cols *numCols
	k    int
	keep *projection // nil without keep columns
	ks   int         // bytes of a row's kept columns
	out0 int         // offset of pc1 in an output row
	opts gonumconv.PCAOptions

	fitter *gonumconv.PCAFitter // sampled fit
	vals   []float64            // full fit: every row's values, row-major
	kept   []byte               // full fit: every row's kept columns
	spill  *os.File             // sampled fit: rows as values then kept columns
	spillW *bufio.Writer
	rows   int64
	parts  []heldPart
}

func newPCAScores(c *job.Component, in *Schema, env *buildEnv, cols *numCols, keep []int, k int) (node, error) {
	o := job.Options[pcaTransformOpts](c)
	s := &pcaScores{c: c, env: env, cols: cols, k: k,
		opts: gonumconv.PCAOptions{Components: k, SampleRows: int(o.SampleRows), Seed: uint64(o.Seed)}}
	var fields []npyio.Field
	if len(keep) > 0 {
		p, dt, err := newProjection(in.DType, keep)
		if err != nil {
			return nil, c.Errorf("keep", "%v", err)
		}
		s.keep, s.ks = p, dt.Size
		for _, f := range dt.Fields {
			fields = append(fields, npyio.Field{Name: f.Name, Type: f.Type, Shape: f.Shape})
		}
	}
	for j := 1; j <= k; j++ {
		name := "pc" + strconv.Itoa(j)
		if i := rowbytes.FieldIndex(in.DType, name); i >= 0 && s.keep != nil {
			for n, kn := range o.Keep {
				if kn == name {
					return nil, c.ItemErrorf("keep", n, "column %q clashes with a score column; rename it first", name)
				}
			}
		}
		fields = append(fields, npyio.Field{Name: name, Type: npyio.Float64Type})
	}
	dt, err := npyio.NewStruct(fields)
	if err != nil {
		return nil, c.Errorf("", "%v", err)
	}
	s.out0 = dt.Fields[len(fields)-k].Offset
	if s.opts.SampleRows > 0 {
		if s.fitter, err = gonumconv.NewPCAFitter(len(cols.names), &s.opts); err != nil {
			return nil, c.Errorf("sample_rows", "%v", err)
		}
	}
	s.schema = &Schema{DType: dt}
	return s, nil
}

// heldRow is the bytes one held row takes.
func (s *pcaScores) heldRow() int64 { return int64(8*len(s.cols.names) + s.ks) }

func (s *pcaScores) Begin(p *Part) error {
	s.parts = append(s.parts, heldPart{p: p})
	return nil
}

func (s *pcaScores) End(*Part) error { return nil }

func (s *pcaScores) Push(b Batch) error {
	if b.Rows == 0 {
		return nil
	}
	if len(s.parts) == 0 {
		s.parts = append(s.parts, heldPart{})
	}
	m := s.cols.matrix(b)
	vals := m.RawMatrix().Data[:b.Rows*len(s.cols.names)]
	var kept []byte
	if s.keep != nil {
		kb, _ := s.keep.apply(b)
		kept = kb.Data
	}
	if s.fitter == nil {
		if (s.rows+int64(b.Rows))*s.heldRow() > pcaHoldBytes {
			return fmt.Errorf("%s: scores of a fit on every row hold each row's values and kept columns in memory: over %d rows that exceeds %d MiB; set sample_rows to fit on a sample (the rows are then spilled to a temporary file)",
				s.c.Path(), s.rows, pcaHoldBytes>>20)
		}
		s.vals = append(s.vals, vals...)
		s.kept = append(s.kept, kept...)
	} else {
		if err := s.fitter.Add(m); err != nil {
			return fmt.Errorf("%s: %w", s.c.Path(), err)
		}
		if err := s.spillRows(b.Rows, vals, kept); err != nil {
			return fmt.Errorf("%s: spilling rows for the scores: %w", s.c.Path(), err)
		}
	}
	s.rows += int64(b.Rows)
	s.parts[len(s.parts)-1].rows += int64(b.Rows)
	return nil
}

func (s *pcaScores) spillRows(rows int, vals []float64, kept []byte) error {
	if s.spill == nil {
		var f *os.File
		var err error
		if s.env != nil && s.env.out != nil {
			f, err = s.env.out.scratch(os.TempDir())
		} else {
			f, err = os.CreateTemp("", ".npyflow-scratch-*")
		}
		if err != nil {
			return err
		}
		s.spill, s.spillW = f, bufio.NewWriterSize(f, 1<<20)
	}
	d := len(s.cols.names)
	vb := npyio.AsBytes(vals)
	for r := 0; r < rows; r++ {
		if _, err := s.spillW.Write(vb[r*8*d : (r+1)*8*d]); err != nil {
			return err
		}
		if _, err := s.spillW.Write(kept[r*s.ks : (r+1)*s.ks]); err != nil {
			return err
		}
	}
	return nil
}

// closeSpill closes and removes the spill file, if any.
func (s *pcaScores) closeSpill() {
	if s.spill != nil {
		s.spill.Close()
		os.Remove(s.spill.Name())
		s.spill, s.spillW = nil, nil
	}
}

func (s *pcaScores) Finish() (err error) {
	defer s.closeSpill()
	p, err := s.fit()
	if err != nil {
		return fmt.Errorf("%s: %w", s.c.Path(), err)
	}
	if p.Components() < s.k {
		return fmt.Errorf("%s: the fit on %d rows has only %d components, not %d; ask for at most %d", s.c.Path(), p.Rows(), p.Components(), s.k, p.Components())
	}
	d := len(s.cols.names)
	var rd io.Reader
	if s.spill != nil {
		if err := s.spillW.Flush(); err != nil {
			return fmt.Errorf("%s: spilling rows for the scores: %w", s.c.Path(), err)
		}
		if _, err := s.spill.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("%s: %w", s.c.Path(), err)
		}
		rd = bufio.NewReaderSize(s.spill, 1<<20)
	}
	outRow := s.schema.DType.Size
	chunk := max(1, pcaEmitBytes/max(outRow, int(s.heldRow())))
	var (
		raw    []byte
		vals   = make([]float64, 0, min(int64(chunk), s.rows)*int64(d))
		kept   []byte
		out    = make([]byte, min(int64(chunk), s.rows)*int64(outRow))
		scores = make([]float64, min(int64(chunk), s.rows)*int64(s.k))
		row    int64
	)
	for _, hp := range s.parts {
		if hp.p != nil {
			if err := s.out.Begin(hp.p); err != nil {
				return err
			}
		}
		for done := int64(0); done < hp.rows; {
			n := int(min(int64(chunk), hp.rows-done))
			if rd == nil {
				vals = s.vals[row*int64(d) : (row+int64(n))*int64(d)]
				kept = s.kept[row*int64(s.ks) : (row+int64(n))*int64(s.ks)]
			} else {
				hr := int(s.heldRow())
				if cap(raw) < n*hr {
					raw = make([]byte, n*hr)
				}
				raw = raw[:n*hr]
				if _, err := io.ReadFull(rd, raw); err != nil {
					return fmt.Errorf("%s: reading back spilled rows: %w", s.c.Path(), err)
				}
				vals, kept = vals[:0], kept[:0]
				for r := 0; r < n; r++ {
					for j := 0; j < d; j++ {
						vals = append(vals, rowbytes.Load[float64](raw, r*hr+8*j))
					}
					kept = append(kept, raw[r*hr+8*d:(r+1)*hr]...)
				}
			}
			dst := mat.NewDense(n, s.k, scores[:n*s.k])
			if err := p.Project(dst, mat.NewDense(n, d, vals)); err != nil {
				return fmt.Errorf("%s: %w", s.c.Path(), err)
			}
			o := out[:n*outRow]
			for r := 0; r < n; r++ {
				copy(o[r*outRow:], kept[r*s.ks:(r+1)*s.ks])
				for j := 0; j < s.k; j++ {
					rowbytes.Store(o, r*outRow+s.out0+8*j, scores[r*s.k+j])
				}
			}
			if err := s.out.Push(Batch{Rows: n, Data: o}); err != nil {
				return err
			}
			done += int64(n)
			row += int64(n)
		}
		if hp.p != nil {
			if err := s.out.End(hp.p); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *pcaScores) fit() (*gonumconv.PCA, error) {
	if s.fitter != nil {
		return s.fitter.Fit()
	}
	if s.rows < 2 {
		return nil, fmt.Errorf("%w: PCA needs at least 2 rows, got %d", gonumconv.ErrShape, s.rows)
	}
	return gonumconv.FitPCA(mat.NewDense(int(s.rows), len(s.cols.names), s.vals), &gonumconv.PCAOptions{Components: s.k})
}
