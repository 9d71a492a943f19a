package arrowconv_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// Stream a structured .npy file as Arrow record batches.
func ExampleNewRecordReader() {
	f, err := os.Open(filepath.Join(fixtures.Root(), "npy", "rec_strings_dates.npy"))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		log.Fatal(err)
	}
	r, err := npyio.NewReaderAt(f, st.Size(), nil)
	if err != nil {
		log.Fatal(err)
	}
	rr, err := arrowconv.NewRecordReader(r, "", 2, memory.DefaultAllocator)
	if err != nil {
		log.Fatal(err)
	}
	defer rr.Release()
	for _, fld := range rr.Schema().Fields() {
		fmt.Printf("%s: %s\n", fld.Name, fld.Type)
	}
	for rr.Next() {
		rec := rr.RecordBatch()
		fmt.Println(rec.NumRows(), "rows, t =", rec.Column(2))
	}
	if err := rr.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// u: utf8
	// s: binary
	// t: timestamp[ms]
	// d: duration[s]
	// v: fixed_size_binary[2]
	// ok: bool
	// 2 rows, t = [86400 -86400]
	// 1 rows, t = [31536000]
}

// The Arrow type of numpy element types.
func ExampleFieldType() {
	for _, descr := range []string{"<c16", ">M8[h]", "<m8[D]", "|S5", "<M8[Y]"} {
		dt, err := npyio.ParseTypeStr(descr)
		if err != nil {
			log.Fatal(err)
		}
		t, err := arrowconv.FieldType(dt, nil)
		fmt.Println(descr, "->", t, err)
	}
	dt, _ := npyio.ParseTypeStr("<f4")
	t, _ := arrowconv.FieldType(dt, []int{2, 3})
	fmt.Println("<f4 (2, 3) ->", t)
	// Output:
	// <c16 -> struct<real: float64 nullable, imag: float64 nullable> <nil>
	// >M8[h] -> timestamp[s] <nil>
	// <m8[D] -> duration[s] <nil>
	// |S5 -> binary <nil>
	// <M8[Y] -> <nil> arrowconv: unsupported type <M8[Y]: years and months have no fixed length in seconds; cast to datetime64[D] or finer in numpy first
	// <f4 (2, 3) -> extension<arrow.fixed_shape_tensor[value_type=float32, shape=[2 3]]>
}
