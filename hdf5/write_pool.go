package hdf5

import (
	"fmt"
	"sync"
)

// wChunkJob is one chunk on its way to the file: filtered by a worker,
// written by the goroutine using the Writer, in queue order.
type wChunkJob struct {
	d    *DatasetWriter
	offs []uint64
	raw  []byte // the chunk, C order, chunk-shaped
	// gather, when set, is the block of rows the worker cuts raw from
	// (wCopyChunk) before it filters it, and signals through copied: the
	// block is the caller's and only lent until then.
	gather  *wGather
	out     []byte    // what goes to the file
	outPool *wBuffers // where out goes back
	err     error
	done    chan struct{}
}

// wPool is the set of compression goroutines.
type wPool struct {
	jobs chan *wChunkJob
	wg   sync.WaitGroup
}

func newWPool(n int) *wPool {
	p := &wPool{jobs: make(chan *wChunkJob)}
	for range n {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			var enc wEncoders
			defer enc.close()
			var scratch []byte
			for j := range p.jobs {
				d := j.d
				if g := j.gather; g != nil {
					j.raw = wBufPool.get(g.size)
					wCopyChunk(j.raw, g.slab, g.n, d.shape, d.chunk, j.offs, d.esz)
					j.gather = nil
					g.copied.Done()
				}
				src := j.raw
				if d.shuffle {
					if cap(scratch) < len(src) {
						scratch = make([]byte, len(src))
					}
					scratch = scratch[:len(src)]
					wShuffle(scratch, src, int(d.esz))
					src = scratch
				}
				if d.comp != CompressionNone {
					j.out, j.err = enc.compress(d.comp, d.level, src)
					j.outPool = &wOutPool
				} else {
					j.out = append(wBufPool.get(len(src))[:0], src...)
				}
				if j.err != nil {
					j.err = fmt.Errorf("compressing a chunk (%s): %w", d.comp, j.err)
				}
				close(j.done)
			}
		}()
	}
	return p
}

func (p *wPool) stop() {
	close(p.jobs)
	p.wg.Wait()
}

// wShuffle is HDF5's shuffle filter: byte k of every element together.
func wShuffle(dst, src []byte, esz int) {
	if esz <= 1 {
		copy(dst, src)
		return
	}
	n := len(src) / esz
	for k := 0; k < esz; k++ {
		o := dst[k*n : (k+1)*n]
		for i := range o {
			o[i] = src[i*esz+k]
		}
	}
	// trailing bytes that are not a whole element stay in place
	copy(dst[n*esz:], src[n*esz:])
}

// wBuffers recycles chunk buffers.
type wBuffers struct{ p sync.Pool }

// wBufPool holds whole-chunk buffers, wOutPool compressed ones (so that a
// small compressed buffer does not stand in for a whole chunk).
var wBufPool, wOutPool wBuffers

func (b *wBuffers) get(n int) []byte {
	if v, ok := b.p.Get().(*[]byte); ok && cap(*v) >= n {
		return (*v)[:n]
	}
	return make([]byte, n)
}

func (b *wBuffers) put(buf []byte) {
	if cap(buf) > 0 {
		b.p.Put(&buf)
	}
}

func (w *Writer) getBuf(n int) []byte { return wBufPool.get(n) }

// wGather is a block of n rows (size bytes per chunk) lent to the
// workers, which cut their chunks from it: copied counts the chunks not
// yet cut.
type wGather struct {
	slab   []byte
	n      uint64
	size   int
	copied sync.WaitGroup
}

// filtered reports a dataset whose chunks go through the workers.
func (d *DatasetWriter) filtered() bool { return d.shuffle || d.comp != CompressionNone }

// queueGather queues the chunk at offs of the block g, cut by the worker
// that filters it (so that cutting runs in parallel too).
func (w *Writer) queueGather(d *DatasetWriter, offs []uint64, g *wGather) error {
	g.copied.Add(1)
	return w.queue(&wChunkJob{d: d, offs: offs, gather: g, done: make(chan struct{})})
}

// queueChunk sends a chunk to be filtered, writing the oldest finished
// chunks so that at most 2 per worker are in flight.
func (w *Writer) queueChunk(d *DatasetWriter, offs []uint64, raw []byte) error {
	return w.queue(&wChunkJob{d: d, offs: offs, raw: raw, done: make(chan struct{})})
}

func (w *Writer) queue(j *wChunkJob) error {
	d := j.d
	if !d.filtered() {
		j.out = j.raw
		j.raw = nil
		close(j.done)
	} else {
		if w.pool == nil {
			w.pool = newWPool(w.workers)
		}
		w.pool.jobs <- j
	}
	w.fifo = append(w.fifo, j)
	for len(w.fifo) > 2*w.workers {
		if err := w.writeOldest(); err != nil {
			return err
		}
	}
	return nil
}

func (w *Writer) writeOldest() error {
	j := w.fifo[0]
	w.fifo[0] = nil
	w.fifo = w.fifo[1:]
	<-j.done
	if j.raw != nil {
		wBufPool.put(j.raw)
	}
	if j.err != nil {
		if w.err == nil {
			w.err = fmt.Errorf("hdf5: %s: %w", j.d.path, j.err)
		}
		return w.err
	}
	if uint64(len(j.out)) >= 1<<32 {
		w.err = fmt.Errorf("hdf5: %s: a filtered chunk of %d bytes (HDF5 chunks are under 4 GiB)", j.d.path, len(j.out))
		return w.err
	}
	addr := w.alloc(uint64(len(j.out)))
	err := w.writeAt(addr, j.out)
	if j.outPool != nil {
		j.outPool.put(j.out)
	} else {
		wBufPool.put(j.out)
	}
	if err != nil {
		return err
	}
	j.d.chunks = append(j.d.chunks, wChunkRec{offs: j.offs, addr: addr, size: uint64(len(j.out))})
	return nil
}

// drain writes every queued chunk.
func (w *Writer) drain() error {
	for len(w.fifo) > 0 {
		if err := w.writeOldest(); err != nil {
			return err
		}
	}
	return nil
}
