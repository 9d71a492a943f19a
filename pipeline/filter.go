package pipeline

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/npyflow/npyflow/npyio"
	"go.yaml.in/yaml/v3"
)

// Predicates
//
//	expr   = or
//	or     = and { "or" and }
//	and    = unary { "and" unary }
//	unary  = "not" unary | "(" expr ")" | cmp
//	cmp    = operand op operand {op operand} | field ["not"] "in" "[" literal {"," literal} "]"
//	operand = field | literal
//	op     = "==" | "!=" | "<" | "<=" | ">" | ">="
//	field  = name | `any name`
//	literal = number | 'string' | "string" | true | false | nan | inf
//
// Each side of an operator is a field or a literal, at least one of them
// a field: a == b compares two columns row by row, and 3 < a is a > 3.
// A chain compares each neighbouring pair, like Python: 0 <= x < 10 is
// 0 <= x and x < 10. A field named like a keyword (true, false, nan, inf,
// and, or, not, in) is written `true`.
//
// Types: numbers (bool, int8..int64, uint8..uint64, float32, float64)
// compare with numbers, by exact value whatever their types: int64
// 2**53+1 > float64 2**53 is true, and uint64 2**63 != int64 2**63-1
// (numpy casts such pairs to float64 first, so it can say otherwise
// beyond 2**53). NaN compares false except with !=, like numpy. bool is
// 0 or 1. datetime64 and timedelta64 fields compare with numbers (their
// int64 count) or with a field of the same type and unit; datetime64
// fields also compare with ISO 8601 strings ('2024-03-01',
// '2024-03-01T12:30:00.25', no time zone), as instants like numpy: a
// string between two counts of the field's unit equals neither; NaT compares
// like NaN (false except with !=; t != t finds it), as in numpy. Strings compare
// with strings of the same kind (U with U, S with S, any widths) by code
// point or byte, ignoring trailing NULs like numpy. float16 is refused
// (cast it first). Any other pair is a validation error.

type predKind int

const (
	pCmp predKind = iota
	pAnd
	pOr
	pNot
)

type lit struct {
	str   string
	num   float64
	isInt bool
	i     int64
	kind  byte // 'n' number, 's' string, 'b' bool
	pos   int
}

type pred struct {
	kind  predKind
	l, r  *pred
	field string
	fpos  int
	op    string // comparison operator, "in" or "not in"
	lits  []lit

	// the field on the right of a comparison of two fields
	rfield string
	rpos   int
	roff   int
	rdt    *npyio.DType
	rlane  lane
	c3     []int8 // three-way comparison results of a chunk

	// bound at build time
	off   int
	dt    *npyio.DType
	enc   [][]byte // string literals encoded like the field
	mask  []bool
	rmask []bool
	lane  lane
}

type tok struct {
	s      string
	pos    int
	typ    byte // 'i' ident, 'n' number, 's' string, 'o' operator/punct, 'e' end
	quoted bool // an ident written `like this`
}

func lexPredicate(s string) ([]tok, error) {
	var out []tok
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'' || c == '"':
			j := i + 1
			var sb strings.Builder
			for ; j < len(s) && s[j] != c; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				sb.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, &predError{i, "unterminated string"}
			}
			out = append(out, tok{s: sb.String(), pos: i, typ: 's'})
			i = j + 1
		case c == '`':
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				return nil, &predError{i, "unterminated `name`"}
			}
			out = append(out, tok{s: s[i+1 : i+1+j], pos: i, typ: 'i', quoted: true})
			i += j + 2
		case c >= '0' && c <= '9' || c == '.' || (c == '-' || c == '+') && i+1 < len(s) && (s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '.'):
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' || s[j] == '_' || s[j] == 'x' ||
				(s[j] == '-' || s[j] == '+') && (s[j-1] == 'e' || s[j-1] == 'E') || s[j] >= 'a' && s[j] <= 'f' || s[j] >= 'A' && s[j] <= 'F') {
				j++
			}
			out = append(out, tok{s: s[i:j], pos: i, typ: 'n'})
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] == '.' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			out = append(out, tok{s: s[i:j], pos: i, typ: 'i'})
			i = j
		default:
			for _, op := range []string{"==", "!=", "<=", ">=", "<", ">", "(", ")", "[", "]", ","} {
				if strings.HasPrefix(s[i:], op) {
					out = append(out, tok{s: op, pos: i, typ: 'o'})
					i += len(op)
					goto next
				}
			}
			if c == '=' {
				return nil, &predError{i, "use == to compare"}
			}
			if strings.IndexByte("*/%+-", c) >= 0 {
				return nil, &predError{i, fmt.Sprintf("unexpected %q: a predicate has no arithmetic; write the number itself (2**53 is 9007199254740992)", c)}
			}
			return nil, &predError{i, fmt.Sprintf("unexpected %q", c)}
		next:
		}
	}
	return append(out, tok{s: "", pos: len(s), typ: 'e'}), nil
}

