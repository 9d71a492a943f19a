package parquetio

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

func fileOpener(path string) Opener {
	return func() ([]*npyio.Reader, error) {
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		st, err := fh.Stat()
		if err != nil {
			return nil, err
		}
		r, err := npyio.NewReaderAt(fh, st.Size(), &npyio.Options{MaxHeaderSize: 1 << 24})
		return []*npyio.Reader{r}, err
	}
}

func writeFixture(t testing.TB, path string, opts *Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := WriteArray(&buf, fileOpener(path), "a", opts, nil); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return buf.Bytes()
}

func readPQArrow(t testing.TB, b []byte, mem memory.Allocator) arrow.Table {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	// Small batches: pqarrow sizes each column's buffers by the batch, and a
	// 4,000-column fixture would map gigabytes at the default 64Ki rows.
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1024}, mem)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// TestFixturesPQArrow converts every numpy fixture and reads it back with
// arrow-go's pqarrow, an independent Parquet implementation: every value
// must equal numpy's (the fixture JSON) and every type must be as mapped.
func TestFixturesPQArrow(t *testing.T) {
	for _, f := range fixtures.NPYs(t) {
		if f.Name == "growth" {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			// Not a checked allocator: pqarrow's DELTA_BINARY_PACKED
			// decoder leaks 64-byte blocks (arrow-go v18.8.0).
			mem := memory.NewGoAllocator()
			tbl := readPQArrow(t, writeFixture(t, f.Path, &Options{RowGroupRows: 2}), mem)
			defer tbl.Release()
			h, err := npyio.ParseHeader(f.Header)
			if err != nil {
				t.Fatal(err)
			}
			rows := int(h.Rows())
			if tbl.NumRows() != int64(rows) {
				t.Fatalf("%d rows, want %d", tbl.NumRows(), rows)
			}
			per := 1
			for _, d := range h.Shape[min(1, len(h.Shape)):] {
				per *= d
			}
			// A structured value's fields, parsed once per element, not
			// once per column (4,000 fields would parse 16M values).
			var fieldsOf [][]json.RawMessage
			if h.DType.Kind == npyio.Struct {
				fieldsOf = make([][]json.RawMessage, len(f.Values))
				for i, v := range f.Values {
					fieldsOf[i] = fixtures.List(v)
				}
			}
			for c := 0; c < int(tbl.NumCols()); c++ {
				col := tbl.Column(c)
				arr, err := array.Concatenate(col.Data().Chunks(), mem)
				if err != nil {
					t.Fatal(err)
				}
				for r := 0; r < rows; r++ {
					var want json.RawMessage
					var dt *npyio.DType
					if h.DType.Kind == npyio.Struct {
						fl := &h.DType.Fields[c]
						dt = fl.Type
						if per == 1 {
							want = fieldsOf[r][c]
						} else {
							var all []json.RawMessage
							for k := 0; k < per; k++ {
								v := fieldsOf[r*per+k][c]
								if fl.Shape != nil {
									all = append(all, fixtures.List(v)...)
								} else {
									all = append(all, v)
								}
							}
							want, _ = json.Marshal(all)
						}
						if fl.Shape != nil && per == 1 {
							// already a flat list
						}
					} else {
						dt = h.DType
						if len(h.Shape) > 1 {
							want, _ = json.Marshal(f.Values[r*per : (r+1)*per])
						} else {
							want = f.Values[r]
						}
					}
					if err := checkArrow(arr, r, dt, want, h.DType.Kind == npyio.Struct && h.DType.Fields[c].Shape != nil || len(h.Shape) > 1 && h.DType.Kind != npyio.Struct || per > 1); err != nil {
						t.Fatalf("column %s row %d: %v", col.Name(), r, err)
					}
				}
				arr.Release()
			}
		})
	}
}

