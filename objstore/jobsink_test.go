package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/objstore"
	"github.com/npyflow/npyflow/pipeline"
	"github.com/npyflow/npyflow/pipeline/job"
)

// Job sinks stream to the bucket through multipart uploads: the job of
// testJobSink writes an .npy and a Parquet file from a local .npy into
// root while the test samples, at progress updates, the files open in
// the temporary directory (a spool, even unlinked, shows in
// /proc/self/fd), whether the outputs exist yet, the store's open
// multipart uploads (S3) and the live heap.

const sinkJob = `version: 1
sources:
  x:
    type: npy
    paths: %s
sinks:
  a:
    type: npy
    input: x
    path: %s
  b:
    type: parquet
    input: x
    path: %s
    row_group_rows: 65536
`

type sinkProbe struct {
	tmp       string
	outs      []string
	uploads   func() int // open multipart uploads, or nil
	updates   int
	every     int // sample at every every-th update
	base      uint64
	peak      uint64
	open      []string
	visible   []string
	maxUpload int
}

func (p *sinkProbe) Start(int, int64, int64) {}
func (p *sinkProbe) Done(bool)               {}
func (p *sinkProbe) Update(_ int, rows, _ int64) {
	p.updates++
	if p.updates%p.every != 0 {
		return
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	p.peak = max(p.peak, ms.HeapAlloc)
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && strings.HasPrefix(l, p.tmp+"/") {
			p.open = append(p.open, l)
		}
	}
	for _, o := range p.outs {
		if _, err := storage.Stat(context.Background(), o); err == nil {
			p.visible = append(p.visible, o)
		}
	}
	if p.uploads != nil {
		p.maxUpload = max(p.maxUpload, p.uploads())
	}
}

func runSinkJob(t *testing.T, ctx context.Context, dir, in, a, b string, opts *pipeline.RunOptions) (*pipeline.Summary, error) {
	t.Helper()
	jb, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(fmt.Sprintf(sinkJob, in, a, b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := pipeline.NewPlan(context.Background(), jb, nil)
	if err != nil {
		t.Fatal(err)
	}
	return plan.Run(ctx, opts)
}

// testJobSink runs the job with rows (rows, 4) float64 rows; heapMax,
// if positive, bounds the growth of the live heap during the run.
func testJobSink(t *testing.T, root string, rows int, heapMax uint64, uploads func() int) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	writeNPY(t, in, rows, 3)
	local := t.TempDir()
	if _, err := runSinkJob(t, context.Background(), dir, in, filepath.Join(local, "a.npy"), filepath.Join(local, "b.parquet"), &pipeline.RunOptions{BatchBytes: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	outs := []string{join(root, "jobsink/a.npy"), join(root, "jobsink/b.parquet")}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	p := &sinkProbe{tmp: tmp, outs: outs, uploads: uploads, base: ms.HeapAlloc, every: max(1, rows*32>>20/32)}
	if _, err := runSinkJob(t, context.Background(), dir, in, outs[0], outs[1], &pipeline.RunOptions{BatchBytes: 1 << 20, Progress: p}); err != nil {
		t.Fatal(err)
	}
	if p.updates < min(16, rows*32>>21) { // batches of 64Ki rows: 2 MiB
		t.Fatalf("%d progress updates: too few samples", p.updates)
	}
	if len(p.open) > 0 {
		t.Errorf("files open in the temporary directory during the run (spools): %v", p.open)
	}
	if len(p.visible) > 0 {
		t.Errorf("outputs visible before the run committed: %v", p.visible)
	}
	// The .npy (as large as the input) streams through a multipart
	// upload; the Parquet file of these regular values compresses to
	// less than a part and goes up in one PUT at the commit.
	if uploads != nil && p.maxUpload < 1 {
		t.Errorf("no multipart upload open during the run; want the .npy's")
	}
	grew := int64(p.peak) - int64(p.base)
	t.Logf("%d MiB of input: live heap grew by at most %d MiB; %d multipart uploads seen open", rows*32>>20, grew>>20, p.maxUpload)
	if heapMax > 0 && grew > int64(heapMax) {
		t.Errorf("live heap grew by %d MiB during the run; want at most %d MiB", grew>>20, heapMax>>20)
	}
	for i, name := range []string{"a.npy", "b.parquet"} {
		want, err := os.ReadFile(filepath.Join(local, name))
		if err != nil {
			t.Fatal(err)
		}
		got := get(t, outs[i])
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the object has %d bytes, the local file %d (or they differ)", name, len(got), len(want))
		}
	}
}

// testJobSinkInterrupted cancels the job while it streams: no object is
// left, and (S3) no multipart upload stays open.
func testJobSinkInterrupted(t *testing.T, root string, rows int, uploads func() int) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	writeNPY(t, in, rows, 3)
	outs := []string{join(root, "jobsink-cancel/a.npy"), join(root, "jobsink-cancel/b.parquet")}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := &pipeline.RunOptions{BatchBytes: 1 << 20, Progress: &cancelAfter{cancel: cancel, rows: int64(rows) * 3 / 4}}
	if _, err := runSinkJob(t, ctx, dir, in, outs[0], outs[1], opts); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	for _, o := range outs {
		if _, err := storage.Stat(context.Background(), o); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s after a cancelled run: %v", objstore.Redact(o), err)
		}
	}
	if uploads == nil {
		return
	}
	n := 0
	for i := 0; i < 50; i++ { // the aborts run as the writers wind down
		if n = uploads(); n == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("%d multipart uploads left open after a cancelled run", n)
}

type cancelAfter struct {
	cancel context.CancelFunc
	rows   int64
}

func (c *cancelAfter) Start(int, int64, int64) {}
func (c *cancelAfter) Done(bool)               {}
func (c *cancelAfter) Update(_ int, rows, _ int64) {
	if rows >= c.rows {
		c.cancel()
	}
}

func TestLocalJobSink(t *testing.T)  { testJobSink(t, t.TempDir(), 1<<17, 0, nil) }
func TestBucketJobSink(t *testing.T) { testJobSink(t, "mem://t/jobsink", 1<<17, 0, nil) }
func TestBucketJobSinkInterrupted(t *testing.T) {
	testJobSinkInterrupted(t, "mem://t/jobsink", 1<<17, nil)
}

// S3: 128 MiB of input, 256 MiB of outputs; each upload holds at most
// about 41 MiB (8 MiB parts, 4 in flight, 1 MiB held).
func TestS3JobSink(t *testing.T) {
	root := s3Root(t, "jobsink")
	testJobSink(t, root, 1<<22, 128<<20, s3Uploads("jobsink/"))
}

func TestS3JobSinkInterrupted(t *testing.T) {
	root := s3Root(t, "jobsink")
	testJobSinkInterrupted(t, root, 1<<20, s3Uploads("jobsink/jobsink-cancel/"))
}

// s3Uploads counts the open multipart uploads under prefix.
func s3Uploads(prefix string) func() int {
	return func() int {
		ups, err := s3Client(s3Endpoint).ListMultipartUploads(context.Background(),
			&s3.ListMultipartUploadsInput{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
		if err != nil {
			return -1
		}
		return len(ups.Uploads)
	}
}
