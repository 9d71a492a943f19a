package arrowconv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// IPCInfo describes an Arrow IPC file or stream as its metadata gives it,
// without reading record bodies.
type IPCInfo struct {
	Format  IPCFormat
	Schema  *arrow.Schema
	Batches int   // record batches
	Rows    int64 // rows in all record batches
	// NullCounts are the nulls of each top-level column in all record
	// batches, from their metadata (-1 where it does not say, and for
	// dictionary columns: a null in a dictionary makes values null that
	// the batches do not count).
	NullCounts []int64

	nodeNulls [][]int64 // per batch: the null count of each field node
}

// sumNulls fills NullCounts from the batches' field nodes: a top-level
// column's node comes first among its own (depth-first, as the IPC format
// orders them).
func (info *IPCInfo) sumNulls() {
	if info.Schema == nil {
		return
	}
	info.NullCounts = make([]int64, info.Schema.NumFields())
	for _, nodes := range info.nodeNulls {
		k := 0
		for i, f := range info.Schema.Fields() {
			_, dict := f.Type.(*arrow.DictionaryType)
			if k >= len(nodes) || info.NullCounts[i] < 0 || dict {
				info.NullCounts[i] = -1
			} else {
				info.NullCounts[i] += nodes[k]
			}
			k += fieldNodes(f.Type)
		}
	}
	info.nodeNulls = nil
}

// fieldNodes counts the field nodes an array of type t has in a record
// batch: its own and its children's (a dictionary's values are in
// dictionary batches).
func fieldNodes(t arrow.DataType) int {
	switch tt := t.(type) {
	case arrow.ExtensionType:
		return fieldNodes(tt.StorageType())
	case *arrow.DictionaryType:
		return 1
	case arrow.NestedType:
		n := 1
		for _, f := range tt.Fields() {
			n += fieldNodes(f.Type)
		}
		return n
	}
	return 1
}

// maxCountedNodes bounds the field nodes whose null counts are kept per
// record batch.
const maxCountedNodes = 1 << 12

// batchNodeNulls reads the null count of each field node of a record
// batch message.
func batchNodeNulls(b []byte) []int64 {
	m, err := fbRoot(b)
	if err != nil {
		return nil
	}
	rb, ok, err := m.table(2)
	if err != nil || !ok {
		return nil
	}
	start, n, err := rb.vector(1, 16) // nodes: FieldNode structs (length, null_count)
	if err != nil {
		return nil
	}
	// Kept for every batch until the schema is known: bounded (columns
	// beyond count as unknown).
	n = min(n, maxCountedNodes)
	out := make([]int64, n)
	for j := range out {
		out[j] = int64(binary.LittleEndian.Uint64(rb.b[start+16*j+8:]))
	}
	return out
}

// maxIPCMeta bounds the metadata of one IPC message read by ReadIPCInfo.
const maxIPCMeta = 64 << 20

// ReadIPCInfo reads the schema, record batch count and row count of the
// IPC file or stream in the first size bytes of r. For the file format it
// reads the footer and each record batch's metadata (a few hundred bytes
// per batch); for a stream it walks the message headers, skipping bodies.
// Malformed metadata is an error, never a panic or a large allocation.
func ReadIPCInfo(r io.ReaderAt, size int64) (*IPCInfo, error) {
	info, _, err := readIPCInfo(r, size)
	return info, err
}

// featherV1Magic starts a Feather version 1 file, a format older than
// (and different from) Arrow IPC.
var featherV1Magic = []byte("FEA1")

var errFeatherV1 = &UnsupportedError{DType: "Feather v1", Msg: "Feather version 1 files (magic FEA1) are not Arrow IPC; " +
	"write Feather v2 instead (pyarrow.feather.write_feather's default, or R arrow::write_feather(version = 2))"}

// ipcBlock is where a message of an IPC file is: its offset, the length of
// its prefix and metadata, and the length of its body (a footer Block).
type ipcBlock struct{ off, meta, body int64 }

