package matfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// smallBatches makes v7.3 streams use batches of about 30 rows of the
// fixture's "big" (HDF5 shape (200, 300), chunks of 25 rows).
func smallBatches(t *testing.T) {
	old := streamBatchBytes
	streamBatchBytes = 300 * 8 * 30
	t.Cleanup(func() { streamBatchBytes = old })
}

// TestBatchedStream: a v7.3 variable read in many batches, with reads
// that cross batch boundaries, equals hdf5storage's values.
func TestBatchedStream(t *testing.T) {
	smallBatches(t)
	exp := loadExpected(t, "h5s_v73.json")["big"]
	f, err := OpenFile(filepath.Join("testdata", "h5s_v73.mat"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var v *Var
	if err := f.WalkVariables([]string{"big"}, func(_ string, x *Var) error { v = x; return nil }); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 3; round++ {
		rc, err := v.Open()
		if err != nil {
			t.Fatal(err)
		}
		// Odd-sized reads cross batch boundaries.
		var out bytes.Buffer
		buf := make([]byte, 1234)
		for {
			n, err := rc.Read(buf)
			out.Write(buf[:n])
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		rc.Close()
		sum := sha256.Sum256(out.Bytes())
		if hex.EncodeToString(sum[:]) != exp.SHA256 {
			t.Fatalf("round %d: %d bytes, sha256 differs", round, out.Len())
		}
	}
}

// TestBatchedTruncated: truncated files give errors while streaming.
func TestBatchedTruncated(t *testing.T) {
	smallBatches(t)
	b, err := os.ReadFile(filepath.Join("testdata", "h5s_v73.mat"))
	if err != nil {
		t.Fatal(err)
	}
	errs := 0
	for cut := len(b) / 2; cut < len(b); cut += len(b) / 40 {
		f, err := Open(bytes.NewReader(b[:cut]), int64(cut), nil)
		if err != nil {
			errs++
			continue
		}
		err = f.WalkVariables([]string{"big"}, func(_ string, v *Var) error {
			rc, err := v.Open()
			if err != nil {
				return err
			}
			defer rc.Close()
			_, err = io.Copy(io.Discard, rc)
			return err
		})
		if err != nil {
			errs++
		}
	}
	if errs == 0 {
		t.Errorf("no truncation was noticed")
	}
}
