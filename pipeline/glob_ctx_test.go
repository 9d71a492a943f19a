package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestGlobCancelled: a walk of a local tree stops at the next directory
// once ctx is cancelled (Ctrl-C while a pattern over a large tree is
// expanded), with an error wrapping context.Canceled, and the same
// pattern matches every file under a live context.
func TestGlobCancelled(t *testing.T) {
	dir := t.TempDir()
	for _, sub := range []string{"a", "b", "c"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sub, "x.npy"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pt, _, err := compilePattern(filepath.ToSlash(dir)+"/**/*.npy", false)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := pt.glob(t.Context())
	if err != nil || len(ms) != 3 {
		t.Fatalf("glob: %d matches, %v; want 3", len(ms), err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if ms, err := pt.glob(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("glob under a cancelled context: %d matches, %v", len(ms), err)
	}
}
