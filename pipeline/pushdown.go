package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/expr"
	"github.com/npyflow/npyflow/pipeline/internal/foreign"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
	"github.com/npyflow/npyflow/pipeline/job"
)

// Projection pushdown: a parquet or arrow source whose consumers are
// select and drop transforms (directly or through filter and cast) reads
// and maps only the columns they keep.

// projector is a reader whose files hold columns it can leave unread
// (parquet, arrow): the source reads only those its consumers need.
type projector interface {
	// headerWith reads the header of the file's rows under fo.
	headerWith(ctx context.Context, path string, fo *foreign.Options) (*npyio.Header, error)
	// columnNames returns the file's top-level columns.
	columnNames(ctx context.Context, path string) ([]string, error)
}

// pushdown is what a parquet or arrow source need not read: the columns
// no consumer needs are not fetched and not mapped, so a column numpy has
// no type for (a MAP, a list of varying length) does not stop a job that
// selects or drops it.
type pushdown struct {
	// keep are the fields the consumers need, when they select fields;
	// nil when they need every field but drop.
	keep []string
	// drop are, with keep nil, the fields no consumer needs.
	drop []string
}

// projections returns, for each source with a columns option that names no
// columns itself, the columns its consumers need (see needOf), when
// that is not every column: a keep list (the consumers select fields: a
// select on a bucket's file then fetches only their chunks) or a drop
// list (every column of the file but those).
func projections(j *job.Job) map[string]*pushdown {
	out := map[string]*pushdown{}
	memo := map[string]need{}
	for _, src := range j.Of(job.Source) {
		if fo, ok := src.Opts().(interface{ ForeignOptions() *foreign.SourceOptions }); !ok || len(fo.ForeignOptions().Columns) > 0 {
			continue
		}
		n := needOf(j, src.Name, memo)
		switch {
		case len(n.set) == 0:
		case n.all:
			out[src.Name] = &pushdown{drop: n.set}
		default:
			out[src.Name] = &pushdown{keep: n.set}
		}
	}
	return out
}

// need is the fields a component's consumers need of its rows: every
// field but set (all), or set alone, in first-seen order.
type need struct {
	all bool
	set []string
}

// union is the fields a or b needs.
func (a need) union(b need) need {
	switch {
	case a.all && b.all:
		return need{all: true, set: slices.DeleteFunc(slices.Clone(a.set), func(f string) bool { return !slices.Contains(b.set, f) })}
	case a.all:
		return need{all: true, set: slices.DeleteFunc(slices.Clone(a.set), func(f string) bool { return slices.Contains(b.set, f) })}
	case b.all:
		return b.union(a)
	}
	set := slices.Clone(a.set)
	for _, f := range b.set {
		if !slices.Contains(set, f) {
			set = append(set, f)
		}
	}
	return need{set: set}
}

// with adds fields to n.
func (n need) with(fields []string) need { return n.union(need{set: fields}) }

// needOf returns the fields of its rows the consumers of component name
// need: a select needs its fields; drop, filter and cast (which keep
// every other field as it is) what their own consumers need, less what a
// drop drops, plus the fields a filter's predicate or a cast names; any
// other consumer (a sink, rename, a transform that reads every field)
// needs every field.
func needOf(j *job.Job, name string, memo map[string]need) need {
	if n, ok := memo[name]; ok {
		return n
	}
	memo[name] = need{all: true} // a cycle needs everything (topoOrder refuses it anyway)
	var n need
	consumers := 0
	for _, c := range j.Components {
		if !slices.Contains(c.Inputs, name) {
			continue
		}
		var in need
		switch {
		case c.Kind != job.Transform, len(c.Inputs) > 1: // inputs concatenated keep one schema

			in = need{all: true}
		case c.Type == "select":
			in = need{set: job.Options[selectTransformOpts](c).Fields}
		case c.Type == "drop":
			in = needOf(j, c.Name, memo)
			if in.all { // every field but those and the dropped ones
				for _, f := range job.Options[dropTransformOpts](c).Fields {
					if !slices.Contains(in.set, f) {
						in.set = append(slices.Clip(in.set), f)
					}
				}
			}
		case c.Type == "filter":
			in = need{all: true}
			if p, err := expr.Parse(job.Options[filterTransformOpts](c).Where); err == nil {
				in = needOf(j, c.Name, memo).with(p.Fields())
			}
		case c.Type == "cast":
			in = needOf(j, c.Name, memo)
			var fields []string
			for _, kv := range job.Options[castTransformOpts](c).Fields {
				fields = append(fields, kv.Key)
			}
			in = in.with(fields)
		default:
			in = need{all: true}
		}
		if consumers == 0 {
			n = in
		} else {
			n = n.union(in)
		}
		consumers++
	}
	if consumers == 0 {
		n = need{all: true}
	}
	memo[name] = n
	return n
}

