package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
)

// TestConvertArrowCopyCLI: `npyflow convert x.arrow x.npy` of a
// one-column uncompressed file (copied as stored, see pipeline's
// TestConvertArrowCopiedAsStored) writes numpy's .npy byte for byte, with
// and without --sync, and leaves nothing beside it.
func TestConvertArrowCopyCLI(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"f8_le_1d", "i4_le_1d", "f8_le_specials"} {
		fx := fixtures.NPYByName(t, name)
		want, err := os.ReadFile(fx.Path)
		if err != nil {
			t.Fatal(err)
		}
		ipc := filepath.Join(dir, name+".arrow")
		if code, msg := runCLI(t, "convert", "--progress=never", "--compression=none", fx.Path, ipc); code != 0 {
			t.Fatalf("%s to arrow: %d %s", name, code, msg)
		}
		for _, sync := range []string{"--sync=false", "--sync"} {
			out := filepath.Join(dir, name+".npy")
			if code, msg := runCLI(t, "convert", "--progress=never", sync, ipc, out); code != 0 {
				t.Fatalf("%s %s to npy: %d %s", name, sync, code, msg)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s %s: the .npy (%d bytes) is not numpy's file (%d bytes)", name, sync, len(got), len(want))
			}
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name()[0] == '.' {
			t.Errorf("left beside the outputs: %s", e.Name())
		}
	}
}
