package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/parquetio"
)

// MATLAB objects through the command (values from
// matfile/testdata/objects/expected.json: synth_objects_v73.mat's tbl has
// row names {"R1","R2","R3"}, A [1; 2; 3] and B ["apple"; ""; <missing>]).

const matObjectsDir = "../../matfile/testdata/objects"

// TestConvertMATTable: convert --variable tbl writes one Parquet table,
// its row names first, B's <missing> a null (no B_valid column).
func TestConvertMATTable(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t.parquet")
	code, msg := runCLI(t, "convert", filepath.Join(matObjectsDir, "synth_objects_v73.mat"), out, "--variable", "tbl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	r, err := parquetio.NewReaderOptions(bytes.NewReader(b), int64(len(b)), &parquetio.ReadOptions{Validity: []string{"B"}})
	if err != nil {
		t.Fatal(err)
	}
	h := r.Header()
	if got := h.DType.String(); got != "[('Row', '<U2'), ('A', '<f8'), ('B', '<U5'), ('B_valid', '|b1')]" {
		t.Fatalf("dtype %s", got)
	}
	if h.Rows() != 3 {
		t.Fatalf("%d rows, want 3", h.Rows())
	}
	batch, err := r.Next(3)
	if err != nil {
		t.Fatal(err)
	}
	row := func(i int) []byte { return batch.Data[i*h.DType.Size:] }
	u := func(p []byte, n int) string {
		var sb strings.Builder
		for k := 0; k < n; k++ {
			if c := rune(p[4*k]) | rune(p[4*k+1])<<8; c != 0 {
				sb.WriteRune(c)
			}
		}
		return sb.String()
	}
	for i, want := range []struct {
		row   string
		a     float64
		b     string
		valid bool
	}{{"R1", 1, "apple", true}, {"R2", 2, "", true}, {"R3", 3, "", false}} {
		p := row(i)
		if got := u(p[0:8], 2); got != want.row {
			t.Errorf("row %d: Row %q, want %q", i, got, want.row)
		}
		if got := math.Float64frombits(binary.LittleEndian.Uint64(p[8:16])); got != want.a {
			t.Errorf("row %d: A %v, want %v", i, got, want.a)
		}
		if got := u(p[16:36], 5); got != want.b {
			t.Errorf("row %d: B %q, want %q", i, got, want.b)
		}
		if got := p[36] != 0; got != want.valid {
			t.Errorf("row %d: B_valid %v, want %v", i, got, want.valid)
		}
	}
}

// TestInspectMATTable: inspect names the table's size, rows and columns.
func TestInspectMATTable(t *testing.T) {
	code, msg := runCLI(t, "inspect", filepath.Join(matObjectsDir, "synth_objects_v73.mat"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	for _, want := range []string{"tbl              3x2      table", "3 rows, 3 columns:", "Row            cell               '<U2' (row index)", "A              double             '<f8'", "B              string             '<U5'"} {
		if !strings.Contains(msg, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, msg)
		}
	}
}

// TestConvertMATDamagedSubsystem: a copy of synth_objects_v73.mat whose
// subsystem claims an unknown version: the objects are skipped with a
// warning each and x converts (exit 0); --strict fails with one line and
// writes nothing.
func TestConvertMATDamagedSubsystem(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(matObjectsDir, "synth_objects_v73.mat"))
	if err != nil {
		t.Fatal(err)
	}
	// The linking metadata (#subsystem#/MCOS{1}, contiguous at 2960)
	// starts with its version, 4.
	const off = 2960
	if !bytes.Equal(b[off:off+8], []byte{4, 0, 0, 0, 12, 0, 0, 0}) {
		t.Fatalf("synth_objects_v73.mat: no subsystem version 4 at %d", off)
	}
	b[off] = 5
	dir := t.TempDir()
	in := filepath.Join(dir, "damaged.mat")
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "o.npz")
	code, msg := runCLI(t, "convert", in, out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	for _, v := range []string{"c{1}", "s.greet", "s.when", "tbl"} {
		if !strings.Contains(msg, "warning: "+in+": "+v+": skipped") || !strings.Contains(msg, "linking metadata version 5") {
			t.Errorf("no warning skipping %s:\n%s", v, msg)
		}
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("no output: %v", err)
	}

	out = filepath.Join(dir, "strict.npz")
	code, stdout, stderr := run(t, "convert", in, out, "--strict")
	if code != 1 {
		t.Fatalf("--strict: exit %d, want 1: %s%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], in) || !strings.Contains(lines[0], "linking metadata version 5") {
		t.Errorf("--strict: want one line naming the file and the problem, got %q", stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("--strict left an output file")
	}
}
