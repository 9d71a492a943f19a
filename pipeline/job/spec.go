package job

import (
	"fmt"
	"sort"
)

// Kind is the section of a job file a component belongs to.
type Kind int

// Component kinds.
const (
	Source Kind = iota
	Transform
	Sink
)

func (k Kind) String() string {
	switch k {
	case Source:
		return "source"
	case Transform:
		return "transform"
	case Sink:
		return "sink"
	}
	return "kind?"
}

// Section is the job file key holding components of the kind.
func (k Kind) Section() string { return k.String() + "s" }

// FieldType is the type of a component option's value.
type FieldType int

// Option value types.
const (
	String     FieldType = iota // a scalar string
	Int                         // an integer
	Float                       // a number
	Bool                        // true or false
	StringList                  // one string or a list of strings
	StringMap                   // a mapping of string keys to string values, in file order
)

func (t FieldType) String() string {
	return [...]string{"string", "integer", "number", "boolean", "string or list of strings", "mapping of strings"}[t]
}

// Field describes one option of a component.
type Field struct {
	Name     string
	Type     FieldType
	Required bool
	Default  any      // the value used when absent (string, int64, float64, bool, []string); nil for none
	Enum     []string // allowed values of a String option
	Min      *float64 // inclusive lower bound of an Int or Float option
	Max      *float64 // inclusive upper bound of an Int or Float option
	Doc      string
	// Flag is the option's name on the command line (npyflow convert),
	// if it has one; options of several formats may share a flag.
	Flag string
	// FlagDoc and FlagType describe the flag where they differ from the
	// option (a bool option behind a string flag); with either set, the
	// flag shows no default.
	FlagDoc  string
	FlagType *FieldType
	// FlagValue turns the flag's command-line text into the option's
	// value (string, int64, float64, bool, []string, or []KV for a
	// mapping), or says what it wants ("want deflate or none";
	// [Field.ParseFlag] puts the flag and the text in front); nil
	// converts by the option's type (a list is comma-separated, a
	// mapping's items are key=value). What it returns is not checked
	// against Enum again.
	FlagValue func(text string) (any, error)
	// ConvertDefault, if not nil, is the value `npyflow convert` gives the
	// option when its flag is not set, in place of Default (a name
	// template such as "{array}": the array a conversion writes is named
	// after the one it reads).
	ConvertDefault any
	// Check validates a present value further (a dtype name, a predicate,
	// a path pattern); it returns a message and the byte offset of the
	// problem within the scalar (0 if unknown), "" if the value is valid.
	Check func(v string) (msg string, col int)
	// CheckValue validates each value of a StringMap.
	CheckValue func(v string) (msg string, col int)
}

// Spec describes one component type: its options and documentation, and
// what runs it. The registry of Specs drives validation, the JSON schema
// and `npyflow list`, so the three always agree.
type Spec struct {
	Kind    Kind
	Type    string
	Summary string
	Doc     string
	// Options is a value of the struct declaring the component's options
	// (see [FieldsOf] for its tags): Register generates Fields from it,
	// and [Load] fills a new one per component ([Options]). A spec
	// without one declares Fields itself: its options are validated,
	// and there is nothing to read them with.
	Options any
	Fields  []Field
	// Impl is what runs the component, for the package that registered
	// it (package pipeline: its builder); package job does not use it.
	Impl any
	plan *optsPlan
}

// Field returns the option named name, or nil.
func (s *Spec) Field(name string) *Field {
	for i := range s.Fields {
		if s.Fields[i].Name == name {
			return &s.Fields[i]
		}
	}
	return nil
}

var registry = map[Kind]map[string]*Spec{Source: {}, Transform: {}, Sink: {}}

// commonFields are the options every component of a kind has, first in
// its field list.
func commonFields(k Kind) []Field {
	f := []Field{{Name: "type", Type: String, Required: true, Doc: "the component type"}}
	if k != Source {
		f = append(f, Field{Name: "input", Type: StringList, Required: true,
			Doc: "the source or transform (or list of them, concatenated in order) feeding this " + k.String()})
	}
	return f
}

// Register adds a component type to the registry, with the options
// every component of its kind has (type, and input for transforms and
// sinks) in front of its own. It panics if the kind already has the type:
// registration happens in init functions, and a duplicate is a bug.
func Register(s *Spec) {
	if s.Options != nil {
		if s.Fields != nil {
			panic(fmt.Sprintf("job: %s %q declares both Options and Fields", s.Kind, s.Type))
		}
		s.Fields, s.plan = planOf(s.Options)
	}
	s.Fields = append(commonFields(s.Kind), s.Fields...)
	if _, dup := registry[s.Kind][s.Type]; dup {
		panic(fmt.Sprintf("job: %s %q registered twice", s.Kind, s.Type))
	}
	registry[s.Kind][s.Type] = s
}

// Specs returns the registered component specs of a kind, sorted by type.
func Specs(k Kind) []*Spec {
	out := make([]*Spec, 0, len(registry[k]))
	for _, s := range registry[k] {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Type < out[j].Type })
	return out
}

// Lookup returns the spec of a component type, or nil.
func Lookup(k Kind, typ string) *Spec { return registry[k][typ] }

func typeNames(k Kind) []string {
	var n []string
	for _, s := range Specs(k) {
		n = append(n, s.Type)
	}
	return n
}
