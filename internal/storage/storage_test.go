package storage

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestLocal(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	name := filepath.Join(dir, "b.bin")
	w, err := Create(ctx, name, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("hello world")); err != nil {
		t.Fatal(err)
	}
	if _, err := Stat(ctx, name); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("visible before Commit: %v", err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	w2, _ := Create(ctx, name, CreateOptions{Sync: true})
	w2.Write([]byte("partial"))
	w2.Abort()
	f, err := Open(ctx, "file://"+name)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 5)
	if _, err := f.ReadAt(b, 6); err != nil || string(b) != "world" || f.Size() != 11 {
		t.Fatalf("ReadAt %q %v size %d", b, err, f.Size())
	}
	all, _ := io.ReadAll(f)
	f.Close()
	if string(all) != "hello world" {
		t.Fatalf("read %q after Abort of a second writer", all)
	}
	for _, n := range []string{"a", "c", "d"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	var names []string
	after := ""
	for {
		page, more, err := List(ctx, dir, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			names = append(names, filepath.Base(e.Name))
			after = e.Name
		}
		if !more {
			break
		}
	}
	if got := filepath.Join(names...); got != filepath.Join("a", "b.bin", "c", "d") {
		t.Errorf("pages list %v", names)
	}
	if _, err := Open(ctx, dir); !errors.Is(err, ErrIsDir) {
		t.Errorf("Open of a directory: %v", err)
	}
	if err := Remove(ctx, name); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, "nope://x/y"); err == nil || err.Error() != "open nope://x/y: no storage backend for nope:// in this build" {
		t.Errorf("unknown scheme: %v", err)
	}
	if Scheme("s3://b/k") != "s3" || Scheme("/a/b") != "" || Scheme("C:/x") != "" {
		t.Error("Scheme")
	}
}
