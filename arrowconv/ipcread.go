package arrowconv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Reading IPC data safely. arrow-go trusts the lengths in IPC messages: it
// allocates a claimed metadata or body length before reading it, slices
// buffers by claimed offsets, and builds arrays of the claimed length over
// whatever buffers there are (a panic, which it recovers as "runtime
// error: slice bounds out of range"). So [NewIPCReader] reads the messages
// itself (msgReader, an ipc.MessageReader) and hands arrow-go only messages
// whose lengths it has checked:
//
//   - metadata and body lengths against the input's size when it is known
//     (and against maxIPCMeta and MaxIPCBuffer always); bodies of an input
//     of unknown size are read as they arrive, never allocated up front;
//   - every buffer of a record or dictionary batch lies inside its body,
//     and a compressed buffer's uncompressed length is at most MaxIPCBuffer
//     and at most what its codec can expand its compressed bytes to;
//   - every array of a record batch, walked in the schema's order as
//     arrow-go's loader walks it, has the length of the batch (top level)
//     or enough values for its parent, and buffers large enough for its
//     length (validity bitmap, fixed-width values, offsets).
//
// After arrow-go has built a record batch, array.ValidateRecordFull checks
// what only the data can tell (offsets inside their values, dictionary
// indices). Any failure is a *CorruptError.

// CorruptError reports IPC data whose lengths, offsets or values contradict
// each other: a truncated, damaged or hostile file.
type CorruptError struct {
	Msg string
}

func (e *CorruptError) Error() string { return "arrowconv: corrupt IPC data: " + e.Msg }

func corruptf(format string, args ...any) error {
	return &CorruptError{Msg: fmt.Sprintf(format, args...)}
}

// Message header types not in ipcinfo.go.
const msgDictionaryBatch = 2

// msgSource yields the metadata flatbuffer and body of each message in
// turn; io.EOF after the last one.
type msgSource interface {
	next() (meta, body []byte, where string, err error)
}

// streamSource reads the messages of an IPC stream in order. size is the
// number of bytes the stream may take (-1: unknown).
type streamSource struct {
	r    io.Reader
	pos  int64
	size int64
	one  bool // stop after one message (the schema of a file)
	done bool

	batches, dicts int // seen so far
}

func (s *streamSource) remain() int64 {
	if s.size < 0 {
		return math.MaxInt64
	}
	return s.size - s.pos
}

