package matfile

import (
	"reflect"
	"strings"
	"testing"
)

// TestOtherTypeSystemsV73: objects of the java and handle (COM) type
// systems in a v7.3 file (MATLAB_object_decode 3 without an MCOS
// reference; gen_type_systems_v73.py) are described with MATLAB's size,
// 1x1, and their class, not as damaged variables, and are skipped with a
// warning when read, as in a Level 5 file; the file's other variables read.
func TestOtherTypeSystemsV73(t *testing.T) {
	var warns []Warning
	f, err := OpenFile("testdata/objects/type_systems_v73_synth.mat", &Options{Warn: func(w Warning) { warns = append(warns, w) }})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vars, err := f.Variables()
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]string{"javatype": "java.lang.String", "handletype": "COM.Excel_Application", "x": "double"}
	if len(vars) != len(classes) {
		t.Fatalf("%d variables, want %d", len(vars), len(classes))
	}
	for _, v := range vars {
		dims := []int{1, 1}
		if v.Name == "x" {
			dims = []int{1, 3}
		}
		if v.Class != classes[v.Name] || !reflect.DeepEqual(v.Dims, dims) || v.Err != nil {
			t.Errorf("%s: %s %v (%v), want %s %v", v.Name, v.Class, v.Dims, v.Err, classes[v.Name], dims)
		}
	}
	if len(warns) != 0 {
		t.Errorf("describing warned: %v", warns)
	}
	var read []string
	err = f.WalkVariables(nil, func(path string, v *Var) error {
		read = append(read, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(read, []string{"x"}) {
		t.Errorf("read %v, want x", read)
	}
	if len(warns) != 2 {
		t.Fatalf("warnings %v, want 2", warns)
	}
	for _, w := range warns {
		if w.Class != classes[w.Path] || w.Err != nil || !strings.Contains(w.Msg, "no numpy form") {
			t.Errorf("warning %+v", w)
		}
	}
}
