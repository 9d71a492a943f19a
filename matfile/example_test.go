package matfile_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/npyflow/npyflow/matfile"
	"github.com/npyflow/npyflow/npyio"
)

// Inspect: the variables of a file without reading their data.
func ExampleFile_Variables() {
	f, err := matfile.OpenFile("testdata/matlab/v7/struct.mat", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	vars, err := f.Variables()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(f.Version(), f.SaveFormat())
	for _, v := range vars {
		fmt.Println(v.Name, v.Class, v.Dims, v.Compression)
	}
	// Output:
	// 5 -v7
	// s struct [1 1] zlib
	// s2 struct [1 2] zlib
}

// Convert: stream every array of a MAT-file into an npz archive, one
// member per MATLAB path, in bounded memory for v7.3 variables.
func ExampleFile_Walk() {
	f, err := matfile.OpenFile("testdata/matlab/v7.3/cell.mat", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	z := npyio.NewNPZWriter(&out, true)
	err = f.Walk(func(path string, v *matfile.Var) error {
		w, err := z.Create(path, v.Header)
		if err != nil {
			return err
		}
		rc, err := v.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		_, err = io.Copy(w, rc)
		fmt.Println(path, v.Class, v.Header.DType, v.Header.Shape)
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := z.Close(); err != nil {
		log.Fatal(err)
	}
	for _, w := range f.Warnings() {
		fmt.Println("warning:", w)
	}
	// Output:
	// cell{1} double '<f8' [1 1]
	// cell{2} double '<f8' [1 1]
	// cell{3} char '<U6' [1]
	// cell{4}{1} char '<U7' [1]
	// cell{4}{2} char '<U7' [1]
}

// Read a whole (small) file into memory.
func ExampleReadArrays() {
	arrays, warnings, err := matfile.ReadArrays("testdata/matlab/v7/struct.mat", nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range arrays {
		vals, _ := npyio.View[float64](a.Array.Data)
		fmt.Println(a.Key, a.Array.Header.Shape, vals)
	}
	fmt.Println(len(warnings), "warnings")
	// Output:
	// s.a [1 1] [1]
	// s.b [1 2] [1 2]
	// s.c [1 3] [1 2 3]
	// s2(1).a [1 1] [1]
	// s2(2).a [1 1] [2]
	// 0 warnings
}

// Read a MATLAB timetable as one table: named columns, each a numpy
// dtype with its data in C order, and the table's metadata.
func ExampleFile_ReadTable() {
	f, err := matfile.OpenFile("testdata/objects/test_tables_v7.mat", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	t, err := f.ReadTable("timetable_with_attrs")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(t.Class, t.Rows, "rows:", t.Description)
	for _, c := range t.Columns {
		fmt.Printf("%s %s %s index=%v unit=%q\n", c.Name, c.Class, c.DType, c.Index, c.Unit)
	}
	times, err := npyio.View[int64](t.Column("Date").Data) // datetime64[ns]
	if err != nil {
		log.Fatal(err)
	}
	for _, ns := range times {
		fmt.Println(time.Unix(0, ns).UTC().Format(time.DateOnly))
	}
	vals, err := npyio.View[float64](t.Column("data1").Data)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(vals)
	// As one numpy structured array (for .npy/.npz):
	a := t.Array()
	fmt.Println(a.DType, a.Header.Shape)
	// Output:
	// timetable 3 rows: Random Description
	// Date datetime '<M8[ns]' index=true unit=""
	// data1 double '<f8' index=false unit="m/s"
	// 2023-01-01
	// 2023-01-02
	// 2023-01-03
	// [1 2 3]
	// [('Date', '<M8[ns]'), ('data1', '<f8')] [3]
}

// Inspect MATLAB objects: each variable's class and true size, and a
// table's columns.
func ExampleVarInfo_table() {
	f, err := matfile.OpenFile("testdata/objects/test_tables_v7.mat", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	vars, err := f.Variables()
	if err != nil {
		log.Fatal(err)
	}
	for _, v := range vars {
		switch v.Name {
		case "table_row_names", "cat_3D":
			fmt.Println(v.Name, v.Class, v.Dims)
			if v.Table != nil {
				for _, c := range v.Table.Columns {
					fmt.Println("  ", c.Name, c.Class, c.DType)
				}
			}
		}
	}
	// Output:
	// table_row_names table [3 2]
	//    Row cell '<U2'
	//    Col1 double '<f8'
	//    Col2 double '<f8'
	// cat_3D categorical [2 3 2]
}
