package parquetio_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"log"
	"math"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/parquetio"
)

// Write a table of two columns, an int64 id and a float64 value, as a
// Parquet file (zstd) from numpy row bytes.
func ExampleNewWriter() {
	dt, err := npyio.ParseDescr("[('id', '<i8'), ('value', '<f8')]")
	if err != nil {
		log.Fatal(err)
	}
	s, err := parquetio.NewArraySchema(&npyio.Header{DType: dt, Shape: []int{3}}, "table")
	if err != nil {
		log.Fatal(err)
	}
	var file bytes.Buffer
	w, err := parquetio.NewWriter(&file, s, &parquetio.Options{Compression: "zstd"})
	if err != nil {
		log.Fatal(err)
	}
	rows := make([]byte, 0, 3*dt.Size)
	for i := int64(1); i <= 3; i++ {
		rows = binary.LittleEndian.AppendUint64(rows, uint64(i))
		rows = binary.LittleEndian.AppendUint64(rows, math.Float64bits(float64(i)/4))
	}
	if _, err := w.Write(rows); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(w.Rows(), "rows, starts with", file.String()[:4])
	// Output: 3 rows, starts with PAR1
}

// Read a Parquet file in batches of rows of its numpy dtype.
func ExampleReader_Next() {
	file := exampleFile()
	r, err := parquetio.NewReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		log.Fatal(err)
	}
	h := r.Header()
	fmt.Println("dtype", h.DType, "shape", h.Shape)
	for {
		b, err := r.Next(2) // at most 2 rows a batch
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		for i := 0; i < b.Rows; i++ {
			row := b.Data[i*h.DType.Size:]
			id := int64(binary.NativeEndian.Uint64(row[0:]))
			v := math.Float64frombits(binary.NativeEndian.Uint64(row[8:]))
			fmt.Printf("row %d: id %d value %g\n", b.Start+int64(i), id, v)
		}
	}
	// Output:
	// dtype [('id', '<i8'), ('value', '<f8')] shape [3]
	// row 0: id 1 value 0.25
	// row 1: id 2 value 0.5
	// row 2: id 3 value 0.75
}

// Describe a Parquet file's columns from its footer alone.
func ExampleDescribe() {
	file := exampleFile()
	info, err := parquetio.Describe(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range info.Columns {
		fmt.Printf("%s: %s -> %s\n", c.Path, c.Type, c.DType)
	}
	// Output:
	// id: INT(64) -> <i8
	// value: DOUBLE -> <f8
}

// exampleFile writes the table of ExampleNewWriter.
func exampleFile() []byte {
	dt, _ := npyio.ParseDescr("[('id', '<i8'), ('value', '<f8')]")
	s, _ := parquetio.NewArraySchema(&npyio.Header{DType: dt, Shape: []int{3}}, "table")
	var file bytes.Buffer
	w, _ := parquetio.NewWriter(&file, s, nil)
	for i := int64(1); i <= 3; i++ {
		row := binary.LittleEndian.AppendUint64(nil, uint64(i))
		row = binary.LittleEndian.AppendUint64(row, math.Float64bits(float64(i)/4))
		if _, err := w.Write(row); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	return file.Bytes()
}
