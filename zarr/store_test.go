package zarr

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/storage/storagetest"
)

// TestReadZarrPythonZip reads what zarr-python 2's ZipStore wrote:
// entries stored (its default) and deflated (compression=ZIP_DEFLATED).
func TestReadZarrPythonZip(t *testing.T) {
	ctx := context.Background()
	exp := loadExpect(t, "testdata/v2_expect.json")
	for _, c := range []struct{ file, prefix, arrays string }{
		{"testdata/v2.zip", "zip:", "[g/x image]"},
		{"testdata/v2_deflate.zip", "zipdeflate:", "[f8 u2]"},
	} {
		f, err := os.Open(c.file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st, _ := f.Stat()
		z, err := OpenZip(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		g, err := OpenGroup(ctx, z, "")
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(g.Arrays) != c.arrays {
			t.Fatalf("%s: arrays %v", c.file, g.Arrays)
		}
		for _, name := range g.Arrays {
			e := exp[c.prefix+name]
			a, err := g.OpenArray(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			buf := readAll(t, a)
			for i, v := range e.Values {
				if got := elemText(a.DType, buf, i); got != wantText(v) {
					t.Fatalf("%s %s[%d] = %s, want %s", c.file, name, i, got, wantText(v))
				}
			}
			if len(e.Values) != int(a.NumElements()) || len(e.Values) == 0 {
				t.Fatalf("%s %s: %d values for %d elements", c.file, name, len(e.Values), a.NumElements())
			}
		}
	}
}

// writeImage writes the reference image (small) to s as v3 with
// sharding and as v2, in a consolidated group.
func writeImage(t *testing.T, s Store, format int) []byte {
	t.Helper()
	ctx := context.Background()
	img := refImage(30, 20)
	g := CreateGroup(s, "", format, true, nil)
	o := CreateOptions{Shape: []int64{30, 20, 3}, Chunks: []int64{10, 10, 1}, DType: DType{Descr: "|u1"}, Compression: "blosc"}
	if format == 3 {
		o.Shards = []int64{20, 20, 3}
	}
	w, err := g.CreateArray(ctx, "img", o)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRows(ctx, img); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return img
}

func TestZipStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, format := range []int{2, 3} {
		var buf bytes.Buffer
		zw := NewZipWriter(&buf)
		img := writeImage(t, zw, format)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		z, err := OpenZip(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		a, err := OpenArray(ctx, z, "img")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(readAll(t, a), img) {
			t.Fatalf("v%d: zip round trip differs", format)
		}
	}
}

// TestBucketStore writes and reads through the storage layer's bucket
// backends (what objstore registers for s3:// and friends), here its
// in-memory bucket.
func TestBucketStore(t *testing.T) {
	ctx := context.Background()
	mem := storagetest.NewMem("zarrtest")
	defer mem.Reset()
	for _, format := range []int{2, 3} {
		root := fmt.Sprintf("zarrtest://bucket/v%d/out.zarr", format)
		s := NewFSStore(root)
		img := writeImage(t, s, format)
		s2 := NewFSStore(root)
		g, err := OpenGroup(ctx, s2, "")
		if err != nil {
			t.Fatal(err)
		}
		if !g.Consolidated || len(g.Arrays) != 1 {
			t.Fatalf("v%d: group %+v", format, g)
		}
		a, err := g.OpenArray(ctx, "img")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(readAll(t, a), img) {
			t.Fatalf("v%d: bucket round trip differs", format)
		}
		keys, err := s2.List(ctx, "img/")
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) < 2 || !strings.HasPrefix(keys[0], "img/") {
			t.Fatalf("v%d: listed %v", format, keys)
		}
		s2.Close()
	}
}