func (s *streamSource) next() (meta, body []byte, where string, err error) {
	if s.done {
		return nil, nil, "", io.EOF
	}
	if s.one {
		s.done = true
	}
	pos := s.pos
	var pre [8]byte
	k, err := io.ReadFull(s.r, pre[:4])
	if err == io.EOF {
		return nil, nil, "", io.EOF // a stream may end without its end marker
	}
	if err != nil {
		return nil, nil, "", readErr(err, "IPC stream truncated at byte %d: %d bytes of a message header", pos, k)
	}
	mlen := int64(int32(binary.LittleEndian.Uint32(pre[:])))
	hdr := int64(4)
	if uint32(mlen) == 0xFFFFFFFF {
		if k, err := io.ReadFull(s.r, pre[4:]); err != nil {
			return nil, nil, "", readErr(err, "IPC stream truncated at byte %d: %d bytes of a message header", pos, 4+k)
		}
		hdr = 8
		mlen = int64(int32(binary.LittleEndian.Uint32(pre[4:])))
	}
	if mlen == 0 {
		s.done = true
		return nil, nil, "", io.EOF // end of stream
	}
	if mlen < 0 || mlen > maxIPCMeta {
		return nil, nil, "", corruptf("IPC message at byte %d: invalid metadata length %d", pos, mlen)
	}
	if mlen > s.remain()-hdr {
		return nil, nil, "", corruptf("IPC stream truncated: the message at byte %d needs %d bytes of metadata, %d remain", pos, mlen, s.remain()-hdr)
	}
	meta = make([]byte, mlen)
	if _, err := io.ReadFull(s.r, meta); err != nil {
		return nil, nil, "", readErr(err, "IPC stream truncated: the message at byte %d needs %d bytes of metadata", pos, mlen)
	}
	typ, _, blen, err := parseMessage(meta)
	if err != nil {
		return nil, nil, "", corruptf("IPC message at byte %d: %v", pos, err)
	}
	switch typ {
	case msgRecordBatch:
		where = fmt.Sprintf("record batch %d (byte %d)", s.batches, pos)
		s.batches++
	case msgDictionaryBatch:
		where = fmt.Sprintf("dictionary batch %d (byte %d)", s.dicts, pos)
		s.dicts++
	default:
		where = fmt.Sprintf("the message at byte %d", pos)
	}
	if blen < 0 {
		return nil, nil, "", corruptf("IPC message at byte %d: invalid body length %d", pos, blen)
	}
	if rem := s.remain() - hdr - mlen; blen > rem {
		return nil, nil, "", corruptf("IPC stream truncated: the message at byte %d has a body of %d bytes, %d remain", pos, blen, rem)
	}
	if blen > int64(MaxIPCBuffer) {
		return nil, nil, "", fmt.Errorf("arrowconv: the IPC message at byte %d has a body of %d bytes, more than arrowconv.MaxIPCBuffer (%d bytes)", pos, blen, MaxIPCBuffer)
	}
	if body, err = readBody(s.r, blen, s.size >= 0); err != nil {
		return nil, nil, "", readErr(err, "IPC stream truncated: the message at byte %d has a body of %d bytes", pos, blen)
	}
	s.pos += hdr + mlen + blen
	return meta, body, where, nil
}

// readBody reads n bytes. With known, n is known to be there (the input's
// size says so) and is allocated at once; otherwise the buffer grows as
// bytes arrive, so a false length fails at the end of the input without a
// large allocation first.
func readBody(r io.Reader, n int64, known bool) ([]byte, error) {
	const chunk = 8 << 20
	if known || n <= chunk {
		b := make([]byte, n)
		_, err := io.ReadFull(r, b)
		return b, err
	}
	var buf bytes.Buffer
	buf.Grow(chunk)
	m, err := buf.ReadFrom(io.LimitReader(r, n))
	if err == nil && m < n {
		err = io.ErrUnexpectedEOF
	}
	return buf.Bytes(), err
}

// readErr words an error reading the input: a short read is corrupt
// (truncated) data, anything else an I/O error.
func readErr(err error, format string, args ...any) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return corruptf(format, args...)
	}
	return fmt.Errorf("arrowconv: reading IPC data: %w", err)
}

// blockSource reads an IPC file by its footer: the schema message after
// the magic, then every dictionary batch, then every record batch.
type blockSource struct {
	blockWalk
	r    io.ReaderAt
	pool *bodyPool
}

func newBlockSource(r io.ReaderAt, size int64, fb *fileBlocks) *blockSource {
	return &blockSource{blockWalk: newBlockWalk(fb, size), r: r, pool: &bodyPool{}}
}

// blockWalk steps through an IPC file's messages by its footer (the
// schema message, then every dictionary batch, then every record batch)
// and reads each one's metadata; blockSource and mapSource differ only
// in how they get a body.
type blockWalk struct {
	size   int64  // the file's
	schema []byte // the Schema message, from the footer
	blocks []ipcBlock
	ndict  int
	i      int
}

func newBlockWalk(fb *fileBlocks, size int64) blockWalk {
	return blockWalk{
		size:   size,
		schema: fb.schema,
		blocks: append(append([]ipcBlock{}, fb.dicts...), fb.batches...),
		ndict:  len(fb.dicts),
	}
}

