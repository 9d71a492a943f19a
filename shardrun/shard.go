package shardrun

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/npyflow/npyflow/internal/storage"
)

// Shard is one unit of a sharded run: shard Index of Count (0-based).
// Inputs (parts) are spread over shards by bytes; every shard runs the
// same job on its own inputs and never writes a file another shard writes.
type Shard struct {
	Index, Count int
}

// String is "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ParseShard parses "i/n" (shard i of n, 0 <= i < n) or, when count is
// known (count > 0), a bare "i".
func ParseShard(s string, count int) (Shard, error) {
	is, ns, slash := strings.Cut(strings.TrimSpace(s), "/")
	i, err := strconv.Atoi(is)
	if err != nil {
		return Shard{}, fmt.Errorf("invalid shard %q: want i/n, like 0/4", s)
	}
	n := count
	if slash {
		if n, err = strconv.Atoi(ns); err != nil {
			return Shard{}, fmt.Errorf("invalid shard %q: want i/n, like 0/4", s)
		}
		if count > 0 && n != count {
			return Shard{}, fmt.Errorf("shard %q: the plan has %d shards, not %d", s, count, n)
		}
	} else if n <= 0 {
		return Shard{}, fmt.Errorf("shard %q: the shard count is unknown: give i/n", s)
	}
	sh := Shard{Index: i, Count: n}
	return sh, sh.Check()
}

// Check reports whether the shard is valid: 0 <= Index < Count <= MaxShards.
func (s Shard) Check() error {
	if s.Count < 1 {
		return fmt.Errorf("invalid shard count %d: want at least 1", s.Count)
	}
	if s.Count > MaxShards {
		return fmt.Errorf("invalid shard count %d: at most %d", s.Count, MaxShards)
	}
	if s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("invalid shard index %d: want 0 to %d for %d shards", s.Index, s.Count-1, s.Count)
	}
	return nil
}

// MaxShards is the largest shard count (part file names have 5 digits).
const MaxShards = 99999

// The rule for a task's shard, whatever the scheduler: the shard is
// the task's index minus the index base (0 unless given), and the shard
// count is the plan's. The size and first index of the scheduler's array
// are never used, so a retried, requeued or re-submitted task (a Slurm
// `sbatch --array=5`, a re-created Kubernetes index, a Batch job given
// NPYFLOW_SHARD_INDEX) runs the same shard as the task it replaces.

