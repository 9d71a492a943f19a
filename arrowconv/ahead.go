package arrowconv

import (
	"fmt"
	"runtime/debug"
)

// ahead runs a producer on its own goroutine, one or more values ahead of
// its consumer: the two pipeline stages of WriteIPC (records built while
// the previous one is written) and of a RecordReader's read-ahead (rows
// read while the previous batch is built) are both one.
type ahead[T any] struct {
	out  <-chan T
	quit chan struct{}
	done chan struct{}
	err  error // the producer's error (or a panic in it); read after done
}

// startAhead runs produce on a goroutine with a channel of depth values.
// produce hands each value to send, which reports false when the consumer
// has stopped; produce then returns. stopped is closed then too, for a
// producer that waits on something else.
func startAhead[T any](depth int, produce func(send func(T) bool, stopped <-chan struct{}) error) *ahead[T] {
	out := make(chan T, depth)
	a := &ahead[T]{out: out, quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(a.done)
		defer close(out)
		// A producer may read a mapped file (MappedIPC): a fault there
		// (the file was truncated) is an error, not a crash.
		debug.SetPanicOnFault(true)
		defer func() {
			if p := recover(); p != nil {
				if isFault(p) {
					a.err = fmt.Errorf("arrowconv: %w (%v)", ErrFileChanged, p)
					return
				}
				a.err = fmt.Errorf("arrowconv: internal error in a read-ahead: %v", p)
			}
		}()
		a.err = produce(func(v T) bool {
			select {
			case out <- v:
				return true
			case <-a.quit:
				return false
			}
		}, a.quit)
	}()
	return a
}

// wait returns the producer's error once it has ended (after the last
// value was received).
func (a *ahead[T]) wait() error {
	<-a.done
	return a.err
}

// stop ends the producer, passes the values it had produced but not
// handed over to release (if not nil), and returns the producer's error.
// It must be called exactly once.
func (a *ahead[T]) stop(release func(T)) error {
	close(a.quit)
	for v := range a.out {
		if release != nil {
			release(v)
		}
	}
	return a.wait()
}
