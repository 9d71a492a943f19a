package job_test

import (
	"strings"
	"testing"

	_ "github.com/npyflow/npyflow/pipeline" // registers the components
	"github.com/npyflow/npyflow/pipeline/job"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestLoadErrors is the table of broken job files: each must give exactly
// these errors, in order, with their line and column.
func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name string
		job  string
		set  []string
		want []string
	}{
		{"not a mapping", "- a\n- b\n", nil, []string{
			"job.yaml:1:1: a job file is a mapping with sources, transforms and sinks"}},
		{"yaml syntax", "version: 1\nsources:\n\ta: 1\n", nil, []string{
			"job.yaml:3:1: invalid YAML: found character that cannot start any token"}},
		{"missing version and sinks", "sources:\n  a: {type: npy, paths: x.npy}\n", nil, []string{
			"job.yaml:1:1: version: missing: add \"version: 1\"",
			"job.yaml:1:1: sinks: missing: a job needs at least one sink"}},
		{"bad version", "version: 2\nsources:\n  a: {type: npy, paths: x.npy}\nsinks:\n  o: {type: npy, input: a, path: o.npy}\n", nil, []string{
			`job.yaml:1:10: version: unsupported version "2": this npyflow reads version 1`}},
		{"kubernetes manifest", "# a pod running npyflow\napiVersion: batch/v1\nkind: Job\nspec: {}\n", nil, []string{
			`job.yaml:2:1: not an npyflow job: this is a Kubernetes manifest (apiVersion, kind); a job has "version", "sources", "transforms" or "sinks"`}},
		{"unknown top key", "version: 1\nsource:\n  a: {type: npy, paths: x.npy}\nsinks:\n  o: {type: npy, input: a, path: o.npy}\n", nil, []string{
			`job.yaml:1:1: sources: missing: a job needs at least one source`,
			`job.yaml:2:1: source: unknown key (did you mean "sources"?); a job has "version", "sources", "transforms" or "sinks"`,
			`job.yaml:5:25: sinks.o.input: no source or transform named "a"`}},
		{"unknown option", `version: 1
sources:
  raw:
    type: npy
    pathz: data/*.npy
sinks:
  out: {type: npy, input: raw, path: o.npy}
`, nil, []string{
			`job.yaml:3:3: sources.raw: missing required option "paths" (string or list of strings)`,
			`job.yaml:5:5: sources.raw.pathz: unknown option of source "npy" (did you mean "paths"?); options: type, paths, exclude, column, allow_empty`}},
		{"unknown type", `version: 1
sources:
  raw: {type: npy, paths: a.npy}
transforms:
  t:
    type: parquet
    input: raw
sinks:
  out: {type: nyp, input: t, path: o.npy}
`, nil, []string{
			`job.yaml:6:11: transforms.t.type: unknown transform type "parquet" ("parquet" is a source type, not a transform); one of "cast", "describe", "drop", "filter", "flatten", "limit", "pca", "rename", "sample", "select", "slice" or "unstack"`,
			`job.yaml:9:15: sinks.out.type: unknown sink type "nyp" (did you mean "npy"?); one of "arrow", "hdf5", "mat", "npy", "npz", "parquet", "zarr" or "zarr_zip"`}},
		{"values", `version: 1
sources:
  raw:
    type: npy
    paths: ["a/**/x.npy", "b/**c/*.npy"]
    allow_empty: yes
transforms:
  f:
    type: filter
    input: rwa
    where: temp >> 3
  c:
    type: cast
    input: raw
    fields:
      a: int33
    on_overflow: wrap
  s:
    type: slice
    input: raw
    step: 0
  l:
    type: limit
    input: [raw, s]
    rows: many
sinks:
  out:
    type: npy
    input: f
    path: out/{stem.npy
    extra: 1
`, nil, []string{
			`job.yaml:5:30: sources.raw.paths[1]: invalid path pattern: ** must be a whole path segment, like a/**/b.npy`,
			`job.yaml:6:18: sources.raw.allow_empty: must be true or false, not "yes"`,
			`job.yaml:10:12: transforms.f.input: no source or transform named "rwa" (did you mean "raw"?)`,
			`job.yaml:11:18: transforms.f.where: invalid predicate: expected a number, string, true, false or a field name, not ">"`,
			`job.yaml:16:10: transforms.c.fields.a: unknown or unsupported type "int33" (did you mean "int32"?); one of bool, float32, float64, int16, int32, int64, int8, uint16, uint32, uint64, uint8 (or a numpy typestr such as <i4)`,
			`job.yaml:17:18: transforms.c.on_overflow: invalid value "wrap"; one of "error" or "saturate"`,
			`job.yaml:21:11: transforms.s.step: must be at least 1, not 0`,
			`job.yaml:25:11: transforms.l.rows: must be an integer, not "many"`,
			`job.yaml:30:15: sinks.out.path: unclosed {`,
			`job.yaml:31:5: sinks.out.extra: unknown option of sink "npy"; options: type, input, path, mode`}},
		{"names and links", `version: 1
sources:
  a: {type: npy, paths: a.npy}
  bad name: {type: npy, paths: a.npy}
transforms:
  a: {type: limit, input: a, rows: 1}
  x: {type: limit, input: y, rows: 1}
  y: {type: limit, input: x, rows: 1}
sinks:
  o: {type: npy, input: o, path: o.npy}
`, nil, []string{
			`job.yaml:4:3: sources.bad name: invalid name: use letters, digits, '_' and '-', starting with a letter or '_'`,
			`job.yaml:6:3: transforms.a: name already used by sources.a at job.yaml:3:3`,
			`job.yaml:8:3: transforms.y.input: inputs form a cycle through "x"`,
			`job.yaml:10:25: sinks.o.input: "o" is a sink; inputs must be sources or transforms`}},
		{"env", `version: 1
sources:
  a: {type: npy, paths: "${DATA}/x.npy"}
sinks:
  o: {type: npy, input: a, path: "out/${NAME:?set NAME to the run name}.npy"}
  p:
    type: npy
    input: a
    path: ${A:-x}${B:-y}/${C}
    mode: '${MODE:-sometimes}'
`, nil, []string{
			`job.yaml:3:26: sources.a.paths: environment variable DATA is not set (use ${DATA:-default} to give a default)`,
			`job.yaml:5:39: sinks.o.path: environment variable NAME: set NAME to the run name`,
			`job.yaml:9:26: sinks.p.path: environment variable C is not set (use ${C:-default} to give a default)`,
			`job.yaml:10:11: sinks.p.mode: invalid value "sometimes"; one of "overwrite", "error_if_exists" or "skip_existing"`}},
		{"filter fields", `version: 1
sources:
  a: {type: npy, paths: a.npy}
transforms:
  f: {type: filter, input: a, where: "x > y and y != and"}
  g: {type: filter, input: a, where: "x in [1, y]"}
  h: {type: filter, input: a, where: "x < ` + "`and` or z >= `true`" + ` and (w == nan)"}
sinks:
  o: {type: npy, input: [f, g, h], path: o.npy}
`, nil, []string{
			`job.yaml:5:54: transforms.f.where: invalid predicate: expected a number, string, true, false or a field name, not "and"`,
			`job.yaml:6:48: transforms.g.where: invalid predicate: a list after in holds numbers, strings, true or false, not the field "y"`}},
		{"filter literal first", `version: 1
sources:
  a: {type: npy, paths: a.npy}
transforms:
  f: {type: filter, input: a, where: "0 <= x < 10 and 'A' == s and 3 < 5"}
  g: {type: filter, input: a, where: "'A' in [s]"}
  h: {type: filter, input: a, where: "0 <= x < and"}
  k: {type: filter, input: a, where: 3 x}
  m: {type: filter, input: a, where: "2**53 < x"}
sinks:
  o: {type: npy, input: [f, g, h, k, m], path: o.npy}
`, nil, []string{
			`job.yaml:5:72: transforms.f.where: invalid predicate: 3 < 5 compares two literals; one side must be a field`,
			`job.yaml:6:43: transforms.g.where: invalid predicate: a list goes after a field: name in [1, 2]`,
			`job.yaml:7:48: transforms.h.where: invalid predicate: expected a number, string, true, false or a field name, not "and"`,
			`job.yaml:8:40: transforms.k.where: invalid predicate: expected a comparison (==, !=, <, <=, >, >=) after 3, not "x"`,
			`job.yaml:9:40: transforms.m.where: invalid predicate: unexpected '*': a predicate has no arithmetic; write the number itself (2**53 is 9007199254740992)`}},
		{"unstack index", `version: 1
sources:
  a: {type: npy, paths: a.npy}
transforms:
  u: {type: unstack, input: a, index: {y: 0}, row_number: [r], colum: v}
sinks:
  o: {type: npy, input: u, path: o.npy}
`, nil, []string{
			`job.yaml:5:39: transforms.u.index: must be a string or a list of strings`,
			`job.yaml:5:59: transforms.u.row_number: must be a string`,
			`job.yaml:5:64: transforms.u.colum: unknown option of transform "unstack" (did you mean "column"?); options: type, input, axes, index, row_number, column`}},
		{"pca scores", `version: 1
sources:
  a: {type: npy, paths: a.npy}
transforms:
  p:
    type: pca
    input: a
    output: score
    keep: {id: 1}
sinks:
  o: {type: npy, input: p, path: o.npy}
`, nil, []string{
			`job.yaml:8:13: transforms.p.output: invalid value "score" (did you mean "scores"?); one of "components" or "scores"`,
			`job.yaml:9:11: transforms.p.keep: must be a string or a list of strings`}},
		{"set", "version: 1\nsources:\n  a: {type: npy, paths: a.npy}\nsinks:\n  o: {type: npy, input: a, path: o.npy}\n",
			[]string{"sinks.o.mode=never", "sources.a.paths.x=1", "nothing"}, []string{
				`--set sources.a.paths.x=1: sources.a.paths: is not a mapping; cannot set "x" in it`,
				`--set nothing: want --set path=value, like --set sinks.out.path=out.parquet`,
				`--set sinks.o.mode=never: sinks.o.mode: invalid value "never"; one of "overwrite", "error_if_exists" or "skip_existing"`}},
		{"set value", "version: 1\nsources:\n  a: {type: npy, paths: a.npy}\nsinks:\n  o: {type: npy, input: a, path: o.npy}\n",
			[]string{"sinks.o.mode=never"}, []string{
				`--set sinks.o.mode=never: sinks.o.mode: invalid value "never"; one of "overwrite", "error_if_exists" or "skip_existing"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := job.Load("job.yaml", []byte(tc.job), &job.LoadOptions{Set: tc.set, LookupEnv: env(nil)})
			if err == nil {
				t.Fatal("loaded without error")
			}
			if !job.IsJobError(err) {
				t.Fatalf("not a job error: %v", err)
			}
			got := strings.Split(err.Error(), "\n")
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestLoadValid(t *testing.T) {
	text := `version: 1
sources:
  raw:
    type: npz
    paths: ["${DIR:-data}/*.npz", "more/**/*.npz"]
    members: x
transforms:
  keep:
    type: limit
    input: raw
    rows: ${ROWS}
sinks:
  out:
    type: npy
    input: keep
    path: "$${literal}/${NAME:-o}.npy"
`
	j, err := job.Load("dir/job.yaml", []byte(text), &job.LoadOptions{
		LookupEnv: env(map[string]string{"ROWS": "12", "DIR": ""}),
		Set:       []string{"sinks.out.mode=error_if_exists", "sources.raw.members=[x, y]"},
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, keep, out := j.Component("raw"), j.Component("keep"), j.Component("out")
	if got := strings.Join(job.Value(raw, "paths").([]string), "|"); got != "data/*.npz|more/**/*.npz" {
		t.Errorf("paths = %q", got)
	}
	if got := strings.Join(job.Value(raw, "members").([]string), "|"); got != "x|y" {
		t.Errorf("members = %q", got)
	}
	if got := job.Value(keep, "rows").(int64); got != 12 {
		t.Errorf("rows = %d", got)
	}
	if got := job.Value(out, "path").(string); got != "${literal}/o.npy" {
		t.Errorf("path = %q", got)
	}
	if got := job.Value(out, "mode").(string); got != "error_if_exists" {
		t.Errorf("mode = %q", got)
	}
	if got := job.Value(raw, "allow_empty").(bool); got {
		t.Errorf("allow_empty default = %v", got)
	}
	if got := raw.ResolvePath("x.npz"); got != "dir/x.npz" {
		t.Errorf("ResolvePath = %q", got)
	}
	if j.Dir != "dir" || len(j.Of(job.Source)) != 1 || len(j.Of(job.Transform)) != 1 || len(j.Of(job.Sink)) != 1 {
		t.Errorf("job = %+v", j)
	}
}
