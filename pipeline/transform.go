package pipeline

import (
	"math"
	"slices"
	"strconv"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
	"github.com/npyflow/npyflow/pipeline/job"
)

// needRecords checks that a transform's input is a table of records.
func needRecords(c *job.Component, in *Schema) error {
	if in.DType.Kind != npyio.Struct || len(in.Shape) > 0 {
		return c.Errorf("input", "%s works on records (a structured dtype), but the input is %s; add a flatten step first", c.Type, in)
	}
	return nil
}

// noField is the error for a field name missing from the input.
func noField(c *job.Component, opt string, i int, name string, dt *npyio.DType) error {
	return c.ItemErrorf(opt, i, "%s", rowbytes.NoField(dt, name))
}

// projection copies chosen fields of each row into a packed struct.
type projection struct {
	src, dst []int // field offsets in the input and output rows
	size     []int
	inRow    int
	outRow   int
	buf      []byte
}

func newProjection(in *npyio.DType, keep []int) (*projection, *npyio.DType, error) {
	var fields []npyio.Field
	p := &projection{inRow: in.Size}
	for _, i := range keep {
		fields = append(fields, in.Fields[i])
	}
	dt, err := npyio.NewStruct(fields)
	if err != nil {
		return nil, nil, err
	}
	for k, i := range keep {
		f := in.Fields[i]
		// Merge runs of fields adjacent in both rows into one copy.
		if n := len(p.src); n > 0 && p.src[n-1]+p.size[n-1] == f.Offset && p.dst[n-1]+p.size[n-1] == dt.Fields[k].Offset {
			p.size[n-1] += f.Size()
			continue
		}
		p.src = append(p.src, f.Offset)
		p.dst = append(p.dst, dt.Fields[k].Offset)
		p.size = append(p.size, f.Size())
	}
	p.outRow = dt.Size
	return p, dt, nil
}

func (p *projection) apply(b Batch) (Batch, error) {
	need := b.Rows * p.outRow
	if cap(p.buf) < need {
		p.buf = make([]byte, need)
	}
	out := p.buf[:need]
	for r := 0; r < b.Rows; r++ {
		s := b.Data[r*p.inRow : (r+1)*p.inRow]
		d := out[r*p.outRow : (r+1)*p.outRow]
		for k, off := range p.src {
			copy(d[p.dst[k]:p.dst[k]+p.size[k]], s[off:off+p.size[k]])
		}
	}
	return Batch{Rows: b.Rows, Data: out}, nil
}

func buildSelect(c *job.Component, in *Schema, _ *buildEnv) (node, error) {
	if err := needRecords(c, in); err != nil {
		return nil, err
	}
	var keep []int
	seen := map[string]bool{}
	for i, name := range job.Options[selectTransformOpts](c).Fields {
		k := rowbytes.FieldIndex(in.DType, name)
		if k < 0 {
			return nil, noField(c, "fields", i, name, in.DType)
		}
		if seen[name] {
			return nil, c.ItemErrorf("fields", i, "field %q listed twice", name)
		}
		seen[name] = true
		keep = append(keep, k)
	}
	return newProjectionNode(in, keep)
}

func newProjectionNode(in *Schema, keep []int) (node, error) {
	p, dt, err := newProjection(in.DType, keep)
	if err != nil {
		return nil, err
	}
	return &mapper{base{schema: &Schema{DType: dt}}, p.apply}, nil
}

func buildDrop(c *job.Component, in *Schema, env *buildEnv) (node, error) {
	if err := needRecords(c, in); err != nil {
		return nil, err
	}
	// Columns the sources upstream already left out (projections) are
	// dropped.
	pushed := env.leftOut(c.Name)
	drop := map[int]bool{}
	for i, name := range job.Options[dropTransformOpts](c).Fields {
		k := rowbytes.FieldIndex(in.DType, name)
		if k < 0 && slices.Contains(pushed, name) {
			continue
		}
		if k < 0 {
			return nil, noField(c, "fields", i, name, in.DType)
		}
		drop[k] = true
	}
	var keep []int
	for i := range in.DType.Fields {
		if !drop[i] {
			keep = append(keep, i)
		}
	}
	if len(keep) == 0 {
		return nil, c.Errorf("fields", "drops every field")
	}
	return newProjectionNode(in, keep)
}

