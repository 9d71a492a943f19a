package toyformat_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline"
	"github.com/npyflow/npyflow/pipeline/format"
)

// tarc is a second contract format, registered by the test itself (after
// the engine's init: the engine adopts it then): an archive in text,
// "TARC" and a line per member, its name and float64 values. It counts
// the inputs it opens, to show the engine opens each once per run.
var (
	tarcOnce  sync.Once
	tarcOpens atomic.Int64
)

func registerTARC() {
	tarcOnce.Do(func() {
		format.Register(&format.Format{Name: "tarc", Exts: []string{".tarc"}, Summary: "text archive (a test)",
			Caps: format.Caps{Archive: true},
			Source: &format.SourceSpec{Summary: "read tarc files", Options: struct{ format.SourceOptions }{},
				New: func(any) (format.Source, error) { return tarcSource{}, nil }}})
	})
}

type tarcSource struct{}

func (tarcSource) Open(_ context.Context, in format.Input) (format.Handle, error) {
	tarcOpens.Add(1)
	b, err := io.ReadAll(io.NewSectionReader(in.File, 0, in.File.Size()))
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "TARC" {
		return nil, errors.New("not a tarc file")
	}
	h := &tarcHandle{vals: map[string][]float64{}}
	for i, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) == 0 {
			return nil, fmt.Errorf("line %d: no member name", i+2)
		}
		var vs []float64
		for _, s := range f[1:] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %q is not a number", i+2, s)
			}
			vs = append(vs, v)
		}
		h.parts = append(h.parts, format.Part{Member: f[0], Header: &npyio.Header{DType: npyio.Float64Type, Shape: []int{len(vs)}}})
		h.vals[f[0]] = vs
	}
	return h, nil
}

type tarcHandle struct {
	parts []format.Part
	vals  map[string][]float64
}

func (h *tarcHandle) Parts() []format.Part { return h.parts }
func (h *tarcHandle) Close() error         { return nil }
func (h *tarcHandle) OpenPart(_ context.Context, member string) (format.RowReader, error) {
	return &floatRows{v: h.vals[member]}, nil
}

type floatRows struct{ v []float64 }

func (r *floatRows) ReadRows(dst []byte) (int, error) {
	n := min(len(dst)/8, len(r.v))
	if n == 0 {
		return 0, io.EOF
	}
	copy(dst, npyio.AsBytes(r.v[:n]))
	r.v = r.v[n:]
	return n, nil
}

// TestContractArchive: a format registered after the engine's init is
// adopted; its parts are members ({member}, archive to archive), read
// from one open handle per input and run; a format listing two parts of
// one name is refused naming the file.
func TestContractArchive(t *testing.T) {
	registerTARC()
	ctx := context.Background()
	dir := t.TempDir()
	in := filepath.Join(dir, "t.tarc")
	os.WriteFile(in, []byte("TARC\na 1 2 3\nb -4.5 5\n"), 0o644)

	tarcOpens.Store(0)
	out := filepath.Join(dir, "t.npz")
	if _, err := pipeline.Convert(ctx, in, out, nil); err != nil {
		t.Fatal(err)
	}
	if n := tarcOpens.Load(); n != 1 {
		t.Errorf("the conversion opened t.tarc %d times, not once", n)
	}
	got := npzValues(t, out)
	if fmt.Sprint(got) != "[a[1 2 3] b[-4.5 5]]" {
		t.Errorf("t.npz holds %v", got)
	}

	tarcOpens.Store(0)
	if _, err := runJob(t, dir, "version: 1\nsources: {s: {type: tarc, paths: \"*.tarc\"}}\nsinks: {o: {type: npy, input: s, path: \"out/{member}.npy\"}}\n", nil); err != nil {
		t.Fatal(err)
	}
	if a, b := readNPY(t, filepath.Join(dir, "out", "a.npy")), readNPY(t, filepath.Join(dir, "out", "b.npy")); a != "[1 2 3]" || b != "[-4.5 5]" {
		t.Errorf("out/a.npy %s, out/b.npy %s", a, b)
	}
	if n := tarcOpens.Load(); n != 1 {
		t.Errorf("the job opened t.tarc %d times, not once", n)
	}

	bad := filepath.Join(dir, "bad.tarc")
	os.WriteFile(bad, []byte("TARC\na 1\na 2\n"), 0o644)
	if _, err := pipeline.Convert(ctx, bad, filepath.Join(dir, "bad.npz"), nil); err == nil || !strings.Contains(err.Error(), bad+`: part "a" has no header, or a name that does not tell it apart (a bug of the format)`) {
		t.Errorf("two parts named a: %v", err)
	}
}

