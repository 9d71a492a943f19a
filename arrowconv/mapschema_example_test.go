package arrowconv_test

import (
	"encoding/binary"
	"fmt"
	"log"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
)

// Map Arrow record batches from another producer to numpy rows: a string
// width found by a scan, a nullable int column given a validity field, a
// decimal as float64, nulls of a float column as NaN.
func ExampleMapSchema() {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "price", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String},
	}, nil)
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, schema, strings.NewReader(
		`[{"id": 1, "price": "12.50", "x": 0.5, "name": "ab"}, {"id": null, "price": "0.01", "x": null, "name": "héllo"}]`))
	if err != nil {
		log.Fatal(err)
	}
	defer rec.Release()

	m, err := arrowconv.MapSchema(schema, &arrowconv.MapOptions{Validity: []string{"id"}})
	if err != nil {
		log.Fatal(err)
	}
	if m.NeedsScan() { // the string width comes from the data
		if err := m.Scan(rec); err != nil {
			log.Fatal(err)
		}
	}
	dt, err := m.DType()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(dt)
	rows, err := m.Encode(rec, nil) // native byte order, laid out as dt
	if err != nil {
		log.Fatal(err)
	}
	for r := 0; r < int(rec.NumRows()); r++ {
		row := rows[r*dt.Size:]
		fmt.Println(int32(binary.NativeEndian.Uint32(row[dt.Fields[0].Offset:])), row[dt.Fields[1].Offset] == 1,
			math.Float64frombits(binary.NativeEndian.Uint64(row[dt.Fields[2].Offset:])),
			math.Float64frombits(binary.NativeEndian.Uint64(row[dt.Fields[3].Offset:])))
	}
	// Output:
	// [('id', '<i4'), ('id_valid', '|b1'), ('price', '<f8'), ('x', '<f8'), ('name', '<U5')]
	// 1 true 12.5 0.5
	// 0 false 0.01 NaN
}
