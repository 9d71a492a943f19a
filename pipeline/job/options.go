package job

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// A component's options are declared as one Go struct, its fields tagged
// (the way encoding/json tags name keys):
//
//	type parquetSink struct {
//		Compression string `opt:"compression" enum:"zstd,snappy,gzip,lz4,none" default:"zstd" flag:"compression" doc:"the codec of every column"`
//		RowGroupRows int64 `opt:"row_group_rows" min:"1" flag:"row-group-rows" doc:"rows per row group"`
//	}
//
// The tags, each optional but opt:
//
//	opt:"name[,required]"  the option's key in a job file
//	doc:"..."              its one-line documentation (schema, list, help)
//	default:"text"         the value when absent, as the option would spell it
//	                       (a list's items comma-separated)
//	enum:"a,b,c"           the allowed values of a string
//	min:"n" max:"n"        inclusive bounds of a number
//	check:"name"           a check registered with [RegisterCheck] (a dtype,
//	                       a path template), applied to a string, to each item
//	                       of a list, or (checkvalue) to each value of a mapping
//	flag:"name"            its name on convert's command line
//	flagdoc:"..."          the flag's help where it differs from doc (no
//	                       default shown then)
//	flagtype:"string"      the flag's type where it differs from the option's
//	                       ("string" or "list")
//	flagvalue:"name"       a registered [FlagValue] turning the flag's text
//	                       into the option's value (--compression deflate for a
//	                       bool), in place of the type's own parsing
//	convert:"text"         the value `npyflow convert` gives it when its flag
//	                       is not set ({array})
//
// A field's Go type gives the option's type: string ([String]), int64 or
// int ([Int]), float64 ([Float]), bool ([Bool]), []string ([StringList]),
// []KV ([StringMap], in file order). A pointer (*string, *int64,
// *float64, *bool) is nil when the job leaves the option out, whatever
// its default tag says: for options whose absence means something (a
// slice's stop, a compression picked by the path). A struct embedded
// without a tag contributes its fields in place (options several
// components share). The struct is read by reflection once, when the
// component registers; [Load] fills a fresh one per component.

var (
	checksMu   sync.RWMutex
	checks     = map[string]func(string) (string, int){}
	flagValues = map[string]func(string) (any, error){}
)

// RegisterCheck names a check for the check and checkvalue tags: it
// returns a message and the byte offset of the problem within the value
// (0 if unknown), or "" if the value is valid. It panics if the name is
// taken.
func RegisterCheck(name string, check func(v string) (msg string, col int)) {
	checksMu.Lock()
	defer checksMu.Unlock()
	if _, dup := checks[name]; dup {
		panic(fmt.Sprintf("job: check %q registered twice", name))
	}
	checks[name] = check
}

// RegisterFlagValue names a flag parser for the flagvalue tag (see
// [Field].FlagValue). It panics if the name is taken.
func RegisterFlagValue(name string, parse func(text string) (any, error)) {
	checksMu.Lock()
	defer checksMu.Unlock()
	if _, dup := flagValues[name]; dup {
		panic(fmt.Sprintf("job: flag value %q registered twice", name))
	}
	flagValues[name] = parse
}

// optField is how one Go struct field is filled.
type optField struct {
	name  string
	index []int
	ptr   bool // a pointer field: nil when absent
	def   any  // the default, of the field's option type (nil for none)
}

// optsPlan is a registered options struct: its type and its fields.
type optsPlan struct {
	typ    reflect.Type
	fields []optField
}

var kvType = reflect.TypeFor[[]KV]()

// FieldsOf returns the option declarations of the options struct whose
// value (or pointer) is proto, in field order. It panics on a malformed
// tag: declarations are code, and a bad one is a bug.
func FieldsOf(proto any) []Field {
	f, _ := planOf(proto)
	return f
}

func planOf(proto any) ([]Field, *optsPlan) {
	t := reflect.TypeOf(proto)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("job: options of type %s, not a struct", t))
	}
	p := &optsPlan{typ: t}
	var fields []Field
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			idx := append(append([]int(nil), index...), i)
			tag, ok := sf.Tag.Lookup("opt")
			if !ok {
				if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
					walk(sf.Type, idx)
				}
				continue
			}
			f, of := fieldOf(t, sf, tag)
			of.index = idx
			for _, g := range fields {
				if g.Name == f.Name {
					panic(fmt.Sprintf("job: %s declares option %q twice", t, f.Name))
				}
			}
			fields = append(fields, f)
			p.fields = append(p.fields, of)
		}
	}
	walk(t, nil)
	return fields, p
}