func buildRename(c *job.Component, in *Schema, _ *buildEnv) (node, error) {
	if err := needRecords(c, in); err != nil {
		return nil, err
	}
	fields := append([]npyio.Field(nil), in.DType.Fields...)
	for _, kv := range job.Options[renameTransformOpts](c).Fields {
		k := rowbytes.FieldIndex(in.DType, kv.Key)
		if k < 0 {
			return nil, &job.Error{Pos: kv.Pos, Path: c.Path() + ".fields." + kv.Key, Msg: rowbytes.NoField(in.DType, kv.Key)}
		}
		if kv.Value == "" {
			return nil, &job.Error{Pos: kv.Pos, Path: c.Path() + ".fields." + kv.Key, Msg: "the new name is empty"}
		}
		fields[k].Name = kv.Value
	}
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.Name] {
			return nil, c.Errorf("fields", "two fields would be named %q", f.Name)
		}
		seen[f.Name] = true
	}
	dt := *in.DType
	dt.Fields = fields
	return &mapper{base{schema: &Schema{DType: &dt}}, keepBatch}, nil
}

func buildFlatten(c *job.Component, in *Schema, _ *buildEnv) (node, error) {
	o := job.Options[flattenTransformOpts](c)
	sep := o.Separator
	var fields []npyio.Field
	var add func(name string, t *npyio.DType, shape []int, off int)
	add = func(name string, t *npyio.DType, shape []int, off int) {
		if len(shape) > 0 {
			n := int(prod(shape[1:])) * t.Size
			for i := 0; i < shape[0]; i++ {
				add(name+sep+strconv.Itoa(i), t, shape[1:], off+i*n)
			}
			return
		}
		if t.Kind == npyio.Struct {
			for _, f := range t.Fields {
				child := f.Name
				if name != "" {
					child = name + sep + f.Name
				}
				add(child, f.Type, f.Shape, off+f.Offset)
			}
			return
		}
		fields = append(fields, npyio.Field{Name: name, Type: t, Offset: off})
	}
	name := ""
	if in.DType.Kind != npyio.Struct {
		name = o.Column
	} else if len(in.Shape) > 0 {
		return nil, c.Errorf("input", "flatten of records with a row shape %s: unstack the rows first", npyio.FormatShape(in.Shape))
	}
	add(name, in.DType, in.Shape, 0)
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.Name] {
			return nil, c.Errorf("separator", "flattening gives two columns named %q; choose another separator", f.Name)
		}
		seen[f.Name] = true
	}
	dt := &npyio.DType{Kind: npyio.Struct, Order: npyio.NotApplicable, Size: int(in.RowSize()), Fields: fields}
	return &mapper{base{schema: &Schema{DType: dt}}, keepBatch}, nil
}

// keepBatch is the mapping of transforms that only rename the rows' fields.
func keepBatch(b Batch) (Batch, error) { return b, nil }

type unstack struct {
	base
	k   int
	idx *unstackIndex // nil: zero-copy, rows only reinterpreted
}

// unstackIndex adds int64 columns to unstacked rows: the source row's
// number in its part, then the new row's position along the unstacked
// axes (flat, or one column per axis).
type unstackIndex struct {
	rowNum  bool
	perAxis []int // the unstacked axes' lengths when one column per axis
	ncols   int   // int64 columns before the data
	inner   int   // data bytes of one new row
	outRow  int
	partRow int64 // rows of the current part seen so far
	buf     []byte
}

