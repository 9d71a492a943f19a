package toyformat_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/toyformat"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline"
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/shardrun"
)

// The toy format registers by this package's import alone (the test
// binary links it); nothing here touches package pipeline's internals.

// toyBytes is a toy file of vals, as the format defines it.
func toyBytes(vals ...float64) []byte {
	b := binary.LittleEndian.AppendUint32([]byte("TOY1"), uint32(len(vals)))
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

func writeNPY(t *testing.T, path string, vals []float64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := npyio.WriteArray(f, &npyio.Array{Header: &npyio.Header{DType: npyio.Float64Type, Shape: []int{len(vals)}}, DType: npyio.Float64Type, Data: npyio.AsBytes(vals)}); err != nil {
		t.Fatal(err)
	}
}

func readNPY(t *testing.T, path string) string {
	t.Helper()
	a, err := npyio.ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := npyio.View[float64](a.Data)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(v)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runJob loads text as dir/job.yaml and runs it, as one shard if so is
// set.
func runJob(t *testing.T, dir, text string, so *pipeline.ShardOptions) (*pipeline.Summary, error) {
	t.Helper()
	jb, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(text), nil)
	if err != nil {
		t.Fatalf("%s\n%v", text, err)
	}
	plan, err := pipeline.NewPlan(context.Background(), jb, &pipeline.PlanOptions{Warn: func(string) {}})
	if err != nil {
		return nil, err
	}
	defer plan.Close()
	return plan.Run(context.Background(), &pipeline.RunOptions{Workers: 2, Shard: so})
}

// TestToyRegistered: the toy is listed (npyflow list and validate read
// the job registry, convert's flags and the schema are generated from
// it) like a built-in format.
func TestToyRegistered(t *testing.T) {
	f := pipeline.FormatOf("x.TOY")
	if f == nil || f.Name != "toy" || !slices.Contains(pipeline.Formats(), f) {
		t.Fatalf("FormatOf(x.TOY) = %v", f)
	}
	if names := fmt.Sprint(formatNames()); !strings.Contains(names, " zarr_zip toy") {
		t.Errorf("formats %s: the toy does not come right after the built-in ones", names)
	}
	src, snk := job.Lookup(job.Source, "toy"), job.Lookup(job.Sink, "toy")
	if src == nil || snk == nil || src.Summary != "read toy files" || snk.Summary != "write toy files" {
		t.Fatalf("toy specs %v %v", src, snk)
	}
	var fields []string
	for _, fd := range src.Fields {
		fields = append(fields, fd.Name)
	}
	if fmt.Sprint(fields) != "[type paths exclude column allow_empty scale panic]" {
		t.Errorf("toy source options %v", fields)
	}
	if i := slices.IndexFunc(pipeline.ConvertFlags(), func(f pipeline.Flag) bool { return f.Name == "toy-scale" }); i < 0 ||
		pipeline.ConvertFlags()[i].Doc != "toy input: multiply every value by this" || fmt.Sprint(pipeline.ConvertFlags()[i].Options) != "[source toy.scale]" {
		t.Errorf("--toy-scale among the convert flags: %d", i)
	}
	schema, err := job.JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Defs map[string]struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	if d := s.Defs["source.toy"].Properties["scale"].Description; !strings.Contains(d, "multiply every value by this") {
		t.Errorf("schema source.toy scale: %q (defs %d)", d, len(s.Defs))
	}
	if _, ok := s.Defs["sink.toy"].Properties["path"]; !ok {
		t.Error("schema: no sink.toy path")
	}
}

func formatNames() []string {
	var out []string
	for _, f := range pipeline.Formats() {
		out = append(out, f.Name)
	}
	return out
}

// TestToyConvertRunInspect takes the toy through convert (flags
// included), a job, inspect (by its magic, on standard input too), and
// errors naming the file; a panic in its reader comes back as an
// InternalError.
func TestToyConvertRunInspect(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	vals := []float64{1.5, -2, 3e300, 0}
	src := filepath.Join(dir, "v.npy")
	writeNPY(t, src, vals)

	// convert .npy -> .toy writes the format's bytes.
	toy := filepath.Join(dir, "v.toy")
	if _, err := pipeline.Convert(ctx, src, toy, nil); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, toy); !bytes.Equal(got, toyBytes(vals...)) {
		t.Errorf("v.toy = %x, want %x", got, toyBytes(vals...))
	}
	// .toy -> .npy with --toy-scale 2.
	var o pipeline.ConvertOptions
	if err := o.Set("toy-scale", "2"); err != nil {
		t.Fatal(err)
	}
	back := filepath.Join(dir, "back.npy")
	if _, err := pipeline.Convert(ctx, toy, back, &o); err != nil {
		t.Fatal(err)
	}
	if v := readNPY(t, back); v != "[3 -4 6e+300 0]" {
		t.Errorf("toy -> npy with --toy-scale 2: %v", v)
	}
	if err := o.Set("toy-scale", "x"); !errors.Is(err, pipeline.ErrOptions) || !strings.Contains(err.Error(), `--toy-scale "x"`) {
		t.Errorf("--toy-scale x: %v", err)
	}
	if _, err := pipeline.Convert(ctx, src, filepath.Join(dir, "x.parquet"), &o); !errors.Is(err, pipeline.ErrOptions) || !strings.Contains(err.Error(), "--toy-scale applies to toy inputs only") {
		t.Errorf("--toy-scale on an .npy input: %v", err)
	}
	// A toy holds float64 values only: the sink refuses others at planning.
	i32 := filepath.Join(dir, "i.npy")
	f, _ := os.Create(i32)
	npyio.WriteArray(f, &npyio.Array{Header: &npyio.Header{DType: npyio.Int32Type, Shape: []int{2}}, DType: npyio.Int32Type, Data: npyio.AsBytes([]int32{1, 2})})
	f.Close()
	if _, err := pipeline.Convert(ctx, i32, filepath.Join(dir, "i.toy"), nil); err == nil || !strings.Contains(err.Error(), "a toy file holds float64 values, not '<i4'") {
		t.Errorf("int32 -> toy: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "i.toy")); err == nil {
		t.Error("a refused conversion left i.toy")
	}

	// A job with the same option writes the same file; a job with a
	// transform between whose rows the plan cannot know (sample) writes
	// the toy (the count is patched in at the end).
	runOK := func(text string) {
		t.Helper()
		if _, err := runJob(t, dir, text, nil); err != nil {
			t.Fatal(err)
		}
	}
	runOK(fmt.Sprintf("version: 1\nsources:\n  s: {type: toy, paths: %q, scale: 2}\nsinks:\n  o: {type: npy, input: s, path: %q}\n", toy, filepath.Join(dir, "job.npy")))
	if !bytes.Equal(readFile(t, back), readFile(t, filepath.Join(dir, "job.npy"))) {
		t.Error("the job's .npy differs from convert's")
	}
	many := make([]float64, 1000)
	for i := range many {
		many[i] = float64(i) / 4
	}
	os.WriteFile(filepath.Join(dir, "many.toy"), toyBytes(many...), 0o644)
	runOK(fmt.Sprintf("version: 1\nsources:\n  s: {type: toy, paths: %q}\ntransforms:\n  f: {type: sample, input: s, fraction: 0.5, seed: 7}\nsinks:\n  o: {type: toy, input: f, path: %q}\n  n: {type: npy, input: f, path: %q}\n",
		filepath.Join(dir, "many.toy"), filepath.Join(dir, "f.toy"), filepath.Join(dir, "f.npy")))
	a, err := npyio.ReadFile(filepath.Join(dir, "f.npy"), nil)
	if err != nil {
		t.Fatal(err)
	}
	kept, _ := npyio.View[float64](a.Data)
	if got := readFile(t, filepath.Join(dir, "f.toy")); len(kept) < 400 || len(kept) > 600 || !bytes.Equal(got, toyBytes(kept...)) {
		t.Errorf("sampled f.toy (%d bytes) is not the %d values of f.npy", len(got), len(kept))
	}

	// inspect, by the magic (not the name), and from standard input.
	renamed := filepath.Join(dir, "v.bin")
	os.WriteFile(renamed, readFile(t, toy), 0o644)
	for _, name := range []string{toy, renamed, pipeline.StdinName} {
		ins, err := pipeline.Inspect(ctx, name, &pipeline.ConvertOptions{Stdin: bytes.NewReader(readFile(t, toy))})
		if ti, ok := ins.(*toyformat.Info); err != nil || !ok || ti.Values != 4 || ti.File != name {
			t.Errorf("inspect %s: %#v %v", name, ins, err)
		}
	}

	// A damaged file: one line naming it and what is wrong.
	bad := filepath.Join(dir, "bad.toy")
	os.WriteFile(bad, toyBytes(vals...)[:20], 0o644)
	_, err = pipeline.Convert(ctx, bad, filepath.Join(dir, "bad.npy"), nil)
	if err == nil || !strings.Contains(err.Error(), bad+": not a toy file: its header counts 4 values, but 12 bytes follow it") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a damaged toy file: %v", err)
	}

	// A panic in the reader (a bug) is an InternalError with its stack,
	// and leaves no output.
	out := filepath.Join(dir, "panic.npy")
	_, err = runJob(t, dir, fmt.Sprintf("version: 1\nsources:\n  s: {type: toy, paths: %q, panic: true}\nsinks:\n  o: {type: npy, input: s, path: %q}\n", toy, out), nil)
	var ie *pipeline.InternalError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "internal error") || !bytes.Contains(ie.Stack, []byte("toyformat/toy.go")) {
		t.Errorf("a panic while reading: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a run that panicked left its output")
	}
}

