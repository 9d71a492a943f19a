package pipeline

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/internal/storage/storagetest"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/job"
)

// job.Job sinks bound for an object store stream their uploads: the tests
// here use a backend (streamtest://) that keeps only the size and the
// SHA-256 of what it receives, so the live heap of a run shows what the
// pipeline itself holds, and the in-memory bucket (memtest://) for what
// readers see. The same job against SeaweedFS, with the real uploads,
// is in objstore's tests (make test-s3).

// streamFS is a write-only storage backend that hashes what it receives.
type streamFS struct {
	mu        sync.Mutex
	objs      map[string]streamObj // committed
	received  int64                // bytes written to any writer
	seekables []string             // names created with Seekable
	aborts    int
}

type streamObj struct {
	size int64
	sum  string
}

var (
	streamOnce sync.Once
	streamBk   = &streamFS{}
)

func newStreamFS() *streamFS {
	streamOnce.Do(func() { storage.Register("streamtest", streamBk) })
	streamBk.mu.Lock()
	defer streamBk.mu.Unlock()
	streamBk.objs, streamBk.received, streamBk.seekables, streamBk.aborts = map[string]streamObj{}, 0, nil, 0
	return streamBk
}

func (s *streamFS) snapshot() (int64, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.received, len(s.objs)
}

type streamWriter struct {
	s    *streamFS
	name string
	h    hash.Hash
	n    int64
	done bool
}

func (w *streamWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, errors.New("write after Commit or Abort")
	}
	w.h.Write(p)
	w.n += int64(len(p))
	w.s.mu.Lock()
	w.s.received += int64(len(p))
	w.s.mu.Unlock()
	return len(p), nil
}

// Seek allows only staying where the writer is: bytes received are gone.
func (w *streamWriter) Seek(off int64, whence int) (int64, error) {
	if whence == io.SeekStart && off == w.n || whence != io.SeekStart && off == 0 {
		return w.n, nil
	}
	return 0, fmt.Errorf("streamtest: seek back in %s", w.name)
}

func (w *streamWriter) Commit() error {
	if w.done {
		return errors.New("Commit after Commit or Abort")
	}
	w.done = true
	w.s.mu.Lock()
	w.s.objs[w.name] = streamObj{size: w.n, sum: fmt.Sprintf("%x", w.h.Sum(nil))}
	w.s.mu.Unlock()
	return nil
}

func (w *streamWriter) Abort() error {
	if !w.done {
		w.s.mu.Lock()
		w.s.aborts++
		w.s.mu.Unlock()
	}
	w.done = true
	return nil
}

func (s *streamFS) Create(_ context.Context, name string, opts storage.CreateOptions) (storage.Writer, error) {
	if opts.Seekable {
		s.mu.Lock()
		s.seekables = append(s.seekables, name)
		s.mu.Unlock()
		return nil, fmt.Errorf("streamtest: %s: a seekable output would be spooled", name)
	}
	return &streamWriter{s: s, name: name, h: sha256.New()}, nil
}

func (s *streamFS) Open(context.Context, string) (storage.File, error) {
	return nil, errors.New("streamtest: write-only")
}

func (s *streamFS) Stat(_ context.Context, name string) (storage.Info, error) {
	return storage.Info{}, &os.PathError{Op: "stat", Path: name, Err: os.ErrNotExist}
}

func (s *streamFS) List(context.Context, string, string, int) ([]storage.Info, bool, error) {
	return nil, false, nil
}

func (s *streamFS) Remove(context.Context, string) error { return nil }

