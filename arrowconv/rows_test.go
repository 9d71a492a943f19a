package arrowconv_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// nativeRows returns every row of the .npy file at path as npyio's Reader
// gives them (native byte order, C order), with its header.
func nativeRows(t *testing.T, path string) ([]byte, *npyio.Header) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	r, err := npyio.NewReaderAt(f, st.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for {
		b, err := r.Next(1 << 20)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b.Data...)
	}
	return out, r.Header()
}

// TestRowEncoderFixtures converts every fixture npy -> Arrow records
// (directly or through an IPC file or stream) -> rows, and checks that the
// rows are byte for byte what npyio's Reader gives for the file, that the
// dtype and shape are numpy's, and that the values are numpy's.
func TestRowEncoderFixtures(t *testing.T) {
	for i, fx := range fixtures.NPYs(t) {
		want, h := nativeRows(t, fx.Path)
		if refusedUnit(h.DType) || overflowsAny(h, &fx) {
			continue // TestFixtures checks the refusal
		}
		via := []string{"direct", "ipc"}[i%2]
		t.Run(fx.Name+"/"+via, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			f, err := os.Open(fx.Path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, err := npyio.NewReader(f, nil)
			if err != nil {
				t.Fatal(err)
			}
			rr, err := arrowconv.NewRecordReader(r, stem(fx.Path), 3, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Release()
			var src array.RecordReader = rr
			if via == "ipc" {
				var buf bytes.Buffer
				if _, err := arrowconv.WriteIPC(&buf, rr, ipcVariants[i%len(ipcVariants)], mem); err != nil {
					t.Fatal(err)
				}
				ir, err := arrowconv.NewIPCReader(bytes.NewReader(buf.Bytes()), mem)
				if err != nil {
					t.Fatal(err)
				}
				defer ir.Release()
				src = ir
			}
			enc, err := arrowconv.NewRowEncoder(src.Schema(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := enc.DType().String(), h.DType.String(); g != w {
				t.Errorf("dtype %s, want %s", g, w)
			}
			var got []byte
			for src.Next() {
				rec := src.RecordBatch()
				// Two calls per record, to exercise row ranges.
				mid := int(rec.NumRows()) / 2
				if got, err = enc.EncodeRows(rec, 0, mid, got); err != nil {
					t.Fatal(err)
				}
				if got, err = enc.EncodeRows(rec, mid, int(rec.NumRows()), got); err != nil {
					t.Fatal(err)
				}
			}
			if err := src.Err(); err != nil {
				t.Fatal(err)
			}
			gh := enc.Header(enc.Rows())
			if !slices.Equal(gh.Shape, h.Shape) {
				t.Errorf("shape %v, want %v", gh.Shape, h.Shape)
			}
			if enc.RowSize() != int(h.RowSize()) {
				t.Errorf("row size %d, want %d", enc.RowSize(), h.RowSize())
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("rows differ from npyio's:\n got %x\nwant %x", got, want)
			}
			dt := h.DType.Native()
			if int64(len(fx.Values))*int64(dt.Size) != int64(len(got)) {
				t.Fatalf("%d bytes for %d values of %d bytes", len(got), len(fx.Values), dt.Size)
			}
			for k, raw := range fx.Values {
				b := got[k*dt.Size : (k+1)*dt.Size]
				if err := fixtures.CheckElement(dt, b, raw); err != nil {
					t.Fatalf("element %d: %v", k, err)
				}
			}
		})
	}
}

// TestRowEncoderErrors checks that values numpy cannot hold are refused
// naming the column and the row counted from the first row encoded.
func TestRowEncoderErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	md := func(descr string) arrow.Metadata {
		return arrow.NewMetadata([]string{arrowconv.MetaDescr}, []string{"'" + descr + "'"})
	}
	cases := []struct {
		name  string
		field arrow.Field
		build func(b array.Builder)
		opts  *arrowconv.WriteOptions
		want  string // in the error
		row   int64  // of the ValueError, -1 if not one
	}{
		{"null int", arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			func(b array.Builder) {
				b.(*array.Int32Builder).AppendValues([]int32{1, 2, 0, 4}, []bool{true, true, false, true})
			},
			nil, "null integer", 102},
		{"long string", arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Metadata: md("<U2")},
			func(b array.Builder) { b.(*array.StringBuilder).AppendValues([]string{"ab", "é", "abc", "x"}, nil) },
			nil, "does not fit <U2", 102},
		{"bad utf8", arrow.Field{Name: "s", Type: arrow.BinaryTypes.String},
			func(b array.Builder) { b.(*array.StringBuilder).AppendValues([]string{"ok", "ok", "ok", "\xff"}, nil) },
			&arrowconv.WriteOptions{StringChars: 4}, "invalid UTF-8", 103},
		{"fraction of unit", arrow.Field{Name: "t", Type: &arrow.TimestampType{Unit: arrow.Second}, Metadata: md("<M8[h]")},
			func(b array.Builder) {
				b.(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{3600, 7201, 0, 0}, nil)
			},
			nil, "not a whole number", 101},
		{"null bool", arrow.Field{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
			func(b array.Builder) {
				b.(*array.BooleanBuilder).AppendValues([]bool{true, true, true, true}, []bool{true, false, true, true})
			},
			nil, "null boolean", 101},
		{"no width", arrow.Field{Name: "s", Type: arrow.BinaryTypes.String},
			func(b array.Builder) { b.(*array.StringBuilder).AppendValues([]string{"a", "b", "c", "d"}, nil) },
			nil, "needs a width", -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			schema := arrow.NewSchema([]arrow.Field{c.field}, nil)
			enc, err := arrowconv.NewRowEncoder(schema, c.opts)
			if err != nil {
				if c.row >= 0 || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("NewRowEncoder: %v", err)
				}
				return
			}
			b := array.NewBuilder(mem, c.field.Type)
			defer b.Release()
			c.build(b)
			col := b.NewArray()
			defer col.Release()
			rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
			defer rec.Release()
			// 100 rows encoded first: error rows count from the first.
			zeros := make([]byte, 0, 100*enc.RowSize())
			pad := array.NewSlice(col, 0, 1)
			defer pad.Release()
			one := array.NewRecordBatch(schema, []arrow.Array{pad}, 1)
			defer one.Release()
			for k := 0; k < 100; k++ {
				if zeros, err = enc.Encode(one, zeros[:0]); err != nil {
					t.Fatal(err)
				}
			}
			_, err = enc.Encode(rec, nil)
			var ve *arrowconv.ValueError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v, want a ValueError", err)
			}
			if ve.Row != c.row || ve.Field != c.field.Name || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q (row %d, field %q), want %q at row %d of %q", err, ve.Row, ve.Field, c.want, c.row, c.field.Name)
			}
		})
	}
	t.Run("schema mismatch", func(t *testing.T) {
		enc, err := arrowconv.NewRowEncoder(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}}, nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewFloat32Builder(mem)
		defer b.Release()
		b.Append(1)
		col := b.NewArray()
		defer col.Release()
		rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float32}}, nil), []arrow.Array{col}, 1)
		defer rec.Release()
		if _, err := enc.Encode(rec, nil); err == nil || !strings.Contains(err.Error(), "float32") {
			t.Errorf("error %v, want one naming float32", err)
		}
		if _, err := enc.EncodeRows(rec, 0, 2, nil); err == nil {
			t.Error("rows beyond the record were accepted")
		}
	})
}

