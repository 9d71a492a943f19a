//go:build linux

package main

// The reliability tests run npyflow as a separate process, so a crash, a
// runaway allocation or a kill cannot take the test binary down, and so
// resource limits apply to npyflow alone. The child is this test binary
// re-executed on TestReliabilityChild, which calls the real main() with
// the arguments after "--" (the os/exec test-helper pattern: no separate
// build, no TestMain). The child reports its peak RSS (VmHWM) in a file.

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const (
	childEnv      = "NPYFLOW_RELIABILITY_CHILD"
	childDataEnv  = "NPYFLOW_RELIABILITY_RLIMIT_DATA"
	childFSizeEnv = "NPYFLOW_RELIABILITY_RLIMIT_FSIZE"
	childRSSEnv   = "NPYFLOW_RELIABILITY_RSS_FILE"

	// childData is the default RLIMIT_DATA of a child: its heap can never
	// exceed it, so an allocation driven by a size claimed in a file fails
	// at once (as a Go "fatal error: out of memory", which the checks see)
	// instead of exhausting the machine. npyflow maps about 200 MiB at
	// start (runtime, thread stacks) and a normal conversion of a 128 MiB
	// file about 260 MiB; the largest hostile case here needs 300 MiB (a
	// 128 MiB Parquet row group sized by a claimed row count).
	childData = 512<<20 + raceData
	// maxRSS bounds the peak resident memory of a child that read a small
	// hostile file.
	maxRSS = 200 << 20 * raceRSS
	// caseTimeout bounds one child run on a small file.
	caseTimeout = 20 * time.Second
)

// TestReliabilityChild is not a test: it is the npyflow process of the
// reliability tests (see the top of this file). It runs runMain as main
// does, after setting the resource limits it is given.
func TestReliabilityChild(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		return
	}
	for _, l := range []struct {
		env string
		res int
	}{{childDataEnv, syscall.RLIMIT_DATA}, {childFSizeEnv, syscall.RLIMIT_FSIZE}} {
		if v := os.Getenv(l.env); v != "" {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				fmt.Fprintln(os.Stderr, "bad", l.env, v)
				os.Exit(99)
			}
			if err := syscall.Setrlimit(l.res, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
				fmt.Fprintln(os.Stderr, "setrlimit:", err)
				os.Exit(99)
			}
		}
	}
	// A write past RLIMIT_FSIZE must fail with EFBIG, not kill the process
	// (the Go runtime ignores SIGXFSZ already; be explicit).
	signal.Ignore(syscall.SIGXFSZ)
	// What main does, plus reporting the peak RSS: the rusage of a child
	// cannot be used for that, because Linux carries the parent's RSS
	// high-water mark over fork and exec into it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runMain(ctx, flag.Args(), os.Stdout, os.Stderr)
	stop()
	if p := os.Getenv(childRSSEnv); p != "" {
		st, _ := os.ReadFile("/proc/self/status")
		for _, line := range strings.Split(string(st), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				os.WriteFile(p, []byte(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB"))), 0o644)
			}
		}
	}
	os.Exit(code)
}

// child describes one npyflow invocation.
type child struct {
	args    []string
	dir     string        // working directory ("" for the test's)
	data    uint64        // RLIMIT_DATA; 0 means childData
	fsize   uint64        // RLIMIT_FSIZE; 0 means none
	timeout time.Duration // 0 means caseTimeout
}

// result is what a child did.
type result struct {
	code           int // exit code; -1 if killed by a signal
	sig            syscall.Signal
	stdout, stderr string
	elapsed        time.Duration
	cpu            time.Duration // user and system CPU time of the child
	maxRSS         int64         // bytes; 0 if the child did not report it
	timedOut       bool
}

func (r *result) String() string {
	return fmt.Sprintf("exit %d (signal %v, timed out %v) in %v, peak RSS %d MiB\nstdout: %s\nstderr: %s",
		r.code, r.sig, r.timedOut, r.elapsed.Round(time.Millisecond), r.maxRSS>>20, r.stdout, r.stderr)
}

func (c child) command(ctx context.Context, rssFile string) *exec.Cmd {
	args := append([]string{"-test.run=^TestReliabilityChild$", "--"}, c.args...)
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Dir = c.dir
	data := c.data
	if data == 0 {
		data = childData
	}
	cmd.Env = append(os.Environ(), childEnv+"=1", childDataEnv+"="+strconv.FormatUint(data, 10), childRSSEnv+"="+rssFile)
	if c.fsize > 0 {
		cmd.Env = append(cmd.Env, childFSizeEnv+"="+strconv.FormatUint(c.fsize, 10))
	}
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// proc is a started child.
type proc struct {
	cmd       *exec.Cmd
	out, errb bytes.Buffer
	ctx       context.Context
	cancel    context.CancelFunc
	began     time.Time
	rssFile   string
}

// start starts the child without waiting for it.
func (c child) start(t *testing.T) *proc {
	t.Helper()
	timeout := c.timeout
	if timeout == 0 {
		timeout = caseTimeout
	}
	p := &proc{began: time.Now(), rssFile: filepath.Join(t.TempDir(), "rss")}
	p.ctx, p.cancel = context.WithTimeout(context.Background(), timeout)
	p.cmd = c.command(p.ctx, p.rssFile)
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.errb
	if err := p.cmd.Start(); err != nil {
		p.cancel()
		t.Fatal(err)
	}
	return p
}

// wait waits for the child and collects its result.
func (p *proc) wait() *result {
	p.cmd.Wait()
	r := &result{elapsed: time.Since(p.began), stdout: p.out.String(), stderr: p.errb.String()}
	r.timedOut = p.ctx.Err() == context.DeadlineExceeded
	p.cancel()
	if ps := p.cmd.ProcessState; ps != nil {
		r.code = ps.ExitCode()
		r.cpu = ps.UserTime() + ps.SystemTime()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.sig = ws.Signal()
		}
	}
	if b, err := os.ReadFile(p.rssFile); err == nil {
		kb, _ := strconv.ParseInt(string(b), 10, 64)
		r.maxRSS = kb << 10
	}
	return r
}

