package expr

import (
	"fmt"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
)

// bind resolves field names and checks literal types against the schema.
func (e *node) bind(dt *npyio.DType) *Error {
	switch e.kind {
	case pAnd, pOr:
		if err := e.l.bind(dt); err != nil {
			return err
		}
		return e.r.bind(dt)
	case pNot:
		return e.l.bind(dt)
	}
	k := rowbytes.FieldIndex(dt, e.field)
	if k < 0 {
		return &Error{e.fpos, rowbytes.NoField(dt, e.field)}
	}
	f := dt.Fields[k]
	if len(f.Shape) > 0 {
		return &Error{e.fpos, fmt.Sprintf("field %q is a subarray %s; flatten it first", e.field, npyio.FormatShape(f.Shape))}
	}
	e.off, e.dt = f.Offset, f.Type
	if e.rfield != "" {
		return e.bindRight(dt)
	}
	for li := range e.lits {
		l := e.lits[li]
		if f.Type.Kind == npyio.Datetime && l.kind == 's' {
			if err := e.bindDatetime(li, f.Type); err != nil {
				return err
			}
			continue
		}
		switch f.Type.Kind {
		case npyio.Bytes, npyio.Unicode:
			if l.kind != 's' {
				return &Error{l.pos, fmt.Sprintf("field %q holds strings; compare it with a quoted string", e.field)}
			}
			enc := make([]byte, f.Type.Size)
			if f.Type.Kind == npyio.Unicode {
				rowbytes.PutUCS4(enc, l.str)
			} else {
				copy(enc, l.str)
			}
			if (f.Type.Kind == npyio.Bytes && len(l.str) > f.Type.Size) || (f.Type.Kind == npyio.Unicode && len([]rune(l.str)) > f.Type.Size/4) {
				enc = nil // longer than the field: equal to no value
			}
			e.enc = append(e.enc, enc)
		case npyio.Int, npyio.Uint, npyio.Float, npyio.Bool, npyio.Datetime, npyio.Timedelta:
			if l.kind == 's' {
				return &Error{l.pos, fmt.Sprintf("field %q holds %s numbers; compare it with a number", e.field, f.Type)}
			}
			if f.Type.Kind == npyio.Float && f.Type.Size == 2 {
				return &Error{e.fpos, fmt.Sprintf("field %q is float16, which filter does not support; cast it first", e.field)}
			}
		default:
			return &Error{e.fpos, fmt.Sprintf("field %q of type %s cannot be compared", e.field, f.Type)}
		}
	}
	return nil
}

// bindDatetime turns the string literal e.lits[i] into the count of the
// datetime64 field's units it stands for. A literal between two counts
// compares as that instant, like numpy (which casts both sides to the
// finer unit): t < lit is then t <= the count below, t >= lit is t > it,
// and it equals no count (a non-integer literal, which the exact numeric
// comparison never finds equal).
func (e *node) bindDatetime(i int, dt *npyio.DType) *Error {
	l := &e.lits[i]
	if dt.Unit == "" {
		return &Error{l.pos, fmt.Sprintf("field %q is a datetime64 without a unit; cast it to one first", e.field)}
	}
	count, exact, err := datetimeCount(l.str, dt.Unit, dt.UnitMult)
	if err != nil {
		return &Error{l.pos, err.Error()}
	}
	l.kind, l.isInt, l.i, l.num = 'n', true, count, float64(count)
	if exact {
		return nil
	}
	switch e.op {
	case "<":
		e.op = "<="
	case ">=":
		e.op = ">"
	case "<=", ">":
	default: // ==, !=, in, not in: equal to no count
		l.isInt, l.num = false, 0.5
	}
	return nil
}

// cmpKind classes a dtype for comparisons of two fields: 'n' numbers,
// 'h' float16, 'M' datetime64, 'm' timedelta64, 'S' and 'U' strings, 0
// anything else.
func cmpKind(d *npyio.DType) byte {
	switch d.Kind {
	case npyio.Bool, npyio.Int, npyio.Uint:
		return 'n'
	case npyio.Float:
		if d.Size == 2 {
			return 'h'
		}
		return 'n'
	case npyio.Datetime:
		return 'M'
	case npyio.Timedelta:
		return 'm'
	case npyio.Bytes:
		return 'S'
	case npyio.Unicode:
		return 'U'
	}
	return 0
}

// bindRight resolves the right field of a comparison of two fields and
// checks that the two can be compared.
func (e *node) bindRight(dt *npyio.DType) *Error {
	k := rowbytes.FieldIndex(dt, e.rfield)
	if k < 0 {
		return &Error{e.rpos, rowbytes.NoField(dt, e.rfield)}
	}
	g := dt.Fields[k]
	if len(g.Shape) > 0 {
		return &Error{e.rpos, fmt.Sprintf("field %q is a subarray %s; flatten it first", e.rfield, npyio.FormatShape(g.Shape))}
	}
	e.roff, e.rdt = g.Offset, g.Type
	for _, side := range []struct {
		name string
		pos  int
		dt   *npyio.DType
	}{{e.field, e.fpos, e.dt}, {e.rfield, e.rpos, e.rdt}} {
		switch cmpKind(side.dt) {
		case 'h':
			return &Error{side.pos, fmt.Sprintf("field %q is float16, which filter does not support; cast it first", side.name)}
		case 0:
			return &Error{side.pos, fmt.Sprintf("field %q of type %s cannot be compared", side.name, side.dt)}
		}
	}
	a, b := cmpKind(e.dt), cmpKind(e.rdt)
	switch {
	case a == 'n' && b == 'n', (a == 'S' || a == 'U') && a == b:
		return nil
	case (a == 'M' || a == 'm') && e.dt.Equal(e.rdt):
		return nil
	}
	why := "numbers compare with numbers, and strings with strings of the same kind (U with U, S with S)"
	if a == 'M' || a == 'm' || b == 'M' || b == 'm' {
		why = "datetime64 and timedelta64 fields compare only with fields of the same type and unit"
	}
	return &Error{e.rpos, fmt.Sprintf("fields %q (%s) and %q (%s) cannot be compared: %s", e.field, e.dt, e.rfield, e.rdt, why)}
}
