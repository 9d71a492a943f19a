package zarr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/bits"
	"strconv"
	"strings"
)

// Error is a problem with one array (and chunk) of a Zarr store.
type Error struct {
	Array string // the array's path in the store ("" the root)
	Chunk string // the chunk's key, or ""
	Msg   string
}

func (e *Error) Error() string {
	name := e.Array
	if name == "" {
		name = "/"
	}
	if e.Chunk != "" {
		return "zarr array " + name + ": chunk " + e.Chunk + ": " + e.Msg
	}
	return "zarr array " + name + ": " + e.Msg
}

// Array is an open Zarr v2 or v3 array.
type Array struct {
	Path   string  // path in the store, "" for the root
	Format int     // 2 or 3
	Shape  []int64 // the array's shape
	// Chunks is the chunk grid's chunk shape: the shard shape for a
	// sharded v3 array.
	Chunks []int64
	// Inner is a sharded array's inner chunk shape, else nil.
	Inner []int64
	DType DType
	// Fill is one element of DType (nil: zeros, v2 null), or the string
	// of a variable-length string array.
	Fill []byte
	// Order is 'C' or 'F' (v2's order; v3 arrays say 'C' and list a
	// transpose codec).
	Order byte
	// Codecs is the pipeline as the metadata names it: v2 filters then
	// the compressor; v3 codecs (inside sharding_indexed for a sharded
	// array, after it in IndexCodecs).
	Codecs      []Codec
	IndexCodecs []Codec
	// IndexAtStart says a shard's index precedes its chunks.
	IndexAtStart bool
	// Attrs are the array's attributes (JSON values).
	Attrs map[string]json.RawMessage
	// DimensionNames are v3's dimension_names (or xarray's
	// _ARRAY_DIMENSIONS attribute in v2), possibly nil.
	DimensionNames []string
	// KeyEncoding is "default" or "v2", Separator "/" or ".".
	KeyEncoding, Separator string
	// Threads is how many chunks Read decodes at once (0: GOMAXPROCS).
	// Set it before the first Read.
	Threads int
	// ReadAheadTo, when above 0, is the row (index along the first
	// axis) where reading ahead stops: a reader of rows [a, b) of a
	// larger array (a task of a sharded run) sets b, so that no chunk
	// past its part is fetched.
	ReadAheadTo int64

	store      Store
	unit       []int64 // the shape decoded at once: Inner or Chunks
	a2a        []arrayCodec
	bigEndian  bool // the bytes codec stores big endian (v3)
	vlen       bool
	b2b        []bytesCodec
	idx        []bytesCodec // shard index bytes codecs
	idxBig     bool
	perShard   []int64 // inner chunks per shard, per axis
	shardCache *shardCache
	ra         *readahead // row reads' window of decoded units
}

func (a *Array) errf(chunk string, format string, args ...any) error {
	return &Error{Array: a.Path, Chunk: chunk, Msg: fmt.Sprintf(format, args...)}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "/" + key
}

// OpenArray opens the array at path in s (v3 zarr.json or v2 .zarray).
func OpenArray(ctx context.Context, s Store, path string) (*Array, error) {
	path = strings.Trim(path, "/")
	b, err := get(ctx, s, join(path, "zarr.json"), maxMetadata)
	if err == nil {
		return parseV3Array(s, path, b)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{Array: path, Msg: err.Error()}
	}
	b, err = get(ctx, s, join(path, ".zarray"), maxMetadata)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{Array: path, Msg: "no zarr.json or .zarray: not a Zarr array"}
		}
		return nil, &Error{Array: path, Msg: err.Error()}
	}
	var attrs []byte
	if ab, err := get(ctx, s, join(path, ".zattrs"), maxMetadata); err == nil {
		attrs = ab
	}
	return parseV2Array(s, path, b, attrs)
}

