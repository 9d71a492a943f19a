package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/objstore"
	"github.com/npyflow/npyflow/pipeline"
	"github.com/npyflow/npyflow/pipeline/job"
)

// fakeHTTP serves one object with ranges, ETag and If-Match
// (http.ServeContent), cutting the body of the next `drop` responses
// half way.
type fakeHTTP struct {
	mu   sync.Mutex
	data []byte
	etag string
	drop int
	gets int
}

func (h *fakeHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	data, etag := h.data, h.etag
	drop := r.Method == http.MethodGet && h.drop > 0
	if drop {
		h.drop--
	}
	if r.Method == http.MethodGet {
		h.gets++
	}
	h.mu.Unlock()
	if r.URL.Path != "/data/x.bin" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("ETag", etag)
	if drop {
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.WriteHeader(http.StatusOK)
		w.Write(data[:len(data)/3])
		panic(http.ErrAbortHandler) // drops the connection
	}
	http.ServeContent(w, r, "x.bin", time.Time{}, bytes.NewReader(data))
}

func TestHTTP(t *testing.T) {
	data := make([]byte, 1<<20+333)
	rand.New(rand.NewSource(2)).Read(data)
	h := &fakeHTTP{data: data, etag: `"v1"`}
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx := context.Background()
	name := srv.URL + "/data/x.bin?sig=topsecret"

	f, err := storage.Open(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if f.Size() != int64(len(data)) {
		t.Fatalf("size %d", f.Size())
	}
	// Sequential read through connection drops: retried from the offset
	// reached.
	h.mu.Lock()
	h.drop = 2
	h.mu.Unlock()
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read through drops: %d bytes, %v", len(got), err)
	}
	p := make([]byte, 100)
	if _, err := f.ReadAt(p, 500000); err != nil || !bytes.Equal(p, data[500000:500100]) {
		t.Fatalf("ReadAt: %v", err)
	}
	// Replaced: the next range is refused by If-Match.
	h.mu.Lock()
	h.data, h.etag = bytes.Repeat([]byte{1}, len(data)), `"v2"`
	h.mu.Unlock()
	_, err = f.ReadAt(make([]byte, 200<<10), 0)
	if !errors.Is(err, objstore.ErrChanged) {
		t.Fatalf("changed object: %v", err)
	}
	if strings.Contains(err.Error(), "topsecret") {
		t.Errorf("error shows a secret: %v", err)
	}
	f.Close()

	if _, err := storage.Open(ctx, srv.URL+"/nope?sig=topsecret"); !errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "topsecret") {
		t.Errorf("missing: %v", err)
	}
	if _, err := storage.Create(ctx, name, storage.CreateOptions{}); err == nil || strings.Contains(err.Error(), "topsecret") {
		t.Errorf("Create on https: %v", err)
	}
}

// A pattern over http(s):// fails at planning with a message saying why
// (HTTP has no listing) and what works instead; a listed URL is read.
func TestHTTPPatternRefused(t *testing.T) {
	var buf bytes.Buffer
	w, err := npyio.NewWriter(&buf, &npyio.Header{DType: mustDType(t, "<f8"), Shape: []int{3}})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(make([]byte, 24))
	w.Close()
	srv := httptest.NewServer(&fakeHTTP{data: buf.Bytes(), etag: `"v1"`})
	defer srv.Close()
	dir := t.TempDir()
	for _, paths := range []string{srv.URL + "/data/*.npy", srv.URL + "/runs/{run}/x.npy", srv.URL + "/**/x.npy"} {
		text := fmt.Sprintf("version: 1\nsources:\n  s: {type: npy, paths: %q}\nsinks:\n  o: {type: npy, input: s, path: %s/o.npy}\n", paths, dir)
		jb, err := job.Load(dir+"/job.yaml", []byte(text), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = pipeline.NewPlan(context.Background(), jb, nil)
		if err == nil || !strings.Contains(err.Error(), "HTTP has no listing") || !strings.Contains(err.Error(), "name each file") {
			t.Errorf("%s: %v", paths, err)
		}
	}
	text := fmt.Sprintf("version: 1\nsources:\n  s: {type: npy, paths: [%q, %q]}\nsinks:\n  o: {type: npy, input: s, path: %s/o.npy}\n",
		srv.URL+"/data/x.bin", srv.URL+"/data/x.bin?copy=2", dir)
	jb, err := job.Load(dir+"/job.yaml", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := pipeline.NewPlan(context.Background(), jb, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := plan.Run(context.Background(), nil)
	if err != nil || sum.Rows != 6 {
		t.Fatalf("listed URLs: %v rows, %v", sum, err)
	}
}
