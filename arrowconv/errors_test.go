package arrowconv_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
)

// TestScaledTimes checks the exact scaling of datetime units Arrow lacks,
// on values in range: numpy defines M8[h] 2 as 7200 seconds, M8[W] 3 as
// 21 days, and so on.
func TestScaledTimes(t *testing.T) {
	cases := []struct {
		descr string
		in    int64
		want  int64
		typ   string
	}{
		{"<M8[h]", 2, 7200, "timestamp[s]"},
		{"<M8[m]", -3, -180, "timestamp[s]"},
		{"<M8[W]", 3, 21, "date32"},
		{"<M8[D]", -719162, -719162, "date32"},
		{"<M8[2D]", 5, 10, "date32"},
		{"<M8[10ms]", 7, 70, "timestamp[ms]"},
		{"<m8[25s]", -4, -100, "duration[s]"},
		{"<m8[D]", 1, 86400, "duration[s]"},
		{"<m8[W]", 1, 604800, "duration[s]"},
		{">M8[1000ps]", 9, 9, "timestamp[ns]"},
		{"<m8[3000000fs]", 2, 6, "duration[ns]"},
	}
	for _, c := range cases {
		t.Run(c.descr, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			dt, err := npyio.ParseTypeStr(c.descr)
			if err != nil {
				t.Fatal(err)
			}
			path := writeNPY(t, dt.Native(), []int{2}, npyio.AsBytes([]int64{c.in, -1 << 63}))
			a, err := npyio.ReadFile(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := arrowconv.NewRecordBatch(a, "t", mem)
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Release()
			col := rec.Column(0)
			if col.DataType().String() != c.typ {
				t.Fatalf("type %s, want %s", col.DataType(), c.typ)
			}
			var got int64
			switch x := col.(type) {
			case *array.Date32:
				got = int64(x.Value(0))
			case *array.Timestamp:
				got = int64(x.Value(0))
			case *array.Duration:
				got = int64(x.Value(0))
			}
			if got != c.want || !col.IsNull(1) || col.IsNull(0) {
				t.Fatalf("got %d (null %v, %v), want %d then NaT", got, col.IsNull(0), col.IsNull(1), c.want)
			}
			// And back: the numpy type and value come back exactly.
			out := filepath.Join(t.TempDir(), "back.npy")
			f, _ := os.Create(out)
			rr, _ := arrowconv.NewArrayRecordReader(a, "t", 0, mem)
			defer rr.Release()
			if _, err := arrowconv.WriteNPY(f, rr, nil); err != nil {
				t.Fatal(err)
			}
			f.Close()
			b, err := npyio.ReadFile(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			v, _ := npyio.View[int64](b.Data)
			if b.Header.DType.String() != dt.Native().String() || v[0] != c.in || v[1] != -1<<63 {
				t.Fatalf("back: %s %v, want %s [%d NaT]", b.Header.DType, v, dt, c.in)
			}
		})
	}
}

// TestWriteErrors checks that values numpy cannot hold exactly are refused
// with a clear error, never truncated.
func TestWriteErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	week := arrow.NewMetadata([]string{arrowconv.MetaDescr}, []string{"'<M8[W]'"})
	u3 := arrow.NewMetadata([]string{arrowconv.MetaDescr}, []string{"'<U3'"})
	cases := []struct {
		name  string
		field arrow.Field
		build func(b array.Builder)
		opts  *arrowconv.WriteOptions
		want  error // errors.Is target, or nil for an UnsupportedError
	}{
		{"string too long", arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Metadata: u3},
			func(b array.Builder) { b.(*array.StringBuilder).AppendValues([]string{"abc", "abcd"}, nil) }, nil, arrowconv.ErrRange},
		{"null int", arrow.Field{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			func(b array.Builder) { b.(*array.Int32Builder).AppendValues([]int32{1, 2}, []bool{true, false}) }, nil, nil},
		{"string without width", arrow.Field{Name: "s", Type: arrow.BinaryTypes.String},
			func(b array.Builder) { b.(*array.StringBuilder).Append("x") }, nil, nil},
		{"map type", arrow.Field{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int8)},
			func(b array.Builder) { b.AppendNull() }, nil, nil},
		{"date not whole weeks", arrow.Field{Name: "d", Type: arrow.FixedWidthTypes.Date32, Metadata: week},
			func(b array.Builder) { b.(*array.Date32Builder).AppendValues([]arrow.Date32{14, 8}, nil) }, nil, arrowconv.ErrRange},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := array.NewBuilder(mem, c.field.Type)
			defer b.Release()
			c.build(b)
			arr := b.NewArray()
			defer arr.Release()
			schema := arrow.NewSchema([]arrow.Field{c.field}, nil)
			rec := array.NewRecordBatch(schema, []arrow.Array{arr}, int64(arr.Len()))
			defer rec.Release()
			f, err := os.Create(filepath.Join(t.TempDir(), "x.npy"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			w, err := arrowconv.NewNPYWriter(f, schema, c.opts)
			if err == nil {
				err = w.Write(rec)
				if cerr := w.Close(); err == nil {
					err = cerr
				}
			}
			if err == nil {
				t.Fatal("no error")
			}
			var ue *arrowconv.UnsupportedError
			var ve *arrowconv.ValueError
			switch {
			case c.want != nil && !errors.Is(err, c.want):
				t.Fatalf("error %v, want %v", err, c.want)
			case c.want == nil && !errors.As(err, &ue) && !errors.As(err, &ve):
				t.Fatalf("error %v is neither an UnsupportedError nor a ValueError", err)
			}
			t.Log(err)
		})
	}
}
