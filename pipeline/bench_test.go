package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// BenchmarkRunFilterCast runs a job over a 1M-row record array (24 MB):
// filter on a float, cast an int, write .npy.
func BenchmarkRunFilterCast(b *testing.B) {
	dir := b.TempDir()
	dt, _ := npyio.NewStruct([]npyio.Field{{Name: "a", Type: npyio.Int64Type}, {Name: "x", Type: npyio.Float64Type}, {Name: "k", Type: npyio.Int32Type}, {Name: "f", Type: npyio.Float32Type}})
	const rows = 1 << 20
	data := make([]byte, rows*dt.Size)
	for i := 0; i < rows; i++ {
		store(data, i*dt.Size, int64(i))
		store(data, i*dt.Size+8, float64(i%1000))
		store(data, i*dt.Size+16, int32(i%100))
	}
	f, _ := os.Create(filepath.Join(dir, "in.npy"))
	if err := npyio.WriteArray(f, &npyio.Array{Header: &npyio.Header{DType: dt, Shape: []int{rows}}, DType: dt, Data: data}); err != nil {
		b.Fatal(err)
	}
	f.Close()
	job := []byte(`version: 1
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
		j, err := Load(filepath.Join(dir, "job.yaml"), job, nil)
		if err != nil {
			b.Fatal(err)
		}
		p, err := NewPlan(j)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Run(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	}
}
