package parquetio

import (
	"os"
	"strings"
	"testing"
)

// TestColumnNames: the top-level names of foreign files, whatever numpy
// makes of their columns (a MAP, lists), and a clear error on a file that
// is not Parquet.
func TestColumnNames(t *testing.T) {
	for file, want := range map[string]string{
		"testdata/foreign/duck_map.parquet":         "k,m",
		"testdata/foreign/duck_list_nulls.parquet":  "k,l3,l2f,a2",
		"testdata/foreign/pqa_nested_nulls.parquet": "k,st,fsl,l2",
	} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		names, err := ColumnNames(strings.NewReader(string(b)), int64(len(b)))
		if err != nil || strings.Join(names, ",") != want {
			t.Errorf("%s: %v %v, want %s", file, names, err, want)
		}
	}
	bad := strings.Repeat("x", 100)
	if _, err := ColumnNames(strings.NewReader(bad), int64(len(bad))); err == nil {
		t.Error("no error for a file that is not Parquet")
	}
}
