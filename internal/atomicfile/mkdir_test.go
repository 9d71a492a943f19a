package atomicfile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestMkdirAll(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "a"), 0o777); err != nil {
		t.Fatal(err)
	}
	made, err := MkdirAll(filepath.Join(root, "a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "a", "b"), filepath.Join(root, "a", "b", "c")}
	if !slices.Equal(made, want) {
		t.Errorf("made %q, want %q", made, want)
	}
	if fi, err := os.Stat(want[1]); err != nil || !fi.IsDir() {
		t.Errorf("%s: %v", want[1], err)
	}
	made, err = MkdirAll(want[1])
	if err != nil || len(made) != 0 {
		t.Errorf("existing directory: made %q, %v", made, err)
	}
	// A file in the way is an error, and nothing below it is made.
	file := filepath.Join(root, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if made, err = MkdirAll(filepath.Join(file, "x")); err == nil || len(made) != 0 {
		t.Errorf("under a file: made %q, %v", made, err)
	}
}
