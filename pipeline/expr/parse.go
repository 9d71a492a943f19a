package expr

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
)

// Expr is a parsed predicate. [Expr.Bind] fixes the row layout it reads;
// [Expr.Eval] then evaluates it. An Expr keeps scratch buffers between
// calls: it is not safe for concurrent use.
type Expr struct {
	root *node
}

// Parse parses the predicate src. A syntax error is an [*Error] with the
// byte offset of the problem.
func Parse(src string) (*Expr, error) {
	n, err := parse(src)
	if err != nil {
		return nil, err
	}
	return &Expr{root: n}, nil
}

// Fields returns the field names the predicate reads, in first-seen
// order.
func (e *Expr) Fields() []string {
	var out []string
	var walk func(*node)
	walk = func(n *node) {
		if n == nil {
			return
		}
		for _, f := range []string{n.field, n.rfield} {
			if f != "" && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
		walk(n.l)
		walk(n.r)
	}
	walk(e.root)
	return out
}

// Bind resolves the predicate's fields in the record dtype dt and checks
// that each comparison is between comparable types; a problem is an
// [*Error] with the offset of the field or literal at fault.
func (e *Expr) Bind(dt *npyio.DType) error {
	if err := e.root.bind(dt); err != nil {
		return err
	}
	return nil
}

// Eval sets mask[i] to whether row i of data (rows records of rowSize
// bytes in the layout given to Bind) matches.
func (e *Expr) Eval(data []byte, rowSize, rows int, mask []bool) {
	e.root.eval(data, rowSize, rows, mask)
}

// predKind is the kind of a node of the parse tree.
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

// node is a node of the parse tree: a comparison, or and, or or not of
// nodes; Bind fills in the layout of its fields.
type node struct {
	kind  predKind
	l, r  *node
	field string
	fpos  int
	op    string // comparison operator, "in" or "not in"
	lits  []lit

	// the field on the right of a comparison of two fields
	rfield string
	rpos   int
	roff   int
	rdt    *npyio.DType
	rlane  rowbytes.Lane
	c3     []int8 // three-way comparison results of a chunk

	// bound at build time
	off   int
	dt    *npyio.DType
	enc   [][]byte // string literals encoded like the field
	mask  []bool
	rmask []bool
	lane  rowbytes.Lane
}

type parser struct {
	toks []tok
	i    int
}

func (p *parser) peek() tok { return p.toks[p.i] }
func (p *parser) take() tok { t := p.toks[p.i]; p.i++; return t }
func (p *parser) isWord(w string) bool {
	t := p.peek()
	return t.typ == 'i' && !t.quoted && t.s == w
}

// keywords are the names that are not fields unless written `quoted`.
var keywords = map[string]bool{"and": true, "or": true, "not": true, "in": true, "true": true, "false": true, "nan": true, "inf": true}

func parse(s string) (*node, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.typ != 'e' {
		return nil, &Error{t.pos, fmt.Sprintf("unexpected %q; expected and, or or the end", t.s)}
	}
	return e, nil
}

func (p *parser) or() (*node, error) {
	l, err := p.and()
	for err == nil && p.isWord("or") {
		p.take()
		var r *node
		if r, err = p.and(); err == nil {
			l = &node{kind: pOr, l: l, r: r}
		}
	}
	return l, err
}

func (p *parser) and() (*node, error) {
	l, err := p.unary()
	for err == nil && p.isWord("and") {
		p.take()
		var r *node
		if r, err = p.unary(); err == nil {
			l = &node{kind: pAnd, l: l, r: r}
		}
	}
	return l, err
}

func (p *parser) unary() (*node, error) {
	if p.isWord("not") {
		p.take()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &node{kind: pNot, l: x}, nil
	}
	if t := p.peek(); t.typ == 'o' && t.s == "(" {
		p.take()
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if t := p.take(); t.s != ")" || t.typ != 'o' {
			return nil, &Error{t.pos, "missing )"}
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
func (p *parser) cmp() (*node, error) {
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
		return nil, &Error{f.pos, fmt.Sprintf("expected a field name or a literal, not %s", quoteTok(f))}
	}
	op := p.peek()
	if first.field != "" && op.typ == 'i' && !op.quoted && (op.s == "in" || op.s == "not" && p.toks[p.i+1].typ == 'i' && p.toks[p.i+1].s == "in" && !p.toks[p.i+1].quoted) {
		return p.inList(first)
	}
	if !isCmpOp(op) {
		if first.field == "" {
			if op.typ == 'i' && !op.quoted && (op.s == "in" || op.s == "not") {
				return nil, &Error{op.pos, "a list goes after a field: name in [1, 2]"}
			}
			return nil, &Error{op.pos, fmt.Sprintf("expected a comparison (==, !=, <, <=, >, >=) after %s, not %s", p.src(first), quoteTok(op))}
		}
		return nil, &Error{op.pos, fmt.Sprintf("expected a comparison (==, !=, <, <=, >, >=, in) after %q, not %s", first.field, quoteTok(op))}
	}
	var out *node
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
		var e *node
		switch {
		case left.field != "" && right.field != "":
			e = &node{kind: pCmp, field: left.field, fpos: left.pos, op: op.s, rfield: right.field, rpos: right.pos}
		case left.field != "":
			e = &node{kind: pCmp, field: left.field, fpos: left.pos, op: op.s, lits: []lit{right.lit}}
		case right.field != "":
			e = &node{kind: pCmp, field: right.field, fpos: right.pos, op: mirrored[op.s], lits: []lit{left.lit}}
		default:
			return nil, &Error{right.pos, fmt.Sprintf("%s %s %s compares two literals; one side must be a field", p.src(left), op.s, p.src(right))}
		}
		if out == nil {
			out = e
		} else {
			out = &node{kind: pAnd, l: out, r: e}
		}
		left = right
	}
	return out, nil
}

// src is how an operand was written.
func (p *parser) src(o operand) string {
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
func (p *parser) inList(f operand) (*node, error) {
	e := &node{kind: pCmp, field: f.field, fpos: f.pos, op: "in"}
	if p.take().s == "not" {
		p.take()
		e.op = "not in"
	}
	if t := p.take(); t.s != "[" {
		return nil, &Error{t.pos, "expected [ after in"}
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
			return nil, &Error{t.pos, "expected , or ] in the list"}
		}
	}
}

// quoteTok is how the token t reads in a message.
func quoteTok(t tok) string {
	if t.typ == 'e' {
		return "the end"
	}
	return strconv.Quote(t.s)
}

// literal parses a literal; orField says a field name was allowed too
// (for the error message).
func (p *parser) literal(orField bool) (lit, error) {
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
			return lit{}, &Error{t.pos, fmt.Sprintf("invalid number %q", t.s)}
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
	if !orField {
		if t.typ == 'i' {
			return lit{}, &Error{t.pos, fmt.Sprintf("a list after in holds numbers, strings, true or false, not the field %q", t.s)}
		}
		return lit{}, &Error{t.pos, fmt.Sprintf("expected a number, string, true or false, not %s", quoteTok(t))}
	}
	return lit{}, &Error{t.pos, fmt.Sprintf("expected a number, string, true, false or a field name, not %s", quoteTok(t))}
}
