package job

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/npyflow/npyflow/pipeline/internal/suggest"
	"go.yaml.in/yaml/v3"
)

// Version is the only job file format version there is.
const Version = 1

// Job is a validated job file.
type Job struct {
	File       string       // the job file's name as given
	Dir        string       // relative paths in the job resolve against this directory
	Version    int          // the format version (1)
	Components []*Component // sources, then transforms, then sinks, each in file order
	byName     map[string]*Component
	env        map[string]string // the ${VAR}s expanded, by name
}

// Env returns the values of the environment variables the job's ${VAR}
// references were expanded with, by name (a frozen plan carries them).
func (j *Job) Env() map[string]string { return maps.Clone(j.env) }

// Component is one source, transform or sink of a job with its validated
// options.
type Component struct {
	Kind   Kind
	Name   string
	Type   string
	Spec   *Spec
	Pos    Pos      // where the component's name is
	Inputs []string // the components feeding it (none for sources)
	job    *Job
	vals   map[string]*yaml.Node
	pos    func(n *yaml.Node) Pos
	opts   any // the options struct (Spec.Options), filled by Load
}

// Path is the component's key path in the job file, like "sinks.table".
func (c *Component) Path() string { return c.Kind.Section() + "." + c.Name }

// Of returns the job's components of a kind, in file order.
func (j *Job) Of(k Kind) []*Component {
	var out []*Component
	for _, c := range j.Components {
		if c.Kind == k {
			out = append(out, c)
		}
	}
	return out
}

// Component returns the component named name, or nil.
func (j *Job) Component(name string) *Component { return j.byName[name] }

// LoadOptions configures loading a job.
type LoadOptions struct {
	// Set holds "path=value" overrides applied after parsing, such as
	// "sinks.table.path=out.parquet" or "sources.raw.paths=[a.npy,b.npy]".
	Set []string
	// LookupEnv resolves ${VAR}; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Dir overrides the directory relative paths resolve against (the job
	// file's directory by default).
	Dir string
}

// LoadFile reads and validates a job file. Errors in the file are returned
// together as an ErrorList.
func LoadFile(name string, opts *LoadOptions) (*Job, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return Load(name, data, opts)
}

// Load validates a job file's contents; name is used in messages and, by
// default, to resolve relative paths.
func Load(name string, data []byte, opts *LoadOptions) (*Job, error) {
	if opts == nil {
		opts = &LoadOptions{}
	}
	l := &loader{file: name, setPos: map[*yaml.Node]string{}, bad: map[*yaml.Node]bool{}, lookup: opts.LookupEnv}
	if l.lookup == nil {
		l.lookup = os.LookupEnv
	}
	env := map[string]string{}
	look := l.lookup
	l.lookup = func(k string) (string, bool) {
		v, ok := look(k)
		if ok {
			env[k] = v
		}
		return v, ok
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, l.yamlError(err)
	}
	var root *yaml.Node
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		root = doc.Content[0]
	}
	if root == nil || root.Kind != yaml.MappingNode {
		p := Pos{File: name, Line: 1, Col: 1}
		if root != nil {
			p = l.pos(root)
		}
		return nil, ErrorList{{Pos: p, Msg: "a job file is a mapping with sources, transforms and sinks"}}
	}
	l.expandEnv(root, "")
	for _, s := range opts.Set {
		l.applySet(root, s)
	}
	dir := opts.Dir
	if dir == "" {
		dir = filepath.Dir(name)
	}
	job := &Job{File: name, Dir: dir, Version: Version, byName: map[string]*Component{}, env: env}
	l.job(root, job)
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	return job, nil
}

type loader struct {
	file   string
	errs   ErrorList
	setPos map[*yaml.Node]string
	bad    map[*yaml.Node]bool // values whose expansion failed (already reported)
	lookup func(string) (string, bool)
	// checked are the values of flags, checked by Field.ParseFlag
	// already (New): they are not checked again, and their Go values
	// fill the options struct as they are (no reparsing of their text).
	checked map[*yaml.Node]any
}

