package shardrun

import (
	"errors"
	"fmt"
	"io/fs"
)

// ErrChanged is wrapped by an InputError when a planned input's
// fingerprint differs from the plan's.
var ErrChanged = errors.New("changed since planning")

// InputError is a shard's planned input that is missing, unreadable or
// changed since planning. It fails that shard only: other shards never
// check it.
type InputError struct {
	Shard Shard
	Path  string
	Err   error
}

func (e *InputError) Error() string {
	err := e.Err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is said already
	}
	return fmt.Sprintf("shard %s: planned input %s: %v", e.Shard, show(e.Path), err)
}

func (e *InputError) Unwrap() error { return e.Err }

// InterruptedError is an attempt stopped by a cancellation (Ctrl-C, a
// scheduler's SIGTERM): its manifest keeps Done of Assigned inputs, as of
// its last checkpoint, for a --resume.
type InterruptedError struct {
	Shard          Shard
	Checkpoints    int // checkpoints in the manifest, of every attempt
	Done, Assigned int // inputs the manifest holds, inputs of the shard
	Err            error
}

func (e *InterruptedError) Error() string {
	if e.Checkpoints == 0 || e.Done == 0 {
		return fmt.Sprintf("interrupted before the first checkpoint of shard %s (0 of %d inputs kept; --resume starts it over): %v",
			e.Shard, e.Assigned, e.Err)
	}
	return fmt.Sprintf("interrupted, %d checkpoint(s) kept for --resume (shard %s: %d of %d inputs done): %v",
		e.Checkpoints, e.Shard, e.Done, e.Assigned, e.Err)
}

func (e *InterruptedError) Unwrap() error { return e.Err }

// CommitInterruptedError is a commit stopped by a cancellation (Ctrl-C):
// the run is not committed (no _SUCCESS, no COMMITTED); Published of its
// Files outputs are at their final names, and committing the run again
// publishes the others.
type CommitInterruptedError struct {
	Run              string
	Published, Files int
	Err              error
}

func (e *CommitInterruptedError) Error() string {
	return fmt.Sprintf("interrupted, run %s not committed (%d of %d files published; commit it again to publish the rest): %v",
		e.Run, e.Published, e.Files, e.Err)
}

func (e *CommitInterruptedError) Unwrap() error { return e.Err }