func buildUnstack(c *job.Component, in *Schema, _ *buildEnv) (node, error) {
	o := job.Options[unstackTransformOpts](c)
	axes := int(o.Axes)
	if axes > len(in.Shape) {
		return nil, c.Errorf("axes", "the rows have %d axes (row shape %s); cannot unstack %d", len(in.Shape), npyio.FormatShape(in.Shape), axes)
	}
	u := &unstack{k: int(prod(in.Shape[:axes]))}
	rest := append([]int(nil), in.Shape[axes:]...)
	u.schema = &Schema{DType: in.DType, Shape: rest}
	if len(o.Index) == 0 && o.RowNumber == nil {
		return u, nil
	}
	x := &unstackIndex{}
	var names []string
	var opts []string // the option each name came from, and its item
	var items []int
	if o.RowNumber != nil {
		x.rowNum = true
		names, opts, items = append(names, *o.RowNumber), append(opts, "row_number"), append(items, -1)
	}
	if len(o.Index) > 0 {
		idx := o.Index
		switch len(idx) {
		case 1:
		case axes:
			x.perAxis = append([]int(nil), in.Shape[:axes]...)
		default:
			return nil, c.Errorf("index", "give one name (the flat position along the %d unstacked axes) or %d (one per axis), not %d", axes, axes, len(idx))
		}
		for i, n := range idx {
			names, opts, items = append(names, n), append(opts, "index"), append(items, i)
		}
	}
	x.ncols = len(names)
	hdr := 8 * x.ncols
	var fields []npyio.Field
	for _, n := range names {
		fields = append(fields, npyio.Field{Name: n, Type: npyio.Int64Type, Offset: 8 * len(fields)})
	}
	if in.DType.Kind == npyio.Struct && len(rest) == 0 {
		for _, f := range in.DType.Fields {
			f.Offset += hdr
			fields = append(fields, f)
		}
	} else {
		fields = append(fields, npyio.Field{Name: o.Column, Type: in.DType, Shape: rest, Offset: hdr})
	}
	data := map[string]bool{}
	for _, f := range fields[len(names):] {
		data[f.Name] = true
	}
	seen := map[string]bool{}
	for k, n := range names {
		switch {
		case n == "":
			return nil, c.ItemErrorf(opts[k], items[k], "the column name is empty")
		case seen[n] || data[n]:
			return nil, c.ItemErrorf(opts[k], items[k], "column %q is already a column of the output; choose another name", n)
		}
		seen[n] = true
	}
	x.inner = int(in.RowSize()) / max(u.k, 1)
	if u.k == 0 {
		x.inner = 0
	}
	x.outRow = hdr + x.inner
	u.idx = x
	u.schema = &Schema{DType: &npyio.DType{Kind: npyio.Struct, Order: npyio.NotApplicable, Size: x.outRow, Fields: fields}}
	return u, nil
}

func (u *unstack) Begin(p *Part) error {
	if u.idx != nil {
		u.idx.partRow = 0
	}
	return u.out.Begin(p)
}
func (u *unstack) Push(b Batch) error {
	if u.k == 0 {
		if u.idx != nil {
			u.idx.partRow += int64(b.Rows)
		}
		return nil
	}
	if u.idx == nil {
		return u.out.Push(Batch{Rows: b.Rows * u.k, Data: b.Data})
	}
	// Copy with the index columns, in groups of source rows whose output
	// fits about one default batch.
	x := u.idx
	inRow := len(b.Data) / b.Rows
	outPer := u.k * x.outRow
	group := max(1, DefaultBatchBytes/max(outPer, 1))
	for r0 := 0; r0 < b.Rows; r0 += group {
		n := min(group, b.Rows-r0)
		need := n * outPer
		if cap(x.buf) < need {
			x.buf = make([]byte, need)
		}
		out := x.buf[:need]
		o := 0
		for r := r0; r < r0+n; r++ {
			src := b.Data[r*inRow : (r+1)*inRow]
			for j := 0; j < u.k; j++ {
				c := 0
				if x.rowNum {
					rowbytes.Store(out, o, x.partRow)
					c++
				}
				if x.perAxis == nil {
					if c < x.ncols {
						rowbytes.Store(out, o+8*c, int64(j))
					}
				} else {
					rem := j
					for a := len(x.perAxis) - 1; a >= 0; a-- {
						rowbytes.Store(out, o+8*(c+a), int64(rem%x.perAxis[a]))
						rem /= x.perAxis[a]
					}
				}
				copy(out[o+8*x.ncols:o+x.outRow], src[j*x.inner:(j+1)*x.inner])
				o += x.outRow
			}
			x.partRow++
		}
		if err := u.out.Push(Batch{Rows: n * u.k, Data: out}); err != nil {
			return err
		}
	}
	return nil
}
func (u *unstack) planRows(rows int64, exact bool) (int64, bool) { return rows * int64(u.k), exact }