// shardEnv lists the schedulers' task index variables, in the order they
// are tried, with the count variable each scheduler sets (read by no
// one: see above) for the documentation.
var shardEnv = []struct{ scheduler, index, count string }{
	{"npyflow", "NPYFLOW_SHARD_INDEX", "NPYFLOW_SHARD_COUNT"},
	{"Kubernetes Indexed Job", "JOB_COMPLETION_INDEX", ""},
	{"Slurm job array", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT"},
	{"AWS Batch array job", "AWS_BATCH_JOB_ARRAY_INDEX", "AWS_BATCH_JOB_ARRAY_SIZE"},
	{"Cloud Run job", "CLOUD_RUN_TASK_INDEX", "CLOUD_RUN_TASK_COUNT"},
}

// CountVar is the one count variable ShardFromEnv reads, when neither a
// plan nor a flag gives the count.
const CountVar = "NPYFLOW_SHARD_COUNT"

// EnvVar is a scheduler's task index variable; Count is the variable
// holding the size of its array, which ShardFromEnv never reads (it
// differs from the plan's shard count when a subset of tasks is
// re-submitted), or "" when the scheduler sets none.
type EnvVar struct{ Scheduler, Index, Count string }

// EnvVars returns the schedulers' variables ShardFromEnv reads, in the
// order it tries them.
func EnvVars() []EnvVar {
	out := make([]EnvVar, len(shardEnv))
	for i, e := range shardEnv {
		out[i] = EnvVar{e.scheduler, e.index, e.count}
	}
	return out
}

// EnvOptions says what ShardFromEnv knows besides the environment.
type EnvOptions struct {
	// Count is the shard count when known (from a frozen plan or a
	// --shards flag); 0: NPYFLOW_SHARD_COUNT gives it.
	Count int
	// Base is the task index of shard 0: 1 for a Slurm array submitted
	// as --array=1-N; 0 (the default) for every other scheduler.
	Base int
	// Lookup reads a variable; nil means os.LookupEnv.
	Lookup func(string) (string, bool)
}

// ShardFromEnv reads the shard from a scheduler's task index: the first
// of NPYFLOW_SHARD_INDEX, JOB_COMPLETION_INDEX (a Kubernetes Indexed
// Job), SLURM_ARRAY_TASK_ID (a Slurm job array), AWS_BATCH_JOB_ARRAY_INDEX
// (an AWS Batch array job) and CLOUD_RUN_TASK_INDEX (a Cloud Run job)
// that is set. The shard is that index minus o.Base, of o.Count shards
// (or NPYFLOW_SHARD_COUNT's, which must then agree). The scheduler's own
// count and first index (SLURM_ARRAY_TASK_COUNT and _MIN,
// AWS_BATCH_JOB_ARRAY_SIZE, CLOUD_RUN_TASK_COUNT) are not used: they
// describe the array the task was submitted in, which for a re-submitted
// task is not the run's. One consistency check reads SLURM_ARRAY_TASK_MAX:
// an array whose last task is past the last shard (an array numbered from
// 1 without Base 1) is refused in every task, before any runs the wrong
// shard. ok is false when no index variable is set; from names the
// variable used.
func ShardFromEnv(o EnvOptions) (sh Shard, from string, ok bool, err error) {
	lookup := o.Lookup
	if lookup == nil {
		lookup = os.LookupEnv
	}
	intVar := func(name string) (int, bool, error) {
		v, set := lookup(name)
		if !set || strings.TrimSpace(v) == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return 0, true, fmt.Errorf("%s=%q is not an integer", name, v)
		}
		return n, true, nil
	}
	for _, e := range shardEnv {
		idx, set, err := intVar(e.index)
		if err != nil {
			return Shard{}, e.index, true, err
		}
		if !set {
			continue
		}
		n := o.Count
		c, cset, err := intVar(CountVar)
		switch {
		case err != nil:
			return Shard{}, e.index, true, err
		case cset && n > 0 && c != n:
			return Shard{}, e.index, true, fmt.Errorf("%s=%d, but the plan has %d shards", CountVar, c, n)
		case cset:
			n = c
		}
		if n <= 0 {
			return Shard{}, e.index, true, fmt.Errorf("%s is set (%s) but the shard count is not: give a plan (--plan), --shards or %s", e.index, e.scheduler, CountVar)
		}
		if e.index == "SLURM_ARRAY_TASK_ID" {
			if last, set, err := intVar("SLURM_ARRAY_TASK_MAX"); err == nil && set && last-o.Base >= n {
				hint := fmt.Sprintf(": submit --array=%d-%d", o.Base, o.Base+n-1)
				if o.Base == 0 && last == n {
					hint = ": an array numbered from 1 (--array=1-" + strconv.Itoa(n) + ") needs --index-base 1"
				}
				return Shard{}, e.index, true, fmt.Errorf("this Slurm array's last task, SLURM_ARRAY_TASK_MAX=%d, is past the last of %d shards with index base %d%s",
					last, n, o.Base, hint)
			}
		}
		sh := Shard{Index: idx - o.Base, Count: n}
		if err := sh.Check(); err != nil {
			return Shard{}, e.index, true, fmt.Errorf("%s=%d with index base %d: %w", e.index, idx, o.Base, err)
		}
		return sh, e.index, true, nil
	}
	return Shard{}, "", false, nil
}

// AssignShards spreads items of the given sizes over n shards so that
// the shards' byte totals are as even as the greedy rule makes them: the
// largest item first, each to the shard with the fewest bytes so far
// (the lowest index on ties). Equal sizes keep their order, so the result
// depends only on the sizes. It returns each item's shard.
func AssignShards(sizes []int64, n int) []int {
	out := make([]int, len(sizes))
	if n <= 1 {
		return out
	}
	order := make([]int, len(sizes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return sizes[order[a]] > sizes[order[b]] })
	load := make([]int64, n)
	for _, i := range order {
		best := 0
		for s := 1; s < n; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		out[i] = best
		load[best] += max(sizes[i], 1) // empty files still cost something
	}
	return out
}

