package zarr

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"sync"
)

// shardIndex is one shard's decoded index: offset and size of each inner
// chunk (both 2^64-1 for an empty one).
type shardIndex struct {
	entries []uint64
	size    int64
}

type shardCache struct {
	mu sync.Mutex
	m  map[string]*shardIndex
}

// unitBytes is the decoded size of one unit (chunk or inner chunk).
func (a *Array) unitBytes() int64 {
	n := int64(a.DType.ItemSize())
	for _, c := range a.unit {
		n *= c
	}
	return n
}

func (a *Array) unitElems() int64 {
	n := int64(1)
	for _, c := range a.unit {
		n *= c
	}
	return n
}

// fetchUnit returns the stored bytes of the unit at unit-grid index u, or
// nil when it is missing (read as the fill value), and the key that names
// it in errors.
func (a *Array) fetchUnit(ctx context.Context, u []int64, scratch *[]byte) ([]byte, string, error) {
	alloc := func(n int64) []byte {
		if scratch == nil {
			return make([]byte, n)
		}
		if int64(cap(*scratch)) < n {
			// A quarter more than asked, so that the next units (their
			// sizes vary a little) fit without a new, zeroed buffer.
			*scratch = make([]byte, n, n+n/4)
		}
		return (*scratch)[:n]
	}
	if a.Inner == nil {
		key := a.ChunkKey(u)
		n, err := a.store.Size(ctx, key)
		if err == nil && n > maxChunkBytes+1<<20 {
			err = fmt.Errorf("%s is %d bytes, more than the %d it may have", key, n, maxChunkBytes+1<<20)
		}
		var b []byte
		if err == nil {
			b = alloc(n)
			err = a.store.ReadAt(ctx, key, b, 0)
		}
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, key, nil
			}
			return nil, key, a.errf(key, "%v", err)
		}
		return b, key, nil
	}
	nd := len(u)
	shard := make([]int64, nd)
	lin := int64(0)
	for i := 0; i < nd; i++ {
		shard[i] = u[i] / a.perShard[i]
		lin = lin*a.perShard[i] + u[i]%a.perShard[i]
	}
	key := a.ChunkKey(shard)
	name := fmt.Sprintf("%s (inner chunk %d)", key, lin)
	idx, err := a.shardIndex(ctx, key)
	if err != nil {
		return nil, name, err
	}
	if idx == nil {
		return nil, name, nil
	}
	off, n := idx.entries[2*lin], idx.entries[2*lin+1]
	if off == math.MaxUint64 && n == math.MaxUint64 {
		return nil, name, nil
	}
	b := alloc(int64(n))
	if err := a.store.ReadAt(ctx, key, b, int64(off)); err != nil {
		return nil, name, a.errf(name, "%v", err)
	}
	return b, name, nil
}

// shardIndex reads (and keeps) the index of the shard at key; nil when
// the shard is missing.
func (a *Array) shardIndex(ctx context.Context, key string) (*shardIndex, error) {
	if a.shardCache == nil {
		return nil, a.errf(key, "internal: no shard cache")
	}
	c := a.shardCache
	c.mu.Lock()
	if ix, ok := c.m[key]; ok {
		c.mu.Unlock()
		return ix, nil
	}
	c.mu.Unlock()
	size, err := a.store.Size(ctx, key)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, a.errf(key, "%v", err)
	}
	n := int64(16)
	for _, p := range a.perShard {
		n *= p
	}
	count := n / 16
	ilen := n + 4*int64(len(a.idx))
	if size < ilen {
		return nil, a.errf(key, "shard of %d bytes is shorter than its %d-byte index", size, ilen)
	}
	raw := make([]byte, ilen)
	off := size - ilen
	if a.IndexAtStart {
		off = 0
	}
	if err := a.store.ReadAt(ctx, key, raw, off); err != nil {
		return nil, a.errf(key, "shard index: %v", err)
	}
	for i := len(a.idx) - 1; i >= 0; i-- {
		if raw, err = a.idx[i].decode(raw, -1, ilen); err != nil {
			return nil, a.errf(key, "shard index: %v", err)
		}
	}
	if int64(len(raw)) != n {
		return nil, a.errf(key, "shard index decodes to %d bytes, want %d", len(raw), n)
	}
	ix := &shardIndex{entries: make([]uint64, 2*count), size: size}
	for i := range ix.entries {
		if a.idxBig {
			ix.entries[i] = binary.BigEndian.Uint64(raw[8*i:])
		} else {
			ix.entries[i] = binary.LittleEndian.Uint64(raw[8*i:])
		}
	}
	for j := int64(0); j < count; j++ {
		o, l := ix.entries[2*j], ix.entries[2*j+1]
		if o == math.MaxUint64 && l == math.MaxUint64 {
			continue
		}
		if o > uint64(size) || l > uint64(size)-o {
			return nil, a.errf(key, "shard index: inner chunk %d at %d of %d bytes runs past the shard's end (%d bytes)", j, o, l, size)
		}
		if l > maxChunkBytes+1<<20 {
			return nil, a.errf(key, "shard index: inner chunk %d of %d bytes is too large", j, l)
		}
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) > 256 {
		c.m = map[string]*shardIndex{}
	}
	c.m[key] = ix
	c.mu.Unlock()
	return ix, nil
}