// step returns the next message's metadata, read from r, with its block;
// the footer's schema comes first, with a zero block (schema true).
func (w *blockWalk) step(r io.ReaderAt) (meta []byte, b ipcBlock, schema bool, where string, err error) {
	if w.schema != nil {
		meta, w.schema = w.schema, nil
		return meta, ipcBlock{}, true, "the footer's schema", nil
	}
	if w.i >= len(w.blocks) {
		return nil, b, false, "", io.EOF
	}
	b = w.blocks[w.i]
	if w.i < w.ndict {
		where = fmt.Sprintf("dictionary batch %d", w.i)
	} else {
		where = fmt.Sprintf("record batch %d", w.i-w.ndict)
	}
	w.i++
	// footerBlocks checked that the block fits the file; a mapping is
	// sliced by it, so check again rather than trust the caller.
	if b.off < 0 || b.meta < 8 || b.body < 0 || b.off+b.meta+b.body > w.size {
		return nil, b, false, where, corruptf("IPC file %s: the block does not fit the file", where)
	}
	buf := make([]byte, b.meta)
	if _, err := r.ReadAt(buf, b.off); err != nil {
		return nil, b, false, where, readErr(err, "IPC file %s: the file ends within its metadata", where)
	}
	hdr := int64(4)
	mlen := int64(int32(binary.LittleEndian.Uint32(buf)))
	if uint32(mlen) == 0xFFFFFFFF {
		hdr = 8
		mlen = int64(int32(binary.LittleEndian.Uint32(buf[4:])))
	}
	if mlen <= 0 || mlen > b.meta-hdr {
		return nil, b, false, where, corruptf("IPC file %s: metadata length %d does not fit its block of %d bytes", where, mlen, b.meta)
	}
	return buf[hdr : hdr+mlen : hdr+mlen], b, false, where, nil
}

func (s *blockSource) next() (meta, body []byte, where string, err error) {
	meta, load, where, err := s.nextLazy()
	if err != nil || load == nil {
		return meta, nil, where, err
	}
	if body, err = load(); err != nil {
		return nil, nil, "", err
	}
	return meta, body, where, nil
}

// nextLazy is next, leaving the body to be read by load (nil for the
// schema), which may be called on another goroutine: the parallel reader
// reads bodies on its decoding goroutines.
func (s *blockSource) nextLazy() (meta []byte, load func() ([]byte, error), where string, err error) {
	meta, b, schema, where, err := s.step(s.r)
	if err != nil || schema {
		return meta, nil, where, err
	}
	return meta, func() ([]byte, error) {
		body := s.pool.get(int(b.body))
		if _, err := s.r.ReadAt(body, b.off+b.meta); err != nil {
			s.pool.Free(body)
			return nil, readErr(err, "IPC file %s: the file ends within its body", where)
		}
		return body, nil
	}, where, nil
}

func (s *blockSource) bodies() *bodyPool { return s.pool }

// bodyPool recycles the bodies of IPC file messages: a body goes back to
// the pool when arrow-go has released the message and every array that
// views it (arrow's reference counts), so a file is read into a few
// buffers instead of fresh memory per batch (page faults, heap growth).
type bodyPool struct {
	mu   sync.Mutex
	free [][]byte
}

// maxPooled bounds the bodies a pool keeps.
const maxPooled = 4

func (p *bodyPool) get(n int) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	best := -1
	for i, b := range p.free {
		if cap(b) >= n && (best < 0 || cap(b) < cap(p.free[best])) {
			best = i
		}
	}
	if best < 0 {
		return make([]byte, n)
	}
	b := p.free[best]
	p.free = append(p.free[:best], p.free[best+1:]...)
	return b[:n]
}

// Allocate, Reallocate and Free make the pool the memory.Allocator of the
// body buffers: Free is the return to the pool.
func (p *bodyPool) Allocate(n int) []byte { return p.get(n) }

func (p *bodyPool) Reallocate(n int, b []byte) []byte {
	nb := p.get(n)
	copy(nb, b)
	p.Free(b)
	return nb
}

