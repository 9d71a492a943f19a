//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// The mutation test's Zarr stores: a corpus entry inside a .zarr
// directory names the one file of the store that is damaged (array
// metadata, a chunk, a shard). Each mutant runs on a small store made of
// the metadata files of the root and of each group down to the array,
// the array's own files, and the damaged file: `convert --array PATH`
// reads that array, inspect the store. A damaged v2 array's .zarray is
// read as it is (the copy leaves the root's .zmetadata out, unless that
// is the file damaged).

// zarrTarget is a store file to damage and the store around it.
type zarrTarget struct {
	root  string            // the store's directory
	key   string            // the damaged file, relative to root
	array string            // the array the file belongs to ("" for root metadata)
	files map[string][]byte // the small store's other files, by key
}

// mutationStore finds the store and array of a corpus entry under root
// (a path with ".zarr/" in it) and reads the files of its small store.
func mutationStore(repo, name string) (*zarrTarget, error) {
	i := strings.Index(name, ".zarr/") + len(".zarr")
	t := &zarrTarget{root: filepath.Join(repo, name[:i]), key: name[i+1:], files: map[string][]byte{}}
	// The array: the nearest directory above the file with array
	// metadata; the root's metadata files damage the group (the first
	// array is read then).
	dir := filepath.Dir(t.key)
	for ; dir != "."; dir = filepath.Dir(dir) {
		if isFile(filepath.Join(t.root, dir, "zarr.json")) || isFile(filepath.Join(t.root, dir, ".zarray")) {
			break
		}
	}
	if dir == "." {
		dir = ""
		// A root metadata file: the store keeps one array, the first
		// of the group's that every reader knows.
		for _, a := range []string{"i4_delta", "float64_be_t"} {
			if isFile(filepath.Join(t.root, a, "zarr.json")) || isFile(filepath.Join(t.root, a, ".zarray")) {
				dir = a
			}
		}
	}
	t.array = filepath.ToSlash(dir)
	// Metadata files of the root and each group down to the array.
	add := func(key string) error {
		b, err := os.ReadFile(filepath.Join(t.root, key))
		if err != nil {
			return err
		}
		t.files[filepath.ToSlash(key)] = b
		return nil
	}
	parts := strings.Split(t.array, "/")
	for k := 0; k < len(parts); k++ {
		g := strings.Join(parts[:k], "/")
		for _, m := range []string{"zarr.json", ".zgroup", ".zattrs"} {
			if isFile(filepath.Join(t.root, g, m)) {
				if err := add(filepath.Join(g, m)); err != nil {
					return nil, err
				}
			}
		}
	}
	if t.key == ".zmetadata" {
		if err := add(".zmetadata"); err != nil {
			return nil, err
		}
	}
	err := filepath.WalkDir(filepath.Join(t.root, t.array), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(t.root, p)
		return add(rel)
	})
	return t, err
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// write writes the small store at dir, its damaged file as data.
func (t *zarrTarget) write(dir string, data []byte) error {
	for k, b := range t.files {
		if k == t.key {
			b = data
		}
		p := filepath.Join(dir, filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// zarrRegions are the parts of a Zarr store file worth aiming at: a
// shard's index (at its end or start, by the array's metadata), a
// chunk's header (blosc's 16 bytes, a compressor's frame header).
func zarrRegions(name string, b []byte) []region {
	n := len(b)
	base := filepath.Base(name)
	if base == "zarr.json" || base == ".zarray" || base == ".zmetadata" {
		return nil // JSON: the head, tail and anywhere regions
	}
	rs := []region{{"chunk header", 0, min(n, 16)}}
	// A v3 shard: the array's zarr.json says where its index is and
	// how many inner chunks it has.
	dir := filepath.Dir(name)
	for ; strings.Contains(dir, ".zarr/"); dir = filepath.Dir(dir) {
		if isFile(filepath.Join(dir, "zarr.json")) {
			break
		}
	}
	jb, err := os.ReadFile(filepath.Join(dir, "zarr.json"))
	if err != nil {
		return rs
	}
	var meta struct {
		Grid struct {
			Config struct {
				Shape []int `json:"chunk_shape"`
			} `json:"configuration"`
		} `json:"chunk_grid"`
		Codecs []struct {
			Name   string `json:"name"`
			Config struct {
				Shape    []int             `json:"chunk_shape"`
				Location string            `json:"index_location"`
				Index    []json.RawMessage `json:"index_codecs"`
			} `json:"configuration"`
		} `json:"codecs"`
	}
	if json.Unmarshal(jb, &meta) != nil {
		return rs
	}
	for _, c := range meta.Codecs {
		if c.Name != "sharding_indexed" || len(c.Config.Shape) != len(meta.Grid.Config.Shape) {
			continue
		}
		inner := 1
		for i, s := range meta.Grid.Config.Shape {
			inner *= max(1, s/max(1, c.Config.Shape[i]))
		}
		size := 16 * inner
		for _, ic := range c.Config.Index {
			if strings.Contains(string(ic), "crc32c") {
				size += 4
			}
		}
		if c.Config.Location == "start" {
			rs = append(rs, region{"shard index (start)", 0, min(n, size)})
		} else {
			rs = append(rs, region{"shard index (end)", max(0, n-size), n})
		}
	}
	return rs
}
