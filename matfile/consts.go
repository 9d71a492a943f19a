package matfile

import "strconv"

// DataType is a Level 5 data element type (the "mi" types of a tag).
type DataType uint32

// Level 5 data element types.
const (
	MiINT8       DataType = 1
	MiUINT8      DataType = 2
	MiINT16      DataType = 3
	MiUINT16     DataType = 4
	MiINT32      DataType = 5
	MiUINT32     DataType = 6
	MiSINGLE     DataType = 7
	MiDOUBLE     DataType = 9
	MiINT64      DataType = 12
	MiUINT64     DataType = 13
	MiMATRIX     DataType = 14
	MiCOMPRESSED DataType = 15
	MiUTF8       DataType = 16
	MiUTF16      DataType = 17
	MiUTF32      DataType = 18
)

var dataTypeNames = map[DataType]string{
	MiINT8: "miINT8", MiUINT8: "miUINT8", MiINT16: "miINT16", MiUINT16: "miUINT16",
	MiINT32: "miINT32", MiUINT32: "miUINT32", MiSINGLE: "miSINGLE", MiDOUBLE: "miDOUBLE",
	MiINT64: "miINT64", MiUINT64: "miUINT64", MiMATRIX: "miMATRIX",
	MiCOMPRESSED: "miCOMPRESSED", MiUTF8: "miUTF8", MiUTF16: "miUTF16", MiUTF32: "miUTF32",
}

func (t DataType) String() string {
	if s, ok := dataTypeNames[t]; ok {
		return s
	}
	return "mi(" + strconv.FormatUint(uint64(t), 10) + ")"
}

// ElemSize is the size in bytes of one element of a numeric or character
// data type, 0 for miMATRIX, miCOMPRESSED and unknown types.
func (t DataType) ElemSize() int {
	switch t {
	case MiINT8, MiUINT8, MiUTF8:
		return 1
	case MiINT16, MiUINT16, MiUTF16:
		return 2
	case MiINT32, MiUINT32, MiSINGLE, MiUTF32:
		return 4
	case MiDOUBLE, MiINT64, MiUINT64:
		return 8
	}
	return 0
}

// Class is a MATLAB array class (the mx class code of Level 5 array flags).
type Class uint8

// MATLAB array classes with their Level 5 codes.
const (
	ClassUnknown  Class = 0
	ClassCell     Class = 1
	ClassStruct   Class = 2
	ClassObject   Class = 3
	ClassChar     Class = 4
	ClassSparse   Class = 5
	ClassDouble   Class = 6
	ClassSingle   Class = 7
	ClassInt8     Class = 8
	ClassUint8    Class = 9
	ClassInt16    Class = 10
	ClassUint16   Class = 11
	ClassInt32    Class = 12
	ClassUint32   Class = 13
	ClassInt64    Class = 14
	ClassUint64   Class = 15
	ClassFunction Class = 16 // function handle
	ClassOpaque   Class = 17 // MCOS objects (string, table, datetime, classdef)
	// ClassLogical is not a Level 5 class code (a logical array is a uint8
	// array with the logical flag); it names MATLAB's logical class.
	ClassLogical Class = 0xF0
)

// Class names as MATLAB (and the v7.3 MATLAB_class attribute) spell them.
const (
	NameDouble   = "double"
	NameSingle   = "single"
	NameInt8     = "int8"
	NameUint8    = "uint8"
	NameInt16    = "int16"
	NameUint16   = "uint16"
	NameInt32    = "int32"
	NameUint32   = "uint32"
	NameInt64    = "int64"
	NameUint64   = "uint64"
	NameChar     = "char"
	NameLogical  = "logical"
	NameCell     = "cell"
	NameStruct   = "struct"
	NameFunction = "function_handle"
	NameObject   = "object"
	NameSparse   = "sparse"
	NameOpaque   = "opaque"
	// NameCanonicalEmpty is the MATLAB_class of #refs#/a in v7.3 files.
	NameCanonicalEmpty = "canonical empty"
)

var classNames = map[Class]string{
	ClassCell: NameCell, ClassStruct: NameStruct, ClassObject: NameObject,
	ClassChar: NameChar, ClassSparse: NameSparse, ClassDouble: NameDouble,
	ClassSingle: NameSingle, ClassInt8: NameInt8, ClassUint8: NameUint8,
	ClassInt16: NameInt16, ClassUint16: NameUint16, ClassInt32: NameInt32,
	ClassUint32: NameUint32, ClassInt64: NameInt64, ClassUint64: NameUint64,
	ClassFunction: NameFunction, ClassOpaque: NameOpaque, ClassLogical: NameLogical,
}

// String returns MATLAB's name of the class ("double", "cell" ...).
func (c Class) String() string {
	if s, ok := classNames[c]; ok {
		return s
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// ClassByName returns the class of a MATLAB class name, false if the name
// is not one of the classes above.
func ClassByName(name string) (Class, bool) {
	for c, s := range classNames {
		if s == name {
			return c, true
		}
	}
	return ClassUnknown, false
}

// IsNumeric reports whether c is one of the ten numeric classes.
func (c Class) IsNumeric() bool { return c >= ClassDouble && c <= ClassUint64 }

// Level 5 array flags (the first uint32 of the array flags subelement).
const (
	FlagComplex uint32 = 0x0800
	FlagGlobal  uint32 = 0x0400
	FlagLogical uint32 = 0x0200
	flagClass   uint32 = 0x00FF
)

// Level 5 file header layout.
const (
	HeaderSize     = 128
	HeaderTextSize = 116
	Level5Version  = 0x0100
	// V73Version is the version field of a v7.3 file's 128-byte header.
	V73Version = 0x0200
	// V73UserBlock is the HDF5 user block size MATLAB writes for v7.3.
	V73UserBlock = 512
)

// v7.3 (HDF5) attribute and group names used by MATLAB and hdf5storage.
const (
	AttrClass     = "MATLAB_class"
	AttrIntDecode = "MATLAB_int_decode"
	AttrEmpty     = "MATLAB_empty"
	AttrFields    = "MATLAB_fields"
	AttrSparse    = "MATLAB_sparse"
	AttrGlobal    = "MATLAB_global"
	RefsGroup     = "#refs#"
	SubsystemName = "#subsystem#"
)

// MaxNameLen is the longest MATLAB identifier (namelengthmax).
const MaxNameLen = 63
