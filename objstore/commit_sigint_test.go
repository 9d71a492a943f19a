package objstore_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/objstore"
)

// TestS3CommitInterrupted sends SIGINT to `npyflow commit` (a child
// process, built from this module) while it copies a sharded run's 16
// outputs (8 MiB .npy files, mode error_if_exists) to their final names
// on a real S3 server (SeaweedFS, make test-s3), as soon as the first
// one appears. The process must exit within 3 s of the signal with exit
// 1 and one line on stderr, leaving no _SUCCESS; a second `npyflow
// commit` must succeed, publish the rest, leave the objects the first
// one published untouched (same last-modified time: not copied again)
// and write a _SUCCESS listing all 16.
func TestS3CommitInterrupted(t *testing.T) {
	root := s3Root(t, fmt.Sprintf("sigint-%d", time.Now().UnixNano()))
	at := func(rel string) string { // rel under root, before the URL's query
		p, q, _ := strings.Cut(root, "?")
		return p + "/" + rel + "?" + q
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "npyflow")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/npyflow/npyflow/cmd/npyflow").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const files, elems = 16, 1 << 20
	for i := 0; i < files; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("x%02d.npy", i)), f64NPY(elems, float64(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	job := filepath.Join(dir, "job.yaml")
	text := fmt.Sprintf("version: 1\nsources:\n  r: {type: npy, paths: %q}\nsinks:\n  f: {type: npy, input: r, path: %q, mode: error_if_exists}\n",
		filepath.Join(dir, "x*.npy"), at("out/{stem}.npy"))
	if err := os.WriteFile(job, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "plan.json")
	npyflow := func(args ...string) (int, string, string) {
		cmd := exec.Command(bin, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	}
	for _, args := range [][]string{
		{"plan", job, "--out", plan, "--shards", "2"},
		{"run", "--plan", plan, "--shard", "0", "--no-commit"},
		{"run", "--plan", plan, "--shard", "1", "--no-commit"},
	} {
		if code, stdout, stderr := npyflow(args...); code != 0 {
			t.Fatalf("npyflow %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	ctx := context.Background()
	finals := func() map[string]storage.Info {
		m := map[string]storage.Info{}
		for i := 0; i < files; i++ {
			if st, err := storage.Stat(ctx, at(fmt.Sprintf("out/x%02d.npy", i))); err == nil {
				m[st.Name] = st
			}
		}
		return m
	}

	cmd := exec.Command(bin, "commit", "--plan", plan)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var sent time.Time
	var early error
poll:
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); {
		select {
		case early = <-done:
			break poll
		default:
		}
		if published(ctx, at("out")) {
			sent = time.Now()
			cmd.Process.Signal(syscall.SIGINT)
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	if sent.IsZero() {
		if early == nil {
			<-done
		}
		t.Fatalf("npyflow commit ended before the signal (exit %d): enlarge the outputs\n%s%s", cmd.ProcessState.ExitCode(), stdout.String(), stderr.String())
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("npyflow commit still running 30 s after SIGINT")
	}
	took := time.Since(sent)
	msg := stderr.String()
	t.Logf("exit %d %v after SIGINT: %s", cmd.ProcessState.ExitCode(), took.Round(time.Millisecond), msg)
	if code := cmd.ProcessState.ExitCode(); code != 1 || strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "npyflow commit: interrupted, run ") {
		t.Fatalf("after SIGINT: exit %d, stderr %q (want exit 1 and one line)", code, msg)
	}
	if took > 3*time.Second {
		t.Errorf("npyflow commit took %v to exit after SIGINT", took)
	}
	if _, err := storage.Stat(ctx, at("out/_SUCCESS")); err == nil {
		t.Error("_SUCCESS after an interrupted commit")
	}
	before := finals()
	if len(before) == files {
		t.Logf("every output was published before the signal took effect")
	}
	time.Sleep(1100 * time.Millisecond) // S3 times are in whole seconds: a copy again would show

	code, out, errs := npyflow("commit", "--plan", plan)
	if code != 0 || !strings.Contains(out, "committed run") || errs != "" {
		t.Fatalf("commit again: exit %d\n%s%s", code, out, errs)
	}
	after := finals()
	if len(after) != files {
		t.Fatalf("%d of %d outputs after the second commit", len(after), files)
	}
	for name, st := range after {
		if st.Size != int64(len(f64NPY(elems, 0))) {
			t.Errorf("%s has %d bytes", objstore.Redact(name), st.Size)
		}
		if b, ok := before[name]; ok && !b.ModTime.Equal(st.ModTime) {
			t.Errorf("%s published again by the second commit (modified %v, then %v)", objstore.Redact(name), b.ModTime, st.ModTime)
		}
	}
	b, err := storage.ReadFile(ctx, at("out/_SUCCESS"), 1<<20)
	var succ struct{ Published []string }
	if err != nil || json.Unmarshal(b, &succ) != nil || len(succ.Published) != files {
		t.Errorf("_SUCCESS: %v, lists %d files, want %d\n%s", err, len(succ.Published), files, b)
	}
	t.Logf("%d of %d outputs published before the interruption, the rest by the second commit", len(before), files)
}

// published reports whether an output (x*.npy) is in dir.
func published(ctx context.Context, dir string) bool {
	es, _, err := storage.List(ctx, dir, "", 0)
	for _, e := range es {
		if b := filepath.Base(storage.Path(e.Name)); err == nil && !e.IsDir && strings.HasPrefix(b, "x") {
			return true
		}
	}
	return false
}

// f64NPY is a .npy file of n float64 values, all v.
func f64NPY(n int, v float64) []byte {
	h := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d,), }", n)
	h += strings.Repeat(" ", 63-(10+len(h))%64) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	b.WriteString(h)
	row := binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))
	b.Write(bytes.Repeat(row, n))
	return b.Bytes()
}
