package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/internal/storage/storagetest"
	"github.com/npyflow/npyflow/npyio"
)

// globPaths is what pattern p matches, as paths relative to base (a
// directory, or a URL prefix with its trailing "/").
func globPaths(t *testing.T, base, p string) []string {
	t.Helper()
	pt, _, err := compilePattern(p, true)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := pt.glob(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	var out []string
	for _, m := range ms {
		rel := strings.TrimPrefix(filepath.ToSlash(m.Path), filepath.ToSlash(base))
		if c := m.Caps["name"]; c != "" {
			rel += " name=" + c
		}
		out = append(out, rel)
	}
	return out
}

// TestGlobStores: a pattern matches the directories of a Dir format
// (Zarr stores: a .zarr holding zarr.json, .zgroup or .zarray) as one
// input each, with captures, next to files; not a .zarr without any of
// them, a hidden one, or a store's own files and nested groups; locally,
// through a symlink, and on a bucket.
func TestGlobStores(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"data/v3.zarr/zarr.json":            `{"zarr_format":3,"node_type":"group"}`,
		"data/v3.zarr/inner.zarr/zarr.json": `{"zarr_format":3,"node_type":"group"}`,
		"data/v2.zarr/.zgroup":              `{"zarr_format":2}`,
		"data/v2.zarr/x/.zarray":            `{}`,
		"data/arr.zarr/.zarray":             `{}`,
		"data/empty.zarr/readme.txt":        "not a store",
		"data/.hidden.zarr/zarr.json":       `{}`,
		"data/plain/zarr.json":              `{}`,
		"data/a.npy":                        "x",
		"data/sub/deep.zarr/.zgroup":        `{}`,
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "data", "v2.zarr"), filepath.Join(dir, "data", "link.zarr")); err != nil {
		t.Fatal(err)
	}
	base := filepath.ToSlash(dir) + "/"
	tests := []struct {
		pattern string
		want    []string
	}{
		{"data/*.zarr", []string{"data/arr.zarr", "data/link.zarr", "data/v2.zarr", "data/v3.zarr"}},
		{"data/v?.zarr", []string{"data/v2.zarr", "data/v3.zarr"}},
		{"data/{name}.zarr", []string{"data/arr.zarr name=arr", "data/link.zarr name=link", "data/v2.zarr name=v2", "data/v3.zarr name=v3"}},
		{"data/*", []string{"data/a.npy", "data/arr.zarr", "data/link.zarr", "data/v2.zarr", "data/v3.zarr"}},
		{"data/**/*.zarr", []string{"data/arr.zarr", "data/link.zarr", "data/sub/deep.zarr", "data/v2.zarr", "data/v3.zarr"}},
		{"data/*/*.zarr", []string{"data/sub/deep.zarr"}},
		{"data/*.npy", []string{"data/a.npy"}},
	}
	for _, tc := range tests {
		t.Run("local "+tc.pattern, func(t *testing.T) {
			if got := globPaths(t, base, base+tc.pattern); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}

	mem := storagetest.NewMem("globstore")
	defer mem.Reset()
	ctx := context.Background()
	for name, text := range files {
		if err := storage.WriteFile(ctx, "globstore://b/"+name, []byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range tests {
		want := slices.DeleteFunc(slices.Clone(tc.want), func(s string) bool { return strings.HasPrefix(s, "data/link.zarr") })
		t.Run("bucket "+tc.pattern, func(t *testing.T) {
			if got := globPaths(t, "globstore://b/", "globstore://b/"+tc.pattern); !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
	t.Run("bucket query", func(t *testing.T) {
		got := globPaths(t, "globstore://b/", "globstore://b/data/v?.zarr?region=x")
		want := []string{"data/v2.zarr?region=x", "data/v3.zarr?region=x"}
		if !slices.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

// TestJobPathsZarrPattern: a job source's paths: "data/*.zarr" reads
// every store it matches, as the literal paths would.
func TestJobPathsZarrPattern(t *testing.T) {
	dir := t.TempDir()
	want := map[string][]byte{
		"a": writeZarrRows(t, filepath.Join(dir, "data", "a.zarr"), 20, 8, 0),
		"b": writeZarrRows(t, filepath.Join(dir, "data", "b.zarr"), 12, 4, 8),
	}
	jb := `version: 1
sources:
  z:
    type: zarr
    paths: "data/*.zarr"
sinks:
  out:
    type: npy
    input: z
    path: out/{stem}-{index}.npy
`
	if _, err := runDataset(t, dir, jb, nil); err != nil {
		t.Fatal(err)
	}
	outs, err := filepath.Glob(filepath.Join(dir, "out", "*.npy"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	for _, o := range outs {
		a, err := npyio.ReadFile(o, nil)
		if err != nil {
			t.Fatal(err)
		}
		stem, _, _ := strings.Cut(filepath.Base(o), "-")
		got[stem] = append(got[stem], a.Data...)
	}
	if len(got) != len(want) {
		t.Fatalf("outputs %q, want one per store of %d", outs, len(want))
	}
	for stem, w := range want {
		if !bytes.Equal(got[stem], w) {
			t.Errorf("%s.zarr: %d bytes read, differ from the %d written", stem, len(got[stem]), len(w))
		}
	}
}
