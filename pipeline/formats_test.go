package pipeline

import (
	"reflect"
	"sort"
	"testing"
)

// TestConvertFlagsDeclaredOnce: every flag generated from the option
// declarations sets a ConvertOptions field and every ConvertOptions field
// is a declared flag, so no option exists in one place only.
func TestConvertFlagsDeclaredOnce(t *testing.T) {
	var flags []string
	for _, f := range ConvertFlags() {
		flags = append(flags, f.Name)
		if len(f.Options) == 0 || f.Doc == "" {
			t.Errorf("--%s: no job option or doc behind it: %+v", f.Name, f)
		}
	}
	var tags []string
	rt := reflect.TypeOf(ConvertOptions{})
	for i := 0; i < rt.NumField(); i++ {
		if tag := rt.Field(i).Tag.Get("flag"); tag != "-" {
			tags = append(tags, tag)
		}
	}
	sort.Strings(tags)
	if !reflect.DeepEqual(flags, tags) {
		t.Fatalf("flags %v, ConvertOptions fields %v", flags, tags)
	}
	var o ConvertOptions
	for _, set := range [][2]string{{"compression", "lz4"}, {"row-group-rows", "10"}, {"dictionary", "a, b"}, {"sync", "true"}, {"member", "x"}} {
		if err := o.Set(set[0], set[1]); err != nil {
			t.Fatal(err)
		}
	}
	want := ConvertOptions{Compression: "lz4", RowGroupRows: 10, Dictionary: []string{"a", "b"}, Sync: true, Member: "x"}
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
