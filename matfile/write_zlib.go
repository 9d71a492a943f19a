package matfile

import (
	"bytes"
	"encoding/binary"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/flate"
)

// wParZlib is a zlib writer that compresses blocks of its input on all
// cores, as pigz does: each block is deflated on its own (no dictionary
// from the previous block) and ended with a sync flush, so the blocks
// concatenate into one valid deflate stream; the last ends with the final
// block, and the Adler-32 of the whole input follows. Output is in input
// order and does not depend on the number of cores. Memory: at most
// 2*GOMAXPROCS blocks in flight, their buffers (input and output) reused
// once written, so a long stream makes no garbage (which the collector
// would let grow to the size of the live heap, a whole variable's worth
// when the caller holds one).
type wParZlib struct {
	w       io.Writer
	level   int
	buf     []byte
	adler   uint32
	queue   []chan wZResult
	freeIn  [][]byte // input blocks written, for reuse
	freeOut [][]byte // output buffers written, for reuse
	err     error
	header  bool
}

type wZResult struct {
	in, out []byte
	err     error
}

// wZGet takes an empty buffer from free, or makes one of capacity size.
func wZGet(free *[][]byte, size int) []byte {
	if n := len(*free); n > 0 {
		b := (*free)[n-1]
		*free = (*free)[:n-1]
		return b[:0]
	}
	return make([]byte, 0, size)
}

const wZBlock = 1 << 20

var wFlatePool = map[int]*sync.Pool{}
var wFlatePoolMu sync.Mutex

func wGetFlate(level int, dst io.Writer) (*flate.Writer, error) {
	wFlatePoolMu.Lock()
	p := wFlatePool[level]
	if p == nil {
		p = &sync.Pool{}
		wFlatePool[level] = p
	}
	wFlatePoolMu.Unlock()
	if fw, ok := p.Get().(*flate.Writer); ok {
		fw.Reset(dst)
		return fw, nil
	}
	return flate.NewWriter(dst, level)
}

func wPutFlate(level int, fw *flate.Writer) {
	wFlatePoolMu.Lock()
	p := wFlatePool[level]
	wFlatePoolMu.Unlock()
	p.Put(fw)
}

func wNewParZlib(w io.Writer, level int) *wParZlib {
	return &wParZlib{w: w, level: level, adler: 1}
}

func (z *wParZlib) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	n := len(p)
	for len(p) > 0 {
		if z.buf == nil {
			z.buf = wZGet(&z.freeIn, wZBlock)
		}
		k := min(len(p), wZBlock-len(z.buf))
		z.buf = append(z.buf, p[:k]...)
		p = p[k:]
		if len(z.buf) == wZBlock {
			z.dispatch(z.buf, false)
			z.buf = nil
			if z.err != nil {
				return 0, z.err
			}
		}
	}
	return n, nil
}

// dispatch queues one block for compression and writes finished blocks
// once too many are in flight.
func (z *wParZlib) dispatch(block []byte, final bool) {
	z.adler = wAdlerUpdate(z.adler, block)
	ch := make(chan wZResult, 1)
	z.queue = append(z.queue, ch)
	level := z.level
	out := bytes.NewBuffer(wZGet(&z.freeOut, len(block)/2+64))
	go func() {
		fw, err := wGetFlate(level, out)
		if err == nil {
			if _, err = fw.Write(block); err == nil {
				if final {
					err = fw.Close()
				} else {
					err = fw.Flush()
				}
			}
			wPutFlate(level, fw)
		}
		ch <- wZResult{in: block, out: out.Bytes(), err: err}
	}()
	for len(z.queue) > 2*runtime.GOMAXPROCS(0) {
		z.drainOne()
	}
}

func (z *wParZlib) drainOne() {
	r := <-z.queue[0]
	z.queue = z.queue[1:]
	if z.err != nil {
		return
	}
	if r.err != nil {
		z.err = r.err
		return
	}
	if !z.header {
		z.header = true
		if _, err := z.w.Write([]byte{0x78, 0x9c}); err != nil {
			z.err = err
			return
		}
	}
	if _, err := z.w.Write(r.out); err != nil {
		z.err = err
	}
	if cap(r.in) == wZBlock {
		z.freeIn = append(z.freeIn, r.in)
	}
	z.freeOut = append(z.freeOut, r.out)
}

// Close compresses what is left, ends the stream and writes the checksum.
func (z *wParZlib) Close() error {
	if z.err != nil {
		return z.err
	}
	z.dispatch(z.buf, true)
	z.buf = nil
	for len(z.queue) > 0 {
		z.drainOne()
	}
	if z.err != nil {
		return z.err
	}
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], z.adler)
	_, err := z.w.Write(sum[:])
	z.err = err
	return err
}

// wAdlerUpdate continues an Adler-32 checksum over p.
func wAdlerUpdate(adler uint32, p []byte) uint32 {
	const mod = 65521
	s1, s2 := adler&0xffff, adler>>16
	for len(p) > 0 {
		n := min(len(p), 5552)
		for _, b := range p[:n] {
			s1 += uint32(b)
			s2 += s1
		}
		s1 %= mod
		s2 %= mod
		p = p[n:]
	}
	return s2<<16 | s1
}
