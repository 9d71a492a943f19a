package arrowconv_test

import (
	"bufio"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// source opens a fixture as a record reader in one of the ways a user can.
type source struct {
	name string
	open func(t *testing.T, path string, mem memory.Allocator) (*arrowconv.RecordReader, func(), error)
}

var sources = []source{
	{"stream-at-batch2", func(t *testing.T, path string, mem memory.Allocator) (*arrowconv.RecordReader, func(), error) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		r, err := npyio.NewReaderAt(f, st.Size(), nil)
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		rr, err := arrowconv.NewRecordReader(r, stem(path), 2, mem)
		return rr, func() { f.Close() }, err
	}},
	{"stream-io-batch3", func(t *testing.T, path string, mem memory.Allocator) (*arrowconv.RecordReader, func(), error) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := npyio.NewReader(bufio.NewReader(f), nil)
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		rr, err := arrowconv.NewRecordReader(r, stem(path), 3, mem)
		return rr, func() { f.Close() }, err
	}},
	{"whole-file", func(t *testing.T, path string, mem memory.Allocator) (*arrowconv.RecordReader, func(), error) {
		a, err := npyio.ReadFile(path, nil)
		if err != nil {
			return nil, nil, err
		}
		rr, err := arrowconv.NewArrayRecordReader(a, stem(path), 0, mem)
		return rr, func() {}, err
	}},
	{"mmap-batch2", func(t *testing.T, path string, mem memory.Allocator) (*arrowconv.RecordReader, func(), error) {
		m, err := npyio.Map(path, nil)
		if err != nil {
			return nil, nil, err
		}
		rr, err := arrowconv.NewArrayRecordReader(&m.Array, stem(path), 2, mem)
		return rr, func() { m.Close() }, err
	}},
}

// TestFixtures reads every numpy fixture in every way and compares every
// value of every column with numpy's.
func TestFixtures(t *testing.T) {
	for _, fx := range fixtures.NPYs(t) {
		for _, src := range sources {
			t.Run(fx.Name+"/"+src.name, func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				checkFixture(t, &fx, src, mem)
			})
		}
	}
}

func checkFixture(t *testing.T, fx *fixtures.NPY, src source, mem memory.Allocator) {
	f, err := os.Open(fx.Path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := npyio.ReadHeader(f, nil)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	rr, done, err := src.open(t, fx.Path, mem)
	if refusedUnit(h.DType) {
		var ue *arrowconv.UnsupportedError
		if !errors.As(err, &ue) {
			t.Fatalf("want an UnsupportedError for %s, got %v", h.DType, err)
		}
		if _, err := arrowconv.Schema(h, "x"); !errors.As(err, &ue) {
			t.Fatalf("Schema: want an UnsupportedError, got %v", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	defer rr.Release()
	checkSchema(t, rr.Schema(), h, stem(fx.Path))

	// Rows that cannot be converted exactly must stop the reader with a
	// ValueError; the rows before them must be right.
	firstBad := int64(-1)
	per := len(fx.Values) / max(int(h.Rows()), 1)
	for r := int64(0); r < h.Rows() && per > 0; r++ {
		bad := false
		for _, v := range fx.Values[int(r)*per : int(r+1)*per] {
			if h.DType.Kind == npyio.Struct {
				bad = bad || overflows(h.DType, nil, v)
			} else {
				bad = bad || overflows(h.DType, nil, v)
			}
		}
		if bad {
			firstBad = r
			break
		}
	}
	row := int64(0)
	for {
		rec, err := rr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var ve *arrowconv.ValueError
			if firstBad < 0 || !errors.As(err, &ve) || !errors.Is(err, arrowconv.ErrRange) {
				t.Fatalf("after %d rows: %v", row, err)
			}
			if ve.Row != firstBad {
				t.Fatalf("error at row %d, want row %d: %v", ve.Row, firstBad, err)
			}
			return
		}
		if err := checkRecord(rec, row, h, fx); err != nil {
			t.Fatal(err)
		}
		row += rec.NumRows()
	}
	if firstBad >= 0 {
		t.Fatalf("row %d has a value out of range, but no error", firstBad)
	}
	if row != h.Rows() {
		t.Fatalf("read %d rows, want %d", row, h.Rows())
	}
	if rr.Err() != nil {
		t.Fatal(rr.Err())
	}
}

// checkSchema checks the names, metadata and nesting of the schema.
func checkSchema(t *testing.T, s *arrow.Schema, h *npyio.Header, name string) {
	t.Helper()
	if d, _ := s.Metadata().GetValue(arrowconv.MetaDescr); d != h.DType.String() {
		t.Errorf("schema descr %q, want %q", d, h.DType.String())
	}
	var rowShape []int
	if len(h.Shape) > 1 {
		rowShape = h.Shape[1:]
	}
	type col struct {
		name  string
		dt    *npyio.DType
		shape []int
	}
	var want []col
	if h.DType.Kind == npyio.Struct {
		for _, f := range h.DType.Fields {
			want = append(want, col{f.Name, f.Type, append(append([]int(nil), rowShape...), f.Shape...)})
		}
	} else {
		want = []col{{name, h.DType, rowShape}}
	}
	if s.NumFields() != len(want) {
		t.Fatalf("%d columns, want %d", s.NumFields(), len(want))
	}
	for i, c := range want {
		f := s.Field(i)
		if f.Name != c.name {
			t.Errorf("column %d named %q, want %q", i, f.Name, c.name)
		}
		if d, _ := f.Metadata.GetValue(arrowconv.MetaDescr); d != c.dt.String() {
			t.Errorf("column %q descr %q, want %q", f.Name, d, c.dt.String())
		}
		ext, isExt := f.Type.(*arrowconv.FixedShapeTensorType)
		switch {
		case len(c.shape) >= 2:
			if !isExt || len(ext.Shape()) != len(c.shape) {
				t.Errorf("column %q is %s, want a fixed_shape_tensor of shape %v", f.Name, f.Type, c.shape)
			}
			for k := range c.shape {
				if isExt && ext.Shape()[k] != c.shape[k] {
					t.Errorf("column %q tensor shape %v, want %v", f.Name, ext.Shape(), c.shape)
				}
			}
		case len(c.shape) == 1:
			if l, ok := f.Type.(*arrow.FixedSizeListType); !ok || int(l.Len()) != c.shape[0] {
				t.Errorf("column %q is %s, want a fixed_size_list[%d]", f.Name, f.Type, c.shape[0])
			}
		}
	}
}
