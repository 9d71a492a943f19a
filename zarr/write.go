package zarr

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/npyflow/npyflow/internal/codec"
)

// Compressions are the values CreateOptions.Compression takes.
var Compressions = []string{"zstd", "lz4", "blosc", "gzip", "zlib", "none"}

// CreateOptions describe an array to write.
type CreateOptions struct {
	// Format is 2 or 3 (0: 3).
	Format int
	Shape  []int64
	// Chunks is the chunk shape (nil: DefaultChunks).
	Chunks []int64
	// Shards is a v3 shard shape, each extent a multiple of Chunks'
	// (nil: no sharding).
	Shards []int64
	DType  DType
	// Compression is one of Compressions ("": zstd); Level its level
	// (0: the codec's default).
	Compression string
	Level       int
	// Fill is one element of DType, the fill value (nil: zeros).
	Fill           []byte
	Attrs          map[string]any
	DimensionNames []string
	// Strings is how numpy U and S arrays are stored (other types are
	// not affected): "fixed" (or "", the default, as zarr-python does)
	// fixed-width, "vlen" as
	// variable-length strings: v2 "|O" with the vlen-utf8 (U) or
	// vlen-bytes (S) filter of numcodecs, v3 the string data type with
	// the vlen-utf8 codec (S has no v3 type then). Trailing NULs are
	// numpy's padding and are not stored; rows are still given in DType's
	// fixed width.
	Strings string
	// Threads is how many chunks (shards) are encoded at once (0:
	// GOMAXPROCS). WriteRows hands each full band of chunks to them and
	// returns; at most 2 x Threads chunks are in flight.
	Threads int
}

// DefaultChunks is a chunk shape of about 4 MiB for shape and elements
// of es bytes: whole trailing axes while they fit, the leading ones cut.
func DefaultChunks(shape []int64, es int) []int64 {
	const target = 4 << 20
	c := make([]int64, len(shape))
	room := int64(target / max(es, 1))
	for i := len(shape) - 1; i >= 0; i-- {
		n := max(shape[i], 1)
		c[i] = max(1, min(n, room))
		room = max(1, room/c[i])
	}
	return c
}

// ArrayWriter writes one array: whole chunks, or rows along the first
// axis (WriteRows), then Close writes the metadata, last.
type ArrayWriter struct {
	a        *Array // the array as a reader would see it
	opts     CreateOptions
	doc      []byte // metadata document (zarr.json or .zarray)
	attrs    []byte // v2 .zattrs
	comp     bytesCodec
	es       int
	band     []byte // rows buffered for the current band of chunks (shards)
	rows     int64  // rows written so far
	bandAt   int64  // first row of the band
	in       DType  // the type rows are given in, for variable-length strings
	group    *GroupWriter
	name     string
	closed   bool
	end      int64 // the row after the last one this writer takes
	region   bool  // CreateRegion's: rows [rowsFrom, end), no metadata
	rowsFrom int64

	// Bands being encoded in the background (WriteRows): at most
	// workers goroutines, each with its own encoder and buffers, take
	// chunks from jobs (workers deep) and end when it is empty.
	workers  int32
	running  atomic.Int32
	jobs     chan cellJob
	inflight sync.WaitGroup
	errMu    sync.Mutex
	err      error // the first error of a background chunk: sticky
	bands    sync.Pool

	// For an OrderedStore (turnCond set): chunks are stored in the order
	// they were handed out (seq), turn being the next one's.
	nextSeq  int64 // of the next chunk handed out (the caller's goroutine)
	turnMu   sync.Mutex
	turnCond *sync.Cond
	turn     int64

	fillOnce  sync.Once
	fillChunk []byte // one inner chunk of the fill value (sharding)
}

// cellJob is one grid cell of a band, for the background encoders.
type cellJob struct {
	ctx                context.Context
	cell, start, count []int64
	band               *[]byte
	left               *atomic.Int64 // cells of the band not yet written; the last frees it
	seq                int64         // its place in the order chunks are handed out
}