func (l *loader) pos(n *yaml.Node) Pos {
	if s, ok := l.setPos[n]; ok {
		return Pos{File: l.file, Set: s}
	}
	return Pos{File: l.file, Line: n.Line, Col: n.Column}
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func (l *loader) yamlError(err error) error {
	var out ErrorList
	msgs := []string{err.Error()}
	if te, ok := err.(*yaml.TypeError); ok {
		msgs = te.Errors
	}
	for _, m := range msgs {
		p := Pos{File: l.file, Line: 1, Col: 1}
		if sm := yamlLine.FindStringSubmatch(m); sm != nil {
			p.Line, _ = strconv.Atoi(sm[1])
			m = sm[2]
		} else {
			m = strings.TrimPrefix(m, "yaml: ")
		}
		out = append(out, &Error{Pos: p, Msg: "invalid YAML: " + m})
	}
	return out
}

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

var nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// IsName reports whether s is a valid component name (and output path
// placeholder): letters, digits, '_' and '-', starting with a letter or
// '_'.
func IsName(s string) bool { return nameRE.MatchString(s) }

var topKeys = []string{"version", "sources", "transforms", "sinks"}

// manifest reports whether root has apiVersion and kind but none of a
// job's keys.
func manifest(root *yaml.Node) bool {
	keys := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		keys[root.Content[i].Value] = true
	}
	for _, k := range topKeys {
		if keys[k] {
			return false
		}
	}
	return keys["apiVersion"] && keys["kind"]
}

func (l *loader) job(root *yaml.Node, job *Job) {
	sections := map[string]*yaml.Node{}
	seen := map[string]bool{}
	if manifest(root) {
		l.errs.add(l.pos(root), "", "not an npyflow job: this is a Kubernetes manifest (apiVersion, kind); a job has %s", quoteList(topKeys))
		return
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], resolve(root.Content[i+1])
		if seen[k.Value] {
			l.errs.add(l.pos(k), k.Value, "duplicate key")
			continue
		}
		seen[k.Value] = true
		switch k.Value {
		case "version":
			n, err := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || n != Version {
				l.errs.add(l.pos(v), "version", "unsupported version %q: this npyflow reads version %d", v.Value, Version)
			}
		case "sources", "transforms", "sinks":
			sections[k.Value] = v
			if v.Kind != yaml.MappingNode && !(v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
				l.errs.add(l.pos(v), k.Value, "must be a mapping of names to components")
				delete(sections, k.Value)
			}
		default:
			l.errs.add(l.pos(k), k.Value, "unknown key%s; a job has %s", suggest.DidYouMean(k.Value, topKeys), quoteList(topKeys))
		}
	}
	if !seen["version"] {
		l.errs.add(l.pos(root), "version", "missing: add \"version: %d\"", Version)
	}
	for _, k := range []Kind{Source, Transform, Sink} {
		sec := sections[k.Section()]
		if sec == nil || len(sec.Content) == 0 {
			switch {
			case k == Transform:
			case sec != nil:
				l.errs.add(l.pos(sec), k.Section(), "a job needs at least one %s", k)
			case !seen[k.Section()]:
				l.errs.add(l.pos(root), k.Section(), "missing: a job needs at least one %s", k)
			}
			continue
		}
		for i := 0; i+1 < len(sec.Content); i += 2 {
			kn, vn := sec.Content[i], resolve(sec.Content[i+1])
			name := kn.Value
			path := k.Section() + "." + name
			if !nameRE.MatchString(name) {
				l.errs.add(l.pos(kn), path, "invalid name: use letters, digits, '_' and '-', starting with a letter or '_'")
				continue
			}
			if prev := job.byName[name]; prev != nil {
				l.errs.add(l.pos(kn), path, "name already used by %s at %s", prev.Path(), prev.Pos)
				continue
			}
			c := l.component(k, name, kn, vn, job)
			if c != nil {
				job.byName[name] = c
				job.Components = append(job.Components, c)
			}
		}
	}
	l.links(job)
}