type v2Meta struct {
	ZarrFormat         int               `json:"zarr_format"`
	Shape              []int64           `json:"shape"`
	Chunks             []int64           `json:"chunks"`
	DType              json.RawMessage   `json:"dtype"`
	Compressor         map[string]any    `json:"compressor"`
	FillValue          json.RawMessage   `json:"fill_value"`
	Order              string            `json:"order"`
	Filters            []map[string]any  `json:"filters"`
	DimensionSeparator string            `json:"dimension_separator"`
	Attrs              map[string]any    `json:"-"`
	_                  map[string]string `json:"-"`
}

func parseV2Array(s Store, path string, doc, attrs []byte) (*Array, error) {
	var m v2Meta
	if err := json.Unmarshal(doc, &m); err != nil {
		return nil, &Error{Array: path, Msg: ".zarray is not valid JSON: " + err.Error()}
	}
	a := &Array{Path: path, Format: 2, store: s, KeyEncoding: "v2", Separator: ".", ra: &readahead{}}
	bad := func(f string, args ...any) (*Array, error) { return nil, a.errf("", f, args...) }
	if m.ZarrFormat != 2 {
		return bad(".zarray zarr_format is %d, not 2", m.ZarrFormat)
	}
	if m.Shape == nil || m.Chunks == nil {
		return bad(".zarray lacks shape or chunks")
	}
	dt, err := parseV2DType(m.DType, 0)
	if err != nil {
		return bad("dtype: %v", err)
	}
	a.DType = dt
	switch m.Order {
	case "C", "":
		a.Order = 'C'
	case "F":
		a.Order = 'F'
	default:
		return bad("order %q is neither C nor F", m.Order)
	}
	switch m.DimensionSeparator {
	case "", ".":
	case "/":
		a.Separator = "/"
	default:
		return bad("dimension_separator %q is neither . nor /", m.DimensionSeparator)
	}
	a.Shape, a.Chunks = m.Shape, m.Chunks
	a.unit = a.Chunks
	if err := a.checkGrid(); err != nil {
		return nil, err
	}
	if a.Order == 'F' && len(a.Shape) > 1 {
		rev := make([]int, len(a.Shape))
		for i := range rev {
			rev[i] = len(rev) - 1 - i
		}
		a.a2a = append(a.a2a, transposeCodec{rev})
	}
	es := dt.ItemSize()
	for _, f := range m.Filters {
		c := v2Codec(f)
		a.Codecs = append(a.Codecs, c)
		switch c.Name {
		case "vlen-utf8", "vlen-bytes":
			if dt.Descr != "|O" {
				return bad("filter %s on dtype %s", c.Name, dt.name())
			}
			a.vlen = true
			a.DType = DType{Descr: "<U0", VarString: true}
			if c.Name == "vlen-bytes" {
				a.DType.Descr = "|S0"
			}
		case "delta":
			var ft, at string
			ft, _ = strConf(c.Config, "dtype", "")
			at, _ = strConf(c.Config, "astype", ft)
			if ft != at || ft != dt.Descr || (dt.Kind() != 'i' && dt.Kind() != 'u' && dt.Kind() != 'f') || dt.Kind() == 'f' && es != 4 && es != 8 {
				return bad("filter delta from %s as %s is not supported (only on integers or floats as themselves)", ft, at)
			}
			a.a2a = append(a.a2a, deltaCodec{dt})
		default:
			return bad("filter %q is not supported", c.Name)
		}
	}
	if a.DType.Descr == "|O" {
		return bad("dtype |O without a vlen-utf8 or vlen-bytes filter is not supported")
	}
	if m.Compressor != nil {
		c := v2Codec(m.Compressor)
		a.Codecs = append(a.Codecs, c)
		bc, err := compressor(c, es)
		if err != nil {
			return bad("compressor: %v", err)
		}
		a.b2b = []bytesCodec{bc}
	}
	a.Fill, err = parseFill(m.FillValue, a.DType)
	if err != nil {
		return bad("%v", err)
	}
	if len(attrs) > 0 {
		if err := json.Unmarshal(attrs, &a.Attrs); err != nil {
			return bad(".zattrs is not a JSON object: %v", err)
		}
		if dn, ok := a.Attrs["_ARRAY_DIMENSIONS"]; ok {
			json.Unmarshal(dn, &a.DimensionNames)
		}
	}
	return a, nil
}

