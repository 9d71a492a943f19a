package arrowconv

import (
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Parallel decoding of compressed record batches.
//
// arrow-go's IPC reader decompresses the buffers of one record batch after
// the other on the goroutine calling Next. When the first record batch of
// the input is compressed (LZ4_FRAME or ZSTD) and the schema has no
// dictionary-encoded field, newIPCReaderThreads instead reads the
// messages in order on one goroutine and hands each record batch to one of
// several decoding goroutines, each decoding it on its own (an arrow-go
// reader over the schema message and that batch, checked and validated as
// the serial reader checks them); Next returns the batches in input
// order. At most 2 batches per goroutine are read ahead of the consumer,
// and fewer when that many batches the size of the first would hold over
// 256 MiB (parAheadBytes).
// From an IPC file (an io.ReaderAt) the decoding goroutines also read the
// bodies; the reading goroutine reads only the metadata.
// Anything else (uncompressed batches, whose buffers arrow-go views in
// place; dictionaries, whose batches depend on earlier ones; one thread)
// is read by the serial reader, unchanged.

// savedMsg is one message read ahead from a msgSource (or its error).
// With load set, the body is still to be read by it.
type savedMsg struct {
	meta, body []byte
	load       func() ([]byte, error)
	where      string
	err        error
}

// lazySource is a msgSource that can leave a body to be read later
// (blockSource: an io.ReaderAt).
type lazySource interface {
	nextLazy() (meta []byte, load func() ([]byte, error), where string, err error)
}

// replaySource returns the messages it was given, then those of src.
type replaySource struct {
	saved []savedMsg
	src   msgSource
}

func (s *replaySource) next() (meta, body []byte, where string, err error) {
	if len(s.saved) > 0 {
		m := s.saved[0]
		s.saved = s.saved[1:]
		return m.meta, m.body, m.where, m.err
	}
	return s.src.next()
}

// nextMsg is next, leaving the body to be read by the message's load
// when the source can.
func (s *replaySource) nextMsg() savedMsg {
	if len(s.saved) == 0 {
		if ls, ok := s.src.(lazySource); ok {
			meta, load, where, err := ls.nextLazy()
			return savedMsg{meta: meta, load: load, where: where, err: err}
		}
	}
	meta, body, where, err := s.next()
	return savedMsg{meta: meta, body: body, where: where, err: err}
}

// pooledSource is a msgSource whose bodies come from a pool.
type pooledSource interface {
	msgSource
	bodies() *bodyPool
}

// withPool is src, with the pool's bodies() when pool is not nil.
func withPool(src msgSource, pool *bodyPool) msgSource {
	if pool == nil {
		return src
	}
	return pooledList{src, pool}
}

type pooledList struct {
	msgSource
	pool *bodyPool
}

func (p pooledList) bodies() *bodyPool { return p.pool }

// batchCompressed reports a record batch message whose buffers are
// compressed.
func batchCompressed(meta []byte) bool {
	msg, err := fbRoot(meta)
	if err != nil {
		return false
	}
	if typ, err := msg.uint8(1); err != nil || typ != msgRecordBatch {
		return false
	}
	h, ok, err := msg.table(2)
	if err != nil || !ok {
		return false
	}
	_, ok, err = h.table(3)
	return err == nil && ok
}

// hasDictionary reports a dictionary-encoded field anywhere in fields.
func hasDictionary(fields []arrow.Field) bool {
	for _, f := range fields {
		if f.Type.ID() == arrow.DICTIONARY {
			return true
		}
		if n, ok := f.Type.(arrow.NestedType); ok && hasDictionary(n.Fields()) {
			return true
		}
	}
	return false
}

// newIPCReaderThreads is newIPCRecordReader, decoding compressed record
// batches on threads goroutines (0: GOMAXPROCS) as the notes above say.
// The buffers of compressed batches (without dictionaries) come from a
// recycler (see [ipcRecycler]) whatever threads says.
func newIPCReaderThreads(src msgSource, mem memory.Allocator, threads int) (array.RecordReader, error) {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	rs := &replaySource{src: src}
	var pool *bodyPool
	if ps, ok := src.(pooledSource); ok {
		pool = ps.bodies()
	}
	for range 2 { // the schema and the first record batch
		meta, body, where, err := src.next()
		rs.saved = append(rs.saved, savedMsg{meta: meta, body: body, where: where, err: err})
		if err != nil {
			break
		}
	}
	serial := func(mem memory.Allocator) (array.RecordReader, error) {
		return newIPCRecordReader(withPool(rs, pool), mem)
	}
	if len(rs.saved) < 2 || rs.saved[1].err != nil || !batchCompressed(rs.saved[1].meta) {
		return serial(mem)
	}
	schemaMsg := rs.saved[0]
	sr, err := newIPCRecordReader(&replaySource{saved: []savedMsg{schemaMsg, {err: io.EOF}}}, mem)
	if err != nil {
		return serial(mem)
	}
	schema := sr.Schema()
	sr.Release()
	if hasDictionary(schema.Fields()) {
		return serial(mem)
	}
	est, nbuf := batchSize(rs.saved[1])
	rc := ipcRecycler(mem, est, nbuf)
	if threads == 1 {
		rr, err := serial(rc)
		if err != nil {
			rc.close()
			return nil, err
		}
		return newRecycledReader(rr, rc), nil
	}
	// The window: 2 batches per goroutine, fewer (and fewer goroutines)
	// when batches the size of the first would hold over parAheadBytes.
	window := 2 * threads
	if est > 0 {
		window = int(max(1, min(int64(window), parAheadBytes/est)))
	}
	threads = min(threads, window)
	p := &parIPCReader{schema: schema, schemaMsg: schemaMsg, src: rs, pool: pool, mem: rc, recycle: rc,
		order: make(chan *parJob, window), work: make(chan *parJob), quit: make(chan struct{})}
	p.refs.Store(1)
	rs.saved = rs.saved[1:]
	p.wg.Add(1 + threads)
	go p.dispatch()
	for range threads {
		go p.decode()
	}
	return p, nil
}

// ipcRecycler is the allocator of the buffers arrow-go decompresses record
// batches into (est bytes in nbuf buffers each, from the first batch; 0
// when unknown): a recycler over mem, so that the buffers of a released
// batch are reused by the next ones instead of fresh memory the runtime
// clears first. arrow-go overwrites all of such a buffer but its padding
// to 64 bytes (io.ReadFull of the decompressor). It keeps at most two
// batches' worth, within [recycleBytes, parAheadBytes].
func ipcRecycler(mem memory.Allocator, est int64, nbuf int) *recycler {
	keep := min(max(int64(recycleBytes), 2*est), max(parAheadBytes, 1))
	return newRecyclerLimit(mem, max(recycleBuffers, 2*nbuf), int(keep))
}

// recycledReader is a record reader whose allocator is a recycler, closed
// when the reader is released.
type recycledReader struct {
	array.RecordReader
	refs atomic.Int64
	rc   *recycler
}

func newRecycledReader(rr array.RecordReader, rc *recycler) *recycledReader {
	r := &recycledReader{RecordReader: rr, rc: rc}
	r.refs.Store(1)
	return r
}

func (r *recycledReader) Retain() { r.refs.Add(1) }

func (r *recycledReader) Release() {
	if r.refs.Add(-1) == 0 {
		r.RecordReader.Release()
		r.rc.close()
	}
}

// parAheadBytes bounds the decoded batches the parallel reader holds
// ahead of its consumer, estimated from the first batch.
var parAheadBytes int64 = 256 << 20

// batchBytes is the decompressed size of a record batch's buffers (0 when
// its lengths do not check out: the decoding reports that).
func batchBytes(m savedMsg) int64 {
	n, _ := batchSize(m)
	return n
}

// batchSize is batchBytes and the number of the batch's buffers.
func batchSize(m savedMsg) (bytes int64, buffers int) {
	msg, err := fbRoot(m.meta)
	if err != nil {
		return 0, 0
	}
	version, err := msg.int16(0)
	if err != nil {
		return 0, 0
	}
	h, ok, err := msg.table(2)
	if err != nil || !ok {
		return 0, 0
	}
	c, err := newBatchCheck(h, m.body, version, "")
	if err != nil || c.buffers() != nil {
		return 0, 0
	}
	var n int64
	for _, v := range c.sizes {
		n += v
	}
	return n, len(c.sizes)
}

// parJob is one message on its way: decoded by a worker, handed out by
// Next in input order.
type parJob struct {
	n    int // record batch number (for messages)
	msg  savedMsg
	rec  arrow.RecordBatch
	err  error
	done chan struct{}
}

// parIPCReader is the record reader of newIPCReaderThreads.
type parIPCReader struct {
	refs      atomic.Int64
	schema    *arrow.Schema
	schemaMsg savedMsg
	src       *replaySource
	pool      *bodyPool
	mem       memory.Allocator
	recycle   *recycler // mem; closed by stop

	order chan *parJob // every job, in input order (bounds the read-ahead)
	work  chan *parJob // jobs for the decoding goroutines
	quit  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once

	cur arrow.RecordBatch
	err error
	end bool
}

// dispatch reads the messages in order and queues them.
func (p *parIPCReader) dispatch() {
	defer p.wg.Done()
	defer close(p.order)
	defer close(p.work)
	for n := 0; ; n++ {
		m := p.src.nextMsg()
		err := m.err
		if err == io.EOF {
			return
		}
		j := &parJob{n: n, msg: m, done: make(chan struct{})}
		if err != nil {
			j.err = err
			close(j.done)
		}
		select {
		case p.order <- j:
		case <-p.quit:
			p.drop(j)
			return
		}
		if err != nil {
			return // the consumer stops at this job
		}
		select {
		case p.work <- j:
		case <-p.quit:
			close(j.done) // Release drains order and waits on done
			return
		}
	}
}

// drop gives back the body of a job that will not be decoded.
func (p *parIPCReader) drop(j *parJob) {
	if p.pool != nil && j.msg.body != nil {
		p.pool.Free(j.msg.body)
	}
}

// decode decodes queued messages until there are none.
func (p *parIPCReader) decode() {
	defer p.wg.Done()
	for j := range p.work {
		select {
		case <-p.quit:
			p.drop(j)
		default:
			j.rec, j.err = p.decodeOne(j)
		}
		close(j.done)
	}
}

// decodeOne decodes one message through the serial reader: the schema
// message, then this one, each checked as the serial reader checks them.
func (p *parIPCReader) decodeOne(j *parJob) (rec arrow.RecordBatch, err error) {
	defer func() {
		if v := recover(); v != nil {
			rec, err = nil, corruptf("record batch %d: %s", j.n, panicMeaning(v))
		}
	}()
	if j.msg.load != nil {
		if j.msg.body, err = j.msg.load(); err != nil {
			return nil, err
		}
		j.msg.load = nil
	}
	src := withPool(&replaySource{saved: []savedMsg{p.schemaMsg, j.msg, {err: io.EOF}}}, p.pool)
	rr, err := newIPCRecordReader(src, p.mem)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	rr.n = j.n
	if !rr.Next() {
		if err := rr.Err(); err != nil {
			return nil, err
		}
		return nil, nil // not a record batch: nothing to hand out
	}
	rec = rr.RecordBatch()
	rec.Retain()
	return rec, nil
}

func (p *parIPCReader) Retain() { p.refs.Add(1) }

func (p *parIPCReader) Release() {
	if p.refs.Add(-1) == 0 {
		p.stop()
	}
}

// stop ends the goroutines and releases what they decoded.
func (p *parIPCReader) stop() {
	p.once.Do(func() {
		close(p.quit)
		if p.cur != nil {
			p.cur.Release()
			p.cur = nil
		}
		for j := range p.order {
			<-j.done
			if j.rec != nil {
				j.rec.Release()
			}
		}
		p.wg.Wait()
		p.recycle.close()
	})
}

func (p *parIPCReader) Schema() *arrow.Schema { return p.schema }

func (p *parIPCReader) Next() bool {
	if p.cur != nil {
		p.cur.Release()
		p.cur = nil
	}
	if p.err != nil || p.end {
		return false
	}
	for {
		j, ok := <-p.order
		if !ok {
			p.end = true
			return false
		}
		<-j.done
		if j.err != nil {
			p.err = j.err
			return false
		}
		if j.rec != nil {
			p.cur = j.rec
			return true
		}
	}
}

func (p *parIPCReader) RecordBatch() arrow.RecordBatch { return p.cur }

// Record returns the current record batch (deprecated in arrow-go).
func (p *parIPCReader) Record() arrow.RecordBatch { return p.cur }

func (p *parIPCReader) Err() error { return p.err }

var _ array.RecordReader = (*parIPCReader)(nil)
