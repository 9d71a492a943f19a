package hdf5_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"log"
	"math"

	"github.com/npyflow/npyflow/hdf5"
)

func ExampleOpenFile() {
	f, err := hdf5.OpenFile("testdata/small_earliest.h5", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	err = f.Walk(func(path string, obj hdf5.Object) error {
		if ds, ok := obj.(*hdf5.Dataset); ok {
			fmt.Println(path, ds.Describe())
		} else {
			fmt.Println(path)
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// /
	// /d f64 LE (10, 3) chunked [4 2] btree-v1 shuffle,deflate(4),fletcher32
	// /e i16 BE (7,) chunked [3] btree-v1
	// /g
	// /g/h
	// /g/r object reference () contiguous
	// /s vlen string utf-8 (2,) contiguous
}

func ExampleRowReader() {
	f, err := hdf5.OpenFile("testdata/small_earliest.h5", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	obj, err := f.OpenPath("/d")
	if err != nil {
		log.Fatal(err)
	}
	ds := obj.(*hdf5.Dataset)
	dt, err := ds.DType()
	if err != nil {
		log.Fatal(err)
	}
	r, err := ds.NewRowReader(4)
	if err != nil {
		log.Fatal(err)
	}
	for {
		batch, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		first := math.Float64frombits(binary.LittleEndian.Uint64(batch))
		fmt.Printf("%s: %d rows, first %v\n", dt, len(batch)/r.RowBytes(), first)
	}
	// Output:
	// '<f8': 4 rows, first 0
	// '<f8': 4 rows, first 12
	// '<f8': 2 rows, first 24
}

func ExampleAttribute_Strings() {
	f, err := hdf5.OpenFile("testdata/matlab/struct.mat", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	s, err := f.OpenPath("/s")
	if err != nil {
		log.Fatal(err)
	}
	class, _ := s.Attr("MATLAB_class")
	name, _ := class.String()
	fields, _ := s.Attr("MATLAB_fields")
	names, err := fields.Strings()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(f.UserBlockSize(), name, names)
	// Output:
	// 512 struct [a b c]
}
