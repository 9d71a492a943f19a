package matfile

// v7.3 MAT-files: HDF5 with a 512-byte user block holding the MAT-file
// header, following hdf5storage's matlab_compatible conventions (and
// MATLAB's where the two differ):
//
//   - Every variable has MATLAB_class. Dimensions are reversed: a MATLAB
//     m-by-n array is an HDF5 dataset of shape (n, m) holding the
//     column-major data, so MATLAB (and hdf5storage) see numpy's shape.
//   - logical is uint8 with MATLAB_int_decode 1, complex a compound of
//     "real" and "imag", char uint16 UTF-16 code units with
//     MATLAB_int_decode 2. A character outside the BMP is a surrogate
//     pair, as MATLAB stores it: the last dimension counts code units
//     (hdf5storage reads the pairs back as one character). The width is
//     known once every string has been seen: WriteArray looks at the whole
//     array, CreateVariable spools a variable with strings first (see
//     write_spool.go).
//   - An empty array is a uint64 dataset holding its MATLAB size, in
//     MATLAB's order (a 0x1 empty holds [0 1], as MATLAB writes it;
//     hdf5storage 0.1.19 writes the reverse), with MATLAB_empty = 1. The
//     convention has no place for complexity: an empty complex array
//     reads back as an empty real one of its class.
//   - Structs (structured arrays) are groups with MATLAB_class "struct" and
//     MATLAB_fields, one dataset or group per field.
//   - Layout: datasets of up to 4 KiB are compact (in the object header,
//     as MATLAB does for small variables); larger ones are chunked, chunks
//     of at most 1 MiB (less for structs of over 64 fields, so that their
//     bands stay within 64 MiB), deflate level 3 (MATLAB's default) unless
//     NoCompression. Chunks are compressed on WriteOptions.Threads cores
//     (all by default) by package hdf5, in a file that does not depend on
//     their number.
//
// Streaming: rows along numpy's axis 0 are the last HDF5 dimension, so a
// variable is written one band of chunks at a time: the chunks' extent
// along that axis times all other dimensions, converted and laid out
// column-major, then cut into chunks. Memory per variable is one band.

import (
	"fmt"
	"io"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/npyio"
)

const wDeflate = 3 // MATLAB's deflate level

// Layout thresholds (variables so tests can make small arrays chunked).
var (
	wCompactMax  = 4096    // bytes: compact layout up to this size
	wChunkTarget = 1 << 20 // bytes: largest chunk
)

// wV73 writes v7.3 (HDF5) MAT-files.
type wV73 struct {
	h    *hdf5.Writer
	opts *WriteOptions
}

func wNewV73(w io.WriteSeeker, opts *WriteOptions) (*wV73, error) {
	ub := make([]byte, 128)
	copy(ub, wHeaderText("7.3", opts.Created, true))
	// bytes 116..123: subsystem offset, zero
	wNE.PutUint16(ub[124:], 0x0200)
	copy(ub[126:], wEndianIM())
	h, err := hdf5.NewWriter(w, &hdf5.WriterOptions{UserBlock: ub, Threads: opts.Threads})
	if err != nil {
		return nil, err
	}
	return &wV73{h: h, opts: opts}, nil
}

func (v *wV73) close() error { return v.h.Close() }

// wV73Leaf is one dataset being written.
type wV73Leaf struct {
	l      *wLeaf
	ds     *hdf5.DatasetWriter
	empty  bool
	whole  bool     // one band holds the whole variable, written with Write
	hshape []uint64 // HDF5 shape (reversed MATLAB dims)
	axis   int      // the HDF5 dimension of numpy's axis 0
	chunk  []uint64
	band   []byte // bandRows rows, column-major, in l.usize units
	bandR  int64  // rows per band
	bandNo int64  // index of the band being filled
	filled int64  // rows in the current band
	out    []byte // char: the band narrowed to uint16
	chunkB []byte // scratch chunk
}

type wV73Var struct {
	v      *wV73
	p      *wPlan
	leaves []*wV73Leaf
	next   int64
}