// fileBlocks lists the messages of an IPC file, as its footer gives them.
type fileBlocks struct {
	dicts, batches []ipcBlock
	schema         []byte // a Schema message built from the footer's schema
}

// schemaMessage returns the metadata of a Schema message whose schema is
// the table sch of the flatbuffer footer (whose root is the Footer), in
// the footer's metadata version. A file reader takes its schema from the
// footer: the IPC file format repeats it at the start, but not every
// writer does (Arrow JS writes no schema message in a file).
func schemaMessage(footer []byte, version int16, sch fbTable) []byte {
	// A 40-byte prefix (a multiple of 8, so the footer keeps its
	// alignment): root offset, the Message vtable, the Message table;
	// then the footer, whose tables are addressed relative to themselves.
	const pre = 40
	b := make([]byte, pre+len(footer))
	le := binary.LittleEndian
	le.PutUint32(b[0:], 16)  // root: the table at 16
	le.PutUint16(b[4:], 12)  // vtable: 12 bytes
	le.PutUint16(b[6:], 24)  // table: 24 bytes
	le.PutUint16(b[8:], 4)   // version
	le.PutUint16(b[10:], 6)  // header_type
	le.PutUint16(b[12:], 8)  // header
	le.PutUint16(b[14:], 16) // bodyLength
	le.PutUint32(b[16:], 12) // soffset to the vtable (16 - 4)
	le.PutUint16(b[20:], uint16(version))
	b[22] = msgSchema
	le.PutUint32(b[24:], uint32(pre+sch.pos-24)) // forward offset to the schema
	le.PutUint64(b[32:], 0)
	copy(b[pre:], footer)
	return b
}

// readIPCInfo is ReadIPCInfo, which also returns the footer's blocks of
// an IPC file (nil for a stream).
func readIPCInfo(r io.ReaderAt, size int64) (info *IPCInfo, blocks *fileBlocks, err error) {
	defer func() {
		if p := recover(); p != nil { // arrow-go panics on some malformed schemas
			info, blocks, err = nil, nil, fmt.Errorf("arrowconv: malformed IPC data: %v", p)
		}
	}()
	if size == 0 {
		return nil, nil, errors.New("arrowconv: an empty file is not Arrow IPC data")
	}
	head := make([]byte, 8)
	n, err := r.ReadAt(head, 0)
	if n < len(head) && err != nil && err != io.EOF {
		return nil, nil, fmt.Errorf("arrowconv: reading IPC data: %w", err)
	}
	head = head[:n]
	if bytes.HasPrefix(head, ipcMagic) {
		return readFileInfo(r, size)
	}
	if bytes.HasPrefix(head, featherV1Magic) {
		return nil, nil, errFeatherV1
	}
	info, err = readStreamInfo(r, size)
	return info, nil, err
}

// footerBlocks reads the count blocks of a footer vector that starts at
// start, each of which must fit a file of size bytes.
func footerBlocks(footer []byte, start, count int, size int64, what string) ([]ipcBlock, error) {
	out := make([]ipcBlock, count)
	for i := range out {
		blk := footer[start+24*i:]
		b := ipcBlock{
			off:  int64(binary.LittleEndian.Uint64(blk)),
			meta: int64(int32(binary.LittleEndian.Uint32(blk[8:]))),
			body: int64(binary.LittleEndian.Uint64(blk[16:])),
		}
		if b.off < 8 || b.meta < 8 || b.meta > maxIPCMeta || b.body < 0 || b.off > size || b.meta > size-b.off || b.body > size-b.off-b.meta {
			return nil, fmt.Errorf("arrowconv: IPC file %s %d: block (offset %d, metadata %d, body %d bytes) does not fit a file of %d bytes", what, i, b.off, b.meta, b.body, size)
		}
		out[i] = b
	}
	return out, nil
}

