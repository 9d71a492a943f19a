package matfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
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

// readVar walks b and returns the data of variable x, and whether it
// streamed (was not held in memory).
func readVar(t *testing.T, b []byte) ([]byte, bool, error) {
	t.Helper()
	vars, _, err := walkBytes(t, b, nil)
	if err != nil {
		return nil, false, err
	}
	v := vars["x"]
	if v == nil {
		t.Fatal("no x")
	}
	a, err := v.Array()
	if err != nil {
		return nil, v.open != nil, err
	}
	return a.Data, v.open != nil, nil
}

// TestCompressedStream: a compressed numeric variable over streamMin
// streams through zlib in batches, converting MATLAB's compact storage
// (a double array stored as miUINT8) exactly like the in-memory path, in
// bounded memory; bad values, truncation and a bad checksum are errors.
func TestCompressedStream(t *testing.T) {
	const n = 3 << 20
	u8 := make([]byte, n)
	for i := range u8 {
		u8[i] = byte(i * 7)
	}
	file := matFile(compressed(matrix(ClassDouble, 0, []int32{n, 1}, "x", el(MiUINT8, u8))))
	got, streamed, err := readVar(t, file)
	if err != nil || !streamed {
		t.Fatalf("streamed %v: %v", streamed, err)
	}
	d := view[float64](got)
	for i := range d {
		if d[i] != float64(byte(i*7)) {
			t.Fatalf("x[%d] = %v", i, d[i])
		}
	}
	old := streamMin
	streamMin = 1 << 40
	mem, streamed, err := readVar(t, file)
	streamMin = old
	if err != nil || streamed || !bytes.Equal(mem, got) {
		t.Fatalf("in-memory path: streamed %v, equal %v, %v", streamed, bytes.Equal(mem, got), err)
	}

	// Bounded memory: 24 MiB of output through a few MiB of buffers.
	f, err := Open(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	err = f.Walk(func(path string, v *Var) error {
		rc, err := v.Open()
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, rc)
		return err
	})
	runtime.ReadMemStats(&ms1)
	if err != nil {
		t.Fatal(err)
	}
	if a := ms1.TotalAlloc - ms0.TotalAlloc; a > 8<<20 {
		t.Errorf("streaming 24 MiB allocated %d bytes", a)
	}

	// A value the class cannot hold, in the second batch: int8 from miINT16.
	i16 := make([]byte, 2*n)
	i16[2*(convBatch+5)] = 0x00
	i16[2*(convBatch+5)+1] = 0x01 // 256
	bad := matFile(compressed(matrix(ClassInt8, 0, []int32{n, 1}, "x", el(MiINT16, i16))))
	if _, streamed, err := readVar(t, bad); !streamed || err == nil || !strings.Contains(err.Error(), fmt.Sprintf("element %d ", convBatch+6)) {
		t.Errorf("inexact value: streamed %v, %v", streamed, err)
	}
	// Truncated stream, and a corrupted checksum.
	if _, _, err := readVar(t, file[:len(file)-len(file)/3]); err == nil {
		t.Errorf("truncated: no error")
	}
	cs := append([]byte(nil), file...)
	cs[len(cs)-1] ^= 0xff
	if _, _, err := readVar(t, cs); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("checksum: %v", err)
	}
}
