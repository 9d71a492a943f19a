package hdf5

import (
	"fmt"
	"sync"
)

// wChunkJob is one chunk on its way to the file: filtered by a worker,
// written by the goroutine using the Writer, in queue order.
type wChunkJob struct {
	d       *DatasetWriter
	offs    []uint64
	raw     []byte    // the chunk, C order, chunk-shaped
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

// queueChunk sends a chunk to be filtered, writing the oldest finished
// chunks so that at most 2 per worker are in flight.
func (w *Writer) queueChunk(d *DatasetWriter, offs []uint64, raw []byte) error {
	j := &wChunkJob{d: d, offs: offs, raw: raw, done: make(chan struct{})}
	if !d.shuffle && d.comp == CompressionNone {
		j.out = raw
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
