package hdf5

import (
	"fmt"
	"io"
)

// Hyperslab reads: a box [lo, hi) of a dataset (one start and end per
// dimension), returned in C order with the box's own shape. Contiguous
// storage is read run by run (a run is the longest stretch of the box
// that is contiguous in the file, merged across dimensions the box
// covers whole; short runs close together are read as one span); chunked
// storage touches only the chunks the box meets, through the reader's
// bounded chunk cache.

// spanSlack bounds how far apart (in bytes) two contiguous-storage runs
// may lie and still be read with one ReadAt: at most spanSlack, and at
// most the run's own length beyond 4 KiB, so a span never reads much more
// than it uses (a band of a few columns of a wide matrix is read run by
// run, not as the whole matrix).
const spanSlack = 64 << 10

// checkSlab checks a box against the dataset's dimensions and returns its
// element count.
func (r *RowReader) checkSlab(lo, hi []uint64) (uint64, error) {
	ds := r.ds
	dims := ds.info.space.dims
	if ds.info.space.null {
		dims = []uint64{0}
	}
	if len(dims) == 0 {
		dims = []uint64{1} // a scalar is one row of one element
	}
	if len(lo) != len(dims) || len(hi) != len(dims) {
		return 0, fmt.Errorf("hdf5: %s: %s: a box of rank %d/%d for a dataset of rank %d", ds.f.name, ds.path, len(lo), len(hi), len(dims))
	}
	n := uint64(1)
	for i := range dims {
		if lo[i] > hi[i] || hi[i] > dims[i] {
			return 0, fmt.Errorf("hdf5: %s: box [%v, %v) outside the shape %v of %s", ds.f.name, lo, hi, dims, ds.path)
		}
		n *= hi[i] - lo[i]
	}
	return n, nil
}

// SlabBytes is the size in bytes of the box [lo, hi) as ReadSlab returns
// it.
func (r *RowReader) SlabBytes(lo, hi []uint64) (uint64, error) {
	n, err := r.checkSlab(lo, hi)
	if err != nil {
		return 0, err
	}
	es := r.elemOut()
	if b, ok := mulOK(n, es, 1<<62); ok {
		return b, nil
	}
	return 0, fmt.Errorf("hdf5: %s: %s: box too large: %w", r.ds.f.name, r.ds.path, ErrTooLarge)
}

// elemOut is the size of one returned element.
func (r *RowReader) elemOut() uint64 {
	es := uint64(r.ds.info.dtype.Size)
	if r.wide != nil {
		es = uint64(r.wide.outSize)
	}
	if r.vlenStr {
		es = uint64(r.strWidth)
		if r.unicode {
			es *= 4
		}
	}
	return es
}

// ReadSlab reads the box [lo, hi) (a start and an end for every dimension;
// a scalar dataset has one dimension of length 1) into dst in C order, in
// the layout of the dataset's DType; dst must hold SlabBytes(lo, hi)
// bytes. Chunks decoded for earlier reads are reused from the cache, so
// reading a dataset box by box in order decodes each chunk about once
// when the boxes follow the chunk grid.
func (r *RowReader) ReadSlab(lo, hi []uint64, dst []byte) error {
	ds := r.ds
	n, err := r.checkSlab(lo, hi)
	if err != nil {
		return err
	}
	es := uint64(ds.info.dtype.Size)
	out := n * r.elemOut()
	if uint64(len(dst)) < out {
		return fmt.Errorf("hdf5: %s: ReadSlab buffer of %d bytes for a box of %d bytes", ds.f.name, len(dst), out)
	}
	if n == 0 {
		return nil
	}
	if max(n*es, out) > uint64(ds.f.opts.MaxReadBytes) {
		return fmt.Errorf("hdf5: %s: %s: a box of %d elements exceeds the read limit of %d bytes: %w", ds.f.name, ds.path, n, ds.f.opts.MaxReadBytes, ErrTooLarge)
	}
	var raw []byte
	if !r.vlenStr && r.wide == nil {
		raw = dst[:n*es]
	} else {
		if uint64(cap(r.raw)) < n*es {
			r.raw = make([]byte, n*es)
		}
		raw = r.raw[:n*es]
	}
	if err := r.readRegion(lo, hi, raw); err != nil {
		return err
	}
	if r.vlenStr {
		return r.convertStrings(raw, dst[:out])
	}
	r.fixRaw(raw, int(es))
	if r.wide != nil {
		return r.convertUTF8(raw, dst[:out])
	}
	return nil
}