// v2Codec is a numcodecs configuration as a Codec.
func v2Codec(m map[string]any) Codec {
	c := Codec{Config: map[string]any{}}
	for k, v := range m {
		if k == "id" {
			c.Name, _ = v.(string)
		} else {
			c.Config[k] = v
		}
	}
	return c
}

// checkGrid checks shape and chunk shape: as many axes, chunks >= 1, and
// a decoded chunk within maxChunkBytes.
func (a *Array) checkGrid() error {
	if len(a.Shape) != len(a.Chunks) {
		return a.errf("", "shape %v and chunk shape %v differ in rank", a.Shape, a.Chunks)
	}
	if len(a.Shape) > 32 {
		return a.errf("", "%d dimensions; at most 32 are supported", len(a.Shape))
	}
	total := uint64(1)
	for i, n := range a.Shape {
		if n < 0 {
			return a.errf("", "shape %v has a negative extent", a.Shape)
		}
		if a.Chunks[i] <= 0 {
			return a.errf("", "chunk shape %v has an extent below 1", a.Chunks)
		}
		hi, lo := bits.Mul64(total, uint64(n))
		if hi != 0 || lo > 1<<62 {
			return a.errf("", "shape %v has too many elements", a.Shape)
		}
		total = lo
	}
	if es := a.DType.ItemSize(); es > 0 || a.DType.VarString {
		n := uint64(max(es, 16))
		for _, c := range a.unit {
			hi, lo := bits.Mul64(n, uint64(c))
			if hi != 0 || lo > maxChunkBytes {
				return a.errf("", "chunk shape %v is larger than the %d bytes a chunk may have", a.unit, maxChunkBytes)
			}
			n = lo
		}
	}
	return nil
}

type v3Named struct {
	Name          string         `json:"name"`
	Configuration map[string]any `json:"configuration"`
}

type v3Meta struct {
	ZarrFormat       int               `json:"zarr_format"`
	NodeType         string            `json:"node_type"`
	Shape            []int64           `json:"shape"`
	DataType         json.RawMessage   `json:"data_type"`
	ChunkGrid        v3Named           `json:"chunk_grid"`
	ChunkKeyEncoding v3Named           `json:"chunk_key_encoding"`
	FillValue        json.RawMessage   `json:"fill_value"`
	Codecs           []json.RawMessage `json:"codecs"`
	Attributes       map[string]json.RawMessage
	DimensionNames   []*string         `json:"dimension_names"`
	StorageTrans     []json.RawMessage `json:"storage_transformers"`
}

// parseCodecList reads a v3 codecs list (names, or name+configuration).
func parseCodecList(raw []json.RawMessage) ([]Codec, error) {
	out := make([]Codec, 0, len(raw))
	for _, r := range raw {
		var n v3Named
		if err := json.Unmarshal(r, &n.Name); err != nil {
			if err := json.Unmarshal(r, &n); err != nil || n.Name == "" {
				var one bytes.Buffer // the codec on one line
				json.Compact(&one, r)
				return nil, fmt.Errorf("codec %s is not a name or an object with a name", one.Bytes())
			}
		}
		out = append(out, Codec{Name: n.Name, Config: n.Configuration})
	}
	return out, nil
}