// tdir is a directory format (Caps.Dir), registered by the test: a
// directory NAME.tdir holding MEMBER.txt files of float64 values, one a
// line; its sink writes values.txt into the directory the engine stages.
var tdirOnce sync.Once

func registerTDIR() {
	tdirOnce.Do(func() {
		format.Register(&format.Format{Name: "tdir", Exts: []string{".tdir"}, Summary: "directory of text vectors (a test)",
			Caps: format.Caps{Archive: true, Dir: true},
			Source: &format.SourceSpec{Summary: "read tdir directories", Options: struct{ format.SourceOptions }{},
				New: func(any) (format.Source, error) { return tdirSource{}, nil }},
			Sink: &format.SinkSpec{Summary: "write tdir directories", Options: struct{ format.SinkOptions }{},
				New: func(_ any, in format.Layout) (format.Sink, error) {
					if !in.DType.Equal(npyio.Float64Type) || len(in.Shape) > 0 {
						return nil, fmt.Errorf("a tdir holds float64 values, not %s", in)
					}
					return tdirSink{}, nil
				}}})
	})
}

type tdirSource struct{}

func (tdirSource) Open(_ context.Context, in format.Input) (format.Handle, error) {
	if in.File != nil {
		return nil, errors.New("a Dir format got a file")
	}
	names, err := filepath.Glob(filepath.Join(in.Name, "*.txt"))
	if err != nil {
		return nil, err
	}
	h := &tarcHandle{vals: map[string][]float64{}}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		var vs []float64
		for _, s := range strings.Fields(string(b)) {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %q is not a number", filepath.Base(n), s)
			}
			vs = append(vs, v)
		}
		m := strings.TrimSuffix(filepath.Base(n), ".txt")
		h.parts = append(h.parts, format.Part{Member: m, Header: &npyio.Header{DType: npyio.Float64Type, Shape: []int{len(vs)}}})
		h.vals[m] = vs
	}
	return h, nil
}

type tdirSink struct{}

func (tdirSink) Create(_ context.Context, out format.Output) (format.Writer, error) {
	if out.File != nil || out.Dir == "" {
		return nil, errors.New("a Dir format got a file")
	}
	return &tdirWriter{dir: out.Dir}, nil
}

type tdirWriter struct {
	dir  string
	text strings.Builder
}

func (w *tdirWriter) WriteRows(rows []byte, n int) error {
	v, err := npyio.View[float64](rows[:8*n])
	if err != nil {
		return err
	}
	for _, x := range v {
		fmt.Fprintln(&w.text, strconv.FormatFloat(x, 'g', -1, 64))
	}
	return nil
}

func (w *tdirWriter) Close() error {
	return os.WriteFile(filepath.Join(w.dir, "values.txt"), []byte(w.text.String()), 0o644)
}

// TestContractDir: a directory format reads a directory as one input
// (its files the parts) and writes each output into a directory the
// engine stages and renames into place.
func TestContractDir(t *testing.T) {
	registerTDIR()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.tdir")
	os.MkdirAll(in, 0o777)
	os.WriteFile(filepath.Join(in, "a.txt"), []byte("1\n2.5\n"), 0o644)
	os.WriteFile(filepath.Join(in, "b.txt"), []byte("-3\n"), 0o644)
	if _, err := runJob(t, dir, "version: 1\nsources: {s: {type: tdir, paths: in.tdir}}\nsinks: {o: {type: tdir, input: s, path: \"out/{member}.tdir\"}}\n", nil); err != nil {
		t.Fatal(err)
	}
	for m, want := range map[string]string{"a": "1\n2.5\n", "b": "-3\n"} {
		got, err := os.ReadFile(filepath.Join(dir, "out", m+".tdir", "values.txt"))
		if err != nil || string(got) != want {
			t.Errorf("out/%s.tdir/values.txt = %q, %v; want %q", m, got, err, want)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "out")); len(ents) != 2 {
		t.Errorf("out holds %d entries, not the two outputs (no staging left)", len(ents))
	}
	if _, err := pipeline.Convert(context.Background(), in, filepath.Join(dir, "c.npz"), nil); err != nil {
		t.Fatal(err)
	}
	if got := npzValues(t, filepath.Join(dir, "c.npz")); fmt.Sprint(got) != "[a[1 2.5] b[-3]]" {
		t.Errorf("c.npz holds %v", got)
	}
}

// npzValues lists the float64 members of an .npz: "name[values]".
func npzValues(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	z, err := npyio.NewNPZReader(f, st.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range z.Keys() {
		a, err := z.Member(k).ReadArray()
		if err != nil {
			t.Fatal(err)
		}
		v, _ := npyio.View[float64](a.Data)
		got = append(got, fmt.Sprint(k, v))
	}
	return got
}