type predError struct {
	pos int
	msg string
}

func (e *predError) Error() string { return e.msg }

type predParser struct {
	toks []tok
	i    int
}

func (p *predParser) peek() tok { return p.toks[p.i] }
func (p *predParser) take() tok { t := p.toks[p.i]; p.i++; return t }
func (p *predParser) isWord(w string) bool {
	t := p.peek()
	return t.typ == 'i' && !t.quoted && t.s == w
}

// keywords are the names that are not fields unless written `quoted`.
var keywords = map[string]bool{"and": true, "or": true, "not": true, "in": true, "true": true, "false": true, "nan": true, "inf": true}

func parsePredicate(s string) (*pred, error) {
	toks, err := lexPredicate(s)
	if err != nil {
		return nil, err
	}
	p := &predParser{toks: toks}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.typ != 'e' {
		return nil, &predError{t.pos, fmt.Sprintf("unexpected %q; expected and, or or the end", t.s)}
	}
	return e, nil
}

func (p *predParser) or() (*pred, error) {
	l, err := p.and()
	for err == nil && p.isWord("or") {
		p.take()
		var r *pred
		if r, err = p.and(); err == nil {
			l = &pred{kind: pOr, l: l, r: r}
		}
	}
	return l, err
}

func (p *predParser) and() (*pred, error) {
	l, err := p.unary()
	for err == nil && p.isWord("and") {
		p.take()
		var r *pred
		if r, err = p.unary(); err == nil {
			l = &pred{kind: pAnd, l: l, r: r}
		}
	}
	return l, err
}

func (p *predParser) unary() (*pred, error) {
	if p.isWord("not") {
		p.take()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &pred{kind: pNot, l: x}, nil
	}
	if t := p.peek(); t.typ == 'o' && t.s == "(" {
		p.take()
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if t := p.take(); t.s != ")" || t.typ != 'o' {
			return nil, &predError{t.pos, "missing )"}
		}
		return x, nil
	}
	return p.cmp()
}

// operand is one side of a comparison: a field or a literal.
type operand struct {
	field string // a field name, or "" for a literal
	pos   int
	lit   lit
}

// isCmpOp reports whether t is one of == != < <= > >=.
func isCmpOp(t tok) bool {
	switch t.s {
	case "==", "!=", "<", "<=", ">", ">=":
		return t.typ == 'o'
	}
	return false
}

