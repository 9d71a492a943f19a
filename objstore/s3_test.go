package objstore_test

// Integration tests against a real S3-compatible server. They run when
// NPYFLOW_S3_ENDPOINT names a running server (anonymous access, path
// style) or NPYFLOW_WEED names a SeaweedFS binary, which is then started
// on free ports for the tests (make test-s3 does that, with the binary
// built and cached by scripts/seaweedfs.sh). Otherwise they are skipped.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/objstore"
	"github.com/npyflow/npyflow/pipeline"
	"github.com/npyflow/npyflow/pipeline/inspect"
	"github.com/npyflow/npyflow/pipeline/job"
)

const bucket = "npyflow-test"

var (
	s3Endpoint string // http://127.0.0.1:port
	s3Err      error
	weedOnce   sync.Once
	weedCmd    *exec.Cmd
	weedDir    string
	// stopAzurite, once set, stops the Azurite the tests started.
	stopAzurite func()
)

func TestMain(m *testing.M) {
	code := m.Run()
	if stopAzurite != nil {
		stopAzurite()
	}
	if weedCmd != nil {
		weedCmd.Process.Kill()
		weedCmd.Wait()
		os.RemoveAll(weedDir)
	}
	os.Exit(code)
}

// freePort returns a port p with p and p+10000 free (SeaweedFS puts gRPC
// there).
func freePort(t *testing.T) int {
	for i := 0; i < 100; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if p >= 55000 {
			continue
		}
		if l2, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p+10000)); err == nil {
			l2.Close()
			return p
		}
	}
	t.Fatal("no free port pair")
	return 0
}

// s3Root returns the URL of a fresh prefix in the test bucket, starting
// SeaweedFS first if needed, or skips the test.
func s3Root(t *testing.T, prefix string) string {
	t.Helper()
	if os.Getenv("NPYFLOW_S3_ENDPOINT") == "" && os.Getenv("NPYFLOW_WEED") == "" {
		t.Skip("no S3 server: set NPYFLOW_S3_ENDPOINT or NPYFLOW_WEED (make test-s3)")
	}
	weedOnce.Do(func() { s3Endpoint, s3Err = startS3(t) })
	if s3Err != nil {
		t.Fatal(s3Err)
	}
	return rootAt(s3Endpoint, prefix)
}

func rootAt(endpoint, prefix string) string {
	return "s3://" + bucket + "/" + prefix + "?endpoint=" + url.QueryEscape(endpoint) + "&region=us-east-1&disable_https=true"
}

func startS3(t *testing.T) (string, error) {
	// SeaweedFS takes AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY from its
	// environment as its admin identity (anonymous access is on only
	// without them), so requests are signed with these; and the SDK must not
	// look for credentials on the network.
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "npyflow", "AWS_SECRET_ACCESS_KEY": "npyflow-test",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_REGION": "us-east-1"} {
		if os.Getenv(k) == "" {
			os.Setenv(k, v)
		}
	}
	endpoint := os.Getenv("NPYFLOW_S3_ENDPOINT")
	if endpoint == "" {
		dir, err := os.MkdirTemp("", "npyflow-weed-")
		if err != nil {
			return "", err
		}
		ports := make([]int, 4)
		for i := range ports {
			ports[i] = freePort(t)
		}
		cmd := exec.Command(os.Getenv("NPYFLOW_WEED"), "server", "-dir="+dir, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
			fmt.Sprint("-master.port=", ports[0]), fmt.Sprint("-volume.port=", ports[1]),
			"-filer", fmt.Sprint("-filer.port=", ports[2]), "-s3", fmt.Sprint("-s3.port=", ports[3]),
			"-s3.port.iceberg=0", "-s3.port.lance=0", "-master.telemetry=false",
			"-master.volumeSizeLimitMB=1024", "-volume.max=0")
		log, err := os.Create(filepath.Join(dir, "weed.log"))
		if err != nil {
			return "", err
		}
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			return "", err
		}
		weedCmd, weedDir = cmd, dir
		endpoint = fmt.Sprintf("http://127.0.0.1:%d", ports[3])
		t.Logf("weed server -s3 on %s (log %s)", endpoint, log.Name())
	}
	// The server answers at once but takes seconds before a bucket can be
	// created.
	c := s3Client(endpoint)
	deadline := time.Now().Add(90 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)})
		cancel()
		if err == nil || strings.Contains(err.Error(), "BucketAlreadyOwnedByYou") || strings.Contains(err.Error(), "BucketAlreadyExists") {
			return endpoint, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("creating bucket on %s: %w", endpoint, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func s3Client(endpoint string) *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: os.Getenv("AWS_ACCESS_KEY_ID"), SecretAccessKey: os.Getenv("AWS_SECRET_ACCESS_KEY")}, nil
		}),
	})
}

