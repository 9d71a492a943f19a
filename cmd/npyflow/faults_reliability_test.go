//go:build linux

package main

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
)

// writeF64 writes an (n,) <f8 array of 0, 1, 2, ... and returns its path.
func writeF64(t *testing.T, dir, name string, n int) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dt, _ := npyio.ParseDescr("'<f8'")
	w, err := npyio.NewWriter(f, &npyio.Header{DType: dt, Shape: []int{n}})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8<<16)
	for i := 0; i < n; {
		k := min(n-i, 1<<16)
		for j := 0; j < k; j++ {
			binary.NativeEndian.PutUint64(buf[8*j:], uint64(i+j))
		}
		if _, err := w.Write(buf[:8*k]); err != nil {
			t.Fatal(err)
		}
		i += k
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkF64Output checks that path (npy or parquet) holds exactly the
// (n,) array of writeF64.
func checkF64Output(t *testing.T, path string, n int) {
	t.Helper()
	var data []byte
	switch filepath.Ext(path) {
	case ".npy":
		a, err := npyio.ReadFile(path, nil)
		if err != nil {
			t.Fatalf("output %s: %v", path, err)
		}
		data = a.CData()
	case ".parquet":
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st, _ := f.Stat()
		r, err := parquetio.NewReader(f, st.Size())
		if err != nil {
			t.Fatalf("output %s: %v", path, err)
		}
		for {
			b, err := r.Next(1 << 16)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("output %s: %v", path, err)
			}
			data = append(data, b.Data...)
		}
	}
	if len(data) != 8*n {
		t.Fatalf("output %s: %d bytes, want %d", path, len(data), 8*n)
	}
	for i := 0; i < n; i++ {
		if v := binary.NativeEndian.Uint64(data[8*i:]); v != uint64(i) {
			t.Fatalf("output %s: value %d is %d", path, i, v)
		}
	}
}

// faultModes are the writers a fault can hit: convert to every format and
// jobs with npy and parquet sinks.
var faultModes = []struct {
	name string
	ext  string
	job  bool
}{
	{"convert-npy", ".npy", false},
	{"convert-npz", ".npz", false},
	{"convert-parquet", ".parquet", false},
	{"convert-arrow", ".arrow", false},
	{"run-npy", ".npy", true},
	{"run-parquet", ".parquet", true},
}

func faultArgs(t *testing.T, in, out, ext string, job bool) []string {
	if job {
		return []string{"run", "--quiet", jobFile(t, tempDir(t), "npy", in, ext[1:], out)}
	}
	args := []string{"convert", in, out}
	if ext == ".parquet" {
		args = append(args, "--compression", "none") // big enough to hit the limit
	}
	return args
}

// checkWriteFailure: exit 1, one line stating problem, no crash, and the
// output directory as it was.
func checkWriteFailure(t *testing.T, r *result, problem string, outDir string, before dirState) {
	t.Helper()
	checkCrashFree(t, r, maxRSS)
	msg := strings.TrimRight(r.stderr, "\n")
	if r.code != exitFailure || msg == "" || strings.Contains(msg, "\n") {
		t.Fatalf("want exit 1 and one stderr line: %s", shorten(r))
	}
	if !regexp.MustCompile("(?i)" + problem).MatchString(msg) {
		t.Errorf("error %q does not say /%s/", msg, problem)
	}
	checkUnchanged(t, outDir, before)
}

// TestDiskFull: writes fail with EFBIG (RLIMIT_FSIZE in the child) and, if
// this process may mount one, ENOSPC on a small tmpfs. Nothing may be left
// in the output directory, and an earlier output must survive.
func TestDiskFull(t *testing.T) {
	in := writeF64(t, tempDir(t), "data.npy", 1<<19) // 4 MiB
	t.Run("fsize", func(t *testing.T) {
		for _, m := range faultModes {
			t.Run(m.name, func(t *testing.T) {
				t.Parallel()
				out := filepath.Join(tempDir(t), "out")
				os.Mkdir(out, 0o755)
				dst := filepath.Join(out, "result"+m.ext)
				os.WriteFile(dst, []byte("previous output\n"), 0o644)
				before := snapshot(t, out)
				r := child{args: faultArgs(t, in, dst, m.ext, m.job), fsize: 256 << 10}.run(t)
				checkWriteFailure(t, r, `file too large`, out, before)
			})
		}
	})
	t.Run("tmpfs", func(t *testing.T) {
		mnt := tempDir(t)
		if err := syscall.Mount("npyflow-test", mnt, "tmpfs", 0, "size=512k"); err != nil {
			t.Skipf("cannot mount a tmpfs here (%v); the fsize cases cover write errors", err)
		}
		t.Cleanup(func() { syscall.Unmount(mnt, 0) })
		for _, m := range faultModes {
			t.Run(m.name, func(t *testing.T) {
				out := filepath.Join(mnt, m.name)
				os.Mkdir(out, 0o755)
				dst := filepath.Join(out, "result"+m.ext)
				os.WriteFile(dst, []byte("previous output\n"), 0o644)
				before := snapshot(t, out)
				r := child{args: faultArgs(t, in, dst, m.ext, m.job)}.run(t)
				checkWriteFailure(t, r, `no space left`, out, before)
			})
		}
	})
}

