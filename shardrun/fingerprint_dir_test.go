package shardrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFingerprintDirectory: a directory (a Zarr store) is fingerprinted
// by its files' names, sizes and mtimes: the same twice, changed by a
// new file or a rewritten one; an empty one is refused.
func TestFingerprintDirectory(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "s.zarr")
	write := func(name, text string, mtime time.Time) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	write("zarr.json", "{}", t0)
	write("x/c/0/0", "chunk", t0.Add(time.Hour))
	fp, mt, err := Fingerprint(ctx, dir)
	if err != nil || !strings.HasPrefix(fp, "fp1d:") || !mt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("fingerprint %q %v %v", fp, mt, err)
	}
	if again, _, _ := Fingerprint(ctx, dir); again != fp {
		t.Fatalf("fingerprint changed: %s, %s", fp, again)
	}
	write("x/c/1/0", "chunk", t0)
	added, _, _ := Fingerprint(ctx, dir)
	write("x/c/0/0", "chunk2", t0.Add(time.Hour))
	rewritten, _, _ := Fingerprint(ctx, dir)
	if added == fp || rewritten == added {
		t.Fatalf("fingerprints %s, %s, %s", fp, added, rewritten)
	}
	empty := filepath.Join(t.TempDir(), "e.zarr")
	os.Mkdir(empty, 0o755)
	if _, _, err := Fingerprint(ctx, empty); err == nil {
		t.Fatal("an empty directory has a fingerprint")
	}
}