// TestRowEncoderBoolsAndNaN checks bit unpacking at every offset and
// nulls in float and datetime columns against a plain loop.
func TestRowEncoderBoolsAndNaN(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([]bool, 203)
	for i := range vals {
		vals[i] = rng.IntN(2) == 1
	}
	bb := array.NewBooleanBuilder(mem)
	defer bb.Release()
	bb.AppendValues(vals, nil)
	bools := bb.NewArray()
	defer bools.Release()
	fb := array.NewFloat64Builder(mem)
	defer fb.Release()
	valid := make([]bool, len(vals))
	for i := range valid {
		valid[i] = i%7 != 3
	}
	fvals := make([]float64, len(vals))
	for i := range fvals {
		fvals[i] = float64(i) + 0.5
	}
	fb.AppendValues(fvals, valid)
	floats := fb.NewArray()
	defer floats.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.FixedWidthTypes.Boolean}, {Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{bools, floats}, int64(len(vals)))
	defer rec.Release()
	enc, err := arrowconv.NewRowEncoder(schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	if enc.RowSize() != 9 {
		t.Fatalf("row size %d, want 9", enc.RowSize())
	}
	for start := 0; start < 17; start++ {
		end := len(vals) - start%5
		got, err := enc.EncodeRows(rec, start, end, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := start; i < end; i++ {
			row := got[(i-start)*9:]
			if want := vals[i]; row[0] != map[bool]byte{false: 0, true: 1}[want] {
				t.Fatalf("start %d: bool %d = %d, want %v", start, i, row[0], want)
			}
			f, _ := npyio.View[float64](slices.Clone(row[1:9]))
			if valid[i] && f[0] != fvals[i] || !valid[i] && !math.IsNaN(f[0]) {
				t.Fatalf("start %d: float %d = %v, want %v (valid %v)", start, i, f[0], fvals[i], valid[i])
			}
		}
	}
}

// TestReadIPCInfo checks the schema, batch and row counts read from IPC
// metadata against what arrow's reader finds, for files and streams, and
// that corrupted metadata is an error, not a panic.
func TestReadIPCInfo(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fx := fixtures.NPYByName(t, "rec_strings_dates")
	a, err := npyio.ReadFile(fx.Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, rowsPer := range []int{1, 2, 1000} {
		for _, opts := range ipcVariants {
			rr, err := arrowconv.NewArrayRecordReader(a, "", rowsPer, mem)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			n, err := arrowconv.WriteIPC(&buf, rr, opts, mem)
			rr.Release()
			if err != nil {
				t.Fatal(err)
			}
			data := buf.Bytes()
			info, err := arrowconv.ReadIPCInfo(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatalf("%+v: %v", opts, err)
			}
			wantBatches := int(n+int64(rowsPer)-1) / rowsPer
			if info.Rows != n || info.Batches != wantBatches || info.Format != opts.Format {
				t.Errorf("%+v, %d rows per batch: info %+v, want %d rows in %d batches", opts, rowsPer, info, n, wantBatches)
			}
			if !info.Schema.Equal(rr.Schema()) {
				t.Errorf("schema %s, want %s", info.Schema, rr.Schema())
			}
			// Corruptions: never a panic; truncation is an error.
			rng := rand.New(rand.NewPCG(uint64(rowsPer), uint64(opts.Format)))
			defer func(m int) { arrowconv.MaxIPCBuffer = m }(arrowconv.MaxIPCBuffer)
			arrowconv.MaxIPCBuffer = 1 << 20
			for k := 0; k < 150; k++ {
				bad := slices.Clone(data)
				for j := 0; j < 1+rng.IntN(4); j++ {
					bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
				}
				arrowconv.ReadIPCInfo(bytes.NewReader(bad), int64(len(bad)))
				drainIPC(bad)
			}
			for _, cut := range []int{0, 7, len(data) / 2, len(data) - 20} {
				bad := data[:cut]
				if info, err := arrowconv.ReadIPCInfo(bytes.NewReader(bad), int64(len(bad))); err == nil && info.Rows == n && opts.Format == arrowconv.IPCFile {
					t.Errorf("%+v cut at %d: no error", opts, cut)
				}
			}
		}
	}
}

// drainIPC reads and encodes every record of an IPC file or stream,
// ignoring errors: corrupt input must not panic.
func drainIPC(data []byte) {
	rr, err := arrowconv.NewIPCReader(bytes.NewReader(data), nil)
	if err != nil {
		return
	}
	defer rr.Release()
	enc, err := arrowconv.NewRowEncoder(rr.Schema(), &arrowconv.WriteOptions{StringChars: 8})
	if err != nil {
		return
	}
	var buf []byte
	for rr.Next() {
		buf, _ = enc.Encode(rr.RecordBatch(), buf[:0])
	}
}

func BenchmarkRowEncoder(b *testing.B) {
	const n = 1 << 20
	mem := memory.NewGoAllocator()
	for _, name := range []string{"f8", "rec_strings_dates"} {
		var rec arrow.RecordBatch
		if name == "f8" {
			fb := array.NewFloat64Builder(mem)
			for i := 0; i < n; i++ {
				fb.Append(float64(i))
			}
			col := fb.NewArray()
			rec = array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "x", Type: col.DataType()}}, nil), []arrow.Array{col}, n)
		} else {
			a, err := npyio.ReadFile(fixtures.NPYByName(b, name).Path, nil)
			if err != nil {
				b.Fatal(err)
			}
			big := &npyio.Array{Header: &npyio.Header{DType: a.DType, Shape: []int{n}}, DType: a.DType, Data: bytes.Repeat(a.Data, n/int(a.Header.Rows())+1)[:n*a.DType.Size]}
			if rec, err = arrowconv.NewRecordBatch(big, "", mem); err != nil {
				b.Fatal(err)
			}
		}
		enc, err := arrowconv.NewRowEncoder(rec.Schema(), nil)
		if err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, 0, n*enc.RowSize())
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(n * enc.RowSize()))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := enc.Encode(rec, buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
		rec.Release()
	}
}