// TestToySharded runs a job reading and writing toy files as two shards:
// the outputs appear at the commit, each the input scaled.
func TestToySharded(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "in"), 0o777)
	for i := range 5 {
		vals := make([]float64, 3+i)
		for j := range vals {
			vals[j] = float64(10*i + j)
		}
		os.WriteFile(filepath.Join(dir, "in", fmt.Sprintf("f%d.toy", i)), toyBytes(vals...), 0o644)
	}
	jb := "version: 1\nsources: {in: {type: toy, paths: \"in/*.toy\", scale: 3}}\nsinks: {o: {type: toy, input: in, path: \"out/{stem}.toy\"}}\n"
	var assigned int
	for i := range 2 {
		sum, err := runJob(t, dir, jb, &pipeline.ShardOptions{Shard: shardrun.Shard{Index: i, Count: 2}})
		if err != nil {
			t.Fatal(err)
		}
		assigned += sum.Shard.Assigned
		if _, err := os.Stat(filepath.Join(dir, "out", "f0.toy")); (err == nil) != (i == 1) {
			t.Errorf("after shard %d: out/f0.toy visible: %v", i, err == nil)
		}
	}
	if assigned != 5 {
		t.Errorf("the shards were assigned %d inputs, not 5", assigned)
	}
	for i := range 5 {
		want := make([]float64, 3+i)
		for j := range want {
			want[j] = 3 * float64(10*i+j)
		}
		if got := readFile(t, filepath.Join(dir, "out", fmt.Sprintf("f%d.toy", i))); !bytes.Equal(got, toyBytes(want...)) {
			t.Errorf("out/f%d.toy = %x, want %x", i, got, toyBytes(want...))
		}
	}
}
