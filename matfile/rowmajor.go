package matfile

import (
	"io"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/npyio"
)

// Row-major reading: MATLAB stores arrays column-major, so the rows of a
// MATLAB matrix (what a table or a C-order .npy wants) are scattered over
// the whole variable. OpenRowMajor delivers them in bands of rows: a
// v7.3 array reads each band as one HDF5 hyperslab (the band's columns
// of the HDF5 dataset, whose dimensions are MATLAB's reversed), touching
// only the chunks it needs, and reverses the band's axes in memory.

// bandBytes is the target size of one band of rows.
var bandBytes int64 = 8 << 20

// OpenRowMajor returns a reader of the data in C (row-major) order: the
// same elements as Open, but a[0, ...] first, as a C-order .npy of the
// Header's shape holds them. When the data is already in that order (at
// most one dimension longer than 1) it is Open. A v7.3 numeric or
// logical array streams in bands of about 8 MiB of rows, each read as
// one HDF5 hyperslab, so memory stays bounded whatever the variable's
// size; so does an uncompressed (v6) Level 5 numeric array, read one run
// per column and band. A compressed (v7) Level 5 numeric array is one
// zlib stream in column-major order, so its first row needs its last
// column: it is inflated in a goroutine, and up to 64 MiB (a matrix)
// blocks of columns are scattered into a C-order buffer of the whole
// variable; a larger one is inflated to a temporary file (os.TempDir,
// removed on Close) read back in bands like a v6 array, so memory stays
// bounded. Any other variable is read whole (bounded by
// Options.MaxVariableBytes, as Array) and delivered band by band.
func (v *Var) OpenRowMajor() (io.ReadCloser, error) {
	h := v.Header
	if !h.FortranOrder || longAxes(h.Shape) <= 1 || h.DataSize() == 0 {
		return v.Open()
	}
	if v.slab != nil {
		return v.slab()
	}
	a, err := v.Array()
	if err != nil {
		return nil, err
	}
	es := h.DType.Size
	dims := h.Shape
	return newBandStream(dims, es, func(r0, r1 int, box []byte) error {
		boxFromColumnMajor(a.Data, dims, es, r0, r1, box)
		return nil
	}), nil
}

func longAxes(shape []int) int {
	n := 0
	for _, d := range shape {
		if d > 1 {
			n++
		}
	}
	return n
}

// bandStream delivers the rows of a column-major array of shape dims
// band by band: fill writes the band of rows [r0, r1) as the C-order
// box of shape (dims[k-1], ..., dims[1], r1-r0) (the column-major data
// restricted to those rows), which is reversed into C order.
type bandStream struct {
	dims    []int
	es      int
	band    int
	next    int
	fill    func(r0, r1 int, box []byte) error
	box     []byte
	out     []byte
	pending []byte
	err     error
}

func newBandStream(dims []int, es int, fill func(r0, r1 int, box []byte) error) *bandStream {
	rowBytes := int64(es)
	for _, d := range dims[1:] {
		rowBytes *= int64(d)
	}
	band := int(max(1, bandBytes/max(rowBytes, 1)))
	return &bandStream{dims: dims, es: es, band: min(band, dims[0]), fill: fill}
}

func (s *bandStream) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		if s.next >= s.dims[0] {
			return 0, io.EOF
		}
		r0, r1 := s.next, min(s.next+s.band, s.dims[0])
		n := (r1 - r0) * s.es
		for _, d := range s.dims[1:] {
			n *= d
		}
		if cap(s.box) < n {
			s.box = allocFor(int64(n/s.es), s.es)
			s.out = allocFor(int64(n/s.es), s.es)
		}
		box, out := s.box[:n], s.out[:n]
		if err := s.fill(r0, r1, box); err != nil {
			s.err = err
			return 0, err
		}
		shape := append([]int{r1 - r0}, s.dims[1:]...)
		fortranToC(out, box, shape, s.es)
		s.pending = out
		s.next = r1
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

func (s *bandStream) Close() error { return nil }

// boxFromColumnMajor copies rows [r0, r1) of the column-major array data
// of shape dims into box: for every column (index over dims[1:], column
// major), its elements r0..r1-1.
func boxFromColumnMajor(data []byte, dims []int, es, r0, r1 int, box []byte) {
	cols := 1
	for _, d := range dims[1:] {
		cols *= d
	}
	col := dims[0] * es
	run := (r1 - r0) * es
	for c := 0; c < cols; c++ {
		copy(box[c*run:(c+1)*run], data[c*col+r0*es:])
	}
}

