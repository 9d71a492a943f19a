package hdf5

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/npyflow/npyflow/npyio"
)

// numpy U (UCS-4) values written as the UTF-8 strings h5py users store:
// fixed-length (NULLPAD, UTF-8 character set, as h5py.string_dtype('utf-8',
// n) makes them) of a byte width found beforehand (UnicodeSizer), or, for
// a U dataset, variable-length (h5py.string_dtype('utf-8')), whose bytes go
// to global heap collections written batch by batch.

// Strings says how a dataset stores numpy U (unicode) values.
type Strings string

const (
	// StringsFixed stores fixed-length UTF-8 strings of
	// DatasetOptions.UnicodeBytes bytes (the default).
	StringsFixed Strings = "fixed"
	// StringsVlen stores variable-length UTF-8 strings; it applies to U
	// datasets (U fields of a struct stay fixed-length).
	StringsVlen Strings = "vlen"
)

// HasUnicode reports whether dt is a numpy U dtype or a struct holding U
// fields (at any depth).
func HasUnicode(dt *npyio.DType) bool {
	if dt.Kind == npyio.Struct {
		for i := range dt.Fields {
			if HasUnicode(dt.Fields[i].Type) {
				return true
			}
		}
		return false
	}
	return dt.Kind == npyio.Unicode
}

// wStrOp is one step of converting an element: copy n bytes from in to
// out, or (chars > 0) encode a U value of chars characters at in as UTF-8
// at out, width bytes (0: a variable-length string's heap reference).
type wStrOp struct {
	in, out, n int
	chars      int
	width      int
	big        bool
	slot       int    // the U value's index among the dtype's (a subarray's elements share one)
	name       string // the field, for errors
}

// wStrConv converts elements of a dtype holding U values to their stored
// form.
type wStrConv struct {
	inSize, outSize int
	ops             []wStrOp
	slots           int
	vlen            bool // the element is one variable-length string
	buf             []byte
	scratch         []byte
	arena           []byte   // vlen: the batch's strings, one after another
	ends            []int    // vlen: where each ends in arena
	objs            [][]byte // vlen: the batch's strings
	at              []int    // vlen: their byte offsets in the batch
}

// wStrPlanner builds a wStrConv.
type wStrPlanner struct {
	c      *wStrConv
	widths []int // fixed widths by slot; nil: 4 bytes per character
	next   int
}

func (p *wStrPlanner) copyOp(in, out, n int) {
	if n <= 0 {
		return
	}
	if k := len(p.c.ops); k > 0 {
		last := &p.c.ops[k-1]
		if last.chars == 0 && last.in+last.n == in && last.out+last.n == out {
			last.n += n
			return
		}
	}
	p.c.ops = append(p.c.ops, wStrOp{in: in, out: out, n: n})
}

// plan adds the ops of a dt element at in (out in the stored element) and
// returns the stored dtype (U values as an internal string dtype: Kind
// Unicode with Order '|' and Size the byte width, or Kind Object for a
// variable-length string) and its size.
func (p *wStrPlanner) plan(dt *npyio.DType, in, out int, name string, top bool) (*npyio.DType, int, error) {
	switch {
	case dt.Kind == npyio.Unicode:
		chars := dt.Size / 4
		if chars == 0 {
			return nil, 0, fmt.Errorf("HDF5 has no zero-length strings (dtype %s)", dt)
		}
		slot := p.next
		p.next++
		if top && p.c.vlen {
			p.c.ops = append(p.c.ops, wStrOp{in: in, out: out, chars: chars, slot: slot, big: dt.Order == npyio.BigEndian, name: name})
			return &npyio.DType{Kind: npyio.Object, Order: npyio.NotApplicable, Size: 16}, 16, nil
		}
		w := 4 * chars
		if p.widths != nil {
			if slot >= len(p.widths) {
				return nil, 0, fmt.Errorf("no byte width for unicode value %d", slot)
			}
			w = p.widths[slot]
		}
		w = max(w, 1) // HDF5 has no zero-length strings
		p.c.ops = append(p.c.ops, wStrOp{in: in, out: out, chars: chars, width: w, slot: slot, big: dt.Order == npyio.BigEndian, name: name})
		return &npyio.DType{Kind: npyio.Unicode, Order: npyio.NotApplicable, Size: w}, w, nil
	case dt.Kind == npyio.Struct && HasUnicode(dt):
		idx := make([]int, len(dt.Fields))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return dt.Fields[a].Offset - dt.Fields[b].Offset })
		fields := make([]npyio.Field, len(dt.Fields))
		cur, delta := 0, 0
		for _, i := range idx {
			f := dt.Fields[i]
			if f.Offset < cur {
				return nil, 0, fmt.Errorf("field %q overlaps the one before", f.Name)
			}
			p.copyOp(in+cur, out+cur+delta, f.Offset-cur)
			nf := f
			nf.Offset = f.Offset + delta
			fname := f.Name
			if name != "" {
				fname = name + "." + f.Name
			}
			if HasUnicode(f.Type) {
				pos := nf.Offset
				start := p.next
				for k := 0; k < f.Count(); k++ {
					p.next = start
					sub, w, err := p.plan(f.Type, in+f.Offset+k*f.Type.Size, out+pos, fname, false)
					if err != nil {
						return nil, 0, err
					}
					nf.Type = sub
					pos += w
				}
				if f.Count() == 0 {
					sub, _, err := p.plan(f.Type, 0, 0, fname, false)
					if err != nil {
						return nil, 0, err
					}
					nf.Type = sub
				}
				delta += pos - nf.Offset - f.Size()
			} else {
				p.copyOp(in+f.Offset, out+nf.Offset, f.Size())
			}
			fields[i] = nf
			cur = f.Offset + f.Size()
		}
		p.copyOp(in+cur, out+cur+delta, dt.Size-cur)
		size := dt.Size + delta
		return &npyio.DType{Kind: npyio.Struct, Order: npyio.NotApplicable, Size: size, Fields: fields}, size, nil
	}
	p.copyOp(in, out, dt.Size)
	return dt, dt.Size, nil
}

