package parquetio

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
)

// Validity fields of foreign files ([ReadOptions.Validity]). A column
// named (or every column, for "*") gets, right after it, a bool field
// "<column>_valid" that is false in the rows where the column is null: a
// flat column, a struct column (the struct itself is null) or a list
// column of one length (the list is null). Inside a struct column, each
// OPTIONAL field "x" gets a bool field "x_valid" right after it, inside
// the struct, false where the field has no value (it is null, or a
// struct around it is): arr["st"]["x_valid"], dotted st.x_valid. The
// null slots hold the fill value, NaN, NaT or zero bytes.
//
// A list column of one length also gets an element validity field
// arrowconv.ItemsValidityName(column) ("<column>_items_valid"), a bool
// subarray of the list's shape right after "<column>_valid" (or after
// the column): false where the element is null or the list is. A named
// column gets it; "*" gives it to each list whose elements are OPTIONAL.
// Its mask holds one byte per element of a row, recorded by the list's
// leaf slot by slot (leafDecoder.items).
//
// A validity field is a mask of the row group's rows, recorded by the
// first leaf column below its node from the definition levels: the node
// is present where a slot's level reaches the node's own.

// shownCol is one field of the rows as shown (validity fields included).
type shownCol struct {
	src    int     // the column source shown; -1 for a top-level validity field
	mask   int     // validity field: its mask
	off    int     // offset in an output row
	size   int     // bytes of one element as shown
	segs   []seg   // source element bytes -> shown element bytes; nil: the same bytes
	vbytes []vbyte // validity fields inside the element
}

// seg copies n bytes of a source element at from to a shown element at to.
type seg struct{ from, to, n int }

// vbyte is a validity field inside a shown element.
type vbyte struct{ mask, off int }

// vrec is a mask a leaf decoder records: 0 where a slot's definition
// level is below level. An items mask has one byte per list element of a
// row, 0 where the element's level is below level.
type vrec struct {
	mask  int
	level int16
	items bool
}

// vmask is a vrec resolved to its mask.
type vmask struct {
	m     *[]byte
	level int16
}

// defLevel is the definition level at which node n is present.
func defLevel(n schema.Node) int16 {
	var l int16
	for ; n != nil && n.Parent() != nil; n = n.Parent() {
		if n.RepetitionType() != parquet.Repetitions.Required {
			l++
		}
	}
	return l
}

// under reports whether node n is at or below node top.
func under(n, top schema.Node) bool {
	for ; n != nil; n = n.Parent() {
		if n == top {
			return true
		}
	}
	return false
}

// newMask adds the validity mask of node n of column src: recorded by
// the first leaf read below n, and explaining the nulls of every leaf below n. A node
// that cannot be null (not OPTIONAL) has a mask that stays true.
func (r *Reader) newMask(n schema.Node, src int) int {
	idx := len(r.masks)
	r.masks = append(r.masks, nil)
	r.maskW = append(r.maskW, 1)
	if n.RepetitionType() != parquet.Repetitions.Optional {
		return idx
	}
	level := defLevel(n)
	first := true
	for _, k := range r.srcLeaves[src] {
		if !under(r.leaves[r.conv[k].fileCol].SchemaNode(), n) {
			continue
		}
		if first {
			r.vrec[k] = append(r.vrec[k], vrec{mask: idx, level: level})
			first = false
		}
		r.explain[k] = max(r.explain[k], level)
	}
	return idx
}

// newItemsMask adds the element validity mask of list column src, whose
// element is elem and whose rows hold k elements: recorded by the list's
// leaf, and explaining every null of it (null lists and elements).
func (r *Reader) newItemsMask(elem schema.Node, src, k int) int {
	idx := len(r.masks)
	r.masks = append(r.masks, nil)
	r.maskW = append(r.maskW, k)
	level := defLevel(elem)
	for _, j := range r.srcLeaves[src] {
		r.vrec[j] = append(r.vrec[j], vrec{mask: idx, level: level, items: true})
		r.explain[j] = max(r.explain[j], level)
	}
	return idx
}