func (p *bodyPool) Free(b []byte) {
	if cap(b) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < maxPooled {
		p.free = append(p.free, b[:0])
		return
	}
	// Keep the largest buffers.
	small := 0
	for i, f := range p.free {
		if cap(f) < cap(p.free[small]) {
			small = i
		}
	}
	if cap(b) > cap(p.free[small]) {
		p.free[small] = b[:0]
	}
}

// msgReader is an ipc.MessageReader over a msgSource that checks every
// message before arrow-go decodes it.
type msgReader struct {
	refs   atomic.Int64
	src    msgSource
	schema *arrow.Schema // set once arrow-go has decoded the schema
	msgs   int
	err    error // the error this reader returned, if any
	cur    *ipc.Message
	batch  *batchCheck // the last record batch checked, if its buffers were
}

func (m *msgReader) Retain() { m.refs.Add(1) }

func (m *msgReader) Release() {
	if m.refs.Add(-1) == 0 && m.cur != nil {
		m.cur.Release()
		m.cur = nil
	}
}

// Message returns the next message, checked.
func (m *msgReader) Message() (*ipc.Message, error) {
	if m.cur != nil {
		m.cur.Release()
		m.cur = nil
	}
	if m.err != nil {
		return nil, m.err
	}
	meta, body, where, err := m.src.next()
	m.batch = nil
	if err == nil {
		err = m.check(meta, body, where)
	}
	if err != nil {
		if err != io.EOF {
			m.err = err
		}
		return nil, err
	}
	m.msgs++
	ps, pooled := m.src.(interface{ bodies() *bodyPool })
	if m.batch != nil && m.batch.codec == 1 {
		alloc := func(n int) []byte { return make([]byte, n) }
		if pooled {
			alloc = ps.bodies().get
		}
		if nm, nb, ok := unzstdBatch(meta, body, m.batch, alloc); ok {
			if pooled {
				ps.bodies().Free(body)
			}
			meta, body = nm, nb
		} else if nb != nil && pooled {
			ps.bodies().Free(nb)
		}
	}
	m.batch = nil
	bb := memory.NewBufferBytes(body)
	if pooled && body != nil {
		bb = memory.NewBufferWithAllocator(body, ps.bodies())
	}
	m.cur = ipc.NewMessage(memory.NewBufferBytes(meta), bb)
	bb.Release() // the message holds it
	return m.cur, nil
}

// check checks the lengths in one message against its body and, for a
// record batch, against the schema.
func (m *msgReader) check(meta, body []byte, where string) error {
	msg, err := fbRoot(meta)
	if err != nil {
		return corruptf("%s: %v", where, err)
	}
	typ, err := msg.uint8(1)
	if err != nil {
		return corruptf("%s: %v", where, err)
	}
	version, err := msg.int16(0)
	if err != nil {
		return corruptf("%s: %v", where, err)
	}
	header, ok, err := msg.table(2)
	if err != nil {
		return corruptf("%s: %v", where, err)
	}
	switch {
	case m.msgs == 0 && typ != msgSchema:
		return corruptf("%s: the data does not start with a schema message (type %d)", where, typ)
	case m.msgs > 0 && typ == msgSchema:
		return corruptf("%s: a second schema message", where)
	case !ok && (typ == msgSchema || typ == msgRecordBatch || typ == msgDictionaryBatch):
		return corruptf("%s: a message of type %d without its header", where, typ)
	}
	switch typ {
	case msgSchema:
		if err := verifySchema(header); err != nil {
			return corruptf("%s: schema: %v", where, err)
		}
	case msgDictionaryBatch:
		data, ok, err := header.table(1)
		if err != nil || !ok {
			return corruptf("%s: a dictionary batch without its data (%v)", where, err)
		}
		c, err := newBatchCheck(data, body, version, where)
		if err != nil {
			return err
		}
		return c.buffers() // the value type is known to arrow-go's memo only
	case msgRecordBatch:
		c, err := newBatchCheck(header, body, version, where)
		if err != nil {
			return err
		}
		if err := c.buffers(); err != nil {
			return err
		}
		m.batch = c
		if m.schema == nil {
			return corruptf("%s: a record batch before the schema", where)
		}
		for _, f := range m.schema.Fields() {
			if err := c.array(f.Type, f.Name, c.rows, true, 0); err != nil {
				if err == errUnchecked {
					return nil // a layout this check does not know; ValidateRecordFull follows
				}
				return err
			}
		}
	}
	return nil
}

