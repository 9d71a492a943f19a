package npyio

import (
	"errors"
	"io"
)

// ErrPartialRow is returned by Next and ReadRows after NextPart stopped
// inside a row: finish the row with NextPart first.
var ErrPartialRow = errors.New("npyio: a row was read in part: continue with NextPart")

// NextPart reads the next data bytes in C order without regard to row
// boundaries: about maxBytes, rounded down to whole elements (at least
// one element), in native byte order with bools normalized, into a
// buffer owned by the Reader, valid until the next call. It is for
// arrays whose rows are too large to hold at once (a 1 x N array is one
// row). Rows and Remaining count whole rows read. At the end it returns
// io.EOF. A Fortran-order array (whose rows are gathered) and an array
// of zero-size elements are read in whole rows, as Next reads them.
func (r *Reader) NextPart(maxBytes int) ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	es := int64(r.h.DType.Size)
	if r.fortran() || es == 0 || r.rowSize == 0 {
		if r.partial != 0 {
			return nil, ErrPartialRow
		}
		b, err := r.Next(max(1, int(int64(maxBytes)/max(r.rowSize, 1))))
		return b.Data, err
	}
	rem := (r.rows-r.next)*r.rowSize - r.partial
	if rem <= 0 {
		return nil, r.end()
	}
	n := min(max(es, int64(maxBytes)/es*es), rem)
	if int64(cap(r.buf)) < n {
		r.buf = make([]byte, n)
	}
	buf := r.buf[:n]
	off := r.next*r.rowSize + r.partial
	if r.ra != nil {
		m, err := r.ra.ReadAt(buf, r.base+off)
		if m < len(buf) {
			if err == nil || err == io.EOF {
				err = &TruncatedError{Section: "data", Want: r.h.DataSize(), Got: off + int64(m)}
			}
			r.err = err
			return nil, err
		}
	} else {
		got, err := r.readStream(buf, n)
		if err != nil {
			r.err = err
			return nil, err
		}
		buf = got
	}
	r.fix.apply(buf)
	off += n
	r.next, r.partial = off/r.rowSize, off%r.rowSize
	if err := r.lastRows(); err != nil {
		return nil, err
	}
	return buf, nil
}
