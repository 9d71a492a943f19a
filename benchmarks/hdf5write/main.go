// Command hdf5write times npyflow's HDF5 writer on a float64 .npy (rows x
// cols): chunked with shuffle + deflate, or contiguous. h5py_write.py runs
// it next to h5py on the same data; see that script.
//
//	go run ./hdf5write -in data.npy -out x.h5 -chunk 4096 -level 3 -shuffle
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/npyio"
)

func main() {
	in := flag.String("in", "", "input .npy (2-D)")
	out := flag.String("out", "", "output .h5")
	chunk := flag.Int("chunk", 4096, "chunk rows (0: contiguous)")
	level := flag.Int("level", 3, "deflate level (0: none)")
	shuffle := flag.Bool("shuffle", false, "shuffle filter")
	workers := flag.Int("workers", 0, "compression workers (0: GOMAXPROCS)")
	chunkShape := flag.String("chunk-shape", "", "chunk shape, comma-separated (overrides -chunk)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		pf, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(pf)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "hdf5write:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if *chunkShape != "" {
		for _, f := range strings.Split(*chunkShape, ",") {
			v, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				fmt.Fprintln(os.Stderr, "hdf5write: -chunk-shape:", err)
				os.Exit(1)
			}
			shapeOverride = append(shapeOverride, v)
		}
	}
	if err := run(*in, *out, *chunk, *level, *shuffle, *workers); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "hdf5write:", err)
		os.Exit(1)
	}
}

var shapeOverride []uint64

func run(in, out string, chunk, level int, shuffle bool, workers int) error {
	a, err := npyio.ReadFile(in, nil)
	if err != nil {
		return err
	}
	shape := make([]uint64, len(a.Header.Shape))
	for i, d := range a.Header.Shape {
		shape[i] = uint64(d)
	}
	opts := &hdf5.DatasetOptions{Contiguous: true}
	if chunk > 0 {
		c := append([]uint64{uint64(chunk)}, shape[1:]...)
		if shapeOverride != nil {
			c = shapeOverride
		}
		opts = &hdf5.DatasetOptions{Chunk: c, Deflate: level, Shuffle: shuffle}
	}
	data := a.CData()
	start := time.Now()
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := hdf5.NewWriter(f, &hdf5.WriterOptions{Workers: workers})
	if err != nil {
		return err
	}
	d, err := w.Root().CreateDataset("x", a.DType, shape, opts)
	if err != nil {
		return err
	}
	const batch = 64 << 20
	rowSize := len(data) / int(max(shape[0], 1))
	step := max(1, batch/max(rowSize, 1)) * rowSize
	for off := 0; off < len(data); off += step {
		if err := d.Write(data[off:min(off+step, len(data))]); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	sec := time.Since(start).Seconds()
	st, _ := os.Stat(out)
	fmt.Printf("npyflow %.3f s %.1f MB/s (file %.1f MB)\n", sec, float64(len(data))/sec/1e6, float64(st.Size())/1e6)
	return nil
}
