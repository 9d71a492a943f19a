//go:build ignore

// ipc2npy measures Arrow IPC -> .npy through arrowconv against cp.
//
//	go run ipc2npy.go gen /tmp/x.arrow 10000000 [batchRows]  # i8, f8, f4, bool columns (arrow-go writer)
//	go run ipc2npy.go convert /tmp/x.arrow /tmp/x.npy         # NewIPCReader + MapSchema + NPYWriter
package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/npyflow/npyflow/arrowconv"
)

func main() {
	switch os.Args[1] {
	case "gen":
		rows, _ := strconv.Atoi(os.Args[3])
		batch := 1 << 20
		if len(os.Args) > 4 {
			batch, _ = strconv.Atoi(os.Args[4])
		}
		check(gen(os.Args[2], rows, batch))
	case "convert":
		if p := os.Getenv("CPUPROFILE"); p != "" {
			f, err := os.Create(p)
			check(err)
			check(pprof.StartCPUProfile(f))
			defer pprof.StopCPUProfile()
		}
		t := time.Now()
		n, err := convert(os.Args[2], os.Args[3])
		check(err)
		fmt.Fprintf(os.Stderr, "%d rows in %v\n", n, time.Since(t))
		return
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func gen(path string, rows, batch int) error {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i8", Type: arrow.PrimitiveTypes.Int64},
		{Name: "f8", Type: arrow.PrimitiveTypes.Float64},
		{Name: "f4", Type: arrow.PrimitiveTypes.Float32},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean},
	}, nil)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema))
	if err != nil {
		return err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for start := 0; start < rows; start += batch {
		n := min(batch, rows-start)
		for i := start; i < start+n; i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i) * 7)
			b.Field(1).(*array.Float64Builder).Append(float64(i) / 3)
			b.Field(2).(*array.Float32Builder).Append(float32(i) / 7)
			b.Field(3).(*array.BooleanBuilder).Append(i%3 == 0)
		}
		rec := b.NewRecordBatch()
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return w.Close()
}

func convert(in, out string) (int64, error) {
	f, err := os.Open(in)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	rr, err := arrowconv.NewIPCReader(f, memory.DefaultAllocator)
	if err != nil {
		return 0, err
	}
	defer rr.Release()
	m, err := arrowconv.MapSchema(rr.Schema(), nil)
	if err != nil {
		return 0, err
	}
	if m.NeedsScan() {
		return 0, fmt.Errorf("the driver converts fixed-width columns only")
	}
	o, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	defer o.Close()
	return arrowconv.WriteMappedNPY(o, rr, m)
}