func readFileInfo(r io.ReaderAt, size int64) (*IPCInfo, *fileBlocks, error) {
	// The footer: its length and the magic end the file. It is checked
	// before arrow's reader sees it: arrow-go trusts its vector lengths.
	tail := make([]byte, 10)
	if size < 18 {
		return nil, nil, fmt.Errorf("arrowconv: IPC file of %d bytes is too short", size)
	}
	if _, err := r.ReadAt(tail, size-10); err != nil {
		return nil, nil, fmt.Errorf("arrowconv: reading IPC file footer: %w", err)
	}
	if !bytes.Equal(tail[4:], ipcMagic) {
		return nil, nil, fmt.Errorf("arrowconv: IPC file does not end with the ARROW1 magic: truncated or not an IPC file")
	}
	flen := int64(int32(binary.LittleEndian.Uint32(tail)))
	if flen <= 0 || flen > size-18 {
		return nil, nil, fmt.Errorf("arrowconv: IPC file footer length %d does not fit a file of %d bytes", flen, size)
	}
	footer := make([]byte, flen)
	if _, err := r.ReadAt(footer, size-10-flen); err != nil {
		return nil, nil, fmt.Errorf("arrowconv: reading IPC file footer: %w", err)
	}
	root, err := fbRoot(footer)
	if err != nil {
		return nil, nil, fmt.Errorf("arrowconv: IPC file footer: %w", err)
	}
	sch, ok, err := root.table(1)
	if err != nil || !ok {
		return nil, nil, fmt.Errorf("arrowconv: IPC file footer: no schema (%v)", err)
	} else if err := verifySchema(sch); err != nil {
		return nil, nil, fmt.Errorf("arrowconv: IPC file schema: %w", err)
	}
	version, err := root.int16(0)
	if err != nil {
		return nil, nil, fmt.Errorf("arrowconv: IPC file footer: %w", err)
	}
	start, count, err := root.vector(3, 24) // recordBatches: [Block]
	if err != nil {
		return nil, nil, fmt.Errorf("arrowconv: IPC file footer: %w", err)
	}
	dstart, dcount, err := root.vector(2, 24) // dictionaries: [Block]
	if err != nil {
		return nil, nil, fmt.Errorf("arrowconv: IPC file footer: %w", err)
	}
	blocks := &fileBlocks{schema: schemaMessage(footer, version, sch)}
	if blocks.dicts, err = footerBlocks(footer, dstart, dcount, size, "dictionary batch"); err != nil {
		return nil, nil, err
	}
	if blocks.batches, err = footerBlocks(footer, start, count, size, "record batch"); err != nil {
		return nil, nil, err
	}
	fr, n, err := newFileReader(io.NewSectionReader(r, 0, size), memory.DefaultAllocator)
	if err != nil {
		return nil, nil, fmt.Errorf("arrowconv: reading IPC file: %w", err)
	}
	info := &IPCInfo{Format: IPCFile, Schema: fr.Schema(), Batches: n}
	fr.Close()
	if count != info.Batches {
		return nil, nil, fmt.Errorf("arrowconv: IPC file footer lists %d record batches, arrow reads %d", count, info.Batches)
	}
	var meta []byte
	for i, blk := range blocks.batches {
		off, mlen := blk.off, blk.meta
		if int64(cap(meta)) < mlen {
			meta = make([]byte, mlen)
		}
		meta = meta[:mlen]
		if _, err := r.ReadAt(meta, off); err != nil {
			return nil, nil, fmt.Errorf("arrowconv: IPC file record batch %d: %w", i, err)
		}
		hdr := 4
		if binary.LittleEndian.Uint32(meta) == 0xFFFFFFFF {
			hdr = 8
		}
		typ, rows, _, err := parseMessage(meta[hdr:])
		if err != nil {
			return nil, nil, fmt.Errorf("arrowconv: IPC file record batch %d: %w", i, err)
		}
		if typ != msgRecordBatch {
			return nil, nil, fmt.Errorf("arrowconv: IPC file record batch %d: the block holds a message of type %d, not a record batch", i, typ)
		}
		info.Rows += rows
		info.nodeNulls = append(info.nodeNulls, batchNodeNulls(meta[hdr:]))
	}
	info.sumNulls()
	return info, blocks, nil
}