// newStrConv plans the conversion of dt (which holds U values) with the
// given fixed widths (nil: 4 bytes per character), or variable-length
// strings for a U dtype when vlen.
func newStrConv(dt *npyio.DType, widths []int, vlen bool) (*wStrConv, *npyio.DType, error) {
	c := &wStrConv{inSize: dt.Size, vlen: vlen && dt.Kind == npyio.Unicode}
	p := &wStrPlanner{c: c, widths: widths}
	st, size, err := p.plan(dt, 0, 0, "", true)
	if err != nil {
		return nil, nil, err
	}
	c.outSize, c.slots = size, p.next
	if widths != nil && len(widths) != p.next {
		return nil, nil, fmt.Errorf("%d unicode byte widths for the %d unicode values of %s", len(widths), p.next, dt)
	}
	return c, st, nil
}

// appendUTF8 appends the UTF-8 form of the U value b (chars characters,
// trailing NULs stripped as numpy does).
func appendUTF8(dst, b []byte, chars int, big bool, name string) ([]byte, error) {
	end := chars
	cp := func(i int) uint32 {
		if big {
			return binary.BigEndian.Uint32(b[4*i:])
		}
		return binary.LittleEndian.Uint32(b[4*i:])
	}
	for end > 0 && cp(end-1) == 0 {
		end--
	}
	for i := 0; i < end; i++ {
		c := cp(i)
		if c > utf8.MaxRune || (c >= 0xD800 && c <= 0xDFFF) {
			what := "a value"
			if name != "" {
				what = fmt.Sprintf("field %q holds a value", name)
			}
			return dst, fmt.Errorf("%s with code point U+%04X, which UTF-8 cannot encode", what, c)
		}
		dst = utf8.AppendRune(dst, rune(c))
	}
	return dst, nil
}

// UnicodeSizer finds the byte widths fixed-length UTF-8 strings need for
// the U values of a dtype: the longest UTF-8 encoding of each U value
// (each U field; one for a U dtype), as DatasetOptions.UnicodeBytes wants
// them.
type UnicodeSizer struct {
	c      *wStrConv
	widths []int
	buf    []byte
}

// NewUnicodeSizer returns a sizer for rows of dt, nil when dt holds no U.
func NewUnicodeSizer(dt *npyio.DType) (*UnicodeSizer, error) {
	if !HasUnicode(dt) {
		return nil, nil
	}
	c, _, err := newStrConv(dt, nil, false)
	if err != nil {
		return nil, err
	}
	return &UnicodeSizer{c: c, widths: make([]int, c.slots)}, nil
}

// Add measures whole elements of the dtype, in its byte order; a code
// point UTF-8 cannot encode (a surrogate, over U+10FFFF) is an error.
func (s *UnicodeSizer) Add(b []byte) error {
	size := s.c.inSize
	if size == 0 {
		return nil
	}
	for e := 0; e+size <= len(b); e += size {
		el := b[e : e+size]
		for i := range s.c.ops {
			op := &s.c.ops[i]
			if op.chars == 0 {
				continue
			}
			var err error
			s.buf, err = appendUTF8(s.buf[:0], el[op.in:op.in+4*op.chars], op.chars, op.big, op.name)
			if err != nil {
				return err
			}
			s.widths[op.slot] = max(s.widths[op.slot], len(s.buf))
		}
	}
	return nil
}

// Widths are the byte widths measured so far, one per U value slot.
func (s *UnicodeSizer) Widths() []int { return slices.Clone(s.widths) }

