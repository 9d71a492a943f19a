package job

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// shared is embedded: its options come first, in place.
type shared struct {
	Path string `opt:"path,required" doc:"where"`
}

type testOpts struct {
	shared
	Codec  string   `opt:"codec" enum:"zstd,none" default:"zstd" flag:"codec" doc:"the codec"`
	Level  int64    `opt:"level" min:"0" max:"9" default:"3" flag:"level" doc:"the level"`
	Frac   float64  `opt:"frac" min:"0" max:"1" doc:"a fraction"`
	Stop   *int64   `opt:"stop" min:"0" doc:"absent: nil"`
	Label  *string  `opt:"label" default:"x" doc:"absent: nil, whatever the default"`
	Fast   bool     `opt:"fast" default:"true" flag:"fast" doc:"go fast"`
	Cols   []string `opt:"cols" default:"a,b" flag:"cols" doc:"columns"`
	Rename []KV     `opt:"rename" doc:"old: new"`
	Name   string   `opt:"name" check:"test-no-brace" flag:"name" convert:"{array}" doc:"a name"`
	note   string   // untagged: not an option
}

var _ = func() bool {
	RegisterCheck("test-no-brace", func(v string) (string, int) {
		if i := strings.IndexByte(v, '{'); i >= 0 {
			return "no braces", i
		}
		return "", 0
	})
	return true
}()

