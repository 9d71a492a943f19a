package hdf5

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/npyflow/npyflow/npyio"
)

// DatasetOptions chooses a dataset's storage. The zero value (or nil) is
// the compact layout for data up to CompactAuto bytes and contiguous
// otherwise.
type DatasetOptions struct {
	// Chunk is the chunk shape (one entry per dimension, each at least 1).
	// Setting it, a compression, Shuffle or Unlimited makes the dataset
	// chunked; with none of them set explicitly a chunk shape of about
	// 1 MiB is chosen.
	Chunk []uint64
	// Compression is the filter compressing each chunk: CompressionDeflate,
	// CompressionLZ4, CompressionZstd or CompressionNone; "" means none
	// (or deflate when Deflate is set). Chunks are compressed by the
	// Writer's workers.
	Compression Compression
	// Level is the compression level (see each Compression); 0 means the
	// compression's default.
	Level int
	// Deflate n (1-9) is short for Compression deflate at Level n; 0 means
	// none. It cannot be combined with Compression or Level.
	Deflate int
	// Shuffle adds the byte shuffle filter before the compression.
	Shuffle bool
	// Compact forces the compact layout (data stored in the object header,
	// at most 64 KiB); it cannot be combined with chunking.
	Compact bool
	// Contiguous forces the contiguous layout even for tiny data.
	Contiguous bool
	// Unlimited makes the first dimension extendible: shape[0] is ignored
	// and the dataset has as many rows as Write appended (chunked only).
	Unlimited bool
	// Strings is how numpy U values are stored: StringsFixed ("" too),
	// fixed-length UTF-8 strings of UnicodeBytes bytes, or StringsVlen,
	// variable-length UTF-8 strings (a U dataset; U fields of a struct
	// stay fixed-length). Write takes numpy's UCS-4 rows and converts
	// them.
	Strings Strings
	// UnicodeBytes are the byte widths of the fixed-length UTF-8 strings,
	// one per U value of the dtype (UnicodeSizer measures them); nil
	// means 4 bytes per character, room for any value. A value longer
	// than its width is an error at Write.
	UnicodeBytes []int
}

// CompactAuto is the largest data size, in bytes, stored in the compact
// layout when DatasetOptions ask for no particular layout.
const CompactAuto = 4096

const (
	wLayoutCompact    = 0
	wLayoutContiguous = 1
	wLayoutChunked    = 2
	wMaxCompact       = 0xff00 // compact data size limit (the message must fit in 64 KiB)
)

// DatasetWriter writes one dataset's data: whole rows in C order with
// Write, or whole chunks with WriteChunk; then Close.
//
// Memory: a chunked Write keeps one block of Chunk[0] rows (Chunk[0] times
// the row size) until it is full, unless the caller passes whole blocks,
// which are cut into chunks straight from its buffer; at most two chunks
// per worker wait for compression. Contiguous rows go straight to the
// file; compact data (at most 64 KiB) is kept until Writer.Close.
type DatasetWriter struct {
	w        *Writer
	h        *wHeader
	path     string
	typ      []byte // encoded datatype
	esz      uint64
	shape    []uint64 // final shape (shape[0] grows when unlimited)
	scalar   bool
	unlim    bool
	layout   int
	rowSize  uint64 // bytes per row (the whole element for a scalar)
	rows     uint64 // rows written so far
	closed   bool
	comp     Compression // CompressionNone when not compressed
	level    int
	shuffle  bool
	compact  []byte   // compact layout: the data
	addr     uint64   // contiguous: data address
	chunk    []uint64 // chunked: chunk shape
	slab     []byte   // chunked Write: the current block of chunk[0] rows
	slabRows uint64
	byChunk  bool // WriteChunk was used
	chunks   []wChunkRec
	btree    uint64
	conv     *wStrConv // numpy U values converted to UTF-8 strings
}

type wChunkRec struct {
	offs []uint64 // element offsets of the chunk's first element
	addr uint64
	size uint64
}