func TestS3Behaviour(t *testing.T) {
	testBehaviour(t, s3Root(t, "behaviour"))
}

// writeNPY writes a float64 (rows, 4) array to a local file.
func writeNPY(t *testing.T, path string, rows int, seed float64) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := npyio.NewWriter(&buf, &npyio.Header{DType: mustDType(t, "<f8"), Shape: []int{rows, 4}})
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]byte, rows*4*8)
	for i := 0; i < rows*4; i++ {
		binary.LittleEndian.PutUint64(vals[8*i:], math.Float64bits(seed+float64(i)*0.5))
	}
	if _, err := w.Write(vals); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func mustDType(t *testing.T, s string) *npyio.DType {
	d, err := npyio.ParseTypeStr(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// testConvert converts local .npy -> root .parquet -> root .npy -> local
// .npy and compares.
func testConvert(t *testing.T, root string) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "in.npy")
	want := writeNPY(t, src, 50000, 1)
	mkdirs(root, "conv")
	pq := join(root, "conv/x.parquet")
	if _, err := pipeline.Convert(ctx, src, pq, nil); err != nil {
		t.Fatal(err)
	}
	npy := join(root, "conv/y.npy")
	if _, err := pipeline.Convert(ctx, pq, npy, nil); err != nil {
		t.Fatal(err)
	}
	back := filepath.Join(dir, "back.npy")
	res, err := pipeline.Convert(ctx, npy, back, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(back)
	if !bytes.Equal(got, want) || res.Rows != 50000 {
		t.Fatalf("round trip through %s: %d bytes (want %d), %d rows", objstore.Redact(root), len(got), len(want), res.Rows)
	}
	info, err := pipeline.Inspect(ctx, pq, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ti, ok := info.(*inspect.TableInfo); !ok || ti.Rows != 50000 || ti.Format != "parquet" {
		t.Errorf("inspect %s: %+v", objstore.Redact(pq), info)
	}
}

// mkdirs makes directories under a local root (a bucket needs none).
func mkdirs(root string, rels ...string) {
	if storage.Scheme(root) == "" {
		for _, r := range rels {
			os.MkdirAll(filepath.Join(root, r), 0o755)
		}
	}
}

func TestLocalConvert(t *testing.T) { testConvert(t, t.TempDir()) }
func TestS3Convert(t *testing.T)    { testConvert(t, s3Root(t, "convert")) }

// testGlobJob runs a job whose source is a pattern with a capture under
// root and whose sink writes under root, and reads the result back.
func testGlobJob(t *testing.T, root string) {
	ctx := context.Background()
	dir := t.TempDir()
	mkdirs(root, "runs/r1", "runs/r2", "runs/r3", "out")
	for _, run := range []string{"r1", "r2", "r3"} {
		for k := 0; k < 2; k++ {
			p := filepath.Join(dir, fmt.Sprintf("%s_%d.npy", run, k))
			writeNPY(t, p, 10+k, float64(k))
			if _, err := pipeline.Convert(ctx, p, join(root, fmt.Sprintf("runs/%s/part%d.npy", run, k)), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	put(t, join(root, "runs/r1/notes.txt"), []byte("not an array"))
	for _, pat := range []string{"runs/{run}/*.npy", "**/part?.npy"} {
		yaml := fmt.Sprintf(`version: 1
sources:
  parts:
    type: npy
    paths: %q
sinks:
  all:
    type: npy
    input: parts
    path: %q
`, join(root, pat), join(root, "out/all.npy"))
		jb, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(yaml), nil)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := pipeline.NewPlan(context.Background(), jb, nil)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := plan.Run(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Files != 6 || sum.Rows != 63 {
			t.Errorf("%s: glob job read %d files, %d rows; want 6, 63", pat, sum.Files, sum.Rows)
		}
		// With a capture the rows are records (run, values); without,
		// the array itself.
		want := "[63 4]"
		if strings.Contains(pat, "{") {
			want = "[63]"
		}
		f, err := storage.Open(ctx, join(root, "out/all.npy"))
		if err != nil {
			t.Fatal(err)
		}
		h, err := npyio.ReadHeader(f, nil)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(h.Shape); got != want {
			t.Errorf("%s: output shape %s, want %s", pat, got, want)
		}
	}
}

func TestLocalGlobJob(t *testing.T) { testGlobJob(t, t.TempDir()) }
func TestS3GlobJob(t *testing.T)    { testGlobJob(t, s3Root(t, "glob")) }

// stopAfter cancels a conversion once some rows were written.
type stopAfter struct {
	cancel context.CancelFunc
	rows   int64
}

func (s *stopAfter) Start(int, int64, int64) {}
func (s *stopAfter) Update(_ int, rows, _ int64) {
	if rows >= s.rows {
		s.cancel()
	}
}
func (s *stopAfter) Done(bool) {}

// An interrupted upload leaves no object and no open multipart upload.
func TestS3InterruptedUpload(t *testing.T) {
	root := s3Root(t, "interrupted")
	dir := t.TempDir()
	src := filepath.Join(dir, "big.npy")
	writeNPY(t, src, 1<<20, 0) // 32 MiB: several parts
	ctx, cancel := context.WithCancel(context.Background())
	out := join(root, "big.npy")
	_, err := pipeline.Convert(ctx, src, out, &pipeline.ConvertOptions{Progress: &stopAfter{cancel: cancel, rows: 600000}})
	if err == nil {
		t.Fatal("interrupted conversion succeeded")
	}
	if _, err := storage.Stat(context.Background(), out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("object after an interrupted upload: %v", err)
	}
	c := s3Client(s3Endpoint)
	var n int
	for i := 0; i < 50; i++ { // the abort runs as the writer winds down
		ups, err := c.ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket), Prefix: aws.String("interrupted/")})
		if err != nil {
			t.Fatal(err)
		}
		if n = len(ups.Uploads); n == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%d multipart uploads left open", n)
}

// dropProxy forwards TCP to target, cutting the server's answer on the
// connections it is told to cut after `after` bytes.
type dropProxy struct {
	l      net.Listener
	target string
	cut    atomic.Int32 // connections still to cut
	cuts   atomic.Int32
	after  int
}

func newDropProxy(t *testing.T, target string, after int) *dropProxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &dropProxy{l: l, target: target, after: after}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	t.Cleanup(func() { l.Close() })
	return p
}

func (p *dropProxy) serve(c net.Conn) {
	defer c.Close()
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer s.Close()
	go io.Copy(s, c)
	if p.cut.Add(-1) >= 0 {
		io.CopyN(c, s, int64(p.after))
		p.cuts.Add(1)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0) // a reset, not a clean close
		}
		return
	}
	io.Copy(c, s)
}

// Reads through a proxy that resets connections mid-answer succeed by
// retrying from the offset reached.
func TestS3RetriedTransientError(t *testing.T) {
	root := s3Root(t, "retry")
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	put(t, join(root, "r.bin"), data)
	u, _ := url.Parse(s3Endpoint)
	px := newDropProxy(t, u.Host, 200<<10)
	via := rootAt("http://"+px.l.Addr().String(), "retry")
	px.cut.Store(2) // the first two connections: the HEAD passes, the GET is cut
	f, err := storage.Open(context.Background(), join(via, "r.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read through resets: %d bytes, %v", len(got), err)
	}
	if px.cuts.Load() < 2 {
		t.Fatalf("the proxy cut %d connections, want 2", px.cuts.Load())
	}
}

func TestS3NoSecretsInErrors(t *testing.T) {
	root := s3Root(t, "secrets")
	name := strings.Replace(join(root, "missing.npy"), "?", "?profile=topsecret&", 1)
	_, err := pipeline.Convert(context.Background(), name, filepath.Join(t.TempDir(), "x.parquet"), nil)
	if err == nil || strings.Contains(err.Error(), "topsecret") {
		t.Fatalf("error: %v", err)
	}
	_ = http.StatusOK
}
