package gonumconv

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/npyflow/npyflow/npyio"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// RowReader streams an array from an npyio.Reader as batches of matrix
// rows, in bounded memory. It accepts:
//
//   - a 1-D real array, read as one column;
//   - a 2-D real array, one matrix row per array row (Fortran order too:
//     the npyio.Reader reorders it);
//   - a 1-D structured array, one matrix row per record and one column per
//     element of the selected fields (Options.Fields), which must be real
//     scalars or subarrays of them.
//
// Values that are not float64 need Options.Convert, as everywhere in this
// package. A RowReader is not safe for concurrent use.
type RowReader struct {
	r       *npyio.Reader
	cols    int
	names   []string
	rowSize int
	direct  bool // rows are float64 values, usable as they are
	specs   []colSpec
	buf     []float64
	dense   mat.Dense
}

// colSpec extracts n consecutive values of one field from every row.
type colSpec struct {
	off  int // byte offset of the first value in a row
	n    int // number of values (1, or a subarray's element count)
	size int // element size
	col  int // first destination column
	dec  realDecoder
}

// NewRowReader returns a RowReader over r, which must be positioned at the
// first row. It checks the dtype and the fields at once.
func NewRowReader(r *npyio.Reader, opts *Options) (*RowReader, error) {
	h := r.Header()
	dt := r.DType()
	rr := &RowReader{r: r, rowSize: int(r.RowSize())}
	switch {
	case dt.Kind == npyio.Struct:
		if len(h.Shape) != 1 {
			return nil, fmt.Errorf("%w: RowReader reads 1-D structured arrays, this one has shape %v", ErrShape, h.Shape)
		}
		if err := rr.selectFields(dt, opts); err != nil {
			return nil, err
		}
	case len(h.Shape) == 1 || len(h.Shape) == 2:
		if err := checkReal(dt, opts); err != nil {
			return nil, err
		}
		rr.cols = 1
		if len(h.Shape) == 2 {
			rr.cols = h.Shape[1]
		}
		if isFloat64(dt) {
			rr.direct = true
		} else {
			rr.specs = []colSpec{{n: rr.cols, size: dt.Size, dec: realDecoderFor(dt)}}
		}
	default:
		return nil, fmt.Errorf("%w: RowReader reads 1-D and 2-D arrays, this one has shape %v", ErrShape, h.Shape)
	}
	if rr.cols == 0 {
		return nil, fmt.Errorf("%w: shape %v gives rows with no columns", ErrEmpty, h.Shape)
	}
	return rr, nil
}

func (rr *RowReader) selectFields(dt *npyio.DType, opts *Options) error {
	var sel []*npyio.Field
	if opts == nil || opts.Fields == nil {
		for i := range dt.Fields {
			sel = append(sel, &dt.Fields[i])
		}
	} else {
		for _, name := range opts.Fields {
			f := findField(dt, name)
			if f == nil {
				names := make([]string, len(dt.Fields))
				for i := range dt.Fields {
					names[i] = strconv.Quote(dt.Fields[i].Name)
				}
				return fmt.Errorf("%w: no field %q (the array has %s)", ErrField, name, strings.Join(names, ", "))
			}
			sel = append(sel, f)
		}
	}
	for _, f := range sel {
		if err := checkReal(f.Type, opts); err != nil {
			return fmt.Errorf("%w: field %q: %w", ErrField, f.Name, err)
		}
		n := f.Count()
		rr.specs = append(rr.specs, colSpec{off: f.Offset, n: n, size: f.Type.Size, col: rr.cols, dec: realDecoderFor(f.Type)})
		if f.Shape == nil {
			rr.names = append(rr.names, f.Name)
		} else {
			for k := 0; k < n; k++ {
				rr.names = append(rr.names, f.Name+"["+strconv.Itoa(k)+"]")
			}
		}
		rr.cols += n
	}
	return nil
}

func findField(dt *npyio.DType, name string) *npyio.Field {
	for i := range dt.Fields {
		if dt.Fields[i].Name == name || (dt.Fields[i].Title != "" && dt.Fields[i].Title == name) {
			return &dt.Fields[i]
		}
	}
	return nil
}

// Cols returns the number of matrix columns.
func (rr *RowReader) Cols() int { return rr.cols }

// Columns returns a name for each column: the field name (with a [k]
// suffix for the elements of a subarray field) for a structured array,
// the column index for a plain one. The caller must not modify it.
func (rr *RowReader) Columns() []string {
	if rr.names == nil { // a plain array: built on first use
		rr.names = make([]string, rr.cols)
		for j := range rr.names {
			rr.names[j] = strconv.Itoa(j)
		}
	}
	return rr.names
}

// Remaining returns the number of rows not read yet.
func (rr *RowReader) Remaining() int64 { return rr.r.Remaining() }

