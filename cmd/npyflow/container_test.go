package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/matfile"
	"github.com/npyflow/npyflow/npyio"
)

// TestConvertContainers runs the hdf5 and mat conversions through the
// command: flags from the registry, warnings on stderr, errors naming
// the file.
func TestConvertContainers(t *testing.T) {
	dir := t.TempDir()
	h5 := filepath.Join("..", "..", "hdf5", "testdata", "small_earliest.h5")
	mat := filepath.Join("..", "..", "matfile", "testdata", "h5py_matlab_v73.mat")

	out := filepath.Join(dir, "d.npz")
	if code, msg := runCLI(t, "convert", "--dataset", "/d", h5, out); code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	z, err := npyio.OpenNPZ(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(z.Keys(), ",") != "d" {
		t.Errorf("members %v, want d", z.Keys())
	}

	// Every dataset, with a warning for the reference one.
	code, msg := runCLI(t, "convert", h5, filepath.Join(dir, "all.npz"))
	if code != 0 || !strings.Contains(msg, "warning: "+h5+": dataset /g/r skipped") {
		t.Errorf("exit %d: %q, want a warning about /g/r", code, msg)
	}

	// A function handle: a warning, or with --strict an error.
	code, msg = runCLI(t, "convert", mat, filepath.Join(dir, "m.npz"))
	if code != 0 || !strings.Contains(msg, "function_handle") {
		t.Errorf("exit %d: %q, want a function_handle warning", code, msg)
	}
	strictOut := filepath.Join(dir, "strict.npz")
	code, msg = runCLI(t, "convert", "--strict", mat, strictOut)
	if code != 1 || !strings.Contains(msg, mat) || !strings.Contains(msg, "no numpy form") {
		t.Errorf("--strict: exit %d: %q", code, msg)
	}
	if _, err := os.Stat(strictOut); err == nil {
		t.Errorf("--strict left %s", strictOut)
	}

	// npz -> mat v7 with an invalid name renamed.
	src := filepath.Join(dir, "src.npz")
	f, _ := os.Create(src)
	a := &npyio.Array{Header: &npyio.Header{DType: npyio.Int32Type, Shape: []int{2, 2}}, DType: npyio.Int32Type, Data: []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0}}
	npyio.SaveNPZ(f, false, nil, npyio.NamedArray{Key: "my-var", Array: a})
	f.Close()
	m7 := filepath.Join(dir, "out.mat")
	code, msg = runCLI(t, "convert", "--mat-version", "7", src, m7)
	if code != 1 || !strings.Contains(msg, `"my-var"`) {
		t.Errorf("invalid name: exit %d: %q", code, msg)
	}
	code, msg = runCLI(t, "convert", "--mat-version", "7", "--rename-invalid", src, m7)
	if code != 0 || !strings.Contains(msg, `renamed "my-var" to "my_var"`) {
		t.Fatalf("exit %d: %q", code, msg)
	}
	mf, err := matfile.OpenFile(m7, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer mf.Close()
	vars, _ := mf.Variables()
	if mf.SaveFormat() != "-v7" || len(vars) != 1 || vars[0].Name != "my_var" || vars[0].Class != "int32" {
		t.Errorf("%s %+v", mf.SaveFormat(), vars)
	}

	code, msg = runCLI(t, "convert", "--mat-version", "8", src, m7)
	if code != 2 || !strings.Contains(msg, "--mat-version") {
		t.Errorf("--mat-version 8: exit %d: %q", code, msg)
	}
}

// TestInspectContainers prints HDF5 and MAT-file structure.
func TestInspectContainers(t *testing.T) {
	code, out := runCLI(t, "inspect", filepath.Join("..", "..", "hdf5", "testdata", "small_earliest.h5"))
	for _, want := range []string{"(HDF5, superblock v0", "/d  dataset '<f8' shape (10, 3), chunked", "/g  group", "    @a0: "} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
	code, out = runCLI(t, "inspect", filepath.Join("..", "..", "matfile", "testdata", "scipy_v7.mat"))
	for _, want := range []string{"MAT-file version 5, save -v7", "  d                2x3      double, 48 bytes", "zlib"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
	code, out = runCLI(t, "inspect", "--json", filepath.Join("..", "..", "matfile", "testdata", "h5s_v73.mat"))
	if code != 0 || !strings.Contains(out, `"save_format": "-v7.3"`) || !strings.Contains(out, `"compression": "deflate"`) {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestConvertHelpContainers: the new options appear in convert -h.
func TestConvertHelpContainers(t *testing.T) {
	_, out := runCLI(t, "convert", "-h")
	for _, want := range []string{"-mat-version", "-rename-invalid", "-strict", "-dataset", "-variable"} {
		if !strings.Contains(out, want) {
			t.Errorf("convert -h lacks %s", want)
		}
	}
}
