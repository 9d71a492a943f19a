package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/inspect"
	"github.com/npyflow/npyflow/pipeline/job"
)

// The toy format, registered only here: "TOY1", a little-endian uint32
// count, then that many little-endian float64 values. Its source has one
// option with a flag (scale, --toy-scale: values are multiplied by it;
// panic: true makes reading panic, a bug the engine must report). It is
// one Format value, as every format is: registering it is all it takes
// to convert, run, inspect, list it and validate jobs naming it.
var toyFormat = &Format{
	Name: "toy", Exts: []string{".toy"}, Summary: "toy float64 vector (a test)",
	Magic: []Magic{{Prefix: "TOY1"}},
	Source: fileSourceSpec("read toy files", "Reads toy files: one float64 vector each.",
		func(c *job.Component) (fileReader, error) {
			o := job.Options[toySourceOpts](c)
			return toyReader{scale: float64(o.Scale), panics: o.Panic}, nil
		},
		toySourceOpts{}),
	Sink: &job.Spec{Kind: job.Sink, Summary: "write toy files", Options: fileSinkOpts{},
		Impl: builder(func(c *job.Component, in *Schema, env *buildEnv) (node, error) {
			if !in.DType.Equal(npyio.Float64Type) || len(in.Shape) > 0 {
				return nil, c.Errorf("input", "a toy file holds float64 values, not %s", in)
			}
			fs, err := newFileSink(c, in, env)
			if err != nil {
				return nil, err
			}
			fs.open = func(f *sinkFile, _ *Part) (batchWriter, error) { return &toyWriter{f: f}, nil }
			return fs, nil
		})},
	Inspect: func(_ context.Context, f storage.File, name string, _ *job.Component) (inspect.Info, error) {
		var head [8]byte
		if _, err := f.ReadAt(head[:], 0); err != nil {
			return nil, err
		}
		return &toyInfo{File: name, Values: binary.LittleEndian.Uint32(head[4:])}, nil
	},
}

// toySourceOpts are the toy source's options.
type toySourceOpts struct {
	fileSourceOpts
	Scale int64 `opt:"scale" default:"1" flag:"toy-scale" doc:"multiply every value by this"`
	Panic bool  `opt:"panic" default:"false" doc:"panic while reading (a test of the engine)"`
}

type toyInfo struct {
	File   string `json:"file"`
	Values uint32 `json:"values"`
}

func (i *toyInfo) WriteText(w io.Writer) { fmt.Fprintf(w, "%s: %d toy values\n", i.File, i.Values) }

type toyReader struct {
	scale  float64
	panics bool
}

func (toyReader) parts(ctx context.Context, _ *fileSource, path string) ([]partHead, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 8 || string(b[:4]) != "TOY1" || int64(binary.LittleEndian.Uint32(b[4:]))*8 != int64(len(b)-8) {
		return nil, &FileError{Path: path, Err: errors.New("not a toy file")}
	}
	return []partHead{{header: &npyio.Header{DType: npyio.Float64Type, Shape: []int{(len(b) - 8) / 8}}}}, nil
}

func (r toyReader) open(ctx context.Context, _ *fileSource, p *Part) (rowReader, *npyio.Header, io.Closer, error) {
	b, err := os.ReadFile(p.Path)
	if err != nil {
		return nil, nil, nil, err
	}
	return &toyRows{data: b[8:], scale: r.scale, panics: r.panics}, &npyio.Header{DType: npyio.Float64Type, Shape: []int{(len(b) - 8) / 8}}, io.NopCloser(nil), nil
}

type toyRows struct {
	data   []byte
	scale  float64
	panics bool
}

func (t *toyRows) ReadRows(dst []byte) (int, error) {
	if t.panics {
		var m map[string]int
		m["x"]++ // a bug: a nil map
	}
	n := min(len(dst), len(t.data)) / 8
	if n == 0 {
		return 0, io.EOF
	}
	for i := range n {
		v := math.Float64frombits(binary.LittleEndian.Uint64(t.data[8*i:])) * t.scale
		binary.NativeEndian.PutUint64(dst[8*i:], math.Float64bits(v))
	}
	t.data = t.data[8*n:]
	return n, nil
}

// toyWriter writes a toy file: the count is patched in at the end.
type toyWriter struct {
	f    *sinkFile
	n    uint32
	head bool
}

func (w *toyWriter) Write(b Batch) error {
	if !w.head {
		if _, err := w.f.Write([]byte("TOY1\x00\x00\x00\x00")); err != nil {
			return err
		}
		w.head = true
	}
	out := make([]byte, len(b.Data))
	for i := 0; i < b.Rows; i++ {
		binary.LittleEndian.PutUint64(out[8*i:], binary.NativeEndian.Uint64(b.Data[8*i:]))
	}
	w.n += uint32(b.Rows)
	_, err := w.f.Write(out)
	return err
}

func (w *toyWriter) Close() error {
	if !w.head {
		return w.Write(Batch{})
	}
	if _, err := w.f.Seek(4, io.SeekStart); err != nil {
		return err
	}
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], w.n)
	_, err := w.f.Write(n[:])
	return err
}