func (l *loader) component(k Kind, name string, kn, vn *yaml.Node, job *Job) *Component {
	path := k.Section() + "." + name
	if vn.Kind != yaml.MappingNode {
		l.errs.add(l.pos(vn), path, "must be a mapping with a type")
		return nil
	}
	c := &Component{Kind: k, Name: name, Pos: l.pos(kn), job: job, vals: map[string]*yaml.Node{}, pos: l.pos}
	keys := map[string]*yaml.Node{}
	for i := 0; i+1 < len(vn.Content); i += 2 {
		key := vn.Content[i]
		if _, dup := keys[key.Value]; dup {
			l.errs.add(l.pos(key), path+"."+key.Value, "duplicate key")
			continue
		}
		keys[key.Value] = key
		c.vals[key.Value] = resolve(vn.Content[i+1])
	}
	tn := c.vals["type"]
	if tn == nil {
		l.errs.add(l.pos(kn), path, "missing required option \"type\": one of %s", quoteList(typeNames(k)))
		return nil
	}
	if tn.Kind != yaml.ScalarNode {
		l.errs.add(l.pos(tn), path+".type", "must be a string")
		return nil
	}
	c.Type = tn.Value
	c.Spec = Lookup(k, c.Type)
	if c.Spec == nil {
		hint := suggest.DidYouMean(c.Type, typeNames(k))
		for _, other := range []Kind{Source, Transform, Sink} {
			if other != k && Lookup(other, c.Type) != nil && hint == "" {
				hint = fmt.Sprintf(" (%q is a %s type, not a %s)", c.Type, other, k)
			}
		}
		l.errs.add(l.pos(tn), path+".type", "unknown %s type %q%s; one of %s", k, c.Type, hint, quoteList(typeNames(k)))
		return nil
	}
	var names []string
	for _, f := range c.Spec.Fields {
		names = append(names, f.Name)
	}
	for key, kn := range keys {
		if c.Spec.Field(key) == nil {
			l.errs.add(l.pos(kn), path+"."+key, "unknown option of %s %q%s; options: %s", k, c.Type, suggest.DidYouMean(key, names), strings.Join(names, ", "))
			delete(c.vals, key)
		}
	}
	for _, f := range c.Spec.Fields {
		v := c.vals[f.Name]
		if v == nil {
			if f.Required {
				l.errs.add(l.pos(kn), path, "missing required option %q (%s)", f.Name, f.Type)
			}
			continue
		}
		if !l.checkField(path+"."+f.Name, &f, v) {
			delete(c.vals, f.Name)
		}
	}
	if in := c.vals["input"]; in != nil {
		c.Inputs = scalars(in)
	}
	if c.Spec.plan != nil {
		c.opts = c.Spec.plan.fill(c, l.checked)
	}
	return c
}

func scalars(n *yaml.Node) []string {
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	var out []string
	for _, e := range n.Content {
		out = append(out, resolve(e).Value)
	}
	return out
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Style == 0
}