// errUnchecked stops the layout walk at a type whose layout batchCheck
// does not know.
var errUnchecked = errors.New("layout not checked")

// batchCheck walks the field nodes and buffers of a RecordBatch table.
type batchCheck struct {
	where       string
	rows        int64
	nodes, bufs []byte // vectors of 16-byte structs
	variadic    []byte // vector of int64
	ni, bi, vi  int
	body        []byte
	codec       int     // -1: uncompressed
	sizes       []int64 // usable (decompressed) size of each buffer
	v5          bool
}

func newBatchCheck(rb fbTable, body []byte, version int16, where string) (*batchCheck, error) {
	c := &batchCheck{where: where, body: body, codec: -1, v5: version >= 4}
	var err error
	if c.rows, err = rb.int64(0); err != nil {
		return nil, corruptf("%s: %v", where, err)
	}
	if c.rows < 0 {
		return nil, corruptf("%s: a batch of %d rows", where, c.rows)
	}
	vec := func(i, elem int) ([]byte, error) {
		start, n, err := rb.vector(i, elem)
		if err != nil {
			return nil, corruptf("%s: %v", where, err)
		}
		return rb.b[start : start+n*elem], nil
	}
	if c.nodes, err = vec(1, 16); err != nil {
		return nil, err
	}
	if c.bufs, err = vec(2, 16); err != nil {
		return nil, err
	}
	if c.variadic, err = vec(4, 8); err != nil {
		return nil, err
	}
	// arrow-go sizes the buffer list of a binary-view array by its
	// variadic buffer count before taking a buffer: each count must be
	// buffers of this batch (the dictionary batches' value types are not
	// known here, so the check is on the counts themselves).
	nbufs := int64(len(c.bufs) / 16)
	var sum int64
	for i := 0; i < len(c.variadic)/8; i++ {
		k := int64(binary.LittleEndian.Uint64(c.variadic[8*i:]))
		if k < 0 || k > nbufs-sum {
			return nil, corruptf("%s: variadic buffer count %d of binary-view array %d, but the batch has %d buffers", where, k, i, nbufs)
		}
		sum += k
	}
	if comp, ok, err := rb.table(3); err != nil {
		return nil, corruptf("%s: %v", where, err)
	} else if ok {
		codec, err := comp.uint8(0)
		if err != nil {
			return nil, corruptf("%s: %v", where, err)
		}
		if codec > 1 {
			return nil, corruptf("%s: unknown compression codec %d", where, codec)
		}
		c.codec = int(codec)
	}
	return c, nil
}

// maxExpand bounds what n compressed bytes can decompress to: LZ4 frames
// expand at most about 255 times, zstd frames at most 32768 times (a
// 4-byte RLE block for 128 KiB), plus room for tiny inputs.
func maxExpand(codec int, n int64) int64 {
	ratio := int64(256)
	if codec == 1 {
		ratio = 32768
	}
	if n > math.MaxInt64/ratio-(1<<17) {
		return math.MaxInt64
	}
	return n*ratio + 1<<17
}