func (v *wV73) create(p *wPlan) (VarWriter, error) {
	vv := &wV73Var{v: v, p: p}
	if err := vv.node(v.h.Root(), p.root); err != nil {
		return nil, err
	}
	return vv, nil
}

func (vv *wV73Var) node(g *hdf5.GroupWriter, n *wNode) error {
	if n.leaf == nil {
		sg, err := g.CreateGroup(n.name)
		if err != nil {
			return err
		}
		if err := sg.SetAttr("MATLAB_class", hdf5.StringAttr("struct")); err != nil {
			return err
		}
		names := make([]string, len(n.fields))
		for i, c := range n.fields {
			names[i] = c.name
		}
		if err := sg.SetAttr("MATLAB_fields", hdf5.FieldNamesAttr(names)); err != nil {
			return err
		}
		for _, c := range n.fields {
			if err := vv.node(sg, c); err != nil {
				return err
			}
		}
		return nil
	}
	return vv.leaf(g, n.leaf)
}

func (vv *wV73Var) leaf(g *hdf5.GroupWriter, l *wLeaf) error {
	opts := vv.v.opts
	lv := &wV73Leaf{l: l}
	nd := len(l.dims)
	lv.hshape = make([]uint64, nd)
	for i, d := range l.dims {
		lv.hshape[nd-1-i] = uint64(d)
	}
	setAttrs := func(ds *hdf5.DatasetWriter) error {
		if err := ds.SetAttr("MATLAB_class", hdf5.StringAttr(l.class.String())); err != nil {
			return err
		}
		switch l.class {
		case wChar:
			if err := ds.SetAttr("MATLAB_int_decode", hdf5.NumAttr(int32(2))); err != nil {
				return err
			}
		case wLogical:
			if err := ds.SetAttr("MATLAB_int_decode", hdf5.NumAttr(int32(1))); err != nil {
				return err
			}
		}
		return nil
	}
	if l.count == 0 {
		// The empty array: its MATLAB size as uint64 data.
		ds, err := g.CreateDataset(l.name, npyio.Uint64Type, []uint64{uint64(nd)}, &hdf5.DatasetOptions{Compact: true})
		if err != nil {
			return err
		}
		b := make([]byte, 8*nd)
		for i, d := range l.dims {
			wNE.PutUint64(b[8*i:], uint64(d))
		}
		if err := ds.Write(b); err != nil {
			return err
		}
		if err := ds.Close(); err != nil {
			return err
		}
		if err := setAttrs(ds); err != nil {
			return err
		}
		if err := ds.SetAttr("MATLAB_empty", hdf5.NumAttr(uint8(1))); err != nil {
			return err
		}
		vv.leaves = append(vv.leaves, &wV73Leaf{l: l, empty: true})
		return nil
	}
	dt, esz := vv.dtype(l)
	// numpy's axis 0 in the HDF5 shape: the last dimension, except for a
	// top-level 1-D array (a 1xn row: HDF5 shape (n, 1)) and a 0-d one.
	R := vv.p.rows
	lv.axis = nd - 1
	if len(vv.p.shape) == 1 && l.dims[0] == 1 && l.dims[1] == int(R) && len(l.inner) == 0 {
		lv.axis = 0
	}
	total := uint64(esz) * uint64(l.count)
	var dopt hdf5.DatasetOptions
	if total <= uint64(wCompactMax) || len(vv.p.shape) == 0 {
		lv.whole = true
		lv.bandR = R
		if total <= uint64(wCompactMax) {
			dopt.Compact = true
		} else if !opts.NoCompression {
			dopt.Deflate = wDeflate
		} else {
			dopt.Contiguous = true
		}
		if dopt.Deflate > 0 {
			dopt.Chunk = wChunkShape(lv.hshape, uint64(esz), vv.target())
		}
	} else {
		lv.chunk = wBandChunk(lv.hshape, uint64(esz), lv.axis, vv.target())
		lv.bandR = int64(lv.chunk[lv.axis])
		dopt.Chunk = lv.chunk
		if !opts.NoCompression {
			dopt.Deflate = wDeflate
		}
	}
	if lv.whole && dopt.Chunk != nil {
		// one band, cut by package hdf5 (Write of the whole C-order data)
		lv.chunk = nil
	}
	ds, err := g.CreateDataset(l.name, dt, lv.hshape, &dopt)
	if err != nil {
		return err
	}
	if err := setAttrs(ds); err != nil {
		return err
	}
	lv.ds = ds
	bandUnits := lv.bandR * (l.count / max(R, 1))
	if len(vv.p.shape) == 0 {
		bandUnits = l.count
	}
	lv.band = make([]byte, bandUnits*int64(l.usize))
	vv.leaves = append(vv.leaves, lv)
	return nil
}

