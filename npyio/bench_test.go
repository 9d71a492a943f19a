package npyio_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/internal/fixtures"
	"github.com/npyflow/npyflow/npyio"
)

func BenchmarkParseHeader(b *testing.B) {
	for _, name := range []string{"f8_le_1d", "rec_nested", "rec_500_long_names", "rec_4000_fields"} {
		fx := fixtures.NPYByName(b, name)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(fx.Header)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := npyio.ParseHeader(fx.Header); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// makeFile writes an array of n rows of dt (rowShape trailing) with
// arbitrary data to a temp file.
func makeFile(b *testing.B, dt *npyio.DType, rows int, rowShape []int, fortran bool) string {
	b.Helper()
	h := &npyio.Header{DType: dt, Shape: append([]int{rows}, rowShape...), FortranOrder: fortran}
	path := filepath.Join(b.TempDir(), "a.npy")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w, err := npyio.NewWriter(f, h)
	if err != nil {
		b.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i * 7)
	}
	for left := h.DataSize(); left > 0; {
		k := min(left, int64(len(chunk)))
		if _, err := w.Write(chunk[:k]); err != nil {
			b.Fatal(err)
		}
		left -= k
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path
}

func mustType(b *testing.B, s string) *npyio.DType {
	d, err := npyio.ParseDescr(s)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkStreamBatches reads 8M elements' worth of rows in 64K-row
// batches through NewReaderAt, per dtype and byte order.
func BenchmarkStreamBatches(b *testing.B) {
	cases := []struct {
		name, descr string
		rowShape    []int
		fortran     bool
	}{
		{"f8_native", "'<f8'", nil, false},
		{"f8_swapped", "'>f8'", nil, false},
		{"f4_swapped", "'>f4'", nil, false},
		{"i2_swapped", "'>i2'", nil, false},
		{"b1", "'|b1'", nil, false},
		{"U8_swapped", "'>U8'", nil, false},
		{"record_mixed_endian", "[('a', '<i8'), ('b', '>f8'), ('c', '<f4'), ('d', '|b1')]", nil, false},
		{"f8_fortran_8cols", "'<f8'", []int{8}, true},
	}
	for _, c := range cases {
		dt := mustType(b, c.descr)
		elems := 8 << 20
		rows := elems
		if len(c.rowShape) > 0 {
			rows /= c.rowShape[0]
		}
		path := makeFile(b, dt, rows, c.rowShape, c.fortran)
		b.Run(c.name, func(b *testing.B) {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			st, _ := f.Stat()
			b.SetBytes(st.Size())
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r, err := npyio.NewReaderAt(f, st.Size(), nil)
				if err != nil {
					b.Fatal(err)
				}
				for {
					_, err := r.Next(65536)
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkReadWhole compares the whole-array paths on a float64 file.
func BenchmarkReadWhole(b *testing.B) {
	for _, n := range []int{1 << 20, 16 << 20} {
		path := makeFile(b, npyio.Float64Type, n, nil, false)
		st, _ := os.Stat(path)
		b.Run(fmt.Sprintf("ReadFile/%dM", n>>20), func(b *testing.B) {
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := npyio.ReadFile(path, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("Map/%dM", n>>20), func(b *testing.B) {
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				m, err := npyio.Map(path, nil)
				if err != nil {
					b.Fatal(err)
				}
				v, _ := npyio.View[float64](m.Data)
				var s float64
				for _, x := range v {
					s += x
				}
				_ = s
				m.Close()
			}
		})
		b.Run(fmt.Sprintf("os.ReadFile/%dM", n>>20), func(b *testing.B) {
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := os.ReadFile(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkWrite(b *testing.B) {
	for _, descr := range []string{"'<f8'", "'>f8'"} {
		dt := mustType(b, descr)
		data := make([]byte, 8<<20)
		b.Run(descr, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				w, err := npyio.NewWriter(io.Discard, &npyio.Header{DType: dt, Shape: []int{len(data) / 8}})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := w.Write(data); err != nil {
					b.Fatal(err)
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkNPZDeflate(b *testing.B) {
	// Smooth-ish data compresses like real measurements.
	n := 1 << 20
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i%1000) * 0.25
	}
	a := &npyio.Array{Header: &npyio.Header{DType: npyio.Float64Type, Shape: []int{n}}, Data: npyio.AsBytes(v)}
	b.SetBytes(int64(n * 8))
	b.ReportAllocs()
	var size int
	for i := 0; i < b.N; i++ {
		var buf bytes.Buffer
		if err := npyio.SaveNPZ(&buf, true, []*npyio.Array{a}); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size)/float64(n*8), "ratio")
}