// buffers checks every buffer of the batch against the body and records
// its usable size.
func (c *batchCheck) buffers() error {
	n := len(c.bufs) / 16
	c.sizes = make([]int64, n)
	blen := int64(len(c.body))
	for i := range n {
		off := int64(binary.LittleEndian.Uint64(c.bufs[16*i:]))
		size := int64(binary.LittleEndian.Uint64(c.bufs[16*i+8:]))
		if off < 0 || size < 0 || off > blen || size > blen-off {
			return corruptf("%s: buffer %d (offset %d, %d bytes) does not fit the body of %d bytes", c.where, i, off, size, blen)
		}
		if c.codec < 0 || size == 0 {
			c.sizes[i] = size
			continue
		}
		if size < 8 {
			return corruptf("%s: compressed buffer %d of %d bytes lacks its 8-byte length", c.where, i, size)
		}
		u := int64(binary.LittleEndian.Uint64(c.body[off:]))
		switch {
		case u == -1: // stored uncompressed
			c.sizes[i] = size - 8
		case u < 0 || u > maxExpand(c.codec, size-8):
			return corruptf("%s: compressed buffer %d claims %d bytes uncompressed from %d bytes", c.where, i, u, size-8)
		case u > int64(MaxIPCBuffer):
			return fmt.Errorf("arrowconv: %s: buffer %d of %d bytes exceeds arrowconv.MaxIPCBuffer (%d bytes)", c.where, i, u, MaxIPCBuffer)
		default:
			c.sizes[i] = u
		}
	}
	return nil
}

func (c *batchCheck) node(path string) (length, nulls int64, err error) {
	if c.ni >= len(c.nodes)/16 {
		return 0, 0, corruptf("%s: no field node for %q: the batch has %d, the schema needs more", c.where, path, len(c.nodes)/16)
	}
	length = int64(binary.LittleEndian.Uint64(c.nodes[16*c.ni:]))
	nulls = int64(binary.LittleEndian.Uint64(c.nodes[16*c.ni+8:]))
	c.ni++
	if length < 0 || nulls < 0 || nulls > length {
		return 0, 0, corruptf("%s: column %q: %d values with %d nulls", c.where, path, length, nulls)
	}
	return length, nulls, nil
}

// buffer takes the next buffer, which must hold need bytes for the n
// values of column path.
func (c *batchCheck) buffer(path, what string, n, need int64) error {
	if c.bi >= len(c.sizes) {
		return corruptf("%s: no %s buffer for column %q: the batch has %d buffers, the schema needs more", c.where, what, path, len(c.sizes))
	}
	have := c.sizes[c.bi]
	c.bi++
	if need > have {
		return corruptf("%s: column %q: %d values need %d bytes of %s, the buffer holds %d", c.where, path, n, need, what, have)
	}
	return nil
}

// nbytes is the size of n elements of bits bits each, or -1 on overflow
// (no buffer holds that).
func nbytes(n, bits int64) int64 {
	if bits > 0 && n > (math.MaxInt64-7)/bits {
		return math.MaxInt64
	}
	return (n*bits + 7) / 8
}

