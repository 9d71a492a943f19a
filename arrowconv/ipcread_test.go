package arrowconv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ipcTestRows is the row count of ipcTestData.
const ipcTestRows = 100

// ipcTestData writes one record batch of ipcTestRows rows: x int64, s
// string, st struct<a int32>, fl fixed_size_list<int16, 2>. Its field
// nodes are x, s, st, st.a, fl, fl.item; its buffers x: validity 0,
// values 1; s: validity 2, offsets 3, data 4; st: validity 5; st.a:
// validity 6, values 7; fl: validity 8; fl.item: validity 9, values 10.
func ipcTestData(t testing.TB, opts IPCOptions) []byte {
	t.Helper()
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), Nullable: true},
		{Name: "fl", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int16), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := range ipcTestRows {
		b.Field(0).(*array.Int64Builder).Append(int64(i) * 1e12)
		b.Field(1).(*array.StringBuilder).Append(string(rune('a' + i%26)))
		sb := b.Field(2).(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int32Builder).Append(int32(-i))
		lb := b.Field(3).(*array.FixedSizeListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.Int16Builder).AppendValues([]int16{int16(i), int16(2 * i)}, nil)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := NewIPCWriter(&buf, schema, opts, mem)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// firstBatch finds the first record batch message of IPC data (a file is
// its magic and a stream, then the footer): its Message table, whose bytes
// are data's, and its body.
func firstBatch(t testing.TB, data []byte) (msg, rb fbTable, body []byte) {
	t.Helper()
	pos := 0
	if bytes.HasPrefix(data, ipcMagic) {
		pos = 8
	}
	for pos+8 <= len(data) {
		mlen := int(binary.LittleEndian.Uint32(data[pos+4:]))
		meta := data[pos+8 : pos+8+mlen]
		typ, _, blen, err := parseMessage(meta)
		if err != nil {
			t.Fatal(err)
		}
		start := pos + 8 + mlen
		if typ == msgRecordBatch {
			msg, _ = fbRoot(meta)
			rb, _, _ = msg.table(2)
			return msg, rb, data[start : start+int(blen)]
		}
		pos = start + int(blen)
	}
	t.Fatal("no record batch")
	return
}

// put64 writes v at the i-th 16-byte struct of vector field f of tb, at
// byte k of the struct.
func put64(t testing.TB, tb fbTable, f, i, k int, v int64) {
	start, n, err := tb.vector(f, 16)
	if err != nil || i >= n {
		t.Fatalf("vector %d: %d elements (%v)", f, n, err)
	}
	binary.LittleEndian.PutUint64(tb.b[start+16*i+k:], uint64(v))
}

func get64(tb fbTable, f, i, k int) int64 {
	start, _, _ := tb.vector(f, 16)
	return int64(binary.LittleEndian.Uint64(tb.b[start+16*i+k:]))
}

// Field numbers of RecordBatch.
const (
	rbLength  = 0
	rbNodes   = 1
	rbBuffers = 2
)

// TestIPCReaderCorrupt feeds IPC data whose lengths lie to NewIPCReader,
// as a seekable input and as a plain io.Reader, files and streams,
// compressed or not: each must be a *CorruptError saying what is wrong,
// never a panic, arrow-go's "slice bounds out of range" or a large
// allocation.
func TestIPCReaderCorrupt(t *testing.T) {
	type patch func(t *testing.T, msg, rb fbTable, body []byte) bool // false: not applicable
	node := func(i, k int, v int64) patch {
		return func(t *testing.T, _, rb fbTable, _ []byte) bool { put64(t, rb, rbNodes, i, k, v); return true }
	}
	buf := func(i, k int, v int64) patch {
		return func(t *testing.T, _, rb fbTable, _ []byte) bool { put64(t, rb, rbBuffers, i, k, v); return true }
	}
	count := func(f int, n uint32) patch {
		return func(t *testing.T, _, rb fbTable, _ []byte) bool {
			start, _, _ := rb.vector(f, 16)
			binary.LittleEndian.PutUint32(rb.b[start-4:], n)
			return true
		}
	}
	// prefix sets the uncompressed length of compressed buffer i to what
	// f makes of it (compressed data only).
	prefix := func(i int, f func(u int64) int64) patch {
		return func(t *testing.T, _, rb fbTable, body []byte) bool {
			if _, ok, _ := rb.table(3); !ok {
				return false
			}
			off := get64(rb, rbBuffers, i, 0)
			u := int64(binary.LittleEndian.Uint64(body[off:]))
			if u == -1 {
				return false
			}
			binary.LittleEndian.PutUint64(body[off:], uint64(f(u)))
			return true
		}
	}
	cases := []struct {
		name  string
		patch patch
		want  string // regexp
	}{
		{"rows lie", func(t *testing.T, msg, rb fbTable, body []byte) bool {
			p, _ := rb.field(rbLength, 8)
			binary.LittleEndian.PutUint64(rb.b[p:], 1<<40)
			for _, i := range []int{0, 1, 2, 4} {
				put64(t, rb, rbNodes, i, 0, 1<<40)
			}
			return true
		}, `column "x": 1099511627776 values need 8796093022208 bytes of values, the buffer holds`},
		{"column shorter than batch", node(0, 0, ipcTestRows-1), `column "x" has 99 rows, the record batch 100`},
		{"negative length", node(0, 0, -5), `column "x": -5 values`},
		{"more nulls than values", node(0, 8, ipcTestRows+1), `column "x": 100 values with 101 nulls`},
		{"nulls without a bitmap", node(0, 8, 1), `column "x": 100 values need 13 bytes of validity bitmap, the buffer holds 0`},
		{"buffer beyond body", buf(1, 8, 1<<40), `buffer 1 \(offset \d+, 1099511627776 bytes\) does not fit the body`},
		{"negative buffer offset", buf(1, 0, -8), `buffer 1 \(offset -8, \d+ bytes\) does not fit the body`},
		{"short offsets", buf(3, 8, 4), `column "s": 100 values need 404 bytes of offsets|buffer 3 of 4 bytes lacks its 8-byte length`},
		{"struct child short", node(3, 0, ipcTestRows-1), `column "st.a" has 99 values, its parent needs 100`},
		{"list child short", node(5, 0, 2*ipcTestRows-1), `column "fl.item" has 199 values, its parent needs 200`},
		{"fewer nodes", count(rbNodes, 2), `no field node for "st": the batch has 2`},
		{"fewer buffers", count(rbBuffers, 3), `no offsets buffer for column "s": the batch has 3 buffers`},
		{"string offset beyond data", func(t *testing.T, _, rb fbTable, body []byte) bool {
			if _, ok, _ := rb.table(3); ok {
				return false
			}
			off := get64(rb, rbBuffers, 3, 0)
			binary.LittleEndian.PutUint32(body[off+4*ipcTestRows:], 1<<30)
			return true
		}, `offset`},
		{"decompressed claim beyond the codec", prefix(1, func(int64) int64 { return 1 << 30 }), `compressed buffer 1 claims 1073741824 bytes uncompressed from \d+ bytes`},
		{"decompressed claim short of the data", prefix(1, func(u int64) int64 { return u + 4096 }), `.`},
	}
	type access struct {
		name string
		wrap func([]byte) io.Reader
	}
	accesses := []access{
		{"seekable", func(b []byte) io.Reader { return bytes.NewReader(b) }},
		{"reader", func(b []byte) io.Reader { return io.MultiReader(bytes.NewReader(b)) }},
	}
	for _, opts := range []IPCOptions{{Format: IPCFile}, {Format: IPCStream}, {Format: IPCFile, Compression: Zstd}, {Format: IPCStream, Compression: LZ4}} {
		data := ipcTestData(t, opts)
		for _, a := range accesses {
			// Intact, the data reads back.
			rows, err := drainChecked(a.wrap(data))
			if err != nil || rows != ipcTestRows {
				t.Fatalf("%+v %s: intact data: %d rows, %v", opts, a.name, rows, err)
			}
			for _, c := range cases {
				bad := slices.Clone(data)
				msg, rb, body := firstBatch(t, bad)
				if !c.patch(t, msg, rb, body) {
					continue
				}
				t.Run(fmtOpts(opts)+"/"+a.name+"/"+c.name, func(t *testing.T) {
					var before runtime.MemStats
					runtime.ReadMemStats(&before)
					_, err := drainChecked(a.wrap(bad))
					var after runtime.MemStats
					runtime.ReadMemStats(&after)
					var ce *CorruptError
					if !errors.As(err, &ce) {
						t.Fatalf("error %v (%T), want a *CorruptError", err, err)
					}
					if !regexp.MustCompile(c.want).MatchString(err.Error()) || regexp.MustCompile(`runtime error|slice bounds`).MatchString(err.Error()) {
						t.Fatalf("error %q, want %q", err, c.want)
					}
					if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
						t.Fatalf("allocated %d MiB", grew>>20)
					}
					t.Log(err)
				})
			}
		}
	}
}

