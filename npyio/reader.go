package npyio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unsafe"
)

// Reader streams the rows (axis 0) of an .npy array in batches.
//
// Rows are delivered in native byte order and logical C order, whatever the
// file's byte order and fortran_order, with bools normalized to 0 or 1. A
// row is RowSize bytes: the elements of one index along axis 0, in C order.
// A 0-d array is one row.
//
// A Reader built on an io.ReaderAt (NewReaderAt) streams every array in
// bounded memory, Fortran-order ones included. One built on a plain
// io.Reader (NewReader) streams C-order arrays the same way, but a
// Fortran-order array with two or more dimensions must be held whole to be
// reordered: it buffers DataSize bytes (at most Options.MaxBufferSize) on
// the first read.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	h       *Header
	opts    *Options
	src     io.Reader   // sequential source; nil once ra is set
	ra      io.ReaderAt // random-access source
	base    int64       // data offset within ra
	native  *DType
	fix     *fixer
	rowSize int64
	rows    int64
	next    int64
	partial int64 // bytes of row next already read by NextPart
	read    int64 // data bytes consumed from src
	buf     []byte
	scratch []byte
	err     error
	// atEnd, if set, runs once after the last row has been read (npz
	// members use it to verify the zip CRC and release the decompressor).
	atEnd func() error
}

// NewReader reads the header from r and returns a Reader for the data that
// follows. The Reader reads exactly the array's data from r and no more, so
// concatenated .npy streams can be read one after another. It does not
// buffer: wrap a slow r in a bufio.Reader yourself.
func NewReader(r io.Reader, opts *Options) (*Reader, error) {
	h, err := readHeader(r, opts, -1)
	if err != nil {
		return nil, err
	}
	return newReader(h, r, nil, opts)
}

// NewReaderAt reads the header from r, whose total size is size, and returns
// a Reader that reads data with ReadAt: the fast path for files, which also
// streams Fortran-order arrays in bounded memory. It fails at once if size
// is too small for the declared data.
func NewReaderAt(r io.ReaderAt, size int64, opts *Options) (*Reader, error) {
	h, err := readHeader(io.NewSectionReader(r, 0, size), opts, size)
	if err != nil {
		return nil, err
	}
	if err := h.DType.unsupported(); err != nil {
		return nil, err
	}
	if avail := size - h.DataOffset; h.DataSize() > avail {
		return nil, &TruncatedError{Section: "data", Want: h.DataSize(), Got: avail}
	}
	return newReader(h, nil, r, opts)
}

func newReader(h *Header, src io.Reader, ra io.ReaderAt, opts *Options) (*Reader, error) {
	if err := h.DType.unsupported(); err != nil {
		return nil, err
	}
	rd := &Reader{
		h:       h,
		opts:    opts,
		src:     src,
		ra:      ra,
		base:    h.DataOffset,
		native:  h.DType.Native(),
		fix:     newFixer(h.DType, true),
		rowSize: h.RowSize(),
		rows:    h.Rows(),
	}
	if rd.fortran() && src != nil && h.DataSize() > opts.maxBuffer() {
		return nil, fmt.Errorf("%w: reading a Fortran-order array of %d bytes in row order from a stream needs it all in memory, over the limit of %d (use NewReaderAt, or raise Options.MaxBufferSize)", ErrTooLarge, h.DataSize(), opts.maxBuffer())
	}
	return rd, nil
}

// KeepBoolBytes makes Next and ReadRows deliver bool elements as stored
// in the file instead of normalized to 0 or 1. numpy treats any non-zero
// byte as true, so this is only for consumers that test bool bytes against
// zero themselves (arrowconv's bit-packing does): it saves a pass over the
// data. Call it before the first Next or ReadRows.
func (r *Reader) KeepBoolBytes() {
	r.fix = newFixer(r.h.DType, false)
}

// fortran reports whether rows must be gathered from column-major data.
func (r *Reader) fortran() bool {
	if !r.h.FortranOrder || len(r.h.Shape) < 2 {
		return false
	}
	return r.rows > 1 && r.rowSize > int64(r.h.DType.Size)
}

// Header returns the file's header. The caller must not modify it.
func (r *Reader) Header() *Header { return r.h }

// DType returns the type of the delivered elements: the file's dtype in
// native byte order.
func (r *Reader) DType() *DType { return r.native }

// RowSize returns the size of one row in bytes.
func (r *Reader) RowSize() int64 { return r.rowSize }

// Rows returns the number of rows in the array.
func (r *Reader) Rows() int64 { return r.rows }

// Remaining returns the number of rows not read yet.
func (r *Reader) Remaining() int64 { return r.rows - r.next }

// Batch is a run of consecutive rows.
type Batch struct {
	Start int64  // index of the first row
	Rows  int    // number of rows
	Data  []byte // Rows*RowSize bytes, native order, C order
}