// TestRowEncoderTimeColumns checks the datetime/timedelta columns of the
// RowEncoder (the stored values copied as they are when the unit is the
// column's and there are no nulls): values at a slice offset and in row
// ranges, NaT refused with its row, nulls as NaT.
func TestRowEncoderTimeColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const n = 1000
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = int64(i)*86_400_123 - 5_000_000
	}
	types := []arrow.DataType{
		&arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"},
		&arrow.DurationType{Unit: arrow.Nanosecond},
		arrow.FixedWidthTypes.Date64,
	}
	build := func(dt arrow.DataType, v []int64, valid []bool) arrow.Array {
		b := array.NewBuilder(mem, dt)
		defer b.Release()
		for i, x := range v {
			switch {
			case valid != nil && !valid[i]:
				b.AppendNull()
			default:
				switch bb := b.(type) {
				case *array.TimestampBuilder:
					bb.Append(arrow.Timestamp(x))
				case *array.DurationBuilder:
					bb.Append(arrow.Duration(x))
				case *array.Date64Builder:
					bb.Append(arrow.Date64(x))
				}
			}
		}
		return b.NewArray()
	}
	// encode returns the rows of a record of (i8 id, the time column),
	// the columns sliced from off, in two EncodeRows calls.
	encode := func(t *testing.T, dt arrow.DataType, v []int64, valid []bool, off int) ([]byte, error) {
		t.Helper()
		ids := make([]int64, len(v))
		for i := range ids {
			ids[i] = int64(i)
		}
		ib := array.NewInt64Builder(mem)
		ib.AppendValues(ids, nil)
		ia := ib.NewArray()
		ib.Release()
		ta := build(dt, v, valid)
		is := array.NewSlice(ia, int64(off), int64(len(v)))
		ts := array.NewSlice(ta, int64(off), int64(len(v)))
		ia.Release()
		ta.Release()
		defer is.Release()
		defer ts.Release()
		schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "t", Type: dt, Nullable: valid != nil}}, nil)
		rec := array.NewRecordBatch(schema, []arrow.Array{is, ts}, int64(len(v)-off))
		defer rec.Release()
		enc, err := arrowconv.NewRowEncoder(schema, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f := enc.DType().Fields[1].Type; f.Kind != npyio.Datetime && f.Kind != npyio.Timedelta {
			t.Fatalf("%s maps to %s", dt, f)
		}
		mid := (len(v) - off) / 3
		out, err := enc.EncodeRows(rec, 0, mid, nil)
		if err != nil {
			return nil, err
		}
		return enc.EncodeRows(rec, mid, len(v)-off, out)
	}
	for _, dt := range types {
		t.Run(dt.String(), func(t *testing.T) {
			for _, off := range []int{0, 3, 17} {
				got, err := encode(t, dt, vals, nil, off)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 16*(n-off) {
					t.Fatalf("offset %d: %d bytes, want %d", off, len(got), 16*(n-off))
				}
				for i := 0; i < n-off; i++ {
					id := int64(binary.LittleEndian.Uint64(got[16*i:]))
					v := int64(binary.LittleEndian.Uint64(got[16*i+8:]))
					if id != int64(off+i) || v != vals[off+i] {
						t.Fatalf("offset %d, row %d: (%d, %d), want (%d, %d)", off, i, id, v, off+i, vals[off+i])
					}
				}
			}
			// A stored NaT is refused, naming the row (counted from the
			// first row encoded: the slice's offset does not count).
			bad := slices.Clone(vals)
			bad[700] = math.MinInt64
			_, err := encode(t, dt, bad, nil, 17)
			var ve *arrowconv.ValueError
			if !errors.As(err, &ve) || ve.Row != 700-17 || ve.Field != "t" || !errors.Is(err, arrowconv.ErrRange) {
				t.Fatalf("NaT in row %d: got %v", 700-17, err)
			}
			// Nulls become NaT, the other values stay.
			valid := make([]bool, n)
			for i := range valid {
				valid[i] = i%7 != 0
			}
			got, err := encode(t, dt, vals, valid, 3)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n-3; i++ {
				v := int64(binary.LittleEndian.Uint64(got[16*i+8:]))
				want := vals[3+i]
				if !valid[3+i] {
					want = math.MinInt64
				}
				if v != want {
					t.Fatalf("with nulls, row %d: %d, want %d", i, v, want)
				}
			}
		})
	}
}