// CreateDataset adds a dataset of dtype dt and the given shape (nil or
// empty for a scalar). See the package notes for the dtypes written.
func (g *GroupWriter) CreateDataset(name string, dt *npyio.DType, shape []uint64, opts *DatasetOptions) (*DatasetWriter, error) {
	var conv *wStrConv
	stored := dt
	if dt != nil && HasUnicode(dt) {
		var o DatasetOptions
		if opts != nil {
			o = *opts
		}
		switch o.Strings {
		case "", StringsFixed, StringsVlen:
		default:
			return nil, fmt.Errorf("hdf5: %s: strings %q (fixed or vlen)", wJoin(g.path, name), o.Strings)
		}
		var err error
		if conv, stored, err = newStrConv(dt, o.UnicodeBytes, o.Strings == StringsVlen); err != nil {
			return nil, fmt.Errorf("hdf5: %s: %w", wJoin(g.path, name), err)
		}
	}
	typ, err := wEncodeDType(stored)
	if err != nil {
		return nil, fmt.Errorf("hdf5: %s: %w", wJoin(g.path, name), err)
	}
	d, err := g.createDataset(name, typ, uint64(stored.Size), shape, opts)
	if err != nil {
		return nil, err
	}
	d.conv = conv
	return d, nil
}

// CreateRefDataset adds a dataset of object references (H5T_STD_REF_OBJ,
// what MATLAB cells are) of the given shape holding refs in C order.
func (g *GroupWriter) CreateRefDataset(name string, refs []ObjRef, shape []uint64) error {
	if n, ok := wCount(shape); !ok || n != uint64(len(refs)) {
		return fmt.Errorf("hdf5: %s: %d references for shape %v", wJoin(g.path, name), len(refs), shape)
	}
	d, err := g.createDataset(name, wRefType(), 8, shape, nil)
	if err != nil {
		return err
	}
	b := make([]byte, 0, 8*len(refs))
	for _, r := range refs {
		b = binary.LittleEndian.AppendUint64(b, uint64(r))
	}
	if err := d.Write(b); err != nil {
		return err
	}
	return d.Close()
}

func (g *GroupWriter) createDataset(name string, typ []byte, esz uint64, shape []uint64, opts *DatasetOptions) (*DatasetWriter, error) {
	path := wJoin(g.path, name)
	var o DatasetOptions
	if opts != nil {
		o = *opts
	}
	d := &DatasetWriter{w: g.w, path: path, typ: typ, esz: esz, shape: slices.Clone(shape),
		scalar: len(shape) == 0, unlim: o.Unlimited, shuffle: o.Shuffle, addr: wUndef, btree: wUndef}
	if len(shape) > 32 {
		return nil, fmt.Errorf("hdf5: %s: rank %d is over HDF5's 32", path, len(shape))
	}
	var err error
	if d.comp, d.level, err = o.compression(); err != nil {
		return nil, fmt.Errorf("hdf5: %s: %w", path, err)
	}
	if o.Unlimited {
		if d.scalar {
			return nil, fmt.Errorf("hdf5: %s: a scalar cannot have an unlimited dimension", path)
		}
		d.shape[0] = 0
	}
	d.rowSize = esz
	for _, s := range d.shape[min(1, len(d.shape)):] {
		var ok bool
		if d.rowSize, ok = wMul(d.rowSize, s); !ok {
			return nil, fmt.Errorf("hdf5: %s: shape %v is too large", path, shape)
		}
	}
	total := d.rowSize
	if !d.scalar {
		var ok bool
		if total, ok = wMul(d.rowSize, d.shape[0]); !ok || total > 1<<62 {
			return nil, fmt.Errorf("hdf5: %s: shape %v is too large", path, shape)
		}
	}
	chunked := o.Chunk != nil || d.comp != CompressionNone || o.Shuffle || o.Unlimited
	switch {
	case o.Compact && (chunked || o.Contiguous):
		return nil, fmt.Errorf("hdf5: %s: the compact layout has no chunks, filters or unlimited dimension", path)
	case o.Contiguous && chunked:
		return nil, fmt.Errorf("hdf5: %s: the contiguous layout has no chunks, filters or unlimited dimension", path)
	case chunked && d.scalar:
		return nil, fmt.Errorf("hdf5: %s: a scalar dataset cannot be chunked", path)
	case o.Compact:
		if total > wMaxCompact {
			return nil, fmt.Errorf("hdf5: %s: %d bytes are too many for the compact layout (at most %d)", path, total, wMaxCompact)
		}
		d.layout = wLayoutCompact
	case chunked:
		d.layout = wLayoutChunked
	case !o.Contiguous && total <= CompactAuto:
		d.layout = wLayoutCompact
	default:
		d.layout = wLayoutContiguous
	}
	if d.layout == wLayoutChunked {
		if o.Chunk != nil {
			if len(o.Chunk) != len(d.shape) {
				return nil, fmt.Errorf("hdf5: %s: chunk shape %v does not match rank %d", path, o.Chunk, len(d.shape))
			}
			d.chunk = slices.Clone(o.Chunk)
		} else {
			d.chunk = wGuessChunk(d.shape, esz, o.Unlimited)
		}
		bytes := esz
		for i, c := range d.chunk {
			if c == 0 {
				return nil, fmt.Errorf("hdf5: %s: chunk shape %v has a zero", path, d.chunk)
			}
			if !o.Unlimited || i > 0 {
				// HDF5 refuses chunks larger than a fixed dimension.
				if d.shape[i] > 0 && c > d.shape[i] {
					return nil, fmt.Errorf("hdf5: %s: chunk shape %v exceeds shape %v", path, d.chunk, d.shape)
				}
			}
			var ok bool
			if bytes, ok = wMul(bytes, c); !ok || bytes >= 1<<32 || c >= 1<<32 {
				return nil, fmt.Errorf("hdf5: %s: chunk shape %v is 4 GiB or more", path, d.chunk)
			}
		}
	}
	if err := g.addName(name); err != nil {
		return nil, err
	}
	// Reserve the header: dataspace, datatype, fill value, layout and
	// filter messages, plus room for attributes.
	fixed := uint64(8+8+16*len(d.shape)) + uint64(8+wPad8(len(typ))) + 16 + 8 + 24 + 8*uint64(len(d.shape)+1)
	if d.layout == wLayoutCompact {
		fixed += uint64(wPad8(int(total)))
	}
	if d.layout == wLayoutChunked {
		fixed += uint64(8 + max(8+2*24, wPad8(len(d.filterMessage()))))
	}
	d.h = g.w.newHeader(path, fixed)
	d.h.msgs = d.messages
	if d.layout == wLayoutContiguous && total > 0 {
		d.addr = g.w.alloc(total)
	}
	g.members = append(g.members, wEntry{name: name, h: d.h})
	g.w.dsets = append(g.w.dsets, d)
	return d, nil
}