// wrapProjected returns the header of a projection to one column as a
// table of that one field (the bytes of a plain array and of a one-field
// record are the same), so the select above it sees records.
func (s *fileSource) wrapProjected(h *npyio.Header) *npyio.Header {
	if h == nil || len(s.columns) != 1 || h.DType.Kind == npyio.Struct || len(h.Shape) != 1 {
		return h
	}
	dt, err := npyio.NewStruct([]npyio.Field{{Name: s.columns[0], Type: h.DType}})
	if err != nil || dt.Size != h.DType.Size {
		return h
	}
	w := *h
	w.DType = dt
	return &w
}

// sameFields reports whether every field of a is in b, with the same
// type and shape.
func sameFields(a, b *npyio.Header) bool {
	if a == nil || b == nil || a.DType.Kind != npyio.Struct || b.DType.Kind != npyio.Struct {
		return false
	}
	for _, fa := range a.DType.Fields {
		k := rowbytes.FieldIndex(b.DType, fa.Name)
		if k < 0 {
			return false
		}
		fb := b.DType.Fields[k]
		if !fa.Type.Equal(fb.Type) || fmt.Sprint(fa.Shape) != fmt.Sprint(fb.Shape) {
			return false
		}
	}
	return true
}

// fileColumns returns the columns of the file (named all) that give the
// fields keep: a field itself, or the column of a validity field
// ([arrowconv.ValidityName], [arrowconv.ItemsValidityName], read with the
// column); other names are kept, for the projection to fail on and the
// select to report.
func fileColumns(keep, all []string) []string {
	var out []string
	for _, f := range keep {
		c := f
		if stem, ok := strings.CutSuffix(f, arrowconv.ItemsValidityName("")); ok && !slices.Contains(all, f) && slices.Contains(all, stem) {
			c = stem
		} else if stem, ok := strings.CutSuffix(f, arrowconv.ValidityName("")); ok && !slices.Contains(all, f) && slices.Contains(all, stem) {
			c = stem
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// project sets what s need not read (see projections): with a keep list,
// the columns s reads are the fields its consumers keep, less the path
// captures; with drops, firstProjected finds them in the first file.
func (s *fileSource) project(p *pushdown) {
	s.push = p
	if p == nil {
		return
	}
	capt := map[string]bool{}
	for _, c := range s.caps {
		capt[c.Name] = true
	}
	for _, f := range p.keep {
		if !capt[f] {
			s.columns = append(s.columns, f)
		}
	}
}

// firstProjected reads the header of the first file of a source with a
// pushdown, settling the columns read (the file's columns behind the kept
// fields, see fileColumns; with drops, every column but those dropped
// whose validity field is not kept): the projection must map the fields
// as reading every column does (a file npyflow wrote is mapped from its
// metadata then) and hold them all; else every column is read and the
// select or drop says what is missing. When reading every column fails
// (a column numpy has no type for) and the projection does not, the
// projection stands: that column is one no consumer needs. The fields a
// drop's projection leaves out are recorded in env.dropped.
func (s *fileSource) firstProjected(ctx context.Context, path string, pr projector, env *buildEnv) (*npyio.Header, error) {
	read := func(path string, fo *foreign.Options) (*npyio.Header, error) { return pr.headerWith(ctx, path, fo) }
	full := foreignOf(s.c)
	all, err := pr.columnNames(ctx, path)
	if err != nil {
		s.columns = nil
		return read(path, full)
	}
	if s.push.keep != nil {
		s.columns = fileColumns(s.columns, all)
	} else {
		validity := foreignOf(s.c).Validity
		var fullNames []string // the fields of every column read, once needed
		hasItems := func(n string) bool {
			if fullNames == nil {
				fullNames = []string{}
				if fh, err := read(path, full); err == nil && fh.DType.Kind == npyio.Struct {
					for _, f := range fh.DType.Fields {
						fullNames = append(fullNames, f.Name)
					}
				}
			}
			return slices.Contains(fullNames, arrowconv.ItemsValidityName(n))
		}
		for _, n := range all {
			// A column whose validity field (or element validity field,
			// of a list) is kept is read.
			named := slices.Contains(validity, "*") || slices.Contains(validity, n)
			valid := named && slices.Contains(s.push.drop, n) && (!slices.Contains(s.push.drop, arrowconv.ValidityName(n)) || !slices.Contains(s.push.drop, arrowconv.ItemsValidityName(n)) && hasItems(n))
			if !slices.Contains(s.push.drop, n) || valid {
				s.columns = append(s.columns, n)
			}
		}
	}
	var dropped []string
	for _, n := range all {
		if !slices.Contains(s.columns, n) {
			dropped = append(dropped, n)
		}
	}
	if len(dropped) == 0 && s.push.keep == nil || len(s.columns) == 0 {
		s.columns = nil
		return read(path, full)
	}
	h, err := read(path, s.foreign())
	fh, ferr := read(path, full)
	if err != nil || ferr == nil && !sameFields(s.wrapProjected(h), fh) {
		s.columns = nil
		return fh, ferr
	}
	if len(dropped) > 0 {
		if env.dropped == nil {
			env.dropped = map[string][]string{}
		}
		env.dropped[s.c.Name] = dropped
	}
	return s.wrapProjected(h), nil
}
