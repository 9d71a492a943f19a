package zarr

import (
	"context"
	"runtime"
	"sync"
)

// Reading rows in order. A caller that reads an array along its first
// axis a few rows at a time (npyflow's engine asks for about 256 KiB)
// would decode a chunk once per read, and would decode one chunk at a
// time. Read keeps a window of decoded units instead: the units a read
// only partly uses wait for the next read, and while the caller copies
// one band of chunks the next bands decode on the other threads. The
// window holds at most 2 x threads units (none beyond the current band
// with one thread), so memory stays a few chunks whatever the array's
// size; a read that jumps elsewhere drops it.

// readahead is an array's window of decoded units for row reads.
type readahead struct {
	mu    sync.Mutex // held by the row read using the window
	slots map[int64]*slot
	next  int64 // the row after the last row read
	bufs  sync.Pool
}

// slot is one unit of the window, being decoded or decoded.
type slot struct {
	band    int64 // the unit's index along the first axis
	done    chan struct{}
	buf     *[]byte // the decoded unit (closed done)
	present bool    // false: missing, read as the fill value
	err     error
}

// threads is how many units a read decodes (a write encodes) at once.
func threads(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// getBuf returns a buffer of one unit (contents undefined).
func (a *Array) getBuf() *[]byte {
	n := a.unitBytes()
	if p, ok := a.ra.bufs.Get().(*[]byte); ok && int64(cap(*p)) >= n {
		*p = (*p)[:n]
		return p
	}
	b := make([]byte, n)
	return &b
}

func (a *Array) putBuf(p *[]byte) {
	if p != nil {
		a.ra.bufs.Put(p)
	}
}

// rowRead says whether the region is whole rows: every axis but the
// first read whole.
func (a *Array) rowRead(start, count []int64) bool {
	if len(a.Shape) == 0 || a.vlen {
		return false
	}
	for i := 1; i < len(a.Shape); i++ {
		if start[i] != 0 || count[i] != a.Shape[i] {
			return false
		}
	}
	return count[0] > 0
}

// bandUnits lists the units of band b (index b along the first axis) in
// C order, at most limit of them.
func (a *Array) bandUnits(b int64, limit int) [][]int64 {
	nd := len(a.Shape)
	start := make([]int64, nd)
	count := append([]int64(nil), a.Shape...)
	start[0] = b * a.unit[0]
	count[0] = min(a.unit[0], a.Shape[0]-start[0])
	u := a.units(start, count)
	return u[:min(len(u), limit)]
}

// linear is the index of unit u in the unit grid, C order.
func (a *Array) linear(u []int64) int64 {
	var k int64
	for i, x := range u {
		k = k*((a.Shape[i]+a.unit[i]-1)/a.unit[i]) + x
	}
	return k
}

// decodeSlot starts decoding unit u into a new slot of the window.
func (a *Array) decodeSlot(ctx context.Context, u []int64) *slot {
	s := &slot{band: u[0], done: make(chan struct{})}
	a.ra.slots[a.linear(u)] = s
	go func() {
		defer close(s.done)
		buf := a.getBuf()
		present, err := a.loadUnit(ctx, u, *buf)
		if err != nil || !present {
			a.putBuf(buf)
			buf = nil
		}
		s.buf, s.present, s.err = buf, present, err
	}()
	return s
}

// readRows is Read of whole rows with the window (ra.mu held).
func (a *Array) readRows(ctx context.Context, start, count []int64, dst []byte, units [][]int64, es int64) error {
	ra := a.ra
	if ra.slots == nil {
		ra.slots = map[int64]*slot{}
	}
	r0, r1 := start[0], start[0]+count[0]
	b0, b1 := r0/a.unit[0], (r1-1)/a.unit[0]
	sequential := r0 == ra.next
	// Drop the units this read and the ones after it will not use.
	for k, s := range ra.slots {
		if s.band < b0 || !sequential && s.band > b1 {
			a.dropSlot(k, s)
		}
	}
	th := threads(a.Threads)
	window := 2 * th
	if th == 1 {
		window = 0
	}
	// The units of this read: those whole in dst decode straight into
	// it, the others into the window (kept while a later read may use
	// them).
	var direct [][]int64
	var wait []*slot
	waitUnit := make([][]int64, 0, len(units))
	for _, u := range units {
		if s := ra.slots[a.linear(u)]; s != nil {
			wait, waitUnit = append(wait, s), append(waitUnit, u)
			continue
		}
		if a.segment(u, start, count, dst, es) != nil {
			direct = append(direct, u)
			continue
		}
		wait, waitUnit = append(wait, nil), append(waitUnit, u)
	}
	// Units in the window decode in the background; with one thread the
	// partial ones decode here, in order.
	for i, s := range wait {
		if s == nil && th > 1 {
			wait[i] = a.decodeSlot(ctx, waitUnit[i])
		}
	}
	// Read ahead: the units of the bands after this read, up to the window.
	if sequential && window > 0 {
		ahead := 0
		for _, s := range ra.slots {
			if s.band > b1 {
				ahead++
			}
		}
		end := a.Shape[0]
		if a.ReadAheadTo > 0 {
			end = min(end, a.ReadAheadTo)
		}
		for b := b1 + 1; ahead < window && b*a.unit[0] < end; b++ {
			for _, u := range a.bandUnits(b, window-ahead) {
				if ra.slots[a.linear(u)] == nil {
					a.decodeSlot(ctx, u)
				}
				ahead++
			}
		}
	}
	err := parallel(ctx, th, len(direct), func(i int) error {
		u := direct[i]
		seg := a.segment(u, start, count, dst, es)
		present, err := a.loadUnit(ctx, u, seg)
		if err == nil && !present {
			a.fill(seg)
		}
		return err
	})
	for i, s := range wait {
		u := waitUnit[i]
		if s == nil { // one thread: decode here, into the window
			s = &slot{band: u[0], done: make(chan struct{})}
			buf := a.getBuf()
			s.present, s.err = a.loadUnit(ctx, u, *buf)
			if s.err == nil && s.present {
				s.buf = buf
			} else {
				a.putBuf(buf)
			}
			close(s.done)
			ra.slots[a.linear(u)] = s
		}
		select {
		case <-s.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if s.err != nil {
			a.dropSlot(a.linear(u), s)
			if err == nil {
				err = s.err
			}
			continue
		}
		var src []byte
		if s.present {
			src = *s.buf
		}
		if err == nil {
			a.copyUnit(u, src, start, count, dst, es)
		}
		// A unit this read finishes is done with.
		if (u[0]+1)*a.unit[0] <= r1 || r1 == a.Shape[0] {
			a.dropSlot(a.linear(u), s)
		}
	}
	if err != nil {
		ra.next = -1
		return err
	}
	ra.next = r1
	return nil
}

// dropSlot removes a unit from the window, its buffer back to the pool
// once decoded.
func (a *Array) dropSlot(k int64, s *slot) {
	delete(a.ra.slots, k)
	select {
	case <-s.done:
		a.putBuf(s.buf)
		s.buf = nil
	default: // still decoding: its buffer goes to the collector
	}
}

// segment is the part of dst that unit u fills, when u lies whole inside
// the region start+count and its elements are contiguous there; else nil.
func (a *Array) segment(u, start, count []int64, dst []byte, es int64) []byte {
	nd := len(u)
	if nd == 0 {
		return dst
	}
	off := int64(0)
	stride := es
	// From the last axis: the unit must span the region's extent on
	// every axis after the first one where it is not a single index.
	narrow := false
	for i := nd - 1; i >= 0; i-- {
		c0 := u[i] * a.unit[i]
		if c0 < start[i] || c0+a.unit[i] > start[i]+count[i] {
			return nil
		}
		if narrow && a.unit[i] != 1 {
			return nil
		}
		if a.unit[i] != count[i] {
			narrow = true
		}
		off += (c0 - start[i]) * stride
		stride *= count[i]
	}
	return dst[off : off+a.unitBytes()]
}