// run runs the child to completion.
func (c child) run(t *testing.T) *result {
	t.Helper()
	return c.start(t).wait()
}

// crashMarkers are what a Go panic, a fatal runtime error or npyflow's
// recovered panic print; none may ever reach the user.
var crashMarkers = []string{"goroutine ", "panic:", "fatal error", "internal error", "runtime error", "[signal "}

// checkCrashFree fails on a stack trace, a signal, a timeout or too much
// memory.
func checkCrashFree(t *testing.T, r *result, rssLimit int64) {
	t.Helper()
	if r.timedOut || r.sig != 0 || r.code < 0 {
		t.Fatalf("did not finish normally (bounded time %v): %s", caseTimeout, r)
	}
	for _, m := range crashMarkers {
		if strings.Contains(r.stderr, m) || strings.Contains(r.stdout, m) {
			t.Fatalf("output contains %q (a crash): %s", m, shorten(r))
		}
	}
	if rssLimit > 0 && r.maxRSS == 0 {
		t.Errorf("the child did not report its peak RSS: %s", shorten(r))
	}
	if rssLimit > 0 && r.maxRSS > rssLimit {
		t.Errorf("peak RSS %d MiB exceeds %d MiB: %s", r.maxRSS>>20, rssLimit>>20, shorten(r))
	}
}

// checkCleanFailure checks the contract for bad input: exit code 1, one
// stderr line naming the input and matching problem, no crash, bounded
// memory.
func checkCleanFailure(t *testing.T, r *result, input string, problem *regexp.Regexp) {
	t.Helper()
	checkCrashFree(t, r, maxRSS)
	if r.code != exitFailure {
		t.Fatalf("want exit %d, got %s", exitFailure, shorten(r))
	}
	msg := strings.TrimRight(r.stderr, "\n")
	if msg == "" || strings.Contains(msg, "\n") {
		t.Fatalf("want exactly one stderr line, got %q", r.stderr)
	}
	if !strings.Contains(msg, filepath.Base(input)) {
		t.Errorf("error does not name the file %s: %q", filepath.Base(input), msg)
	}
	if problem != nil {
		rest := strings.ReplaceAll(msg, input, "")
		rest = strings.ReplaceAll(rest, filepath.Base(input), "")
		if !problem.MatchString(rest) {
			t.Errorf("error %q does not state the problem (want /%s/)", msg, problem)
		}
	}
}

func shorten(r *result) string {
	s := r.String()
	if len(s) > 2000 {
		s = s[:2000] + "..."
	}
	return s
}

// dirState is a directory listing with sizes and contents' hashes, for
// checking that a failed run left everything as it was.
type dirState map[string]string

func snapshot(t *testing.T, dir string) dirState {
	t.Helper()
	st := dirState{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			st[rel+"/"] = "dir"
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		st[rel] = fmt.Sprintf("%d:%x", len(b), b[:min(len(b), 64)])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// checkUnchanged fails when dir differs from before: a new file (partial
// output, a leftover temporary) or a changed or removed one.
func checkUnchanged(t *testing.T, dir string, before dirState) {
	t.Helper()
	after := snapshot(t, dir)
	var diffs []string
	for k, v := range after {
		if w, ok := before[k]; !ok {
			diffs = append(diffs, "new "+k)
		} else if w != v {
			diffs = append(diffs, "changed "+k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			diffs = append(diffs, "removed "+k)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("output directory changed: %s", strings.Join(diffs, ", "))
	}
}

// tempDir is t.TempDir with a name that does not contain the test's name
// (which holds the input's file name and would make any message seem to
// name the file).
func tempDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "npyflow-reliability-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// jobFile writes a one-source, one-sink job and returns its path.
func jobFile(t *testing.T, dir, srcType, input, sinkType, output string) string {
	t.Helper()
	p := filepath.Join(dir, "job.yaml")
	body := fmt.Sprintf("version: 1\nsources:\n  s: {type: %s, paths: %q}\nsinks:\n  o: {type: %s, input: s, path: %q}\n",
		srcType, input, sinkType, output)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