// fortranToC reorders src, a Fortran-order array of the given shape, into
// dst in C order.
func fortranToC(dst, src []byte, shape []int, es int) {
	if len(shape) == 2 {
		transpose(dst, src, shape[1], shape[0], es)
		return
	}
	// Fortran of shape (s0, ..., sn) is C of the reversed shape: walk dst
	// in C order, the source offset following along.
	n := len(shape)
	fstride := make([]int, n)
	s := es
	for i := 0; i < n; i++ {
		fstride[i] = s
		s *= shape[i]
	}
	idx := make([]int, n)
	last := n - 1
	step := fstride[last]
	for d := 0; d < len(dst); {
		so := 0
		for i := 0; i < last; i++ {
			so += idx[i] * fstride[i]
		}
		for j := 0; j < shape[last]; j++ {
			copy(dst[d:d+es], src[so:so+es])
			d += es
			so += step
		}
		k := last - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// transpose writes the transpose of src (rows x cols, C order, elements
// of es bytes) to dst (cols x rows), in cache-sized blocks, moving whole
// elements where es is a word size and the buffers are aligned to it.
func transpose(dst, src []byte, rows, cols, es int) {
	if len(dst) > 0 && aligned(dst, es) && aligned(src, es) {
		switch es {
		case 8:
			transposeT(words[uint64](dst), words[uint64](src), rows, cols)
			return
		case 4:
			transposeT(words[uint32](dst), words[uint32](src), rows, cols)
			return
		case 2:
			transposeT(words[uint16](dst), words[uint16](src), rows, cols)
			return
		case 1:
			transposeT(dst, src, rows, cols)
			return
		}
	}
	const blk = 32
	for i0 := 0; i0 < rows; i0 += blk {
		i1 := min(i0+blk, rows)
		for j0 := 0; j0 < cols; j0 += blk {
			j1 := min(j0+blk, cols)
			for i := i0; i < i1; i++ {
				for j := j0; j < j1; j++ {
					d, s := (j*rows+i)*es, (i*cols+j)*es
					copy(dst[d:d+es], src[s:s+es])
				}
			}
		}
	}
}

// transposeT is transpose on elements, in blocks of 16 x 16.
func transposeT[T uint8 | uint16 | uint32 | uint64](d, s []T, rows, cols int) {
	const blk = 16
	for i0 := 0; i0 < rows; i0 += blk {
		i1 := min(i0+blk, rows)
		for j0 := 0; j0 < cols; j0 += blk {
			j1 := min(j0+blk, cols)
			for j := j0; j < j1; j++ {
				out := d[j*rows+i0 : j*rows+i1]
				q := i0*cols + j
				for k := range out {
					out[k] = s[q]
					q += cols
				}
			}
		}
	}
}

// slabStream is the row-major stream of a v7.3 numeric array: each band
// of MATLAB rows is the HDF5 box whose last dimension (MATLAB's first)
// is [r0, r1), converted to native order as h5stream does.
func (v *v73File) slabStream(ds *hdf5.Dataset, path string, dt, out *npyio.DType, dims []int) (io.ReadCloser, error) {
	rr, err := ds.NewRowReader(1)
	if err != nil {
		return nil, v.h5err(path, err)
	}
	conv := &h5stream{normB: out.Kind == npyio.Bool}
	if !dt.IsNative() {
		conv.swap = dt.Size
		if dt.Kind == npyio.Complex {
			conv.swap = dt.Size / 2
		}
	}
	hd := ds.Shape()
	k := len(hd)
	lo := make([]uint64, k)
	hi := append([]uint64(nil), hd...)
	s := newBandStream(dims, out.Size, func(r0, r1 int, box []byte) error {
		lo[k-1], hi[k-1] = uint64(r0), uint64(r1)
		if err := rr.ReadSlab(lo, hi, box); err != nil {
			return v.h5err(path, err)
		}
		conv.convert(box)
		return nil
	})
	// Follow the chunk grid along MATLAB's first dimension, so each chunk
	// is decoded once while the chunk cache holds a band of chunks.
	if l := ds.Layout(); l != nil && l.Class == hdf5.LayoutChunked && len(l.Chunk) == k {
		c := int(l.Chunk[k-1])
		switch {
		case s.band > c:
			s.band -= s.band % c
		case s.band < c && c <= 4*s.band:
			s.band = min(c, dims[0])
		}
	}
	return s, nil
}
