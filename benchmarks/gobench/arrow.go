package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/npyflow/npyflow/npyio"
)

// pqRowGroup is the row group length of the pqarrow contender and of the
// DuckDB source file.
const pqRowGroup = 1 << 20

// structRecord builds an Arrow record of the benchmark's structured array
// (fields of kinds i8, f8, f4, b1, M8[ms] in any order) by gathering each
// field into its own buffer: the "already in memory" columns of the pqarrow
// contender. It is not timed.
func structRecord(a *npyio.Array) (arrow.RecordBatch, error) {
	dt := a.DType
	if dt.Kind != npyio.Struct {
		return nil, fmt.Errorf("want a structured array, got %v", dt)
	}
	n := int(a.Header.Rows())
	fields := make([]arrow.Field, 0, len(dt.Fields))
	cols := make([]arrow.Array, 0, len(dt.Fields))
	rec := int(dt.Size)
	for _, f := range dt.Fields {
		if f.Shape != nil {
			return nil, fmt.Errorf("field %s: subarrays not supported here", f.Name)
		}
		var typ arrow.DataType
		var buf []byte
		switch {
		case f.Type.Kind == npyio.Bool:
			typ = arrow.FixedWidthTypes.Boolean
			buf = make([]byte, bitutil.BytesForBits(int64(n)))
			for i := 0; i < n; i++ {
				if a.Data[i*rec+f.Offset] != 0 {
					bitutil.SetBit(buf, i)
				}
			}
		case f.Type.Kind == npyio.Datetime && f.Type.Unit == "ms" && f.Type.UnitMult == 1:
			typ = &arrow.TimestampType{Unit: arrow.Millisecond}
			buf = gather(a.Data, n, rec, f.Offset, 8)
		case f.Type.Kind == npyio.Int && f.Type.Size == 8:
			typ = arrow.PrimitiveTypes.Int64
			buf = gather(a.Data, n, rec, f.Offset, 8)
		case f.Type.Kind == npyio.Float && f.Type.Size == 8:
			typ = arrow.PrimitiveTypes.Float64
			buf = gather(a.Data, n, rec, f.Offset, 8)
		case f.Type.Kind == npyio.Float && f.Type.Size == 4:
			typ = arrow.PrimitiveTypes.Float32
			buf = gather(a.Data, n, rec, f.Offset, 4)
		default:
			return nil, fmt.Errorf("field %s: type %v not supported here", f.Name, f.Type)
		}
		data := array.NewData(typ, n, []*memory.Buffer{nil, memory.NewBufferBytes(buf)}, nil, 0, 0)
		cols = append(cols, array.MakeFromData(data))
		data.Release()
		fields = append(fields, arrow.Field{Name: f.Name, Type: typ})
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n)), nil
}

// gather copies the size-byte field at off of n records of rec bytes into a
// new 8-byte-aligned buffer.
func gather(src []byte, n, rec, off, size int) []byte {
	w := make([]uint64, (n*size+7)/8)
	dst := unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), n*size)
	for i := 0; i < n; i++ {
		copy(dst[i*size:(i+1)*size], src[i*rec+off:])
	}
	return dst
}

func writeParquet(w io.Writer, rec arrow.RecordBatch, codec compress.Compression, dict bool) error {
	props := parquet.NewWriterProperties(
		parquet.WithCompression(codec),
		parquet.WithDictionaryDefault(dict),
		parquet.WithMaxRowGroupLength(pqRowGroup),
	)
	// pqarrow's Close closes an io.Closer sink: hide it, writeTo closes.
	fw, err := pqarrow.NewFileWriter(rec.Schema(), struct{ io.Writer }{w}, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	if err := fw.Write(rec); err != nil {
		fw.Close()
		return err
	}
	return fw.Close()
}

func pqarrowWrite(args []string) (result, error) { return pqarrowRun(args, true) }

func pqarrowNoDict(args []string) (result, error) { return pqarrowRun(args, false) }

func pqarrowRun(args []string, dict bool) (result, error) {
	a, err := npyio.ReadFile(args[0], nil)
	if err != nil {
		return result{}, err
	}
	c, err := arrayCheck(a)
	if err != nil {
		return result{}, err
	}
	rec, err := structRecord(a)
	if err != nil {
		return result{}, err
	}
	defer rec.Release()
	var n int64
	secs, err := timed(func() (err error) {
		n, err = writeTo(args[1], func(w io.Writer) error {
			// Defaults (dictionary encoding on unless dict is false) with
			// zstd and 1Mi-row groups, as npyflow writes them.
			return writeParquet(w, rec, compress.Codecs.Zstd, dict)
		})
		return err
	})
	return result{secs: secs, check: c, outBytes: n}, err
}

func srcParquet(args []string) (result, error) {
	a, err := npyio.ReadFile(args[0], nil)
	if err != nil {
		return result{}, err
	}
	c, err := arrayCheck(a)
	if err != nil {
		return result{}, err
	}
	rec, err := structRecord(a)
	if err != nil {
		return result{}, err
	}
	defer rec.Release()
	var n int64
	secs, err := timed(func() (err error) {
		n, err = writeTo(args[1], func(w io.Writer) error {
			return writeParquet(w, rec, compress.Codecs.Uncompressed, false)
		})
		return err
	})
	return result{secs: secs, check: c, outBytes: n}, err
}

// ipcCheck reads an Arrow IPC file written from the benchmark's structured
// array and prints the summary `pybench.py expect` prints.
func ipcCheck(args []string) (result, error) {
	f, err := os.Open(args[0])
	if err != nil {
		return result{}, err
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f)
	if err != nil {
		return result{}, err
	}
	defer r.Close()
	var rows, idSum, flags int64
	var xSum float64
	tsMin, tsMax := int64(math.MaxInt64), int64(math.MinInt64)
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.RecordBatch(i)
		if err != nil {
			return result{}, err
		}
		rows += rec.NumRows()
		for j, fld := range rec.Schema().Fields() {
			switch col := rec.Column(j).(type) {
			case *array.Int64:
				if fld.Name == "id" {
					for _, v := range col.Int64Values() {
						idSum += v
					}
				}
			case *array.Float64:
				if fld.Name == "x" {
					for _, v := range col.Float64Values() {
						xSum += v
					}
				}
			case *array.Boolean:
				for k := 0; k < col.Len(); k++ {
					if col.Value(k) {
						flags++
					}
				}
			case *array.Timestamp:
				for _, v := range col.TimestampValues() {
					tsMin, tsMax = min(tsMin, int64(v)), max(tsMax, int64(v))
				}
			}
		}
	}
	fmt.Printf("VERIFY rows=%d,id_sum=%d,x_sum=%.5e,flag_sum=%d,ts_min=%d,ts_max=%d\n", rows, idSum, xSum, flags, tsMin, tsMax)
	return result{check: "verified"}, nil
}
