package hdf5_test

import (
	"errors"
	"fmt"
	"io"
	"log"

	"github.com/npyflow/npyflow/hdf5"
)

// A converter skips, with a warning, each dataset whose filters cannot be
// undone, and goes on with the others.
func ExampleDataset_CheckFilters() {
	f, err := hdf5.OpenFile("testdata/filters.h5", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	err = f.Walk(func(path string, obj hdf5.Object) error {
		ds, ok := obj.(*hdf5.Dataset)
		if !ok {
			return nil
		}
		var fe *hdf5.UnsupportedFilterError
		if err := ds.CheckFilters(); errors.As(err, &fe) {
			fmt.Printf("%s skipped: filter %d (%s) lossy=%v\n", fe.Dataset, fe.ID, fe.Name, fe.Lossy)
			return nil
		} else if err != nil {
			return err
		}
		fmt.Println(path, ds.FilterPipeline())
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// /direct skipped: filter 40000 () lossy=false
	// /gzip [deflate(level=4)]
	// /plain []
	// /skipped [filter 40000(7, 8) [optional, not decodable]]
	// /zfp [zfp(268456208, 91252346, 805306487, 3398434816) [lossy]]
}

// The variables of a netCDF-4 file: dimension names and CF attributes.
func ExampleDataset_Dimensions() {
	f, err := hdf5.OpenFile("testdata/nc4.nc", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	vars, err := f.Root().Variables()
	if err != nil {
		log.Fatal(err)
	}
	for _, v := range vars[:5] {
		names, err := v.DimensionNames()
		if err != nil {
			log.Fatal(err)
		}
		cf, err := v.CFAttributes()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(v.Name(), names, cf)
	}
	// Output:
	// time [time] units="hours since 2000-01-01 00:00:00"
	// lat [lat] units="degrees_north"
	// lon [lon] units="degrees_east"
	// temp [time lat lon] _FillValue=-999 units="K" scale_factor=0.01 add_offset=273.15
	// pressure [time] _FillValue=-1e+30 units="hPa"
}

// The 1-D variables along "time", as one table of records.
func ExampleFile_DimensionTable() {
	f, err := hdf5.OpenFile("testdata/nc4.nc", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	tab, err := f.DimensionTable("/", "time")
	if err != nil {
		log.Fatal(err)
	}
	r, err := tab.NewReader(1000)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tab.Names(), tab.Rows(), r.DType())
	n := 0
	for {
		b, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		n += len(b)
	}
	fmt.Println(n, "bytes")
	// Output:
	// [time pressure count flag] 5 [('time', '<f8'), ('pressure', '<f4'), ('count', '<i4'), ('flag', '|u1')]
	// 85 bytes
}

func ExampleNetCDF3Version() {
	_, err := hdf5.OpenFile("testdata/nc3_classic.nc", nil)
	fmt.Println(errors.Is(err, hdf5.ErrNetCDF3), hdf5.NetCDF3Version([]byte("CDF\x02")))
	// Output:
	// true 2
}