// ReadSlab reads the box [lo, hi) into dst (see RowReader.ReadSlab). Each
// call starts with an empty chunk cache.
func (ds *Dataset) ReadSlab(lo, hi []uint64, dst []byte) error {
	r, err := ds.newRowReader(1, false)
	if err != nil {
		return err
	}
	return r.ReadSlab(lo, hi, dst)
}

// readRegion reads the stored bytes of the box [lo, hi).
func (r *RowReader) readRegion(lo, hi []uint64, dst []byte) error {
	ds := r.ds
	f := ds.f
	l := ds.info.layout
	if len(ds.info.space.dims) == 0 {
		return r.readRaw(0, 1, dst)
	}
	if l.Class == LayoutChunked {
		return r.cr.readRegion(lo, hi, dst)
	}
	dims := ds.info.space.dims
	total := r.nrows * r.rawRow
	switch l.Class {
	case LayoutCompact:
		if uint64(len(l.compact)) < total {
			return f.corrupt(int64(ds.addr), "%s: compact data of %d bytes for %d expected", ds.path, len(l.compact), total)
		}
		eachRun(dims, lo, hi, uint64(ds.info.dtype.Size), func(src, d, n uint64) {
			copy(dst[d:d+n], l.compact[src:src+n])
		})
		return nil
	case LayoutContiguous:
		if l.addr == undefAddr {
			fillElems(dst, ds.info.fill, ds.info.dtype.Size)
			return nil
		}
		if l.size < total {
			return f.corrupt(int64(l.addr), "%s: contiguous storage of %d bytes for %d expected", ds.path, l.size, total)
		}
		return r.readContigRuns(dims, lo, hi, dst)
	}
	return f.unsupported(ds.path, "%s layout", l.ClassName())
}

// readContigRuns reads the runs of a box of contiguous storage, merging
// runs that lie close together in the file into one read through a
// bounded scratch buffer.
func (r *RowReader) readContigRuns(dims, lo, hi []uint64, dst []byte) error {
	ds := r.ds
	f := ds.f
	base := ds.info.layout.addr
	what := "contiguous data of " + ds.path
	type run struct{ src, dst, n uint64 }
	var pend []run
	flush := func() error {
		if len(pend) == 0 {
			return nil
		}
		first, last := pend[0], pend[len(pend)-1]
		if len(pend) == 1 {
			pend = pend[:0]
			return f.readInto(dst[first.dst:first.dst+first.n], base+first.src, what)
		}
		span := last.src + last.n - first.src
		if uint64(cap(r.scratch)) < span {
			r.scratch = make([]byte, span)
		}
		b := r.scratch[:span]
		if err := f.readInto(b, base+first.src, what); err != nil {
			return err
		}
		for _, p := range pend {
			copy(dst[p.dst:p.dst+p.n], b[p.src-first.src:])
		}
		pend = pend[:0]
		return nil
	}
	var err error
	eachRun(dims, lo, hi, uint64(ds.info.dtype.Size), func(src, d, n uint64) {
		if err != nil {
			return
		}
		if len(pend) > 0 {
			first, last := pend[0], pend[len(pend)-1]
			gap := src - (last.src + last.n)
			if src < last.src+last.n || gap > spanSlack || gap > max(n, 4<<10) || src+n-first.src > 4<<20 || n >= spanSlack {
				err = flush()
			}
		}
		pend = append(pend, run{src, d, n})
	})
	if err != nil {
		return err
	}
	return flush()
}

// eachRun calls fn for each run of the box [lo, hi) of a C-order array
// of shape dims: its byte offset in the array, in the box, and its length.
// Trailing dimensions the box covers whole are merged into one run.
func eachRun(dims, lo, hi []uint64, es uint64, fn func(src, dst, n uint64)) {
	rank := len(dims)
	stride := make([]uint64, rank)
	s := es
	for i := rank - 1; i >= 0; i-- {
		stride[i] = s
		s *= dims[i]
	}
	// k: the first dimension from which the box is whole to the end
	// (the run extends over dimension k-1 and everything after it).
	k := rank
	for k > 0 && lo[k-1] == 0 && hi[k-1] == dims[k-1] {
		k--
	}
	if k == 0 {
		fn(0, 0, s)
		return
	}
	a := k - 1
	n := (hi[a] - lo[a]) * stride[a]
	idx := append([]uint64(nil), lo[:a]...)
	var d uint64
	for {
		src := lo[a] * stride[a]
		for i := 0; i < a; i++ {
			src += idx[i] * stride[i]
		}
		fn(src, d, n)
		d += n
		i := a - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < hi[i] {
				break
			}
			idx[i] = lo[i]
		}
		if i < 0 {
			return
		}
	}
}