func wMul(a, b uint64) (uint64, bool) {
	if a != 0 && b > (1<<63)/a {
		return 0, false
	}
	return a * b, true
}

// wGuessChunk picks a chunk shape of at most about 1 MiB: the dataset's
// shape (1024 rows for an unlimited first dimension, 1 for an empty one),
// the largest dimension halved until it fits.
func wGuessChunk(shape []uint64, esz uint64, unlimited bool) []uint64 {
	c := make([]uint64, len(shape))
	for i, s := range shape {
		c[i] = max(s, 1)
		if i == 0 && unlimited {
			c[i] = 1024
		}
	}
	for {
		bytes := esz
		big := 0
		for i, v := range c {
			bytes *= v
			if v > c[big] {
				big = i
			}
		}
		if bytes <= 1<<20 || c[big] == 1 {
			return c
		}
		c[big] = (c[big] + 1) / 2
	}
}

// Path is the dataset's absolute path.
func (d *DatasetWriter) Path() string { return d.path }

// Ref is an object reference to the dataset (its object header address).
func (d *DatasetWriter) Ref() ObjRef { return ObjRef(d.h.addr) }

// SetAttr adds an attribute to the dataset. Attributes may be set until
// the Writer is closed, also after the dataset's Close.
func (d *DatasetWriter) SetAttr(name string, v AttrValue) error {
	return d.w.setAttr(d.h, name, v)
}

// Shape is the dataset's shape so far (the row count grows as an
// unlimited dataset is written).
func (d *DatasetWriter) Shape() []uint64 {
	s := slices.Clone(d.shape)
	if d.unlim {
		s[0] = d.rows
	}
	return s
}

func (d *DatasetWriter) wantRows() uint64 {
	if d.scalar {
		return 1
	}
	return d.shape[0]
}

