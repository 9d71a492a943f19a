package arrowconv

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestUnzstdBatch reads zstd-compressed IPC data (nulls, strings, floats)
// whose batches npyflow decompresses itself, serially and in parallel,
// from a file and a stream, and compares every record with arrow-go's
// own decoding of the same bytes; no buffer leaks.
func TestUnzstdBatch(t *testing.T) {
	for _, opts := range []IPCOptions{{Format: IPCStream, Compression: Zstd}, {Format: IPCFile, Compression: Zstd}} {
		data := parTestData(t, opts, 5)
		want := arrowGoRecords(t, data, opts.Format)
		for _, threads := range []int{1, 2} {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			rr, err := NewIPCReaderThreads(bytes.NewReader(data), mem, threads)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for rr.Next() {
				if n >= len(want) || !array.RecordEqual(rr.RecordBatch(), want[n]) {
					t.Fatalf("%s threads %d: record %d differs from arrow-go's", fmtOpts(opts), threads, n)
				}
				n++
			}
			if err := rr.Err(); err != nil || n != len(want) {
				t.Fatalf("%s threads %d: %d records of %d, %v", fmtOpts(opts), threads, n, len(want), err)
			}
			rr.Release()
			mem.AssertSize(t, 0)
		}
		for _, r := range want {
			r.Release()
		}
	}

	// The batch arrow-go gets holds the buffers decompressed: each stored
	// as "uncompressed" (length -1), and checks out as the original.
	data := parTestData(t, IPCOptions{Format: IPCStream, Compression: Zstd}, 1)
	src := &streamSource{r: bufio.NewReader(bytes.NewReader(data)), size: -1}
	m := &msgReader{schema: arrowGoRecordsSchema(t, data), msgs: 1}
	if _, _, _, err := src.next(); err != nil { // the schema
		t.Fatal(err)
	}
	meta, body, where, err := src.next()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.check(meta, body, where); err != nil || m.batch == nil || m.batch.codec != 1 {
		t.Fatalf("check: %v (batch %v)", err, m.batch)
	}
	sizes := m.batch.sizes
	nm, nb, ok := unzstdBatch(meta, body, m.batch, func(n int) []byte { return make([]byte, n) })
	if !ok {
		t.Fatal("the batch was not decompressed")
	}
	if err := m.check(nm, nb, where); err != nil {
		t.Fatalf("the decompressed batch: %v", err)
	}
	c := m.batch
	for i, u := range c.sizes {
		if u != sizes[i] {
			t.Fatalf("buffer %d: %d bytes, want %d", i, u, sizes[i])
		}
		off := binary.LittleEndian.Uint64(c.bufs[16*i:])
		if u > 0 && int64(binary.LittleEndian.Uint64(nb[off:])) != -1 {
			t.Fatalf("buffer %d is not stored uncompressed", i)
		}
	}
}

// arrowGoRecords decodes IPC data with arrow-go alone.
func arrowGoRecords(t *testing.T, data []byte, f IPCFormat) []arrow.RecordBatch {
	t.Helper()
	var recs []arrow.RecordBatch
	if f == IPCFile {
		fr, err := ipc.NewFileReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		defer fr.Close()
		for i := range fr.NumRecords() {
			r, err := fr.RecordBatch(i)
			if err != nil {
				t.Fatal(err)
			}
			r.Retain()
			recs = append(recs, r)
		}
		return recs
	}
	rd, err := ipc.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	for rd.Next() {
		r := rd.RecordBatch()
		r.Retain()
		recs = append(recs, r)
	}
	if err := rd.Err(); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	return recs
}

func arrowGoRecordsSchema(t *testing.T, data []byte) *arrow.Schema {
	t.Helper()
	rd, err := ipc.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	return rd.Schema()
}