func fmtOpts(o IPCOptions) string {
	s := map[IPCFormat]string{IPCFile: "file", IPCStream: "stream"}[o.Format]
	return s + map[Compression]string{NoCompression: "", Zstd: "-zstd", LZ4: "-lz4"}[o.Compression]
}

// drainChecked reads every record of IPC data and encodes it as numpy
// rows; it returns the row count and the first error.
func drainChecked(r io.Reader) (int64, error) {
	rr, err := NewIPCReader(r, nil)
	if err != nil {
		return 0, err
	}
	defer rr.Release()
	enc, err := NewRowEncoder(rr.Schema(), &WriteOptions{StringChars: 4})
	if err != nil {
		return 0, err
	}
	var rows int64
	var buf []byte
	for rr.Next() {
		if buf, err = enc.Encode(rr.RecordBatch(), buf[:0]); err != nil {
			return rows, err
		}
		rows += rr.RecordBatch().NumRows()
	}
	return rows, rr.Err()
}

// TestIPCReaderUnknownSize checks that the lengths of an input of unknown
// size (a pipe) are refused or read as the bytes arrive, never allocated
// up front: a body claimed at 3 GiB in a stream of a few KiB.
func TestIPCReaderUnknownSize(t *testing.T) {
	data := ipcTestData(t, IPCOptions{Format: IPCStream})
	msg, _, _ := firstBatch(t, data)
	p, err := msg.field(3, 8) // Message.bodyLength
	if err != nil || p == 0 {
		t.Fatal("no bodyLength", err)
	}
	for _, c := range []struct {
		body int64
		want string
	}{
		{3 << 30, `IPC stream truncated: the message at byte \d+ has a body of 3221225472 bytes`},
		{1 << 40, `has a body of 1099511627776 bytes, more than arrowconv.MaxIPCBuffer`},
	} {
		bad := slices.Clone(data)
		m, _, _ := firstBatch(t, bad)
		binary.LittleEndian.PutUint64(m.b[p:], uint64(c.body))
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := drainChecked(io.MultiReader(bytes.NewReader(bad)))
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if err == nil || !regexp.MustCompile(c.want).MatchString(err.Error()) {
			t.Errorf("body %d: error %v, want %q", c.body, err, c.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("body %d: allocated %d MiB", c.body, grew>>20)
		}
	}
}

// TestIPCReaderRandomCorruption flips random bytes of IPC data and reads
// it through both paths: errors are fine, panics are not.
func TestIPCReaderRandomCorruption(t *testing.T) {
	defer func(m int) { MaxIPCBuffer = m }(MaxIPCBuffer)
	MaxIPCBuffer = 1 << 20
	n := 400
	if testing.Short() {
		n = 50
	}
	for _, opts := range []IPCOptions{{Format: IPCFile}, {Format: IPCStream, Compression: Zstd}} {
		data := ipcTestData(t, opts)
		rng := rand.New(rand.NewPCG(1, uint64(opts.Format)))
		for k := 0; k < n; k++ {
			bad := slices.Clone(data)
			for j := 0; j < 1+rng.IntN(3); j++ {
				bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
			}
			drainChecked(bytes.NewReader(bad))
			drainChecked(io.MultiReader(bytes.NewReader(bad)))
		}
	}
}

// FuzzIPCReader reads arbitrary bytes as IPC data through both paths:
// no panic, and no allocation out of proportion to the input (with
// MaxIPCBuffer at 1 MiB). testdata/fuzz holds the inputs it found: a
// schema whose metadata vector arrow-go saw and the metadata checks did
// not (a vtable of odd length) made arrow-go allocate 2**31 entries.
func FuzzIPCReader(f *testing.F) {
	for _, opts := range []IPCOptions{{Format: IPCFile}, {Format: IPCStream}, {Format: IPCStream, Compression: Zstd}} {
		f.Add(ipcTestData(f, opts))
	}
	// Files other producers wrote: every type the Mapping converts.
	for _, name := range []string{"every_type.arrow", "every_type_lz4.arrows", "dict_delta.arrows", "nulls.arrow", "arrowjs_every_type.arrow", "big_endian.arrows"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "foreign", name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer func(m int) { MaxIPCBuffer = m }(MaxIPCBuffer)
		MaxIPCBuffer = 1 << 20
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		drainChecked(bytes.NewReader(data))
		drainChecked(io.MultiReader(bytes.NewReader(data)))
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20 {
			t.Fatalf("%d bytes of input: allocated %d MiB", len(data), grew>>20)
		}
	})
}
