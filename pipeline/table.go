package pipeline

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
)

// Members as one table: an archive source (npz, hdf5, mat) with table:
// true reads the arrays of each file as the columns of one table, one
// record per row and one field per array, in file order; the arrays must
// have the same length along axis 0. A 0-d array counts as one row (it
// is read as one row everywhere), so members that are all 0-d are one
// record, a 0-d table as numpy would hold it, and 0-d members beside
// arrays of one row make a table of one row; beside longer arrays they
// are refused, naming each member's length. A file of one array reads
// as that array. This is how convert reads an archive into a format that
// is not one (see Format.Archive).

// tableHead is the header of the table of the members heads: a record of
// one field per member, named by it.
//
// pick says how to pick one array, for the error when they differ.
func tableHead(heads []partHead, pick string) (*npyio.Header, []string, error) {
	rows := func(h *npyio.Header) int64 {
		if len(h.Shape) == 0 {
			return 1 // a 0-d array is read as one row
		}
		return int64(h.Shape[0])
	}
	var fields []npyio.Field
	var cols, lens []string
	same, allZeroD := true, true
	for _, h := range heads {
		r := rows(h.header)
		if r != rows(heads[0].header) {
			same = false
		}
		var shape []int
		if len(h.header.Shape) == 0 {
			lens = append(lens, fmt.Sprintf("%s: 1 (0-d)", h.member))
		} else {
			allZeroD = false
			shape = h.header.Shape[1:]
			lens = append(lens, fmt.Sprintf("%s: %d", h.member, r))
		}
		fields = append(fields, npyio.Field{Name: h.member, Type: h.header.DType, Shape: shape})
		cols = append(cols, h.member)
	}
	if !same {
		return nil, nil, fmt.Errorf("the arrays differ in length along axis 0 (%s), so they are not one table; pick one with %s", strings.Join(lens, ", "), pick)
	}
	dt, err := npyio.NewStruct(fields)
	if err != nil {
		return nil, nil, err
	}
	if allZeroD {
		return &npyio.Header{DType: dt, Shape: []int{}}, cols, nil
	}
	return &npyio.Header{DType: dt, Shape: []int{int(rows(heads[0].header))}}, cols, nil
}

// picker is an archive's reader: pickHint says how to pick one of its
// arrays ("--member NAME").
type picker interface{ pickHint() string }

// openTable opens the members of a table part, interleaved into records
// of want.
func (s *fileSource) openTable(ctx context.Context, p *Part, want *Schema) (*tableRows, error) {
	t := &tableRows{rowSize: int(want.RowSize())}
	for i, col := range p.cols {
		f := want.DType.Fields[i]
		rd, closer, _, err := s.openRows(ctx, &Part{Source: p.Source, Path: p.Path, Member: col},
			&Schema{DType: f.Type, Shape: f.Shape})
		if err != nil {
			t.Close()
			return nil, err
		}
		t.cols = append(t.cols, tableCol{rd: rd, off: f.Offset, size: f.Size(), name: col})
		t.closers = append(t.closers, closer)
	}
	return t, nil
}

// tableRows interleaves the rows of a table's member readers.
type tableRows struct {
	cols    []tableCol
	closers closers
	rowSize int
}

type tableCol struct {
	rd   rowReader
	name string
	off  int
	size int // bytes of the member's row
	buf  []byte
}

func (t *tableRows) ReadRows(dst []byte) (int, error) {
	want := len(dst) / t.rowSize
	if want == 0 {
		return 0, io.ErrShortBuffer
	}
	n := -1
	for i := range t.cols {
		c := &t.cols[i]
		if cap(c.buf) < want*c.size {
			c.buf = make([]byte, want*c.size)
		}
		k, err := fill(c.rd, c.buf[:want*c.size], c.size)
		if err != nil && err != io.EOF {
			return 0, fmt.Errorf("%s: %w", c.name, err)
		}
		if n >= 0 && k != n {
			return 0, fmt.Errorf("%s: %d rows where the table's other columns have %d", c.name, k, n)
		}
		n = k
	}
	if n == 0 {
		return 0, io.EOF
	}
	for _, c := range t.cols {
		interleave(dst, t.rowSize, c.off, c.buf, c.size, n)
	}
	return n, nil
}

func (t *tableRows) Close() error { return t.closers.Close() }

// interleave copies n values of sz bytes from p into the field at off of
// the records of rows (stride bytes each); the common sizes move as
// fixed-size values rather than by a copy call each.
func interleave(rows []byte, stride, off int, p []byte, sz, n int) {
	switch sz {
	case 1:
		interleaveT[uint8](rows, stride, off, p, n)
	case 2:
		interleaveT[uint16](rows, stride, off, p, n)
	case 4:
		interleaveT[uint32](rows, stride, off, p, n)
	case 8:
		interleaveT[uint64](rows, stride, off, p, n)
	default:
		for k := 0; k < n; k++ {
			copy(rows[k*stride+off:k*stride+off+sz], p[k*sz:(k+1)*sz])
		}
	}
}

func interleaveT[T uint8 | uint16 | uint32 | uint64](rows []byte, stride, off int, p []byte, n int) {
	sz := int(unsafe.Sizeof(T(0)))
	for k := 0; k < n; k++ {
		rowbytes.Store(rows, k*stride+off, rowbytes.Load[T](p, k*sz))
	}
}