// convert converts whole elements to their stored form (in c.buf, valid
// until the next call); variable-length strings go to global heap
// collections written now.
func (c *wStrConv) convert(w *Writer, rows []byte) ([]byte, error) {
	n := len(rows) / c.inSize
	need := n * c.outSize
	if cap(c.buf) < need {
		c.buf = make([]byte, need)
	}
	out := c.buf[:need]
	clear(out)
	c.arena, c.ends, c.objs, c.at = c.arena[:0], c.ends[:0], c.objs[:0], c.at[:0]
	for e := 0; e < n; e++ {
		src := rows[e*c.inSize : (e+1)*c.inSize]
		dst := out[e*c.outSize : (e+1)*c.outSize]
		for i := range c.ops {
			op := &c.ops[i]
			switch {
			case op.chars == 0:
				copy(dst[op.out:op.out+op.n], src[op.in:op.in+op.n])
			case c.vlen:
				start := len(c.arena)
				var err error
				c.arena, err = appendUTF8(c.arena, src[op.in:op.in+4*op.chars], op.chars, op.big, op.name)
				if err != nil {
					return nil, err
				}
				if bytes.IndexByte(c.arena[start:], 0) >= 0 {
					// HDF5's variable-length strings end at a NUL (h5py
					// refuses such values too): the rest would be lost.
					return nil, fmt.Errorf("value %d holds a NUL character, which variable-length strings cannot hold (fixed-length strings can)", e)
				}
				c.ends = append(c.ends, len(c.arena))
				c.at = append(c.at, e*c.outSize+op.out)
			default:
				var err error
				c.scratch, err = appendUTF8(c.scratch[:0], src[op.in:op.in+4*op.chars], op.chars, op.big, op.name)
				if err != nil {
					return nil, err
				}
				if len(c.scratch) > op.width {
					return nil, fmt.Errorf("a value of %d UTF-8 bytes is longer than the strings' %d", len(c.scratch), op.width)
				}
				copy(dst[op.out:], c.scratch)
			}
		}
	}
	if c.vlen {
		start := 0
		for _, end := range c.ends {
			c.objs = append(c.objs, c.arena[start:end])
			start = end
		}
		if err := w.writeVlenHeap(c.objs, false, func(i int, ref [16]byte) { copy(out[c.at[i]:], ref[:]) }); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// writeVlenHeap stores objs in new global heap collections of up to
// about 1 MiB and gives each one's 16-byte reference (length, collection
// address, object index) to put. An empty object points nowhere, or
// with emptyObjects is stored as an object of no bytes (netCDF-C reads a
// null reference as no string at all).
func (w *Writer) writeVlenHeap(objs [][]byte, emptyObjects bool, put func(i int, ref [16]byte)) error {
	first, size := 0, uint64(16)
	flush := func(end int) error {
		count := 0
		for _, o := range objs[first:end] {
			if len(o) > 0 || emptyObjects {
				count++
			}
		}
		if count == 0 {
			for i := first; i < end; i++ {
				put(i, [16]byte{})
			}
			first, size = end, 16
			return nil
		}
		total := max(size+16, wGheapMin)
		addr := w.alloc(total)
		b := make([]byte, 16, total)
		copy(b, "GCOL")
		b[4] = 1
		binary.LittleEndian.PutUint64(b[8:], total)
		index := 0
		for i := first; i < end; i++ {
			o := objs[i]
			var ref [16]byte
			binary.LittleEndian.PutUint32(ref[0:], uint32(len(o)))
			if len(o) > 0 || emptyObjects {
				index++
				var hdr [16]byte
				binary.LittleEndian.PutUint16(hdr[0:], uint16(index))
				binary.LittleEndian.PutUint16(hdr[2:], 1) // reference count
				binary.LittleEndian.PutUint64(hdr[8:], uint64(len(o)))
				b = append(b, hdr[:]...)
				b = append(b, o...)
				b = append(b, make([]byte, wPad8(len(o))-len(o))...)
				binary.LittleEndian.PutUint64(ref[4:], addr)
				binary.LittleEndian.PutUint32(ref[12:], uint32(index))
			}
			put(i, ref)
		}
		// Object 0: the free space, its size counting its own header.
		var hdr [16]byte
		binary.LittleEndian.PutUint64(hdr[8:], total-uint64(len(b)))
		b = append(b, hdr[:]...)
		b = append(b, make([]byte, int(total)-len(b))...)
		first, size = end, 16
		return w.writeAt(addr, b)
	}
	count := 0
	for i, o := range objs {
		if len(o) == 0 && !emptyObjects {
			continue
		}
		if count > 0 && (count == wGheapMaxObjs || size+16+uint64(wPad8(len(o))) > wGheapTarget) {
			if err := flush(i); err != nil {
				return err
			}
			count = 0
		}
		count++
		size += 16 + uint64(wPad8(len(o)))
	}
	return flush(len(objs))
}
