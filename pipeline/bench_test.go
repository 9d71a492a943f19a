package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
	"github.com/npyflow/npyflow/pipeline/job"
)

// BenchmarkRunFilterCast runs a job over a 1M-row record array (24 MB):
// filter on a float, cast an int, write .npy.
func BenchmarkRunFilterCast(b *testing.B) {
	dir := b.TempDir()
	dt, _ := npyio.NewStruct([]npyio.Field{{Name: "a", Type: npyio.Int64Type}, {Name: "x", Type: npyio.Float64Type}, {Name: "k", Type: npyio.Int32Type}, {Name: "f", Type: npyio.Float32Type}})
	const rows = 1 << 20
	data := make([]byte, rows*dt.Size)
	for i := 0; i < rows; i++ {
		rowbytes.Store(data, i*dt.Size, int64(i))
		rowbytes.Store(data, i*dt.Size+8, float64(i%1000))
		rowbytes.Store(data, i*dt.Size+16, int32(i%100))
	}
	f, _ := os.Create(filepath.Join(dir, "in.npy"))
	if err := npyio.WriteArray(f, &npyio.Array{Header: &npyio.Header{DType: dt, Shape: []int{rows}}, DType: dt, Data: data}); err != nil {
		b.Fatal(err)
	}
	f.Close()
	jb := []byte(`version: 1
sources:
  s: {type: npy, paths: in.npy}
transforms:
  f: {type: filter, input: s, where: "x < 500 and k != 3"}
  c: {type: cast, input: f, fields: {k: int8, a: float64}}
sinks:
  o: {type: npy, input: c, path: out.npy}
`)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j, err := job.Load(filepath.Join(dir, "job.yaml"), jb, nil)
		if err != nil {
			b.Fatal(err)
		}
		p, err := NewPlan(context.Background(), j, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Run(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFilterPredicates evaluates predicates over 64K-row batches of
// (a int64, x float64, y float64) records in memory: a literal, two
// fields of one kind, and two fields of mixed kinds (compared exactly).
func BenchmarkFilterPredicates(b *testing.B) {
	dt, _ := npyio.NewStruct([]npyio.Field{{Name: "a", Type: npyio.Int64Type}, {Name: "x", Type: npyio.Float64Type}, {Name: "y", Type: npyio.Float64Type}})
	const rows = 1 << 16
	data := make([]byte, rows*dt.Size)
	for i := 0; i < rows; i++ {
		rowbytes.Store(data, i*dt.Size, int64(i%1000))
		rowbytes.Store(data, i*dt.Size+8, float64(i%997))
		rowbytes.Store(data, i*dt.Size+16, float64(i%991))
	}
	in := &Schema{DType: dt}
	for _, where := range []string{"x < 500", "x < y", "a < x"} {
		b.Run(where, func(b *testing.B) {
			jb := "version: 1\nsources:\n  s: {type: npy, paths: x.npy}\ntransforms:\n  t: {type: filter, input: s, where: \"" + where + "\"}\nsinks:\n  o: {type: npy, input: t, path: o.npy}\n"
			j, err := job.Load("job.yaml", []byte(jb), nil)
			if err != nil {
				b.Fatal(err)
			}
			c := j.Component("t")
			n, err := build(c, in, nil)
			if err != nil {
				b.Fatal(err)
			}
			n.(producer).connect(&collect{schema: in})
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out := n.(*filterNode).out[0].(*collect)
				out.data, out.rows = out.data[:0], 0
				if err := n.Push(Batch{Rows: rows, Data: data}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
