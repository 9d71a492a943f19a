package job

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// expandEnv replaces ${VAR}, ${VAR:-default} and ${VAR:?message} in every
// scalar value (not key) under n. Expansion happens after parsing, so a
// variable's value is always plain text inside one scalar: it cannot add
// keys or change the document's structure, and positions stay exact. "$$"
// is a literal "$"; a "$" not followed by "{" or "$" is left alone.
func (l *loader) expandEnv(n *yaml.Node, path string) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := n.Content[i].Value
			if path != "" {
				p = path + "." + p
			}
			l.expandEnv(n.Content[i+1], p)
		}
	case yaml.SequenceNode:
		for i, e := range n.Content {
			l.expandEnv(e, fmt.Sprintf("%s[%d]", path, i))
		}
	case yaml.ScalarNode:
		if !strings.Contains(n.Value, "$") {
			return
		}
		out, col, err := expand(n.Value, l.lookup)
		if err != "" {
			pos := l.pos(n)
			if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 && !strings.Contains(n.Value[:col], "\n") {
				if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
					col++
				}
				pos.Col += col
			}
			l.errs.add(pos, path, "%s", err)
			l.bad[n] = true
			return
		}
		n.Value = out
	}
}

// expand expands variables in s. On error it returns the byte offset of the
// bad reference and a message.
func expand(s string, lookup func(string) (string, bool)) (string, int, string) {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			i++
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i += 2
			continue
		case '{':
		default:
			b.WriteByte(c)
			i++
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", i, "unterminated ${ (write $$ for a literal $)"
		}
		ref := s[i+2 : i+end]
		name, op, arg := ref, "", ""
		if k := strings.Index(ref, ":"); k >= 0 {
			name = ref[:k]
			rest := ref[k+1:]
			if rest == "" || (rest[0] != '-' && rest[0] != '?') {
				return "", i, fmt.Sprintf("invalid reference ${%s}: use ${VAR}, ${VAR:-default} or ${VAR:?message}", ref)
			}
			op, arg = rest[:1], rest[1:]
		}
		if !validEnvName(name) {
			return "", i, fmt.Sprintf("invalid variable name %q in ${%s}", name, ref)
		}
		val, ok := lookup(name)
		switch {
		case ok && (val != "" || op == ""):
		case op == "-":
			val = arg
		case op == "?":
			msg := arg
			if msg == "" {
				msg = "is required"
			}
			return "", i, fmt.Sprintf("environment variable %s: %s", name, msg)
		default:
			return "", i, fmt.Sprintf("environment variable %s is not set (use ${%s:-default} to give a default)", name, name)
		}
		b.WriteString(val)
		i += end + 1
	}
	return b.String(), 0, ""
}

func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// applySet applies one "path=value" override. The path is dot-separated
// keys ("sinks.table.path"); the value is a plain string, or a YAML flow
// list or mapping when it starts with '[' or '{'.
func (l *loader) applySet(root *yaml.Node, set string) {
	origin := "--set " + set
	path, val, ok := strings.Cut(set, "=")
	if !ok || path == "" {
		l.errs.add(Pos{File: l.file, Set: origin}, "", "want --set path=value, like --set sinks.out.path=out.parquet")
		return
	}
	var vn *yaml.Node
	if strings.HasPrefix(val, "[") || strings.HasPrefix(val, "{") {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(val), &doc); err != nil || len(doc.Content) != 1 {
			l.errs.add(Pos{File: l.file, Set: origin}, path, "invalid flow value %q", val)
			return
		}
		vn = doc.Content[0]
	} else {
		vn = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: val}
	}
	l.markSet(vn, origin)
	keys := strings.Split(path, ".")
	n := root
	for i, k := range keys {
		if n.Kind != yaml.MappingNode {
			l.errs.add(Pos{File: l.file, Set: origin}, strings.Join(keys[:i], "."), "is not a mapping; cannot set %q in it", k)
			return
		}
		var next *yaml.Node
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == k {
				if i == len(keys)-1 {
					n.Content[j+1] = vn
					return
				}
				next = resolve(n.Content[j+1])
				break
			}
		}
		if next == nil {
			kn := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}
			l.markSet(kn, origin)
			next = vn
			if i < len(keys)-1 {
				next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				l.markSet(next, origin)
			}
			n.Content = append(n.Content, kn, next)
		}
		n = next
	}
}

func (l *loader) markSet(n *yaml.Node, origin string) {
	l.setPos[n] = origin
	for _, c := range n.Content {
		l.markSet(c, origin)
	}
}
