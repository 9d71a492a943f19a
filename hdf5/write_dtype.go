package hdf5

import (
	"encoding/binary"
	"fmt"

	"github.com/npyflow/npyflow/npyio"
)

// HDF5 datatype classes.
const (
	wClassFixed    = 0
	wClassFloat    = 1
	wClassString   = 3
	wClassOpaque   = 5
	wClassCompound = 6
	wClassRef      = 7
	wClassEnum     = 8
	wClassVlen     = 9
	wClassArray    = 10
)

// wTypeHeader is the 8-byte start of a datatype message.
func wTypeHeader(class, version int, bits uint32, size uint32) []byte {
	b := make([]byte, 8)
	b[0] = byte(class) | byte(version)<<4
	b[1], b[2], b[3] = byte(bits), byte(bits>>8), byte(bits>>16)
	binary.LittleEndian.PutUint32(b[4:], size)
	return b
}

func wPad8(n int) int { return (n + 7) &^ 7 }

// wIntType encodes a fixed-point type.
func wIntType(size int, signed, bigEndian bool) []byte {
	var bits uint32
	if bigEndian {
		bits |= 1
	}
	if signed {
		bits |= 8
	}
	b := wTypeHeader(wClassFixed, 1, bits, uint32(size))
	p := make([]byte, 4)
	binary.LittleEndian.PutUint16(p[2:], uint16(8*size)) // offset 0, precision
	return append(b, p...)
}

// wFloatType encodes an IEEE float of 2, 4 or 8 bytes.
func wFloatType(size int, bigEndian bool) []byte {
	var expLoc, expSize, mantSize byte
	var bias uint32
	switch size {
	case 2:
		expLoc, expSize, mantSize, bias = 10, 5, 10, 15
	case 4:
		expLoc, expSize, mantSize, bias = 23, 8, 23, 127
	default:
		expLoc, expSize, mantSize, bias = 52, 11, 52, 1023
	}
	bits := uint32(0x20) // mantissa normalization: msb implied
	if bigEndian {
		bits |= 1
	}
	bits |= uint32(8*size-1) << 8 // sign location
	b := wTypeHeader(wClassFloat, 1, bits, uint32(size))
	p := make([]byte, 12)
	binary.LittleEndian.PutUint16(p[2:], uint16(8*size))
	p[4], p[5], p[6], p[7] = expLoc, expSize, 0, mantSize
	binary.LittleEndian.PutUint32(p[8:], bias)
	return append(b, p...)
}

// wStringType encodes a fixed-length string: pad 0 NULLTERM, 1 NULLPAD;
// charset 0 ASCII, 1 UTF-8.
func wStringType(size int, pad, cset int) []byte {
	return wTypeHeader(wClassString, 1, uint32(pad)|uint32(cset)<<4, uint32(size))
}

// wOpaqueType encodes an opaque type of size bytes with a tag, NUL-padded
// to a multiple of 8 bytes as the library stores it.
func wOpaqueType(size int, tag string) []byte {
	n := wPad8(len(tag))
	b := wTypeHeader(wClassOpaque, 1, uint32(n), uint32(size))
	t := make([]byte, n)
	copy(t, tag)
	return append(b, t...)
}

// NumpyOpaqueTag is the tag prefix of h5py's opaque types that carry a
// numpy dtype (h5py.opaque_dtype): "NUMPY:" then the dtype's str, such as
// "NUMPY:<M8[ms]". h5py reads such data back as that dtype, and so does
// this package's reader.
const NumpyOpaqueTag = "NUMPY:"

// wRefType is H5T_STD_REF_OBJ.
func wRefType() []byte { return wTypeHeader(wClassRef, 1, 0, 8) }

// wVlenSeqType encodes a variable-length sequence of base.
func wVlenSeqType(base []byte) []byte {
	return append(wTypeHeader(wClassVlen, 1, 0, 16), base...)
}

// wBoolType is h5py's bool: an enum of int8 with FALSE=0, TRUE=1.
func wBoolType() []byte {
	b := wTypeHeader(wClassEnum, 1, 2, 1)
	b = append(b, wIntType(1, true, false)...)
	for _, n := range []string{"FALSE", "TRUE"} {
		name := make([]byte, wPad8(len(n)+1))
		copy(name, n)
		b = append(b, name...)
	}
	return append(b, 0, 1)
}

type wMember struct {
	name   string
	offset int
	dims   []int // array member dimensions, nil for a scalar member
	typ    []byte
}