// array checks one array of type dt and its children, as arrow-go's
// loader (ipc arrayLoaderContext.loadArray) consumes nodes and buffers: it
// needs minLen values at least (exactly, for a column).
func (c *batchCheck) array(dt arrow.DataType, path string, minLen int64, exact bool, depth int) error {
	for {
		ext, ok := dt.(arrow.ExtensionType)
		if !ok {
			break
		}
		dt = ext.StorageType()
	}
	if depth > maxDepth {
		return corruptf("%s: column %q nests too deeply", c.where, path)
	}
	n, nulls, err := c.node(path)
	if err != nil {
		return err
	}
	if exact && n != minLen {
		return corruptf("%s: column %q has %d rows, the record batch %d", c.where, path, n, minLen)
	}
	if n < minLen {
		return corruptf("%s: column %q has %d values, its parent needs %d", c.where, path, n, minLen)
	}
	id := dt.ID()
	validity := id != arrow.NULL
	if c.v5 {
		validity = validity && id != arrow.SPARSE_UNION && id != arrow.DENSE_UNION && id != arrow.RUN_END_ENCODED
	}
	if validity {
		if nulls == 0 {
			c.bi++ // not read
		} else if err := c.buffer(path, "validity bitmap", n, nbytes(n, 1)); err != nil {
			return err
		}
	}
	child := func(t arrow.DataType, name string, min int64) error {
		return c.array(t, path+"."+name, min, false, depth+1)
	}
	switch dt := dt.(type) {
	case *arrow.NullType:
		return nil
	case *arrow.DictionaryType:
		return c.fixed(dt.IndexType, path, n)
	case *arrow.BinaryType, *arrow.StringType:
		return c.varlen(path, n, 32)
	case *arrow.LargeBinaryType, *arrow.LargeStringType:
		return c.varlen(path, n, 64)
	case *arrow.FixedSizeBinaryType:
		return c.buffer(path, "values", n, nbytes(n, 8*int64(dt.ByteWidth)))
	case arrow.BinaryViewDataType:
		// arrow-go takes the next variadic count, the views (16 bytes
		// each) and that many data buffers; where the views point is the
		// data's to tell (array.ValidateFull).
		if c.vi >= len(c.variadic)/8 {
			return corruptf("%s: column %q: no variadic buffer count for it (the batch has %d)", c.where, path, len(c.variadic)/8)
		}
		k := int64(binary.LittleEndian.Uint64(c.variadic[8*c.vi:]))
		c.vi++
		if err := c.buffer(path, "views", n, nbytes(n, 128)); err != nil {
			return err
		}
		for range k {
			if err := c.buffer(path, "variadic data", n, 0); err != nil {
				return err
			}
		}
		return nil
	case *arrow.MapType:
		if err := c.offsets(path, n, 32); err != nil {
			return err
		}
		return child(dt.Elem(), "entries", 0)
	case *arrow.ListType:
		if err := c.offsets(path, n, 32); err != nil {
			return err
		}
		return child(dt.Elem(), "item", 0)
	case *arrow.LargeListType:
		if err := c.offsets(path, n, 64); err != nil {
			return err
		}
		return child(dt.Elem(), "item", 0)
	case *arrow.FixedSizeListType:
		size := int64(dt.Len())
		if size < 0 || size > 0 && n > math.MaxInt64/size {
			return corruptf("%s: column %q: %d lists of %d values", c.where, path, n, size)
		}
		return child(dt.Elem(), "item", n*size)
	case *arrow.StructType:
		for _, f := range dt.Fields() {
			if err := child(f.Type, f.Name, n); err != nil {
				return err
			}
		}
		return nil
	case arrow.FixedWidthDataType:
		return c.fixed(dt, path, n)
	}
	return errUnchecked
}

// fixed checks the values buffer of a fixed-width array of n values,
// which arrow-go does not read for an empty array.
func (c *batchCheck) fixed(dt arrow.DataType, path string, n int64) error {
	fw, ok := dt.(arrow.FixedWidthDataType)
	if !ok {
		return errUnchecked
	}
	if n == 0 {
		c.bi++
		return nil
	}
	return c.buffer(path, "values", n, nbytes(n, int64(fw.BitWidth())))
}

// offsets checks the offsets buffer of n lists or strings.
func (c *batchCheck) offsets(path string, n, bits int64) error {
	need := int64(0)
	if n > 0 {
		need = nbytes(n+1, bits)
	}
	return c.buffer(path, "offsets", n, need)
}

// varlen checks the offsets and data buffers of n strings; where the
// offsets point is the data's to tell (array.ValidateFull).
func (c *batchCheck) varlen(path string, n, bits int64) error {
	if err := c.offsets(path, n, bits); err != nil {
		return err
	}
	return c.buffer(path, "values", n, 0)
}

// ipcRecordReader reads record batches through arrow-go's stream reader
// fed by a msgReader, and validates each batch before handing it out.
type ipcRecordReader struct {
	refs atomic.Int64
	rd   *ipc.Reader
	mr   *msgReader
	cur  arrow.RecordBatch
	n    int // record batches read
	err  error
}

