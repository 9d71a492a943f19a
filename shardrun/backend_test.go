package shardrun_test

import (
	"context"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/internal/storage/storagetest"
	"github.com/npyflow/npyflow/shardrun"
	"github.com/npyflow/npyflow/shardrun/shardruntest"
)

// The same behaviour tests on the local filesystem and on an in-memory
// bucket (no rename: staging prefix and copies). The S3 integration
// tests call shardruntest.Run with a real server's URL.

func TestBehaviourLocal(t *testing.T) {
	shardruntest.Run(t, t.TempDir())
}

func TestBehaviourBucket(t *testing.T) {
	mem := storagetest.NewMem("memtest")
	base := "memtest://bucket-behaviour/runs?region=test" // a query, as s3 URLs have, stays at the end
	copies := mem.Copies
	shardruntest.Run(t, base)
	// 14 + 9 + 8 + 40 files published by server-side copy (the racing
	// commits may copy a file more than once, at most four times).
	if n := mem.Copies - copies; n < 71 || n > 31+4*40 {
		t.Errorf("%d server-side copies, want 71 to 191", n)
	}
	for _, k := range mem.Keys("memtest://bucket-behaviour/") {
		if strings.Contains(k, "?") {
			t.Errorf("object name with the URL's query: %s", k)
		}
	}
}

func TestJoin(t *testing.T) {
	cases := []struct{ base, elem, join, dir, base2 string }{
		{"/a/b", "c/d.json", "/a/b/c/d.json", "/a/b/c", "d.json"},
		{"s3://bkt/p", "c/d.json", "s3://bkt/p/c/d.json", "s3://bkt/p/c", "d.json"},
		{"s3://bkt/p/?endpoint=http://h:1&x=y", "d", "s3://bkt/p/d?endpoint=http://h:1&x=y", "s3://bkt/p?endpoint=http://h:1&x=y", "d"},
		{"s3://bkt", "d", "s3://bkt/d", "s3://bkt", "d"},
		// Hive-escaped partition values are key characters: '%' is encoded.
		{"s3://bkt/ds?region=x", "k=B%2Fx/p.parquet", "s3://bkt/ds/k=B%252Fx/p.parquet?region=x", "s3://bkt/ds/k=B%252Fx?region=x", "p.parquet"},
	}
	for _, c := range cases {
		j := shardrun.Join(c.base, c.elem)
		if j != c.join || shardrun.Dir(j) != c.dir || shardrun.Base(j) != c.base2 {
			t.Errorf("Join(%q, %q) = %q (dir %q, base %q), want %q, %q, %q", c.base, c.elem, j, shardrun.Dir(j), shardrun.Base(j), c.join, c.dir, c.base2)
		}
	}
}

// TestFirstVisibleFile: hidden files and directories (a _SUCCESS, a
// staged .part file, the _npyflow state) are skipped, on both backends.
func TestFirstVisibleFile(t *testing.T) {
	storagetest.NewMem("memtest")
	for _, root := range []string{t.TempDir(), "memtest://bkt-visible/ds"} {
		ctx := context.Background()
		put := func(rel string) {
			name := shardrun.Join(root, rel)
			if err := storage.MkdirAll(ctx, shardrun.Dir(name)); err != nil {
				t.Fatal(err)
			}
			if err := storage.WriteFile(ctx, name, []byte(rel)); err != nil {
				t.Fatal(err)
			}
		}
		for _, rel := range []string{"_SUCCESS", ".part-00000-00000.parquet.npyflow-x", "_npyflow/run/shard-00000.json", "a=1/.hidden"} {
			put(rel)
		}
		if f, err := shardrun.FirstVisibleFile(context.Background(), root); f != "" || err != nil {
			t.Errorf("%s: found %q, %v among hidden files", root, f, err)
		}
		put("a=1/part-00000-00001.parquet")
		if f, err := shardrun.FirstVisibleFile(context.Background(), root); f != shardrun.Join(root, "a=1/part-00000-00001.parquet") || err != nil {
			t.Errorf("%s: found %q, %v", root, f, err)
		}
	}
}

// TestNoSecretsInErrors: names in shardrun's messages are redacted.
func TestNoSecretsInErrors(t *testing.T) {
	storagetest.NewMem("memtest")
	state := "memtest://bkt-redact/state?token=s3cr3t"
	_, err1 := shardrun.CommitRun(context.Background(), shardrun.Join(state, "run1"), nil)
	_, err2 := shardrun.FindRun(context.Background(), state, "run1")
	_, err3 := shardrun.FindRun(context.Background(), state, "")
	for _, err := range []error{err1, err2, err3} {
		if err == nil || strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), "bkt-redact/state") {
			t.Errorf("error %v", err)
		}
	}
}
