package expr

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"strings"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
)

// eval sets mask[i] to whether row i of data matches.
func (e *node) eval(data []byte, rowSize, rows int, mask []bool) {
	switch e.kind {
	case pNot:
		e.l.eval(data, rowSize, rows, mask)
		for i := range mask {
			mask[i] = !mask[i]
		}
		return
	case pAnd, pOr:
		e.l.eval(data, rowSize, rows, mask)
		if cap(e.rmask) < rows {
			e.rmask = make([]bool, rows)
		}
		r := e.rmask[:rows]
		e.r.eval(data, rowSize, rows, r)
		if e.kind == pAnd {
			for i := range mask {
				mask[i] = mask[i] && r[i]
			}
		} else {
			for i := range mask {
				mask[i] = mask[i] || r[i]
			}
		}
		return
	}
	switch {
	case e.rfield != "" && (e.dt.Kind == npyio.Bytes || e.dt.Kind == npyio.Unicode):
		e.evalStringFields(data, rowSize, rows, mask)
	case e.rfield != "":
		e.evalNumberFields(data, rowSize, rows, mask)
	case e.enc != nil || e.dt.Kind == npyio.Bytes || e.dt.Kind == npyio.Unicode:
		e.evalString(data, rowSize, rows, mask)
	default:
		e.evalNumber(data, rowSize, rows, mask)
	}
	if e.op == "not in" {
		for i := range mask {
			mask[i] = !mask[i]
		}
	}
}

func (e *node) evalString(data []byte, rowSize, rows int, mask []bool) {
	size := e.dt.Size
	for i := 0; i < rows; i++ {
		v := data[i*rowSize+e.off : i*rowSize+e.off+size]
		switch e.op {
		case "==", "in", "not in":
			m := false
			for _, enc := range e.enc {
				if enc != nil && bytes.Equal(v, enc) {
					m = true
					break
				}
			}
			mask[i] = m
		case "!=":
			mask[i] = e.enc[0] == nil || !bytes.Equal(v, e.enc[0])
		default:
			var s string
			if e.dt.Kind == npyio.Unicode {
				s = rowbytes.UCS4String(v)
			} else {
				s = rowbytes.BytesString(v)
			}
			mask[i] = cmpOrdered(strings.Compare(s, e.lits[0].str), e.op)
		}
	}
}

func cmpOrdered(c int, op string) bool {
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "==":
		return c == 0
	}
	return c != 0
}

const evalChunk = 1024

func (e *node) evalNumber(data []byte, rowSize, rows int, mask []bool) {
	l := &e.lane
	for r0 := 0; r0 < rows; r0 += evalChunk {
		n := min(evalChunk, rows-r0)
		m := mask[r0 : r0+n]
		cls := l.Load(e.dt, data, r0*rowSize+e.off, rowSize, n)
		clear(m)
		for _, lt := range e.lits {
			op := e.op
			if op == "in" || op == "not in" {
				op = "=="
			}
			switch {
			case cls == 'f' && (!lt.isInt || lt.i >= -1<<53 && lt.i <= 1<<53):
				// A float literal, or an integer exactly a float64.
				cmpSlice(l.F[:n], lt.num, op, m)
			case cls == 'u' && lt.isInt && lt.i >= 0:
				cmpSlice(l.U[:n], uint64(lt.i), op, m)
			case cls == 'i' && lt.isInt:
				cmpSlice(l.I[:n], lt.i, op, m)
			default:
				// Mixed kinds: compare exactly, the literal repeated.
				r := &e.rlane
				rc := byte('f')
				if lt.isInt {
					rc = 'i'
					r.I = r.I[:0]
					for range n {
						r.I = append(r.I, lt.i)
					}
				} else {
					r.F = r.F[:0]
					for range n {
						r.F = append(r.F, lt.num)
					}
				}
				e.c3 = compare3(e.c3, l, cls, r, rc, n)
				orOp(e.c3, op, m)
			}
		}
		if isTime(e.dt) {
			natLike(l.I[:n], e.op, m)
		}
	}
}

// isTime reports whether d is datetime64 or timedelta64, whose int64
// minimum is NaT.
func isTime(d *npyio.DType) bool {
	return d.Kind == npyio.Datetime || d.Kind == npyio.Timedelta
}

// natLike makes NaT compare like numpy (like NaN): false for every
// operator but != (and in, so not in is true).
func natLike(v []int64, op string, m []bool) {
	for i, x := range v {
		if x == math.MinInt64 {
			m[i] = op == "!="
		}
	}
}

// evalNumberFields compares two numeric fields row by row, exactly.
func (e *node) evalNumberFields(data []byte, rowSize, rows int, mask []bool) {
	for r0 := 0; r0 < rows; r0 += evalChunk {
		n := min(evalChunk, rows-r0)
		lc := e.lane.Load(e.dt, data, r0*rowSize+e.off, rowSize, n)
		rc := e.rlane.Load(e.rdt, data, r0*rowSize+e.roff, rowSize, n)
		e.c3 = compare3(e.c3, &e.lane, lc, &e.rlane, rc, n)
		m := mask[r0 : r0+n]
		clear(m)
		orOp(e.c3, e.op, m)
		if isTime(e.dt) { // and so is the right field, of the same type
			natLike(e.lane.I[:n], e.op, m)
			natLike(e.rlane.I[:n], e.op, m)
		}
	}
}

// unordered is compare3's result for a NaN.
const unordered = 2

