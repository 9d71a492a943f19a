package zarr

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
)

// zipOf writes a small v2 array (4 int32 in one chunk) into a zip, each
// entry with the given method, and returns the archive.
func zipOf(t *testing.T, method uint16) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	put := func(name string, b []byte) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	put(".zarray", []byte(`{"zarr_format":2,"shape":[4],"chunks":[4],"dtype":"<i4","compressor":null,"fill_value":0,"order":"C","filters":null}`))
	put("0", []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0})
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// centralEntry returns the offset of the central directory header of
// the entry named name.
func centralEntry(t *testing.T, b []byte, name string) int {
	t.Helper()
	for i := 0; i+46 <= len(b); i++ {
		if binary.LittleEndian.Uint32(b[i:]) == 0x02014b50 {
			n := int(binary.LittleEndian.Uint16(b[i+28:]))
			if i+46+n <= len(b) && string(b[i+46:i+46+n]) == name {
				return i
			}
		}
	}
	t.Fatalf("no central directory entry %s", name)
	return 0
}

func readZipArray(b []byte) ([]byte, error) {
	ctx := context.Background()
	z, err := OpenZip(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, err
	}
	a, err := OpenArray(ctx, z, "")
	if err != nil {
		return nil, err
	}
	out := make([]byte, 16)
	return out, a.Read(ctx, []int64{0}, []int64{4}, out)
}

func TestZipStoreMethods(t *testing.T) {
	for _, m := range []uint16{zip.Store, zip.Deflate} {
		got, err := readZipArray(zipOf(t, m))
		if err != nil {
			t.Fatalf("method %d: %v", m, err)
		}
		if want := []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0}; !bytes.Equal(got, want) {
			t.Fatalf("method %d: read %v", m, got)
		}
	}
}

// TestZipStoreHostile: central directories that lie, damaged entries and
// zips that are not Zarr stores each give an error naming the entry,
// before anything of the claimed size is allocated.
func TestZipStoreHostile(t *testing.T) {
	cases := []struct {
		name   string
		method uint16
		patch  func(t *testing.T, b []byte) []byte
		want   string
	}{
		{"deflate bomb claim", zip.Deflate, func(t *testing.T, b []byte) []byte {
			binary.LittleEndian.PutUint32(b[centralEntry(t, b, "0")+24:], 0xfffffff0)
			return b
		}, "zip entry 0: "},
		{"stored sizes disagree", zip.Store, func(t *testing.T, b []byte) []byte {
			binary.LittleEndian.PutUint32(b[centralEntry(t, b, "0")+24:], 1<<30)
			return b
		}, "zip entry 0: stored, but 1073741824 bytes uncompressed and 16 compressed"},
		{"data past the end", zip.Store, func(t *testing.T, b []byte) []byte {
			c := centralEntry(t, b, "0")
			binary.LittleEndian.PutUint32(b[c+20:], 1<<20)
			binary.LittleEndian.PutUint32(b[c+24:], 1<<20)
			return b
		}, "past the archive's end"},
		{"damaged chunk", zip.Store, func(t *testing.T, b []byte) []byte {
			i := bytes.Index(b, []byte{3, 0, 0, 0, 4, 0, 0, 0})
			b[i] = 9
			return b
		}, "zip entry 0: CRC-32 mismatch"},
		{"damaged deflated chunk", zip.Deflate, func(t *testing.T, b []byte) []byte {
			c := centralEntry(t, b, "0")
			binary.LittleEndian.PutUint32(b[c+16:], binary.LittleEndian.Uint32(b[c+16:])^1)
			return b
		}, "zip entry 0: zip: checksum error"},
		{"unknown method", zip.Store, func(t *testing.T, b []byte) []byte {
			binary.LittleEndian.PutUint16(b[centralEntry(t, b, "0")+10:], 99)
			return b
		}, "compression method 99 is not supported"},
		{"not a zarr store", zip.Store, func(t *testing.T, b []byte) []byte {
			c := centralEntry(t, b, ".zarray")
			copy(b[c+46:], "xzarray")
			return b
		}, "without Zarr metadata"},
		{"truncated", zip.Store, func(t *testing.T, b []byte) []byte { return b[:len(b)-30] }, "not a readable zip archive"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.patch(t, zipOf(t, c.method))
			_, err := readZipArray(b)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if c.name == "not a zarr store" && !errors.Is(err, ErrNotZarrZip) {
				t.Fatalf("error %v is not ErrNotZarrZip", err)
			}
		})
	}
}

// TestZipStoreConcurrentReads reads zarr-python's ZipStore fixture from
// several goroutines at once (run under -race by make test).
func TestZipStoreConcurrentReads(t *testing.T) {
	b, err := os.ReadFile("testdata/v2.zip")
	if err != nil {
		t.Fatal(err)
	}
	z, err := OpenZip(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, err := OpenArray(ctx, z, "image")
	if err != nil {
		t.Fatal(err)
	}
	want := readAll(t, a)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := make([]byte, len(want))
			if err := a.Read(ctx, []int64{0, 0, 0}, a.Shape, got); err != nil {
				errs <- err
			} else if !bytes.Equal(got, want) {
				errs <- errors.New("a concurrent read differs")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