func TestFieldsOf(t *testing.T) {
	fields := FieldsOf(testOpts{})
	var got []string
	for _, f := range fields {
		got = append(got, fmt.Sprintf("%s:%s req=%v def=%v enum=%v flag=%s", f.Name, f.Type, f.Required, f.Default, f.Enum, f.Flag))
	}
	want := []string{
		"path:string req=true def=<nil> enum=[] flag=",
		"codec:string req=false def=zstd enum=[zstd none] flag=codec",
		"level:integer req=false def=3 enum=[] flag=level",
		"frac:number req=false def=<nil> enum=[] flag=",
		"stop:integer req=false def=<nil> enum=[] flag=",
		"label:string req=false def=x enum=[] flag=",
		"fast:boolean req=false def=true enum=[] flag=fast",
		"cols:string or list of strings req=false def=[a b] enum=[] flag=cols",
		"rename:mapping of strings req=false def=<nil> enum=[] flag=",
		"name:string req=false def=<nil> enum=[] flag=name",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fields:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if f := fields[2]; *f.Min != 0 || *f.Max != 9 || f.Default != int64(3) {
		t.Errorf("level: min %v max %v default %#v", *f.Min, *f.Max, f.Default)
	}
	if f := fields[9]; f.Check == nil || f.ConvertDefault != "{array}" {
		t.Errorf("name: check %v, convert default %#v", f.Check != nil, f.ConvertDefault)
	}
}

// TestFieldsOfMisuse: a malformed declaration is a bug, reported when
// the component registers.
func TestFieldsOfMisuse(t *testing.T) {
	for _, c := range []struct {
		opts any
		want string
	}{
		{struct {
			X int32 `opt:"x"`
		}{}, "type int32 is no option type"},
		{struct {
			X int64 `opt:"x" enum:"a,b"`
		}{}, "enum on a integer"},
		{struct {
			X string `opt:"x" min:"1"`
		}{}, "min on a string"},
		{struct {
			X int64 `opt:"x" default:"ten"`
		}{}, `default "ten"`},
		{struct {
			X string `opt:"x" check:"nope"`
		}{}, `no check "nope" registered`},
		{struct {
			X string `opt:"x,optional"`
		}{}, `unknown opt flag "optional"`},
		{struct {
			X string `opt:"x"`
			Y string `opt:"x"`
		}{}, `declares option "x" twice`},
		{struct {
			X *[]string `opt:"x"`
		}{}, "no pointer"},
		{42, "not a struct"},
	} {
		func() {
			defer func() {
				p := recover()
				if p == nil || !strings.Contains(fmt.Sprint(p), c.want) {
					t.Errorf("%T: panic %v, want %q", c.opts, p, c.want)
				}
			}()
			FieldsOf(c.opts)
		}()
	}
}

// withTestSpec registers a transform "opts_test" of testOpts for the
// test, and removes it after.
func withTestSpec(t *testing.T) {
	s := &Spec{Kind: Transform, Type: "opts_test", Summary: "a test", Options: testOpts{}}
	Register(s)
	t.Cleanup(func() { delete(registry[Transform], s.Type) })
}

func TestLoadFillsOptions(t *testing.T) {
	withTestSpec(t)
	const src = `version: 1
sources:
  a: {type: npy, paths: x.npy}
transforms:
  given:
    type: opts_test
    input: a
    path: p
    codec: none
    level: 0x7
    frac: 0.5
    stop: 0
    label: ""
    fast: false
    cols: c
    rename: {x: y, b: a}
    name: n
  absent: {type: opts_test, input: a, path: q}
sinks:
  o: {type: npy, input: given, path: o.npy}
`
	j, err := Load("job.yaml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	g := Options[testOpts](j.Component("given"))
	zero, empty := int64(0), ""
	want := testOpts{shared: shared{Path: "p"}, Codec: "none", Level: 7, Frac: 0.5, Stop: &zero, Label: &empty, Fast: false,
		Cols: []string{"c"}, Name: "n",
		Rename: []KV{{Key: "x", Value: "y", Pos: Pos{File: "job.yaml", Line: 16, Col: 17}}, {Key: "b", Value: "a", Pos: Pos{File: "job.yaml", Line: 16, Col: 23}}}}
	if !reflect.DeepEqual(*g, want) {
		t.Errorf("given:\n%+v\nwant\n%+v", *g, want)
	}
	a := Options[testOpts](j.Component("absent"))
	want = testOpts{shared: shared{Path: "q"}, Codec: "zstd", Level: 3, Fast: true, Cols: []string{"a", "b"}}
	if !reflect.DeepEqual(*a, want) {
		t.Errorf("absent:\n%+v\nwant\n%+v", *a, want)
	}
	if j.Component("given").Opts() == j.Component("absent").Opts() {
		t.Error("components share an options struct")
	}
}

func TestLoadOptionErrors(t *testing.T) {
	withTestSpec(t)
	const src = `version: 1
sources:
  a: {type: npy, paths: x.npy}
transforms:
  t:
    type: opts_test
    input: a
    path: p
    codec: lz4
    level: 10
    stop: -1
    name: "a{b}"
sinks:
  o: {type: npy, input: t, path: o.npy}
`
	_, err := Load("job.yaml", []byte(src), nil)
	want := `job.yaml:9:12: transforms.t.codec: invalid value "lz4"; one of "zstd" or "none"
job.yaml:10:12: transforms.t.level: must be at most 9, not 10
job.yaml:11:11: transforms.t.stop: must be at least 0, not -1
job.yaml:12:13: transforms.t.name: no braces`
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
}

func TestOptionsOfWrongType(t *testing.T) {
	withTestSpec(t)
	j, err := Load("job.yaml", []byte("version: 1\nsources:\n  a: {type: npy, paths: x.npy}\ntransforms:\n  t: {type: opts_test, input: a, path: p}\nsinks:\n  o: {type: npy, input: t, path: o.npy}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "has options *job.testOpts, not *job.shared") {
			t.Errorf("panic %v", p)
		}
	}()
	Options[shared](j.Component("t"))
}

func TestParseFlag(t *testing.T) {
	fields := map[string]*Field{}
	for _, f := range FieldsOf(testOpts{}) {
		fields[f.Name] = &f
	}
	for _, c := range []struct {
		field, text string
		want        any
		err         string
	}{
		{"codec", "none", "none", ""},
		{"codec", "lz4", nil, `--codec "lz4": want zstd or none`},
		{"level", "9", int64(9), ""},
		{"level", "0x3", int64(3), ""},
		{"level", "10", nil, `--level "10": want an integer from 0 to 9`},
		{"level", "three", nil, `--level "three": want an integer from 0 to 9`},
		{"frac", "1.5", nil, `--frac "1.5": want a number from 0 to 1`},
		{"stop", "-1", nil, `--stop "-1": want an integer of at least 0`},
		{"fast", "false", false, ""},
		{"fast", "maybe", nil, `--fast "maybe": want true or false`},
		{"cols", "a, b,,c", []string{"a", "b", "c"}, ""},
		{"rename", "x=y,b=a", []KV{{Key: "x", Value: "y"}, {Key: "b", Value: "a"}}, ""},
		{"rename", "x", nil, `--rename "x": want key=value,...`},
		{"name", "a{", nil, `--name "a{": no braces`},
	} {
		f := *fields[c.field]
		if f.Flag == "" {
			f.Flag = f.Name // as if it had one
		}
		v, err := f.ParseFlag(c.text)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s %q: %v, want error %q", c.field, c.text, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(v, c.want) {
			t.Errorf("%s %q: %#v, %v; want %#v", c.field, c.text, v, err, c.want)
		}
	}
}

// TestNewFillsOptions: a program's values (convert's flags) fill the
// options struct; those the caller checked (Field.ParseFlag) are not
// checked again, the others are, with their origins in messages.
func TestNewFillsOptions(t *testing.T) {
	withTestSpec(t)
	src := Def{Kind: Source, Name: "in", Type: "npy", Options: map[string]any{"paths": []string{"x.npy"}}}
	def := Def{Kind: Transform, Name: "t", Type: "opts_test", Inputs: []string{"in"},
		Options: map[string]any{"path": "p", "level": int64(99), "cols": []string{"c", "d"}, "fast": false},
		Origins: map[string]string{"level": "--level 99"}, Checked: map[string]bool{"level": true, "cols": true}}
	sink := Def{Kind: Sink, Name: "o", Type: "npy", Inputs: []string{"t"}, Options: map[string]any{"path": "o.npy"}}
	j, err := New("convert", "", []Def{src, def, sink})
	if err != nil {
		t.Fatal(err)
	}
	o := Options[testOpts](j.Component("t"))
	if o.Level != 99 || !reflect.DeepEqual(o.Cols, []string{"c", "d"}) || o.Fast || o.Codec != "zstd" || o.Path != "p" {
		t.Errorf("options %+v", *o)
	}
	def.Checked = nil
	_, err = New("convert", "", []Def{src, def, sink})
	if want := "--level 99: transforms.t.level: must be at most 9, not 99"; err == nil || err.Error() != want {
		t.Errorf("unchecked: %v, want %q", err, want)
	}
}