// dtype is the HDF5 element type of a leaf and its size.
func (vv *wV73Var) dtype(l *wLeaf) (*npyio.DType, int) {
	switch {
	case l.class == wChar:
		return npyio.Uint16Type, 2
	case l.class == wLogical:
		return npyio.Uint8Type, 1
	case l.complex:
		f := npyio.Float64Type
		if l.class == wSingle {
			f = npyio.Float32Type
		}
		ct, _ := npyio.NewStruct([]npyio.Field{{Name: "real", Type: f}, {Name: "imag", Type: f}})
		return ct, ct.Size
	}
	switch l.class {
	case wDouble:
		return npyio.Float64Type, 8
	case wSingle:
		return npyio.Float32Type, 4
	case wInt8:
		return npyio.Int8Type, 1
	case wUint8:
		return npyio.Uint8Type, 1
	case wInt16:
		return npyio.Int16Type, 2
	case wUint16:
		return npyio.Uint16Type, 2
	case wInt32:
		return npyio.Int32Type, 4
	case wUint32:
		return npyio.Uint32Type, 4
	case wInt64:
		return npyio.Int64Type, 8
	}
	return npyio.Uint64Type, 8
}

// target is the chunk size for this variable's datasets: wChunkTarget,
// less for a struct of many fields (each streamed field holds one band of
// chunks), so that all bands together stay within wBandBudget, but never
// under wChunkMin.
func (vv *wV73Var) target() uint64 {
	t := uint64(wChunkTarget)
	if n := uint64(len(vv.p.leaves)); n > 0 && 4*t*n > wBandBudget {
		t = max(wBandBudget/n/4, min(wChunkMin, t))
	}
	return t
}

// wBandBudget bounds the bands of one variable; wChunkMin is the
// smallest chunk size used to respect it.
const (
	wBandBudget = 64 << 20
	wChunkMin   = 16 << 10
)

// wBandChunk picks the chunk shape of a streamed dataset: along the
// streaming axis as many rows as fill about 4 chunks' worth of band (at
// least one), the other dimensions halved (largest first) until a chunk
// is at most target bytes; rows are halved only when a single row of
// chunks is still too big.
func wBandChunk(shape []uint64, esz uint64, axis int, target uint64) []uint64 {
	c := make([]uint64, len(shape))
	row := esz
	for i, s := range shape {
		c[i] = max(s, 1)
		if i != axis {
			row *= c[i]
		}
	}
	c[axis] = min(c[axis], max(1, 4*target/row))
	for {
		bytes := esz
		big := -1
		for i, v := range c {
			bytes *= v
			if i != axis && v > 1 && (big < 0 || v > c[big]) {
				big = i
			}
		}
		switch {
		case bytes <= target:
			return c
		case big >= 0:
			c[big] = (c[big] + 1) / 2
		case c[axis] > 1:
			c[axis] = (c[axis] + 1) / 2
		default:
			return c
		}
	}
}