// OrderedStore is a Store whose bytes depend on the order of its Puts (a
// zip archive: entries in the order they are added). An ArrayWriter
// encoding chunks on several goroutines stores them in the order they
// were handed out, so the same input always gives the same bytes.
type OrderedStore interface {
	Store
	OrderedPuts() bool
}

// OrderedPuts reports true: a zip archive's entries follow its Puts.
func (z *ZipStore) OrderedPuts() bool { return z.w != nil }

// cellScratch is what one encoding goroutine reuses from chunk to chunk:
// its compressor (megabytes of Zstandard tables), the buffer chunks are
// encoded into, and the one chunks are copied out of a region into when
// they are not contiguous in it. A Store writes out a value before Put
// returns (an io.Writer's contract), so the buffers are free after it.
type cellScratch struct {
	enc codec.Encoder
	out []byte
	ext []byte
}

// scratchPool keeps cellScratch from one goroutine, and one writer, to
// the next.
var scratchPool sync.Pool

func getScratch() *cellScratch {
	if sc, ok := scratchPool.Get().(*cellScratch); ok {
		return sc
	}
	return new(cellScratch)
}

// CreateArray starts writing an array at path in s.
func CreateArray(ctx context.Context, s Store, path string, o CreateOptions) (*ArrayWriter, error) {
	path = strings.Trim(path, "/")
	if o.Format == 0 {
		o.Format = 3
	}
	bad := func(f string, args ...any) (*ArrayWriter, error) {
		return nil, &Error{Array: path, Msg: fmt.Sprintf(f, args...)}
	}
	if o.Format != 2 && o.Format != 3 {
		return bad("zarr format %d: 2 or 3", o.Format)
	}
	if o.DType.VarString || o.DType.Descr == "|O" {
		return bad("data type %s: give variable-length strings as fixed-width U or S with Strings \"vlen\"", o.DType.name())
	}
	es := o.DType.ItemSize()
	if es <= 0 {
		return bad("data type %s has no fixed size", o.DType.name())
	}
	var vlen *DType // the stored type of variable-length strings
	switch o.Strings {
	case "", "fixed":
	case "vlen":
		k := o.DType.Kind()
		if o.DType.Fields != nil || k != 'U' && k != 'S' {
			break // only U and S arrays change
		}
		if k == 'S' && o.Format == 3 {
			return bad("strings vlen: Zarr v3 has no registered variable-length bytes type for %s; write Zarr format 2 or fixed strings", o.DType.name())
		}
		if o.Shards != nil {
			return bad("strings vlen: sharding variable-length strings is not supported")
		}
		vlen = &DType{Descr: "<U0", VarString: true}
		if k == 'S' {
			vlen.Descr = "|S0"
		}
	default:
		return bad("strings %q: fixed or vlen", o.Strings)
	}
	if o.Chunks == nil {
		o.Chunks = DefaultChunks(o.Shape, es)
	}
	if len(o.Chunks) != len(o.Shape) {
		return bad("chunk shape %v for an array of shape %v", o.Chunks, o.Shape)
	}
	if o.Shards != nil {
		if o.Format != 3 {
			return bad("sharding needs Zarr format 3")
		}
		if len(o.Shards) != len(o.Shape) {
			return bad("shard shape %v for an array of shape %v", o.Shards, o.Shape)
		}
		for i := range o.Shards {
			if o.Chunks[i] <= 0 || o.Shards[i] <= 0 || o.Shards[i]%o.Chunks[i] != 0 {
				return bad("shard shape %v is not a multiple of the chunk shape %v", o.Shards, o.Chunks)
			}
		}
	}
	if o.Fill != nil && len(o.Fill) != es {
		return bad("fill value of %d bytes for elements of %d", len(o.Fill), es)
	}
	ces := es
	if vlen != nil {
		ces = 1 // the codec sees the vlen encoding's bytes
	}
	comp, cjson, err := compressionFor(o, ces)
	if err != nil {
		return bad("%v", err)
	}
	w := &ArrayWriter{opts: o, comp: comp, es: es}
	var vfill []byte
	if vlen != nil && o.Fill != nil {
		if vfill, err = stringItem(o.DType, o.Fill); err != nil {
			return bad("fill value: %v", err)
		}
	}
	if th := threads(o.Threads); th > 1 {
		w.workers = int32(th)
		w.jobs = make(chan cellJob, th)
		if ost, ok := s.(OrderedStore); ok && ost.OrderedPuts() {
			w.turnCond = sync.NewCond(&w.turnMu)
		}
	}
	var doc map[string]any
	if o.Format == 2 {
		if o.DType.Fields == nil {
			if _, err := descrSize(o.DType.Descr); err != nil {
				return bad("%v", err)
			}
		}
		var cj any
		if cjson != nil {
			cj = cjson
		}
		doc = map[string]any{
			"zarr_format": 2, "shape": o.Shape, "chunks": o.Chunks,
			"dtype": o.DType.v2JSON(), "compressor": cj, "fill_value": fillJSON(o.Fill, o.DType, false),
			"order": "C", "filters": nil, "dimension_separator": ".",
		}
		if vlen != nil {
			id := "vlen-utf8"
			if vlen.Kind() == 'S' {
				id = "vlen-bytes"
			}
			doc["dtype"], doc["fill_value"] = "|O", fillJSON(vfill, *vlen, false)
			doc["filters"] = []any{map[string]any{"id": id}}
		}
		attrs := map[string]any{}
		for k, v := range o.Attrs {
			attrs[k] = v
		}
		if o.DimensionNames != nil {
			attrs["_ARRAY_DIMENSIONS"] = o.DimensionNames
		}
		if len(attrs) > 0 {
			w.attrs, _ = json.MarshalIndent(attrs, "", "    ")
		}
	} else {
		dt := o.DType
		if vlen != nil {
			dt = *vlen
		}
		name, err := dt.v3Name()
		if err != nil {
			return bad("%v", err)
		}
		endian := "little"
		if o.DType.ByteOrder() == '>' {
			endian = "big"
		}
		codecs := []any{map[string]any{"name": "bytes", "configuration": map[string]any{"endian": endian}}}
		if vlen != nil {
			codecs = []any{map[string]any{"name": "vlen-utf8", "configuration": map[string]any{}}}
		}
		if cjson != nil {
			codecs = append(codecs, cjson)
		}
		chunks := o.Chunks
		if o.Shards != nil {
			chunks = o.Shards
			codecs = []any{map[string]any{"name": "sharding_indexed", "configuration": map[string]any{
				"chunk_shape": o.Chunks,
				"codecs":      codecs,
				"index_codecs": []any{
					map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}},
					map[string]any{"name": "crc32c"},
				},
				"index_location": "end",
			}}}
		}
		attrs := o.Attrs
		if attrs == nil {
			attrs = map[string]any{}
		}
		doc = map[string]any{
			"zarr_format": 3, "node_type": "array", "shape": o.Shape, "data_type": name,
			"chunk_grid":         map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": chunks}},
			"chunk_key_encoding": map[string]any{"name": "default", "configuration": map[string]any{"separator": "/"}},
			"fill_value":         fillJSON(o.Fill, dt, true), "codecs": codecs, "attributes": attrs,
		}
		if o.DimensionNames != nil {
			doc["dimension_names"] = o.DimensionNames
		}
	}
	if w.doc, err = json.MarshalIndent(doc, "", "    "); err != nil {
		return bad("metadata: %v", err)
	}
	// Parse our own document: one description of the array for reading
	// and writing, and a check that what we write is what we read.
	if o.Format == 2 {
		w.a, err = parseV2Array(s, path, w.doc, w.attrs)
	} else {
		w.a, err = parseV3Array(s, path, w.doc)
	}
	if err != nil {
		return nil, err
	}
	if w.a.Fill == nil && o.Fill != nil && vlen == nil {
		w.a.Fill = o.Fill
	}
	if vlen != nil {
		w.in = o.DType
	}
	if len(o.Shape) > 0 {
		w.end = o.Shape[0]
	}
	return w, nil
}

