package pipeline

import (
	"fmt"
	"slices"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
)

// Schema describes the rows flowing between components: each row is one
// element of DType repeated over Shape, the array's shape after axis 0
// (empty for a table of records or a 1-d array).
type Schema struct {
	DType *npyio.DType // native byte order
	Shape []int
	// Meta, if set, describes fields beyond their dtype, by name
	// (fieldmeta.go): time zones, categories, validity fields.
	Meta map[string]*FieldMeta
}

// RowSize is the size of one row in bytes.
func (s *Schema) RowSize() int64 {
	n := int64(s.DType.Size)
	for _, d := range s.Shape {
		n *= int64(d)
	}
	return n
}

// Equal reports whether two schemas describe the same rows.
func (s *Schema) Equal(o *Schema) bool {
	return s.DType.Equal(o.DType) && slices.Equal(s.Shape, o.Shape)
}

// String describes the schema like numpy: the dtype, then the row shape.
func (s *Schema) String() string {
	d := s.DType.String()
	if len(s.Shape) == 0 {
		return d
	}
	return fmt.Sprintf("%s, row shape %s", d, npyio.FormatShape(s.Shape))
}

// Columns lists a struct schema's fields one per line ("name: dtype"), or
// the element type for a plain array.
func (s *Schema) Columns() []string {
	if s.DType.Kind != npyio.Struct {
		return []string{s.String()}
	}
	var out []string
	for _, f := range s.DType.Fields {
		t := f.Type.String()
		if len(f.Shape) > 0 {
			t += " " + npyio.FormatShape(f.Shape)
		}
		out = append(out, f.Name+": "+t)
	}
	return out
}

// Part is one unit of input: one .npy file, one member of an archive
// (.npz member, HDF5 dataset, MAT-file array), one Parquet/Arrow file, or
// an archive read as one table. Parts are the unit of parallel reading
// (and of sharding): per-input outputs are named after them.
type Part struct {
	Source string            // the source component's name
	Index  int               // position among the source's parts
	Path   string            // the file
	Member string            // the archive member, or ""
	Size   int64             // bytes on disk (or in the archive) of the input
	Rows   int64             // rows, from the header
	Vars   map[string]string // values for output path templates: captures, stem, name, member, array, source
	rank   int               // global position in the run's order
	zeroD  bool              // a 0-d array (shape ()), read as one row
	// schema is the part's rows when its source's parts differ (see
	// fileSource.mixed); nil: the source's.
	schema *Schema
	// cols are the members of an archive read as one table (table.go).
	cols []string
	// raw is the part's rows as its file holds them (its strings may be
	// narrower than the source's, see widen.go).
	raw *Schema
	// dtype is the part's dtype as its file stores it (byte order
	// included): a sink writing one part as it reads it keeps it.
	dtype *npyio.DType
	// fortran is the file's fortran_order: a Parquet sink writing one
	// part as it reads it records it (parquetio.Column.FortranOrder).
	fortran bool
}

// String is the part's name in messages: its path, then ":member" for
// a member of an archive.
func (p *Part) String() string {
	if p.Member != "" {
		return p.Path + ":" + p.Member
	}
	return p.Path
}

// Batch is a run of rows in native byte order and C order. A batch's Data
// is owned by whoever sent it and valid only during the Push call that
// delivers it: keep a copy to retain it.
type Batch struct {
	Rows int
	Data []byte
}

// node is a running component. Events arrive depth-first from one
// goroutine, in the order of the parts: Begin(p), Push..., End(p) for each
// part of each input, then Finish once after every input finished.
type node interface {
	Schema() *Schema
	Begin(p *Part) error
	Push(b Batch) error
	End(p *Part) error
	Finish() error
}

// planner is implemented by nodes that change the number of rows or parts,
// for plan's estimates.
type planner interface {
	// planRows gives the rows out for rows in; exact reports whether the
	// count is exact rather than an upper bound.
	planRows(rows int64, exact bool) (int64, bool)
}

// partPlanner is implemented by nodes that replace their input parts (the
// aggregations, which emit one part of results).
type partPlanner interface {
	planParts(in []*Part) []*Part
}

// fanout forwards events to every consumer of a node.
type fanout []node

func (f fanout) Begin(p *Part) error { return f.each(func(n node) error { return n.Begin(p) }) }
func (f fanout) Push(b Batch) error  { return f.each(func(n node) error { return n.Push(b) }) }
func (f fanout) End(p *Part) error   { return f.each(func(n node) error { return n.End(p) }) }

// each calls fn for every consumer in order, up to the first error.
func (f fanout) each(fn func(n node) error) error {
	for _, n := range f {
		if err := fn(n); err != nil {
			return err
		}
	}
	return nil
}

// mapper is a stateless batch-by-batch transform.
type mapper struct {
	base
	fn func(b Batch) (Batch, error)
}

func (m *mapper) Push(b Batch) error {
	b, err := m.fn(b)
	if err != nil {
		return err
	}
	if b.Rows == 0 {
		return nil
	}
	return m.out.Push(b)
}

// producer is a node that feeds others.
type producer interface {
	connect(n node)
}

// base gives transforms their consumer list, and passes the parts'
// boundaries on to it.
type base struct {
	schema *Schema
	out    fanout
}

func (b *base) Schema() *Schema     { return b.schema }
func (b *base) connect(n node)      { b.out = append(b.out, n) }
func (b *base) Begin(p *Part) error { return b.out.Begin(p) }
func (b *base) End(p *Part) error   { return b.out.End(p) }
func (b *base) Finish() error       { return nil }

// pushMasked pushes the rows of b (of rowSize bytes) whose mask is true:
// b itself when all are, a slice of it when they are one run, else a
// copy gathered in *buf.
func (b *base) pushMasked(in Batch, mask []bool, rowSize int, buf *[]byte) error {
	n, lo, hi := 0, -1, -1
	for i, k := range mask {
		if k {
			if lo < 0 {
				lo = i
			}
			hi = i
			n++
		}
	}
	switch {
	case n == 0:
		return nil
	case n == hi-lo+1: // one run: no copy
		return b.out.Push(Batch{Rows: n, Data: in.Data[lo*rowSize : (hi+1)*rowSize]})
	}
	if cap(*buf) < n*rowSize {
		*buf = make([]byte, n*rowSize)
	}
	rowbytes.Gather(*buf, in.Data, rowSize, mask)
	return b.out.Push(Batch{Rows: n, Data: (*buf)[:n*rowSize]})
}