// compare3 compares n values of lane a (kind ak) with lane b (kind bk)
// exactly: -1, 0, 1, or unordered when either is NaN.
func compare3(c []int8, a *rowbytes.Lane, ak byte, b *rowbytes.Lane, bk byte, n int) []int8 {
	c = slices.Grow(c[:0], n)[:n]
	switch uint16(ak)<<8 | uint16(bk) {
	case 'i'<<8 | 'i':
		cmpSame(c, a.I[:n], b.I[:n])
	case 'u'<<8 | 'u':
		cmpSame(c, a.U[:n], b.U[:n])
	case 'f'<<8 | 'f':
		for i, x := range a.F[:n] {
			c[i] = cmpFF(x, b.F[i])
		}
	case 'i'<<8 | 'u':
		for i, x := range a.I[:n] {
			c[i] = cmpIU(x, b.U[i])
		}
	case 'u'<<8 | 'i':
		for i, x := range a.U[:n] {
			c[i] = -cmpIU(b.I[i], x)
		}
	case 'i'<<8 | 'f':
		for i, x := range a.I[:n] {
			c[i] = cmpIF(x, b.F[i])
		}
	case 'f'<<8 | 'i':
		for i, x := range a.F[:n] {
			c[i] = flip(cmpIF(b.I[i], x))
		}
	case 'u'<<8 | 'f':
		for i, x := range a.U[:n] {
			c[i] = cmpUF(x, b.F[i])
		}
	case 'f'<<8 | 'u':
		for i, x := range a.F[:n] {
			c[i] = flip(cmpUF(b.U[i], x))
		}
	}
	return c
}

func cmpSame[T int64 | uint64](c []int8, a, b []T) {
	for i, x := range a {
		y := b[i]
		switch {
		case x < y:
			c[i] = -1
		case x > y:
			c[i] = 1
		default:
			c[i] = 0
		}
	}
}

func flip(c int8) int8 {
	if c == unordered {
		return c
	}
	return -c
}

func cmpFF(x, y float64) int8 {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	case x == y:
		return 0
	}
	return unordered
}

func cmpIU(x int64, y uint64) int8 {
	if x < 0 {
		return -1
	}
	return cmpU(uint64(x), y)
}

func cmpU(x, y uint64) int8 {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// cmpIF compares an int64 with a float64 exactly (no rounding of x).
func cmpIF(x int64, y float64) int8 {
	switch {
	case y != y:
		return unordered
	case y >= 1<<63:
		return -1
	case y < -(1 << 63):
		return 1
	}
	t := math.Trunc(y) // in [-2^63, 2^63): an exact int64
	ti := int64(t)
	switch {
	case x < ti:
		return -1
	case x > ti:
		return 1
	case y > t:
		return -1
	case y < t:
		return 1
	}
	return 0
}

// cmpUF compares a uint64 with a float64 exactly.
func cmpUF(x uint64, y float64) int8 {
	switch {
	case y != y:
		return unordered
	case y < 0:
		return 1
	case y >= 1<<64:
		return -1
	}
	t := math.Trunc(y)
	tu := uint64(t)
	switch {
	case x < tu:
		return -1
	case x > tu:
		return 1
	case y > t:
		return -1
	}
	return 0
}

// orOp ors (c op 0) into m: whether each three-way result satisfies op.
func orOp(c []int8, op string, m []bool) {
	for i, v := range c {
		var ok bool
		switch op {
		case "==":
			ok = v == 0
		case "!=":
			ok = v != 0
		case "<":
			ok = v == -1
		case "<=":
			ok = v == -1 || v == 0
		case ">":
			ok = v == 1
		case ">=":
			ok = v == 1 || v == 0
		}
		m[i] = m[i] || ok
	}
}

// evalStringFields compares two string fields of the same kind row by
// row, ignoring trailing NULs like numpy.
func (e *node) evalStringFields(data []byte, rowSize, rows int, mask []bool) {
	unit := 1
	if e.dt.Kind == npyio.Unicode {
		unit = 4
	}
	for i := 0; i < rows; i++ {
		row := data[i*rowSize:]
		a := row[e.off : e.off+e.dt.Size]
		b := row[e.roff : e.roff+e.rdt.Size]
		mask[i] = cmpOrdered(cmpPadded(a, b, unit), e.op)
	}
}

// cmpPadded compares two NUL-padded strings of units of 1 byte (S) or 4
// native-order bytes (U) by unit value; trailing NULs do not count.
func cmpPadded(a, b []byte, unit int) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i += unit {
		var x, y uint32
		if unit == 1 {
			x, y = uint32(a[i]), uint32(b[i])
		} else {
			x, y = binary.NativeEndian.Uint32(a[i:]), binary.NativeEndian.Uint32(b[i:])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	for _, c := range a[n:] {
		if c != 0 {
			return 1
		}
	}
	for _, c := range b[n:] {
		if c != 0 {
			return -1
		}
	}
	return 0
}

// cmpSlice ors (v op x) into m.
func cmpSlice[T int64 | uint64 | float64](v []T, x T, op string, m []bool) {
	switch op {
	case "==":
		for i, a := range v {
			m[i] = m[i] || a == x
		}
	case "!=":
		for i, a := range v {
			m[i] = m[i] || a != x
		}
	case "<":
		for i, a := range v {
			m[i] = m[i] || a < x
		}
	case "<=":
		for i, a := range v {
			m[i] = m[i] || a <= x
		}
	case ">":
		for i, a := range v {
			m[i] = m[i] || a > x
		}
	case ">=":
		for i, a := range v {
			m[i] = m[i] || a >= x
		}
	}
}
