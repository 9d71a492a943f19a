package parquetio

import (
	"bytes"
	"io"
	"testing"
)

// TestPageBuf checks the page buffers against a bytes.Buffer model:
// writes across chunk boundaries, an overwrite after a seek back, reads,
// WriteTo, seeks past the end, and reuse through the pool (a buffer given
// back starts empty and its chunks serve the next one).
func TestPageBuf(t *testing.T) {
	pool := &pagePool{}
	data := make([]byte, 2*pageChunk+12345)
	for i := range data {
		data[i] = byte(i*31 + i>>11)
	}
	for round := 0; round < 2; round++ {
		b := pool.GetBuffer()
		if n, _ := b.Seek(0, io.SeekEnd); n != 0 {
			t.Fatalf("round %d: a buffer from the pool holds %d bytes", round, n)
		}
		// Pieces of odd sizes, one spanning a chunk boundary.
		for off := 0; off < len(data); {
			k := min(len(data)-off, 70000+off%pageChunk)
			if n, err := b.Write(data[off : off+k]); n != k || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
			off += k
		}
		// Overwrite across the first two chunk boundaries.
		want := bytes.Clone(data)
		patch := bytes.Repeat([]byte{0xAB}, 1000)
		for _, at := range []int{pageHead - 500, pageHead + pageChunk - 500} {
			if _, err := b.Seek(int64(at), io.SeekStart); err != nil {
				t.Fatal(err)
			}
			b.Write(patch)
			copy(want[at:], patch)
		}
		if n, _ := b.Seek(0, io.SeekEnd); n != int64(len(want)) {
			t.Fatalf("size %d after the overwrite, want %d", n, len(want))
		}
		if n, _ := b.Seek(1<<40, io.SeekStart); n != int64(len(want)) {
			t.Fatalf("seek past the end gave %d, want the end %d", n, len(want))
		}
		if _, err := b.Seek(-1, io.SeekStart); err == nil {
			t.Error("negative seek accepted")
		}
		// Read in small pieces from an offset.
		b.Seek(100, io.SeekStart)
		got, err := io.ReadAll(io.LimitReader(b, 5000))
		if err != nil || !bytes.Equal(got, want[100:5100]) {
			t.Fatalf("Read: %d bytes, %v, equal %v", len(got), err, bytes.Equal(got, want[100:5100]))
		}
		// io.Copy (WriteTo) from the start.
		b.Seek(0, io.SeekStart)
		var out bytes.Buffer
		if n, err := io.Copy(&out, b); err != nil || n != int64(len(want)) || !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("Copy: %d bytes, %v, equal %v", n, err, bytes.Equal(out.Bytes(), want))
		}
		if n, err := b.Read(make([]byte, 1)); n != 0 || err != io.EOF {
			t.Fatalf("Read at the end = %d, %v; want 0, EOF", n, err)
		}
		pool.PutBuffer(b)
		if len(pool.bufs) != 1 || len(pool.chunks) != pageSlab/pageChunk || len(pool.heads) != headSlab/pageHead {
			t.Fatalf("round %d: pool holds %d buffers, %d chunks and %d heads after the put, want 1, %d and %d",
				round, len(pool.bufs), len(pool.chunks), len(pool.heads), pageSlab/pageChunk, headSlab/pageHead)
		}
	}
}