func readStreamInfo(r io.ReaderAt, size int64) (*IPCInfo, error) {
	info := &IPCInfo{Format: IPCStream}
	var meta []byte
	pre := make([]byte, 8)
	for pos := int64(0); pos < size; {
		k, err := r.ReadAt(pre, pos)
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("arrowconv: reading IPC stream at byte %d: %w", pos, err)
		}
		if k < 4 {
			return nil, fmt.Errorf("arrowconv: IPC stream truncated at byte %d: %d bytes of a message header", pos, k)
		}
		hdr := int64(4)
		mlen := int64(int32(binary.LittleEndian.Uint32(pre)))
		if uint32(mlen) == 0xFFFFFFFF {
			if k < 8 {
				return nil, fmt.Errorf("arrowconv: IPC stream truncated at byte %d: %d bytes of a message header", pos, k)
			}
			hdr = 8
			mlen = int64(int32(binary.LittleEndian.Uint32(pre[4:])))
		}
		if mlen == 0 {
			break // end of stream
		}
		if mlen < 0 || mlen > maxIPCMeta {
			return nil, fmt.Errorf("arrowconv: IPC stream message at byte %d: invalid metadata length %d", pos, mlen)
		}
		if mlen > size-pos-hdr {
			return nil, fmt.Errorf("arrowconv: IPC stream truncated: the message at byte %d needs %d bytes of metadata, %d remain", pos, mlen, size-pos-hdr)
		}
		if int64(cap(meta)) < mlen {
			meta = make([]byte, mlen)
		}
		meta = meta[:mlen]
		if _, err := r.ReadAt(meta, pos+hdr); err != nil {
			return nil, fmt.Errorf("arrowconv: reading IPC stream at byte %d: %w", pos, err)
		}
		typ, rows, body, err := parseMessage(meta)
		if err != nil {
			return nil, fmt.Errorf("arrowconv: IPC stream message at byte %d: %w", pos, err)
		}
		if typ == msgSchema {
			m, _ := fbRoot(meta)
			sch, ok, err := m.table(2)
			if err == nil && ok {
				err = verifySchema(sch)
			}
			if err != nil || !ok {
				return nil, fmt.Errorf("arrowconv: IPC stream schema at byte %d: %w", pos, flatbufferErr(err))
			}
		}
		if body < 0 {
			return nil, fmt.Errorf("arrowconv: IPC stream message at byte %d: invalid body length %d", pos, body)
		}
		if body > size-pos-hdr-mlen {
			return nil, fmt.Errorf("arrowconv: IPC stream truncated: the message at byte %d has a body of %d bytes, %d remain", pos, body, size-pos-hdr-mlen)
		}
		if typ == msgRecordBatch {
			info.Batches++
			info.Rows += rows
			info.nodeNulls = append(info.nodeNulls, batchNodeNulls(meta))
		}
		pos += hdr + mlen + body
	}
	sr, err := ipc.NewReader(io.NewSectionReader(r, 0, size), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, fmt.Errorf("arrowconv: reading IPC stream: %w", err)
	}
	info.Schema = sr.Schema()
	sr.Release()
	info.sumNulls()
	return info, nil
}

// Message header types (Message.fbs).
const (
	msgSchema      = 1
	msgRecordBatch = 3
)

