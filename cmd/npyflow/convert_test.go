package main

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

func runCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runMain(context.Background(), args, &out, &errb)
	return code, out.String() + errb.String()
}

// TestConvertRoundTrip: npy -> parquet -> npy and npz tables come back
// numpy-equal through the command.
func TestConvertRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"rec_strings_dates", "rec_struct_subarray", "f2_be_2d_f", "M8_ns_le_nat", "U4_le_unicode", "c16_be_1d", "rec_2d_f"} {
		t.Run(name, func(t *testing.T) {
			f := fixtures.NPYByName(t, name)
			pq := filepath.Join(dir, name+".parquet")
			back := filepath.Join(dir, name+".npy")
			if code, msg := runCLI(t, "convert", f.Path, pq, "--row-group-rows", "2"); code != 0 {
				t.Fatalf("to parquet: %d %s", code, msg)
			}
			if code, msg := runCLI(t, "convert", pq, back); code != 0 {
				t.Fatalf("back: %d %s", code, msg)
			}
			want, err := npyio.ReadFile(f.Path, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := npyio.ReadFile(back, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Header.DType.String() != want.Header.DType.String() || !equalInts(got.Header.Shape, want.Header.Shape) || !bytes.Equal(got.CData(), want.CData()) {
				t.Fatalf("got %s %v, want %s %v", got.Header.DType, got.Header.Shape, want.Header.DType, want.Header.Shape)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestConvertNPZTable(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(fixtures.Root(), "npz", "table.npz")
	pq := filepath.Join(dir, "t.parquet")
	if code, msg := runCLI(t, "convert", src, pq); code != 0 {
		t.Fatalf("%d %s", code, msg)
	}
	out := filepath.Join(dir, "t.npz")
	if code, msg := runCLI(t, "convert", pq, out); code != 0 {
		t.Fatalf("%d %s", code, msg)
	}
	want, err := npyio.OpenNPZ(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	got, err := npyio.OpenNPZ(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	if strings.Join(got.Keys(), ",") != "x,y,z" {
		t.Fatalf("members %v, want x, y, z in archive order", got.Keys())
	}
	for _, k := range want.Keys() {
		a, _ := want.Member(k).ReadArray()
		b, err := got.Member(k).ReadArray()
		if err != nil {
			t.Fatal(err)
		}
		if a.Header.DType.String() != b.Header.DType.String() || !equalInts(a.Header.Shape, b.Header.Shape) || !bytes.Equal(a.CData(), b.CData()) {
			t.Errorf("member %s differs", k)
		}
	}
}

func TestConvertErrors(t *testing.T) {
	dir := t.TempDir()
	trunc := filepath.Join(dir, "trunc.npy")
	b, _ := os.ReadFile(filepath.Join(fixtures.Root(), "npy", "f8_le_1d.npy"))
	os.WriteFile(trunc, b[:len(b)-5], 0o644)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no args", []string{"convert"}, 2, "needs IN and OUT"},
		{"unknown flag", []string{"convert", trunc, filepath.Join(dir, "u.parquet"), "--quiet"}, 2, "npyflow convert: flag provided but not defined: -quiet (see npyflow convert -h)\n"},
		{"unknown inspect flag", []string{"inspect", trunc, "--bogus"}, 2, "npyflow inspect: flag provided but not defined: -bogus (see npyflow inspect -h)\n"},
		{"bad out ext", []string{"convert", trunc, filepath.Join(dir, "x.csv")}, 2, "unknown output format"},
		{"bad flag", []string{"convert", "--compression", "brotli", filepath.Join(fixtures.Root(), "npy", "i1_1d.npy"), filepath.Join(dir, "y.parquet")}, 2, "npyflow convert: --compression \"brotli\": want zstd, snappy, gzip, lz4 or none\n"},
		{"truncated", []string{"convert", trunc, filepath.Join(dir, "t.parquet")}, 1, "trunc.npy: truncated data"},
		{"npz lengths", []string{"convert", filepath.Join(fixtures.Root(), "npz", "savez_mixed.npz"), filepath.Join(dir, "m.parquet")}, 1, "--member"},
		{"missing member", []string{"convert", "--member", "nope", filepath.Join(fixtures.Root(), "npz", "savez_mixed.npz"), filepath.Join(dir, "m.parquet")}, 1, `no member "nope"`},
		{"member ok", []string{"convert", "--member", "b", filepath.Join(fixtures.Root(), "npz", "savez_mixed.npz"), filepath.Join(dir, "b.parquet")}, 0, ""},
		{"synced", []string{"convert", "--sync", filepath.Join(fixtures.Root(), "npy", "i1_1d.npy"), filepath.Join(dir, "synced.arrow")}, 0, ""},
		{"malformed", []string{"convert", filepath.Join(fixtures.Root(), "malformed", "shape_bool.npy"), filepath.Join(dir, "s.parquet")}, 1, "shape_bool.npy: malformed header"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, msg := runCLI(t, c.args...)
			if code != c.code || !strings.Contains(msg, c.want) {
				t.Fatalf("exit %d %q, want %d and %q", code, msg, c.code, c.want)
			}
			if code != 0 {
				if strings.Count(strings.TrimSpace(msg), "\n") > 0 && (c.code == 1 || strings.Contains(c.name, "flag")) {
					t.Errorf("error is not one line: %q", msg)
				}
				out := c.args[len(c.args)-1]
				if _, err := os.Stat(out); err == nil && strings.HasPrefix(out, dir) {
					t.Errorf("%s left behind after a failure", out)
				}
			}
		})
	}
	// No temporary files left in the output directory.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// checkOneLine checks a failed convert's message: exit 1, one line
// "npyflow convert: FILE: problem" naming file exactly once, without
// package prefixes, stating problem.
func checkOneLine(t *testing.T, code int, msg, file string, problem *regexp.Regexp) {
	t.Helper()
	msg = strings.TrimSuffix(msg, "\n")
	if code != 1 || msg == "" || strings.Contains(msg, "\n") {
		t.Fatalf("exit %d %q, want exit 1 and one line", code, msg)
	}
	rest, ok := strings.CutPrefix(msg, "npyflow convert: "+file+": ")
	if !ok {
		t.Fatalf("%q does not start with %q", msg, "npyflow convert: "+file+": ")
	}
	if n := strings.Count(msg, filepath.Base(file)); n != 1 {
		t.Errorf("%q names %s %d times", msg, filepath.Base(file), n)
	}
	for _, p := range []string{"npyio:", "arrowconv:", "parquetio:", "arrow/ipc:"} {
		if strings.Contains(rest, p) {
			t.Errorf("%q keeps the prefix %q", msg, p)
		}
	}
	if problem != nil && !problem.MatchString(rest) {
		t.Errorf("%q does not say /%s/", msg, problem)
	}
}

// TestConvertErrorText: every failure is one line naming the file at
// fault once (the input, or the output for output problems), whatever
// error the libraries or the system gave: npyio.OpenNPZ and *os.PathError
// messages used to repeat the input's name, and output errors named the
// input.
func TestConvertErrorText(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(fixtures.Root(), "npy", "f8_le_1d.npy")
	hostile := func(name string) string { return filepath.Join(fixtures.Root(), "hostile", name) }
	asDir := filepath.Join(dir, "dir.npy")
	os.Mkdir(asDir, 0o755)
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, nil, 0o644)
	empty := filepath.Join(dir, "empty.arrow")
	os.WriteFile(empty, nil, 0o644)
	cases := []struct {
		name    string
		in, out string
		file    string // the file the message names
		problem string
	}{
		{"missing input", filepath.Join(dir, "missing.npy"), filepath.Join(dir, "a.parquet"), "in", `^no such file or directory$`},
		{"input is a directory", asDir, filepath.Join(dir, "b.parquet"), "in", `^is a directory$`},
		{"arrow input is a directory", filepath.Join(dir, "x.arrow"), filepath.Join(dir, "c.npy"), "in", `^no such file or directory$`},
		{"npz not a zip", hostile("zip_garbage.npz"), filepath.Join(dir, "d.npy"), "in", `^reading npz archive: zip: not a valid zip file$`},
		{"npz duplicate member", hostile("zip_duplicate_member.npz"), filepath.Join(dir, "e.npy"), "in", `duplicate member name "a.npy"$`},
		{"npz central directory beyond", hostile("zip_cd_offset_beyond.npz"), filepath.Join(dir, "f.npy"), "in", `member "a.npy": .*local header`},
		{"empty arrow input", empty, filepath.Join(dir, "j.npy"), "in", `^an empty file is not Arrow IPC data$`},
		{"arrow rows lie", hostile("arrow_file_rows_lie.arrow"), filepath.Join(dir, "g.npy"), "in", `^corrupt IPC data: record batch 0: column "x"`},
		{"output directory missing", good, filepath.Join(dir, "nodir", "h.npy"), "out", `^no such file or directory$`},
		{"output parent not a directory", good, filepath.Join(plain, "i.parquet"), "out", `^not a directory$`},
		{"output is a directory", good, asDir, "out", `^file exists$|^is a directory$`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, msg := runCLI(t, "convert", c.in, c.out)
			file := c.in
			if c.file == "out" {
				file = c.out
			}
			checkOneLine(t, code, msg, file, regexp.MustCompile(c.problem))
		})
	}
	// Every hostile npz and Arrow file (small, and bounded in memory).
	ents, err := os.ReadDir(filepath.Join(fixtures.Root(), "hostile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if ext := filepath.Ext(e.Name()); ext != ".npz" && ext != ".arrow" {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			code, msg := runCLI(t, "convert", hostile(e.Name()), filepath.Join(t.TempDir(), "out.npy"))
			if code == 0 {
				t.Skip("converts") // valid, or a known npyio bug (reliability_test.go)
			}
			checkOneLine(t, code, msg, hostile(e.Name()), nil)
		})
	}
}

func TestInspect(t *testing.T) {
	f := fixtures.NPYByName(t, "rec_2d_f")
	code, out := runCLI(t, "inspect", "--json", f.Path)
	if code != 0 {
		t.Fatalf("%d %s", code, out)
	}
	for _, want := range []string{`"fortran_order": true`, `"shape": [`, `"data_offset": 128`, `"descr": "[('a', '<i4'), ('b', '<f4', (2,))]"`} {
		if !strings.Contains(strings.ReplaceAll(out, "\n    ", ""), want) && !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
}

// TestCommandPanic: a panic in a command (a bug; the library returns the
// panics of the goroutines a run starts as *pipeline.InternalError, see
// pipeline's TestReaderPanic) is one line starting "internal error",
// exit 1, not a crash; NPYFLOW_DEBUG=1 adds the stack.
func TestCommandPanic(t *testing.T) {
	register("panic-test", "a command that panics", func(e *env) error {
		var m map[string]int
		m["x"]++ // a nil map: a runtime panic
		return nil
	})
	defer delete(commands, "panic-test")
	code, msg := runCLI(t, "panic-test")
	want := "internal error in npyflow panic-test (please report it): assignment to entry in nil map (NPYFLOW_DEBUG=1 prints the stack)\n"
	if code != 1 || msg != want {
		t.Errorf("exit %d %q, want 1 and %q", code, msg, want)
	}
	t.Setenv("NPYFLOW_DEBUG", "1")
	code, msg = runCLI(t, "panic-test")
	if code != 1 || !strings.HasPrefix(msg, "internal error in npyflow panic-test") || !strings.Contains(msg, "convert_test.go") {
		t.Errorf("with NPYFLOW_DEBUG=1: exit %d %q, want the stack", code, msg)
	}
}

// TestConvertNPZArchive copies every npz fixture to an .npz, stored and
// Deflate: each member keeps numpy's dtype, shape (0-d and mixed lengths
// included) and values, and the members have the asked compression. An
// archive with a member that is not an array is refused, not shortened.
func TestConvertNPZArchive(t *testing.T) {
	dir := t.TempDir()
	copied := 0
	for _, fx := range fixtures.NPZs(t) {
		arrays := 0
		for _, m := range fx.Members {
			if m.IsNPY {
				arrays++
			}
		}
		for _, comp := range []string{"none", "deflate"} {
			out := filepath.Join(dir, fx.Name+"-"+comp+".npz")
			code, msg := runCLI(t, "convert", fx.Path, out, "--compression", comp)
			if arrays < len(fx.Members) || arrays == 0 {
				if code == 0 {
					t.Errorf("%s: copied an archive with %d non-array members of %d", fx.Name, len(fx.Members)-arrays, len(fx.Members))
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%s: output left behind after a refusal", fx.Name)
				}
				continue
			}
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", fx.Name, code, msg)
			}
			copied++
			zr, err := zip.OpenReader(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range zr.File {
				if want := map[string]uint16{"none": zip.Store, "deflate": zip.Deflate}[comp]; f.Method != want {
					t.Errorf("%s %s: member %s has method %d, want %d", fx.Name, comp, f.Name, f.Method, want)
				}
			}
			zr.Close()
			z, err := npyio.OpenNPZ(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(z.Members) != arrays {
				t.Errorf("%s: %d members, want %d", fx.Name, len(z.Members), arrays)
			}
			for _, m := range fx.Members {
				zm := z.Member(m.Key)
				if zm == nil {
					t.Errorf("%s: member %s missing", fx.Name, m.Key)
					continue
				}
				a, err := zm.ReadArray()
				if err != nil {
					t.Fatalf("%s/%s: %v", fx.Name, m.Key, err)
				}
				if got := a.Header.DType.String(); got != m.Descr || !equalInts(a.Header.Shape, m.Shape) {
					t.Errorf("%s/%s: %s %v, want numpy's %s %v", fx.Name, m.Key, got, a.Header.Shape, m.Descr, m.Shape)
				}
				data, size := a.CData(), a.DType.Size
				if len(m.Values) != len(data)/max(size, 1) && size > 0 {
					t.Fatalf("%s/%s: %d elements, numpy has %d", fx.Name, m.Key, len(data)/size, len(m.Values))
				}
				for i, v := range m.Values {
					if err := fixtures.CheckElement(a.DType, data[i*size:(i+1)*size], v); err != nil {
						t.Errorf("%s/%s[%d]: %v", fx.Name, m.Key, i, err)
					}
				}
			}
			z.Close()
		}
	}
	if copied == 0 {
		t.Fatal("no fixture archive was copied")
	}
	if code, msg := runCLI(t, "convert", filepath.Join(fixtures.Root(), "npz", "table.npz"), filepath.Join(dir, "x.npz"), "--compression", "zstd"); code != 2 || !strings.Contains(msg, "deflate or none") {
		t.Errorf("zstd for an .npz: exit %d %q", code, msg)
	}
}

// TestConvertNPZArchiveScalars copies an archive of numpy-written 0-d
// arrays (as np.savez(lr=0.01, name='run7', ...) makes) next to a 2-d one:
// they stay 0-d with numpy's values.
func TestConvertNPZArchiveScalars(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "scalars.npz")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	var want []fixtures.NPY
	const twoD = "f8_le_2d_f" // Fortran order: copied in C order, same values
	for _, fx := range fixtures.NPYs(t) {
		if len(fx.Shape) != 0 && fx.Name != twoD {
			continue
		}
		b, err := os.ReadFile(fx.Path)
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: fx.Name + ".npy", Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
		want = append(want, fx)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if len(want) < 5 {
		t.Fatalf("only %d 0-d fixtures", len(want))
	}
	out := filepath.Join(dir, "copy.npz")
	if code, msg := runCLI(t, "convert", src, out, "--compression", "deflate"); code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	z, err := npyio.OpenNPZ(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	for _, fx := range want {
		a, err := z.Member(fx.Name).ReadArray()
		if err != nil {
			t.Fatalf("%s: %v", fx.Name, err)
		}
		if got := a.Header.DType.String(); got != fx.Descr || !equalInts(a.Header.Shape, fx.Shape) || len(a.Header.Shape) != len(fx.Shape) {
			t.Errorf("%s: %s %v, want numpy's %s %v", fx.Name, got, a.Header.Shape, fx.Descr, fx.Shape)
		}
		data, size := a.CData(), a.DType.Size
		for i, v := range fx.Values {
			if err := fixtures.CheckElement(a.DType, data[i*size:(i+1)*size], v); err != nil {
				t.Errorf("%s[%d]: %v", fx.Name, i, err)
			}
		}
	}
}
