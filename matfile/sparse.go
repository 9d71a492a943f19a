package matfile

import (
	"encoding/binary"
	"fmt"

	"github.com/npyflow/npyflow/npyio"
)

// csc is a compressed sparse column matrix as MAT-files hold it.
type csc struct {
	m, n   int
	ir, jc []int64
}

// check validates the index arrays: jc non-decreasing from 0 with n+1
// entries, every row index below m, nnz = jc[n] within ir and nvals.
func (s *csc) check(nvals int) error {
	if len(s.jc) != s.n+1 {
		return fmt.Errorf("%d column pointers for %d columns", len(s.jc), s.n)
	}
	if s.jc[0] != 0 {
		return fmt.Errorf("the first column pointer is %d, not 0", s.jc[0])
	}
	for j := 1; j <= s.n; j++ {
		if s.jc[j] < s.jc[j-1] {
			return fmt.Errorf("column pointers decrease at column %d", j)
		}
	}
	nnz := s.jc[s.n]
	if nnz > int64(len(s.ir)) || nnz > int64(nvals) {
		return fmt.Errorf("%d nonzeros but %d row indices and %d values", nnz, len(s.ir), nvals)
	}
	for k := int64(0); k < nnz; k++ {
		if s.ir[k] < 0 || s.ir[k] >= int64(s.m) {
			return fmt.Errorf("row index %d out of range [0, %d)", s.ir[k], s.m)
		}
	}
	return nil
}

// denseSize checks the dense size of an m x n matrix of elem bytes
// against limit.
func denseSize(path string, m, n, elem int, limit int64) (int64, error) {
	cells, ok := numel([]int{m, n})
	if !ok || cells > limit/int64(elem) {
		size := int64(-1)
		if ok {
			size = cells * int64(elem)
		}
		return 0, &LimitError{Path: path, What: "dense size of the sparse matrix", Size: size, Limit: limit, Hint: "MaxSparseBytes"}
	}
	return cells, nil
}

// scatter writes value k of vals (element size es, stride components at
// index idx) to the dense column-major position of each nonzero, adding
// duplicates as scipy's toarray does (OR for bool).
func scatter[T real](dst []T, stride, idx int, s *csc, vals []T) {
	for j := 0; j < s.n; j++ {
		for k := s.jc[j]; k < s.jc[j+1]; k++ {
			pos := (int64(j)*int64(s.m)+s.ir[k])*int64(stride) + int64(idx)
			dst[pos] += vals[k]
		}
	}
}

// logicalBytes reports whether n bytes of sparse values declared as typ
// are MATLAB's one byte per nonzero of a logical sparse matrix: typ is
// wider than a byte and n is the nonzero count (jc's last entry, or the
// row index count nzmax), too few bytes for that many values of typ.
func logicalBytes(typ DataType, n int, s *csc) bool {
	es := typ.ElemSize()
	if es <= 1 || typ >= MiUTF8 || len(s.jc) != s.n+1 || len(s.jc) == 0 {
		return false
	}
	nnz := s.jc[s.n]
	if nnz <= 0 || int64(n) >= nnz*int64(es) {
		return false
	}
	return int64(n) == nnz || n == len(s.ir)
}

func intsOf(typ DataType, data []byte, bo binary.ByteOrder) ([]int64, error) {
	es := typ.ElemSize()
	if es == 0 || typ == MiSINGLE || typ == MiDOUBLE || typ >= MiUTF8 || len(data)%es != 0 {
		return nil, fmt.Errorf("index data of type %s and %d bytes", typ, len(data))
	}
	n := len(data) / es
	out := make([]int64, n)
	if err := decodeT(out, 1, 0, typ, data, bo, n, tgtInt); err != nil {
		return nil, err
	}
	return out, nil
}

func (p *l5parser) sparse(b []byte, pos int, path string, h *mheader) error {
	if len(h.dims) != 2 {
		return p.errf(path, "a sparse matrix of %d dimensions", len(h.dims))
	}
	s := &csc{m: h.dims[0], n: h.dims[1]}
	var subs [4]sub
	k := 3
	if h.complex {
		k = 4
	}
	whats := []string{"row indices", "column pointers", "real part", "imaginary part"}
	var err error
	for i := 0; i < k; i++ {
		if subs[i], pos, err = p.next(path, b, pos, whats[i]); err != nil {
			return err
		}
	}
	if s.ir, err = intsOf(subs[0].typ, subs[0].data, p.bo); err != nil {
		return p.errf(path, "sparse row indices: %v", err)
	}
	if s.jc, err = intsOf(subs[1].typ, subs[1].data, p.bo); err != nil {
		return p.errf(path, "sparse column pointers: %v", err)
	}
	dt := classDType(ClassDouble, h.logical)
	class := NameDouble
	if h.logical {
		class = NameLogical
	}
	vtyp := subs[2].typ
	if h.logical && !h.complex && logicalBytes(vtyp, len(subs[2].data), s) {
		// MATLAB stores a logical sparse matrix's values as one byte each
		// while the tag says miDOUBLE: the byte count is the number of
		// nonzeros (scipy.io.loadmat reads them so too).
		vtyp = MiUINT8
	}
	es := vtyp.ElemSize()
	if es == 0 || vtyp >= MiUTF8 || len(subs[2].data)%es != 0 {
		return p.errf(path, "sparse values of type %s and %d bytes", subs[2].typ, len(subs[2].data))
	}
	nv := len(subs[2].data) / es
	if err := s.check(nv); err != nil {
		return p.errf(path, "sparse matrix: %v", err)
	}
	outDT := dt
	if h.complex {
		if h.logical {
			return p.errf(path, "a complex logical sparse matrix")
		}
		outDT = npyio.Complex128
	}
	cells, err := denseSize(path, s.m, s.n, outDT.Size, p.f.opts.MaxSparseBytes)
	if err != nil {
		return err
	}
	out := allocFor(cells, outDT.Size)
	vals := allocFor(int64(nv), dt.Size)
	if err := decodeInto(vals, dt, 1, 0, vtyp, subs[2].data, p.bo, int64(nv)); err != nil {
		return p.errf(path, "sparse values: %v", err)
	}
	if h.logical {
		scatter(view[uint8](out), 1, 0, s, view[uint8](vals))
		for i, c := range out {
			if c != 0 {
				out[i] = 1
			}
		}
		return p.emitArray(path, class, outDT, h.dims, out, true)
	}
	scatter(view[float64](out), stride(h.complex), 0, s, view[float64](vals))
	if h.complex {
		im := subs[3]
		if im.typ.ElemSize() == 0 || len(im.data) != nv*im.typ.ElemSize() {
			return p.errf(path, "sparse imaginary part of %d bytes of %s for %d values", len(im.data), im.typ, nv)
		}
		if err := decodeInto(vals, dt, 1, 0, im.typ, im.data, p.bo, int64(nv)); err != nil {
			return p.errf(path, "sparse imaginary part: %v", err)
		}
		scatter(view[float64](out), 2, 1, s, view[float64](vals))
	}
	return p.emitArray(path, class, outDT, h.dims, out, true)
}

func stride(complex bool) int {
	if complex {
		return 2
	}
	return 1
}