// Next reads up to maxRows rows into a buffer owned by the Reader, valid
// until the next call. At the end it returns io.EOF.
func (r *Reader) Next(maxRows int) (Batch, error) {
	if r.err != nil {
		return Batch{}, r.err
	}
	if r.partial != 0 {
		return Batch{}, ErrPartialRow
	}
	if maxRows < 1 {
		maxRows = 1
	}
	n := min(int64(maxRows), r.Remaining())
	if n == 0 {
		return Batch{}, r.end()
	}
	need := n * r.rowSize
	if int64(cap(r.buf)) < need {
		if r.src != nil && need > growChunk {
			// Size untrusted: let readGrow allocate as bytes arrive.
			r.buf = nil
		} else {
			r.buf = make([]byte, need)
		}
	}
	start := r.next
	got, err := r.readRows(r.buf[:min(int64(cap(r.buf)), need)], n)
	if err != nil {
		return Batch{}, err
	}
	if cap(got) > cap(r.buf) {
		r.buf = got
	}
	if err := r.lastRows(); err != nil {
		return Batch{}, err
	}
	return Batch{Start: start, Rows: int(n), Data: got}, nil
}

// ReadRows reads as many whole rows as fit in dst (all remaining rows when
// rows have zero size) and returns how many it read. At the end it returns
// 0, io.EOF.
func (r *Reader) ReadRows(dst []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.partial != 0 {
		return 0, ErrPartialRow
	}
	rem := r.Remaining()
	if rem == 0 {
		return 0, r.end()
	}
	n := rem
	if r.rowSize > 0 {
		n = min(rem, int64(len(dst))/r.rowSize)
		if n == 0 {
			return 0, io.ErrShortBuffer
		}
	}
	if _, err := r.readRows(dst[:n*r.rowSize], n); err != nil {
		return 0, err
	}
	if err := r.lastRows(); err != nil {
		return 0, err
	}
	return int(n), nil
}

// lastRows runs the atEnd hook as soon as the last row has been read, so
// a caller that stops after Rows() rows without asking for io.EOF still
// gets the npz member's CRC check.
func (r *Reader) lastRows() error {
	if r.Remaining() > 0 || r.atEnd == nil {
		return nil
	}
	if err := r.end(); err != io.EOF {
		return err
	}
	return nil
}

// end runs the atEnd hook once and returns io.EOF or its error.
func (r *Reader) end() error {
	if r.atEnd != nil {
		f := r.atEnd
		r.atEnd = nil
		if err := f(); err != nil {
			r.err = err
			return err
		}
	}
	return io.EOF
}

// growChunk bounds allocations made ahead of data arriving from a stream.
const growChunk = 64 << 20

func (r *Reader) readRows(dst []byte, n int64) ([]byte, error) {
	var err error
	switch {
	case r.fortran():
		if r.ra == nil {
			if err = r.bufferAll(); err != nil {
				break
			}
		}
		if int64(len(dst)) < n*r.rowSize {
			dst = make([]byte, n*r.rowSize)
		}
		err = r.gatherFortran(dst, r.next, n)
	case r.ra != nil:
		off := r.base + r.next*r.rowSize
		var m int
		m, err = r.ra.ReadAt(dst, off)
		if m == len(dst) {
			err = nil
		} else if err == nil || err == io.EOF {
			err = &TruncatedError{Section: "data", Want: r.h.DataSize(), Got: r.next*r.rowSize + int64(m)}
		}
		if err == nil {
			r.fix.apply(dst)
		}
	default:
		dst, err = r.readStream(dst, n*r.rowSize)
		if err == nil {
			r.fix.apply(dst)
		}
	}
	if err != nil {
		r.err = err
		return nil, err
	}
	r.next += n
	return dst, nil
}

// readStream reads want bytes from the sequential source into dst, growing
// it as data arrives when it is shorter than want.
func (r *Reader) readStream(dst []byte, want int64) ([]byte, error) {
	got, err := readGrow(r.src, dst, want)
	r.read += int64(len(got))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
			return nil, &TruncatedError{Section: "data", Want: r.h.DataSize(), Got: r.read}
		}
		return nil, fmt.Errorf("npyio: reading data: %w", err)
	}
	return got, nil
}

