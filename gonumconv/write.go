package gonumconv

import (
	"bufio"
	"fmt"
	"io"
	"math/cmplx"

	"github.com/npyflow/npyflow/internal/atomicfile"
	"github.com/npyflow/npyflow/npyio"
	"gonum.org/v1/gonum/mat"
)

// chunkElems bounds the buffer used to gather non-contiguous data: 1 MiB
// of float64 values.
const chunkElems = 1 << 17

// layout is what WriteMatrix and WriteCMatrix decided to write: the shape,
// the order, and either the contiguous data as it is or a function that
// fills buf with the output elements starting at element off.
type layout[T float64 | complex128] struct {
	shape   []int
	fortran bool
	direct  []T
	fill    func(buf []T, off int)
}

// WriteMatrix writes m to w as a float64 .npy array (native byte order, so
// '<f8' on little-endian machines), byte-identical to np.save of the numpy
// array m stands for:
//
//   - a *mat.Dense (or any mat.RawMatrixer) is written in C order, straight
//     from its backing slice when its rows are contiguous, gathered through
//     a bounded buffer when it is a strided view (a Slice of a larger
//     matrix);
//   - the transpose of a contiguous Dense (m.T(), mat.Transpose) is written
//     with fortran_order True straight from the Dense's slice, without a
//     copy, as numpy writes a.T; the transpose of a strided view is
//     gathered into C order, as numpy writes a non-contiguous array;
//   - a mat.Vector such as *mat.VecDense is written as a 1-D array of shape
//     (n,); wrap it in a mat.Transpose, or use a one-column Dense, for a
//     2-D array;
//   - anything else (SymDense, TriDense, ...) is read with At, row by row,
//     into a bounded buffer and written in C order.
//
// A zero-size Dense is written with shape (0, 0). WriteMatrix does not
// close w. m must not change while it is written.
func WriteMatrix(w io.Writer, m mat.Matrix) error {
	lay := realLayout(m)
	return writeLayout(w, npyio.Float64Type, lay)
}

func realLayout(m mat.Matrix) layout[float64] {
	r, c := m.Dims()
	if v, ok := m.(mat.Vector); ok {
		n := v.Len()
		if rv, ok := v.(mat.RawVectorer); ok {
			raw := rv.RawVector()
			if raw.Inc == 1 || n <= 1 {
				return layout[float64]{shape: []int{n}, direct: raw.Data[:n]}
			}
			return layout[float64]{shape: []int{n}, fill: func(buf []float64, off int) {
				for i := range buf {
					buf[i] = raw.Data[(off+i)*raw.Inc]
				}
			}}
		}
		return layout[float64]{shape: []int{n}, fill: func(buf []float64, off int) {
			for i := range buf {
				buf[i] = v.AtVec(off + i)
			}
		}}
	}
	shape := []int{r, c}
	if r == 0 || c == 0 {
		return layout[float64]{shape: shape, direct: []float64{}}
	}
	if rm, ok := m.(mat.RawMatrixer); ok {
		raw := rm.RawMatrix()
		if raw.Stride == c || r == 1 {
			return layout[float64]{shape: shape, direct: raw.Data[:(r-1)*raw.Stride+c]}
		}
		return layout[float64]{shape: shape, fill: stridedFill(raw.Data, raw.Stride, c, false, ident)}
	}
	if ut, ok := m.(mat.Untransposer); ok {
		switch u := ut.Untranspose().(type) {
		case mat.RawMatrixer:
			// u is c×r; the output's row i is u's column i.
			raw := u.RawMatrix()
			if raw.Stride == r || c == 1 {
				return layout[float64]{shape: shape, fortran: r > 1 && c > 1, direct: raw.Data[:(c-1)*raw.Stride+r]}
			}
			return layout[float64]{shape: shape, fill: stridedFill(raw.Data, raw.Stride, c, true, ident)}
		case mat.RawVectorer:
			// The transpose of an n-vector: one row.
			raw := u.RawVector()
			if raw.Inc == 1 || c == 1 {
				return layout[float64]{shape: shape, direct: raw.Data[:c]}
			}
			return layout[float64]{shape: shape, fill: stridedFill(raw.Data, 1, c, true, ident)}
		}
	}
	row := make([]float64, c)
	return layout[float64]{shape: shape, fill: func(buf []float64, off int) {
		// Chunks are whole rows (see writeLayout).
		for k := 0; k < len(buf); k += c {
			mat.Row(row, (off+k)/c, m)
			copy(buf[k:], row)
		}
	}}
}

func ident[T any](v T) T { return v }

// stridedFill returns a fill function for a c-column output whose element
// (i, j) is data[i*stride+j], or data[j*stride+i] when transposed, passed
// through f.
func stridedFill[T any](data []T, stride, c int, transposed bool, f func(T) T) func(buf []T, off int) {
	return func(buf []T, off int) {
		for k := range buf {
			i, j := (off+k)/c, (off+k)%c
			if transposed {
				buf[k] = f(data[j*stride+i])
			} else {
				buf[k] = f(data[i*stride+j])
			}
		}
	}
}

