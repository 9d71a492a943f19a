package npyio

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file implements a parser for the subset of Python literal syntax that
// numpy writes into .npy headers (what ast.literal_eval accepts for dicts of
// strings, ints, booleans, tuples and lists). It runs in one pass, in time
// linear in the header length, with bounded nesting.

// maxNesting bounds how deeply lists, tuples and dicts may nest in a header.
// Real descrs nest a few levels per struct level; 256 leaves ample room.
const maxNesting = 256

type pyKind uint8

const (
	pyStr pyKind = iota
	pyInt
	pyFloat
	pyBool
	pyNone
	pyTuple
	pyList
	pyDict
)

func (k pyKind) String() string {
	switch k {
	case pyStr:
		return "string"
	case pyInt:
		return "integer"
	case pyFloat:
		return "float"
	case pyBool:
		return "boolean"
	case pyNone:
		return "None"
	case pyTuple:
		return "tuple"
	case pyList:
		return "list"
	case pyDict:
		return "dict"
	}
	return "value"
}

// pyValue is one parsed literal. For dicts, items alternate key, value.
type pyValue struct {
	kind  pyKind
	pos   int    // byte offset of the value in the header text
	str   string // pyStr: the decoded string; pyInt/pyFloat: the literal text
	num   int64  // pyInt: the value when it fits (see big)
	big   bool   // pyInt: the value does not fit in an int64
	b     bool   // pyBool
	items []pyValue
}

type pyParser struct {
	s      string
	i      int
	depth  int
	noLong bool // reject the Python 2 'L' suffix (v3.0 headers)
}

// parsePyLiteral parses s as a single Python literal, allowing surrounding
// whitespace and nothing else.
func parsePyLiteral(s string) (pyValue, error) { return parsePy(s, false) }

func parsePy(s string, noLong bool) (pyValue, error) {
	p := &pyParser{s: s, noLong: noLong}
	v, err := p.value()
	if err != nil {
		return v, err
	}
	p.skipSpace()
	if p.i < len(p.s) {
		return v, p.errorf(p.i, "unexpected %s after the header literal", p.describe())
	}
	return v, nil
}

func (p *pyParser) errorf(pos int, format string, args ...any) error {
	return &HeaderError{Pos: pos, Msg: sprintf(format, args...)}
}

func (p *pyParser) describe() string {
	if p.i >= len(p.s) {
		return "end of header"
	}
	r, _ := utf8.DecodeRuneInString(p.s[p.i:])
	return strconv.QuoteRune(r)
}

func (p *pyParser) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			p.i++
		case '\\':
			// Explicit line joining: a backslash followed by a newline.
			if p.i+1 < len(p.s) && (p.s[p.i+1] == '\n' || p.s[p.i+1] == '\r') {
				p.i += 2
				continue
			}
			return
		default:
			return
		}
	}
}

