package objstore_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline"
	"github.com/npyflow/npyflow/pipeline/job"
	"github.com/npyflow/npyflow/shardrun"
)

// TestHTTPInputsSharded: inputs named by http(s):// URLs (no listing, so
// each one by name) are planned with their Last-Modified time and
// fingerprints, sharded, read by the shard that owns them and committed;
// an input the server changes after planning fails only its own shard.
func TestHTTPInputsSharded(t *testing.T) {
	ctx := context.Background()
	serve := t.TempDir()
	var urls []string
	srv := httptest.NewServer(http.FileServer(http.Dir(serve)))
	defer srv.Close()
	writeInput := func(i int, scale float64) {
		var buf bytes.Buffer
		n := 10 * (i + 1)
		w, err := npyio.NewWriter(&buf, &npyio.Header{DType: mustDType(t, "<f8"), Shape: []int{n}})
		if err != nil {
			t.Fatal(err)
		}
		row := make([]byte, 8)
		for k := range n {
			binary.LittleEndian.PutUint64(row, math.Float64bits(scale*float64(k)))
			w.Write(row)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(serve, fmt.Sprintf("in%d.npy", i)), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 4 {
		writeInput(i, 1)
		urls = append(urls, fmt.Sprintf("%q", fmt.Sprintf("%s/in%d.npy", srv.URL, i)))
	}
	dir := t.TempDir()
	text := fmt.Sprintf("version: 1\nsources:\n  s: {type: npy, paths: [%s]}\n"+
		"sinks:\n  ds: {type: parquet, input: s, path: %s/ds, dataset: true}\n", strings.Join(urls, ", "), dir)
	jb, err := job.Load(filepath.Join(dir, "job.yaml"), []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := pipeline.NewPlan(context.Background(), jb, nil)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := plan.Freeze(ctx, 2, []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	victim := -1
	for i, in := range fp.Inputs {
		if !strings.HasPrefix(in.Path, srv.URL) || in.ModTime.IsZero() || !strings.HasPrefix(in.Fingerprint, "fp1:") {
			t.Fatalf("planned input %+v", in)
		}
		if in.Shard == 1 {
			victim = i
		}
	}
	run := func(i int) (*pipeline.Summary, error) {
		jb, err := fp.LoadJob(nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := pipeline.NewPlan(context.Background(), jb, &pipeline.PlanOptions{Frozen: fp})
		if err != nil {
			t.Fatal(err)
		}
		return p.Run(ctx, &pipeline.RunOptions{Shard: &pipeline.ShardOptions{Shard: shardrun.Shard{Index: i}, Resume: true}})
	}
	// The server's copy of shard 1's input changes: shard 1 refuses it,
	// shard 0 never looks at it.
	writeInput(victim, 2)
	if _, err := run(0); err != nil {
		t.Fatalf("shard 0: %v", err)
	}
	if _, err := run(1); !errors.Is(err, shardrun.ErrChanged) || !strings.Contains(err.Error(), fmt.Sprintf("shard 1/2: planned input %s/in%d.npy", srv.URL, victim)) {
		t.Fatalf("shard 1 with its input changed: %v", err)
	}
	writeInput(victim, 1)
	lm := fp.Inputs[victim].ModTime
	os.Chtimes(filepath.Join(serve, fmt.Sprintf("in%d.npy", victim)), lm, lm) // as planned again
	sum, err := run(1)
	if err != nil || sum.Shard.Committed == nil || sum.Shard.Committed.Inputs != 4 || sum.Shard.Committed.Rows["ds"] != 100 {
		t.Fatalf("shard 1: %+v, %v", sum, err)
	}
}
