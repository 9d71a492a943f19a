package job_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/npyflow/npyflow/pipeline" // registers the components
	"github.com/npyflow/npyflow/pipeline/job"
)

// fuzzEnv is the fixed environment of the fuzz target, so ${VAR} expands
// the same way on every machine.
func fuzzEnv(name string) (string, bool) {
	v, ok := map[string]string{"OUT": "out", "DATA": "data", "N": "3", "EMPTY": ""}[name]
	return v, ok
}

// FuzzLoad feeds job files (and --set overrides, one per line of set) to
// the job loader, which reads untrusted YAML. It must never panic, must
// answer quickly, must report every problem as a job error with a
// position ("job.yaml:line:col" or "--set ..."), and must be
// deterministic. Seeds: the examples and the shapes the loader's own tests
// use (anchors, aliases, ${VAR} forms, flow and block styles).
func FuzzLoad(f *testing.F) {
	examples, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.yaml"))
	for _, p := range examples {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "")
	}
	for _, s := range []struct{ job, set string }{
		{"version: 1\nsources:\n  a: {type: npy, paths: a.npy}\nsinks:\n  o: {type: npy, input: a, path: o.npy}\n", ""},
		{"version: 1\nsources:\n  a: {type: npy, paths: a.npy}\nsinks:\n  o: {type: npy, input: a, path: o.npy}\n", "sinks.o.mode=error_if_exists\nsources.a.paths=[x.npy, y.npy]"},
		{"version: 1\nsources:\n  a: &s {type: npz, paths: ['${DATA}/*.npz', 'more/**/*.npz'], members: [x]}\n  b: *s\ntransforms:\n  l: {type: limit, input: a, rows: ${N}}\n  c: {type: cast, input: l, fields: {x: int32}, on_overflow: saturate}\n  f: {type: filter, input: c, where: \"x > 2 and not (y in ['a', 'b']) and 0 <= z < 1e3 and 'A' != w\"}\nsinks:\n  o: {type: parquet, input: f, path: \"${OUT:-o}/{stem}.parquet\", compression: zstd}\n", ""},
		{"version: 1\nsources:\n  r: {type: npy, paths: 'runs/{run_id}/frame_{step:int}.npy', exclude: [bad*]}\ntransforms:\n  d: {type: describe, input: r, quantiles: [0.1, 0.9], ddof: 0}\n  p: {type: pca, input: r, components: 2, sample_rows: 100}\nsinks:\n  o: {type: npy, input: d, path: '${OUT:?need OUT}/d.npy'}\n  q: {type: arrow, input: p, path: p.arrow, format: stream, batch_rows: 10}\n", ""},
		{"a: &a [x, x, x, x]\nb: &b [*a, *a, *a, *a]\nc: &c [*b, *b, *b, *b]\nsources: *c\n", ""},
		{"version: 1\nsources: [1, 2]\nsinks: {o: null}\n", "a=b=c\n=\nsinks.o.path"},
		{"\t- ]:\n", ""},
		{"", ""},
	} {
		f.Add([]byte(s.job), s.set)
	}
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		var sets []string
		if set != "" {
			sets = strings.Split(set, "\n")
			if len(sets) > 4 {
				sets = sets[:4]
			}
		}
		opts := &job.LoadOptions{Set: sets, LookupEnv: fuzzEnv, Dir: "/nonexistent"}
		start := time.Now()
		j, err := job.Load("job.yaml", data, opts)
		if d := time.Since(start); d > 10*time.Second { // generous: -race on a loaded 2-core machine
			t.Fatalf("Load took %v on %d bytes", d, len(data))
		}
		if err != nil {
			if !job.IsJobError(err) {
				t.Fatalf("not a job error (no position): %T %v", err, err)
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "job.yaml") && !strings.HasPrefix(line, "--set ") {
					t.Fatalf("error line without a position: %q", line)
				}
			}
		} else if j == nil {
			t.Fatal("nil job and nil error")
		}
		job2, err2 := job.Load("job.yaml", data, opts)
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) || (j == nil) != (job2 == nil) {
			t.Fatalf("not deterministic: %v / %v", err, err2)
		}
	})
}
