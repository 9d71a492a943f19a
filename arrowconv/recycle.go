package arrowconv

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// recycler is the allocator of a RecordReader's builder: it keeps the
// buffers of released records and hands them out again for the next
// batches, which have the same sizes, instead of returning them to the
// underlying allocator. That saves clearing fresh memory and the garbage
// collector's work on every batch.
//
// Recycled memory is not zeroed, so the builder must write every byte of
// what it allocates (it does: each buffer is filled by a gather, a pack or
// a copy). A buffer is only reused for an allocation of exactly its length
// (arrow-go rounds buffer sizes up to 64 bytes), so the underlying
// allocator's accounting is unchanged. Released records may be freed from
// any goroutine.
type recycler struct {
	mem    memory.Allocator
	maxN   int // bounds on what it keeps: buffers
	maxB   int // and bytes
	mu     sync.Mutex
	free   [][]byte
	held   int
	closed bool
}

// Bounds on what a recycler keeps.
const (
	recycleBuffers = 64       // buffers
	recycleBytes   = 64 << 20 // bytes
)

func newRecycler(mem memory.Allocator) *recycler {
	return newRecyclerLimit(mem, recycleBuffers, recycleBytes)
}

// newRecyclerLimit is a recycler keeping at most buffers buffers and
// bytes bytes.
func newRecyclerLimit(mem memory.Allocator, buffers, bytes int) *recycler {
	return &recycler{mem: mem, maxN: buffers, maxB: bytes}
}

func (r *recycler) Allocate(n int) []byte {
	r.mu.Lock()
	for i := len(r.free) - 1; i >= 0; i-- {
		if b := r.free[i]; len(b) == n {
			last := len(r.free) - 1
			r.free[i] = r.free[last]
			r.free[last] = nil
			r.free = r.free[:last]
			r.held -= len(b)
			r.mu.Unlock()
			return b
		}
	}
	r.mu.Unlock()
	return r.mem.Allocate(n)
}

func (r *recycler) Reallocate(n int, b []byte) []byte { return r.mem.Reallocate(n, b) }

func (r *recycler) Free(b []byte) {
	r.mu.Lock()
	if !r.closed && len(b) > 0 && len(r.free) < r.maxN && r.held+len(b) <= r.maxB {
		r.free = append(r.free, b)
		r.held += len(b)
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	r.mem.Free(b)
}

// close returns the kept buffers to the underlying allocator; later frees
// go straight to it.
func (r *recycler) close() {
	r.mu.Lock()
	free := r.free
	r.free, r.held, r.closed = nil, 0, true
	r.mu.Unlock()
	for _, b := range free {
		r.mem.Free(b)
	}
}
