package matfile

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestObjectSkipped(t *testing.T) {
	exp := loadExpected(t, "scipy_object_v7.json")
	vars, arrs, f := readAll(t, "scipy_object_v7.mat", nil)
	checkAgainst(t, "scipy_object_v7", exp, vars, arrs)
	w := f.Warnings()
	if len(w) != 2 || w[0].Path != "obj" || w[0].Class != "myclass" || w[1].Path != "c{1}" || w[1].Class != "myclass" {
		t.Errorf("warnings %v", w)
	}
	_, err := OpenFile(filepath.Join("testdata", "scipy_object_v7.mat"), &Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	fs, _ := OpenFile(filepath.Join("testdata", "scipy_object_v7.mat"), &Options{Strict: true})
	defer fs.Close()
	err = fs.Walk(func(string, *Var) error { return nil })
	var ue *UnsupportedError
	if !errors.As(err, &ue) || ue.Path != "obj" || ue.Class != "myclass" {
		t.Errorf("strict: %v", err)
	}
}

// TestFunctionAndOpaqueSkipped: a function handle (class 16) and an
// opaque MCOS object (class 17: name, "MCOS", class name, data) as MATLAB
// writes them, skipped with a warning naming the class; the other
// variables are read.
func TestFunctionAndOpaqueSkipped(t *testing.T) {
	fh := matrix(ClassFunction, 0, []int32{1, 1}, "fh", el(MiMATRIX, nil))
	var op []byte
	op = append(op, flagsEl(ClassOpaque, 0, 0)...)
	op = append(op, el(MiINT8, []byte("str"))...)
	op = append(op, el(MiINT8, []byte("MCOS"))...)
	op = append(op, el(MiINT8, []byte("string"))...)
	op = append(op, matrix(ClassUint32, 0, []int32{6, 1}, "", el(MiUINT32, make([]byte, 24)))...)
	x := matrix(ClassDouble, 0, []int32{1, 2}, "x", el(MiDOUBLE, f64s(1, 2)))
	b := matFile(fh, el(MiMATRIX, op), compressed(x))
	vars, f, err := walkBytes(t, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(vars) != 1 || vars["x"] == nil {
		t.Fatalf("vars %v", vars)
	}
	w := f.Warnings()
	if len(w) != 2 || w[0].Path != "fh" || w[0].Class != NameFunction || w[1].Path != "str" || w[1].Class != "string" {
		t.Errorf("warnings %v", w)
	}
	info, err := f.Variables()
	if err != nil {
		t.Fatal(err)
	}
	if len(info) != 3 || info[1].Class != "string" || info[2].Compression != "zlib" || info[2].Bytes != 16 {
		t.Errorf("info %+v", info)
	}
	_, _, err = walkBytes(t, b, &Options{Strict: true})
	var ue *UnsupportedError
	if !errors.As(err, &ue) || ue.Class != NameFunction {
		t.Errorf("strict: %v", err)
	}
}

// TestComplexIntegerSkipped: MATLAB allows complex integer arrays; numpy
// has no complex integer type, so they are skipped with a warning.
func TestComplexIntegerSkipped(t *testing.T) {
	zi := matrix(ClassInt16, FlagComplex, []int32{1, 2}, "zi", el(MiINT16, []byte{1, 0, 2, 0}), el(MiINT16, []byte{3, 0, 4, 0}))
	x := matrix(ClassDouble, 0, []int32{1, 1}, "x", el(MiDOUBLE, f64s(5)))
	vars, f, err := walkBytes(t, matFile(zi, x), nil)
	if err != nil {
		t.Fatal(err)
	}
	w := f.Warnings()
	if len(vars) != 1 || vars["x"] == nil || len(w) != 1 || w[0].Path != "zi" || w[0].Class != "complex int16" {
		t.Errorf("vars %d, warnings %v", len(vars), w)
	}
}