// writeWideNPY writes rows float64 rows of width 8 (64 bytes a row).
func writeWideNPY(t *testing.T, path string, rows int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dt, err := npyio.ParseTypeStr("<f8")
	if err != nil {
		t.Fatal(err)
	}
	w, err := npyio.NewWriter(f, &npyio.Header{DType: dt, Shape: []int{rows, 8}})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	for done := 0; done < rows*64; done += len(buf) {
		for i := 0; i < len(buf); i += 8 {
			v := uint64(done+i) * 0x9E3779B97F4A7C15
			for k := 0; k < 8; k++ {
				buf[i+k] = byte(v >> (8 * k))
			}
			buf[i+7] = 0x3f // finite doubles
		}
		if _, err := w.Write(buf[:min(len(buf), rows*64-done)]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// fdsUnder lists the files open in this process under dir (deleted ones
// included: a spool is unlinked as soon as it is made).
func fdsUnder(dir string) []string {
	ents, _ := os.ReadDir("/proc/self/fd")
	var out []string
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && strings.HasPrefix(l, dir+"/") {
			out = append(out, l)
		}
	}
	return out
}

// sampler is a Progress that samples the live heap, the open files under
// a directory and the bytes a backend received, at every update.
type sampler struct {
	dir       string
	base      uint64
	peak      uint64
	open      []string
	midBytes  int64 // bytes received at an update before the last
	committed int   // objects committed before the run ended
	s         *streamFS
	updates   int
}

func (p *sampler) Start(int, int64, int64) {}
func (p *sampler) Done(bool)               {}
func (p *sampler) Update(_ int, rows, _ int64) {
	p.updates++
	if p.updates%4 != 1 {
		return
	}
	var ms runtime.MemStats
	runtime.GC() // the live heap, not garbage that depends on load
	runtime.ReadMemStats(&ms)
	p.peak = max(p.peak, ms.HeapAlloc)
	p.open = append(p.open, fdsUnder(p.dir)...)
	if p.s != nil {
		got, n := p.s.snapshot()
		p.midBytes = max(p.midBytes, got)
		p.committed = max(p.committed, n)
	}
}

const streamJob = `version: 1
sources:
  x:
    type: npy
    paths: %s
sinks:
  a:
    type: npy
    input: x
    path: %s/a.npy
  b:
    type: parquet
    input: x
    path: %s/b.parquet
    row_group_rows: 65536
  c:
    type: arrow
    input: x
    path: %s/c.arrow
    batch_rows: 65536
`

// TestSinksStreamToBucket: npy, Parquet and Arrow sinks of a job write a
// 64 MiB input (192 MiB of outputs) to an object store while the run
// reads it: no spool file is open in the temporary directory at any time,
// no output is created seekable (which would spool), the backend receives
// bytes before the run ends but no object is complete before the commit,
// the live heap stays bounded, and the objects are byte-identical to the
// files the same job writes locally.
func TestSinksStreamToBucket(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 64 MiB")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	const rows = 1 << 20
	writeWideNPY(t, in, rows)
	jb := streamJob
	local := filepath.Join(dir, "local")
	// The same batches (Arrow record batches follow them).
	lj, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(fmt.Sprintf(jb, in, local, local, local)), nil)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := NewPlan(context.Background(), lj, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lp.Run(context.Background(), &RunOptions{BatchBytes: 1 << 20}); err != nil {
		t.Fatal(err)
	}

	s := newStreamFS()
	j, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(fmt.Sprintf(jb, in, "streamtest://b/out", "streamtest://b/out", "streamtest://b/out")), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(context.Background(), j, nil)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	smp := &sampler{dir: tmp, base: ms.HeapAlloc, s: s}
	if _, err := p.Run(context.Background(), &RunOptions{Progress: smp, BatchBytes: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	if len(s.seekables) > 0 {
		t.Errorf("outputs created seekable (spooled): %v", s.seekables)
	}
	if len(smp.open) > 0 {
		t.Errorf("files open in the temporary directory during the run: %v", smp.open)
	}
	if smp.midBytes < 32<<20 || smp.committed != 0 {
		t.Errorf("during the run the store had received %d bytes and %d complete objects; want >= 32 MiB and none", smp.midBytes, smp.committed)
	}
	if smp.updates < 8 {
		t.Fatalf("only %d progress updates: the samples saw too little", smp.updates)
	}
	held := int64(smp.peak) - int64(smp.base)
	t.Logf("live heap: %d MiB over the start at the peak, %d updates", held>>20, smp.updates)
	if held > 48<<20 {
		t.Errorf("live heap grew by %d MiB writing 192 MiB of outputs; want at most 48 MiB", held>>20)
	}
	for _, name := range []string{"a.npy", "b.parquet", "c.arrow"} {
		want, err := os.ReadFile(filepath.Join(local, name))
		if err != nil {
			t.Fatal(err)
		}
		got := s.objs["streamtest://b/out/"+name]
		if got.size != int64(len(want)) || got.sum != fmt.Sprintf("%x", sha256.Sum256(want)) {
			t.Errorf("%s: the object has %d bytes (sha256 %.12s), the local file %d (%.12x)", name, got.size, got.sum, len(want), sha256.Sum256(want))
		}
	}
}

// TestSinksSpoolWhenSeeking: the outputs that must seek back anywhere are
// created seekable (an object store's backend spools them): .mat and
// .h5 files, and an .npy whose row count the plan does not know (after a
// limit). The in-memory bucket then holds what the local run wrote.
func TestSinksSpoolWhenSeeking(t *testing.T) {
	mem := storagetest.NewMem("memtest")
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	writeWideNPY(t, in, 1000)
	jb := `version: 1
sources:
  x:
    type: npy
    paths: %s
transforms:
  few:
    type: limit
    input: x
    rows: 700
sinks:
  a:
    type: npy
    input: few
    path: %s/a.npy
  m:
    type: mat
    input: x
    path: %s/m.mat
  k:
    type: npy
    input: x
    path: %s/k.npy
`
	local := filepath.Join(dir, "local")
	runJobText(t, dir, fmt.Sprintf(jb, in, local, local, local))
	root := "memtest://bkt-seek/out"
	seek := mem.Seekables
	runJobText(t, dir, fmt.Sprintf(jb, in, root, root, root))
	if got := mem.Seekables - seek; got != 2 {
		t.Errorf("%d outputs created seekable; want 2 (the limited .npy and the .mat)", got)
	}
	for _, name := range []string{"a.npy", "m.mat", "k.npy"} {
		want, err := os.ReadFile(filepath.Join(local, name))
		if err != nil {
			t.Fatal(err)
		}
		got := mem.Bytes(root + "/" + name)
		if strings.HasSuffix(name, ".mat") && len(got) == len(want) && len(got) > matHeaderText {
			// The header's text holds the creation time, which differs
			// when the two runs straddle a second.
			got, want = got[matHeaderText:], want[matHeaderText:]
		}
		if string(got) != string(want) {
			t.Errorf("%s: the object has %d bytes, the local file %d (or they differ)", name, len(got), len(want))
		}
	}
}

// matHeaderText is the length of a MAT-file header's descriptive text
// (it names the creation time).
const matHeaderText = 116

// TestSinksInterruptedUpload: a run cancelled while its sinks stream
// leaves no object, and every upload it started is aborted.
func TestSinksInterruptedUpload(t *testing.T) {
	mem := storagetest.NewMem("memtest")
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	writeWideNPY(t, in, 1<<16)
	jb := `version: 1
sources:
  x:
    type: npy
    paths: %s
sinks:
  a:
    type: npy
    input: x
    path: memtest://bkt-cancel/out/a.npy
  b:
    type: parquet
    input: x
    path: memtest://bkt-cancel/out/b.parquet
`
	j, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(fmt.Sprintf(jb, in)), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(context.Background(), j, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	aborts := mem.Aborts
	_, err = p.Run(ctx, &RunOptions{Progress: cancelAt{cancel}, BatchBytes: 64 << 10})
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	if keys := mem.Keys("memtest://bkt-cancel/"); len(keys) != 0 {
		t.Errorf("objects after a cancelled run: %v", keys)
	}
	if got := mem.Aborts - aborts; got != 2 {
		t.Errorf("%d uploads aborted; want 2", got)
	}
}

// cancelAt cancels a run at its first progress update after some rows.
type cancelAt struct{ cancel context.CancelFunc }

func (c cancelAt) Start(int, int64, int64) {}
func (c cancelAt) Done(bool)               {}
func (c cancelAt) Update(_ int, rows, _ int64) {
	if rows > 1000 {
		c.cancel()
	}
}

// TestSinksFinishedUploadsBounded: a plain run writing one object per
// input keeps at most maxFinishedUploads finished uploads open until its
// commit; older ones are completed early, so memory does not grow with
// the number of outputs.
func TestSinksFinishedUploadsBounded(t *testing.T) {
	dir := t.TempDir()
	const files = maxFinishedUploads + 4
	for i := 0; i < files; i++ {
		writeWideNPY(t, filepath.Join(dir, fmt.Sprintf("in%02d.npy", i)), 100)
	}
	s := newStreamFS()
	jb := fmt.Sprintf("version: 1\nsources:\n  x: {type: npy, paths: '%s/in*.npy'}\nsinks:\n  o: {type: npy, input: x, path: 'streamtest://b/many/{stem}.npy'}\n", dir)
	j, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(jb), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(context.Background(), j, nil)
	if err != nil {
		t.Fatal(err)
	}
	smp := &sampler{dir: t.TempDir(), s: s}
	if _, err := p.Run(context.Background(), &RunOptions{Progress: smp, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if len(s.objs) != files {
		t.Fatalf("%d objects after the run, want %d", len(s.objs), files)
	}
	// The sampler looks at every 4th update (one a file here).
	if smp.committed < 1 || smp.committed > files-maxFinishedUploads {
		t.Errorf("%d objects complete during the run; want 1..%d (the finished ones beyond %d)", smp.committed, files-maxFinishedUploads, maxFinishedUploads)
	}
}