func parseV3Array(s Store, path string, doc []byte) (*Array, error) {
	var m v3Meta
	a := &Array{Path: path, Format: 3, store: s, Order: 'C', ra: &readahead{}}
	if err := json.Unmarshal(doc, &m); err != nil {
		return nil, a.errf("", "zarr.json is not valid JSON: %v", err)
	}
	bad := func(f string, args ...any) (*Array, error) { return nil, a.errf("", f, args...) }
	if m.ZarrFormat != 3 {
		return bad("zarr.json zarr_format is %d, not 3", m.ZarrFormat)
	}
	if m.NodeType != "array" {
		return bad("zarr.json node_type is %q, not array", m.NodeType)
	}
	if len(m.StorageTrans) > 0 {
		return bad("storage transformers are not supported")
	}
	dt, err := parseV3DType(m.DataType)
	if err != nil {
		return bad("%v", err)
	}
	a.DType = dt
	a.vlen = dt.VarString
	if m.ChunkGrid.Name != "regular" {
		return bad("chunk grid %q is not supported (regular is)", m.ChunkGrid.Name)
	}
	cs, ok := m.ChunkGrid.Configuration["chunk_shape"]
	if !ok {
		return bad("chunk grid has no chunk_shape")
	}
	if a.Chunks, err = int64List(cs); err != nil {
		return bad("chunk_shape: %v", err)
	}
	a.Shape = m.Shape
	if a.Shape == nil {
		return bad("zarr.json has no shape")
	}
	switch m.ChunkKeyEncoding.Name {
	case "default":
		a.KeyEncoding, a.Separator = "default", "/"
	case "v2":
		a.KeyEncoding, a.Separator = "v2", "."
	default:
		return bad("chunk key encoding %q is not supported", m.ChunkKeyEncoding.Name)
	}
	if sep, err := strConf(m.ChunkKeyEncoding.Configuration, "separator", a.Separator); err != nil || sep != "/" && sep != "." {
		return bad("chunk key separator %v", m.ChunkKeyEncoding.Configuration["separator"])
	} else {
		a.Separator = sep
	}
	codecs, err := parseCodecList(m.Codecs)
	if err != nil {
		return bad("%v", err)
	}
	a.Codecs = codecs
	a.unit = a.Chunks
	// A sharded array: sharding_indexed is the array-to-bytes codec, after
	// array-to-array ones (none supported then) and before bytes codecs.
	if len(codecs) > 0 && codecs[0].Name == "sharding_indexed" {
		if len(codecs) > 1 {
			return bad("codecs after sharding_indexed are not supported")
		}
		cf := codecs[0].Config
		inner, err := int64List(cf["chunk_shape"])
		if err != nil {
			return bad("sharding_indexed chunk_shape: %v", err)
		}
		if len(inner) != len(a.Chunks) {
			return bad("inner chunk shape %v and shard shape %v differ in rank", inner, a.Chunks)
		}
		a.perShard = make([]int64, len(inner))
		for i, n := range inner {
			if n <= 0 || a.Chunks[i]%n != 0 {
				return bad("inner chunk shape %v does not divide the shard shape %v", inner, a.Chunks)
			}
			a.perShard[i] = a.Chunks[i] / n
		}
		a.Inner, a.unit = inner, inner
		a.shardCache = &shardCache{}
		raw, _ := json.Marshal(cf["codecs"])
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return bad("sharding_indexed codecs: %v", err)
		}
		if a.Codecs, err = parseCodecList(list); err != nil {
			return bad("sharding_indexed codecs: %v", err)
		}
		raw, _ = json.Marshal(cf["index_codecs"])
		list = nil
		json.Unmarshal(raw, &list)
		if a.IndexCodecs, err = parseCodecList(list); err != nil {
			return bad("sharding_indexed index_codecs: %v", err)
		}
		loc, _ := strConf(cf, "index_location", "end")
		switch loc {
		case "end":
		case "start":
			a.IndexAtStart = true
		default:
			return bad("index_location %q is neither start nor end", loc)
		}
		for _, c := range a.IndexCodecs {
			switch c.Name {
			case "bytes":
				e, _ := strConf(c.Config, "endian", "little")
				a.idxBig = e == "big"
			case "crc32c":
				a.idx = append(a.idx, crc32cCodec{})
			default:
				return bad("index codec %q is not supported (bytes and crc32c are)", c.Name)
			}
		}
	}
	if err := a.checkGrid(); err != nil {
		return nil, err
	}
	if err := a.buildV3(a.Codecs); err != nil {
		return nil, err
	}
	a.Fill, err = parseFill(m.FillValue, a.DType)
	if err != nil {
		return bad("%v", err)
	}
	a.Attrs = m.Attributes
	for _, n := range m.DimensionNames {
		if n == nil {
			a.DimensionNames = append(a.DimensionNames, "")
		} else {
			a.DimensionNames = append(a.DimensionNames, *n)
		}
	}
	return a, nil
}