// checkField type-checks one option value; it reports whether it is valid.
func (l *loader) checkField(path string, f *Field, v *yaml.Node) bool {
	if l.bad[v] {
		return false
	}
	if _, ok := l.checked[v]; ok {
		return true // a flag's value, checked by Field.ParseFlag
	}
	bad := func(n *yaml.Node, format string, args ...any) bool {
		l.errs.add(l.pos(n), path, format, args...)
		return false
	}
	scalar := func(n *yaml.Node, p string) bool {
		if n.Kind != yaml.ScalarNode || isNull(n) {
			l.errs.add(l.pos(n), p, "must be a string")
			return false
		}
		if f.Check != nil {
			if msg, col := f.Check(n.Value); msg != "" {
				pos := l.pos(n)
				if pos.Line > 0 && col > 0 && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
					col++ // skip the opening quote
				}
				if pos.Line > 0 && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
					pos.Col += col
				}
				l.errs.add(pos, p, "%s", msg)
				return false
			}
		}
		return true
	}
	switch f.Type {
	case String:
		if !scalar(v, path) {
			return false
		}
		if f.Enum != nil && !slices.Contains(f.Enum, v.Value) {
			return bad(v, "invalid value %q%s; one of %s", v.Value, suggest.DidYouMean(v.Value, f.Enum), quoteList(f.Enum))
		}
	case Int:
		if v.Kind != yaml.ScalarNode {
			return bad(v, "must be an integer")
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(v.Value, "_", ""), 0, 64)
		if err != nil {
			return bad(v, "must be an integer, not %q", v.Value)
		}
		return l.checkRange(path, f, v, float64(n))
	case Float:
		if v.Kind != yaml.ScalarNode {
			return bad(v, "must be a number")
		}
		x, err := strconv.ParseFloat(v.Value, 64)
		if err != nil || math.IsNaN(x) {
			return bad(v, "must be a number, not %q", v.Value)
		}
		return l.checkRange(path, f, v, x)
	case Bool:
		if v.Kind != yaml.ScalarNode || (v.Value != "true" && v.Value != "false") {
			return bad(v, "must be true or false, not %q", v.Value)
		}
	case StringList:
		if v.Kind == yaml.ScalarNode {
			if isNull(v) {
				return bad(v, "must be a string or a list of strings")
			}
			return scalar(v, path)
		}
		if v.Kind != yaml.SequenceNode {
			return bad(v, "must be a string or a list of strings")
		}
		if len(v.Content) == 0 {
			return bad(v, "must not be empty")
		}
		ok := true
		for i, e := range v.Content {
			e = resolve(e)
			if l.bad[e] {
				ok = false
				continue
			}
			ok = scalar(e, fmt.Sprintf("%s[%d]", path, i)) && ok
		}
		return ok
	case StringMap:
		if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
			return bad(v, "must be a non-empty mapping")
		}
		ok := true
		seen := map[string]bool{}
		for i := 0; i+1 < len(v.Content); i += 2 {
			k, e := v.Content[i], resolve(v.Content[i+1])
			p := path + "." + k.Value
			if seen[k.Value] {
				l.errs.add(l.pos(k), p, "duplicate key")
				ok = false
				continue
			}
			seen[k.Value] = true
			if e.Kind != yaml.ScalarNode || isNull(e) {
				l.errs.add(l.pos(e), p, "must be a string")
				ok = false
				continue
			}
			if f.CheckValue != nil {
				if msg, _ := f.CheckValue(e.Value); msg != "" {
					l.errs.add(l.pos(e), p, "%s", msg)
					ok = false
				}
			}
		}
		return ok
	}
	return true
}

func (l *loader) checkRange(path string, f *Field, v *yaml.Node, x float64) bool {
	if f.Min != nil && x < *f.Min {
		l.errs.add(l.pos(v), path, "must be at least %v, not %s", *f.Min, v.Value)
		return false
	}
	if f.Max != nil && x > *f.Max {
		l.errs.add(l.pos(v), path, "must be at most %v, not %s", *f.Max, v.Value)
		return false
	}
	return true
}

// links checks that inputs name existing sources or transforms and that
// the graph has no cycle.
func (l *loader) links(job *Job) {
	var producers []string
	for _, c := range job.Components {
		if c.Kind != Sink {
			producers = append(producers, c.Name)
		}
	}
	for _, c := range job.Components {
		in := c.vals["input"]
		for i, name := range c.Inputs {
			n := in
			p := c.Path() + ".input"
			if in.Kind == yaml.SequenceNode {
				n = resolve(in.Content[i])
				p = fmt.Sprintf("%s[%d]", p, i)
			}
			d := job.byName[name]
			switch {
			case d == nil:
				l.errs.add(l.pos(n), p, "no source or transform named %q%s", name, suggest.DidYouMean(name, producers))
			case d.Kind == Sink:
				l.errs.add(l.pos(n), p, "%q is a sink; inputs must be sources or transforms", name)
			case d == c:
				l.errs.add(l.pos(n), p, "a component cannot be its own input")
			}
		}
	}
	// Cycle detection over transforms.
	state := map[*Component]int{}
	reported := false
	var visit func(c *Component)
	visit = func(c *Component) {
		state[c] = 1
		for _, name := range c.Inputs {
			d := job.byName[name]
			if d == nil || d == c || d.Kind != Transform {
				continue
			}
			switch state[d] {
			case 0:
				visit(d)
			case 1:
				if !reported {
					l.errs.add(c.Pos, c.Path()+".input", "inputs form a cycle through %q", name)
					reported = true
				}
			}
		}
		state[c] = 2
	}
	for _, c := range job.Components {
		if c.Kind == Transform && state[c] == 0 {
			visit(c)
		}
	}
}
