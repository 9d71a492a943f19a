package job

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Def is a component of a job a program makes rather than a file
// (what pipeline.Convert runs), validated by [New] as [Load] validates a
// file's.
type Def struct {
	Kind   Kind
	Name   string
	Type   string
	Inputs []string
	// Options are the option values: string, int64, bool, []string, or
	// []KV for a mapping.
	Options map[string]any
	// Origins say where option values came from, for messages: an error
	// about option "compression" reads "--compression zstd: ...".
	Origins map[string]string
	// Checked are the options whose values the caller checked already
	// ([Field.ParseFlag] did): they are not checked again.
	Checked map[string]bool
}

// New makes a job of components given as Go values, as if read from a
// file named name whose relative paths resolve against dir. Problems come
// back as an [ErrorList], positioned by the options' origins.
func New(name, dir string, defs []Def) (*Job, error) {
	doc := map[string]any{"version": Version}
	for _, d := range defs {
		sec, _ := doc[d.Kind.Section()].(map[string]any)
		if sec == nil {
			sec = map[string]any{}
			doc[d.Kind.Section()] = sec
		}
		sec[d.Name] = d.values()
	}
	var root yaml.Node
	if err := root.Encode(doc); err != nil {
		return nil, fmt.Errorf("job: %w", err)
	}
	l := newDefLoader(name)
	for _, d := range defs {
		l.mark(d, mapValue(mapValue(&root, d.Kind.Section()), d.Name))
	}
	j := &Job{File: name, Dir: dir, Version: Version, byName: map[string]*Component{}}
	l.job(&root, j)
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	return j, nil
}

// NewComponent makes one component given as Go values, validated as New
// validates each, outside any job (inspect's options as a source's).
func NewComponent(name string, d Def) (*Component, error) {
	var n yaml.Node
	if err := n.Encode(d.values()); err != nil {
		return nil, fmt.Errorf("job: %w", err)
	}
	l := newDefLoader(name)
	l.mark(d, &n)
	c := l.component(d.Kind, d.Name, &yaml.Node{Kind: yaml.ScalarNode, Value: d.Name}, &n, nil)
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

func newDefLoader(name string) *loader {
	return &loader{file: name, setPos: map[*yaml.Node]string{}, bad: map[*yaml.Node]bool{}, checked: map[*yaml.Node]any{}}
}

// values is the YAML mapping of the component as Go values.
func (d Def) values() map[string]any {
	m := map[string]any{"type": d.Type}
	if len(d.Inputs) > 0 {
		m["input"] = d.Inputs
	}
	for k, v := range d.Options {
		if kvs, ok := v.([]KV); ok {
			n := &yaml.Node{Kind: yaml.MappingNode} // in order
			for _, kv := range kvs {
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: kv.Key}, &yaml.Node{Kind: yaml.ScalarNode, Value: kv.Value})
			}
			v = n
		}
		m[k] = v
	}
	return m
}

// mark records the origins of d's options, and those checked, in its
// mapping n.
func (l *loader) mark(d Def, n *yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		if o := d.Origins[k]; o != "" {
			l.markSet(v, o)
		}
		if d.Checked[k] {
			l.checked[v] = d.Options[k]
		}
	}
}

// mapValue returns the value of key in the mapping n.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
