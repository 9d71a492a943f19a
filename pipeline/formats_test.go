package pipeline

import (
	"fmt"
	"reflect"
	"testing"
)

// TestConvertFlagsDeclaredOnce: every flag generated from the option
// declarations has a job option and a doc behind it and is accepted by
// ConvertOptions.Set, which checks its value and refuses other names, so
// no option exists in one place only.
func TestConvertFlagsDeclaredOnce(t *testing.T) {
	for _, f := range ConvertFlags() {
		if len(f.Options) == 0 || f.Doc == "" {
			t.Errorf("--%s: no job option or doc behind it: %+v", f.Name, f)
		}
		var o ConvertOptions
		if err := o.Set(f.Name, fmt.Sprint(f.Default)); err != nil && f.Default != nil {
			t.Errorf("--%s %v: %v", f.Name, f.Default, err)
		}
	}
	var o ConvertOptions
	for _, set := range [][2]string{{"compression", "lz4"}, {"row-group-rows", "10"}, {"dictionary", "a,b"}, {"sync", "true"}, {"member", "x"}} {
		if err := o.Set(set[0], set[1]); err != nil {
			t.Fatal(err)
		}
	}
	want := ConvertOptions{Flags: map[string]string{"compression": "lz4", "row-group-rows": "10", "dictionary": "a,b", "member": "x"}, Sync: true}
	if !reflect.DeepEqual(o, want) {
		t.Errorf("Set gave %+v, want %+v", o, want)
	}
	if err := o.Set("page-size", "x"); err == nil {
		t.Error("page-size x accepted")
	}
	if err := o.Set("nope", "1"); err == nil {
		t.Error("unknown flag accepted")
	}
}

func TestFormatOf(t *testing.T) {
	for path, want := range map[string]string{"a.NPY": "npy", "b.npz": "npz", "c.pq": "parquet", "d.feather": "arrow", "e.ipc": "arrow", "f.csv": ""} {
		got := ""
		if f := FormatOf(path); f != nil {
			got = f.Name
			if f.Source == nil || f.Sink == nil {
				t.Errorf("%s: no source or sink spec", f.Name)
			}
		}
		if got != want {
			t.Errorf("FormatOf(%q) = %q, want %q", path, got, want)
		}
	}
}
