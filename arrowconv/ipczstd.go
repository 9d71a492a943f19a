package arrowconv

import (
	"encoding/binary"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// ZSTD record batches are decompressed by npyflow before arrow-go sees
// them: arrow-go makes a new zstd decoder for every record batch and
// decodes every buffer as a stream, whose history buffers the runtime
// allocates and clears each time (a fifth of the CPU of reading a zstd
// file). unzstdBatch decodes the buffers of a checked record batch with
// a pooled synchronous decoder into one new body, each buffer stored as
// the IPC format's "uncompressed" buffer (length -1, then the bytes), and
// points the message's buffer entries at them; arrow-go then slices the
// body without decompressing anything. The values are those arrow-go
// would decode. A batch whose buffers do not decode to their stated sizes
// is left as it is, so arrow-go reports it as before.

// zstdDecoders holds synchronous zstd decoders (DecodeAll only).
var zstdDecoders = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(MaxIPCBuffer)))
	if err != nil {
		return nil
	}
	return d
}}

// unzstdBatch returns meta and body of a record batch whose buffers are
// zstd-compressed (c, checked with its buffers' sizes, is over meta and
// body), decompressed; alloc gives the new body (its length). ok is false
// when the batch is left as it is (newBody, if not nil, is then unused).
func unzstdBatch(meta, body []byte, c *batchCheck, alloc func(int) []byte) (newMeta, newBody []byte, ok bool) {
	if c.codec != 1 || c.sizes == nil {
		return nil, nil, false
	}
	n := len(c.bufs) / 16
	var total int64
	for i := range n {
		if c.sizes[i] > 0 {
			total += 8 + (c.sizes[i]+7)&^7
		}
	}
	if total > int64(MaxIPCBuffer) {
		return nil, nil, false
	}
	d, _ := zstdDecoders.Get().(*zstd.Decoder)
	if d == nil {
		return nil, nil, false
	}
	defer zstdDecoders.Put(d)
	// c.bufs is a view of meta: patch a copy of meta at the same offset.
	newMeta = append([]byte(nil), meta...)
	bufs := newMeta[offsetIn(meta, c.bufs):][:len(c.bufs)]
	newBody = alloc(int(total))
	var pos int64
	for i := range n {
		off := int64(binary.LittleEndian.Uint64(c.bufs[16*i:]))
		size := int64(binary.LittleEndian.Uint64(c.bufs[16*i+8:]))
		u := c.sizes[i]
		if u == 0 {
			binary.LittleEndian.PutUint64(bufs[16*i:], uint64(pos))
			binary.LittleEndian.PutUint64(bufs[16*i+8:], 0)
			continue
		}
		binary.LittleEndian.PutUint64(newBody[pos:], ^uint64(0)) // -1: stored uncompressed
		dst := newBody[pos+8 : pos+8+u]
		src := body[off : off+size]
		if int64(binary.LittleEndian.Uint64(src)) == -1 {
			copy(dst, src[8:])
		} else {
			out, err := d.DecodeAll(src[8:], dst[:0:u])
			if err != nil || int64(len(out)) != u || &out[0] != &dst[0] {
				return nil, newBody, false
			}
		}
		end := pos + 8 + (u+7)&^7
		clear(newBody[pos+8+u : end])
		binary.LittleEndian.PutUint64(bufs[16*i:], uint64(pos))
		binary.LittleEndian.PutUint64(bufs[16*i+8:], uint64(8+u))
		pos = end
	}
	return newMeta, newBody, true
}

// offsetIn is the offset of sub, a subslice, in b.
func offsetIn(b, sub []byte) int {
	return cap(b) - cap(sub)
}
