package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// TestNPYFastPathsMatchRows: the .npy format's fast paths (format.Caps
// NPYRows and NPYFile: an Arrow column copied by the kernel, an .npz
// member whose rows are larger than a batch copied in pieces) write the
// bytes its rows give through its writer, and an .npy keeps its byte
// order either way. convert takes the fast paths; the same job with an
// identity slice between source and sink takes the rows.
func TestNPYFastPathsMatchRows(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	// A big-endian 2-d array, through Arrow (written by npyflow: its
	// column's data is the .npy data, copied back by the kernel).
	be := make([]byte, 10*3*8)
	for i := range 30 {
		binary.BigEndian.PutUint64(be[8*i:], math.Float64bits(float64(i)-7.5))
	}
	writeNPYFile(t, filepath.Join(dir, "be.npy"), ">f8", []int{10, 3}, be)
	if _, err := Convert(ctx, filepath.Join(dir, "be.npy"), filepath.Join(dir, "be.arrow"), nil); err != nil {
		t.Fatal(err)
	}
	// An .npz member whose one row is larger than a batch (copied in
	// pieces).
	big := make([]float64, containerBatchBytes/8+1000)
	for i := range big {
		big[i] = float64(i % 977)
	}
	f, err := os.Create(filepath.Join(dir, "big.npz"))
	if err != nil {
		t.Fatal(err)
	}
	z := npyio.NewNPZWriter(f, false)
	if err := z.WriteArray("wide", &npyio.Array{Header: &npyio.Header{DType: npyio.Float64Type, Shape: []int{1, len(big)}}, DType: npyio.Float64Type, Data: npyio.AsBytes(big)}); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	for _, tc := range []struct{ in, typ, descr string }{
		{"be.arrow", "arrow", "'>f8'"},
		{"be.npy", "npy", "'>f8'"},
		{"big.npz", "npz", "'<f8'"},
	} {
		fast, rows := filepath.Join(dir, tc.typ+"-fast.npy"), filepath.Join(dir, tc.typ+"-rows.npy")
		if _, err := Convert(ctx, filepath.Join(dir, tc.in), fast, nil); err != nil {
			t.Fatal(err)
		}
		runJobText(t, dir, fmt.Sprintf("version: 1\nsources: {s: {type: %s, paths: %q}}\ntransforms: {id: {type: slice, input: s, start: 0}}\nsinks: {o: {type: npy, input: id, path: %q}}\n", tc.typ, tc.in, rows))
		a, b := readFile(t, fast), readFile(t, rows)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the fast path's .npy (%d bytes) differs from the rows' (%d bytes)", tc.in, len(a), len(b))
		}
		if !bytes.Contains(a[:128], []byte("'descr': "+tc.descr)) {
			t.Errorf("%s: the .npy header %q lacks %s", tc.in, a[10:60], tc.descr)
		}
	}
}