// TestToyFormat runs TestToyFormatChild in a process of its own: the toy
// format registers there and nowhere else, so no other test sees it.
func TestToyFormat(t *testing.T) {
	if os.Getenv("NPYFLOW_TOY_CHILD") != "" {
		t.Skip("the child")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestToyFormatChild$", "-test.v")
	cmd.Env = append(os.Environ(), "NPYFLOW_TOY_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestToyFormatChild") {
		t.Fatalf("%v:\n%s", err, out)
	}
}

// TestToyFormatChild registers the toy format in a test and nowhere
// else, and takes it through convert (flags included), a job, inspect
// (by its magic, on standard input too), what `npyflow list` shows and
// the JSON schema; a panic in its reader comes back as an InternalError.
func TestToyFormatChild(t *testing.T) {
	if os.Getenv("NPYFLOW_TOY_CHILD") == "" {
		t.Skip("run by TestToyFormat")
	}
	RegisterFormat(toyFormat)
	ctx := context.Background()
	dir := t.TempDir()

	// What list, validate and the schema are made of.
	if f := FormatOf("x.toy"); f != toyFormat || !slices.Contains(Formats(), toyFormat) {
		t.Fatalf("FormatOf(x.toy) = %v", f)
	}
	if job.Lookup(job.Source, "toy") == nil || job.Lookup(job.Sink, "toy") == nil {
		t.Fatal("no toy source or sink spec")
	}
	if !slices.ContainsFunc(ConvertFlags(), func(f Flag) bool { return f.Name == "toy-scale" }) {
		t.Error("no --toy-scale among the convert flags")
	}
	schema, err := job.JSONSchema()
	if err != nil || !bytes.Contains(schema, []byte(`"source.toy"`)) || !bytes.Contains(schema, []byte(`"sink.toy"`)) || !bytes.Contains(schema, []byte("multiply every value by this")) {
		t.Errorf("the JSON schema lacks the toy source or sink (%v)", err)
	}

	// convert .npy -> .toy -> .npy, and .toy -> .npy with --toy-scale 2.
	vals := []float64{1.5, -2, 3e300, 0}
	src := filepath.Join(dir, "v.npy")
	f, _ := os.Create(src)
	if err := npyio.WriteArray(f, &npyio.Array{Header: &npyio.Header{DType: npyio.Float64Type, Shape: []int{4}}, DType: npyio.Float64Type, Data: npyio.AsBytes(vals)}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	toy := filepath.Join(dir, "v.toy")
	if _, err := Convert(ctx, src, toy, nil); err != nil {
		t.Fatal(err)
	}
	var o ConvertOptions
	if err := o.Set("toy-scale", "2"); err != nil {
		t.Fatal(err)
	}
	back := filepath.Join(dir, "back.npy")
	if _, err := Convert(ctx, toy, back, &o); err != nil {
		t.Fatal(err)
	}
	got, err := npyio.ReadFile(back, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := npyio.View[float64](got.Data); fmt.Sprint(v) != "[3 -4 6e+300 0]" {
		t.Errorf("toy -> npy with --toy-scale 2: %v", v)
	}
	if _, err := Convert(ctx, src, filepath.Join(dir, "x.parquet"), &o); !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "--toy-scale applies to toy inputs only") {
		t.Errorf("--toy-scale on an .npy input: %v", err)
	}

	// The job with the same option writes the same file.
	runJobText(t, dir, fmt.Sprintf("version: 1\nsources:\n  s: {type: toy, paths: %q, scale: 2}\nsinks:\n  o: {type: npy, input: s, path: %q}\n", toy, filepath.Join(dir, "job.npy")))
	if a, b := readFile(t, back), readFile(t, filepath.Join(dir, "job.npy")); !bytes.Equal(a, b) {
		t.Error("the job's .npy differs from convert's")
	}

	// inspect, by the magic (not the name), and from standard input.
	renamed := filepath.Join(dir, "v.bin")
	os.WriteFile(renamed, readFile(t, toy), 0o644)
	for _, name := range []string{toy, renamed, StdinName} {
		ins, err := Inspect(ctx, name, &ConvertOptions{Stdin: bytes.NewReader(readFile(t, toy))})
		if ti, ok := ins.(*toyInfo); err != nil || !ok || ti.Values != 4 || ti.File != name {
			t.Errorf("inspect %s: %#v %v", name, ins, err)
		}
	}

	// A panic in the reader (a bug) is an InternalError with its stack,
	// and leaves no output.
	out := filepath.Join(dir, "panic.npy")
	jb, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(fmt.Sprintf("version: 1\nsources:\n  s: {type: toy, paths: %q, panic: true}\nsinks:\n  o: {type: npy, input: s, path: %q}\n", toy, out)), nil)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(ctx, jb, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = plan.Run(ctx, nil)
	var ie *InternalError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "internal error") || !bytes.Contains(ie.Stack, []byte("toy_test.go")) {
		t.Errorf("a panic while reading: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a run that panicked left its output")
	}
}
