package job

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/npyflow/npyflow/internal/storage"
	"go.yaml.in/yaml/v3"
)

// KV is one entry of a mapping option.
type KV struct {
	Key, Value string
	Pos        Pos // of the value
}

// kvs returns a mapping option's entries in file order.
func (c *Component) kvs(name string) []KV {
	v := c.vals[name]
	if v == nil {
		return nil
	}
	var out []KV
	for i := 0; i+1 < len(v.Content); i += 2 {
		e := resolve(v.Content[i+1])
		out = append(out, KV{Key: v.Content[i].Value, Value: e.Value, Pos: c.pos(e)})
	}
	return out
}

// PosOf returns the position of an option's value (or of the component
// when the option is absent), for errors found after loading.
func (c *Component) PosOf(name string) Pos {
	if v := c.vals[name]; v != nil {
		return c.pos(v)
	}
	return c.Pos
}

// PosOfItem returns the position of item i of a list option.
func (c *Component) PosOfItem(name string, i int) Pos {
	v := c.vals[name]
	if v != nil && v.Kind == yaml.SequenceNode && i < len(v.Content) {
		return c.pos(resolve(v.Content[i]))
	}
	return c.PosOf(name)
}

// Errorf returns a positioned job error about option name (or the whole
// component when name is "").
func (c *Component) Errorf(name string, format string, args ...any) *Error {
	path := c.Path()
	pos := c.Pos
	if name != "" {
		path += "." + name
		pos = c.PosOf(name)
	}
	return &Error{Pos: pos, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// ItemErrorf is Errorf for item i of a list option.
func (c *Component) ItemErrorf(name string, i int, format string, args ...any) *Error {
	path := c.Path() + "." + name
	if v := c.vals[name]; v != nil && v.Kind == yaml.SequenceNode {
		path = fmt.Sprintf("%s[%d]", path, i)
	}
	return &Error{Pos: c.PosOfItem(name, i), Path: path, Msg: fmt.Sprintf(format, args...)}
}

// ResolvePath resolves a path given in the job against the job file's
// directory (Job.Dir); absolute paths and URLs are kept as they are.
func (c *Component) ResolvePath(p string) string {
	if filepath.IsAbs(p) || storage.Scheme(p) != "" || c.job == nil || c.job.Dir == "" {
		return p
	}
	return filepath.Join(c.job.Dir, p)
}

// PosAt returns the position of byte off of the scalar value of option
// name, for errors about a part of it (a predicate's field): the column
// accounts for an opening quote; in a block scalar, or from --set, it is
// the value's position.
func (c *Component) PosAt(name string, off int) Pos {
	p := c.PosOf(name)
	v := c.vals[name]
	if v == nil || p.Line == 0 {
		return p
	}
	switch {
	case v.Style == 0:
		p.Col += off
	case v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		p.Col += off + 1
	}
	return p
}

// Given returns the names of the options the job gives the component
// (type and input included), sorted.
func (c *Component) Given() []string {
	return slices.Sorted(maps.Keys(c.vals))
}

// Text renders the value of option name canonically (lists as
// [a,b], mappings as {"k":v}, scalars quoted), for digests that must not
// depend on how the job file spells a value; "" if it is not given.
func (c *Component) Text(name string) string {
	if v := c.vals[name]; v != nil {
		return nodeText(v)
	}
	return ""
}

func nodeText(n *yaml.Node) string {
	n = resolve(n)
	switch n.Kind {
	case yaml.SequenceNode:
		var s []string
		for _, e := range n.Content {
			s = append(s, nodeText(e))
		}
		return "[" + strings.Join(s, ",") + "]"
	case yaml.MappingNode:
		var s []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			s = append(s, strconv.Quote(n.Content[i].Value)+":"+nodeText(n.Content[i+1]))
		}
		return "{" + strings.Join(s, ",") + "}"
	}
	return strconv.Quote(n.Value)
}
