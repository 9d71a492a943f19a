package npyio

import (
	"fmt"
	"io"
)

// Writer writes the data of one .npy array after its header.
//
// Data passed to Write is in native byte order, in the layout the header
// declares (row-major, or column-major with FortranOrder); the Writer
// converts it to the header's byte order. Errors are sticky. Close checks
// that exactly the declared amount of data was written; it does not close
// the underlying io.Writer.
type Writer struct {
	w       io.Writer
	h       Header
	fix     *fixer
	seeker  io.WriteSeeker // stream mode: rewrite the header on Close
	start   int64          // stream mode: offset of the header
	hdrLen  int
	rowSize int64
	written int64
	want    int64 // -1 in stream mode
	carry   []byte
	scratch []byte
	err     error
	closed  bool
}

// NewWriter writes the header for an array of h.DType, h.Shape and
// h.FortranOrder to w and returns a Writer for its data. The header is
// byte-identical to np.save's; h's Major, Minor, DataOffset and Text are
// set.
func NewWriter(w io.Writer, h *Header) (*Writer, error) {
	hdr, err := EncodeHeader(h)
	if err != nil {
		return nil, err
	}
	if err := h.DType.unsupported(); err != nil {
		return nil, err
	}
	if _, err := w.Write(hdr); err != nil {
		return nil, fmt.Errorf("npyio: writing header: %w", err)
	}
	return &Writer{w: w, h: *h, fix: newFixer(h.DType, false), hdrLen: len(hdr), rowSize: h.RowSize(), want: h.DataSize()}, nil
}

// NewStreamWriter starts an array of dt whose length along axis 0 is not
// known in advance: each row has shape rowShape. It writes a header with
// zero rows; Close rewrites it in place with the real count. numpy leaves
// room for this in every header, so the result is byte-identical to what
// np.save writes for the final array.
func NewStreamWriter(w io.WriteSeeker, dt *DType, rowShape []int) (*Writer, error) {
	start, err := w.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, fmt.Errorf("npyio: stream writer needs a seekable output: %w", err)
	}
	h := &Header{DType: dt, Shape: append([]int{0}, rowShape...)}
	wr, err := NewWriter(w, h)
	if err != nil {
		return nil, err
	}
	wr.seeker, wr.start, wr.want = w, start, -1
	return wr, nil
}

// Header returns the header as written so far (the final one after Close).
func (w *Writer) Header() *Header { return &w.h }

// Write writes native-order element bytes. Byte counts need not be whole
// elements or rows.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.closed {
		return 0, ErrClosed
	}
	if w.want >= 0 && w.written+int64(len(w.carry))+int64(len(p)) > w.want {
		w.err = fmt.Errorf("%w: writing %d bytes past the declared %d", ErrShape, w.written+int64(len(w.carry))+int64(len(p))-w.want, w.want)
		return 0, w.err
	}
	n := len(p)
	if w.fix == nil {
		if err := w.emit(p); err != nil {
			return 0, err
		}
		return n, nil
	}
	size := w.h.DType.Size
	if len(w.carry) > 0 {
		k := min(size-len(w.carry), len(p))
		w.carry = append(w.carry, p[:k]...)
		p = p[k:]
		if len(w.carry) == size {
			el := append([]byte(nil), w.carry...)
			w.fix.apply(el)
			w.carry = w.carry[:0]
			if err := w.emit(el); err != nil {
				return 0, err
			}
		}
	}
	whole := len(p) / size * size
	const chunk = 1 << 20
	for off := 0; off < whole; {
		m := min(whole-off, max(chunk/size, 1)*size)
		if cap(w.scratch) < m {
			w.scratch = make([]byte, m)
		}
		s := w.scratch[:m]
		copy(s, p[off:off+m])
		w.fix.apply(s)
		if err := w.emit(s); err != nil {
			return 0, err
		}
		off += m
	}
	w.carry = append(w.carry, p[whole:]...)
	return n, nil
}

func (w *Writer) emit(b []byte) error {
	if _, err := w.w.Write(b); err != nil {
		w.err = fmt.Errorf("npyio: writing data: %w", err)
		return w.err
	}
	w.written += int64(len(b))
	return nil
}

// Close finishes the array. For a stream writer it checks that whole rows
// were written and rewrites the header with the row count, leaving the
// output positioned at the end of the data.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	if len(w.carry) > 0 {
		w.err = fmt.Errorf("%w: %d bytes left over, not a whole element", ErrShape, len(w.carry))
		return w.err
	}
	if w.want >= 0 {
		if w.written != w.want {
			w.err = fmt.Errorf("%w: wrote %d data bytes, the shape %v needs %d", ErrShape, w.written, w.h.Shape, w.want)
		}
		return w.err
	}
	rows := int64(0)
	if w.rowSize > 0 {
		if w.written%w.rowSize != 0 {
			w.err = fmt.Errorf("%w: wrote %d bytes, not a whole number of %d-byte rows", ErrShape, w.written, w.rowSize)
			return w.err
		}
		rows = w.written / w.rowSize
	}
	return w.finish(rows)
}

// SetRows sets the row count of a stream writer whose rows have zero size
// (so the count cannot be inferred from the bytes written).
func (w *Writer) SetRows(n int) error {
	if w.seeker == nil || w.rowSize != 0 {
		return fmt.Errorf("npyio: SetRows is only for stream writers of zero-size rows")
	}
	w.closed = true
	return w.finish(int64(n))
}

func (w *Writer) finish(rows int64) error {
	h := w.h
	h.Shape = append([]int{int(rows)}, w.h.Shape[1:]...)
	hdr, err := EncodeHeader(&h)
	if err == nil && len(hdr) != w.hdrLen {
		err = fmt.Errorf("npyio: header length changed from %d to %d bytes", w.hdrLen, len(hdr))
	}
	if err == nil {
		_, err = w.seeker.Seek(w.start, io.SeekStart)
	}
	if err == nil {
		_, err = w.seeker.Write(hdr)
	}
	if err == nil {
		_, err = w.seeker.Seek(0, io.SeekEnd)
	}
	if err != nil {
		w.err = fmt.Errorf("npyio: rewriting header: %w", err)
		return w.err
	}
	w.h = h
	return nil
}

// WriteArray writes a whole array: header and data (native order, in the
// layout a.Header declares) converted to a.Header.DType's byte order.
func WriteArray(w io.Writer, a *Array) error {
	h := *a.Header
	wr, err := NewWriter(w, &h)
	if err != nil {
		return err
	}
	if _, err := wr.Write(a.Data); err != nil {
		return err
	}
	return wr.Close()
}