// Write appends whole rows (len(rows) a multiple of the row size: the
// product of shape[1:] times the item size) in C order, in the dtype's own
// byte order. A scalar dataset takes its one element.
func (d *DatasetWriter) Write(rows []byte) error {
	if err := d.w.check(); err != nil {
		return err
	}
	if d.closed {
		return fmt.Errorf("hdf5: %s: write after Close", d.path)
	}
	if d.byChunk {
		return fmt.Errorf("hdf5: %s: Write after WriteChunk (use one or the other)", d.path)
	}
	if len(rows) == 0 {
		return nil
	}
	if d.conv != nil {
		in := d.rowSize / d.esz * uint64(d.conv.inSize)
		if in == 0 || uint64(len(rows))%in != 0 {
			return fmt.Errorf("hdf5: %s: %d bytes are not whole rows of %d bytes", d.path, len(rows), in)
		}
		var err error
		if rows, err = d.conv.convert(d.w, rows); err != nil {
			return fmt.Errorf("hdf5: %s: %w", d.path, err)
		}
	}
	if d.rowSize == 0 || uint64(len(rows))%d.rowSize != 0 {
		return fmt.Errorf("hdf5: %s: %d bytes are not whole rows of %d bytes", d.path, len(rows), d.rowSize)
	}
	n := uint64(len(rows)) / d.rowSize
	if !d.unlim && d.rows+n > d.wantRows() {
		return fmt.Errorf("hdf5: %s: %d rows written, more than the %d of shape %v", d.path, d.rows+n, d.wantRows(), d.shape)
	}
	switch d.layout {
	case wLayoutCompact:
		d.compact = append(d.compact, rows...)
		d.rows += n
		return nil
	case wLayoutContiguous:
		if err := d.w.writeAt(d.addr+d.rows*d.rowSize, rows); err != nil {
			return err
		}
		d.rows += n
		return nil
	}
	// Chunked: fill blocks of chunk[0] rows and cut each full one.
	slabBytes := d.chunk[0] * d.rowSize
	for len(rows) > 0 {
		if len(d.slab) == 0 && uint64(len(rows)) >= slabBytes {
			// A whole block straight from the caller's buffer.
			if err := d.cutSlab(rows[:slabBytes], d.rows, d.chunk[0]); err != nil {
				return err
			}
			rows = rows[slabBytes:]
			d.rows += d.chunk[0]
			continue
		}
		if d.slab == nil {
			d.slab = make([]byte, 0, slabBytes)
		}
		k := min(uint64(len(rows)), slabBytes-uint64(len(d.slab)))
		d.slab = append(d.slab, rows[:k]...)
		rows = rows[k:]
		d.rows += k / d.rowSize
		if uint64(len(d.slab)) == slabBytes {
			if err := d.cutSlab(d.slab, d.rows-d.chunk[0], d.chunk[0]); err != nil {
				return err
			}
			d.slab = d.slab[:0]
		}
	}
	return nil
}

// cutSlab splits a block of chunk[0] rows (n of them real, the first at
// row first) into chunks and queues them for filtering.
func (d *DatasetWriter) cutSlab(slab []byte, first, n uint64) error {
	rank := len(d.shape)
	// Iterate over the chunk grid of the trailing dimensions.
	idx := make([]uint64, rank)
	idx[0] = first
	csize := d.esz
	for _, c := range d.chunk {
		csize *= c
	}
	// Filtered chunks are cut from the block by the workers; the block is
	// the caller's (or d.slab), so wait until every chunk is cut.
	var g *wGather
	if d.filtered() && d.w.workers > 1 {
		g = &wGather{slab: slab, n: n, size: int(csize)}
		defer g.copied.Wait()
	}
	for {
		if g != nil {
			if err := d.w.queueGather(d, slices.Clone(idx), g); err != nil {
				return err
			}
		} else {
			buf := d.w.getBuf(int(csize))
			wCopyChunk(buf, slab, n, d.shape, d.chunk, idx, d.esz)
			if err := d.w.queueChunk(d, slices.Clone(idx), buf); err != nil {
				return err
			}
		}
		// next chunk position in dims 1..rank-1
		i := rank - 1
		for ; i >= 1; i-- {
			idx[i] += d.chunk[i]
			if idx[i] < d.shape[i] {
				break
			}
			idx[i] = 0
		}
		if i < 1 {
			return nil
		}
	}
}

