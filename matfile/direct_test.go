package matfile

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// beMatrix builds a big-endian file with one n x 1 variable x of class c
// stored as its own type.
func beFile(c Class, typ DataType, n int, val func(i int) uint64) []byte {
	var b bytes.Buffer
	put := func(v ...any) {
		for _, x := range v {
			binary.Write(&b, binary.BigEndian, x)
		}
	}
	es := typ.ElemSize()
	nb := n * es
	pad := (8 - nb%8) % 8
	put(uint32(MiUINT32), uint32(8), uint32(c), uint32(0))
	put(uint32(MiINT32), uint32(8), int32(n), int32(1))
	put(uint32(1<<16|uint32(MiINT8)), []byte{'x', 0, 0, 0})
	put(uint32(typ), uint32(nb))
	for i := 0; i < n; i++ {
		switch es {
		case 2:
			put(uint16(val(i)))
		case 8:
			put(val(i))
		}
	}
	b.Write(make([]byte, pad))
	body := b.Bytes()
	h := matFile()
	h[124], h[125], h[126], h[127] = 0x01, 0x00, 'M', 'I'
	var e bytes.Buffer
	binary.Write(&e, binary.BigEndian, []uint32{uint32(MiMATRIX), uint32(len(body))})
	return append(append(h, e.Bytes()...), body...)
}

// TestDirectRead: a large uncompressed variable stored as its class is
// read straight from the file (both byte orders), equal to the values.
func TestDirectRead(t *testing.T) {
	const n = 30000
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = float64(i) * 0.5
	}
	le := matFile(matrix(ClassDouble, 0, []int32{n, 1}, "x", el(MiDOUBLE, f64s(vals...))))
	be := beFile(ClassDouble, MiDOUBLE, n, func(i int) uint64 { return math.Float64bits(vals[i]) })
	be16 := beFile(ClassInt16, MiINT16, 2*n, func(i int) uint64 { return uint64(uint16(int16(i - n))) })
	for name, file := range map[string][]byte{"le": le, "be": be, "be16": be16} {
		vars, _, err := walkBytes(t, file, nil)
		if err != nil {
			t.Fatal(name, err)
		}
		v := vars["x"]
		if v == nil || v.open == nil {
			t.Fatalf("%s: not read directly", name)
		}
		a, err := v.Array()
		if err != nil {
			t.Fatal(name, err)
		}
		if name == "be16" {
			got := view[int16](a.Data)
			if len(got) != 2*n {
				t.Fatalf("%s: %d values", name, len(got))
			}
			for i := range got {
				if got[i] != int16(i-n) {
					t.Fatalf("%s: x[%d] = %v", name, i, got[i])
				}
			}
			continue
		}
		got := view[float64](a.Data)
		if len(got) != n {
			t.Fatalf("%s: %d values", name, len(got))
		}
		for i := range got {
			if got[i] != vals[i] {
				t.Fatalf("%s: x[%d] = %v, want %v", name, i, got[i], vals[i])
			}
		}
	}
}