// compressionFor returns the bytes codec and its metadata for o.
func compressionFor(o CreateOptions, es int) (bytesCodec, map[string]any, error) {
	v3 := o.Format == 3
	lvl := o.Level
	c := o.Compression
	if c == "" {
		c = "zstd"
	}
	meta := func(name string, cfg map[string]any) map[string]any {
		if v3 {
			return map[string]any{"name": name, "configuration": cfg}
		}
		m := map[string]any{"id": name}
		for k, v := range cfg {
			m[k] = v
		}
		return m
	}
	switch c {
	case "none":
		return nil, nil, nil
	case "zstd":
		if lvl == 0 {
			lvl = 3
		}
		if lvl < 1 || lvl > 22 {
			return nil, nil, fmt.Errorf("zstd level %d: 1 to 22", lvl)
		}
		cfg := map[string]any{"level": lvl}
		if v3 {
			cfg["checksum"] = false
		}
		return zstdCodec{lvl}, meta("zstd", cfg), nil
	case "gzip", "zlib":
		if lvl == 0 {
			lvl = 5
		}
		if lvl < 1 || lvl > 9 {
			return nil, nil, fmt.Errorf("%s level %d: 1 to 9", c, lvl)
		}
		if c == "zlib" {
			if v3 {
				return nil, nil, fmt.Errorf("zlib is not a Zarr v3 codec; use gzip")
			}
			return zlibCodec{lvl}, meta("zlib", map[string]any{"level": lvl}), nil
		}
		return gzipCodec{lvl}, meta("gzip", map[string]any{"level": lvl}), nil
	case "lz4":
		if v3 {
			return nil, nil, fmt.Errorf("lz4 is not a Zarr v3 codec; use blosc (lz4 inside) or zstd")
		}
		if lvl != 0 {
			return nil, nil, fmt.Errorf("lz4 takes no level")
		}
		return lz4Codec{}, meta("lz4", map[string]any{"acceleration": 1}), nil
	case "blosc":
		if lvl == 0 {
			lvl = 5
		}
		if lvl < 1 || lvl > 9 {
			return nil, nil, fmt.Errorf("blosc level %d: 1 to 9", lvl)
		}
		shuffle := codec.BloscShuffle
		if es == 1 {
			shuffle = codec.BloscNoShuffle
		}
		bc := bloscCodec{cname: "lz4", clevel: lvl, shuffle: shuffle, typesize: es}
		if v3 {
			word := map[int]string{codec.BloscShuffle: "shuffle", codec.BloscNoShuffle: "noshuffle"}[shuffle]
			return bc, meta("blosc", map[string]any{"cname": "lz4", "clevel": lvl, "shuffle": word, "typesize": es, "blocksize": 0}), nil
		}
		return bc, meta("blosc", map[string]any{"cname": "lz4", "clevel": lvl, "shuffle": shuffle, "blocksize": 0}), nil
	}
	return nil, nil, fmt.Errorf("compression %q: one of %s", c, strings.Join(Compressions, ", "))
}

