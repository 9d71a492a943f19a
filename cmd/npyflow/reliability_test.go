//go:build linux

package main

// Reliability: every hostile input (testdata/malformed and
// testdata/hostile, plus zip bombs built here) goes through `npyflow
// convert` and `npyflow run` in a child process under a memory limit and
// a timeout, and must give exit code 1, one stderr line naming the file and
// the problem, no stack trace, bounded memory and no output change. The
// fault tests (disk full, read errors, signals) are in
// faults_reliability_test.go; the child process harness in
// child_reliability_test.go.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
)

// hostileCase is an entry of testdata/hostile/cases.json (written by
// testdata/hostile/gen_hostile.go).
type hostileCase struct {
	File    string   `json:"file"`
	What    string   `json:"what"`
	Kind    string   `json:"kind"`     // npy, npz, parquet or arrow
	Problem string   `json:"problem"`  // regexp the error must match
	OK      bool     `json:"ok"`       // valid input: must convert
	OKModes []string `json:"ok_modes"` // modes in which it must convert
	Path    string   `json:"-"`
}

// malformedProblem is what an error for each kind of testdata/malformed
// case must say.
var malformedProblem = map[string]string{
	"magic":         `not an npy file`,
	"truncated":     `truncated`,
	"version":       `version`,
	"header_syntax": `malformed header`,
	"header_value":  `malformed header`,
	"dtype":         `malformed header|dtype`,
	"unsupported":   `unsupported|refused`,
	"overflow":      `too large|overflow`,
	"too_large":     `too large|truncated|exceeds`,
}

// knownBugs are hostile cases npyflow does not yet handle as it must, by
// file or by file/mode; each is skipped with its reason so the rest of the
// corpus keeps running. Remove an entry when its bug is fixed: the case
// then runs again.
var knownBugs = map[string]string{}

func loadHostile(t *testing.T) []hostileCase {
	t.Helper()
	var out []hostileCase
	for _, m := range fixtures.MalformedCases(t) {
		kind := "npy"
		if strings.HasSuffix(m.File, ".npz") {
			kind = "npz"
		}
		p, ok := malformedProblem[m.Kind]
		if !ok {
			t.Fatalf("malformed case %s: kind %q has no expected problem", m.File, m.Kind)
		}
		out = append(out, hostileCase{File: m.File, What: m.What, Kind: kind, Problem: p, Path: m.Path})
	}
	dir := filepath.Join(fixtures.Root(), "hostile")
	b, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var hs []hostileCase
	if err := json.Unmarshal(b, &hs); err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		h.Path = filepath.Join(dir, h.File)
		out = append(out, h)
	}
	if len(out) < 90 {
		t.Fatalf("only %d hostile cases", len(out))
	}
	return out
}

// modes are the ways a hostile file reaches npyflow: convert to two
// formats, and a job.
var modes = []struct {
	name string
	ext  string // output extension
	job  bool
}{
	{"convert-npy", ".npy", false},
	{"convert-parquet", ".parquet", false},
	{"run-npy", ".npy", true},
}

// TestHostileInputs runs the whole corpus through the CLI.
func TestHostileInputs(t *testing.T) {
	cases := loadHostile(t)
	for _, c := range cases {
		for _, m := range modes {
			t.Run(c.File+"/"+m.name, func(t *testing.T) {
				t.Parallel()
				for _, k := range []string{c.File, c.File + "/" + m.name} {
					if why, ok := knownBugs[k]; ok {
						t.Skip("bug: " + why)
					}
				}
				c := c
				c.OK = c.OK || slices.Contains(c.OKModes, m.name)
				hostileRun(t, c, m.ext, m.job)
			})
		}
	}
}

// TestHostileInspect runs inspect on the whole corpus: it reads only
// headers and metadata, so a file whose damage is in its data may inspect
// fine, but nothing may crash, hang or allocate by a claimed size, and a
// refusal is one line naming the file.
func TestHostileInspect(t *testing.T) {
	for _, c := range loadHostile(t) {
		t.Run(c.File, func(t *testing.T) {
			t.Parallel()
			r := child{args: []string{"inspect", "--json", c.Path}}.run(t)
			if r.code == exitOK {
				checkCrashFree(t, r, maxRSS)
				if !strings.HasPrefix(r.stdout, "{") {
					t.Fatalf("exit 0 without JSON: %s", shorten(r))
				}
				return
			}
			checkCleanFailure(t, r, c.Path, nil)
		})
	}
}

func hostileRun(t *testing.T, c hostileCase, ext string, job bool) {
	dir := tempDir(t)
	outDir := filepath.Join(dir, "out")
	if err := os.Mkdir(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(outDir, "result"+ext)
	// An earlier result must survive a failed conversion untouched.
	if !c.OK {
		if err := os.WriteFile(out, []byte("previous output\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, outDir)
	args := []string{"convert", c.Path, out}
	if job {
		args = []string{"run", "--quiet", jobFile(t, dir, c.Kind, c.Path, strings.TrimPrefix(ext, "."), out)}
	}
	r := child{args: args}.run(t)
	if job && strings.Contains(r.stderr, "not available yet in this build") {
		t.Skipf("the %s source is not in this build", c.Kind)
	}
	if c.OK {
		checkCrashFree(t, r, maxRSS)
		if r.code != 0 {
			t.Fatalf("%s: want success: %s", c.What, shorten(r))
		}
		if _, err := os.Stat(out); err != nil {
			t.Fatalf("no output: %v", err)
		}
		return
	}
	checkCleanFailure(t, r, c.Path, regexp.MustCompile("(?i)"+c.Problem))
	checkUnchanged(t, outDir, before)
	if t.Failed() {
		t.Logf("case: %s", c.What)
	}
}