func (p *pyParser) value() (pyValue, error) {
	p.skipSpace()
	if p.i >= len(p.s) {
		return pyValue{}, p.errorf(p.i, "unexpected end of header, expected a value")
	}
	start := p.i
	c := p.s[p.i]
	switch {
	case c == '{' || c == '[' || c == '(':
		return p.container()
	case c == '\'' || c == '"':
		return p.strings()
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	case isIdentStart(c):
		j := p.i
		for j < len(p.s) && isIdentPart(p.s[j]) {
			j++
		}
		word := p.s[p.i:j]
		if j < len(p.s) && (p.s[j] == '\'' || p.s[j] == '"') {
			switch strings.ToLower(word) {
			case "u", "r", "ur":
				return p.strings()
			case "b", "br", "rb":
				return pyValue{}, p.errorf(start, "bytes literal %s... is not allowed in an npy header", word)
			}
		}
		p.i = j
		switch word {
		case "True":
			return pyValue{kind: pyBool, pos: start, b: true}, nil
		case "False":
			return pyValue{kind: pyBool, pos: start}, nil
		case "None":
			return pyValue{kind: pyNone, pos: start}, nil
		}
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == '(' {
			return pyValue{}, p.errorf(start, "function call %s(...) is not allowed in an npy header", word)
		}
		return pyValue{}, p.errorf(start, "name %q is not allowed in an npy header (only literals)", word)
	}
	return pyValue{}, p.errorf(start, "unexpected %s, expected a value", p.describe())
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func (p *pyParser) container() (pyValue, error) {
	start := p.i
	open := p.s[p.i]
	var closer byte
	var kind pyKind
	switch open {
	case '{':
		closer, kind = '}', pyDict
	case '[':
		closer, kind = ']', pyList
	default:
		closer, kind = ')', pyTuple
	}
	p.depth++
	if p.depth > maxNesting {
		return pyValue{}, p.errorf(start, "literal nested more than %d levels deep", maxNesting)
	}
	defer func() { p.depth-- }()
	p.i++
	v := pyValue{kind: kind, pos: start}
	sawComma := false
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return v, p.errorf(start, "unterminated %s: missing %q", kind, closer)
		}
		if p.s[p.i] == closer {
			p.i++
			break
		}
		if len(v.items) > 0 && !sawComma {
			return v, p.errorf(p.i, "expected ',' or %q in %s, found %s", closer, kind, p.describe())
		}
		item, err := p.value()
		if err != nil {
			return v, err
		}
		if kind == pyDict {
			p.skipSpace()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return v, p.errorf(p.i, "expected ':' after dict key, found %s", p.describe())
			}
			p.i++
			val, err := p.value()
			if err != nil {
				return v, err
			}
			v.items = append(v.items, item, val)
		} else {
			v.items = append(v.items, item)
		}
		p.skipSpace()
		sawComma = false
		if p.i < len(p.s) && p.s[p.i] == ',' {
			sawComma = true
			p.i++
		}
	}
	// A parenthesised single value without a comma is just that value.
	if kind == pyTuple && len(v.items) == 1 && !sawComma {
		return v.items[0], nil
	}
	if kind == pyTuple && len(v.items) == 0 && sawComma {
		return v, p.errorf(start, "invalid tuple '(,)'")
	}
	return v, nil
}

// strings parses one or more adjacent string literals (Python concatenates them).
func (p *pyParser) strings() (pyValue, error) {
	start := p.i
	var sb strings.Builder
	for n := 0; ; n++ {
		p.skipSpace()
		if n > 0 && (p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"' && !isStrPrefix(p.s[p.i:]))) {
			break
		}
		if err := p.oneString(&sb); err != nil {
			return pyValue{}, err
		}
	}
	return pyValue{kind: pyStr, pos: start, str: sb.String()}, nil
}

func isStrPrefix(s string) bool {
	for i := 0; i < len(s) && i < 3; i++ {
		switch s[i] {
		case 'u', 'U', 'r', 'R':
			continue
		case '\'', '"':
			return i > 0
		}
		return false
	}
	return false
}

func (p *pyParser) oneString(sb *strings.Builder) error {
	raw := false
	for p.i < len(p.s) && p.s[p.i] != '\'' && p.s[p.i] != '"' {
		if p.s[p.i] == 'r' || p.s[p.i] == 'R' {
			raw = true
		}
		p.i++
	}
	start := p.i
	q := p.s[p.i]
	triple := strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3))
	if triple {
		p.i += 3
	} else {
		p.i++
	}
	for {
		if p.i >= len(p.s) {
			return p.errorf(start, "unterminated string literal")
		}
		c := p.s[p.i]
		if c == q {
			if !triple {
				p.i++
				return nil
			}
			if strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3)) {
				p.i += 3
				return nil
			}
		}
		if (c == '\n' || c == '\r') && !triple {
			return p.errorf(start, "unterminated string literal (newline inside quotes)")
		}
		if c != '\\' {
			// Copy a run of ordinary bytes at once.
			j := p.i + 1
			for j < len(p.s) && p.s[j] != '\\' && p.s[j] != q && p.s[j] != '\n' && p.s[j] != '\r' {
				j++
			}
			sb.WriteString(p.s[p.i:j])
			p.i = j
			continue
		}
		if p.i+1 >= len(p.s) {
			return p.errorf(start, "unterminated string literal")
		}
		e := p.s[p.i+1]
		if raw {
			sb.WriteByte('\\')
			sb.WriteByte(e)
			p.i += 2
			continue
		}
		escPos := p.i
		p.i += 2
		switch e {
		case '\n':
		case '\r':
			if p.i < len(p.s) && p.s[p.i] == '\n' {
				p.i++
			}
		case '\\', '\'', '"':
			sb.WriteByte(e)
		case 'a':
			sb.WriteByte('\a')
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'v':
			sb.WriteByte('\v')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n := int(e - '0')
			for k := 0; k < 2 && p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '7'; k++ {
				n = n*8 + int(p.s[p.i]-'0')
				p.i++
			}
			sb.WriteRune(rune(n))
		case 'x', 'u', 'U':
			width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if p.i+width > len(p.s) {
				return p.errorf(escPos, "truncated \\%c escape", e)
			}
			n, err := strconv.ParseUint(p.s[p.i:p.i+width], 16, 32)
			if err != nil || n > utf8.MaxRune {
				return p.errorf(escPos, "invalid \\%c escape %q", e, p.s[p.i:p.i+width])
			}
			sb.WriteRune(rune(n))
			p.i += width
		default:
			// Python keeps unknown escapes verbatim.
			sb.WriteByte('\\')
			sb.WriteByte(e)
		}
	}
}

