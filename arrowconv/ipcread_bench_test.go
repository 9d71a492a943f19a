package arrowconv_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
)

// BenchmarkIPCRead reads 32 MiB of IPC data (int64, float64 and int32
// columns with nulls, record batches of 64Ki rows) from a file through
// NewIPCReader and encodes it as numpy rows: the cost of the checks is in
// here.
func BenchmarkIPCRead(b *testing.B) {
	const rows, per = 1 << 21, 1 << 16
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "j", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	for _, opts := range []arrowconv.IPCOptions{{Format: arrowconv.IPCFile}, {Format: arrowconv.IPCStream}, {Format: arrowconv.IPCFile, Compression: arrowconv.LZ4}} {
		var buf bytes.Buffer
		w, err := arrowconv.NewIPCWriter(&buf, schema, opts, mem)
		if err != nil {
			b.Fatal(err)
		}
		bld := array.NewRecordBuilder(mem, schema)
		for start := 0; start < rows; start += per {
			for k := start; k < start+per; k++ {
				bld.Field(0).(*array.Int64Builder).Append(int64(k))
				if k%10 == 0 {
					bld.Field(1).(*array.Float64Builder).AppendNull()
				} else {
					bld.Field(1).(*array.Float64Builder).Append(float64(k) / 3)
				}
				bld.Field(2).(*array.Int32Builder).Append(int32(k))
			}
			rec := bld.NewRecordBatch()
			if err := w.Write(rec); err != nil {
				b.Fatal(err)
			}
			rec.Release()
		}
		bld.Release()
		w.Close()
		path := filepath.Join(b.TempDir(), "x.arrow")
		os.WriteFile(path, buf.Bytes(), 0o644)
		b.Run(fmt.Sprintf("format=%d/compression=%d", opts.Format, opts.Compression), func(b *testing.B) {
			b.SetBytes(rows * 20)
			b.ReportAllocs()
			var out []byte
			for i := 0; i < b.N; i++ {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				rr, err := arrowconv.NewIPCReader(f, nil)
				if err != nil {
					b.Fatal(err)
				}
				enc, err := arrowconv.NewRowEncoder(rr.Schema(), nil)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for rr.Next() {
					out, err = enc.Encode(rr.RecordBatch(), out[:0])
					if err != nil {
						b.Fatal(err)
					}
					n += int(rr.RecordBatch().NumRows())
				}
				if rr.Err() != nil || n != rows {
					b.Fatal(rr.Err(), n)
				}
				rr.Release()
				f.Close()
			}
		})
	}
}
