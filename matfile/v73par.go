package matfile

import (
	"io"
	"runtime"
	"sync"

	"github.com/npyflow/npyflow/hdf5"
)

// parStream reads a chunked, filtered v7.3 dataset with several workers,
// each with its own hdf5 row reader (an hdf5.File may be shared between
// goroutines, a RowReader may not). Batch i goes to worker i % k; the
// consumer takes them back in order, so the bytes come out as a single
// reader's would. Each worker has two buffers in flight at most.
type parStream struct {
	path    string
	v       *v73File
	rowSize int64 // bytes per row
	rows    int64
	batch   int64 // rows per batch (a multiple of the chunk's rows)
	conv    func([]byte)
	results []chan parResult
	free    []chan []byte
	done    chan struct{}
	wg      sync.WaitGroup
	next    int64 // next batch index to hand out
	cur     parResult
	pending []byte
	closed  bool
	err     error // sticky: a worker that failed has stopped
}

type parResult struct {
	buf []byte
	err error
}

// parWorkers is how many goroutines decode a dataset's chunks.
func parWorkers() int { return min(runtime.GOMAXPROCS(0), 4) }

// newParStream returns nil when parallel reading is not worth it: not
// chunked or not filtered, fewer than two batches, or one CPU.
func (v *v73File) newParStream(ds *hdf5.Dataset, path string, rowSize, batchRows int64, conv func([]byte)) *parStream {
	l := ds.Layout()
	k := parWorkers()
	sh := ds.Shape()
	if k < 2 || l == nil || l.Class != hdf5.LayoutChunked || len(l.Filters) == 0 || len(sh) == 0 || len(l.Chunk) == 0 {
		return nil
	}
	rows := int64(sh[0])
	// Align batches to whole chunks along the first dimension, so that no
	// chunk is decoded by two workers.
	cr := int64(l.Chunk[0])
	if cr < 1 {
		return nil
	}
	batch := max(batchRows/cr, 1) * cr
	if rowSize*batch > 4*streamBatchBytes {
		return nil
	}
	nb := (rows + batch - 1) / batch
	if nb < 2 {
		return nil
	}
	k = int(min(int64(k), nb))
	p := &parStream{path: path, v: v, rowSize: rowSize, rows: rows, batch: batch, conv: conv,
		done: make(chan struct{})}
	for w := 0; w < k; w++ {
		res := make(chan parResult, 1)
		free := make(chan []byte, 2)
		free <- make([]byte, batch*rowSize)
		free <- make([]byte, batch*rowSize)
		p.results = append(p.results, res)
		p.free = append(p.free, free)
		p.wg.Add(1)
		go p.work(ds, w, k, nb, res, free)
	}
	return p
}

func (p *parStream) work(ds *hdf5.Dataset, w, k int, nb int64, res chan<- parResult, free <-chan []byte) {
	defer p.wg.Done()
	rr, err := ds.NewRowReader(int(p.batch))
	for b := int64(w); b < nb; b += int64(k) {
		var buf []byte
		select {
		case buf = <-free:
		case <-p.done:
			return
		}
		start := b * p.batch
		n := min(p.batch, p.rows-start)
		buf = buf[:n*p.rowSize]
		if err == nil {
			err = rr.ReadRows(start, n, buf)
		}
		if err != nil {
			select {
			case res <- parResult{err: p.v.h5err(p.path, err)}:
			case <-p.done:
			}
			return
		}
		if p.conv != nil {
			p.conv(buf)
		}
		select {
		case res <- parResult{buf: buf}:
		case <-p.done:
			return
		}
	}
}

func (p *parStream) Read(b []byte) (int, error) {
	if p.closed {
		return 0, io.ErrClosedPipe
	}
	if p.err != nil {
		return 0, p.err
	}
	for len(p.pending) == 0 {
		k := int64(len(p.results))
		if p.cur.buf != nil {
			// Give the consumed buffer back to its worker.
			p.free[(p.next-1)%k] <- p.cur.buf[:cap(p.cur.buf)]
			p.cur.buf = nil
		}
		if p.next*p.batch >= p.rows {
			return 0, io.EOF
		}
		r := <-p.results[p.next%k]
		p.next++
		if r.err != nil {
			p.err = r.err
			return 0, r.err
		}
		p.cur = r
		p.pending = r.buf
	}
	n := copy(b, p.pending)
	p.pending = p.pending[n:]
	return n, nil
}

// Close stops the workers and waits for them.
func (p *parStream) Close() error {
	if !p.closed {
		p.closed = true
		close(p.done)
		p.wg.Wait()
	}
	return nil
}
