package npyio_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

// Read a file in batches of rows, in bounded memory: each batch holds
// whole rows in native byte order, C order.
func ExampleReader_Next() {
	f, err := os.Open(filepath.Join(fixtures.Root(), "npy", "i4_le_1d.npy"))
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
	fmt.Println(r.Header().DType, r.Rows(), "rows")
	for {
		b, err := r.Next(3)
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		v, err := npyio.View[int32](b.Data)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(b.Rows, v)
	}
	// Output:
	// '<i4' 7 rows
	// 3 [0 1 -1]
	// 3 [-2147483648 2147483647 -2147483647]
	// 1 [2147483646]
}

// Write an .npy file row by row: numpy reads it as np.save wrote it.
func ExampleNewWriter() {
	var buf bytes.Buffer
	w, err := npyio.NewWriter(&buf, &npyio.Header{DType: npyio.Float64Type, Shape: []int{2, 3}})
	if err != nil {
		log.Fatal(err)
	}
	for _, row := range [][]float64{{1, 2, 3}, {4, 5, 6}} {
		if _, err := w.Write(npyio.AsBytes(row)); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	a, err := npyio.ReadArray(&buf, nil)
	if err != nil {
		log.Fatal(err)
	}
	v, _ := npyio.View[float64](a.Data)
	fmt.Println(a.Header.DType, npyio.FormatShape(a.Header.Shape), v)
	// Output:
	// '<f8' (2, 3) [1 2 3 4 5 6]
}

// Convert a file: a big-endian, Fortran-order array read as numpy would
// and written back as native, C-order .npy (the Reader delivers rows in
// native order, C order).
func ExampleReadFile() {
	a, err := npyio.ReadFile(filepath.Join(fixtures.Root(), "npy", "f8_be_2d_f.npy"), nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("in: ", a.Header.DType, npyio.FormatShape(a.Header.Shape), "fortran:", a.Header.FortranOrder)
	out := &npyio.Array{
		Header: &npyio.Header{DType: a.DType, Shape: a.Header.Shape},
		DType:  a.DType,
		Data:   a.CData(),
	}
	var buf bytes.Buffer
	if err := npyio.WriteArray(&buf, out); err != nil {
		log.Fatal(err)
	}
	b, err := npyio.ReadArray(&buf, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("out:", b.Header.DType, npyio.FormatShape(b.Header.Shape), "fortran:", b.Header.FortranOrder, "same values:", bytes.Equal(b.CData(), a.CData()))
	// Output:
	// in:  '>f8' (3, 4) fortran: true
	// out: '<f8' (3, 4) fortran: false same values: true
}
