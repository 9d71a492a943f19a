//go:build linux

package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// zstdClaimIPC writes a zstd-compressed IPC file (or stream) of one int64
// column of rows values whose data buffer claims claim bytes uncompressed
// instead of 8*rows: the lengths that fit the file are all true, only the
// 8-byte uncompressed length in front of the compressed bytes lies.
func zstdClaimIPC(t *testing.T, path string, file bool, rows int, claim uint64) {
	t.Helper()
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(mem)
	for i := 0; i < rows; i++ {
		b.Append(int64(i % 7))
	}
	col := b.NewArray()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(rows))
	var buf bytes.Buffer
	opts := []ipc.Option{ipc.WithSchema(schema), ipc.WithZstd(), ipc.WithAllocator(mem)}
	var err error
	if file {
		var w *ipc.FileWriter
		if w, err = ipc.NewFileWriter(&buf, opts...); err == nil {
			if err = w.Write(rec); err == nil {
				err = w.Close()
			}
		}
	} else {
		w := ipc.NewWriter(&buf, opts...)
		if err = w.Write(rec); err == nil {
			err = w.Close()
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	var want [8]byte
	binary.LittleEndian.PutUint64(want[:], uint64(8*rows))
	if n := bytes.Count(data, want[:]); n != 1 {
		t.Fatalf("the uncompressed length %d occurs %d times in the IPC data", 8*rows, n)
	}
	i := bytes.Index(data, want[:])
	binary.LittleEndian.PutUint64(data[i:], claim)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestConvertArrowClaims: a compressed IPC buffer that claims 3 GiB
// uncompressed (under arrowconv.MaxIPCBuffer, over the child's 512 MiB
// data limit) from a few hundred bytes is refused from what its bytes can
// expand to, before any allocation: one line naming the file, "corrupt
// IPC data", no crash, nothing written; through every conversion and a job.
func TestConvertArrowClaims(t *testing.T) {
	dir := tempDir(t)
	for _, file := range []bool{true, false} {
		in := filepath.Join(dir, map[bool]string{true: "claims_file.arrow", false: "claims_stream.arrow"}[file])
		zstdClaimIPC(t, in, file, 4099, 3<<30)
		for _, m := range []struct {
			name, ext string
			job       bool
		}{{"convert-npy", ".npy", false}, {"convert-npz", ".npz", false}, {"convert-parquet", ".parquet", false}, {"convert-arrow", ".arrow", false}, {"run-npy", ".npy", true}} {
			t.Run(filepath.Base(in)+"/"+m.name, func(t *testing.T) {
				t.Parallel()
				outDir := filepath.Join(tempDir(t), "out")
				if err := os.Mkdir(outDir, 0o755); err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(outDir, "result"+m.ext)
				before := snapshot(t, outDir)
				args := []string{"convert", in, out}
				if m.job {
					args = []string{"run", "--quiet", jobFile(t, tempDir(t), "arrow", in, strings.TrimPrefix(m.ext, "."), out)}
				}
				r := child{args: args}.run(t)
				checkCleanFailure(t, r, in, regexp.MustCompile(`corrupt IPC data: .*claims 3221225472 bytes uncompressed`))
				checkUnchanged(t, outDir, before)
			})
		}
	}
}

// TestConvertRemovesStaleTemp: a temporary output of r.npy left by a
// process that is gone is removed by the next convert to r.npy; one of a
// live process is not.
func TestConvertRemovesStaleTemp(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	stale := filepath.Join(dir, fmt.Sprintf(".r.npy.npyflow-tmp-%d-0123abcd", cmd.Process.Pid))
	live := filepath.Join(dir, fmt.Sprintf(".r.npy.npyflow-tmp-%d-0123abcd", os.Getppid()))
	for _, p := range []string{stale, live} {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := writeF64(t, t.TempDir(), "data.npy", 1000)
	if code, msg := runCLI(t, "convert", in, filepath.Join(dir, "r.npy")); code != 0 {
		t.Fatalf("%d %s", code, msg)
	}
	checkF64Output(t, filepath.Join(dir, "r.npy"), 1000)
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("stale %s was not removed", filepath.Base(stale))
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the live process's %s was removed", filepath.Base(live))
	}
}

// TestConvertSIGKILLLeftover: convert killed mid-write leaves its
// temporary file (nothing can remove it then), recognizable by name and
// PID; the next convert to the same output removes it and succeeds.
func TestConvertSIGKILLLeftover(t *testing.T) {
	if testing.Short() {
		t.Skip("converts 64 MiB twice")
	}
	const n = 8 << 20
	in := writeF64(t, tempDir(t), "big.npy", n)
	for _, ext := range []string{".npy", ".parquet"} {
		t.Run(ext, func(t *testing.T) {
			out := filepath.Join(tempDir(t), "out")
			os.Mkdir(out, 0o755)
			dst := filepath.Join(out, "r"+ext)
			args := []string{"convert", in, dst, "--compression", "none"}
			p := child{args: args}.start(t)
			if !waitForTemp(out, p, 10*time.Second) {
				r := p.wait()
				t.Fatalf("npyflow finished before the signal (enlarge the input): %s", shorten(r))
			}
			pid := p.cmd.Process.Pid
			p.cmd.Process.Signal(syscall.SIGKILL)
			if r := p.wait(); r.sig != syscall.SIGKILL {
				t.Fatalf("not killed: %s", shorten(r))
			}
			want := regexp.MustCompile(`^\.r` + regexp.QuoteMeta(ext) + `\.npyflow-tmp-` + strconv.Itoa(pid) + `-[0-9a-f]+$`)
			ents, _ := os.ReadDir(out)
			if len(ents) != 1 || !want.MatchString(ents[0].Name()) {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Fatalf("after SIGKILL the directory holds %v, want one file matching %s", names, want)
			}
			if r := (child{args: args, timeout: 60 * time.Second}).run(t); r.code != 0 {
				t.Fatalf("re-run failed: %s", shorten(r))
			}
			checkF64Output(t, dst, n)
			if ents, _ := os.ReadDir(out); len(ents) != 1 {
				t.Errorf("after the re-run the directory holds %d files, want only %s", len(ents), filepath.Base(dst))
			}
		})
	}
}