// wCopyChunk gathers the chunk whose first element is at offs (offs[0] is
// the block's first row) from a block of n rows of a C-order array of the
// given shape, padding with zeros outside the array.
func wCopyChunk(dst, slab []byte, n uint64, shape, chunk, offs []uint64, esz uint64) {
	rank := len(shape)
	whole := true // the chunk spans whole rows: one contiguous run
	row := esz
	for i := 1; i < rank; i++ {
		whole = whole && chunk[i] == shape[i]
		row *= shape[i]
	}
	if whole {
		k := copy(dst, slab[:n*row])
		clear(dst[k:])
		return
	}
	// extent of the chunk inside the array in each dimension
	ext := make([]uint64, rank)
	ext[0] = n
	for i := 1; i < rank; i++ {
		ext[i] = min(chunk[i], shape[i]-offs[i])
	}
	// strides in bytes of the block and of the chunk
	sst := make([]uint64, rank)
	cst := make([]uint64, rank)
	sst[rank-1], cst[rank-1] = esz, esz
	for i := rank - 2; i >= 0; i-- {
		sst[i] = sst[i+1] * shape[i+1]
		cst[i] = cst[i+1] * chunk[i+1]
	}
	full := true
	for i := 1; i < rank; i++ {
		full = full && ext[i] == chunk[i]
	}
	if !full || n < chunk[0] {
		clear(dst)
	}
	run := ext[rank-1] * esz
	pos := make([]uint64, rank-1) // index over dims 0..rank-2
	for {
		so, co := offs[rank-1]*esz, uint64(0)
		for i := 0; i < rank-1; i++ {
			p := pos[i]
			if i > 0 {
				p += offs[i]
			}
			so += p * sst[i]
			co += pos[i] * cst[i]
		}
		copy(dst[co:co+run], slab[so:so+run])
		i := rank - 2
		for ; i >= 0; i-- {
			pos[i]++
			if pos[i] < ext[i] {
				break
			}
			pos[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// WriteChunk writes one whole chunk at chunk-grid coordinates coords
// (element offsets coords[i]*Chunk[i]): data is the full chunk in C order,
// chunk-shaped even at the edges (the part outside the dataset is
// ignored by readers). The dataset must be chunked with a fixed shape, and
// Write must not be used on it. Chunks may come in any order; each once.
func (d *DatasetWriter) WriteChunk(coords []uint64, data []byte) error {
	if err := d.w.check(); err != nil {
		return err
	}
	if d.closed {
		return fmt.Errorf("hdf5: %s: WriteChunk after Close", d.path)
	}
	if d.layout != wLayoutChunked || d.unlim {
		return fmt.Errorf("hdf5: %s: WriteChunk needs a chunked dataset with a fixed shape", d.path)
	}
	if d.conv != nil {
		return fmt.Errorf("hdf5: %s: WriteChunk takes no unicode values (use Write)", d.path)
	}
	if d.rows > 0 || len(d.slab) > 0 {
		return fmt.Errorf("hdf5: %s: WriteChunk after Write (use one or the other)", d.path)
	}
	if len(coords) != len(d.shape) {
		return fmt.Errorf("hdf5: %s: chunk coordinates %v do not match rank %d", d.path, coords, len(d.shape))
	}
	offs := make([]uint64, len(coords))
	for i, c := range coords {
		offs[i] = c * d.chunk[i]
		if c >= (1<<63)/d.chunk[i] || offs[i] >= d.shape[i] {
			return fmt.Errorf("hdf5: %s: chunk coordinates %v are outside shape %v", d.path, coords, d.shape)
		}
	}
	csize := d.esz
	for _, c := range d.chunk {
		csize *= c
	}
	if uint64(len(data)) != csize {
		return fmt.Errorf("hdf5: %s: a chunk has %d bytes, not %d", d.path, len(data), csize)
	}
	d.byChunk = true
	buf := d.w.getBuf(int(csize))
	copy(buf, data)
	return d.w.queueChunk(d, offs, buf)
}

// Close finishes the dataset: a fixed-shape dataset must have all its
// rows (or, with WriteChunk, any subset of chunks: the others read as
// zeros). The chunk index is written now; the header at Writer.Close.
func (d *DatasetWriter) Close() error {
	if d.closed {
		return nil
	}
	if err := d.w.check(); err != nil {
		return err
	}
	if !d.byChunk && !d.unlim && d.rows != d.wantRows() && d.rowSize > 0 {
		// The dataset stays open: write the rest and Close again (the
		// Writer's Close fails while it is incomplete).
		return fmt.Errorf("hdf5: %s: %d of %d rows written", d.path, d.rows, d.wantRows())
	}
	d.closed = true
	if d.unlim {
		d.shape[0] = d.rows
	}
	if d.layout != wLayoutChunked {
		return nil
	}
	if len(d.slab) > 0 {
		n := uint64(len(d.slab)) / d.rowSize
		if err := d.cutSlab(d.slab, d.rows-n, n); err != nil {
			return err
		}
		d.slab = nil
	}
	if err := d.w.drain(); err != nil {
		return err
	}
	slices.SortFunc(d.chunks, func(a, b wChunkRec) int { return slices.Compare(a.offs, b.offs) })
	for i := 1; i < len(d.chunks); i++ {
		if slices.Equal(d.chunks[i].offs, d.chunks[i-1].offs) {
			d.w.err = fmt.Errorf("hdf5: %s: chunk at %v written twice", d.path, d.chunks[i].offs)
			return d.w.err
		}
	}
	if len(d.chunks) == 0 {
		return nil
	}
	rank := len(d.shape)
	keySize := 8 + 8*(rank+1)
	key := func(size uint64, offs []uint64) []byte {
		b := make([]byte, 8, keySize)
		binary.LittleEndian.PutUint32(b, uint32(size))
		for _, o := range offs {
			b = binary.LittleEndian.AppendUint64(b, o)
		}
		return binary.LittleEndian.AppendUint64(b, 0)
	}
	leaves := make([]wBTChild, len(d.chunks))
	for i, c := range d.chunks {
		leaves[i] = wBTChild{addr: c.addr, left: key(c.size, c.offs)}
		if i > 0 {
			leaves[i-1].right = leaves[i].left
		}
	}
	last := d.chunks[len(d.chunks)-1]
	end := make([]uint64, rank)
	for i := range end {
		end[i] = last.offs[i] + d.chunk[i]
	}
	leaves[len(leaves)-1].right = key(0, end)
	root, err := d.w.writeBTree(1, wChunkK, keySize, leaves)
	if err != nil {
		return err
	}
	d.btree = root
	d.chunks = nil
	return nil
}

// messages are the dataset's header messages, known once it is closed.
func (d *DatasetWriter) messages() ([]wMsg, error) {
	ms := []wMsg{
		{typ: wMsgDataspace, data: wDataspace(d.shapeOrNil(), d.unlim)},
		{typ: wMsgDatatype, flags: 1, data: d.typ},
	}
	// Fill value message version 2: allocation time, fill time IFSET,
	// the library's default fill value (zeros).
	alloc := byte(1) // early
	if d.layout == wLayoutChunked {
		alloc = 3 // incremental
	}
	ms = append(ms, wMsg{typ: wMsgFill, flags: 1, data: []byte{2, alloc, 2, 1, 0, 0, 0, 0}})
	layout := []byte{3, byte(d.layout)}
	switch d.layout {
	case wLayoutCompact:
		layout = binary.LittleEndian.AppendUint16(layout, uint16(len(d.compact)))
		layout = append(layout, d.compact...)
	case wLayoutContiguous:
		layout = binary.LittleEndian.AppendUint64(layout, d.addr)
		layout = binary.LittleEndian.AppendUint64(layout, d.rows*d.rowSize)
	case wLayoutChunked:
		layout = append(layout, byte(len(d.shape)+1))
		layout = binary.LittleEndian.AppendUint64(layout, d.btree)
		for _, c := range d.chunk {
			layout = binary.LittleEndian.AppendUint32(layout, uint32(c))
		}
		layout = binary.LittleEndian.AppendUint32(layout, uint32(d.esz))
	}
	if d.layout == wLayoutChunked && (d.shuffle || d.comp != CompressionNone) {
		ms = append(ms, wMsg{typ: wMsgFilters, data: d.filterMessage()})
	}
	ms = append(ms, wMsg{typ: wMsgLayout, data: layout})
	return ms, nil
}

func (d *DatasetWriter) shapeOrNil() []uint64 {
	if d.scalar {
		return nil
	}
	return d.shape
}
