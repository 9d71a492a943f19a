package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/objstore"
)

// join names rel under root, keeping a URL's query at the end.
func join(root, rel string) string {
	base, q, ok := strings.Cut(root, "?")
	s := strings.TrimSuffix(base, "/") + "/" + rel
	if ok {
		s += "?" + q
	}
	return s
}

func put(t *testing.T, name string, data []byte) {
	t.Helper()
	w, err := storage.Create(context.Background(), name, storage.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, name string) []byte {
	t.Helper()
	f, err := storage.Open(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testBehaviour checks the storage contract every backend keeps, under
// root (a local directory or a bucket prefix).
func testBehaviour(t *testing.T, root string) {
	ctx := context.Background()
	name := join(root, "a/b.bin")

	// Invisible until Commit; Abort leaves the name as it was.
	w, err := storage.Create(ctx, name, storage.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("hello world")); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.Stat(ctx, name); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("visible before Commit: %v", err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if st, err := storage.Stat(ctx, name); err != nil || st.Size != 11 || st.IsDir {
		t.Fatalf("Stat after Commit: %+v %v", st, err)
	}
	w2, err := storage.Create(ctx, name, storage.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w2.Write([]byte("partial data"))
	w2.Abort()
	if got := get(t, name); string(got) != "hello world" {
		t.Fatalf("after Abort of a second writer: %q", got)
	}

	// Random and sequential reads.
	f, err := storage.Open(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 5)
	if n, err := f.ReadAt(b, 6); n != 5 || err != nil || string(b) != "world" || f.Size() != 11 {
		t.Fatalf("ReadAt %q %d %v size %d", b, n, err, f.Size())
	}
	if n, err := f.ReadAt(make([]byte, 8), 6); n != 5 || err != io.EOF {
		t.Fatalf("ReadAt past the end: %d %v", n, err)
	}
	if _, err := f.Seek(6, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(f)
	if err != nil || string(rest) != "world" {
		t.Fatalf("Seek+Read %q %v", rest, err)
	}
	f.Close()

	// A large object through several parts, header patched at the start
	// (as the .npy stream writer does), read back sequentially and by
	// ranges.
	big := make([]byte, 3<<20+12345)
	rand.New(rand.NewSource(1)).Read(big)
	copy(big, "HEADER")
	bigName := join(root, "a/big.bin")
	w, err = storage.Create(ctx, bigName, storage.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, 100)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(big[:100]); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Seek(0, io.SeekEnd); err != nil {
		t.Fatal(err)
	}
	for off := 100; off < len(big); off += 300 << 10 {
		if _, err := w.Write(big[off:min(off+300<<10, len(big))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := get(t, bigName); !bytes.Equal(got, big) {
		t.Fatalf("big object read back differs (%d bytes)", len(got))
	}
	f, err = storage.Open(ctx, bigName)
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int64{0, 1 << 20, int64(len(big)) - 70000, int64(len(big)) - 8} {
		for _, n := range []int{8, 1000, 200 << 10} {
			p := make([]byte, n)
			k, err := f.ReadAt(p, off)
			want := big[off:min(off+int64(n), int64(len(big)))]
			if k != len(want) || !bytes.Equal(p[:k], want) || (k < n) != (err == io.EOF) {
				t.Fatalf("ReadAt(%d, %d): %d %v", n, off, k, err)
			}
		}
	}
	f.Close()

	// A Seekable output may seek anywhere.
	sk := join(root, "a/seek.bin")
	w, err = storage.Create(ctx, sk, storage.CreateOptions{Seekable: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(big[:2<<20+7])
	w.Seek(1<<20, io.SeekStart)
	w.Write([]byte("PATCH"))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	want := append([]byte{}, big[:2<<20+7]...)
	copy(want[1<<20:], "PATCH")
	if got := get(t, sk); !bytes.Equal(got, want) {
		t.Fatal("seekable output differs")
	}

	// Listing, page by page, directories included.
	for _, n := range []string{"l/a", "l/c", "l/d", "l/sub/x"} {
		put(t, join(root, n), []byte(n))
	}
	var names []string
	after := ""
	for pages := 0; ; pages++ {
		page, more, err := storage.List(ctx, join(root, "l"), after, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) > 2 || pages > 5 {
			t.Fatalf("page of %d entries, %d pages", len(page), pages)
		}
		for _, e := range page {
			n := e.Name
			if i := strings.IndexByte(n, '?'); i >= 0 {
				n = n[:i]
			}
			base := n[strings.LastIndexByte(n, '/')+1:]
			if e.IsDir {
				base += "/"
			} else if string(get(t, e.Name)) != "l/"+base {
				t.Errorf("listed name %s does not open", objstore.Redact(e.Name))
			}
			names = append(names, base)
			after = e.Name
		}
		if !more {
			break
		}
	}
	if got := strings.Join(names, " "); got != "a c d sub/" {
		t.Errorf("list: %s", got)
	}
	if st, err := storage.Stat(ctx, join(root, "l/sub")); err != nil || !st.IsDir {
		t.Errorf("Stat of a directory: %+v %v", st, err)
	}

	// Missing names and directories.
	if _, err := storage.Open(ctx, join(root, "nope.npy")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing object: %v", err)
	}
	if _, err := storage.Open(ctx, join(root, "l/sub")); !errors.Is(err, storage.ErrIsDir) {
		t.Errorf("Open of a directory: %v", err)
	}

	// An object replaced while it is read: either the old version whole
	// (a local file keeps its inode) or ErrChanged, never a mix.
	f, err = storage.Open(ctx, bigName)
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 1000)
	if _, err := f.ReadAt(head, 0); err != nil {
		t.Fatal(err)
	}
	other := bytes.Repeat([]byte{7}, len(big))
	put(t, bigName, other)
	tail := make([]byte, 1<<20)
	_, err = f.ReadAt(tail, 2<<20)
	f.Close()
	if err == nil && !bytes.Equal(tail, big[2<<20:3<<20]) {
		t.Fatal("read a mix of two versions")
	}
	if err != nil && !errors.Is(err, objstore.ErrChanged) {
		t.Fatalf("replaced object: %v", err)
	}
	if strings.Contains(root, "://") && !errors.Is(err, objstore.ErrChanged) {
		t.Fatalf("replaced object not detected: %v", err)
	}

	if err := storage.Remove(ctx, name); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.Stat(ctx, name); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat after Remove: %v", err)
	}
}

func TestLocalBehaviour(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a"), 0o755)
	os.MkdirAll(filepath.Join(dir, "l", "sub"), 0o755)
	testBehaviour(t, dir)
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"s3://b/k.npy?endpoint=http://u:p@127.0.0.1:8333/x&region=us-east-1": "s3://b/k.npy?endpoint=http%3A%2F%2F127.0.0.1%3A8333&region=us-east-1",
		"https://h/f.npy?X-Amz-Signature=abcdef&X-Amz-Credential=AKIA":       "https://h/f.npy?X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED",
		"https://user:secret@h/f.npy":                                        "https://REDACTED@h/f.npy",
		"/local/path.npy":                                                    "/local/path.npy",
	} {
		if got := objstore.Redact(in); got != want {
			t.Errorf("Redact(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestBucketBehaviour(t *testing.T) { testBehaviour(t, "mem://t/behaviour") }
