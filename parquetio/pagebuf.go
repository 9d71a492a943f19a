package parquetio

import (
	"errors"
	"io"
	"sync"

	"github.com/npyflow/npyflow/internal/hugepage"
)

// pagePool is the parquet.BufferPool of one Writer's column chunks (the
// compressed pages of a column in a row group until the row group is
// committed). A buffer is a list of chunks taken from the pool's free
// lists and given back when parquet-go releases the buffer after a
// commit, so the chunks serve every row group of the Writer. The first
// chunk of a buffer is small (pageHead) and the others are 1 MiB, so a
// table of thousands of narrow columns holds 16 KiB per column, not 1 MiB
// (4,000 columns took 4 GiB before), while a big column still grows in
// 1 MiB steps. parquet-go's
// default buffers take 32 KiB chunks from a sync.Pool, which garbage
// collections empty, so that row groups allocated and page-faulted them
// again, and a commit wrote them 32 KiB at a time. The pool holds at most
// the chunks of the row groups in flight at once; it is freed with the
// Writer.
type pagePool struct {
	mu     sync.Mutex
	bufs   []*pageBuf
	chunks [][]byte // free chunks of pageChunk bytes
	heads  [][]byte // free first chunks of pageHead bytes
}

// pageChunk is the size of a page buffer's chunks after the first,
// allocated pageSlab bytes at a time; pageHead is the size of a buffer's
// first chunk, allocated headSlab bytes at a time.
const (
	pageChunk = 1 << 20
	pageSlab  = 8 << 20
	pageHead  = 16 << 10
	headSlab  = 1 << 20
)

// locate returns the chunk holding byte off of a buffer and the offset
// in it.
func locate(off int) (chunk, within int) {
	if off < pageHead {
		return 0, off
	}
	off -= pageHead
	return 1 + off/pageChunk, off % pageChunk
}

// pageChunkStart returns the offset in a buffer of its chunk i.
func pageChunkStart(i int) int {
	if i == 0 {
		return 0
	}
	return pageHead + (i-1)*pageChunk
}

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
	if len(b.chunks) > 0 {
		p.heads = append(p.heads, b.chunks[0])
		p.chunks = append(p.chunks, b.chunks[1:]...)
	}
	clear(b.chunks)
	b.chunks, b.size, b.off = b.chunks[:0], 0, 0
	p.bufs = append(p.bufs, b)
	p.mu.Unlock()
}

// chunk returns a free chunk for chunk i of a buffer: a head for the
// first, a pageChunk for the others.
func (p *pagePool) chunk(i int) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i == 0 {
		return take(&p.heads, pageHead, headSlab)
	}
	return take(&p.chunks, pageChunk, pageSlab)
}

// take pops a chunk of size bytes from the free list, refilling it with
// a slab of slab bytes first when it is empty. Slabs are advised to huge
// pages: fewer first-touch page faults.
func take(free *[][]byte, size, slab int) []byte {
	if len(*free) == 0 {
		s := make([]byte, slab)
		hugepage.Advise(s)
		for i := 0; i < slab; i += size {
			*free = append(*free, s[i:i+size:i+size])
		}
	}
	n := len(*free)
	c := (*free)[n-1]
	*free = (*free)[:n-1]
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
		i, w := locate(b.off)
		if i == len(b.chunks) {
			b.chunks = append(b.chunks, b.pool.chunk(i))
		}
		k := copy(b.chunks[i][w:], p)
		b.off += k
		p = p[k:]
	}
	b.size = max(b.size, b.off)
	return n, nil
}

// next returns the bytes from the offset to the end of its chunk.
func (b *pageBuf) next() []byte {
	i, w := locate(b.off)
	c := b.chunks[i]
	return c[w:min(len(c), b.size-pageChunkStart(i))]
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