func (p *pyParser) number() (pyValue, error) {
	start := p.i
	neg := false
	for p.i < len(p.s) && (p.s[p.i] == '-' || p.s[p.i] == '+') {
		if p.s[p.i] == '-' {
			neg = !neg
		}
		p.i++
		p.skipSpace()
	}
	numStart := p.i
	isFloat := false
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c >= '0' && c <= '9', c == '_':
		case c == '.':
			isFloat = true
		case c == 'e' || c == 'E':
			isFloat = true
			if p.i+1 < len(p.s) && (p.s[p.i+1] == '-' || p.s[p.i+1] == '+') {
				p.i++
			}
		case (c == 'x' || c == 'X' || c == 'o' || c == 'O' || c == 'b' || c == 'B') && p.i == numStart+1 && p.s[numStart] == '0':
			// 0x.., 0o.., 0b.. prefixes
			p.i++
			for p.i < len(p.s) && (isHex(p.s[p.i]) || p.s[p.i] == '_') {
				p.i++
			}
			goto done
		default:
			goto done
		}
		p.i++
	}
done:
	text := p.s[numStart:p.i]
	if text == "" {
		return pyValue{}, p.errorf(start, "expected a number after sign")
	}
	// Python 2 long suffix, written by numpy < 1.14 on Python 2.
	if !isFloat && !p.noLong && p.i < len(p.s) && (p.s[p.i] == 'L' || p.s[p.i] == 'l') {
		p.i++
	}
	if p.i < len(p.s) && (isIdentPart(p.s[p.i])) {
		return pyValue{}, p.errorf(start, "invalid number literal %q", p.s[start:p.i+1])
	}
	// Arithmetic (2+3, 2*3) is rejected by the caller's structure checks:
	// the next byte is not ',' or a closer.
	if p.i < len(p.s) {
		p.skipSpace()
		if p.i < len(p.s) && strings.IndexByte("+-*/%@&|^<>", p.s[p.i]) >= 0 {
			return pyValue{}, p.errorf(p.i, "arithmetic is not allowed in an npy header")
		}
	}
	if isFloat {
		if _, err := strconv.ParseFloat(strings.ReplaceAll(text, "_", ""), 64); err != nil {
			return pyValue{}, p.errorf(start, "invalid number literal %q", text)
		}
		return pyValue{kind: pyFloat, pos: start, str: p.s[start:p.i]}, nil
	}
	v := pyValue{kind: pyInt, pos: start, str: strings.TrimSpace(p.s[start:p.i])}
	if len(text) > 1 && text[0] == '0' && text[1] >= '0' && text[1] <= '9' && strings.Trim(text, "0_") != "" {
		return pyValue{}, p.errorf(start, "invalid integer literal %q (leading zeros)", text)
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(text, "_", ""), 0, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			v.big = true
			return v, nil
		}
		if strings.Trim(text, "0_") != "" {
			return pyValue{}, p.errorf(start, "invalid integer literal %q", text)
		}
		n = 0
	}
	if neg {
		n = -n
	}
	v.num = n
	return v, nil
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