// Next reads up to maxRows rows and returns them as a Dense that is valid
// until the next call (it is a view of a buffer the RowReader reuses: of
// the npyio.Reader's batch for float64 data, else of the RowReader's own).
// At the end it returns io.EOF.
func (rr *RowReader) Next(maxRows int) (*mat.Dense, error) {
	b, err := rr.r.Next(maxRows)
	if err != nil {
		return nil, err
	}
	var data []float64
	if rr.direct {
		data, err = npyio.View[float64](b.Data)
		if err != nil { // misaligned batch buffer: copy it
			data = rr.grow(b.Rows)
			realDecoderFor(npyio.Float64Type)(data, 1, b.Data, 8, b.Rows*rr.cols)
		}
	} else {
		data = rr.grow(b.Rows)
		rr.decode(data, rr.cols, b.Data, b.Rows)
	}
	rr.dense.SetRawMatrix(blas64.General{Rows: b.Rows, Cols: rr.cols, Stride: rr.cols, Data: data[:b.Rows*rr.cols]})
	return &rr.dense, nil
}

func (rr *RowReader) grow(rows int) []float64 {
	if n := rows * rr.cols; cap(rr.buf) < n {
		rr.buf = make([]float64, n)
	}
	return rr.buf[:rows*rr.cols]
}

// decode converts rows rows of src into dst, whose rows are stride apart.
func (rr *RowReader) decode(dst []float64, stride int, src []byte, rows int) {
	for _, s := range rr.specs {
		if len(rr.specs) == 1 && !rr.direct && s.off == 0 && stride == rr.cols && s.n*s.size == rr.rowSize {
			s.dec(dst, 1, src, s.size, rows*s.n) // plain array: one pass
			return
		}
		for k := 0; k < s.n; k++ {
			s.dec(dst[s.col+k:], stride, src[s.off+k*s.size:], rr.rowSize, rows)
		}
	}
}

// batchRows is how many rows ReadInto moves at a time: about 1 MiB.
func (rr *RowReader) batchRows() int {
	return max(1, (1<<20)/max(rr.rowSize, 1))
}

// ReadInto reads rows into dst, from its first row, until dst is full or
// the array ends, and returns how many rows it filled. dst must have Cols
// columns. float64 rows are read straight into dst's memory when its rows
// are contiguous; other rows pass through a bounded buffer. It returns
// 0, io.EOF when no rows were left.
func (rr *RowReader) ReadInto(dst *mat.Dense) (int, error) {
	r, c := dst.Dims()
	if c != rr.cols {
		return 0, fmt.Errorf("%w: dst has %d columns, the rows have %d", ErrShape, c, rr.cols)
	}
	if rr.Remaining() == 0 {
		return 0, io.EOF
	}
	raw := dst.RawMatrix()
	done := 0
	for done < r && rr.Remaining() > 0 {
		want := min(r-done, rr.batchRows())
		if rr.direct && raw.Stride == c {
			// Straight into dst's memory: no buffer to bound, so read
			// everything that fits in one call.
			want = r - done
			out := raw.Data[done*c : (done+want)*c]
			n, err := rr.r.ReadRows(npyio.AsBytes(out))
			if err != nil {
				return done, err
			}
			done += n
			continue
		}
		b, err := rr.r.Next(want)
		if err != nil {
			return done, err
		}
		out := raw.Data[done*raw.Stride:]
		if rr.direct {
			for i := 0; i < b.Rows; i++ {
				realDecoderFor(npyio.Float64Type)(out[i*raw.Stride:], 1, b.Data[i*rr.rowSize:], 8, c)
			}
		} else {
			rr.decode(out, raw.Stride, b.Data, b.Rows)
		}
		done += b.Rows
	}
	return done, nil
}

// ReadAll reads every remaining row into a new Dense. It fails with
// ErrTooLarge, before allocating, when the matrix would exceed
// Options.MaxElements, and with ErrEmpty when no rows remain.
func (rr *RowReader) ReadAll(opts *Options) (*mat.Dense, error) {
	rows := rr.Remaining()
	if rows == 0 {
		return nil, fmt.Errorf("%w: no rows to read", ErrEmpty)
	}
	if limit := opts.maxElements(); rows > limit/int64(rr.cols) {
		return nil, fmt.Errorf("%w: %d rows of %d columns exceed the limit of %d values (raise Options.MaxElements)", ErrTooLarge, rows, rr.cols, limit)
	}
	dst := mat.NewDense(int(rows), rr.cols, nil)
	n, err := rr.ReadInto(dst)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if int64(n) != rows {
		return nil, fmt.Errorf("gonumconv: read %d of %d rows: %w", n, rows, io.ErrUnexpectedEOF)
	}
	return dst, nil
}

// Fields reads the named fields of a 1-D structured array (all fields when
// names is nil) into a new Dense with one column per field element,
// streaming the rows through a bounded buffer. See RowReader for the
// accepted types; opts.Fields is ignored in favour of names.
func Fields(r *npyio.Reader, names []string, opts *Options) (*mat.Dense, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Fields = names
	rr, err := NewRowReader(r, &o)
	if err != nil {
		return nil, err
	}
	return rr.ReadAll(&o)
}