// decodeBytes undoes the bytes-to-bytes codecs.
func (a *Array) decodeBytes(raw []byte, name string) ([]byte, error) {
	want := a.unitBytes()
	if a.vlen {
		want = -1
	}
	var err error
	for i := len(a.b2b) - 1; i >= 0; i-- {
		w := int64(-1)
		if i == 0 {
			w = want
		}
		if raw, err = a.b2b[i].decode(raw, w, maxChunkBytes); err != nil {
			return nil, a.errf(name, "%v", err)
		}
	}
	return raw, nil
}

// decodeUnit turns a stored unit into its elements, C order over the unit
// shape, in the byte order of a.DType.
func (a *Array) decodeUnit(raw []byte, name string) ([]byte, error) {
	raw, err := a.decodeBytes(raw, name)
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) != a.unitBytes() {
		return nil, a.errf(name, "decodes to %d bytes, want %d (chunk shape %v of %s)", len(raw), a.unitBytes(), a.unit, a.DType.name())
	}
	if a.bigEndian {
		if u := swapUnit(a.DType); u > 1 {
			raw = append([]byte(nil), raw...)
			swapBytes(raw, u)
		}
	}
	if len(a.a2a) == 0 {
		return raw, nil
	}
	// The shape each array-to-array codec sees.
	shapes := make([][]int64, len(a.a2a))
	cur := a.unit
	for i, c := range a.a2a {
		shapes[i] = cur
		if t, ok := c.(transposeCodec); ok {
			next := make([]int64, len(cur))
			for k, o := range t.order {
				next[k] = cur[o]
			}
			cur = next
		}
	}
	es := a.DType.ItemSize()
	for i := len(a.a2a) - 1; i >= 0; i-- {
		if raw, err = a.a2a[i].decode(raw, shapes[i], es); err != nil {
			return nil, a.errf(name, "%v", err)
		}
	}
	return raw, nil
}

// rawPool holds the buffers stored units are read into.
var rawPool sync.Pool

// loadUnit reads unit u and decodes it into dst (one unit long); false
// when the unit is missing (dst untouched: the caller fills it).
func (a *Array) loadUnit(ctx context.Context, u []int64, dst []byte) (bool, error) {
	scratch, _ := rawPool.Get().(*[]byte)
	if scratch == nil {
		scratch = new([]byte)
	}
	defer rawPool.Put(scratch)
	raw, name, err := a.fetchUnit(ctx, u, scratch)
	if err != nil || raw == nil {
		return false, err
	}
	return true, a.decodeUnitInto(raw, name, dst)
}