// ElementReader streams a dataset's elements in C order in batches of a
// bounded size, whatever its shape: each batch is a box of the dataset
// (whole rows when rows are small, parts of one row when a row is
// large, as for a MATLAB vector stored as one HDF5 row), read with
// RowReader.ReadSlab. It is not safe for concurrent use.
type ElementReader struct {
	rr    *RowReader
	dims  []uint64
	axis  int    // the dimension batches step along; earlier ones step by 1
	step  uint64 // batch length along axis
	idx   []uint64
	done  bool
	buf   []byte
	lo    []uint64
	hi    []uint64
	total uint64
}

// NewElementReader returns a reader whose batches hold about batchBytes
// bytes (at least one element). Along the dimension batches are cut, a
// chunked dataset's batches follow the chunk grid where they can, so each
// chunk is decoded once when the chunk cache holds one band of chunks; a
// batch of rows grows to one band of chunks when that is at most four
// times batchBytes.
func (ds *Dataset) NewElementReader(batchBytes int) (*ElementReader, error) {
	rr, err := ds.newRowReader(1, false)
	if err != nil {
		return nil, err
	}
	dims := ds.info.space.dims
	if ds.info.space.null {
		dims = []uint64{0}
	}
	if len(dims) == 0 {
		dims = []uint64{1}
	}
	e := &ElementReader{rr: rr, dims: dims}
	es := rr.elemOut()
	if es == 0 {
		es = 1
	}
	limit := max(uint64(batchBytes), es)
	// axis: the outermost dimension whose inner block (one step along it)
	// fits in a batch.
	inner := es
	e.axis = len(dims) - 1
	for e.axis > 0 {
		next, ok := mulOK(inner, dims[e.axis], 1<<62)
		if !ok || next > limit {
			break
		}
		inner = next
		e.axis--
	}
	e.step = max(limit/max(inner, 1), 1) // inner is 0 for an empty dimension
	if l := ds.info.layout; l.Class == LayoutChunked && e.axis < len(l.Chunk) {
		c := l.Chunk[e.axis]
		band, ok := mulOK(c, inner, 1<<62)
		switch {
		case c == 0: // a null or hostile dataspace: nothing to align to
		case e.step > c:
			e.step -= e.step % c
		case e.step < c && ok && band <= 4*limit && e.axis == 0:
			// A batch of one band of chunks (at most four times the size
			// asked for): each chunk is decoded once, straight into the
			// batch, instead of staying in the cache for several batches.
			e.step = c
		}
	}
	e.step = min(e.step, max(dims[e.axis], 1))
	e.idx = make([]uint64, len(dims))
	e.lo = make([]uint64, len(dims))
	e.hi = make([]uint64, len(dims))
	for _, d := range dims {
		if d == 0 {
			e.done = true
		}
	}
	e.total = 1
	for _, d := range dims {
		e.total *= d
	}
	return e, nil
}

// Len is the number of elements.
func (e *ElementReader) Len() uint64 { return e.total }

// ElemBytes is the size of one returned element.
func (e *ElementReader) ElemBytes() int { return int(e.rr.elemOut()) }

// Read returns the next batch (a whole number of elements, C order). The
// slice is reused by the next call. At the end it returns io.EOF.
func (e *ElementReader) Read() ([]byte, error) {
	if e.done {
		return nil, io.EOF
	}
	a := e.axis
	for i := range e.dims {
		switch {
		case i < a:
			e.lo[i], e.hi[i] = e.idx[i], e.idx[i]+1
		case i == a:
			e.lo[i], e.hi[i] = e.idx[i], min(e.idx[i]+e.step, e.dims[i])
		default:
			e.lo[i], e.hi[i] = 0, e.dims[i]
		}
	}
	size, err := e.rr.SlabBytes(e.lo, e.hi)
	if err != nil {
		return nil, err
	}
	if uint64(cap(e.buf)) < size {
		e.buf = make([]byte, size)
	}
	b := e.buf[:size]
	if err := e.rr.ReadSlab(e.lo, e.hi, b); err != nil {
		return nil, err
	}
	// advance
	e.idx[a] = e.hi[a]
	if e.idx[a] >= e.dims[a] {
		e.idx[a] = 0
		i := a - 1
		for ; i >= 0; i-- {
			e.idx[i]++
			if e.idx[i] < e.dims[i] {
				break
			}
			e.idx[i] = 0
		}
		if i < 0 {
			e.done = true
		}
	}
	return b, nil
}