// checkArrow compares arr[i] with numpy's JSON value of dtype dt; list
// says the value is a flat list of elements (subarray or extra axes).
func checkArrow(arr arrow.Array, i int, dt *npyio.DType, want json.RawMessage, list bool) error {
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	if list {
		fl, ok := arr.(*array.FixedSizeList)
		if !ok {
			return fmt.Errorf("type %s, want a fixed-size list", arr.DataType())
		}
		vals := fixtures.List(want)
		n := int(fl.DataType().(*arrow.FixedSizeListType).Len())
		if n != len(vals) {
			return fmt.Errorf("list of %d, want %d", n, len(vals))
		}
		start, _ := fl.ValueOffsets(i)
		for k := range vals {
			if err := checkArrow(fl.ListValues(), int(start)+k, dt, vals[k], false); err != nil {
				return fmt.Errorf("[%d]: %w", k, err)
			}
		}
		return nil
	}
	switch dt.Kind {
	case npyio.Struct:
		st, ok := arr.(*array.Struct)
		if !ok {
			return fmt.Errorf("type %s, want a struct", arr.DataType())
		}
		vals := fixtures.List(want)
		for j := range dt.Fields {
			if err := checkArrow(st.Field(j), i, dt.Fields[j].Type, vals[j], dt.Fields[j].Shape != nil); err != nil {
				return fmt.Errorf("field %q: %w", dt.Fields[j].Name, err)
			}
		}
		return nil
	case npyio.Complex:
		st, ok := arr.(*array.Struct)
		if !ok || st.NumField() != 2 {
			return fmt.Errorf("type %s, want struct{real, imag}", arr.DataType())
		}
		parts := fixtures.List(want)
		part := npyio.Float32Type
		if dt.Size == 16 {
			part = npyio.Float64Type
		}
		for j := 0; j < 2; j++ {
			if err := checkArrow(st.Field(j), i, part, parts[j], false); err != nil {
				return err
			}
		}
		return nil
	}
	var got any
	switch a := arr.(type) {
	case *array.Boolean:
		if dt.Kind != npyio.Bool {
			return fmt.Errorf("type %s for %s", a.DataType(), dt)
		}
		got = a.Value(i)
		if got != fixtures.Bool(want) {
			return fmt.Errorf("%v, want %s", got, want)
		}
		return nil
	case *array.Float16:
		// Not Num.Float32: arrow-go v18.8.0 gets subnormals wrong
		// (0x0001 gives 1.1e-41, not 5.96e-08).
		return checkFloat(float64(npyio.HalfToFloat32(a.Value(i).Uint16())), dt, 2, want)
	case *array.Float32:
		return checkFloat(float64(a.Value(i)), dt, 4, want)
	case *array.Float64:
		return checkFloat(a.Value(i), dt, 8, want)
	case *array.Binary:
		if dt.Kind == npyio.Void {
			if string(a.Value(i)) != string(fixtures.Hex(want)) {
				return fmt.Errorf("%x, want %s", a.Value(i), want)
			}
			return nil
		}
		if dt.Kind != npyio.Bytes || string(a.Value(i)) != string(fixtures.Hex(want)) {
			return fmt.Errorf("%s %q, want %s %s", a.DataType(), a.Value(i), dt, want)
		}
		return nil
	case *array.String:
		if dt.Kind != npyio.Unicode || a.Value(i) != fixtures.Str(want) {
			return fmt.Errorf("%s %q, want %s %s", a.DataType(), a.Value(i), dt, want)
		}
		return nil
	case *array.FixedSizeBinary:
		if dt.Kind != npyio.Void || string(a.Value(i)) != string(fixtures.Hex(want)) {
			return fmt.Errorf("%s %x, want %s %s", a.DataType(), a.Value(i), dt, want)
		}
		return nil
	}
	// Integers and times.
	if dt.Kind == npyio.Datetime || dt.Kind == npyio.Timedelta {
		w := fixtures.Int(want)
		if w == math.MinInt64 {
			if !arr.IsNull(i) {
				return fmt.Errorf("NaT not null")
			}
			return nil
		}
		v, err := intAt(arr, i)
		if err != nil {
			return err
		}
		num, den, err := timeRatio(arr.DataType(), dt)
		if err != nil {
			return err
		}
		if v*den != w*num {
			return fmt.Errorf("%s %d, want %s %d", arr.DataType(), v, dt, w)
		}
		return nil
	}
	wantType := map[npyio.Kind]map[int]arrow.Type{
		npyio.Int:  {1: arrow.INT8, 2: arrow.INT16, 4: arrow.INT32, 8: arrow.INT64},
		npyio.Uint: {1: arrow.UINT8, 2: arrow.UINT16, 4: arrow.UINT32, 8: arrow.UINT64},
	}[dt.Kind][dt.Size]
	if arr.DataType().ID() != wantType {
		return fmt.Errorf("type %s for %s", arr.DataType(), dt)
	}
	if dt.Kind == npyio.Uint {
		if got := fmt.Sprint(arr.GetOneForMarshal(i)); got != fixtures.Str(want) {
			return fmt.Errorf("%s, want %s", got, want)
		}
		return nil
	}
	v, err := intAt(arr, i)
	if err != nil {
		return err
	}
	if v != fixtures.Int(want) {
		return fmt.Errorf("%d, want %s", v, want)
	}
	return nil
}

