package pipeline

import (
	"io"
	"slices"

	"github.com/npyflow/npyflow/npyio"
)

// Files other tools wrote get string widths from their own data (the
// longest value of each file), so the Parquet or Arrow files of one source
// may differ only in those widths. The source then reads every file at the
// widest (widerStrings), and rows of a narrower file are repacked into it
// (repack): strings are copied and padded with NULs, as numpy pads them.

// widerStrings returns the schema holding both a's and b's rows when they
// differ only in the widths of U and S values, and whether they do.
func widerStrings(a, b *Schema) (*Schema, bool) {
	if !slices.Equal(a.Shape, b.Shape) {
		return nil, false
	}
	dt, ok := widerDType(a.DType, b.DType)
	if !ok {
		return nil, false
	}
	return &Schema{DType: dt, Shape: append([]int(nil), a.Shape...)}, true
}

func widerDType(a, b *npyio.DType) (*npyio.DType, bool) {
	if a.Equal(b) {
		return a, true
	}
	if a.Kind != b.Kind {
		return nil, false
	}
	switch a.Kind {
	case npyio.Unicode, npyio.Bytes:
		if a.Size >= b.Size {
			return a, true
		}
		return b, true
	case npyio.Struct:
		if len(a.Fields) != len(b.Fields) {
			return nil, false
		}
		fs := make([]npyio.Field, len(a.Fields))
		for i, fa := range a.Fields {
			fb := b.Fields[i]
			if fa.Name != fb.Name || !slices.Equal(fa.Shape, fb.Shape) {
				return nil, false
			}
			t, ok := widerDType(fa.Type, fb.Type)
			if !ok {
				return nil, false
			}
			fs[i] = npyio.Field{Name: fa.Name, Type: t, Shape: fa.Shape}
		}
		dt, err := npyio.NewStruct(fs)
		return dt, err == nil
	}
	return nil, false
}

// repacker copies rows of one schema into rows of a wider one (see
// widerStrings): a list of byte ranges per row, then the tail (a part's
// capture values, source.go).
type repacker struct {
	copies       []span
	from, toSize int
	tail         []byte
}

type span struct{ src, dst, n int }

// newRepacker plans the copy of rows of from into rows of to.
func newRepacker(from, to *Schema) *repacker {
	r := &repacker{from: int(from.RowSize()), toSize: int(to.RowSize())}
	n := 1
	for _, d := range from.Shape {
		n *= d
	}
	for k := 0; k < n; k++ {
		r.plan(from.DType, to.DType, k*from.DType.Size, k*to.DType.Size)
	}
	return r
}

func (r *repacker) plan(from, to *npyio.DType, src, dst int) {
	if from.Kind != npyio.Struct {
		r.copies = append(r.copies, span{src, dst, from.Size}) // a narrower string is padded by the zeroed row
		return
	}
	for i, f := range from.Fields {
		t := to.Fields[i]
		n := 1
		for _, d := range f.Shape {
			n *= d
		}
		for k := 0; k < n; k++ {
			r.plan(f.Type, t.Type, src+f.Offset+k*f.Type.Size, dst+t.Offset+k*t.Type.Size)
		}
	}
}

// reader returns a reader of rd's rows repacked.
func (r *repacker) reader(rd rowReader) rowReader {
	var buf []byte
	return readRowsFunc(func(dst []byte) (int, error) {
		want := len(dst) / r.toSize
		if want == 0 {
			return 0, io.ErrShortBuffer
		}
		if size := max(want*r.from, 1); cap(buf) < size {
			buf = make([]byte, size)
		}
		n, err := rd.ReadRows(buf[:max(want*r.from, 1)])
		if err != nil {
			return 0, err
		}
		src := buf
		clear(dst[:n*r.toSize])
		for k := 0; k < n; k++ {
			s, d := src[k*r.from:], dst[k*r.toSize:]
			for _, c := range r.copies {
				copy(d[c.dst:c.dst+c.n], s[c.src:c.src+c.n])
			}
			copy(d[r.toSize-len(r.tail):r.toSize], r.tail)
		}
		return n, nil
	})
}

type readRowsFunc func(dst []byte) (int, error)

func (f readRowsFunc) ReadRows(dst []byte) (int, error) { return f(dst) }