// decodeUnitInto is decodeUnit into dst (one unit long): the last
// decompressor writes straight into dst when it can.
func (a *Array) decodeUnitInto(raw []byte, name string, dst []byte) error {
	if len(a.a2a) > 0 || len(a.b2b) == 0 {
		src, err := a.decodeUnit(raw, name)
		if err != nil {
			return err
		}
		copy(dst, src)
		return nil
	}
	var err error
	for i := len(a.b2b) - 1; i >= 1; i-- {
		if raw, err = a.b2b[i].decode(raw, -1, maxChunkBytes); err != nil {
			return a.errf(name, "%v", err)
		}
	}
	if err := decodeInto(a.b2b[0], raw, dst); err != nil {
		return a.errf(name, "%v (chunk shape %v of %s)", err, a.unit, a.DType.name())
	}
	if a.bigEndian {
		if u := swapUnit(a.DType); u > 1 {
			swapBytes(dst, u)
		}
	}
	return nil
}

// decodeStrings turns a stored unit of a variable-length string array
// into its items.
func (a *Array) decodeStrings(raw []byte, name string) ([][]byte, error) {
	if len(a.a2a) > 0 {
		return nil, a.errf(name, "array-to-array codecs on strings are not supported")
	}
	raw, err := a.decodeBytes(raw, name)
	if err != nil {
		return nil, err
	}
	items, err := decodeVlen(raw, a.unitElems(), a.DType.Kind() == 'U')
	if err != nil {
		return nil, a.errf(name, "%v", err)
	}
	return items, nil
}

// checkRegion validates a region and returns its element count.
func (a *Array) checkRegion(start, count []int64) (int64, error) {
	if len(start) != len(a.Shape) || len(count) != len(a.Shape) {
		return 0, a.errf("", "region of rank %d in an array of rank %d", len(start), len(a.Shape))
	}
	n := int64(1)
	for i := range start {
		if start[i] < 0 || count[i] < 0 || start[i] > a.Shape[i] || count[i] > a.Shape[i]-start[i] {
			return 0, a.errf("", "region %v+%v outside the shape %v", start, count, a.Shape)
		}
		n *= count[i]
	}
	return n, nil
}

// units lists the unit-grid indices that the region touches, in C order.
func (a *Array) units(start, count []int64) [][]int64 {
	return gridCells(start, count, a.unit)
}

// gridCells lists the cells of a grid of cell shape unit that the region
// start+count touches, in C order; none for an empty region.
func gridCells(start, count, unit []int64) [][]int64 {
	nd := len(start)
	lo := make([]int64, nd)
	hi := make([]int64, nd)
	for i := range start {
		if count[i] == 0 {
			return nil
		}
		lo[i] = start[i] / unit[i]
		hi[i] = (start[i] + count[i] - 1) / unit[i]
	}
	var out [][]int64
	cur := append([]int64(nil), lo...)
	for {
		out = append(out, append([]int64(nil), cur...))
		k := nd - 1
		for ; k >= 0; k-- {
			cur[k]++
			if cur[k] <= hi[k] {
				break
			}
			cur[k] = lo[k]
		}
		if k < 0 {
			return out
		}
	}
}