func checkFloat(got float64, dt *npyio.DType, size int, want json.RawMessage) error {
	if dt.Kind != npyio.Float || dt.Size != size {
		return fmt.Errorf("float%d for %s", size*8, dt)
	}
	if !fixtures.SameFloat(got, fixtures.Float(want)) {
		return fmt.Errorf("%v, want %s", got, want)
	}
	return nil
}

func intAt(arr arrow.Array, i int) (int64, error) {
	switch a := arr.(type) {
	case *array.Int8:
		return int64(a.Value(i)), nil
	case *array.Int16:
		return int64(a.Value(i)), nil
	case *array.Int32:
		return int64(a.Value(i)), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Timestamp:
		return int64(a.Value(i)), nil
	case *array.Date32:
		return int64(a.Value(i)), nil
	}
	return 0, fmt.Errorf("unexpected type %s", arr.DataType())
}

// timeRatio gives stored*den == numpy*num for the Arrow type read back.
func timeRatio(t arrow.DataType, dt *npyio.DType) (num, den int64, err error) {
	var stored int64
	switch tt := t.(type) {
	case *arrow.TimestampType:
		if tt.TimeZone != "" {
			return 0, 0, fmt.Errorf("timestamp with zone %q", tt.TimeZone)
		}
		stored = map[arrow.TimeUnit]int64{arrow.Second: 1e9, arrow.Millisecond: 1e6, arrow.Microsecond: 1e3, arrow.Nanosecond: 1}[tt.Unit]
	case *arrow.Date32Type:
		stored = 86400e9
	case *arrow.Int64Type:
		return 1, 1, nil
	default:
		return 0, 0, fmt.Errorf("type %s for %s", t, dt)
	}
	if dt.Kind == npyio.Timedelta {
		return 0, 0, fmt.Errorf("timedelta stored as %s, want Int64", t)
	}
	if u := dt.Unit; (u == "ms" || u == "us" || u == "ns") && dt.UnitMult == 1 && stored != unitNanos[u] {
		return 0, 0, fmt.Errorf("%s stored as %s, want a timestamp in its own unit", dt, t)
	}
	un := unitNanos[dt.Unit] * max(dt.UnitMult, 1)
	return un, stored, nil
}

// TestRoundTrip: npy -> parquet -> npy is numpy-equal (dtype, shape,
// values, byte for byte) for every fixture, through small row groups.
func TestRoundTrip(t *testing.T) {
	for _, f := range fixtures.NPYs(t) {
		if f.Name == "growth" {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			b := writeFixture(t, f.Path, &Options{RowGroupRows: 2, Concurrency: 2})
			rd, err := NewReader(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			a, err := npyio.ReadFile(f.Path, &npyio.Options{MaxHeaderSize: 1 << 24})
			if err != nil {
				t.Fatal(err)
			}
			h := rd.Header()
			if h.DType.String() != a.Header.DType.String() || fmt.Sprint(h.Shape) != fmt.Sprint(a.Header.Shape) || h.FortranOrder != a.Header.FortranOrder {
				t.Fatalf("header %s %v %v, want %s %v %v", h.DType, h.Shape, h.FortranOrder, a.Header.DType, a.Header.Shape, a.Header.FortranOrder)
			}
			got := readAll(t, rd)
			if !bytes.Equal(got, a.CData()) {
				t.Fatalf("data differs\n got %x\nwant %x", got, a.CData())
			}
		})
	}
}

func readAll(t testing.TB, rd *Reader) []byte {
	var got []byte
	for {
		b, err := rd.Next(3)
		if err == io.EOF {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b.Data...)
	}
}
