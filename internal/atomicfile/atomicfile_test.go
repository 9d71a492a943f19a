//go:build unix

package atomicfile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// deadPID returns the PID of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	pid := cmd.Process.Pid
	if processAlive(pid) {
		t.Skipf("pid %d was reused at once", pid)
	}
	return pid
}

func list(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestCommit commits with and without the fsync: the destination is
// the old file until Commit, then the new one, and nothing else is left.
func TestCommit(t *testing.T) {
	for _, noSync := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoSync=%v", noSync), func(t *testing.T) { testCommit(t, noSync) })
	}
}

func testCommit(t *testing.T, noSync bool) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "out.npy")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.NoSync = noSync
	name := filepath.Base(f.Name())
	prefix := ".out.npy.npyflow-tmp-" + strconv.Itoa(os.Getpid()) + "-"
	if !strings.HasPrefix(name, prefix) {
		t.Fatalf("temporary name %q, want %s...", name, prefix)
	}
	if _, err := f.Write([]byte("new data")); err != nil {
		t.Fatal(err)
	}
	// Until Commit the destination is the old file.
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("before Commit: %q", b)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := f.Abort(); err != nil {
		t.Fatalf("Abort after Commit: %v", err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "new data" {
		t.Fatalf("after Commit: %q, %v", b, err)
	}
	st, _ := os.Stat(path)
	if got, want := st.Mode().Perm(), Mode&^0o027; got != want {
		t.Errorf("mode %v, want %v (0644 less umask 027)", got, want)
	}
	if names := list(t, dir); !slices.Equal(names, []string{"out.npy"}) {
		t.Errorf("directory holds %v", names)
	}
}

func TestAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.npy")
	os.WriteFile(path, []byte("old"), 0o644)
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("partial")
	if err := f.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatalf("Commit after Abort: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("destination %q, want the old file", b)
	}
	if names := list(t, dir); !slices.Equal(names, []string{"out.npy"}) {
		t.Errorf("directory holds %v", names)
	}
}

// TestCommitFails: a rename that cannot happen (the destination is a
// directory) is an error and leaves no temporary file.
func TestCommitFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(path, "keep"), nil, 0o644)
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("x")
	if err := f.Commit(); err == nil {
		t.Fatal("no error renaming over a directory")
	}
	if names := list(t, dir); !slices.Equal(names, []string{"out"}) {
		t.Errorf("directory holds %v", names)
	}
}

// TestCleanStale: Create removes the temporary files of the same
// destination whose process is gone, and nothing else.
func TestCleanStale(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.npy")
	dead := strconv.Itoa(deadPID(t))
	live := strconv.Itoa(os.Getppid())
	stale := []string{
		".out.npy.npyflow-tmp-" + dead + "-0a1b2c",
		".out.npy.npyflow-tmp-" + dead + "-ffffffffffff",
	}
	keep := []string{
		".out.npy.npyflow-tmp-" + live + "-0a1b2c",                  // a live process
		".out.npy.npyflow-tmp-" + strconv.Itoa(os.Getpid()) + "-ab", // this one
		".other.npy.npyflow-tmp-" + dead + "-0a1b2c",                // another destination
		".out.npy.tmp-123456",                                       // not ours
		".out.npy.npyflow-tmp-x" + dead + "-0a1b2c",                 // malformed PID
		".out.npy.npyflow-tmp-" + dead + "-zz",                      // malformed suffix
		".out.npy.npyflow-tmp-0" + dead + "-0a",                     // PID not canonical
		"out.npy.npyflow-tmp-" + dead + "-0a1b2c",                   // not hidden
	}
	for _, n := range append(slices.Clone(stale), keep...) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(keep), "out.npy")
	slices.Sort(want)
	if got := list(t, dir); !slices.Equal(got, want) {
		t.Errorf("after Create: %v\nwant %v", got, want)
	}
	// CleanStale itself reports what it removed.
	os.WriteFile(filepath.Join(dir, stale[0]), nil, 0o644)
	removed, err := CleanStale(path)
	if err != nil || len(removed) != 1 || filepath.Base(removed[0]) != stale[0] {
		t.Errorf("CleanStale: %v, %v; want [%s]", removed, err, stale[0])
	}
}

// TestRelativePath: a bare file name works in the current directory.
func TestRelativePath(t *testing.T) {
	t.Chdir(t.TempDir())
	f, err := Create("out.bin")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("abc")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile("out.bin"); err != nil || string(b) != "abc" {
		t.Fatalf("%q, %v", b, err)
	}
}