// newIPCRecordReader starts reading the messages of src.
func newIPCRecordReader(src msgSource, mem memory.Allocator) (*ipcRecordReader, error) {
	mr := &msgReader{src: src}
	mr.refs.Add(1)
	rd, err := ipc.NewReaderFromMessageReader(mr, ipc.WithAllocator(mem))
	if err != nil {
		// arrow-go has released mr.
		if mr.err != nil {
			return nil, mr.err
		}
		return nil, corruptf("schema: %s", arrowMsg(err))
	}
	mr.schema = rd.Schema()
	r := &ipcRecordReader{rd: rd, mr: mr}
	r.refs.Add(1)
	return r, nil
}

func (r *ipcRecordReader) Retain() { r.refs.Add(1) }

func (r *ipcRecordReader) Release() {
	if r.refs.Add(-1) == 0 {
		r.cur = nil
		r.rd.Release() // releases mr too
	}
}

func (r *ipcRecordReader) Schema() *arrow.Schema { return r.rd.Schema() }

func (r *ipcRecordReader) Next() bool {
	r.cur = nil
	if r.err != nil {
		return false
	}
	if !r.rd.Next() {
		if err := r.rd.Err(); err != nil {
			if r.mr.err != nil {
				r.err = r.mr.err
			} else {
				r.err = corruptf("record batch %d: %s", r.n, arrowMsg(err))
			}
		}
		return false
	}
	rec := r.rd.RecordBatch()
	if err := validateRecord(rec); err != nil {
		r.err = corruptf("record batch %d: %s", r.n, arrowMsg(err))
		return false
	}
	r.n++
	r.cur = rec
	return true
}

// arrowMsg is an arrow-go error without the package prefixes arrow-go
// puts at each level ("arrow/ipc: unknown error while reading: ..."). A
// panic arrow-go recovered itself (its readers do) is said in words about
// the data instead of Go's (see [panicMeaning]), after the context
// arrow-go gives ("column 3 (st): field "x": failed to construct child
// array").
func arrowMsg(err error) string {
	return panicMeaning(err.Error())
}

// panicMeaning words a panic in arrow-go (a message, a runtime error or
// any other value), reading IPC data that passed the checks above: what
// a runtime error means about the data, without Go's words.
func panicMeaning(p any) string {
	msg := fmt.Sprint(p)
	for _, p := range []string{"arrow/ipc: unknown error while reading: ", "arrow/ipc: ", "arrow/array: ", "arrow: "} {
		msg = strings.ReplaceAll(msg, p, "")
	}
	msg = strings.Join(strings.Fields(msg), " ")
	i := strings.Index(msg, "runtime error: ")
	if i < 0 {
		return msg
	}
	ctx, s := strings.TrimSuffix(strings.TrimSpace(msg[:i]), ":"), msg[i:]
	var what string
	switch {
	case strings.Contains(s, "makeslice"), strings.Contains(s, "makemap"):
		what = "a length too large for any buffer"
	case strings.Contains(s, "out of range"):
		what = "an offset or a length points outside its buffer"
	case strings.Contains(s, "nil pointer"), strings.Contains(s, "invalid memory address"):
		what = "a buffer or table it needs is missing"
	case strings.Contains(s, "divide by zero"):
		what = "a size of zero where one is needed"
	default:
		what = "its metadata and buffers contradict each other"
	}
	what += " (arrow-go cannot load it)"
	if ctx != "" {
		return ctx + ": " + what
	}
	return what
}

// validateRecord is array.ValidateRecordFull. arrow-go's validation
// panics on some layouts batchCheck does not know (views, unions, run-end
// encoding with inconsistent buffers): such a panic is an error about the
// data.
func validateRecord(rec arrow.RecordBatch) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errors.New("arrow-go panicked validating it: " + panicMeaning(p))
		}
	}()
	return array.ValidateRecordFull(rec)
}

func (r *ipcRecordReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record returns the current record batch (deprecated in arrow-go).
func (r *ipcRecordReader) Record() arrow.RecordBatch { return r.cur }

func (r *ipcRecordReader) Err() error { return r.err }

var _ array.RecordReader = (*ipcRecordReader)(nil)
