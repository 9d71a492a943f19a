//go:build linux

package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/klauspost/compress/flate"
	"github.com/npyflow/npyflow/npyio"
)

// deflateBomb returns a Deflate stream of head followed by n*64 MiB of
// zeros, about 64 KiB per 64 MiB. The zeros are compressed once and the
// byte-aligned (flushed) blocks repeated: each copy only refers back to
// zeros, so the concatenation is one valid stream.
func deflateBomb(t *testing.T, head []byte, n int) []byte {
	t.Helper()
	var out bytes.Buffer
	w, _ := flate.NewWriter(&out, flate.BestCompression)
	w.Write(head)
	w.Flush()
	var blk bytes.Buffer
	w2, _ := flate.NewWriter(&blk, flate.BestCompression)
	w2.Write(make([]byte, 64<<20))
	w2.Flush()
	for i := 0; i < n; i++ {
		out.Write(blk.Bytes())
	}
	w3, _ := flate.NewWriter(&out, flate.BestCompression)
	w3.Close() // the final, empty block
	return out.Bytes()
}

// npyHeader is np.save's header for shape of <f8.
func npyHeader(t *testing.T, shape ...int) []byte {
	t.Helper()
	dt, err := npyio.ParseDescr("'<f8'")
	if err != nil {
		t.Fatal(err)
	}
	h, err := npyio.EncodeHeader(&npyio.Header{DType: dt, Shape: shape})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// rawZip writes one Deflate member with the given declared sizes.
func rawZip(t *testing.T, path string, data []byte, usize uint64) {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "bomb.npy", Method: zip.Deflate, CompressedSize64: uint64(len(data)), UncompressedSize64: usize})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestZipBombs: Deflate members that expand to gigabytes. They are built
// here (2 MiB each) rather than committed.
func TestZipBombs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 2 GiB zip bombs")
	}
	dir := tempDir(t)
	gib2 := 32 // 32 x 64 MiB
	// The header and the stream say 2 GiB; the zip directory says 1 KiB.
	lie := filepath.Join(dir, "bomb_size_lie.npz")
	rawZip(t, lie, deflateBomb(t, npyHeader(t, 1<<28), gib2), 1024)
	// The header says 10 values; the stream holds 2 GiB more: np.load
	// reads the 10 values and so must npyflow, without inflating the rest.
	trailing := filepath.Join(dir, "bomb_trailing.npz")
	rawZip(t, trailing, deflateBomb(t, npyHeader(t, 10), gib2), 2<<30+128)
	for _, st := range []string{lie, trailing} {
		fi, _ := os.Stat(st)
		t.Logf("%s: %d KiB expanding to 2 GiB", filepath.Base(st), fi.Size()>>10)
	}
	cases := []struct {
		in      string
		ok      bool
		problem string
	}{
		{lie, false, `zip|not a valid|size|truncated|too large|checksum`},
		{trailing, true, ""},
	}
	for _, c := range cases {
		for _, m := range modes {
			t.Run(filepath.Base(c.in)+"/"+m.name, func(t *testing.T) {
				out := filepath.Join(tempDir(t), "out")
				os.Mkdir(out, 0o755)
				before := snapshot(t, out)
				dst := filepath.Join(out, "r"+m.ext)
				args := []string{"convert", c.in, dst}
				if m.job {
					args = []string{"run", "--quiet", jobFile(t, tempDir(t), "npz", c.in, m.ext[1:], dst)}
				}
				r := child{args: args, timeout: 10 * time.Second}.run(t)
				t.Logf("%v (CPU %v), peak RSS %d MiB", r.elapsed.Round(time.Millisecond), r.cpu.Round(time.Millisecond), r.maxRSS>>20)
				// CPU time, not wall time (a busy machine stretches the
				// latter): inflating 2 GiB takes seconds of CPU, reading
				// ten values and the directory a fraction of one.
				if r.cpu > 3*time.Second {
					t.Errorf("took %v of CPU: the bomb was inflated", r.cpu)
				}
				if c.ok {
					checkCrashFree(t, r, maxRSS)
					if r.code != 0 {
						t.Fatalf("want success: %s", shorten(r))
					}
					if m.ext == ".npy" {
						a, err := npyio.ReadFile(dst, nil)
						if err != nil {
							t.Fatal(err)
						}
						if fmt.Sprint(a.Header.Shape) != "[10]" || !bytes.Equal(a.CData(), make([]byte, 80)) {
							t.Errorf("got %v %x, want 10 zeros", a.Header.Shape, a.CData())
						}
					}
					return
				}
				checkCleanFailure(t, r, c.in, regexp.MustCompile("(?i)"+c.problem))
				checkUnchanged(t, out, before)
			})
		}
	}
}