// verifySchema checks the vectors of a Schema flatbuffer (fields,
// children, metadata, union type ids) against the buffer's size: arrow-go
// allocates from these lengths before it reads the elements.
// Every table takes at least 4 bytes of the buffer, and in a tree every
// byte of a string appears once, so more table visits than a quarter of
// the buffer, or more string bytes (names, metadata keys and values) than
// the buffer holds, means tables are shared (a graph, not a tree), which
// arrow-go would copy over and over: refused.
func verifySchema(s fbTable) error {
	b := &fbBudget{tables: len(s.b) / 4, bytes: len(s.b)}
	if err := s.tables(1, func(f fbTable) error { return verifyField(f, 0, b) }); err != nil {
		return err
	}
	if err := s.tables(2, b.keyValue); err != nil {
		return err
	}
	_, _, err := s.vector(3, 8) // features
	return err
}

// fbBudget is what is left of the table visits and string bytes a schema
// may have.
type fbBudget struct{ tables, bytes int }

var errShared = errors.New("schema tables or strings are shared (a graph, not a tree), or nested too deeply")

// str takes a string (a byte vector) field of t from the budget.
func (b *fbBudget) str(t fbTable, i int) error {
	_, n, err := t.vector(i, 1)
	if err != nil {
		return err
	}
	if b.bytes -= n; b.bytes < 0 {
		return errShared
	}
	return nil
}

func (b *fbBudget) keyValue(kv fbTable) error {
	if b.tables--; b.tables < 0 {
		return errShared
	}
	if err := b.str(kv, 0); err != nil {
		return err
	}
	return b.str(kv, 1)
}

func verifyField(f fbTable, depth int, b *fbBudget) error {
	if b.tables--; depth > maxDepth || b.tables < 0 {
		return errShared
	}
	if err := b.str(f, 0); err != nil { // name
		return err
	}
	if typ, ok, err := f.table(3); err != nil {
		return err
	} else if ok {
		if tt, err := f.uint8(2); err != nil {
			return err
		} else if tt == 14 { // Union: typeIds [int]
			if _, _, err := typ.vector(1, 4); err != nil {
				return err
			}
		}
	}
	if d, ok, err := f.table(4); err != nil { // dictionary
		return err
	} else if ok {
		if _, _, err := d.table(1); err != nil {
			return err
		}
	}
	if err := f.tables(5, func(c fbTable) error { return verifyField(c, depth+1, b) }); err != nil {
		return err
	}
	return f.tables(6, b.keyValue)
}

// parseMessage reads a Message flatbuffer: its header type, the row count
// of a record batch, and the body length.
func parseMessage(b []byte) (typ int, rows, body int64, err error) {
	m, err := fbRoot(b)
	if err != nil {
		return 0, 0, 0, err
	}
	t, err := m.uint8(1) // header_type
	if err != nil {
		return 0, 0, 0, err
	}
	if body, err = m.int64(3); err != nil { // bodyLength
		return 0, 0, 0, err
	}
	if t != msgRecordBatch {
		return int(t), 0, body, nil
	}
	rb, ok, err := m.table(2) // header
	if err != nil || !ok {
		if err != nil {
			return 0, 0, 0, fmt.Errorf("record batch message without a header: %w", err)
		}
		return 0, 0, 0, errors.New("record batch message without a header")
	}
	if rows, err = rb.int64(0); err != nil { // length
		return 0, 0, 0, err
	}
	if rows < 0 {
		return 0, 0, 0, fmt.Errorf("record batch of %d rows", rows)
	}
	return int(t), rows, body, nil
}

// fbTable is a flatbuffer table, read with bounds checks.
type fbTable struct {
	b     []byte
	pos   int
	vt    int
	vtLen int
}

var errFlatbuffer = errors.New("malformed flatbuffer metadata")

// flatbufferErr is err as an errFlatbuffer, on one line: errFlatbuffer
// itself if err is nil or is one already, else "malformed flatbuffer
// metadata: err".
func flatbufferErr(err error) error {
	if err == nil || errors.Is(err, errFlatbuffer) {
		return errFlatbuffer
	}
	return fmt.Errorf("%w: %w", errFlatbuffer, err)
}