// fieldOf reads the tags of the struct field sf of t.
func fieldOf(t reflect.Type, sf reflect.StructField, opt string) (Field, optField) {
	bad := func(format string, args ...any) {
		panic(fmt.Sprintf("job: %s.%s: %s", t, sf.Name, fmt.Sprintf(format, args...)))
	}
	name, flags, _ := strings.Cut(opt, ",")
	f := Field{Name: name, Doc: sf.Tag.Get("doc"), Flag: sf.Tag.Get("flag"), FlagDoc: sf.Tag.Get("flagdoc")}
	switch flags {
	case "":
	case "required":
		f.Required = true
	default:
		bad("unknown opt flag %q", flags)
	}
	of := optField{name: name}
	ft := sf.Type
	if ft.Kind() == reflect.Pointer {
		of.ptr = true
		ft = ft.Elem()
	}
	switch {
	case ft.Kind() == reflect.String:
		f.Type = String
	case ft.Kind() == reflect.Int64, ft.Kind() == reflect.Int:
		f.Type = Int
	case ft.Kind() == reflect.Float64:
		f.Type = Float
	case ft.Kind() == reflect.Bool:
		f.Type = Bool
	case ft == kvType:
		f.Type = StringMap
	case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String:
		f.Type = StringList
	default:
		bad("type %s is no option type", sf.Type)
	}
	if of.ptr && (f.Type == StringList || f.Type == StringMap) {
		bad("a list or mapping is nil when absent: no pointer")
	}
	if e := sf.Tag.Get("enum"); e != "" {
		if f.Type != String {
			bad("enum on a %s", f.Type)
		}
		f.Enum = strings.Split(e, ",")
	}
	bound := func(key string) *float64 {
		s, ok := sf.Tag.Lookup(key)
		if !ok {
			return nil
		}
		if f.Type != Int && f.Type != Float {
			bad("%s on a %s", key, f.Type)
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			bad("%s %q: %v", key, s, err)
		}
		return &x
	}
	f.Min, f.Max = bound("min"), bound("max")
	if d, ok := sf.Tag.Lookup("default"); ok {
		v, err := parseText(f.Type, d)
		if err != nil {
			bad("default %q: %v", d, err)
		}
		f.Default = v
		if !of.ptr {
			of.def = v
		}
	}
	if c, ok := sf.Tag.Lookup("convert"); ok {
		v, err := parseText(f.Type, c)
		if err != nil {
			bad("convert %q: %v", c, err)
		}
		f.ConvertDefault = v
	}
	if ty, ok := sf.Tag.Lookup("flagtype"); ok {
		t, ok := map[string]FieldType{"string": String, "list": StringList}[ty]
		if !ok {
			bad("flagtype %q: string or list", ty)
		}
		f.FlagType = &t
	}
	checksMu.RLock()
	defer checksMu.RUnlock()
	if n, ok := sf.Tag.Lookup("check"); ok {
		if f.Check = checks[n]; f.Check == nil {
			bad("no check %q registered", n)
		}
	}
	if n, ok := sf.Tag.Lookup("checkvalue"); ok {
		if f.CheckValue = checks[n]; f.CheckValue == nil {
			bad("no check %q registered", n)
		}
	}
	if n, ok := sf.Tag.Lookup("flagvalue"); ok {
		if f.FlagValue = flagValues[n]; f.FlagValue == nil {
			bad("no flag value %q registered", n)
		}
	}
	return f, of
}

// parseText is the value of an option of type t spelled text (a default
// tag, a flag's text): string, int64, float64, bool or []string
// (comma-separated).
func parseText(t FieldType, text string) (any, error) {
	switch t {
	case Int:
		return strconv.ParseInt(strings.ReplaceAll(text, "_", ""), 0, 64)
	case Float:
		return strconv.ParseFloat(text, 64)
	case Bool:
		return strconv.ParseBool(text)
	case StringList:
		var out []string
		for _, p := range strings.Split(text, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, nil
	case StringMap:
		return nil, fmt.Errorf("a mapping has no default")
	}
	return text, nil
}

// fill returns a new options struct of p holding c's values (checked by
// Load) and the defaults of the options c leaves out. A value in given
// (a flag's, by its node) is used as it is; mappings are read from their
// nodes, which hold the entries' positions.
func (p *optsPlan) fill(c *Component, given map[*yaml.Node]any) any {
	v := reflect.New(p.typ)
	s := v.Elem()
	for _, of := range p.fields {
		dst := s.FieldByIndex(of.index)
		var val any
		if n := c.vals[of.name]; n != nil {
			if g, ok := given[n]; ok && fits(g, dst.Type(), of.ptr) {
				val = g
			} else {
				val = c.decoded(of.name)
			}
		} else if of.def != nil {
			val = of.def
		} else {
			continue
		}
		set(dst, of.ptr, val)
	}
	return v.Interface()
}

// decoded is the checked value of option name in c: string, int64,
// float64, bool, []string or []KV.
func (c *Component) decoded(name string) any {
	f := c.Spec.Field(name)
	n := c.vals[name]
	switch f.Type {
	case StringList:
		return scalars(n)
	case StringMap:
		return c.kvs(name)
	}
	v, _ := parseText(f.Type, n.Value)
	return v
}

// fits reports whether a flag's value g can fill a field of type t (its
// element type if ptr) as it is: not a mapping, whose entries' positions
// come from the nodes.
func fits(g any, t reflect.Type, ptr bool) bool {
	if ptr {
		t = t.Elem()
	}
	return g != nil && t != kvType && reflect.TypeOf(g).Kind() == t.Kind() && reflect.TypeOf(g).ConvertibleTo(t)
}

func set(dst reflect.Value, ptr bool, val any) {
	x := reflect.ValueOf(val)
	if ptr {
		p := reflect.New(dst.Type().Elem())
		p.Elem().Set(x.Convert(dst.Type().Elem()))
		dst.Set(p)
		return
	}
	dst.Set(x.Convert(dst.Type()))
}

// Options returns the options of c, of the struct type T its spec
// declares ([Spec].Options), filled in when the job was loaded. It
// panics if c's options are not a T: a builder asks for its own.
func Options[T any](c *Component) *T {
	o, ok := c.opts.(*T)
	if !ok {
		panic(fmt.Sprintf("job: %s %s has options %T, not %T", c.Kind, c.Type, c.opts, (*T)(nil)))
	}
	return o
}

// Opts returns the options struct of c (a pointer to its spec's Options
// type), for code that reads what several component types share through
// an interface; nil if its spec declares none.
func (c *Component) Opts() any { return c.opts }
