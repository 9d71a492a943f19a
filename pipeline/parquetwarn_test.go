package pipeline

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/pipeline/inspect"
)

// TestParquetReaderWarnings: what the Parquet reader reads otherwise
// than the file says (parquet-testing's files, parquetio/testdata/foreign)
// is a warning of convert, once per file, and of inspect.
func TestParquetReaderWarnings(t *testing.T) {
	dir := filepath.Join("..", "parquetio", "testdata", "foreign")
	for _, c := range []struct {
		file, columns, want string
	}{
		{"pt_unknown_logical_type.parquet", "", "column column with unknown type: an unknown logical type (union member 2555) ignored"},
		{"pt_repeated_no_annotation.parquet", "id", "the footer says 0 rows, its row groups hold 6"},
	} {
		t.Run(c.file, func(t *testing.T) {
			in := filepath.Join(dir, c.file)
			var warns []string
			o := &ConvertOptions{Warn: func(m string) { warns = append(warns, m) }}
			if c.columns != "" {
				o.Flags = map[string]string{"columns": c.columns}
			}
			if _, err := Convert(context.Background(), in, filepath.Join(t.TempDir(), "o.npy"), o); err != nil {
				t.Fatal(err)
			}
			if len(warns) != 1 || !strings.HasPrefix(warns[0], in+": ") || !strings.Contains(warns[0], c.want) {
				t.Errorf("convert warnings %q, want one naming the file with %q", warns, c.want)
			}
			ins, err := Inspect(context.Background(), in, &ConvertOptions{Flags: o.Flags})
			if err != nil {
				t.Fatal(err)
			}
			if w := ins.(*inspect.TableInfo).Warnings; len(w) != 1 || !strings.Contains(w[0], c.want) {
				t.Errorf("inspect warnings %q, want %q", w, c.want)
			}
		})
	}
}