// buildV3 sets the decoding pipeline of one unit (a chunk, or an inner
// chunk of a shard) from its v3 codecs.
func (a *Array) buildV3(codecs []Codec) error {
	stage := 0 // 0 array-to-array, 1 after array-to-bytes
	es := a.DType.ItemSize()
	for _, c := range codecs {
		switch c.Name {
		case "transpose":
			if stage != 0 {
				return a.errf("", "transpose after the array-to-bytes codec")
			}
			order, err := intList(c.Config["order"], len(a.unit))
			if err != nil {
				return a.errf("", "transpose order: %v", err)
			}
			a.a2a = append(a.a2a, transposeCodec{order})
		case "bytes":
			if stage != 0 || a.vlen {
				return a.errf("", "codec bytes misplaced")
			}
			e, _ := strConf(c.Config, "endian", "little")
			a.bigEndian = e == "big"
			stage = 1
		case "vlen-utf8", "vlen-bytes":
			if stage != 0 || !a.vlen {
				return a.errf("", "codec %s on a %s array", c.Name, a.DType.name())
			}
			stage = 1
		case "sharding_indexed":
			return a.errf("", "nested sharding is not supported")
		default:
			if stage != 1 {
				return a.errf("", "codec %q before the array-to-bytes codec", c.Name)
			}
			bc, err := compressor(c, es)
			if err != nil {
				return a.errf("", "%v", err)
			}
			a.b2b = append(a.b2b, bc)
		}
	}
	if stage != 1 {
		return a.errf("", "the codecs have no array-to-bytes codec")
	}
	return nil
}

func int64List(v any) ([]int64, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%v is not a list", v)
	}
	out := make([]int64, len(l))
	for i, x := range l {
		f, ok := x.(float64)
		if !ok || f != float64(int64(f)) || f < 0 || f > 1<<62 {
			return nil, fmt.Errorf("%v is not a list of integers", v)
		}
		out[i] = int64(f)
	}
	return out, nil
}

// intList reads a permutation of n axes.
func intList(v any, n int) ([]int, error) {
	l, err := int64List(v)
	if err != nil {
		return nil, err
	}
	if len(l) != n {
		return nil, fmt.Errorf("%v has %d axes, want %d", v, len(l), n)
	}
	seen := make([]bool, n)
	out := make([]int, n)
	for i, x := range l {
		if x >= int64(n) || seen[x] {
			return nil, fmt.Errorf("%v is not a permutation", v)
		}
		seen[x] = true
		out[i] = int(x)
	}
	return out, nil
}

// FillValue is the fill value as the metadata's JSON would give it
// (numbers, "NaN", [re, im], base64 or byte lists, strings).
func (a *Array) FillValue() any { return fillJSON(a.Fill, a.DType, a.Format == 3) }

// ChunkKey is the store key of the chunk (shard) at grid index idx.
func (a *Array) ChunkKey(idx []int64) string {
	var sb strings.Builder
	if a.KeyEncoding == "default" {
		sb.WriteString("c")
		for _, i := range idx {
			sb.WriteString(a.Separator)
			sb.WriteString(strconv.FormatInt(i, 10))
		}
	} else {
		if len(idx) == 0 {
			sb.WriteString("0")
		}
		for k, i := range idx {
			if k > 0 {
				sb.WriteString(a.Separator)
			}
			sb.WriteString(strconv.FormatInt(i, 10))
		}
	}
	return join(a.Path, sb.String())
}

// Grid is the number of chunks (shards) along each axis.
func (a *Array) Grid() []int64 {
	g := make([]int64, len(a.Shape))
	for i, n := range a.Shape {
		g[i] = (n + a.Chunks[i] - 1) / a.Chunks[i]
	}
	return g
}

// NumElements is the product of the shape.
func (a *Array) NumElements() int64 {
	n := int64(1)
	for _, s := range a.Shape {
		n *= s
	}
	return n
}
