package zarr

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// refImage is the reference image case: element (y, x, k) of an HxWx3
// uint8 image.
func refImage(h, w int) []byte {
	b := make([]byte, h*w*3)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for k := 0; k < 3; k++ {
				b[(y*w+x)*3+k] = byte(x*7 + y*13 + k*101)
			}
		}
	}
	return b
}

func TestWriteRoundTrip(t *testing.T) {
	ctx := context.Background()
	img := refImage(53, 41)
	f8 := make([]byte, 8*23*7)
	for i := 0; i < 23*7; i++ {
		binary.LittleEndian.PutUint64(f8[8*i:], math.Float64bits(float64(i)*1.25-40))
	}
	nan := make([]byte, 8)
	binary.LittleEndian.PutUint64(nan, math.Float64bits(math.NaN()))
	cases := []struct {
		data   []byte
		opts   CreateOptions
		rowsAt int // rows per WriteRows call
	}{
		{img, CreateOptions{Shape: []int64{53, 41, 3}, Chunks: []int64{10, 10, 1}, DType: DType{Descr: "|u1"}}, 7},
		{f8, CreateOptions{Shape: []int64{23, 7}, Chunks: []int64{5, 3}, DType: DType{Descr: "<f8"}, Fill: nan}, 23},
		{f8, CreateOptions{Shape: []int64{23, 7}, Chunks: []int64{4, 7}, Shards: []int64{8, 7}, DType: DType{Descr: "<f8"}}, 3},
		{img, CreateOptions{Shape: []int64{53, 41, 3}, Chunks: []int64{10, 10, 1}, Shards: []int64{20, 20, 3}, DType: DType{Descr: "|u1"}}, 53},
	}
	for ci, c := range cases {
		for _, format := range []int{2, 3} {
			if c.opts.Shards != nil && format == 2 {
				continue
			}
			for _, comp := range Compressions {
				if format == 3 && (comp == "lz4" || comp == "zlib") {
					continue
				}
				t.Run(fmt.Sprintf("%d/v%d/%s", ci, format, comp), func(t *testing.T) {
					s := &MemStore{}
					o := c.opts
					o.Format, o.Compression = format, comp
					w, err := CreateArray(ctx, s, "a/b", o)
					if err != nil {
						t.Fatal(err)
					}
					rb := len(c.data) / int(o.Shape[0])
					for p := 0; p < len(c.data); p += c.rowsAt * rb {
						if err := w.WriteRows(ctx, c.data[p:min(len(c.data), p+c.rowsAt*rb)]); err != nil {
							t.Fatal(err)
						}
					}
					if _, err := OpenArray(ctx, s, "a/b"); err == nil {
						t.Fatal("metadata visible before Close")
					}
					if err := w.Close(ctx); err != nil {
						t.Fatal(err)
					}
					a, err := OpenArray(ctx, s, "a/b")
					if err != nil {
						t.Fatal(err)
					}
					got := readAll(t, a)
					if !bytes.Equal(got, c.data) {
						t.Fatalf("read back differs")
					}
					// A region that straddles chunks.
					start := make([]int64, len(o.Shape))
					count := append([]int64(nil), o.Shape...)
					start[0], count[0] = 3, 9
					part := make([]byte, 9*rb)
					if err := a.Read(ctx, start, count, part); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(part, c.data[3*rb:12*rb]) {
						t.Fatalf("region read differs")
					}
				})
			}
		}
	}
}

func TestGroupWriteConsolidated(t *testing.T) {
	ctx := context.Background()
	for _, format := range []int{2, 3} {
		s := &MemStore{}
		g := CreateGroup(s, "", format, true, map[string]any{"title": "t"})
		for _, name := range []string{"x", "sub/y"} {
			w, err := g.CreateArray(ctx, name, CreateOptions{Shape: []int64{4}, DType: DType{Descr: "<i4"}, Attrs: map[string]any{"name": name}})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteRows(ctx, []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0}); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := g.Close(ctx); err != nil {
			t.Fatal(err)
		}
		og, err := OpenGroup(ctx, s, "")
		if err != nil {
			t.Fatal(err)
		}
		if !og.Consolidated || fmt.Sprint(og.Arrays) != "[sub/y x]" {
			t.Fatalf("v%d: consolidated %v arrays %v", format, og.Consolidated, og.Arrays)
		}
		a, err := og.OpenArray(ctx, "sub/y")
		if err != nil {
			t.Fatal(err)
		}
		if string(a.Attrs["name"]) != `"sub/y"` {
			t.Fatalf("v%d: attrs %s", format, a.Attrs["name"])
		}
		if got := readAll(t, a); got[12] != 4 {
			t.Fatalf("v%d: read %v", format, got)
		}
	}
}

