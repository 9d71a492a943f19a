//go:build unix

package gonumconv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSaveMatrixAtomic: SaveMatrix writes through internal/atomicfile:
// the file gets mode 0644 less the umask, a temporary file of the same
// destination left by a dead process is removed, and nothing else is
// left in the directory.
func TestSaveMatrixAtomic(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	dir := t.TempDir()
	p := filepath.Join(dir, "m.npy")
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	stale := filepath.Join(dir, fmt.Sprintf(".m.npy.npyflow-tmp-%d-00ff", cmd.Process.Pid))
	if err := os.WriteFile(stale, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := base(3, 4)
	if err := SaveMatrix(p, m); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o640 {
		t.Errorf("mode %v, want 0640 (0644 less umask 027)", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d files, want only m.npy (the stale temporary file removed)", len(ents))
	}
	got, err := ReadDense(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := got.Dims(); r != 3 || c != 4 || got.At(2, 3) != m.At(2, 3) {
		t.Errorf("read back %dx%d, At(2,3) %v, want 3x4 and %v", r, c, got.At(2, 3), m.At(2, 3))
	}
}
