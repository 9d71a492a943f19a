package pipeline

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/job"
)

// oneThread runs the rest of the test with GOMAXPROCS 1, where Run reads
// every part in the driving goroutine (no reading goroutines).
func oneThread(t *testing.T) {
	prev := runtime.GOMAXPROCS(1)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
}

// TestOneThreadSameOutput runs a job with several inputs, a filter and
// small batches with GOMAXPROCS 1 and 2: the outputs must be
// byte-identical, and with one thread each row size has one batch
// buffer, reused (the batches are read inline, not handed over).
func TestOneThreadSameOutput(t *testing.T) {
	outputs := func(out string) map[string][]byte {
		got := map[string][]byte{}
		for _, f := range listFiles(t, out) {
			got[f], _ = os.ReadFile(filepath.Join(out, f))
		}
		return got
	}
	two, _, err := runJob(t, "../examples/filter.yaml", &RunOptions{Workers: 2, BatchBytes: 300}, "sources.readings.exclude=nothing.npy")
	if err != nil {
		t.Fatal(err)
	}
	want := outputs(two)
	oneThread(t)
	before := batchBufs.Load()
	one, sum, err := runJob(t, "../examples/filter.yaml", &RunOptions{BatchBytes: 300}, "sources.readings.exclude=nothing.npy")
	if err != nil {
		t.Fatal(err)
	}
	got := outputs(one)
	if len(got) != 7 || len(got) != len(want) {
		t.Fatalf("%d files with one thread, %d with two", len(got), len(want))
	}
	for k, v := range want {
		if !bytes.Equal(v, got[k]) {
			t.Errorf("%s differs between one thread and two", k)
		}
	}
	if sum.Files < 2 {
		t.Fatalf("%d parts read", sum.Files)
	}
	// One buffer per row size read, not one per batch in flight.
	if made := batchBufs.Load() - before; made > 2 && !raceEnabled {
		t.Errorf("%d batch buffers made for %d parts read inline", made, sum.Files)
	}
}

// TestOneThreadInterrupt cancels runs read inline at different points:
// no output or temporary file may remain, and the error says why.
func TestOneThreadInterrupt(t *testing.T) {
	oneThread(t)
	for _, n := range []int{1, 5, 20} {
		out := filepath.Join(t.TempDir(), "out")
		jb, err := job.LoadFile("../examples/filter.yaml", &job.LoadOptions{LookupEnv: env(map[string]string{"OUT": out})})
		if err != nil {
			t.Fatal(err)
		}
		plan, err := NewPlan(context.Background(), jb, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		_, err = plan.Run(ctx, &RunOptions{BatchBytes: 200, Progress: &cancelAfter{n: n, cancel: cancel}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("after %d updates: err = %v", n, err)
		}
		if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("after %d updates: %s left behind: %v", n, out, listFiles(t, out))
		}
	}
}

// TestOnePartInline runs a job of one input in small batches on every
// thread: the part is read inline, into one batch buffer reused, and the
// output holds the input's rows.
func TestOnePartInline(t *testing.T) {
	dir := t.TempDir()
	in, _ := filepath.Abs("../testdata/demo/stations/north/readings_1.npy")
	out := filepath.Join(dir, "out.npy")
	jb, err := job.Load(filepath.Join(dir, "job.yaml"), []byte("version: 1\nsources:\n  r: {type: npy, paths: \""+in+"\"}\ntransforms:\n  f: {type: filter, input: r, where: \"sensor >= 0 or sensor < 0\"}\nsinks:\n  o: {type: npy, input: f, path: \""+out+"\"}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(context.Background(), jb, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := batchBufs.Load()
	sum, err := plan.Run(context.Background(), &RunOptions{Workers: 4, BatchBytes: 64})
	if err != nil {
		t.Fatal(err)
	}
	if made := batchBufs.Load() - before; made != 1 && !raceEnabled {
		t.Errorf("%d batch buffers made for one part", made)
	}
	data := func(path string) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := npyio.NewReader(bytes.NewReader(b), nil)
		if err != nil {
			t.Fatal(err)
		}
		// The rows in native order, as the engine reads them.
		rows := make([]byte, r.Header().DataSize())
		for n := 0; n < len(rows); {
			k, err := r.ReadRows(rows[n:])
			if err != nil {
				t.Fatal(err)
			}
			n += k * int(r.Header().DataSize()/r.Header().Count())
		}
		return rows
	}
	want, got := data(in), data(out)
	if sum.Files != 1 || sum.Rows < 2 || !bytes.Equal(got, want) {
		t.Errorf("%d parts, %d rows; output data %d bytes, input %d, equal %v", sum.Files, sum.Rows, len(got), len(want), bytes.Equal(got, want))
	}
}