// writeLayout writes a header and the data of lay.
func writeLayout[T float64 | complex128](w io.Writer, dt *npyio.DType, lay layout[T]) error {
	h := &npyio.Header{DType: dt, Shape: lay.shape, FortranOrder: lay.fortran}
	nw, err := npyio.NewWriter(w, h)
	if err != nil {
		return err
	}
	if lay.direct != nil {
		if _, err := nw.Write(npyio.AsBytes(lay.direct)); err != nil {
			return err
		}
		return nw.Close()
	}
	total := 1
	for _, d := range lay.shape {
		total *= d
	}
	// Chunks hold whole rows, so row-based fill functions stay simple.
	rowLen := lay.shape[len(lay.shape)-1]
	if len(lay.shape) == 1 {
		rowLen = 1
	}
	step := max(rowLen, chunkElems/rowLen*rowLen)
	buf := make([]T, min(step, total))
	for off := 0; off < total; off += step {
		b := buf[:min(step, total-off)]
		lay.fill(b, off)
		if _, err := nw.Write(npyio.AsBytes(b)); err != nil {
			return err
		}
	}
	return nw.Close()
}

// WriteCMatrix writes m to w as a complex128 .npy array, byte-identical to
// np.save of the numpy array m stands for. The rules are WriteMatrix's: a
// *mat.CDense is written from its backing slice (through a bounded buffer
// for a strided view); its transpose (mat.CTranspose, m.T()) with fortran_order True from
// the same slice; its conjugate transpose (m.H(), mat.ConjTranspose) with
// fortran_order True from conjugated chunks, as numpy writes a.conj().T
// (numpy's conj() makes a new contiguous array even from a strided view,
// so this holds for views too); anything else via At in C order.
func WriteCMatrix(w io.Writer, m mat.CMatrix) error {
	return writeLayout(w, npyio.Complex128, complexLayout(m))
}

func complexLayout(m mat.CMatrix) layout[complex128] {
	r, c := m.Dims()
	shape := []int{r, c}
	if r == 0 || c == 0 {
		return layout[complex128]{shape: shape, direct: []complex128{}}
	}
	if rm, ok := m.(mat.RawCMatrixer); ok {
		raw := rm.RawCMatrix()
		if raw.Stride == c || r == 1 {
			return layout[complex128]{shape: shape, direct: raw.Data[:(r-1)*raw.Stride+c]}
		}
		return layout[complex128]{shape: shape, fill: stridedFill(raw.Data, raw.Stride, c, false, ident)}
	}
	var under mat.CMatrix
	conj := false
	switch t := m.(type) {
	case mat.UnConjTransposer:
		under, conj = t.UnConjTranspose(), true
	case mat.CUntransposer:
		under = t.Untranspose()
	}
	if rm, ok := under.(mat.RawCMatrixer); ok {
		// under is c×r; the output's row i is under's column i.
		raw := rm.RawCMatrix()
		if conj {
			// numpy's a.conj() is a new C-contiguous array whatever a's
			// layout, so a.conj().T is written in Fortran order: under's
			// elements in row-major order, conjugated.
			return layout[complex128]{shape: shape, fortran: r > 1 && c > 1, fill: func(buf []complex128, off int) {
				for k := range buf {
					i, j := (off+k)/r, (off+k)%r
					buf[k] = cmplx.Conj(raw.Data[i*raw.Stride+j])
				}
			}}
		}
		if raw.Stride == r || c == 1 {
			return layout[complex128]{shape: shape, fortran: r > 1 && c > 1, direct: raw.Data[:(c-1)*raw.Stride+r]}
		}
		return layout[complex128]{shape: shape, fill: stridedFill(raw.Data, raw.Stride, c, true, ident)}
	}
	return layout[complex128]{shape: shape, fill: func(buf []complex128, off int) {
		for k := range buf {
			buf[k] = m.At((off+k)/c, (off+k)%c)
		}
	}}
}

// SaveMatrix writes m (see WriteMatrix) to the file name through a
// temporary file in the same directory (internal/atomicfile), flushed to
// disk and renamed into place only when everything was written: a failure
// leaves no partial file, and the file gets mode 0644 less the umask.
func SaveMatrix(name string, m mat.Matrix) error {
	return saveFile(name, func(w io.Writer) error { return WriteMatrix(w, m) })
}

// SaveCMatrix writes m (see WriteCMatrix) to the file name like SaveMatrix.
func SaveCMatrix(name string, m mat.CMatrix) error {
	return saveFile(name, func(w io.Writer) error { return WriteCMatrix(w, m) })
}

func saveFile(name string, write func(io.Writer) error) (err error) {
	f, err := atomicfile.Create(name)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Abort()
			err = fmt.Errorf("%s: %w", name, err)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	return f.Commit()
}
