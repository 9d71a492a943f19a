package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runMain(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeJob(t *testing.T, body string) string {
	p := filepath.Join(t.TempDir(), "job.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExitCodes checks the documented exit codes: 0 success, 1 runtime
// failure, 2 invalid job or usage.
func TestExitCodes(t *testing.T) {
	data, _ := filepath.Abs("../../testdata/demo")
	out := t.TempDir()
	good := writeJob(t, "version: 1\nsources:\n  m: {type: npy, paths: "+data+"/matrix.npy}\ntransforms:\n  d: {type: describe, input: m}\nsinks:\n  o: {type: npy, input: d, path: "+out+"/d.npy}\n")
	badJob := writeJob(t, "version: 1\nsources:\n  m: {type: npy, pathz: x.npy}\nsinks:\n  o: {type: npy, input: m, path: o.npy}\n")
	noFile := writeJob(t, "version: 1\nsources:\n  m: {type: npy, paths: "+data+"/nothing-*.npy}\nsinks:\n  o: {type: npy, input: m, path: "+out+"/o.npy}\n")
	badField := writeJob(t, "version: 1\nsources:\n  m: {type: npy, paths: "+data+"/stations/north/readings_1.npy}\ntransforms:\n  s: {type: select, input: m, fields: [temp, humdity]}\nsinks:\n  o: {type: npy, input: s, path: "+out+"/o.npy}\n")
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring
		stderr string // substring
	}{
		{"no command", nil, 2, "", "usage: npyflow"},
		{"unknown command", []string{"rnu"}, 2, "", `unknown command "rnu"`},
		{"run ok", []string{"run", good, "--quiet"}, 0, "", ""},
		{"run prints what it wrote", []string{"run", "--workers", "2", good}, 0, "wrote " + out + "/d.npy", ""},
		{"run one thread", []string{"run", "--threads", "1", "--workers", "4", good}, 0, "wrote " + out + "/d.npy", ""},
		{"run negative threads", []string{"run", good, "--threads", "-2"}, 2, "", `--threads "-2": want 0 (every core) or a positive count`},
		{"run without job", []string{"run"}, 2, "", "want one job file"},
		{"run bad flag", []string{"run", good, "--wokers", "2"}, 2, "", "flag provided but not defined: -wokers"},
		{"run invalid job", []string{"run", badJob}, 2, "", `job.yaml:3:18: sources.m.pathz: unknown option of source "npy" (did you mean "paths"?)`},
		{"run no input", []string{"run", noFile}, 1, "", "matched no files"},
		{"plan bad field", []string{"plan", badField}, 2, "", `job.yaml:5:46: transforms.s.fields[1]: no field "humdity" in the input (did you mean "humidity"?)`},
		{"validate", []string{"validate", good, badJob}, 2, good + ": ok (checked against the headers of 1 input(s))", "1 of 2 job file(s) invalid"},
		{"validate bad field", []string{"validate", badField}, 2, "", `job.yaml:5:46: transforms.s.fields[1]: no field "humdity" in the input (did you mean "humidity"?)`},
		{"validate bad field statically", []string{"validate", "--static", badField}, 0, badField + ": ok\n", ""},
		{"validate without inputs", []string{"validate", noFile}, 0, noFile + ": ok as a job file; not checked against its inputs: " + noFile + ":3:", ""},
		{"plan", []string{"plan", good}, 0, "sink o (npy): 4 rows -> 1 file(s)", ""},
		{"list", []string{"list"}, 0, "transforms:\n", ""},
		{"list one", []string{"list", "sink.parquet"}, 0, "row_group_rows", ""},
		{"list unknown", []string{"list", "nope"}, 2, "", `no component type "nope"`},
		{"version", []string{"version"}, 0, "npyflow devel (build unknown) go", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
		})
	}
}

func TestPlanWritesNothing(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	job, _ := filepath.Abs("../../examples/demo.yaml")
	t.Setenv("OUT", out)
	code, stdout, stderr := run(t, "plan", job, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var p planJSON
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Sources) != 2 || len(p.Sources[0].Inputs) != 6 || p.Sources[0].Rows != 360 {
		t.Errorf("sources: %+v", p.Sources)
	}
	if len(p.Outputs) != 2 || p.Outputs[0].Paths[0] != out+"/readings.parquet" || p.Outputs[0].Rows != 360 || !p.Outputs[0].RowsExact {
		t.Errorf("outputs: %+v", p.Outputs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("plan created the output directory")
	}
}

func TestSchemaIsJSON(t *testing.T) {
	code, stdout, _ := run(t, "schema")
	var v map[string]any
	if code != 0 || json.Unmarshal([]byte(stdout), &v) != nil || v["title"] != "npyflow job" {
		t.Errorf("exit %d, %.200s", code, stdout)
	}
}