// Array is the array being written, as a reader sees it.
func (w *ArrayWriter) Array() *Array { return w.a }

// Metadata is the metadata document (zarr.json or .zarray) Close writes.
func (w *ArrayWriter) Metadata() []byte { return w.doc }

// rowBytes is the size of one row (one index of the first axis).
func (w *ArrayWriter) rowBytes() int64 {
	n := int64(w.es)
	for _, s := range w.a.Shape[1:] {
		n *= s
	}
	return n
}

// WriteRows appends rows along the first axis (len(data) a whole number
// of rows, C order). Rows are buffered one band of chunks (shards) deep;
// each full band is encoded and stored.
func (w *ArrayWriter) WriteRows(ctx context.Context, data []byte) error {
	a := w.a
	if err := w.failed(); err != nil {
		return err
	}
	if len(a.Shape) == 0 {
		if int64(len(data)) != int64(w.es) || w.rows > 0 {
			return a.errf("", "a 0-d array takes one element")
		}
		w.rows = 1
		return w.WriteRegion(ctx, nil, nil, data)
	}
	rb := w.rowBytes()
	if rb == 0 {
		w.rows += a.Shape[0]
		return nil
	}
	if int64(len(data))%rb != 0 {
		return a.errf("", "%d bytes are not whole rows of %d", len(data), rb)
	}
	n := int64(len(data)) / rb
	if w.rows+n > w.end {
		return a.errf("", "%d rows written to an array of %d", w.rows+n, w.end)
	}
	bandRows := a.Chunks[0]
	for len(data) > 0 {
		room := min(bandRows-(w.rows-w.bandAt), w.end-w.rows)
		k := min(room, int64(len(data))/rb)
		if w.band == nil {
			size := min(bandRows, w.end-w.bandAt) * rb
			if p, ok := w.bands.Get().(*[]byte); ok && int64(cap(*p)) >= size {
				w.band = (*p)[:0]
			} else {
				w.band = make([]byte, 0, size)
			}
		}
		w.band = append(w.band, data[:k*rb]...)
		data = data[k*rb:]
		w.rows += k
		if w.rows-w.bandAt == bandRows || w.rows == w.end {
			if err := w.flushBand(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *ArrayWriter) flushBand(ctx context.Context) error {
	a := w.a
	start := make([]int64, len(a.Shape))
	count := append([]int64(nil), a.Shape...)
	start[0] = w.bandAt
	count[0] = w.rows - w.bandAt
	band := w.band
	w.bandAt = w.rows
	if w.jobs == nil {
		w.band = w.band[:0]
		return w.WriteRegion(ctx, start, count, band)
	}
	// In the background: the band belongs to its chunks now, and the
	// next rows go to another buffer.
	w.band = nil
	cells, err := w.cells(start, count)
	if err != nil {
		return err
	}
	if int64(len(band)) != w.regionBytes(count) {
		return a.errf("", "%d bytes for %d elements of %d", len(band), w.regionBytes(count)/int64(w.es), w.es)
	}
	left := new(atomic.Int64)
	left.Store(int64(len(cells)))
	bp := &band
	for i, cell := range cells {
		err := w.failed()
		if err == nil {
			select {
			case w.jobs <- cellJob{ctx: ctx, cell: cell, start: start, count: count, band: bp, left: left, seq: w.nextSeq}:
				w.nextSeq++
				w.startWorker()
				continue
			case <-ctx.Done():
				err = ctx.Err()
			}
		}
		if left.Add(-int64(len(cells)-i)) == 0 {
			w.bands.Put(bp)
		}
		return err
	}
	return nil
}

// startWorker starts an encoding goroutine if fewer than w.workers run.
// A job is sent before this is called: either a running worker sees it
// before it ends, or the count it left room in starts one here.
func (w *ArrayWriter) startWorker() {
	for {
		n := w.running.Load()
		if n >= w.workers {
			return
		}
		if w.running.CompareAndSwap(n, n+1) {
			w.inflight.Add(1)
			go w.encodeLoop()
			return
		}
	}
}

// encodeLoop writes the chunks of w.jobs until none is waiting. A
// goroutine per core, each keeping its compressor, and no more: chunks
// in goroutines of their own, more than the cores, were preempted in
// turn and thrashed the caches when the machine was busy (up to a third
// more CPU for zstd on 2 shared cores; on idle ones the same CPU).
func (w *ArrayWriter) encodeLoop() {
	defer w.inflight.Done()
	sc := getScratch()
	defer scratchPool.Put(sc)
	for {
		select {
		case j := <-w.jobs:
			if w.failed() == nil {
				if err := w.writeCell(j.ctx, sc, j.cell, j.start, j.count, *j.band, j.seq); err != nil {
					w.fail(err)
				}
			}
			if j.left.Add(-1) == 0 {
				w.bands.Put(j.band)
			}
			continue
		default:
		}
		w.running.Add(-1)
		if len(w.jobs) == 0 {
			return
		}
		// A job came after the look above: keep going if there is
		// still room for this goroutine (else another was started).
		n := w.running.Load()
		if n >= w.workers || !w.running.CompareAndSwap(n, n+1) {
			return
		}
	}
}

// failed is the first error of a chunk written in the background.
func (w *ArrayWriter) failed() error {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return w.err
}

// WriteRegion stores the region start+count (data in C order), which
// must cover whole chunks (shards) except where they overhang the array.
func (w *ArrayWriter) WriteRegion(ctx context.Context, start, count []int64, data []byte) error {
	a := w.a
	if len(a.Shape) == 0 {
		start, count = []int64{}, []int64{}
	}
	cells, err := w.cells(start, count)
	if err != nil {
		return err
	}
	if int64(len(data)) != w.regionBytes(count) {
		return a.errf("", "%d bytes for %d elements of %d", len(data), w.regionBytes(count)/int64(w.es), w.es)
	}
	th := threads(w.opts.Threads)
	if w.turnCond != nil {
		th = 1 // an OrderedStore gets the chunks in order
	}
	return parallel(ctx, th, len(cells), func(i int) error {
		sc := getScratch()
		defer scratchPool.Put(sc)
		return w.writeCell(ctx, sc, cells[i], start, count, data, -1)
	})
}

// regionBytes is the size of a region of count elements.
func (w *ArrayWriter) regionBytes(count []int64) int64 {
	n := int64(w.es)
	for _, c := range count {
		n *= c
	}
	return n
}

// cells lists the outer grid cells (chunks or shards) of the region
// start+count, checked to cover them whole.
func (w *ArrayWriter) cells(start, count []int64) ([][]int64, error) {
	a := w.a
	if _, err := a.checkRegion(start, count); err != nil {
		return nil, err
	}
	for i := range start {
		if start[i]%a.Chunks[i] != 0 || (start[i]+count[i])%a.Chunks[i] != 0 && start[i]+count[i] != a.Shape[i] {
			return nil, a.errf("", "region %v+%v does not cover whole chunks of %v", start, count, a.Chunks)
		}
		if count[i] == 0 {
			return nil, nil
		}
	}
	return gridCells(start, count, a.Chunks), nil
}

// writeCell encodes and stores one grid cell (chunk or shard) of the
// region start+count whose elements are data.
//
// seq is the chunk's place in the order chunks were handed out to the
// encoders (-1: written by the caller): an OrderedStore gets them in
// that order.
func (w *ArrayWriter) writeCell(ctx context.Context, sc *cellScratch, cell, start, count []int64, data []byte, seq int64) error {
	a := w.a
	enc, ob, sb := &sc.enc, &sc.out, &sc.ext
	key := a.ChunkKey(cell)
	var out []byte
	var err error
	if a.vlen {
		buf := w.extract(sb, cell, a.Chunks, start, count, data)
		var items [][]byte
		if items, err = stringItems(w.in, buf); err == nil {
			out = encodeVlen(items)
			if w.comp != nil {
				if out, err = w.comp.encode(enc, (*ob)[:0], out); err == nil {
					*ob = out
				}
			}
		}
	} else if a.Inner == nil {
		// A chunk whole and contiguous in the region is encoded where it is.
		buf := a.segment(cell, start, count, data, int64(w.es))
		if buf == nil {
			buf = w.extract(sb, cell, a.Chunks, start, count, data)
		}
		if w.comp == nil {
			out = buf
		} else if out, err = w.comp.encode(enc, (*ob)[:0], buf); err == nil {
			*ob = out
		}
	} else {
		if out, err = w.encodeShard(enc, sb, (*ob)[:0], cell, start, count, data); err == nil && out != nil {
			*ob = out
		}
	}
	if err != nil {
		return a.errf(key, "%v", err)
	}
	if !w.awaitTurn(seq) {
		return nil // the writer failed meanwhile: its error is already kept
	}
	defer w.doneTurn(seq)
	if out == nil {
		return nil // an empty shard is not stored
	}
	if err := a.store.Put(ctx, key, out); err != nil {
		return a.errf(key, "%v", err)
	}
	return nil
}

// awaitTurn waits, for an OrderedStore, until chunk seq is the next to
// store; false if the writer failed meanwhile (then nothing is stored).
// Chunks are handed out in order and each encoder takes the next one, so
// the earliest chunk not yet stored is always held by an encoder that
// is not waiting.
func (w *ArrayWriter) awaitTurn(seq int64) bool {
	if w.turnCond == nil || seq < 0 {
		return true
	}
	w.turnMu.Lock()
	defer w.turnMu.Unlock()
	for w.turn != seq && w.failed() == nil {
		w.turnCond.Wait()
	}
	return w.failed() == nil
}

// doneTurn lets the chunk after seq be stored.
func (w *ArrayWriter) doneTurn(seq int64) {
	if w.turnCond == nil || seq < 0 {
		return
	}
	w.turnMu.Lock()
	w.turn = seq + 1
	w.turnCond.Broadcast()
	w.turnMu.Unlock()
}

// fail keeps err as the writer's sticky error (the first one wins) and
// wakes the chunks waiting for their turn, which then store nothing.
func (w *ArrayWriter) fail(err error) {
	w.errMu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.errMu.Unlock()
	if w.turnCond != nil {
		w.turnMu.Lock()
		w.turnCond.Broadcast()
		w.turnMu.Unlock()
	}
}

// extract copies grid cell idx of shape unit (in units of unit) out of the
// region data into *scratch (grown when short), the parts past the
// array's end set to the fill value. The region must cover the cell
// wherever the cell is inside the array: every other byte is written.
func (w *ArrayWriter) extract(scratch *[]byte, idx, unit []int64, start, count []int64, data []byte) []byte {
	a := w.a
	es := int64(w.es)
	n := es
	for _, u := range unit {
		n *= u
	}
	if int64(cap(*scratch)) < n {
		*scratch = make([]byte, n)
	}
	buf := (*scratch)[:n]
	nd := len(unit)
	if nd == 0 {
		copy(buf, data)
		return buf
	}
	full := true
	for i := range unit {
		if (idx[i]+1)*unit[i] > a.Shape[i] {
			full = false
		}
	}
	if !full {
		if a.vlen { // variable-length strings overhang as "", as zarr-python writes them
			clear(buf)
		} else {
			a.fill(buf)
		}
	}
	// Copy rows of the last axis from the region (the inverse of copyUnit).
	lo := make([]int64, nd)
	ext := make([]int64, nd)
	for i := range unit {
		c0 := idx[i] * unit[i]
		lo[i] = c0
		ext[i] = min(c0+unit[i], a.Shape[i], start[i]+count[i]) - c0
		if ext[i] <= 0 {
			return buf
		}
	}
	us := make([]int64, nd)
	rs := make([]int64, nd)
	s, r := es, es
	for i := nd - 1; i >= 0; i-- {
		us[i], rs[i] = s, r
		s *= unit[i]
		r *= count[i]
	}
	run := ext[nd-1] * es
	pos := make([]int64, nd-1)
	for {
		so, do := int64(0), int64(0)
		for i := 0; i < nd; i++ {
			p := int64(0)
			if i < nd-1 {
				p = pos[i]
			}
			so += p * us[i]
			do += (lo[i] + p - start[i]) * rs[i]
		}
		copy(buf[so:so+run], data[do:do+run])
		k := nd - 2
		for ; k >= 0; k-- {
			pos[k]++
			if pos[k] < ext[k] {
				break
			}
			pos[k] = 0
		}
		if k < 0 {
			return buf
		}
	}
}

// encodeUnit appends one decoded unit, run through the compressor, to
// dst.
func (w *ArrayWriter) encodeUnit(enc *codec.Encoder, dst, buf []byte) ([]byte, error) {
	if w.comp == nil {
		return append(dst, buf...), nil
	}
	return w.comp.encode(enc, dst, buf)
}

// fillUnit is one inner chunk of the fill value (made once).
func (w *ArrayWriter) fillUnit() []byte {
	w.fillOnce.Do(func() {
		w.fillChunk = make([]byte, w.a.unitBytes())
		w.a.fill(w.fillChunk)
	})
	return w.fillChunk
}

// encodeShard appends to dst shard cell: its inner chunks (all-fill ones
// left out as empty) then the index (offset, size pairs, little endian)
// and its CRC-32C. Inner chunks are copied out through scratch. nil when
// every inner chunk is empty.
func (w *ArrayWriter) encodeShard(enc *codec.Encoder, scratch *[]byte, dst []byte, cell, start, count []int64, data []byte) ([]byte, error) {
	a := w.a
	nd := len(cell)
	per := a.perShard
	total := int64(1)
	for _, p := range per {
		total *= p
	}
	index := make([]byte, 16*total)
	body := dst
	fill := w.fillUnit()
	inner := make([]int64, nd)
	any := false
	for j := int64(0); j < total; j++ {
		rem := j
		outside := false
		for i := nd - 1; i >= 0; i-- {
			inner[i] = cell[i]*per[i] + rem%per[i]
			rem /= per[i]
			if inner[i]*a.Inner[i] >= a.Shape[i] {
				outside = true
			}
		}
		empty := outside
		var buf []byte
		if !outside {
			buf = w.extract(scratch, inner, a.Inner, start, count, data)
			empty = bytes.Equal(buf, fill)
		}
		if empty {
			binary.LittleEndian.PutUint64(index[16*j:], math.MaxUint64)
			binary.LittleEndian.PutUint64(index[16*j+8:], math.MaxUint64)
			continue
		}
		at := len(body)
		var err error
		if body, err = w.encodeUnit(enc, body, buf); err != nil {
			return nil, err
		}
		binary.LittleEndian.PutUint64(index[16*j:], uint64(at-len(dst)))
		binary.LittleEndian.PutUint64(index[16*j+8:], uint64(len(body)-at))
		any = true
	}
	if !any {
		return nil, nil
	}
	body = append(body, index...)
	return binary.LittleEndian.AppendUint32(body, crc32.Checksum(index, castagnoli)), nil
}

// errAborted is the sticky error of an aborted writer.
var errAborted = errors.New("zarr: array writer aborted")

// Abort ends a writer whose output is being discarded: the chunks not
// yet stored are dropped, no metadata is written, and Abort returns once
// no background encoder of w is left, so none stores a chunk after it.
// Close after Abort does nothing. Like the other methods, it must not
// run at the same time as them.
func (w *ArrayWriter) Abort() {
	w.fail(errAborted)
	w.closed = true
	w.inflight.Wait()
}

// Close writes whatever rows are still buffered, waits for the chunks
// being encoded, and writes the metadata (last, so a reader never sees
// an array whose chunks are not all there). After an error of WriteRows,
// Close still waits for the chunks in flight and returns the error.
func (w *ArrayWriter) Close(ctx context.Context) error {
	if w.closed {
		return nil
	}
	w.closed = true
	a := w.a
	if len(w.band) > 0 {
		if err := w.flushBand(ctx); err != nil {
			w.inflight.Wait()
			return err
		}
	}
	w.inflight.Wait()
	if err := w.failed(); err != nil {
		return err
	}
	if w.region {
		if w.rows != w.end {
			return a.errf("", "rows %d to %d: %d written", w.rowsFrom, w.end, w.rows-w.rowsFrom)
		}
		return nil // the metadata is written by another writer
	}
	if w.rows != 0 && len(a.Shape) > 0 && w.rows != a.Shape[0] {
		return a.errf("", "%d of %d rows written", w.rows, a.Shape[0])
	}
	docKey := ".zarray"
	if w.opts.Format == 3 {
		docKey = "zarr.json"
	}
	if w.attrs != nil {
		if err := a.store.Put(ctx, join(a.Path, ".zattrs"), w.attrs); err != nil {
			return a.errf("", "%v", err)
		}
	}
	if err := a.store.Put(ctx, join(a.Path, docKey), w.doc); err != nil {
		return a.errf("", "%v", err)
	}
	if w.group != nil {
		w.group.add(a.Path, docKey, w.doc, w.attrs)
	}
	return nil
}