// readGrow reads exactly want bytes from src, into dst when it is big
// enough, otherwise into a buffer grown as data arrives (so a false size
// costs at most twice the bytes really read).
func readGrow(src io.Reader, dst []byte, want int64) ([]byte, error) {
	if int64(len(dst)) >= want {
		m, err := io.ReadFull(src, dst[:want])
		return dst[:m], err
	}
	buf := make([]byte, 0, min(want, growChunk))
	for int64(len(buf)) < want {
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), min(want, int64(cap(buf))*2))
			copy(nb, buf)
			buf = nb
		}
		m, err := io.ReadFull(src, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// bufferAll reads the whole data of a stream source so that Fortran-order
// rows can be gathered from it.
func (r *Reader) bufferAll() error {
	all, err := r.readStream(nil, r.h.DataSize())
	if err != nil {
		return err
	}
	r.buf = nil
	r.ra = bytes.NewReader(all)
	r.base = 0
	r.src = nil
	return nil
}

// gatherFortran reads rows [first, first+n) of a column-major array into
// dst in row-major order. In Fortran order, each trailing index's slice of
// a batch of rows is contiguous in the file.
func (r *Reader) gatherFortran(dst []byte, first, n int64) error {
	isz := int64(r.h.DType.Size)
	n0 := r.rows
	m := r.rowSize / isz // elements per row
	need := n * r.rowSize
	if int64(cap(r.scratch)) < need {
		r.scratch = make([]byte, need)
	}
	src := r.scratch[:need]
	run := n * isz
	if n == n0 {
		if err := r.readAtFull(src, r.base); err != nil {
			return err
		}
	} else {
		for j := int64(0); j < m; j++ {
			if err := r.readAtFull(src[j*run:(j+1)*run], r.base+(j*n0+first)*isz); err != nil {
				return err
			}
		}
	}
	r.fix.apply(src)
	transposeF(dst[:need], src, r.h.Shape[1:], int(n), int(isz))
	return nil
}

func (r *Reader) readAtFull(p []byte, off int64) error {
	m, err := r.ra.ReadAt(p, off)
	if m == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		return &TruncatedError{Section: "data", Want: r.h.DataSize(), Got: off - r.base + int64(m)}
	}
	return fmt.Errorf("npyio: reading data: %w", err)
}

// transposeF scatters src, laid out as one block of n elements per trailing
// index in Fortran order, into dst as n rows of trailing elements in C
// order.
func transposeF(dst, src []byte, trailing []int, n, isz int) {
	m := 1
	for _, d := range trailing {
		m *= d
	}
	// cstride[k]: C-order element stride of trailing axis k within a row.
	cstride := make([]int, len(trailing))
	s := 1
	for k := len(trailing) - 1; k >= 0; k-- {
		cstride[k] = s
		s *= trailing[k]
	}
	idx := make([]int, len(trailing))
	const block = 64
	cs := make([]int, 0, block)
	c := 0
	for j0 := 0; j0 < m; j0 += block {
		cs = cs[:0]
		for j := j0; j < min(j0+block, m); j++ {
			cs = append(cs, c)
			// Advance the Fortran-order odometer (first trailing axis fastest).
			for k := range idx {
				idx[k]++
				c += cstride[k]
				if idx[k] < trailing[k] {
					break
				}
				c -= idx[k] * cstride[k]
				idx[k] = 0
			}
		}
		scatter(dst, src[j0*n*isz:], cs, n, m, isz)
	}
}

// scatter copies, for each block-local trailing index b with C position
// cs[b], the n elements src[b*n+r] to dst[r*m+cs[b]].
func scatter(dst, src []byte, cs []int, n, m, isz int) {
	aligned := uintptr(unsafe.Pointer(unsafe.SliceData(dst)))%uintptr(max(isz, 1)) == 0 &&
		uintptr(unsafe.Pointer(unsafe.SliceData(src)))%uintptr(max(isz, 1)) == 0
	switch {
	case aligned && isz == 8:
		scatterT(asSlice[uint64](dst), asSlice[uint64](src), cs, n, m)
	case aligned && isz == 4:
		scatterT(asSlice[uint32](dst), asSlice[uint32](src), cs, n, m)
	case aligned && isz == 2:
		scatterT(asSlice[uint16](dst), asSlice[uint16](src), cs, n, m)
	case isz == 1:
		scatterT(dst, src, cs, n, m)
	default:
		for b, c := range cs {
			for r := 0; r < n; r++ {
				copy(dst[(r*m+c)*isz:(r*m+c+1)*isz], src[(b*n+r)*isz:])
			}
		}
	}
}

func scatterT[T any](dst, src []T, cs []int, n, m int) {
	const rb = 256
	for r0 := 0; r0 < n; r0 += rb {
		r1 := min(r0+rb, n)
		for b, c := range cs {
			s := src[b*n : b*n+n]
			for r := r0; r < r1; r++ {
				dst[r*m+c] = s[r]
			}
		}
	}
}

// asSlice reinterprets b as a []T (b must be aligned for T).
func asSlice[T any](b []byte) []T {
	var z T
	sz := int(unsafe.Sizeof(z))
	if len(b) < sz {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/sz)
}
