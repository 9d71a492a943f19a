package arrowconv_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/npyio"
)

// Turn an Arrow record batch into numpy rows in memory and write them as
// an .npy array whose header is known up front.
func ExampleRowEncoder() {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{1, 2, 3}, nil)
	b.Field(1).(*array.Float64Builder).AppendValues([]float64{0.5, 0, 2.5}, []bool{true, false, true})
	rec := b.NewRecordBatch()
	defer rec.Release()

	enc, err := arrowconv.NewRowEncoder(schema, nil)
	if err != nil {
		log.Fatal(err)
	}
	rows, err := enc.Encode(rec, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(enc.DType(), enc.RowSize(), "bytes per row,", len(rows), "bytes")

	var npy bytes.Buffer
	w, err := npyio.NewWriter(&npy, enc.Header(rec.NumRows()))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := w.Write(rows); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	a, err := npyio.ReadArray(&npy, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Header.Shape)

	info, err := arrowconv.ReadIPCInfo(bytes.NewReader(ipcOf(rec)), int64(len(ipcOf(rec))))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(info.Batches, "batch,", info.Rows, "rows")
	// Output:
	// [('id', '<i4'), ('x', '<f8')] 12 bytes per row, 36 bytes
	// [3]
	// 1 batch, 3 rows
}

// ipcOf returns rec as an IPC file.
func ipcOf(rec arrow.RecordBatch) []byte {
	var buf bytes.Buffer
	w, err := arrowconv.NewIPCWriter(&buf, rec.Schema(), arrowconv.IPCOptions{}, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}