// validStruct is the struct dt of group g as shown with validity fields
// after its OPTIONAL fields (at every depth), and how its bytes move.
func (r *Reader) validStruct(g *schema.GroupNode, dt *npyio.DType, src int) (*npyio.DType, []seg, []vbyte, error) {
	if g.NumFields() != len(dt.Fields) {
		return nil, nil, nil, fmt.Errorf("parquetio: column %s: %d fields for %d", g.Path(), len(dt.Fields), g.NumFields())
	}
	type part struct {
		old  npyio.Field
		segs []seg
		vb   []vbyte
		mask int // a validity field: its mask; -1 otherwise
	}
	var fs []npyio.Field
	var parts []part
	for k := 0; k < g.NumFields(); k++ {
		ch, of := g.Field(k), dt.Fields[k]
		p := part{old: of, mask: -1}
		nf := of
		if sub, ok := ch.(*schema.GroupNode); ok && of.Type.Kind == npyio.Struct && len(of.Shape) == 0 {
			st, segs, vb, err := r.validStruct(sub, of.Type, src)
			if err != nil {
				return nil, nil, nil, err
			}
			nf.Type, p.segs, p.vb = st, segs, vb
		} else {
			p.segs = []seg{{0, 0, of.Type.Size * prod(of.Shape)}}
		}
		fs, parts = append(fs, nf), append(parts, p)
		if ch.RepetitionType() == parquet.Repetitions.Optional {
			fs = append(fs, npyio.Field{Name: arrowconv.ValidityName(ch.Name()), Type: npyio.BoolType})
			parts = append(parts, part{mask: r.newMask(ch, src)})
		}
	}
	st, err := npyio.NewStruct(fs)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("parquetio: column %s with validity fields: %w", g.Path(), err)
	}
	var segs []seg
	var vb []vbyte
	for j, p := range parts {
		off := st.Fields[j].Offset
		if p.mask >= 0 {
			vb = append(vb, vbyte{p.mask, off})
			continue
		}
		for _, s := range p.segs {
			s.from += p.old.Offset
			s.to += off
			if n := len(segs); n > 0 && segs[n-1].from+segs[n-1].n == s.from && segs[n-1].to+segs[n-1].n == s.to {
				segs[n-1].n += s.n
				continue
			}
			segs = append(segs, s)
		}
		for _, v := range p.vb {
			vb = append(vb, vbyte{v.mask, off + v.off})
		}
	}
	return st, segs, vb, nil
}

