package hdf5

import (
	"encoding/binary"
	"fmt"
	"sort"
	"unicode/utf8"
)

// Fixed-length UTF-8 strings inside an element (compound members, array
// elements, at any depth) read as numpy U<n>, n the string's byte width
// (the most characters it can hold), as npyflow writes a U field: each
// stored byte becomes a 4-byte UCS-4 slot, and every byte after such a
// string moves by the growth (Datatype.numpyDType with wide). A utf8Conv
// turns stored elements into that layout, decoding the UTF-8 while it
// copies, with no allocation per element.

// maxUTF8Ops bounds the steps of one element's conversion (arrays of
// compounds of strings expand to many).
const maxUTF8Ops = 1 << 16

// utf8Op copies n bytes from in to out, or (width > 0) decodes the UTF-8
// string of width bytes at in into UCS-4 at out.
type utf8Op struct {
	in, out, n int
	width      int
	name       string // the field, for errors
}

// utf8Conv converts elements of inSize stored bytes to outSize bytes.
type utf8Conv struct {
	inSize, outSize int
	ops             []utf8Op
}

// hasUTF8Fixed reports whether t holds fixed-length UTF-8 strings below
// its top level.
func hasUTF8Fixed(t *Datatype, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch t.Class {
	case ClassString:
		return depth > 0 && t.Charset == CharsetUTF8
	case ClassCompound:
		for _, m := range t.Members {
			if hasUTF8Fixed(m.Type, depth+1) {
				return true
			}
		}
	case ClassArray:
		return hasUTF8Fixed(t.Base, depth+1)
	}
	return false
}

// newUTF8Conv plans the conversion of elements of t (which hasUTF8Fixed);
// ok is false when the plan would exceed maxUTF8Ops.
func newUTF8Conv(t *Datatype) (*utf8Conv, bool) {
	c := &utf8Conv{inSize: t.Size}
	size, ok := c.plan(t, 0, 0, "", 0)
	c.outSize = size
	return c, ok
}

func (c *utf8Conv) copyOp(in, out, n int) {
	if n <= 0 {
		return
	}
	if k := len(c.ops); k > 0 {
		last := &c.ops[k-1]
		if last.width == 0 && last.in+last.n == in && last.out+last.n == out {
			last.n += n
			return
		}
	}
	c.ops = append(c.ops, utf8Op{in: in, out: out, n: n})
}

// plan adds the steps of a t element stored at in and returned at out,
// and returns its returned size; members are placed as numpyDType with
// wide places them (in stored offset order, moved by the growth before).
func (c *utf8Conv) plan(t *Datatype, in, out int, name string, depth int) (int, bool) {
	if depth > maxDepth || len(c.ops) > maxUTF8Ops {
		return 0, false
	}
	if !hasUTF8Fixed(t, 0) && !(t.Class == ClassString && t.Charset == CharsetUTF8 && depth > 0) {
		c.copyOp(in, out, t.Size)
		return t.Size, true
	}
	switch t.Class {
	case ClassString:
		c.ops = append(c.ops, utf8Op{in: in, out: out, width: t.Size, name: name})
		return 4 * t.Size, true
	case ClassCompound:
		ms := make([]Member, len(t.Members))
		copy(ms, t.Members)
		sort.SliceStable(ms, func(i, j int) bool { return ms[i].Offset < ms[j].Offset })
		cur, grow := 0, 0
		for _, m := range ms {
			c.copyOp(in+cur, out+cur+grow, m.Offset-cur)
			fname := m.Name
			if name != "" {
				fname = name + "." + m.Name
			}
			w, ok := c.plan(m.Type, in+m.Offset, out+m.Offset+grow, fname, depth+1)
			if !ok {
				return 0, false
			}
			grow += w - m.Type.Size
			cur = m.Offset + m.Type.Size
		}
		c.copyOp(in+cur, out+cur+grow, t.Size-cur)
		return t.Size + grow, true
	case ClassArray:
		n := 1
		for _, d := range t.Dims {
			n *= int(d) // t.Size = n * Base.Size was checked
		}
		pos := out
		for k := 0; k < n; k++ {
			w, ok := c.plan(t.Base, in+k*t.Base.Size, pos, name, depth+1)
			if !ok {
				return 0, false
			}
			pos += w
		}
		return pos - out, true
	}
	c.copyOp(in, out, t.Size)
	return t.Size, true
}

// convert turns the whole stored elements of raw into dst (len(raw) /
// inSize elements of outSize bytes); invalid UTF-8 is an error naming the
// field.
func (c *utf8Conv) convert(raw, dst []byte) (string, []byte, error) {
	for e := 0; e+c.inSize <= len(raw) && c.inSize > 0; e += c.inSize {
		src := raw[e : e+c.inSize]
		o := (e / c.inSize) * c.outSize
		el := dst[o : o+c.outSize]
		for i := range c.ops {
			op := &c.ops[i]
			if op.width == 0 {
				copy(el[op.out:op.out+op.n], src[op.in:op.in+op.n])
				continue
			}
			s := src[op.in : op.in+op.width]
			u := el[op.out : op.out+4*op.width]
			end := len(s)
			for end > 0 && s[end-1] == 0 {
				end--
			}
			k := 0
			for j := 0; j < end; {
				r := rune(s[j])
				size := 1
				if r >= utf8.RuneSelf {
					r, size = utf8.DecodeRune(s[j:end])
					if r == utf8.RuneError && size <= 1 {
						return op.name, s[:end], errInvalidUTF8
					}
				}
				binary.LittleEndian.PutUint32(u[k:], uint32(r))
				k += 4
				j += size
			}
			clear(u[k:])
		}
	}
	return "", nil, nil
}

var errInvalidUTF8 = fmt.Errorf("invalid UTF-8")

// convertUTF8 converts raw into dst with r.wide, an error naming the
// dataset and field.
func (r *RowReader) convertUTF8(raw, dst []byte) error {
	field, s, err := r.wide.convert(raw, dst)
	if err != nil {
		ds := r.ds
		return fmt.Errorf("hdf5: %s: %s: field %q, a fixed-length UTF-8 string, holds invalid UTF-8 (%q)", ds.f.name, ds.path, field, truncate(string(s)))
	}
	return nil
}
