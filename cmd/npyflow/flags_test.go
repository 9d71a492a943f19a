package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/pipeline"
	"github.com/npyflow/npyflow/pipeline/job"
)

// badFlagValues are command-line texts the option f refuses: one of
// the wrong type, and one past each bound; none if every text is valid
// (a name, a list of column names).
func badFlagValues(f *job.Field) []string {
	if f.FlagValue != nil || f.Enum != nil {
		return []string{"bogus"}
	}
	var out []string
	switch f.Type {
	case job.Int, job.Float:
		out = append(out, "abc")
		if f.Min != nil {
			out = append(out, strconv.FormatFloat(*f.Min-1, 'g', -1, 64))
		}
		if f.Max != nil {
			out = append(out, strconv.FormatFloat(*f.Max+1, 'g', -1, 64))
		}
	case job.Bool:
		out = append(out, "maybe")
	case job.String, job.StringList:
		if f.Check != nil {
			for _, v := range []string{"a{", "{", "x,y", "(", "no such type"} {
				if msg, _ := f.Check(v); msg != "" {
					return append(out, v)
				}
			}
		}
	}
	return out
}

// TestConvertBadFlagValues walks every flag convert generates from the
// formats' options, with a value the option refuses, for each format
// whose source or sink has it: the command exits 2 with one line naming
// the flag and the value, before reading any file (the paths do not
// exist). In process: each case costs microseconds.
func TestConvertBadFlagValues(t *testing.T) {
	dir := t.TempDir()
	flags := map[string]bool{}
	for _, f := range pipeline.ConvertFlags() {
		flags[f.Name] = true
	}
	cases, skipped := 0, 0
	for _, fm := range pipeline.Formats() {
		for _, spec := range []*job.Spec{fm.Source, fm.Sink} {
			for i := range spec.Fields {
				fd := &spec.Fields[i]
				if fd.Flag == "" {
					continue
				}
				if !flags[fd.Flag] {
					t.Errorf("%s %s.%s: flag --%s not generated", spec.Kind, spec.Type, fd.Name, fd.Flag)
				}
				in, out := filepath.Join(dir, "in.npy"), filepath.Join(dir, "out"+fm.Exts[0])
				if spec.Kind == job.Source {
					in, out = filepath.Join(dir, "in"+fm.Exts[0]), filepath.Join(dir, "out.npy")
					if fm.Name == "npy" {
						out = filepath.Join(dir, "out.npz")
					}
				}
				bad := badFlagValues(fd)
				if len(bad) == 0 {
					skipped++
				}
				for _, v := range bad {
					cases++
					name := spec.Kind.String() + "/" + spec.Type + "/" + fd.Flag + "=" + v
					t.Run(name, func(t *testing.T) {
						code, msg := runCLI(t, "convert", "--"+fd.Flag+"="+v, in, out)
						want := "npyflow convert: --" + fd.Flag + " " + strconv.Quote(v) + ": "
						if code != exitUsage || !strings.HasPrefix(msg, want) || strings.Count(msg, "\n") != 1 {
							t.Errorf("exit %d %q, want exit %d and one line starting %q", code, msg, exitUsage, want)
						}
					})
				}
			}
		}
	}
	if cases < 40 {
		t.Errorf("%d bad values tried (%d options without one): the walk missed options", cases, skipped)
	}
}

// TestConvertFlagMessages pins the one-line messages of a few bad flag
// values: the allowed values or the bounds, in the user's words.
func TestConvertFlagMessages(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "x.npy")
	for _, c := range []struct {
		out  string
		args []string
		want string
	}{
		{"y.parquet", []string{"--compression", "bogus"}, `--compression "bogus": want zstd, snappy, gzip, lz4 or none`},
		{"y.h5", []string{"--compression", "bogus"}, `--compression "bogus": want deflate, lz4, zstd or none`},
		{"y.npz", []string{"--compression", "zstd"}, `--compression "zstd": want deflate or none`},
		{"y.parquet", []string{"--row-group-rows", "0"}, `--row-group-rows "0": want an integer of at least 1`},
		{"y.h5", []string{"--compression-level", "23"}, `--compression-level "23": want an integer from 0 to 22`},
		{"y.nc", []string{"--format", "netcdf3"}, `--format "netcdf3": want hdf5 or netcdf4`},
		{"y.mat", []string{"--mat-version", "5"}, `--mat-version "5": want 7.3, 7 or 6`},
		{"y.zarr", []string{"--chunks", "10,x0"}, `--chunks "10,x0": "10,x0" is not a shape of positive integers (1000,100)`},
		{"y.parquet", []string{"--name", "a{b"}, `--name "a{b": unclosed {`},
		{"y.parquet", []string{"--sync=maybe"}, `--sync "maybe": want true or false`},
		{"y.parquet", []string{"--threads", "-1"}, `--threads "-1": want 0 (every core) or a positive count`},
		{"y.parquet", []string{"--threads=two"}, `--threads "two": want 0 (every core) or a positive count`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, msg := runCLI(t, slices.Concat([]string{"convert"}, c.args, []string{in, filepath.Join(dir, c.out)})...)
			if want := "npyflow convert: " + c.want + "\n"; code != exitUsage || msg != want {
				t.Errorf("exit %d %q, want %d %q", code, msg, exitUsage, want)
			}
		})
	}
}

// TestThreadsGOMAXPROCS: --threads 1 converts (the same bytes as
// without it) and leaves GOMAXPROCS as it found it.
func TestThreadsGOMAXPROCS(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS 2 or more")
	}
	before := runtime.GOMAXPROCS(0)
	dir := t.TempDir()
	in := fixtures.NPYByName(t, "rec_2d_f").Path
	var outs [2][]byte
	for i, args := range [][]string{{"--threads", "1"}, nil} {
		out := filepath.Join(dir, fmt.Sprintf("%d.parquet", i))
		if code, msg := runCLI(t, slices.Concat([]string{"convert"}, args, []string{in, out})...); code != 0 {
			t.Fatalf("convert %v: %d %s", args, code, msg)
		}
		if got := runtime.GOMAXPROCS(0); got != before {
			t.Fatalf("convert %v left GOMAXPROCS %d, was %d", args, got, before)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = b
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("--threads 1 wrote other bytes than the default")
	}
}