// rowSelect is slice, limit and sample: it keeps rows by their position in
// the stream (counted across parts).
type rowSelect struct {
	base
	keep    func(row int64) bool
	done    func(row int64) bool // no later row can be kept
	next    int64                // position of the next row
	rowSize int
	mask    []bool
	buf     []byte
	rows    func(rows int64, exact bool) (int64, bool)
}

func (s *rowSelect) planRows(rows int64, exact bool) (int64, bool) {
	return s.rows(rows, exact)
}

func (s *rowSelect) Push(b Batch) error {
	first := s.next
	s.next += int64(b.Rows)
	if s.done(first) {
		return nil
	}
	if cap(s.mask) < b.Rows {
		s.mask = make([]bool, b.Rows)
	}
	mask := s.mask[:b.Rows]
	for i := range mask {
		mask[i] = s.keep(first + int64(i))
	}
	return s.pushMasked(b, mask, s.rowSize, &s.buf)
}

func newRowSelect(in *Schema) *rowSelect {
	s := &rowSelect{rowSize: int(in.RowSize())}
	s.schema = in
	return s
}

func buildSlice(c *job.Component, in *Schema, _ *buildEnv) (node, error) {
	o := job.Options[sliceTransformOpts](c)
	start, step := o.Start, o.Step
	stop := int64(math.MaxInt64)
	if o.Stop != nil {
		stop = *o.Stop
	}
	s := newRowSelect(in)
	s.keep = func(r int64) bool { return r >= start && r < stop && (r-start)%step == 0 }
	s.done = func(r int64) bool { return r >= stop }
	s.rows = func(rows int64, exact bool) (int64, bool) {
		hi := min(rows, stop)
		if hi <= start {
			return 0, exact
		}
		return (hi - start + step - 1) / step, exact
	}
	return s, nil
}

func buildLimit(c *job.Component, in *Schema, _ *buildEnv) (node, error) {
	n := job.Options[limitTransformOpts](c).Rows
	s := newRowSelect(in)
	s.keep = func(r int64) bool { return r < n }
	s.done = func(r int64) bool { return r >= n }
	s.rows = func(rows int64, exact bool) (int64, bool) { return min(rows, n), exact || rows >= n }
	return s, nil
}

func buildSample(c *job.Component, in *Schema, _ *buildEnv) (node, error) {
	o := job.Options[sampleTransformOpts](c)
	frac := o.Fraction
	seed := uint64(o.Seed)
	limit := uint64(frac * (1 << 53))
	s := newRowSelect(in)
	s.keep = func(r int64) bool { return splitmix(seed^uint64(r)*0x9e3779b97f4a7c15)>>11 < limit }
	s.done = func(int64) bool { return frac == 0 }
	s.rows = func(rows int64, exact bool) (int64, bool) {
		if frac == 1 {
			return rows, exact
		}
		return rows, false
	}
	return s, nil
}

// splitmix is the SplitMix64 finalizer: a good 64-bit mix of its input.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