// mirrored is op with its sides swapped: 3 < a is a > 3.
var mirrored = map[string]string{"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// cmp parses a comparison: a field in a list, or a chain of operands
// joined by comparison operators (0 <= x < 10 is 0 <= x and x < 10),
// each pair holding at least one field.
func (p *predParser) cmp() (*pred, error) {
	f := p.peek()
	var first operand
	switch {
	case f.typ == 'i' && (f.quoted || !keywords[f.s]):
		p.take()
		first = operand{field: f.s, pos: f.pos}
	case f.typ == 'n' || f.typ == 's' || f.typ == 'i' && (f.s == "true" || f.s == "false" || f.s == "nan" || f.s == "inf"):
		l, err := p.literal(true)
		if err != nil {
			return nil, err
		}
		first = operand{pos: f.pos, lit: l}
	default:
		what := f.s
		if f.typ == 'e' {
			what = "the end"
		}
		return nil, &predError{f.pos, fmt.Sprintf("expected a field name or a literal, not %s", quoteTok(what, f.typ))}
	}
	op := p.peek()
	if first.field != "" && op.typ == 'i' && !op.quoted && (op.s == "in" || op.s == "not" && p.toks[p.i+1].typ == 'i' && p.toks[p.i+1].s == "in" && !p.toks[p.i+1].quoted) {
		return p.inList(first)
	}
	if !isCmpOp(op) {
		what := op.s
		if op.typ == 'e' {
			what = "the end"
		}
		if first.field == "" {
			if op.typ == 'i' && !op.quoted && (op.s == "in" || op.s == "not") {
				return nil, &predError{op.pos, "a list goes after a field: name in [1, 2]"}
			}
			return nil, &predError{op.pos, fmt.Sprintf("expected a comparison (==, !=, <, <=, >, >=) after %s, not %s", p.src(first), quoteTok(what, op.typ))}
		}
		return nil, &predError{op.pos, fmt.Sprintf("expected a comparison (==, !=, <, <=, >, >=, in) after %q, not %s", first.field, quoteTok(what, op.typ))}
	}
	var out *pred
	left := first
	for isCmpOp(p.peek()) {
		op := p.take()
		var right operand
		if t := p.peek(); t.typ == 'i' && (t.quoted || !keywords[t.s]) {
			p.take()
			right = operand{field: t.s, pos: t.pos}
		} else {
			l, err := p.literal(true)
			if err != nil {
				return nil, err
			}
			right = operand{pos: l.pos, lit: l}
		}
		var e *pred
		switch {
		case left.field != "" && right.field != "":
			e = &pred{kind: pCmp, field: left.field, fpos: left.pos, op: op.s, rfield: right.field, rpos: right.pos}
		case left.field != "":
			e = &pred{kind: pCmp, field: left.field, fpos: left.pos, op: op.s, lits: []lit{right.lit}}
		case right.field != "":
			e = &pred{kind: pCmp, field: right.field, fpos: right.pos, op: mirrored[op.s], lits: []lit{left.lit}}
		default:
			return nil, &predError{right.pos, fmt.Sprintf("%s %s %s compares two literals; one side must be a field", p.src(left), op.s, p.src(right))}
		}
		if out == nil {
			out = e
		} else {
			out = &pred{kind: pAnd, l: out, r: e}
		}
		left = right
	}
	return out, nil
}

// src is how an operand was written.
func (p *predParser) src(o operand) string {
	for _, t := range p.toks {
		if t.pos == o.pos {
			switch {
			case t.typ == 's':
				return strconv.Quote(t.s)
			case t.quoted:
				return "`" + t.s + "`"
			}
			return t.s
		}
	}
	return o.field
}

// inList parses "in [..]" or "not in [..]" after the field f.
func (p *predParser) inList(f operand) (*pred, error) {
	e := &pred{kind: pCmp, field: f.field, fpos: f.pos, op: "in"}
	if p.take().s == "not" {
		p.take()
		e.op = "not in"
	}
	if t := p.take(); t.s != "[" {
		return nil, &predError{t.pos, "expected [ after in"}
	}
	for {
		l, err := p.literal(false)
		if err != nil {
			return nil, err
		}
		e.lits = append(e.lits, l)
		t := p.take()
		if t.s == "]" && t.typ == 'o' {
			return e, nil
		}
		if t.s != "," || t.typ != 'o' {
			return nil, &predError{t.pos, "expected , or ] in the list"}
		}
	}
}

func quoteTok(s string, typ byte) string {
	if typ == 'e' {
		return s
	}
	return strconv.Quote(s)
}

// literal parses a literal; orField says a field name was allowed too
// (for the error message).
func (p *predParser) literal(orField bool) (lit, error) {
	t := p.take()
	switch {
	case t.typ == 's':
		return lit{kind: 's', str: t.s, pos: t.pos}, nil
	case t.typ == 'n':
		s := strings.ReplaceAll(t.s, "_", "")
		if i, err := strconv.ParseInt(s, 0, 64); err == nil {
			return lit{kind: 'n', num: float64(i), isInt: true, i: i, pos: t.pos}, nil
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return lit{}, &predError{t.pos, fmt.Sprintf("invalid number %q", t.s)}
		}
		return lit{kind: 'n', num: x, pos: t.pos}, nil
	case t.typ == 'i' && !t.quoted && (t.s == "true" || t.s == "false"):
		l := lit{kind: 'b', pos: t.pos}
		if t.s == "true" {
			l.num, l.isInt, l.i = 1, true, 1
		}
		return l, nil
	case t.typ == 'i' && !t.quoted && (t.s == "nan" || t.s == "inf"):
		x, _ := strconv.ParseFloat(t.s, 64)
		return lit{kind: 'n', num: x, pos: t.pos}, nil
	}
	what := t.s
	if t.typ == 'e' {
		what = "the end"
	}
	if !orField {
		if t.typ == 'i' {
			return lit{}, &predError{t.pos, fmt.Sprintf("a list after in holds numbers, strings, true or false, not the field %q", t.s)}
		}
		return lit{}, &predError{t.pos, fmt.Sprintf("expected a number, string, true or false, not %s", quoteTok(what, t.typ))}
	}
	return lit{}, &predError{t.pos, fmt.Sprintf("expected a number, string, true, false or a field name, not %s", quoteTok(what, t.typ))}
}

func checkPredicate(v string) (string, int) {
	if _, err := parsePredicate(v); err != nil {
		pe := err.(*predError)
		return "invalid predicate: " + pe.msg, pe.pos
	}
	return "", 0
}

// bind resolves field names and checks literal types against the schema.
func (e *pred) bind(dt *npyio.DType) *predError {
	switch e.kind {
	case pAnd, pOr:
		if err := e.l.bind(dt); err != nil {
			return err
		}
		return e.r.bind(dt)
	case pNot:
		return e.l.bind(dt)
	}
	k := fieldIndex(dt, e.field)
	if k < 0 {
		return &predError{e.fpos, fmt.Sprintf("no field %q in the input%s; fields: %s", e.field, didYouMean(e.field, fieldNames(dt)), strings.Join(fieldNames(dt), ", "))}
	}
	f := dt.Fields[k]
	if len(f.Shape) > 0 {
		return &predError{e.fpos, fmt.Sprintf("field %q is a subarray %s; flatten it first", e.field, npyio.FormatShape(f.Shape))}
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
				return &predError{l.pos, fmt.Sprintf("field %q holds strings; compare it with a quoted string", e.field)}
			}
			enc := make([]byte, f.Type.Size)
			if f.Type.Kind == npyio.Unicode {
				putUCS4(enc, l.str)
			} else {
				copy(enc, l.str)
			}
			if (f.Type.Kind == npyio.Bytes && len(l.str) > f.Type.Size) || (f.Type.Kind == npyio.Unicode && len([]rune(l.str)) > f.Type.Size/4) {
				enc = nil // longer than the field: equal to no value
			}
			e.enc = append(e.enc, enc)
		case npyio.Int, npyio.Uint, npyio.Float, npyio.Bool, npyio.Datetime, npyio.Timedelta:
			if l.kind == 's' {
				return &predError{l.pos, fmt.Sprintf("field %q holds %s numbers; compare it with a number", e.field, f.Type)}
			}
			if f.Type.Kind == npyio.Float && f.Type.Size == 2 {
				return &predError{e.fpos, fmt.Sprintf("field %q is float16, which filter does not support; cast it first", e.field)}
			}
		default:
			return &predError{e.fpos, fmt.Sprintf("field %q of type %s cannot be compared", e.field, f.Type)}
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
func (e *pred) bindDatetime(i int, dt *npyio.DType) *predError {
	l := &e.lits[i]
	if dt.Unit == "" {
		return &predError{l.pos, fmt.Sprintf("field %q is a datetime64 without a unit; cast it to one first", e.field)}
	}
	count, exact, err := datetimeCount(l.str, dt.Unit, dt.UnitMult)
	if err != nil {
		return &predError{l.pos, err.Error()}
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
func (e *pred) bindRight(dt *npyio.DType) *predError {
	k := fieldIndex(dt, e.rfield)
	if k < 0 {
		return &predError{e.rpos, fmt.Sprintf("no field %q in the input%s; fields: %s", e.rfield, didYouMean(e.rfield, fieldNames(dt)), strings.Join(fieldNames(dt), ", "))}
	}
	g := dt.Fields[k]
	if len(g.Shape) > 0 {
		return &predError{e.rpos, fmt.Sprintf("field %q is a subarray %s; flatten it first", e.rfield, npyio.FormatShape(g.Shape))}
	}
	e.roff, e.rdt = g.Offset, g.Type
	for _, side := range []struct {
		name string
		pos  int
		dt   *npyio.DType
	}{{e.field, e.fpos, e.dt}, {e.rfield, e.rpos, e.rdt}} {
		switch cmpKind(side.dt) {
		case 'h':
			return &predError{side.pos, fmt.Sprintf("field %q is float16, which filter does not support; cast it first", side.name)}
		case 0:
			return &predError{side.pos, fmt.Sprintf("field %q of type %s cannot be compared", side.name, side.dt)}
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
	return &predError{e.rpos, fmt.Sprintf("fields %q (%s) and %q (%s) cannot be compared: %s", e.field, e.dt, e.rfield, e.rdt, why)}
}

// eval sets mask[i] to whether row i of data matches.
func (e *pred) eval(data []byte, rowSize, rows int, mask []bool) {
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

func (e *pred) evalString(data []byte, rowSize, rows int, mask []bool) {
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
				s = ucs4String(v)
			} else {
				s = bytesString(v)
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

// loadLane loads n values of a numeric column into the lane that holds
// its type exactly and returns which: 'i' (int64: bool, signed ints,
// uint8..uint32, datetime64, timedelta64), 'u' (uint64) or 'f' (float64:
// float32, float64).
func loadLane(l *lane, f *npyio.DType, data []byte, so, rowSize, n int) byte {
	switch {
	case f.Kind == npyio.Bool || f.Kind == npyio.Int && f.Size == 1:
		l.i = loadI[int8](l.i, data, so, rowSize, n)
	case f.Kind == npyio.Int && f.Size == 2:
		l.i = loadI[int16](l.i, data, so, rowSize, n)
	case f.Kind == npyio.Int && f.Size == 4:
		l.i = loadI[int32](l.i, data, so, rowSize, n)
	case f.Kind == npyio.Int || f.Kind == npyio.Datetime || f.Kind == npyio.Timedelta:
		l.i = loadI[int64](l.i, data, so, rowSize, n)
	case f.Kind == npyio.Uint && f.Size == 1:
		l.i = loadI[uint8](l.i, data, so, rowSize, n)
	case f.Kind == npyio.Uint && f.Size == 2:
		l.i = loadI[uint16](l.i, data, so, rowSize, n)
	case f.Kind == npyio.Uint && f.Size == 4:
		l.i = loadI[uint32](l.i, data, so, rowSize, n)
	case f.Kind == npyio.Uint:
		l.u = loadU(l.u, data, so, rowSize, n)
		return 'u'
	case f.Size == 4:
		l.f = loadF[float32](l.f, data, so, rowSize, n)
		return 'f'
	default:
		l.f = loadF[float64](l.f, data, so, rowSize, n)
		return 'f'
	}
	return 'i'
}

func (e *pred) evalNumber(data []byte, rowSize, rows int, mask []bool) {
	l := &e.lane
	for r0 := 0; r0 < rows; r0 += evalChunk {
		n := min(evalChunk, rows-r0)
		m := mask[r0 : r0+n]
		cls := loadLane(l, e.dt, data, r0*rowSize+e.off, rowSize, n)
		for i := range m {
			m[i] = false
		}
		for _, lt := range e.lits {
			op := e.op
			if op == "in" || op == "not in" {
				op = "=="
			}
			switch {
			case cls == 'f' && (!lt.isInt || lt.i >= -1<<53 && lt.i <= 1<<53):
				// A float literal, or an integer exactly a float64.
				cmpSlice(l.f[:n], lt.num, op, m)
			case cls == 'u' && lt.isInt && lt.i >= 0:
				cmpSlice(l.u[:n], uint64(lt.i), op, m)
			case cls == 'i' && lt.isInt:
				cmpSlice(l.i[:n], lt.i, op, m)
			default:
				// Mixed kinds: compare exactly, the literal repeated.
				r := &e.rlane
				rc := byte('f')
				if lt.isInt {
					rc = 'i'
					r.i = r.i[:0]
					for range n {
						r.i = append(r.i, lt.i)
					}
				} else {
					r.f = r.f[:0]
					for range n {
						r.f = append(r.f, lt.num)
					}
				}
				e.c3 = compare3(e.c3, l, cls, r, rc, n)
				orOp(e.c3, op, m)
			}
		}
		if isTime(e.dt) {
			natLike(l.i[:n], e.op, m)
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
func (e *pred) evalNumberFields(data []byte, rowSize, rows int, mask []bool) {
	for r0 := 0; r0 < rows; r0 += evalChunk {
		n := min(evalChunk, rows-r0)
		lc := loadLane(&e.lane, e.dt, data, r0*rowSize+e.off, rowSize, n)
		rc := loadLane(&e.rlane, e.rdt, data, r0*rowSize+e.roff, rowSize, n)
		e.c3 = compare3(e.c3, &e.lane, lc, &e.rlane, rc, n)
		m := mask[r0 : r0+n]
		for i := range m {
			m[i] = false
		}
		orOp(e.c3, e.op, m)
		if isTime(e.dt) { // and so is the right field, of the same type
			natLike(e.lane.i[:n], e.op, m)
			natLike(e.rlane.i[:n], e.op, m)
		}
	}
}

// unordered is compare3's result for a NaN.
const unordered = 2

// compare3 compares n values of lane a (kind ak) with lane b (kind bk)
// exactly: -1, 0, 1, or unordered when either is NaN.
func compare3(c []int8, a *lane, ak byte, b *lane, bk byte, n int) []int8 {
	c = slices.Grow(c[:0], n)[:n]
	switch uint16(ak)<<8 | uint16(bk) {
	case 'i'<<8 | 'i':
		cmpSame(c, a.i[:n], b.i[:n])
	case 'u'<<8 | 'u':
		cmpSame(c, a.u[:n], b.u[:n])
	case 'f'<<8 | 'f':
		for i, x := range a.f[:n] {
			c[i] = cmpFF(x, b.f[i])
		}
	case 'i'<<8 | 'u':
		for i, x := range a.i[:n] {
			c[i] = cmpIU(x, b.u[i])
		}
	case 'u'<<8 | 'i':
		for i, x := range a.u[:n] {
			c[i] = -cmpIU(b.i[i], x)
		}
	case 'i'<<8 | 'f':
		for i, x := range a.i[:n] {
			c[i] = cmpIF(x, b.f[i])
		}
	case 'f'<<8 | 'i':
		for i, x := range a.f[:n] {
			c[i] = flip(cmpIF(b.i[i], x))
		}
	case 'u'<<8 | 'f':
		for i, x := range a.u[:n] {
			c[i] = cmpUF(x, b.f[i])
		}
	case 'f'<<8 | 'u':
		for i, x := range a.f[:n] {
			c[i] = flip(cmpUF(b.u[i], x))
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
func (e *pred) evalStringFields(data []byte, rowSize, rows int, mask []bool) {
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

type filterNode struct {
	base
	p       *pred
	rowSize int
	mask    []bool
	buf     []byte
}

func buildFilter(c *Component, in *Schema, _ *buildEnv) (node, error) {
	if err := needRecords(c, in); err != nil {
		return nil, err
	}
	p, err := parsePredicate(c.String("where"))
	if err != nil {
		return nil, c.errorf("where", "%v", err) // checked at load; not reached
	}
	if pe := p.bind(in.DType); pe != nil {
		e := c.errorf("where", "%s", pe.msg)
		if v := c.vals["where"]; v != nil && e.Pos.Line > 0 {
			switch {
			case v.Style == 0:
				e.Pos.Col += pe.pos
			case v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
				e.Pos.Col += pe.pos + 1
			}
		}
		return nil, e
	}
	f := &filterNode{p: p, rowSize: int(in.RowSize())}
	f.schema = in
	return f, nil
}

func (f *filterNode) Begin(p *Part) error { return f.out.Begin(p) }
func (f *filterNode) End(p *Part) error   { return f.out.End(p) }
func (f *filterNode) Finish() error       { return nil }
func (f *filterNode) planRows(rows int64, _ bool) (int64, bool) {
	return rows, false
}

func (f *filterNode) Push(b Batch) error {
	if cap(f.mask) < b.Rows {
		f.mask = make([]bool, b.Rows)
	}
	mask := f.mask[:b.Rows]
	f.p.eval(b.Data, f.rowSize, b.Rows, mask)
	n := 0
	for _, k := range mask {
		if k {
			n++
		}
	}
	switch n {
	case 0:
		return nil
	case b.Rows:
		return f.out.Push(b)
	}
	if cap(f.buf) < n*f.rowSize {
		f.buf = make([]byte, n*f.rowSize)
	}
	gather(f.buf, b.Data, f.rowSize, mask)
	return f.out.Push(Batch{Rows: n, Data: f.buf[:n*f.rowSize]})
}
