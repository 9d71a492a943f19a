package matfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/npyflow/npyflow/npyio"
)

// wFixedTime is the creation time written into test files, so their bytes
// are reproducible.
var wFixedTime = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

// wWriteNPZ converts every member of the npz src to a MAT-file dst of the
// given version. Whole arrays go through WriteArray; with stream set they
// go through CreateVariable in batches of batchRows rows.
func wWriteNPZ(t testing.TB, src, dst, version string, stream bool, batchRows int) {
	t.Helper()
	wWriteNPZMode(t, src, dst, version, stream, false, batchRows)
}

// wWriteNPZMode is wWriteNPZ; with unknown set, streamed variables of at
// least one dimension are created with Shape[0] = -1 (spooled).
func wWriteNPZMode(t testing.TB, src, dst, version string, stream, unknown bool, batchRows int) {
	t.Helper()
	wWriteNPZOpts(t, src, dst, &WriteOptions{Version: version}, stream, unknown, batchRows)
}

// wWriteNPZOpts is wWriteNPZMode with options (Created is set to
// wFixedTime).
func wWriteNPZOpts(t testing.TB, src, dst string, opts *WriteOptions, stream, unknown bool, batchRows int) {
	t.Helper()
	o := *opts
	o.Created = wFixedTime
	version := o.Version
	z, err := npyio.OpenNPZ(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := NewWriter(f, &o)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range z.Members {
		if !stream || version == "7.3" && strings.HasPrefix(m.Key, "wide") {
			a, err := m.ReadArray()
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteArray(m.Key, a); err != nil {
				t.Fatalf("%s: %v", m.Key, err)
			}
			continue
		}
		rd, err := m.Open()
		if err != nil {
			t.Fatal(err)
		}
		h := rd.Header()
		if unknown && len(h.Shape) > 0 && h.RowSize() > 0 {
			hh := *h
			hh.Shape = append([]int{-1}, h.Shape[1:]...)
			h = &hh
		}
		vw, err := w.CreateVariable(m.Key, h)
		if err != nil {
			t.Fatalf("%s: %v", m.Key, err)
		}
		for {
			b, err := rd.Next(batchRows)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := vw.Write(b.Data); err != nil {
				t.Fatalf("%s: %v", m.Key, err)
			}
		}
		if err := vw.Close(); err != nil {
			t.Fatalf("%s: %v", m.Key, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestWriteForChecker writes the files testdata/check_written.py checks:
// it runs only when MATFILE_WRITE_DIR names a directory holding src.npz
// (the script sets it).
func TestWriteForChecker(t *testing.T) {
	dir := os.Getenv("MATFILE_WRITE_DIR")
	if dir == "" {
		t.Skip("MATFILE_WRITE_DIR not set (run testdata/check_written.py)")
	}
	src := filepath.Join(dir, "src.npz")
	for _, v := range wCheckVersions {
		wWriteNPZ(t, src, filepath.Join(dir, "out_v"+v.name+".mat"), v.version, false, 0)
	}
	// The streamed files use tiny chunks, so that v7.3 cuts even these
	// small arrays into bands and chunks with edges.
	defer wTinyChunks()()
	for _, v := range wCheckVersions {
		wWriteNPZ(t, src, filepath.Join(dir, "stream_v"+v.name+".mat"), v.version, true, 2)
	}
}

var wCheckVersions = []struct{ name, version string }{
	{"6", "6"}, {"7", "7"}, {"73", "7.3"},
}

// wTinyChunks makes v7.3 chunk everything over 16 bytes in chunks of at
// most 48 bytes; it returns the function restoring the defaults.
func wTinyChunks() func() {
	c, k := wCompactMax, wChunkTarget
	wCompactMax, wChunkTarget = 16, 48
	return func() { wCompactMax, wChunkTarget = c, k }
}
