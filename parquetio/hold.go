package parquetio

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/parquet-go/parquet-go/format"
)

// Column chunks are read once: the page checks (scan) need the chunk's
// bytes before arrow-go reads it, and arrow-go then reads the whole chunk
// itself with one ReadAt. A chunk of at most holdBudget bytes is read
// whole for the checks and held; arrow-go's read of it is served from the
// held bytes (through heldReader, the io.ReaderAt arrow-go reads from),
// which are then dropped. The pages of chunks beyond the budget are
// checked from the source, their headers alone (read in windows of
// headerWindow bytes), and their CRCs are checked on the bytes arrow-go
// reads, before arrow-go gets them.

// holdBudget bounds the bytes of column chunks held at once (per Reader):
// the row groups npyflow writes fit (with their page headers).
var holdBudget int64 = MaxRowGroupBytes + 1<<20

// heldReader is the io.ReaderAt arrow-go reads the file through: it
// serves a read starting where a held chunk starts from that chunk (and
// the rest, if any, from src), once.
type heldReader struct {
	src  io.ReaderAt
	mu   sync.Mutex
	held map[int64][]byte // by the chunk's first byte in the file
	size int64            // bytes held
	// crcs holds the page CRCs of chunks not held, by the chunk's first
	// byte: they are checked on arrow-go's read of the chunk.
	crcs map[int64][]pageCRC
}

func newHeldReader(src io.ReaderAt) *heldReader {
	return &heldReader{src: src}
}

// ReadAt implements io.ReaderAt.
func (h *heldReader) ReadAt(p []byte, off int64) (int, error) {
	h.mu.Lock()
	b, ok := h.held[off]
	if ok {
		delete(h.held, off)
		h.size -= int64(len(b))
	}
	crcs := h.crcs[off]
	if !ok && crcs != nil {
		delete(h.crcs, off)
	}
	h.mu.Unlock()
	if !ok {
		k, err := h.src.ReadAt(p, off)
		if k < len(p) || crcs == nil {
			return k, err
		}
		end := off + int64(len(p))
		for i := range crcs {
			pc := &crcs[i]
			if pc.off < off || pc.off+int64(pc.n) > end {
				return 0, fmt.Errorf("column chunk at byte %d read in part: its page CRCs are not checked", off)
			}
			if err := pc.check(p[pc.off-off : pc.off-off+int64(pc.n)]); err != nil {
				return 0, err
			}
		}
		return k, err
	}
	n := copy(p, b)
	if n == len(p) {
		return n, nil
	}
	k, err := h.src.ReadAt(p[n:], off+int64(n))
	return n + k, err
}

// hold reads the n bytes at off from src and holds them for one read by
// arrow-go, if the budget allows; it returns nil if not.
func (h *heldReader) hold(off, n int64) ([]byte, error) {
	h.mu.Lock()
	fits := h.size+n <= holdBudget
	h.mu.Unlock()
	if !fits {
		return nil, nil
	}
	b := make([]byte, n)
	if k, err := h.src.ReadAt(b, off); int64(k) < n {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("reading the column chunk: %w", err)
	}
	h.mu.Lock()
	if h.held == nil {
		h.held = make(map[int64][]byte)
	}
	if old, ok := h.held[off]; ok {
		h.size -= int64(len(old))
	}
	h.held[off] = b
	h.size += n
	h.mu.Unlock()
	return b, nil
}

// drop releases every held chunk.
func (h *heldReader) drop() {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.held, h.size = nil, 0
	h.mu.Unlock()
}

// scanChunk checks the pages of column chunk m (scan), reading the chunk
// once and holding it for arrow-go when h has room for it.
func (cs *chunkScanner) scanChunk(h *heldReader, m *format.ColumnMetaData) (int64, error) {
	start, _ := chunkStart(m)
	b, err := h.hold(start, m.TotalCompressedSize)
	if err != nil {
		return 0, err
	}
	if b == nil {
		return cs.scanDeferred(h, m)
	}
	n, err := cs.scan(&offsetReader{bytes.NewReader(b), start}, m)
	if err != nil {
		h.drop()
	}
	return n, err
}

// scanDeferred checks the pages of column chunk m, not held, from the
// source; their CRCs are checked as arrow-go reads the chunk, where
// arrow-go's read starts where the chunk does (else now).
func (cs *chunkScanner) scanDeferred(h *heldReader, m *format.ColumnMetaData) (int64, error) {
	start, _ := chunkStart(m)
	if start != arrowStart(m) {
		return cs.scan(h.src, m)
	}
	var crcs []pageCRC
	cs.crcs = &crcs
	n, err := cs.scan(h.src, m)
	cs.crcs = nil
	if err != nil || len(crcs) == 0 {
		return n, err
	}
	h.mu.Lock()
	if h.crcs == nil {
		h.crcs = make(map[int64][]pageCRC)
	}
	h.crcs[start] = crcs
	h.mu.Unlock()
	return n, nil
}

// arrowStart is where arrow-go starts reading a column chunk.
func arrowStart(m *format.ColumnMetaData) int64 {
	s := m.DataPageOffset
	if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < s {
		s = m.DictionaryPageOffset
	}
	return s
}

// offsetReader reads the bytes of a file held from byte base on.
type offsetReader struct {
	r    *bytes.Reader
	base int64
}

func (o *offsetReader) ReadAt(p []byte, off int64) (int, error) {
	if off < o.base {
		return 0, fmt.Errorf("read before the held column chunk")
	}
	return o.r.ReadAt(p, off-o.base)
}
