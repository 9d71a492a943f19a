package pipeline

import "testing"

// TestEscapePattern: convert's input name becomes a pattern matching only
// that name; a URL keeps its query (bucket parameters) unescaped.
func TestEscapePattern(t *testing.T) {
	for _, tc := range []struct{ in, path, query string }{
		{"/d/x[1]*{a}?.npy", "/d/x[1]*{a}?.npy", ""},
		{`/d/back\slash.npy`, `/d/back\slash.npy`, ""},
		{"s3://b/x[1]*.parquet?endpoint=http%3A%2F%2Fh%3A9&region=r", "s3://b/x[1]*.parquet", "?endpoint=http%3A%2F%2Fh%3A9&region=r"},
		{"s3://b/what?.parquet?region=r", "s3://b/what?.parquet", "?region=r"},
	} {
		pt, _, err := compilePattern(escapePattern(tc.in), true)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if !pt.literal || pt.query != tc.query {
			t.Errorf("%s: literal %v, query %q, want a literal with query %q", tc.in, pt.literal, pt.query, tc.query)
		}
		if _, ok := pt.match(tc.path); !ok {
			t.Errorf("%s: does not match %s", tc.in, tc.path)
		}
		if _, ok := pt.match(tc.path + "x"); ok {
			t.Errorf("%s: matches %sx", tc.in, tc.path)
		}
	}
}