// TestCrossTools is make check-zarr's Go half: with ZARR_XDIR set it reads
// the reference images zarr-python and zarrita wrote there and writes
// npyflow's for them to read (xcheck_v2.py, xcheck_v3.mjs).
func TestCrossTools(t *testing.T) {
	dir := os.Getenv("ZARR_XDIR")
	if dir == "" {
		t.Skip("ZARR_XDIR not set (make check-zarr sets it)")
	}
	ctx := context.Background()
	img := refImage(512, 512)
	for _, src := range []string{"zp_v2.zarr", "zarrita_v3.zarr"} {
		s := NewFSStore(filepath.Join(dir, src))
		g, err := OpenGroup(ctx, s, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Arrays) < 4 {
			t.Fatalf("%s: arrays %v", src, g.Arrays)
		}
		for _, name := range g.Arrays {
			a, err := g.OpenArray(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(readAll(t, a), img) {
				t.Errorf("%s/%s: reference image differs", src, name)
			}
		}
		t.Logf("%s: read %d reference images", src, len(g.Arrays))
		s.Close()
	}
	f8 := make([]byte, 8*301*7)
	for i := 0; i < 301*7; i++ {
		binary.LittleEndian.PutUint64(f8[8*i:], math.Float64bits(float64(i)*1.25-40))
	}
	for _, format := range []int{2, 3} {
		out := filepath.Join(dir, fmt.Sprintf("npyflow_v%d.zarr", format))
		os.RemoveAll(out)
		s := NewFSStore(out)
		g := CreateGroup(s, "", format, true, nil)
		write := func(name string, data []byte, o CreateOptions) {
			w, err := g.CreateArray(ctx, name, o)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteRows(ctx, data); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for _, comp := range Compressions {
			if format == 3 && (comp == "lz4" || comp == "zlib") {
				continue
			}
			write("image_"+comp, img, CreateOptions{Shape: []int64{512, 512, 3}, Chunks: []int64{100, 100, 1}, DType: DType{Descr: "|u1"}, Compression: comp})
			write("f8_"+comp, f8, CreateOptions{Shape: []int64{301, 7}, Chunks: []int64{50, 4}, DType: DType{Descr: "<f8"}, Compression: comp})
			if format == 3 {
				write("image_sharded_"+comp, img, CreateOptions{Shape: []int64{512, 512, 3}, Chunks: []int64{100, 100, 1}, Shards: []int64{200, 300, 3}, DType: DType{Descr: "|u1"}, Compression: comp})
				write("f8_sharded_"+comp, f8, CreateOptions{Shape: []int64{301, 7}, Chunks: []int64{50, 4}, Shards: []int64{100, 8}, DType: DType{Descr: "<f8"}, Compression: comp})
			}
		}
		// Variable-length strings (xcheck's STRINGS), as U and, in v2, S.
		words := []string{"a", "", "grüße", "x\x00y", "日本語テキスト", "end", "z"}
		for _, comp := range []string{"zstd", "blosc"} {
			write("str_vlen_"+comp, fixedStrings("<U7", words), CreateOptions{Shape: []int64{7}, Chunks: []int64{3}, DType: DType{Descr: "<U7"}, Compression: comp, Strings: "vlen"})
			if format == 2 {
				write("str_vlen_bytes_"+comp, fixedStrings("|S21", words), CreateOptions{Shape: []int64{7}, Chunks: []int64{3}, DType: DType{Descr: "|S21"}, Compression: comp, Strings: "vlen"})
			}
		}
		if err := g.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWriteReusedChunkBuffer writes, on one goroutine (so one reused
// copy buffer), full chunks that are not contiguous in the rows given
// and then chunks that overhang the array: each stored chunk (no
// compression, so the file is the chunk) must hold its elements and the
// fill value past the array's end, nothing left from the chunk before.
func TestWriteReusedChunkBuffer(t *testing.T) {
	ctx := context.Background()
	const rows, cols, cr, cc = 5, 5, 2, 3
	data := make([]byte, 4*rows*cols)
	for i := range rows * cols {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(100+i))
	}
	fill := binary.LittleEndian.AppendUint32(nil, 7)
	for _, f := range []int{2, 3} {
		dir := t.TempDir()
		w, err := CreateArray(ctx, NewFSStore(dir), "", CreateOptions{Format: f, Shape: []int64{rows, cols},
			Chunks: []int64{cr, cc}, DType: DType{Descr: "<u4"}, Compression: "none", Fill: fill, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteRows(ctx, data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(ctx); err != nil {
			t.Fatal(err)
		}
		for ci := 0; ci*cr < rows; ci++ {
			for cj := 0; cj*cc < cols; cj++ {
				key := fmt.Sprintf("%d.%d", ci, cj)
				if f == 3 {
					key = fmt.Sprintf("c/%d/%d", ci, cj)
				}
				got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(key)))
				if err != nil {
					t.Fatal(err)
				}
				want := make([]byte, 0, 4*cr*cc)
				for r := ci * cr; r < (ci+1)*cr; r++ {
					for c := cj * cc; c < (cj+1)*cc; c++ {
						if r < rows && c < cols {
							want = append(want, data[4*(r*cols+c):4*(r*cols+c+1)]...)
						} else {
							want = append(want, fill...)
						}
					}
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("v%d chunk %s: %v, want %v", f, key, got, want)
				}
			}
		}
	}
}