func fbRoot(b []byte) (fbTable, error) {
	if len(b) < 4 {
		return fbTable{}, errFlatbuffer
	}
	return fbAt(b, int64(binary.LittleEndian.Uint32(b)))
}

func fbAt(b []byte, pos int64) (fbTable, error) {
	if pos < 0 || pos+4 > int64(len(b)) {
		return fbTable{}, errFlatbuffer
	}
	vt := pos - int64(int32(binary.LittleEndian.Uint32(b[pos:])))
	if vt < 0 || vt+4 > int64(len(b)) {
		return fbTable{}, errFlatbuffer
	}
	vtLen := int64(binary.LittleEndian.Uint16(b[vt:]))
	if vtLen < 4 || vt+vtLen > int64(len(b)) {
		return fbTable{}, errFlatbuffer
	}
	return fbTable{b: b, pos: int(pos), vt: int(vt), vtLen: int(vtLen)}, nil
}

// field returns the position of field i with room for size bytes, or 0 if
// the field is absent.
// As in the flatbuffers runtime, a field is present when its vtable slot
// starts inside the vtable's stated length, even if the slot ends past it.
func (t fbTable) field(i, size int) (int, error) {
	o := 4 + 2*i
	if o >= t.vtLen {
		return 0, nil
	}
	if t.vt+o+2 > len(t.b) {
		return 0, errFlatbuffer
	}
	fo := int(binary.LittleEndian.Uint16(t.b[t.vt+o:]))
	if fo == 0 {
		return 0, nil
	}
	p := t.pos + fo
	if p+size > len(t.b) {
		return 0, errFlatbuffer
	}
	return p, nil
}

func (t fbTable) uint8(i int) (uint8, error) {
	p, err := t.field(i, 1)
	if err != nil || p == 0 {
		return 0, err
	}
	return t.b[p], nil
}

func (t fbTable) int16(i int) (int16, error) {
	p, err := t.field(i, 2)
	if err != nil || p == 0 {
		return 0, err
	}
	return int16(binary.LittleEndian.Uint16(t.b[p:])), nil
}

func (t fbTable) int64(i int) (int64, error) {
	p, err := t.field(i, 8)
	if err != nil || p == 0 {
		return 0, err
	}
	return int64(binary.LittleEndian.Uint64(t.b[p:])), nil
}

func (t fbTable) table(i int) (fbTable, bool, error) {
	p, err := t.field(i, 4)
	if err != nil || p == 0 {
		return fbTable{}, false, err
	}
	tb, err := fbAt(t.b, int64(p)+int64(binary.LittleEndian.Uint32(t.b[p:])))
	return tb, err == nil, err
}

// tables calls f on each table of vector field i.
func (t fbTable) tables(i int, f func(fbTable) error) error {
	start, n, err := t.vector(i, 4)
	if err != nil {
		return err
	}
	for k := 0; k < n; k++ {
		p := int64(start + 4*k)
		tb, err := fbAt(t.b, p+int64(binary.LittleEndian.Uint32(t.b[p:])))
		if err != nil {
			return err
		}
		if err := f(tb); err != nil {
			return err
		}
	}
	return nil
}

// vector returns the start and length of vector field i of elements of
// elem bytes; an absent vector is empty.
func (t fbTable) vector(i, elem int) (start, n int, err error) {
	p, err := t.field(i, 4)
	if err != nil || p == 0 {
		return 0, 0, err
	}
	q := int64(p) + int64(binary.LittleEndian.Uint32(t.b[p:]))
	if q+4 > int64(len(t.b)) {
		return 0, 0, errFlatbuffer
	}
	cnt := int64(binary.LittleEndian.Uint32(t.b[q:]))
	if cnt*int64(elem) > int64(len(t.b))-q-4 {
		return 0, 0, errFlatbuffer
	}
	return int(q + 4), int(cnt), nil
}