// fingerprintBytes is how much of each end of a file the fingerprint
// hashes.
const fingerprintBytes = 64 << 10

// Fingerprint identifies a file's contents cheaply: "fp1:" and the first
// 32 hex digits of the SHA-256 of its size, its modification time (ns)
// and its first and last 64 KiB. Any change of size, mtime, header or
// trailing data changes it; a change in the middle of a file larger than
// 128 KiB that keeps size and mtime does not (touching a file changes
// mtime, so an in-place rewrite is caught unless mtime is forged). path
// may be the URL of any storage backend: an object's mtime is its
// last-modified time, which every write of the object changes. It also
// returns the modification time it hashed. A directory or bucket prefix
// (a Zarr store) is fingerprinted by its files instead: "fp1d:" and the
// SHA-256 of each file's name, size and mtime, the latest mtime
// returned.
func Fingerprint(ctx context.Context, path string) (string, time.Time, error) {
	st, err := storage.Stat(ctx, path)
	if err == nil && st.IsDir || errors.Is(err, fs.ErrNotExist) && storage.Scheme(path) != "" {
		if fp, mt, derr := fingerprintTree(ctx, path); derr == nil {
			return fp, mt, nil
		} else if err == nil {
			return "", time.Time{}, derr
		}
	}
	if err != nil {
		return "", time.Time{}, err
	}
	f, err := storage.Open(ctx, path)
	if err != nil {
		return "", time.Time{}, err
	}
	defer f.Close()
	size := f.Size()
	h := sha256.New()
	var hdr [16]byte
	binary.LittleEndian.PutUint64(hdr[:8], uint64(size))
	binary.LittleEndian.PutUint64(hdr[8:], uint64(st.ModTime.UnixNano()))
	h.Write(hdr[:])
	buf := make([]byte, min(size, fingerprintBytes))
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return "", time.Time{}, fmt.Errorf("%s: %w", show(path), err)
	}
	h.Write(buf[:n])
	if size > fingerprintBytes {
		off := max(int64(fingerprintBytes), size-fingerprintBytes)
		n, err := f.ReadAt(buf[:size-off], off)
		if err != nil && err != io.EOF {
			return "", time.Time{}, fmt.Errorf("%s: %w", show(path), err)
		}
		h.Write(buf[:n])
	}
	return "fp1:" + hex.EncodeToString(h.Sum(nil)[:16]), st.ModTime.UTC(), nil
}

// fingerprintTree fingerprints the files under dir (a directory or a
// bucket prefix), listed page by page in name order.
func fingerprintTree(ctx context.Context, dir string) (string, time.Time, error) {
	h := sha256.New()
	var latest time.Time
	files := 0
	root := strings.TrimSuffix(dir, "/")
	var walk func(d string) error
	walk = func(d string) error {
		after := ""
		for {
			page, more, err := storage.List(ctx, d, after, 1000)
			if err != nil {
				return err
			}
			for _, e := range page {
				after = e.Name
				if e.IsDir {
					if err := walk(e.Name); err != nil {
						return err
					}
					continue
				}
				files++
				fmt.Fprintf(h, "%s %d %d\n", strings.TrimPrefix(e.Name, root), e.Size, e.ModTime.UnixNano())
				if e.ModTime.After(latest) {
					latest = e.ModTime
				}
			}
			if !more || len(page) == 0 {
				return nil
			}
		}
	}
	if err := walk(root); err != nil {
		return "", time.Time{}, fmt.Errorf("%s: %w", show(dir), err)
	}
	if files == 0 {
		return "", time.Time{}, fmt.Errorf("%s: %w", show(dir), fs.ErrNotExist)
	}
	return "fp1d:" + hex.EncodeToString(h.Sum(nil)[:16]), latest.UTC(), nil
}