// parallel runs f on each of n items with at most workers goroutines,
// stopping at the first error.
func parallel(ctx context.Context, workers, n int, f func(i int) error) error {
	workers = min(workers, n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := f(i); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if first != nil || next >= n {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				err := ctx.Err()
				if err == nil {
					err = f(i)
				}
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// Read reads the region start+count of a fixed-size array into dst (C
// order, len(dst) = count elements times the item size), in the byte
// order DType names. Missing chunks read as the fill value.
func (a *Array) Read(ctx context.Context, start, count []int64, dst []byte) error {
	if a.DType.VarString {
		return a.errf("", "variable-length strings are read with ReadStrings")
	}
	n, err := a.checkRegion(start, count)
	if err != nil {
		return err
	}
	es := int64(a.DType.ItemSize())
	if int64(len(dst)) != n*es {
		return a.errf("", "destination of %d bytes for %d elements of %d", len(dst), n, es)
	}
	units := a.units(start, count)
	if a.rowRead(start, count) && a.ra.mu.TryLock() {
		defer a.ra.mu.Unlock()
		return a.readRows(ctx, start, count, dst, units, es)
	}
	return parallel(ctx, threads(a.Threads), len(units), func(i int) error {
		u := units[i]
		if seg := a.segment(u, start, count, dst, es); seg != nil {
			present, err := a.loadUnit(ctx, u, seg)
			if err == nil && !present {
				a.fill(seg)
			}
			return err
		}
		buf := a.getBuf()
		defer a.putBuf(buf)
		present, err := a.loadUnit(ctx, u, *buf)
		if err != nil {
			return err
		}
		src := *buf
		if !present {
			src = nil
		}
		a.copyUnit(u, src, start, count, dst, es)
		return nil
	})
}

// copyUnit copies the part of unit u inside the region into dst; a nil
// src is the fill value.
func (a *Array) copyUnit(u []int64, src []byte, start, count []int64, dst []byte, es int64) {
	nd := len(u)
	if nd == 0 {
		if src == nil {
			a.fill(dst)
		} else {
			copy(dst, src)
		}
		return
	}
	// Intersection in array coordinates.
	lo := make([]int64, nd)
	ext := make([]int64, nd)
	for i := range u {
		c0 := u[i] * a.unit[i]
		lo[i] = max(c0, start[i])
		ext[i] = min(c0+a.unit[i], start[i]+count[i]) - lo[i]
	}
	// Strides of the unit and of the region, in bytes.
	us := make([]int64, nd)
	rs := make([]int64, nd)
	s, r := es, es
	for i := nd - 1; i >= 0; i-- {
		us[i], rs[i] = s, r
		s *= a.unit[i]
		r *= count[i]
	}
	run := ext[nd-1] * es
	idx := make([]int64, nd-1)
	for {
		so, do := int64(0), int64(0)
		for i := 0; i < nd; i++ {
			p := lo[i]
			if i < nd-1 {
				p += idx[i]
			}
			so += (p - u[i]*a.unit[i]) * us[i]
			do += (p - start[i]) * rs[i]
		}
		if src == nil {
			a.fill(dst[do : do+run])
		} else {
			copy(dst[do:do+run], src[so:so+run])
		}
		k := nd - 2
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < ext[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// fill sets b to repeated fill values.
func (a *Array) fill(b []byte) {
	if a.Fill == nil {
		clear(b)
		return
	}
	es := len(a.Fill)
	for p := 0; p+es <= len(b); p += es {
		copy(b[p:], a.Fill)
	}
}

// ReadStrings reads the region start+count of a variable-length string
// array: one item per element, C order. Missing chunks read as the fill
// value.
func (a *Array) ReadStrings(ctx context.Context, start, count []int64) ([][]byte, error) {
	if !a.DType.VarString {
		return nil, a.errf("", "ReadStrings on a %s array", a.DType.name())
	}
	n, err := a.checkRegion(start, count)
	if err != nil {
		return nil, err
	}
	if n > maxChunkBytes/16 {
		return nil, a.errf("", "region of %d strings is too large to read at once", n)
	}
	out := make([][]byte, n)
	// Reuse copyUnit with 8-byte slots holding item numbers.
	units := a.units(start, count)
	slots := make([]byte, 8*n)
	var mu sync.Mutex
	pieces := make([][][]byte, len(units))
	err = parallel(ctx, threads(a.Threads), len(units), func(i int) error {
		u := units[i]
		raw, name, err := a.fetchUnit(ctx, u, nil)
		if err != nil {
			return err
		}
		var items [][]byte
		if raw != nil {
			if items, err = a.decodeStrings(raw, name); err != nil {
				return err
			}
		}
		ids := make([]byte, 8*a.unitElems())
		for k := range a.unitElems() {
			binary.LittleEndian.PutUint64(ids[8*k:], uint64(i)<<32|uint64(k)+1)
		}
		if items == nil {
			clear(ids)
		}
		mu.Lock()
		pieces[i] = items
		mu.Unlock()
		a.copyUnitRaw(u, ids, start, count, slots, 8)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for j := range out {
		v := binary.LittleEndian.Uint64(slots[8*j:])
		if v == 0 {
			out[j] = a.Fill
			continue
		}
		out[j] = pieces[v>>32][v&0xffffffff-1]
	}
	return out, nil
}

// copyUnitRaw is copyUnit for a src that is never nil.
func (a *Array) copyUnitRaw(u []int64, src []byte, start, count []int64, dst []byte, es int64) {
	a.copyUnit(u, src, start, count, dst, es)
}
