package matfile

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"testing"
)

// Builders of synthetic Level 5 files for tests of what no available
// producer writes (function handles, opaque objects) and of hostile input.

func el(typ DataType, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint32(typ))
	binary.Write(&b, binary.LittleEndian, uint32(len(data)))
	b.Write(data)
	for b.Len()%8 != 0 {
		b.WriteByte(0)
	}
	return b.Bytes()
}

func small(typ DataType, data []byte) []byte {
	b := make([]byte, 8)
	binary.LittleEndian.PutUint32(b, uint32(len(data))<<16|uint32(typ))
	copy(b[4:], data)
	return b
}

func i32s(v ...int32) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, v)
	return b.Bytes()
}

func f64s(v ...float64) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, v)
	return b.Bytes()
}

func flagsEl(class Class, flags uint32, nzmax uint32) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, []uint32{uint32(class) | flags, nzmax})
	return el(MiUINT32, b.Bytes())
}

// matrix builds an miMATRIX element: flags, dims, name, then parts.
func matrix(class Class, flags uint32, dims []int32, name string, parts ...[]byte) []byte {
	var b bytes.Buffer
	b.Write(flagsEl(class, flags, 0))
	b.Write(el(MiINT32, i32s(dims...)))
	b.Write(el(MiINT8, []byte(name)))
	for _, p := range parts {
		b.Write(p)
	}
	return el(MiMATRIX, b.Bytes())
}

func compressed(elem []byte) []byte {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(elem)
	w.Close()
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint32(MiCOMPRESSED))
	binary.Write(&b, binary.LittleEndian, uint32(z.Len()))
	b.Write(z.Bytes())
	return b.Bytes()
}

func matFile(elems ...[]byte) []byte {
	h := make([]byte, HeaderSize)
	copy(h, "MATLAB 5.0 MAT-file, synthetic test file")
	for i := 40; i < HeaderTextSize; i++ {
		h[i] = ' '
	}
	h[124], h[125], h[126], h[127] = 0x00, 0x01, 'I', 'M'
	out := h
	for _, e := range elems {
		out = append(out, e...)
	}
	return out
}

func openBytes(t *testing.T, b []byte, opts *Options) (*File, error) {
	t.Helper()
	return Open(bytes.NewReader(b), int64(len(b)), opts)
}

func walkBytes(t *testing.T, b []byte, opts *Options) (map[string]*Var, *File, error) {
	t.Helper()
	f, err := openBytes(t, b, opts)
	if err != nil {
		return nil, nil, err
	}
	vars := map[string]*Var{}
	err = f.Walk(func(path string, v *Var) error {
		vars[path] = v
		return nil
	})
	return vars, f, err
}
