package parquetio

import (
	"errors"
	"io"
	"sync"

	"github.com/npyflow/npyflow/internal/hugepage"
)

// pagePool is the parquet.BufferPool of one Writer's column chunks (the
// compressed pages of a column in a row group until the row group is
// committed). A buffer is a list of 1 MiB chunks taken from the pool's
// free list and given back when parquet-go releases the buffer after a
// commit, so the chunks serve every row group of the Writer: parquet-go's
// default buffers take 32 KiB chunks from a sync.Pool, which garbage
// collections empty, so that row groups allocated and page-faulted them
// again, and a commit wrote them 32 KiB at a time. The pool holds at most
// the chunks of the row groups in flight at once; it is freed with the
// Writer.
type pagePool struct {
	mu     sync.Mutex
	bufs   []*pageBuf
	chunks [][]byte
}

// pageChunk is the size of a page buffer's chunks, allocated pageSlab
// bytes at a time.
const (
	pageChunk = 1 << 20
	pageSlab  = 8 << 20
)

func (p *pagePool) GetBuffer() io.ReadWriteSeeker {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.bufs); n > 0 {
		b := p.bufs[n-1]
		p.bufs = p.bufs[:n-1]
		return b
	}
	return &pageBuf{pool: p}
}

func (p *pagePool) PutBuffer(rw io.ReadWriteSeeker) {
	b, ok := rw.(*pageBuf)
	if !ok || b.pool != p {
		return
	}
	p.mu.Lock()
	p.chunks = append(p.chunks, b.chunks...)
	clear(b.chunks)
	b.chunks, b.size, b.off = b.chunks[:0], 0, 0
	p.bufs = append(p.bufs, b)
	p.mu.Unlock()
}

func (p *pagePool) chunk() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.chunks) == 0 {
		// Chunks come in slabs advised to huge pages: fewer first-touch
		// page faults.
		slab := make([]byte, pageSlab)
		hugepage.Advise(slab)
		for i := 0; i < pageSlab; i += pageChunk {
			p.chunks = append(p.chunks, slab[i:i+pageChunk:i+pageChunk])
		}
	}
	n := len(p.chunks)
	c := p.chunks[n-1]
	p.chunks = p.chunks[:n-1]
	return c
}

// pageBuf is an in-memory file of chunks: Write at the offset (extending
// it), Read and WriteTo from it.
type pageBuf struct {
	pool      *pagePool
	chunks    [][]byte
	size, off int
}

func (b *pageBuf) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := b.off / pageChunk
		if i == len(b.chunks) {
			b.chunks = append(b.chunks, b.pool.chunk())
		}
		k := copy(b.chunks[i][b.off%pageChunk:], p)
		b.off += k
		p = p[k:]
	}
	b.size = max(b.size, b.off)
	return n, nil
}

// next returns the bytes from the offset to the end of its chunk.
func (b *pageBuf) next() []byte {
	i := b.off / pageChunk
	end := min(pageChunk, b.size-i*pageChunk)
	return b.chunks[i][b.off%pageChunk : end]
}

func (b *pageBuf) Read(p []byte) (int, error) {
	if b.off >= b.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := copy(p, b.next())
	b.off += n
	return n, nil
}

// WriteTo writes the rest of the buffer a chunk per call (io.Copy uses
// it).
func (b *pageBuf) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for b.off < b.size {
		c := b.next()
		n, err := w.Write(c)
		b.off += n
		total += int64(n)
		if err == nil && n < len(c) {
			err = io.ErrShortWrite
		}
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Seek moves the offset; like parquet-go's memory buffer, an offset past
// the end stops at the end.
func (b *pageBuf) Seek(offset int64, whence int) (int64, error) {
	var pos int64
	switch whence {
	case io.SeekStart:
		pos = offset
	case io.SeekCurrent:
		pos = int64(b.off) + offset
	case io.SeekEnd:
		pos = int64(b.size) + offset
	default:
		return 0, errors.New("parquetio: page buffer: invalid whence")
	}
	if pos < 0 {
		return 0, errors.New("parquetio: page buffer: negative offset")
	}
	b.off = int(min(pos, int64(b.size)))
	return int64(b.off), nil
}
