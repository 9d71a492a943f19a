package pipeline

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/npyflow/npyflow/npyio"
	"gopkg.in/yaml.v3"
)

// Predicates
//
//	expr   = or
//	or     = and { "or" and }
//	and    = unary { "and" unary }
//	unary  = "not" unary | "(" expr ")" | cmp
//	cmp    = field op literal | field ["not"] "in" "[" literal {"," literal} "]"
//	op     = "==" | "!=" | "<" | "<=" | ">" | ">="
//	field  = name | `any name`
//	literal = number | 'string' | "string" | true | false

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

	// bound at build time
	off   int
	dt    *npyio.DType
	enc   [][]byte // string literals encoded like the field
	mask  []bool
	rmask []bool
	lane  lane
}

type tok struct {
	s   string
	pos int
	typ byte // 'i' ident, 'n' number, 's' string, 'o' operator/punct, 'e' end
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
			out = append(out, tok{sb.String(), i, 's'})
			i = j + 1
		case c == '`':
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				return nil, &predError{i, "unterminated `name`"}
			}
			out = append(out, tok{s[i+1 : i+1+j], i, 'i'})
			i += j + 2
		case c >= '0' && c <= '9' || c == '.' || (c == '-' || c == '+') && i+1 < len(s) && (s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '.'):
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' || s[j] == '_' || s[j] == 'x' ||
				(s[j] == '-' || s[j] == '+') && (s[j-1] == 'e' || s[j-1] == 'E') || s[j] >= 'a' && s[j] <= 'f' || s[j] >= 'A' && s[j] <= 'F') {
				j++
			}
			out = append(out, tok{s[i:j], i, 'n'})
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] == '.' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			out = append(out, tok{s[i:j], i, 'i'})
			i = j
		default:
			for _, op := range []string{"==", "!=", "<=", ">=", "<", ">", "(", ")", "[", "]", ","} {
				if strings.HasPrefix(s[i:], op) {
					out = append(out, tok{op, i, 'o'})
					i += len(op)
					goto next
				}
			}
			if c == '=' {
				return nil, &predError{i, "use == to compare"}
			}
			return nil, &predError{i, fmt.Sprintf("unexpected %q", c)}
		next:
		}
	}
	return append(out, tok{"", len(s), 'e'}), nil
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
	return t.typ == 'i' && t.s == w
}

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

func (p *predParser) cmp() (*pred, error) {
	f := p.take()
	if f.typ != 'i' || f.s == "and" || f.s == "or" || f.s == "in" {
		what := f.s
		if f.typ == 'e' {
			what = "the end"
		}
		return nil, &predError{f.pos, fmt.Sprintf("expected a field name, not %s", quoteTok(what, f.typ))}
	}
	e := &pred{kind: pCmp, field: f.s, fpos: f.pos}
	op := p.take()
	switch {
	case op.typ == 'o' && strings.Contains("== != < <= > >=", op.s) && op.s != "," && op.s != "(":
		e.op = op.s
		l, err := p.literal()
		if err != nil {
			return nil, err
		}
		e.lits = []lit{l}
		return e, nil
	case op.typ == 'i' && (op.s == "in" || op.s == "not" && p.isWord("in")):
		e.op = "in"
		if op.s == "not" {
			p.take()
			e.op = "not in"
		}
		if t := p.take(); t.s != "[" {
			return nil, &predError{t.pos, "expected [ after in"}
		}
		for {
			l, err := p.literal()
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
	what := op.s
	if op.typ == 'e' {
		what = "the end"
	}
	return nil, &predError{op.pos, fmt.Sprintf("expected a comparison (==, !=, <, <=, >, >=, in) after %q, not %s", f.s, quoteTok(what, op.typ))}
}

func quoteTok(s string, typ byte) string {
	if typ == 'e' {
		return s
	}
	return strconv.Quote(s)
}

func (p *predParser) literal() (lit, error) {
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
	case t.typ == 'i' && (t.s == "true" || t.s == "false"):
		l := lit{kind: 'b', pos: t.pos}
		if t.s == "true" {
			l.num, l.isInt, l.i = 1, true, 1
		}
		return l, nil
	case t.typ == 'i' && (t.s == "nan" || t.s == "inf"):
		x, _ := strconv.ParseFloat(t.s, 64)
		return lit{kind: 'n', num: x, pos: t.pos}, nil
	}
	what := t.s
	if t.typ == 'e' {
		what = "the end"
	}
	return lit{}, &predError{t.pos, fmt.Sprintf("expected a number, string, true or false, not %s", quoteTok(what, t.typ))}
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
		return &predError{e.fpos, fmt.Sprintf("field %q is a subarray %s; flatten it first", e.field, shapeString(f.Shape))}
	}
	e.off, e.dt = f.Offset, f.Type
	for _, l := range e.lits {
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
	if e.enc != nil || e.dt.Kind == npyio.Bytes || e.dt.Kind == npyio.Unicode {
		e.evalString(data, rowSize, rows, mask)
	} else {
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

func (e *pred) evalNumber(data []byte, rowSize, rows int, mask []bool) {
	l := &e.lane
	for r0 := 0; r0 < rows; r0 += evalChunk {
		n := min(evalChunk, rows-r0)
		so := r0*rowSize + e.off
		m := mask[r0 : r0+n]
		f := e.dt
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
		case f.Size == 4:
			l.f = loadF[float32](l.f, data, so, rowSize, n)
		default:
			l.f = loadF[float64](l.f, data, so, rowSize, n)
		}
		wide := f.Kind == npyio.Uint && f.Size == 8
		isFloat := f.Kind == npyio.Float
		for i := range m {
			m[i] = false
		}
		for _, lt := range e.lits {
			op := e.op
			if op == "in" || op == "not in" {
				op = "=="
			}
			switch {
			case isFloat:
				cmpSlice(l.f[:n], lt.num, op, m)
			case wide && lt.isInt && lt.i >= 0:
				cmpSlice(l.u[:n], uint64(lt.i), op, m)
			case wide:
				fs := l.f[:0]
				for _, v := range l.u[:n] {
					fs = append(fs, float64(v))
				}
				l.f = fs
				cmpSlice(fs, lt.num, op, m)
			case lt.isInt:
				cmpSlice(l.i[:n], lt.i, op, m)
			default:
				fs := l.f[:0]
				for _, v := range l.i[:n] {
					fs = append(fs, float64(v))
				}
				l.f = fs
				cmpSlice(fs, lt.num, op, m)
			}
		}
	}
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
