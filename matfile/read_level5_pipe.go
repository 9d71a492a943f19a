package matfile

import (
	"io"
	"unsafe"
)

// Inflating a compressed Level 5 variable (one zlib stream) is serial and
// the most expensive step of reading it. pipeReader runs it in its own
// goroutine, a few buffers ahead of the consumer, so that converting,
// reordering and writing the data proceed on another core meanwhile.

// pipeBufs and pipeBufSize bound what the inflating goroutine holds.
const (
	pipeBufs    = 4
	pipeBufSize = 1 << 20
)

type pipeChunk struct {
	b   []byte
	err error
}

// pipeReader reads src in its own goroutine into a ring of pipeBufs
// buffers. Close stops the goroutine (and waits for it, so src is no
// longer used when Close returns).
type pipeReader struct {
	full chan pipeChunk
	free chan []byte
	stop chan struct{}
	done chan struct{}
	cur  []byte
	last []byte
	err  error
	shut bool
}

func newPipeReader(src io.Reader) *pipeReader {
	p := &pipeReader{
		full: make(chan pipeChunk, pipeBufs),
		free: make(chan []byte, pipeBufs),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	for i := 0; i < pipeBufs; i++ {
		p.free <- make([]byte, pipeBufSize)
	}
	go p.run(src)
	return p
}

func (p *pipeReader) run(src io.Reader) {
	defer close(p.done)
	for {
		var b []byte
		select {
		case b = <-p.free:
		case <-p.stop:
			return
		}
		n := 0
		var err error
		for n < len(b) && err == nil {
			var k int
			k, err = src.Read(b[n:])
			n += k
		}
		select {
		case p.full <- pipeChunk{b: b[:n], err: err}:
		case <-p.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

func (p *pipeReader) Read(q []byte) (int, error) {
	for len(p.cur) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		if p.last != nil {
			p.free <- p.last[:cap(p.last)]
			p.last = nil
		}
		c := <-p.full
		p.cur, p.last, p.err = c.b, c.b, c.err
	}
	n := copy(q, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}

func (p *pipeReader) Close() error {
	if !p.shut {
		p.shut = true
		close(p.stop)
		<-p.done
	}
	return nil
}

// colBlock is the target size of the column-major data scattered at once
// into a row-major destination.
var colBlock = 4 << 20

// readRowMajor2D reads the column-major stream rc of a rows x cols matrix
// of es-byte elements into a new buffer in C order, a block of columns
// (or of one column's rows) at a time, and checks that rc ends there.
func readRowMajor2D(rc io.Reader, rows, cols, es int) ([]byte, error) {
	dst := allocFor(int64(rows)*int64(cols), es)
	if len(dst) == 0 {
		return dst, nil
	}
	colBytes := rows * es
	w, seg := 1, rows // columns per block, rows per block
	if colBytes <= colBlock {
		w = min(cols, colBlock/colBytes)
	} else {
		seg = colBlock / es
	}
	blk := allocFor(int64(w)*int64(seg), es)
	for c0 := 0; c0 < cols; c0 += w {
		k := min(w, cols-c0)
		for i0 := 0; i0 < rows; i0 += seg {
			i1 := min(rows, i0+seg)
			b := blk[:k*(i1-i0)*es]
			if _, err := io.ReadFull(rc, b); err != nil {
				return nil, err
			}
			scatterCols(dst, b, cols, c0, k, i0, i1, es)
		}
	}
	var one [1]byte
	if n, err := rc.Read(one[:]); n != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errUnexpectedData
		}
		return nil, err
	}
	return dst, nil
}

type dataError string

func (e dataError) Error() string { return string(e) }

const errUnexpectedData = dataError("more data than the shape holds")

// scatterCols writes src, k columns (c0..c0+k-1) of rows [i0, i1) each,
// column after column, into dst, a C-order matrix of cols columns.
func scatterCols(dst, src []byte, cols, c0, k, i0, i1, es int) {
	const tile = 64
	n := i1 - i0
	switch es {
	case 8:
		d := unsafe.Slice((*uint64)(unsafe.Pointer(&dst[0])), len(dst)/8)
		s := unsafe.Slice((*uint64)(unsafe.Pointer(&src[0])), len(src)/8)
		for t0 := 0; t0 < n; t0 += tile {
			t1 := min(n, t0+tile)
			for j := 0; j < k; j++ {
				col := s[j*n : (j+1)*n]
				o := (i0+t0)*cols + c0 + j
				for i := t0; i < t1; i++ {
					d[o] = col[i]
					o += cols
				}
			}
		}
	case 4:
		d := unsafe.Slice((*uint32)(unsafe.Pointer(&dst[0])), len(dst)/4)
		s := unsafe.Slice((*uint32)(unsafe.Pointer(&src[0])), len(src)/4)
		for t0 := 0; t0 < n; t0 += tile {
			t1 := min(n, t0+tile)
			for j := 0; j < k; j++ {
				col := s[j*n : (j+1)*n]
				o := (i0+t0)*cols + c0 + j
				for i := t0; i < t1; i++ {
					d[o] = col[i]
					o += cols
				}
			}
		}
	default:
		for t0 := 0; t0 < n; t0 += tile {
			t1 := min(n, t0+tile)
			for j := 0; j < k; j++ {
				for i := t0; i < t1; i++ {
					o := ((i0+i)*cols + c0 + j) * es
					q := (j*n + i) * es
					copy(dst[o:o+es], src[q:q+es])
				}
			}
		}
	}
}
