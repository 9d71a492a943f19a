package matfile

import (
	"fmt"
	"io"
	"unsafe"

	"github.com/npyflow/npyflow/internal/hugepage"
	"github.com/npyflow/npyflow/npyio"
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
	hugepage.Advise(dst)
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
// column after column, into dst, a C-order matrix of cols columns of
// es-byte elements (dst and src aligned to es, as allocFor makes them).
func scatterCols(dst, src []byte, cols, c0, k, i0, i1, es int) {
	switch es {
	case 8:
		scatterT(words[uint64](dst), words[uint64](src), cols, c0, k, i0, i1)
	case 4:
		scatterT(words[uint32](dst), words[uint32](src), cols, c0, k, i0, i1)
	case 2:
		scatterT(words[uint16](dst), words[uint16](src), cols, c0, k, i0, i1)
	case 1:
		scatterT(dst, src, cols, c0, k, i0, i1)
	default:
		n := i1 - i0
		for j := 0; j < k; j++ {
			for i := 0; i < n; i++ {
				o := ((i0+i)*cols + c0 + j) * es
				q := (j*n + i) * es
				copy(dst[o:o+es], src[q:q+es])
			}
		}
	}
}

func words[T uint16 | uint32 | uint64](b []byte) []T {
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(z)))
}

// scatterT is scatterCols on elements: blocks of 8 x 8, so that the cache
// lines read (one per column) and written (one per row) are used whole.
func scatterT[T uint8 | uint16 | uint32 | uint64](d, s []T, cols, c0, k, i0, i1 int) {
	n := i1 - i0
	for t0 := 0; t0 < n; t0 += 8 {
		t1 := min(n, t0+8)
		for j0 := 0; j0 < k; j0 += 8 {
			j1 := min(k, j0+8)
			for i := t0; i < t1; i++ {
				o := (i0+i)*cols + c0
				row := d[o+j0 : o+j1]
				q := j0*n + i
				for j := range row {
					row[j] = s[q]
					q += n
				}
			}
		}
	}
}

// spoolMin is the size above which OpenRowMajor of a compressed variable
// inflates it to a temporary file rather than into memory.
var spoolMin int64 = 64 << 20

// spoolRowMajor inflates v's column-major data (converted to its class)
// into a temporary file (in os.TempDir, unlinked at once where the
// system allows it) and returns its rows in
// C order, band by band, each band one read per column (index over
// dims[1:]): memory stays bounded whatever the variable's size. The
// file is removed on Close.
func spoolRowMajor(v *Var, dims []int, dt *npyio.DType) (io.ReadCloser, error) {
	rc, err := v.open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	tmp, err := newTempFile("", ".npyflow-mat-inflate-*")
	if err != nil {
		return nil, fmt.Errorf("matfile: %s: a temporary file for the inflated data: %w", v.Path, err)
	}
	sp := &spooled{f: tmp}
	total := v.Header.DataSize()
	buf := make([]byte, min(max(total, 1), 4<<20))
	for done := int64(0); done < total; {
		k, err := io.ReadFull(rc, buf[:min(int64(len(buf)), total-done)])
		if err != nil {
			sp.Close()
			return nil, readErr(v.Path, zerr(err))
		}
		if _, err := tmp.Write(buf[:k]); err != nil {
			sp.Close()
			return nil, fmt.Errorf("matfile: %s: writing the inflated data to %s: %w", v.Path, tmp.Name(), err)
		}
		done += int64(k)
	}
	var one [1]byte
	if n, err := rc.Read(one[:]); n != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errUnexpectedData
		}
		sp.Close()
		return nil, readErr(v.Path, err)
	}
	es := dt.Size
	rows := int64(dims[0])
	sp.bandStream = newBandStream(dims, es, func(r0, r1 int, box []byte) error {
		run := (r1 - r0) * es
		for c := 0; c*run < len(box); c++ {
			off := (int64(c)*rows + int64(r0)) * int64(es)
			if _, err := tmp.ReadAt(box[c*run:(c+1)*run], off); err != nil {
				return fmt.Errorf("matfile: %s: reading the inflated data back from %s: %w", v.Path, tmp.Name(), zerr(err))
			}
		}
		return nil
	})
	return sp, nil
}

// spooled is the band stream of a spooled variable; Close removes the
// file.
type spooled struct {
	*bandStream
	f *tempFile
}

func (s *spooled) Close() error { return s.f.Close() }
