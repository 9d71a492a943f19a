package expr

import (
	"fmt"
	"strings"
)

type tok struct {
	s      string
	pos    int
	typ    byte // 'i' ident, 'n' number, 's' string, 'o' operator/punct, 'e' end
	quoted bool // an ident written `like this`
}

func lex(s string) ([]tok, error) {
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
				return nil, &Error{i, "unterminated string"}
			}
			out = append(out, tok{s: sb.String(), pos: i, typ: 's'})
			i = j + 1
		case c == '`':
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				return nil, &Error{i, "unterminated `name`"}
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
				return nil, &Error{i, "use == to compare"}
			}
			if strings.IndexByte("*/%+-", c) >= 0 {
				return nil, &Error{i, fmt.Sprintf("unexpected %q: a predicate has no arithmetic; write the number itself (2**53 is 9007199254740992)", c)}
			}
			return nil, &Error{i, fmt.Sprintf("unexpected %q", c)}
		next:
		}
	}
	return append(out, tok{s: "", pos: len(s), typ: 'e'}), nil
}