// wChunkShape picks a chunk shape of at most target bytes: the whole
// shape, the largest dimension halved until it fits (as h5py guesses).
func wChunkShape(shape []uint64, esz uint64, target uint64) []uint64 {
	c := make([]uint64, len(shape))
	for i, s := range shape {
		c[i] = max(s, 1)
	}
	for {
		bytes := esz
		big := 0
		for i, v := range c {
			bytes *= v
			if v > c[big] {
				big = i
			}
		}
		if bytes <= target || c[big] == 1 {
			return c
		}
		c[big] = (c[big] + 1) / 2
	}
}

func (vv *wV73Var) Write(rows []byte) error {
	p := vv.p
	if p.rowSize == 0 {
		if len(rows) != 0 {
			return fmt.Errorf("matfile: variable %q: rows are empty but %d bytes were written", p.name, len(rows))
		}
		return nil
	}
	if int64(len(rows))%p.rowSize != 0 {
		return fmt.Errorf("matfile: variable %q: %d bytes is not a whole number of %d-byte rows", p.name, len(rows), p.rowSize)
	}
	n := int64(len(rows)) / p.rowSize
	if vv.next+n > p.rows {
		return fmt.Errorf("matfile: variable %q: more than its %d rows written", p.name, p.rows)
	}
	for _, lv := range vv.leaves {
		if lv.empty {
			continue
		}
		if err := lv.write(rows, n, p); err != nil {
			return err
		}
	}
	vv.next += n
	return nil
}

