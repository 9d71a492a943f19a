package shardrun

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

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

// shardEnv lists the schedulers' environment variables, in the order
// they are tried: the index variable, then the count variable.
var shardEnv = []struct{ scheduler, index, count string }{
	{"npyflow", "NPYFLOW_SHARD_INDEX", "NPYFLOW_SHARD_COUNT"},
	{"Kubernetes Indexed Job", "JOB_COMPLETION_INDEX", "NPYFLOW_SHARD_COUNT"},
	{"Slurm job array", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT"},
	{"AWS Batch array job", "AWS_BATCH_JOB_ARRAY_INDEX", "AWS_BATCH_JOB_ARRAY_SIZE"},
	{"Cloud Run job", "CLOUD_RUN_TASK_INDEX", "CLOUD_RUN_TASK_COUNT"},
}

// EnvVar is a scheduler's pair of shard variables.
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

// ShardFromEnv reads the shard from the environment of a scheduler:
// NPYFLOW_SHARD_INDEX/NPYFLOW_SHARD_COUNT, a Kubernetes Indexed Job
// (JOB_COMPLETION_INDEX; the count from NPYFLOW_SHARD_COUNT or count),
// a Slurm job array (SLURM_ARRAY_TASK_ID minus SLURM_ARRAY_TASK_MIN, of
// SLURM_ARRAY_TASK_COUNT), an AWS Batch array job
// (AWS_BATCH_JOB_ARRAY_INDEX of AWS_BATCH_JOB_ARRAY_SIZE) or a Cloud Run
// job (CLOUD_RUN_TASK_INDEX of CLOUD_RUN_TASK_COUNT). count, when positive,
// is the count already known (from a plan or a flag); a different count
// in the environment is an error. ok is false when no index variable is
// set. lookup nil means os.LookupEnv.
func ShardFromEnv(lookup func(string) (string, bool), count int) (sh Shard, from string, ok bool, err error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	for _, e := range shardEnv {
		iv, set := lookup(e.index)
		if !set || iv == "" {
			continue
		}
		i, err := strconv.Atoi(strings.TrimSpace(iv))
		if err != nil {
			return Shard{}, e.index, true, fmt.Errorf("%s=%q is not an integer", e.index, iv)
		}
		if e.index == "SLURM_ARRAY_TASK_ID" {
			// --array=1-4 numbers tasks from 1: shard = id - min.
			if mv, set := lookup("SLURM_ARRAY_TASK_MIN"); set && mv != "" {
				m, err := strconv.Atoi(strings.TrimSpace(mv))
				if err != nil {
					return Shard{}, e.index, true, fmt.Errorf("SLURM_ARRAY_TASK_MIN=%q is not an integer", mv)
				}
				i -= m
			}
		}
		n := count
		if cv, set := lookup(e.count); set && cv != "" {
			c, err := strconv.Atoi(strings.TrimSpace(cv))
			if err != nil {
				return Shard{}, e.index, true, fmt.Errorf("%s=%q is not an integer", e.count, cv)
			}
			if count > 0 && c != count {
				return Shard{}, e.index, true, fmt.Errorf("%s=%d, but the plan has %d shards", e.count, c, count)
			}
			n = c
		}
		if n <= 0 {
			return Shard{}, e.index, true, fmt.Errorf("%s is set (%s) but the shard count is not: set %s or --shards", e.index, e.scheduler, e.count)
		}
		sh := Shard{Index: i, Count: n}
		if err := sh.Check(); err != nil {
			return Shard{}, e.index, true, fmt.Errorf("%s: %w", e.index, err)
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
// mtime, so an in-place rewrite is caught unless mtime is forged).
func Fingerprint(path string) (string, error) {
	ctx := context.Background()
	st, err := storage.Stat(ctx, path)
	if err != nil {
		return "", err
	}
	f, err := storage.Open(ctx, path)
	if err != nil {
		return "", err
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
		return "", fmt.Errorf("%s: %w", show(path), err)
	}
	h.Write(buf[:n])
	if size > fingerprintBytes {
		off := max(int64(fingerprintBytes), size-fingerprintBytes)
		n, err := f.ReadAt(buf[:size-off], off)
		if err != nil && err != io.EOF {
			return "", fmt.Errorf("%s: %w", show(path), err)
		}
		h.Write(buf[:n])
	}
	return "fp1:" + hex.EncodeToString(h.Sum(nil)[:16]), nil
}