// arrowStream returns an Arrow IPC stream of n int64 rows in batches of
// 4096.
func arrowStream(t *testing.T, n int) []byte {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(s), ipc.WithAllocator(mem))
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for i := 0; i < n; i += 4096 {
		for j := i; j < min(n, i+4096); j++ {
			b.Append(int64(j))
		}
		col := b.NewArray()
		rec := array.NewRecordBatch(s, []arrow.Array{col}, int64(col.Len()))
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		col.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestReadErrorMidFile: the input stops delivering data in the middle.
func TestReadErrorMidFile(t *testing.T) {
	t.Run("fifo-closes-early", func(t *testing.T) {
		// An Arrow IPC stream through a named pipe whose writer goes away
		// after 60% of the bytes: the streaming reader sees EOF mid-batch.
		dir := tempDir(t)
		in := filepath.Join(dir, "in.arrow")
		if err := syscall.Mkfifo(in, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		stream := arrowStream(t, 100000)
		go func() {
			f, err := os.OpenFile(in, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			f.Write(stream[:len(stream)*6/10])
			f.Close()
		}()
		out := filepath.Join(dir, "out")
		os.Mkdir(out, 0o755)
		before := snapshot(t, out)
		r := child{args: []string{"convert", in, filepath.Join(out, "x.npy")}, timeout: 10 * time.Second}.run(t)
		checkCleanFailure(t, r, in, regexp.MustCompile(`(?i)EOF|truncated|unexpected`))
		checkUnchanged(t, out, before)
	})
	t.Run("truncated-while-read", func(t *testing.T) {
		// The input is cut to half while npyflow is converting it: npyflow is
		// stopped (SIGSTOP) once its temporary output exists, the file is
		// truncated, and npyflow continues.
		if testing.Short() {
			t.Skip("converts 64 MiB")
		}
		for _, m := range []struct {
			name, ext string
			job       bool
		}{{"convert-parquet", ".parquet", false}, {"run-parquet", ".parquet", true}, {"convert-npy", ".npy", false}} {
			t.Run(m.name, func(t *testing.T) {
				dir := tempDir(t)
				in := writeF64(t, dir, "big.npy", 8<<20)
				out := filepath.Join(dir, "out")
				os.Mkdir(out, 0o755)
				before := snapshot(t, out)
				p := child{args: faultArgs(t, in, filepath.Join(out, "r"+m.ext), m.ext, m.job)}.start(t)
				if !waitForTemp(out, p, 10*time.Second) {
					r := p.wait()
					t.Fatalf("npyflow finished before the fault could be injected (enlarge the input): %s", shorten(r))
				}
				p.cmd.Process.Signal(syscall.SIGSTOP)
				if err := os.Truncate(in, 4<<20); err != nil {
					t.Fatal(err)
				}
				p.cmd.Process.Signal(syscall.SIGCONT)
				r := p.wait()
				checkCleanFailure(t, r, in, regexp.MustCompile(`(?i)truncated|unexpected EOF`))
				checkUnchanged(t, out, before)
			})
		}
	})
}

// waitForTemp polls dir until a temporary output (a dot file) appears, or
// the child exits, or the timeout passes.
func waitForTemp(dir string, p *proc, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") {
				return true
			}
		}
		if p.ctx.Err() != nil {
			return false
		}
		// A finished child has exited; Signal(0) then fails.
		if err := p.cmd.Process.Signal(syscall.Signal(0)); err != nil {
			return false
		}
		time.Sleep(500 * time.Microsecond)
	}
	return false
}

// TestSignals: SIGINT mid-job removes the temporary output and exits 1 with
// one line; SIGKILL leaves no file at the final path; a re-run completes
// and its output is right.
func TestSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("converts 64 MiB several times")
	}
	const n = 8 << 20 // 64 MiB of <f8
	in := writeF64(t, tempDir(t), "big.npy", n)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		for _, m := range []struct {
			name, ext string
			job       bool
		}{{"convert-parquet", ".parquet", false}, {"convert-npy", ".npy", false}, {"run-parquet", ".parquet", true}, {"run-npy", ".npy", true}} {
			t.Run(sig.String()+"/"+m.name, func(t *testing.T) {
				out := filepath.Join(tempDir(t), "out")
				os.Mkdir(out, 0o755)
				before := snapshot(t, out)
				dst := filepath.Join(out, "r"+m.ext)
				args := faultArgs(t, in, dst, m.ext, m.job)
				p := child{args: args}.start(t)
				if !waitForTemp(out, p, 10*time.Second) {
					r := p.wait()
					t.Fatalf("npyflow finished before the signal (enlarge the input): %s", shorten(r))
				}
				p.cmd.Process.Signal(sig)
				r := p.wait()
				if sig == syscall.SIGINT {
					checkWriteFailure(t, r, `interrupt`, out, before)
				} else {
					if r.sig != syscall.SIGKILL {
						t.Fatalf("not killed: %s", shorten(r))
					}
					if _, err := os.Stat(dst); err == nil {
						t.Fatalf("%s exists after SIGKILL mid-write", dst)
					}
					ents, _ := os.ReadDir(out)
					for _, e := range ents {
						t.Logf("left by SIGKILL: %s (a temporary file; the final path is untouched)", e.Name())
					}
				}
				r = child{args: args, timeout: 60 * time.Second}.run(t)
				if r.code != 0 {
					t.Fatalf("re-run failed: %s", shorten(r))
				}
				checkF64Output(t, dst, n)
			})
		}
	}
}
