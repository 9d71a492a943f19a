package job

import (
	"fmt"
	"strconv"

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
	// (a Field's FlagValue did): their Enum is not applied again.
	Checked map[string]bool
}

// New makes a job of components given as Go values, as if read from a
// file named name whose relative paths resolve against dir. Problems come
// back as an [ErrorList], positioned by the options' origins.
func New(name, dir string, defs []Def) (*Job, error) {
	l := newDefLoader(name)
	root := &yaml.Node{Kind: yaml.MappingNode}
	add(root, "version", scalar(strconv.Itoa(Version)))
	sections := map[Kind]*yaml.Node{}
	for _, k := range []Kind{Source, Transform, Sink} {
		sections[k] = &yaml.Node{Kind: yaml.MappingNode}
	}
	for _, d := range defs {
		c, err := l.defNode(d)
		if err != nil {
			return nil, err
		}
		sec := sections[d.Kind]
		if sec == nil {
			return nil, fmt.Errorf("job: component %q has no kind", d.Name)
		}
		add(sec, d.Name, c)
	}
	for _, k := range []Kind{Source, Transform, Sink} {
		if len(sections[k].Content) > 0 {
			add(root, k.Section(), sections[k])
		}
	}
	j := &Job{File: name, Dir: dir, Version: Version, byName: map[string]*Component{}}
	l.job(root, j)
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	return j, nil
}

// NewComponent makes one component given as Go values, validated as New
// validates each, outside any job (inspect's options as a source's).
func NewComponent(name string, d Def) (*Component, error) {
	l := newDefLoader(name)
	n, err := l.defNode(d)
	if err != nil {
		return nil, err
	}
	c := l.component(d.Kind, d.Name, scalar(d.Name), n, nil)
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

func newDefLoader(name string) *loader {
	return &loader{file: name, setPos: map[*yaml.Node]string{}, bad: map[*yaml.Node]bool{}, checked: map[*yaml.Node]bool{}}
}

// defNode is the YAML mapping of a component given as Go values.
func (l *loader) defNode(d Def) (*yaml.Node, error) {
	c := &yaml.Node{Kind: yaml.MappingNode}
	add(c, "type", scalar(d.Type))
	if len(d.Inputs) > 0 {
		add(c, "input", node(d.Inputs))
	}
	for k, v := range d.Options {
		n := node(v)
		if n == nil {
			return nil, fmt.Errorf("job: option %s of %s %q: unsupported value %T", k, d.Kind, d.Name, v)
		}
		if o := d.Origins[k]; o != "" {
			l.markSet(n, o)
		}
		if d.Checked[k] {
			l.checked[n] = true
		}
		add(c, k, n)
	}
	return c, nil
}

func add(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

func scalar(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// node is the YAML node of an option value.
func node(v any) *yaml.Node {
	switch v := v.(type) {
	case string:
		return scalar(v)
	case int64:
		return scalar(strconv.FormatInt(v, 10))
	case bool:
		return scalar(strconv.FormatBool(v))
	case []string:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for _, s := range v {
			n.Content = append(n.Content, scalar(s))
		}
		return n
	case []KV:
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, kv := range v {
			n.Content = append(n.Content, scalar(kv.Key), scalar(kv.Value))
		}
		return n
	}
	return nil
}