// write scatters n rows into bands, flushing each band as it fills.
func (lv *wV73Leaf) write(rows []byte, n int64, p *wPlan) error {
	for n > 0 {
		k := min(n, lv.bandR-lv.filled)
		m, err := lv.l.scatter(lv.band, lv.bandR, lv.filled, rows[:k*p.rowSize], int(k), p)
		if err != nil {
			return err
		}
		if m > 0xFFFF {
			// the plan saw no such character (spooled or whole: it cannot)
			return fmt.Errorf("matfile: variable %q: U+%X outside the BMP where the plan has no room for its surrogate pair", lv.l.path, m)
		}
		lv.filled += k
		rows = rows[k*p.rowSize:]
		n -= k
		if lv.filled == lv.bandR {
			if err := lv.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// data returns the band in the dataset's element type.
func (lv *wV73Leaf) data() []byte {
	if lv.l.class != wChar {
		return lv.band
	}
	if len(lv.out) != len(lv.band)/2 {
		lv.out = make([]byte, len(lv.band)/2)
	}
	for i := 0; i < len(lv.out)/2; i++ {
		wNE.PutUint16(lv.out[2*i:], uint16(wNE.Uint32(lv.band[4*i:])))
	}
	return lv.out
}

// flush writes the current band (filled rows; the rest is zero) and
// starts the next.
func (lv *wV73Leaf) flush() error {
	if lv.filled == 0 {
		return nil
	}
	data := lv.data()
	if lv.whole {
		lv.filled = 0
		return lv.ds.Write(data)
	}
	if err := lv.cut(data); err != nil {
		return err
	}
	lv.bandNo++
	lv.filled = 0
	return nil
}

// cut splits a band (C order over hshape with hshape[axis] = bandR) into
// chunks and hands each to the dataset.
func (lv *wV73Leaf) cut(band []byte) error {
	nd := len(lv.hshape)
	bshape := append([]uint64(nil), lv.hshape...)
	bshape[lv.axis] = uint64(lv.bandR)
	esz := uint64(len(band)) / wProd(bshape)
	csize := esz * wProd(lv.chunk)
	if uint64(len(lv.chunkB)) != csize {
		lv.chunkB = make([]byte, csize)
	}
	// chunk grid over the band
	grid := make([]uint64, nd)
	for i := range grid {
		grid[i] = (bshape[i] + lv.chunk[i] - 1) / lv.chunk[i]
	}
	coords := make([]uint64, nd)
	for {
		clear(lv.chunkB)
		wCopyBlock(lv.chunkB, band, bshape, coords, lv.chunk, esz)
		wc := append([]uint64(nil), coords...)
		wc[lv.axis] = uint64(lv.bandNo)
		if err := lv.ds.WriteChunk(wc, lv.chunkB); err != nil {
			return err
		}
		k := nd - 1
		for ; k >= 0; k-- {
			coords[k]++
			if coords[k] < grid[k] {
				break
			}
			coords[k] = 0
		}
		if k < 0 {
			return nil
		}
	}
}

func wProd(s []uint64) uint64 {
	n := uint64(1)
	for _, v := range s {
		n *= v
	}
	return n
}

// wCopyBlock copies the chunk at grid coordinates coords of a C-order
// array of shape src into dst (chunk-shaped, C order), leaving what lies
// outside the array untouched.
func wCopyBlock(dst, src []byte, shape, coords, chunk []uint64, esz uint64) {
	nd := len(shape)
	off := make([]uint64, nd)
	ext := make([]uint64, nd)
	for i := range shape {
		off[i] = coords[i] * chunk[i]
		ext[i] = min(chunk[i], shape[i]-off[i])
	}
	// strides
	sst := make([]uint64, nd)
	dst_ := make([]uint64, nd)
	s, d := esz, esz
	for i := nd - 1; i >= 0; i-- {
		sst[i], dst_[i] = s, d
		s *= shape[i]
		d *= chunk[i]
	}
	run := ext[nd-1] * esz
	idx := make([]uint64, nd)
	for {
		var so, do uint64
		for i := 0; i < nd; i++ {
			so += (off[i] + idx[i]) * sst[i]
			do += idx[i] * dst_[i]
		}
		copy(dst[do:do+run], src[so:so+run])
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

// writeColumnMajor takes a single plain leaf's whole data, already in
// MATLAB's order (the C order of the HDF5 shape): whole datasets take it
// as it is, banded ones band by band (contiguous runs of each column).
func (vv *wV73Var) writeColumnMajor(data []byte) error {
	p := vv.p
	if len(vv.leaves) != 1 || vv.next != 0 {
		return fmt.Errorf("matfile: variable %q: column-major data does not fit", p.name)
	}
	lv := vv.leaves[0]
	l := lv.l
	us := int64(l.usize)
	if l.conv != wCopy || int64(len(data)) != l.count*us {
		return fmt.Errorf("matfile: variable %q: column-major data does not fit", p.name)
	}
	vv.next = p.rows
	if lv.empty {
		return nil
	}
	if lv.whole {
		return lv.ds.Write(data)
	}
	R := p.rows
	cols := l.count / R
	for r0 := int64(0); r0 < R; r0 += lv.bandR {
		k := min(lv.bandR, R-r0)
		for c := int64(0); c < cols; c++ {
			copy(lv.band[c*lv.bandR*us:(c*lv.bandR+k)*us], data[(c*R+r0)*us:(c*R+r0+k)*us])
		}
		lv.filled = k
		if k < lv.bandR {
			lv.zeroTail()
		}
		if err := lv.flush(); err != nil {
			return err
		}
	}
	return nil
}

func (vv *wV73Var) Close() error {
	p := vv.p
	if p.rowSize != 0 && vv.next != p.rows {
		return fmt.Errorf("matfile: variable %q: %d of %d rows written", p.name, vv.next, p.rows)
	}
	for _, lv := range vv.leaves {
		if lv.empty {
			continue
		}
		if lv.filled > 0 {
			if !lv.whole {
				// the last, partial band: zero the rows past the end
				lv.zeroTail()
			}
			if err := lv.flush(); err != nil {
				return err
			}
		}
		if err := lv.ds.Close(); err != nil {
			return err
		}
	}
	return nil
}

// zeroTail clears the rows of the band past lv.filled in every column run.
func (lv *wV73Leaf) zeroTail() {
	us := int64(lv.l.usize)
	runs := int64(len(lv.band)) / (lv.bandR * us)
	for c := int64(0); c < runs; c++ {
		clear(lv.band[(c*lv.bandR+lv.filled)*us : (c+1)*lv.bandR*us])
	}
}
