package zarr

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"sync"
)

// GroupWriter writes a group of arrays: create each with CreateArray,
// close them, then Close writes the group's metadata and, when
// Consolidated, the consolidated metadata (.zmetadata in v2, inline in
// the group's zarr.json in v3) last.
type GroupWriter struct {
	store        Store
	path         string
	format       int
	consolidated bool
	attrs        map[string]any

	mu   sync.Mutex
	docs map[string][]byte // array metadata by key relative to the group
}

// CreateGroup starts a group at path (format 2 or 3, 0 meaning 3).
func CreateGroup(s Store, path string, format int, consolidated bool, attrs map[string]any) *GroupWriter {
	if format == 0 {
		format = 3
	}
	return &GroupWriter{store: s, path: strings.Trim(path, "/"), format: format, consolidated: consolidated, attrs: attrs, docs: map[string][]byte{}}
}

// CreateArray starts writing the array name (a "/"-separated path inside
// the group); o.Format is the group's.
func (g *GroupWriter) CreateArray(ctx context.Context, name string, o CreateOptions) (*ArrayWriter, error) {
	o.Format = g.format
	w, err := CreateArray(ctx, g.store, join(g.path, strings.Trim(name, "/")), o)
	if err != nil {
		return nil, err
	}
	w.group = g
	return w, nil
}

func (g *GroupWriter) add(path, docKey string, doc, attrs []byte) {
	rel := strings.TrimPrefix(strings.TrimPrefix(path, g.path), "/")
	g.mu.Lock()
	defer g.mu.Unlock()
	g.docs[join(rel, docKey)] = doc
	if attrs != nil {
		g.docs[join(rel, ".zattrs")] = attrs
	}
}

// Close writes the intermediate groups' metadata, then the group's.
func (g *GroupWriter) Close(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	// Every intermediate group between the root and an array.
	inter := map[string]bool{}
	for k := range g.docs {
		parts := strings.Split(k, "/")
		for i := 1; i < len(parts)-1; i++ {
			inter[strings.Join(parts[:i], "/")] = true
		}
	}
	var names []string
	for p := range inter {
		names = append(names, p)
	}
	sort.Strings(names)
	v3group := func(attrs map[string]any) map[string]any {
		if attrs == nil {
			attrs = map[string]any{}
		}
		return map[string]any{"zarr_format": 3, "node_type": "group", "attributes": attrs}
	}
	cons := map[string]json.RawMessage{}
	for _, p := range names {
		var key string
		var doc []byte
		if g.format == 3 {
			key = join(p, "zarr.json")
			doc, _ = json.MarshalIndent(v3group(nil), "", "    ")
			cons[p] = doc
		} else {
			key = join(p, ".zgroup")
			doc = []byte("{\n    \"zarr_format\": 2\n}")
			cons[key] = doc
		}
		if err := g.store.Put(ctx, join(g.path, key), doc); err != nil {
			return &Error{Array: join(g.path, p), Msg: err.Error()}
		}
	}
	for k, d := range g.docs {
		if g.format == 3 {
			cons[strings.TrimSuffix(strings.TrimSuffix(k, "zarr.json"), "/")] = d
		} else {
			cons[k] = d
		}
	}
	put := func(key string, v any) error {
		b, err := json.MarshalIndent(v, "", "    ")
		if err == nil {
			err = g.store.Put(ctx, join(g.path, key), b)
		}
		if err != nil {
			return &Error{Array: g.path, Msg: err.Error()}
		}
		return nil
	}
	if g.format == 3 {
		doc := v3group(g.attrs)
		if g.consolidated {
			doc["consolidated_metadata"] = map[string]any{"kind": "inline", "must_understand": false, "metadata": cons}
		}
		return put("zarr.json", doc)
	}
	if len(g.attrs) > 0 {
		b, _ := json.MarshalIndent(g.attrs, "", "    ")
		cons[".zattrs"] = b
		if err := put(".zattrs", g.attrs); err != nil {
			return err
		}
	}
	zg := json.RawMessage(`{"zarr_format": 2}`)
	cons[".zgroup"] = zg
	if err := put(".zgroup", zg); err != nil {
		return err
	}
	if g.consolidated {
		return put(".zmetadata", map[string]any{"metadata": cons, "zarr_consolidated_format": 1})
	}
	return nil
}