// wCompoundType encodes a compound of the given size: version 1 when no
// member is an array, else version 2 with array-class members.
func wCompoundType(size int, members []wMember) []byte {
	version := 1
	for _, m := range members {
		if len(m.dims) > 0 {
			version = 2
		}
	}
	b := wTypeHeader(wClassCompound, version, uint32(len(members)), uint32(size))
	for _, m := range members {
		name := make([]byte, wPad8(len(m.name)+1))
		copy(name, m.name)
		b = append(b, name...)
		off := make([]byte, 4)
		binary.LittleEndian.PutUint32(off, uint32(m.offset))
		b = append(b, off...)
		if version == 1 {
			// dimensionality 0, reserved, permutation, reserved, 4 dim sizes
			b = append(b, make([]byte, 28)...)
			b = append(b, m.typ...)
			continue
		}
		if len(m.dims) == 0 {
			b = append(b, m.typ...)
			continue
		}
		// An array datatype, version 2: rank, reserved, dims, permutation.
		n := 1
		for _, d := range m.dims {
			n *= d
		}
		esz := int(binary.LittleEndian.Uint32(m.typ[4:]))
		a := wTypeHeader(wClassArray, 2, 0, uint32(n*esz))
		a = append(a, byte(len(m.dims)), 0, 0, 0)
		for _, d := range m.dims {
			a = binary.LittleEndian.AppendUint32(a, uint32(d))
		}
		for i := range m.dims {
			a = binary.LittleEndian.AppendUint32(a, uint32(i))
		}
		b = append(b, a...)
		b = append(b, m.typ...)
	}
	return b
}

// wEncodeDType encodes a numpy dtype as an HDF5 datatype message.
func wEncodeDType(dt *npyio.DType) ([]byte, error) {
	if dt == nil {
		return nil, fmt.Errorf("no dtype")
	}
	big := dt.Order == npyio.BigEndian
	switch dt.Kind {
	case npyio.Bool:
		if dt.Size != 1 {
			return nil, fmt.Errorf("bool of %d bytes", dt.Size)
		}
		return wBoolType(), nil
	case npyio.Int, npyio.Uint:
		switch dt.Size {
		case 1, 2, 4, 8:
			return wIntType(dt.Size, dt.Kind == npyio.Int, big), nil
		}
	case npyio.Float:
		switch dt.Size {
		case 2, 4, 8:
			return wFloatType(dt.Size, big), nil
		}
	case npyio.Complex:
		switch dt.Size {
		case 8, 16:
			f := wFloatType(dt.Size/2, big)
			return wCompoundType(dt.Size, []wMember{
				{name: "r", offset: 0, typ: f},
				{name: "i", offset: dt.Size / 2, typ: f},
			}), nil
		}
	case npyio.Unicode:
		// Only the stored form newStrConv makes (Order '|', Size in
		// bytes): numpy's UCS-4 bytes are converted, never written.
		if dt.Order == npyio.NotApplicable && dt.Size >= 1 {
			return wStringType(dt.Size, 1, 1), nil
		}
	case npyio.Object:
		if dt.Order == npyio.NotApplicable && dt.Size == 16 {
			// newStrConv's variable-length UTF-8 string, as h5py's
			// string_dtype('utf-8').
			return append(wTypeHeader(wClassVlen, 1, 1|1<<8, 16), wStringType(1, 0, 1)...), nil
		}
	case npyio.Datetime, npyio.Timedelta:
		// h5py's opaque_dtype: the bytes as numpy has them, tagged with
		// the dtype (its byte order included).
		if dt.Size == 8 {
			return wOpaqueType(8, NumpyOpaqueTag+dt.TypeStr()), nil
		}
	case npyio.Bytes:
		if dt.Size < 1 {
			return nil, fmt.Errorf("HDF5 has no zero-length strings (dtype S0)")
		}
		return wStringType(dt.Size, 1, 0), nil
	case npyio.Struct:
		if len(dt.Fields) == 0 {
			return nil, fmt.Errorf("HDF5 has no empty compound (a struct dtype without fields)")
		}
		if len(dt.Fields) > 0xffff {
			return nil, fmt.Errorf("a struct of %d fields (HDF5 allows %d)", len(dt.Fields), 0xffff)
		}
		ms := make([]wMember, len(dt.Fields))
		for i, f := range dt.Fields {
			t, err := wEncodeDType(f.Type)
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", f.Name, err)
			}
			if f.Name == "" {
				return nil, fmt.Errorf("field %d has no name", i)
			}
			ms[i] = wMember{name: f.Name, offset: f.Offset, dims: f.Shape, typ: t}
			if f.Offset < 0 || f.Offset+f.Size() > dt.Size {
				return nil, fmt.Errorf("field %q lies outside the %d-byte record", f.Name, dt.Size)
			}
		}
		return wCompoundType(dt.Size, ms), nil
	}
	return nil, fmt.Errorf("dtype %s has no HDF5 form this writer makes (numeric, bool, complex, S<n>, datetime64, timedelta64 and structs are written)", dt)
}