func prod(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// planOutput sets up the rows as shown when they differ from the rows
// decoded: INTERVAL structs and validity fields. It also marks list
// columns whose rows may be null.
func (r *Reader) planOutput() error {
	cols := r.s.cols
	r.srcLeaves = make([][]int, len(cols))
	for k, l := range r.s.leaves {
		r.srcLeaves[l.src] = append(r.srcLeaves[l.src], k)
		top := r.tops[l.src]
		if len(cols[l.src].Shape) > 0 {
			r.conv[k].list = top.Name()
			if top.RepetitionType() == parquet.Repetitions.Optional {
				r.conv[k].nullList = defLevel(top)
			}
		}
	}
	star := r.opts != nil && slices.Contains(r.opts.Validity, "*")
	r.masks, r.maskW = nil, nil
	r.vrec = make([][]vrec, len(r.s.leaves))
	r.explain = make([]int16, len(r.s.leaves))
	var shown []shownCol
	var fs []npyio.Field
	r.outCols = nil
	for i, c := range cols {
		top := r.tops[i]
		named := r.opts != nil && slices.Contains(r.opts.Validity, top.Name())
		oc := c
		if r.ext[i] != nil {
			oc.DType = r.ext[i]
		}
		sc := shownCol{src: i, size: r.s.srcs[i]}
		if g, ok := top.(*schema.GroupNode); ok && (named || star) && r.ext[i] == nil && c.DType.Kind == npyio.Struct && len(c.Shape) == 0 {
			st, segs, vb, err := r.validStruct(g, c.DType, i)
			if err != nil {
				return err
			}
			if len(vb) > 0 {
				oc.DType, sc.size, sc.segs, sc.vbytes = st, st.Size, segs, vb
			}
		}
		r.outCols = append(r.outCols, oc)
		fs = append(fs, npyio.Field{Name: oc.Name, Type: oc.DType, Shape: oc.Shape})
		shown = append(shown, sc)
		if named || star && top.RepetitionType() == parquet.Repetitions.Optional {
			// The file's name, also of a renamed decimal.
			vc := Column{Name: arrowconv.ValidityName(top.Name()), DType: npyio.BoolType}
			r.outCols = append(r.outCols, vc)
			fs = append(fs, npyio.Field{Name: vc.Name, Type: vc.DType})
			shown = append(shown, shownCol{src: -1, mask: r.newMask(top, i), size: 1})
		}
		if elem, ok := listElement(top); ok && len(c.Shape) == 1 && (named || star && elem.RepetitionType() == parquet.Repetitions.Optional) {
			k := c.Shape[0]
			vc := Column{Name: arrowconv.ItemsValidityName(top.Name()), DType: npyio.BoolType, Shape: []int{k}}
			r.outCols = append(r.outCols, vc)
			fs = append(fs, npyio.Field{Name: vc.Name, Type: vc.DType, Shape: vc.Shape})
			shown = append(shown, shownCol{src: -1, mask: r.newItemsMask(elem, i, k), size: k})
		}
	}
	if len(r.masks) == 0 && r.ext == nil {
		r.outCols, r.vrec, r.explain = nil, nil, nil
		return nil
	}
	// One INTERVAL column keeps its name, as a one-column struct does: a
	// record of one field, not a bare (months, days, milliseconds).
	dt, err := npyio.NewStruct(fs)
	if err != nil {
		return fmt.Errorf("parquetio: %w", err)
	}
	r.outDT = dt
	if len(r.masks) == 0 {
		return nil // same bytes, other field types
	}
	for j := range shown {
		shown[j].off = r.outDT.Fields[j].Offset
	}
	r.shown = shown
	return nil
}

// place writes n shown elements of sc (stride rs, at offset sc.off) to
// out from the source rows src, the masks from row bstart of the row
// group on.
func (r *Reader) place(out []byte, rs int, sc *shownCol, src []byte, n, bstart int) {
	if sc.src < 0 {
		w := sc.size
		m := r.masks[sc.mask][bstart*w : (bstart+n)*w]
		if w == 1 {
			for k := 0; k < n; k++ {
				out[k*rs+sc.off] = m[k]
			}
			return
		}
		for k := 0; k < n; k++ {
			copy(out[k*rs+sc.off:k*rs+sc.off+w], m[k*w:(k+1)*w])
		}
		return
	}
	w := r.s.srcs[sc.src]
	if sc.segs == nil {
		for k := 0; k < n; k++ {
			copy(out[k*rs+sc.off:k*rs+sc.off+w], src[k*w:(k+1)*w])
		}
		return
	}
	for k := 0; k < n; k++ {
		d, s := out[k*rs+sc.off:], src[k*w:]
		for _, g := range sc.segs {
			copy(d[g.to:g.to+g.n], s[g.from:g.from+g.n])
		}
	}
	for _, v := range sc.vbytes {
		m := r.masks[v.mask][bstart : bstart+n]
		for k := 0; k < n; k++ {
			out[k*rs+sc.off+v.off] = m[k]
		}
	}
}

// widen builds n output rows (validity fields included) from the column
// sources cols, whose rows start at row bstart of the row group.
func (r *Reader) widen(n, bstart int, cols [][]byte) []byte {
	rs := r.outDT.Size
	out := make([]byte, n*rs)
	for j := range r.shown {
		sc := &r.shown[j]
		var src []byte
		if sc.src >= 0 {
			src = cols[sc.src]
		}
		r.place(out, rs, sc, src, n, bstart)
	}
	return out
}

// shownColumns is NextColumns' result with validity fields: one slice per
// shown column.
func (r *Reader) shownColumns(n, bstart int, cols [][]byte) [][]byte {
	out := make([][]byte, 0, len(r.shown))
	for j := range r.shown {
		sc := r.shown[j]
		switch {
		case sc.src < 0:
			out = append(out, r.masks[sc.mask][bstart*sc.size:(bstart+n)*sc.size])
		case sc.segs == nil:
			out = append(out, cols[sc.src])
		default:
			b := make([]byte, n*sc.size)
			sc.off = 0
			r.place(b, sc.size, &sc, cols[sc.src], n, bstart)
			out = append(out, b)
		}
	}
	return out
}

// growMasks makes the validity masks hold rows rows of the row group (1
// beyond what they held).
func (r *Reader) growMasks(rows int) {
	for i, m := range r.masks {
		need := rows * r.maskW[i]
		if len(m) < need {
			old := len(m)
			if cap(m) < need {
				m = append(m[:cap(m)], make([]byte, need-cap(m))...)
			}
			m = m[:need]
			for k := old; k < need; k++ {
				m[k] = 1
			}
			r.masks[i] = m
		}
	}
}

// record clears the masks of the nodes a slot of definition level def in
// row row of the row group lacks.
func (d *leafDecoder) record(row int, def int16) {
	for _, v := range d.vm {
		if def < v.level {
			(*v.m)[row] = 0
		}
	}
}
