package parquetio

import (
	"fmt"
	"slices"
	"sort"

	"github.com/npyflow/npyflow/npyio"
)

// validRef locates a row's validity byte (Options.Nulls): byte off of
// the row in data source src.
type validRef struct{ src, off int }

// applyNulls makes each column named in nulls OPTIONAL, null where its
// validity column is false, and leaves the validity columns out of the
// schema (see Options.Nulls). It runs once, before the writer plans.
func (s *Schema) applyNulls(nulls map[string]string) error {
	if len(nulls) == 0 {
		return nil
	}
	top := map[string]*node{}
	for _, f := range s.fields {
		top[f.name] = f
	}
	cols := make([]string, 0, len(nulls))
	for c := range nulls {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	drop := map[*node]bool{}
	for _, c := range cols {
		v := nulls[c]
		n, vn := top[c], top[v]
		switch {
		case n == nil:
			return fmt.Errorf("parquetio: Options.Nulls: no top-level column %q", c)
		case vn == nil:
			return fmt.Errorf("parquetio: Options.Nulls: column %q: no top-level column %q for its validity", c, v)
		case vn == n:
			return fmt.Errorf("parquetio: Options.Nulls: column %q is its own validity", c)
		case vn.leaf == nil || vn.dt.Kind != npyio.Bool || len(vn.dims) > 0:
			return fmt.Errorf("parquetio: Options.Nulls: column %q: validity column %q is %s, not a scalar bool", c, v, vn.dt.TypeStr())
		case nulls[v] != "":
			return fmt.Errorf("parquetio: Options.Nulls: validity column %q has a validity column itself", v)
		}
		ref := &validRef{src: vn.leaf.src, off: vn.leaf.entries[0].off}
		if n.leaf != nil && len(n.dims) == 0 {
			n.leaf.valid, n.leaf.nullable = ref, true
		} else {
			n.nullable = true
			n.walkLeaves(func(l *leaf) {
				l.valid = ref
				for i := range l.entries {
					l.entries[i].def++
				}
			})
		}
		drop[vn] = true
	}
	s.fields = slices.DeleteFunc(s.fields, func(n *node) bool { return drop[n] })
	s.nulls = true
	s.index()
	for _, f := range s.fields {
		if f.nullable {
			f.walkLeaves(func(l *leaf) { l.maxDef++ })
		}
	}
	return nil
}
