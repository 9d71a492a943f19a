package inspect

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// ZarrInfo is what [pipeline.Inspect] reads of a Zarr store.
type ZarrInfo struct {
	Format       string                     `json:"format"`
	File         string                     `json:"file"`
	ZarrFormat   int                        `json:"zarr_format"`
	Consolidated bool                       `json:"consolidated"`
	Attrs        map[string]json.RawMessage `json:"attributes,omitempty"`
	Arrays       []ZarrArray                `json:"arrays"`
}

// ZarrArray is one array of a Zarr store.
type ZarrArray struct {
	Path           string                     `json:"path"`
	Shape          []int64                    `json:"shape,omitempty"`
	Chunks         []int64                    `json:"chunks,omitempty"`
	Shards         []int64                    `json:"shards,omitempty"`
	DType          string                     `json:"dtype,omitempty"`
	Codecs         []string                   `json:"codecs,omitempty"`
	FillValue      string                     `json:"fill_value,omitempty"` // as the metadata's JSON gives it
	DimensionNames []string                   `json:"dimension_names,omitempty"`
	Attrs          map[string]json.RawMessage `json:"attributes,omitempty"`
	Error          string                     `json:"error,omitempty"`
}

// WriteText prints the store as `npyflow inspect` does.
func (z *ZarrInfo) WriteText(w io.Writer) {
	fmt.Fprintf(w, "%s: Zarr v%d store, %d arrays", z.File, z.ZarrFormat, len(z.Arrays))
	if z.Consolidated {
		fmt.Fprint(w, " (consolidated metadata)")
	}
	fmt.Fprintln(w)
	writeAttrs(w, "  ", z.Attrs)
	for _, a := range z.Arrays {
		name := a.Path
		if name == "" {
			name = "/"
		}
		if a.Error != "" {
			fmt.Fprintf(w, "  %s: %s\n", name, a.Error)
			continue
		}
		fmt.Fprintf(w, "  %s: %s %v, chunks %v", name, a.DType, a.Shape, a.Chunks)
		if a.Shards != nil {
			fmt.Fprintf(w, " in shards %v", a.Shards)
		}
		if len(a.Codecs) > 0 {
			fmt.Fprintf(w, ", codecs %s", strings.Join(a.Codecs, ", "))
		}
		fmt.Fprintf(w, ", fill %s", a.FillValue)
		if len(a.DimensionNames) > 0 {
			fmt.Fprintf(w, ", dims (%s)", strings.Join(a.DimensionNames, ", "))
		}
		fmt.Fprintln(w)
		writeAttrs(w, "    ", a.Attrs)
	}
}

func writeAttrs(w io.Writer, indent string, attrs map[string]json.RawMessage) {
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "%s@%s = %s\n", indent, k, attrs[k])
	}
}
