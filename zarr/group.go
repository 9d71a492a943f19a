package zarr

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"sort"
	"strings"
)

// Group is an open Zarr group: its attributes and the arrays under it.
type Group struct {
	Path   string
	Format int
	Attrs  map[string]json.RawMessage
	// Arrays are the paths (relative to the store root) of every array in
	// the hierarchy under the group, sorted.
	Arrays []string
	// Consolidated says the listing came from consolidated metadata
	// (.zmetadata in v2, consolidated_metadata in a v3 zarr.json).
	Consolidated bool

	store Store
	meta  map[string][]byte // consolidated documents by key
}

// OpenGroup opens the group at path in s and lists its arrays, from its
// consolidated metadata when it has some, else by listing the store.
func OpenGroup(ctx context.Context, s Store, path string) (*Group, error) {
	path = strings.Trim(path, "/")
	g := &Group{Path: path, store: s}
	bad := func(msg string) error { return &Error{Array: path, Msg: msg} }
	if b, err := get(ctx, s, join(path, "zarr.json"), maxMetadata); err == nil {
		var m struct {
			ZarrFormat   int                        `json:"zarr_format"`
			NodeType     string                     `json:"node_type"`
			Attributes   map[string]json.RawMessage `json:"attributes"`
			Consolidated *struct {
				Kind     string                     `json:"kind"`
				Metadata map[string]json.RawMessage `json:"metadata"`
			} `json:"consolidated_metadata"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, bad("zarr.json is not valid JSON: " + err.Error())
		}
		if m.ZarrFormat != 3 || m.NodeType != "group" {
			return nil, bad("zarr.json is not a v3 group")
		}
		g.Format, g.Attrs = 3, m.Attributes
		if m.Consolidated != nil && m.Consolidated.Metadata != nil {
			g.Consolidated = true
			g.meta = map[string][]byte{}
			for k, v := range m.Consolidated.Metadata {
				var node struct {
					NodeType string `json:"node_type"`
				}
				json.Unmarshal(v, &node)
				full := join(path, k)
				g.meta[join(full, "zarr.json")] = v
				if node.NodeType == "array" {
					g.Arrays = append(g.Arrays, full)
				}
			}
			sort.Strings(g.Arrays)
			return g, nil
		}
		return g, g.list(ctx, "zarr.json")
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, bad(err.Error())
	}
	if _, err := s.Size(ctx, join(path, ".zgroup")); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, bad("no zarr.json or .zgroup: not a Zarr group")
		}
		return nil, bad(err.Error())
	}
	g.Format = 2
	if ab, err := get(ctx, s, join(path, ".zattrs"), maxMetadata); err == nil {
		if err := json.Unmarshal(ab, &g.Attrs); err != nil {
			return nil, bad(".zattrs is not a JSON object")
		}
	}
	if zb, err := get(ctx, s, join(path, ".zmetadata"), maxMetadata); err == nil {
		var m struct {
			Metadata map[string]json.RawMessage `json:"metadata"`
		}
		if err := json.Unmarshal(zb, &m); err != nil {
			return nil, bad(".zmetadata is not valid JSON: " + err.Error())
		}
		g.Consolidated = true
		g.meta = map[string][]byte{}
		for k, v := range m.Metadata {
			g.meta[join(path, k)] = v
			if k == ".zarray" || strings.HasSuffix(k, "/.zarray") {
				g.Arrays = append(g.Arrays, strings.Trim(join(path, strings.TrimSuffix(k, ".zarray")), "/"))
			}
		}
		sort.Strings(g.Arrays)
		return g, nil
	}
	return g, g.list(ctx, ".zarray")
}

// list finds the arrays under the group by listing the store for
// metadata documents named doc.
func (g *Group) list(ctx context.Context, doc string) error {
	prefix := ""
	if g.Path != "" {
		prefix = g.Path + "/"
	}
	keys, err := g.store.List(ctx, prefix)
	if err != nil {
		return &Error{Array: g.Path, Msg: err.Error()}
	}
	for _, k := range keys {
		if k != doc && !strings.HasSuffix(k, "/"+doc) {
			continue
		}
		p := strings.TrimSuffix(strings.TrimSuffix(k, doc), "/")
		if doc == "zarr.json" {
			b, err := get(ctx, g.store, k, maxMetadata)
			if err != nil {
				return &Error{Array: p, Msg: err.Error()}
			}
			var node struct {
				NodeType string `json:"node_type"`
			}
			if json.Unmarshal(b, &node) != nil || node.NodeType != "array" {
				continue
			}
		}
		g.Arrays = append(g.Arrays, p)
	}
	return nil
}

// OpenArray opens the array at path (relative to the store root) using
// the group's consolidated metadata when it has the array's.
func (g *Group) OpenArray(ctx context.Context, path string) (*Array, error) {
	if b, ok := g.meta[join(path, "zarr.json")]; ok {
		return parseV3Array(g.store, path, b)
	}
	if b, ok := g.meta[join(path, ".zarray")]; ok {
		return parseV2Array(g.store, path, b, g.meta[join(path, ".zattrs")])
	}
	return OpenArray(ctx, g.store, path)
}
