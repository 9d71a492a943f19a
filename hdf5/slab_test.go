package hdf5

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// sliceBox cuts the box [lo, hi) out of a C-order array (the reference
// ReadSlab is compared with; the whole array comes from ReadAll, which
// TestFixtures compares with h5py).
func sliceBox(all []byte, dims, lo, hi []uint64, es int) []byte {
	var out []byte
	idx := append([]uint64(nil), lo...)
	for i := range lo {
		if lo[i] >= hi[i] {
			return nil
		}
	}
	for {
		var off uint64
		for i := range dims {
			off = off*dims[i] + idx[i]
		}
		out = append(out, all[off*uint64(es):(off+1)*uint64(es)]...)
		k := len(idx) - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < hi[k] {
				break
			}
			idx[k] = lo[k]
		}
		if k < 0 {
			return out
		}
	}
}

var slabDatasets = []string{"/chunk/edge3d", "/chunk/plain", "/chunk/sparse", "/chunk/unlimited2", "/chunk/gzip_shuffle_fletcher",
	"/chunk/implicit", "/chunk/single", "/chunk/be_gzip", "/chunk/compound_chunked", "/num/m3d", "/num/compact", "/num/unwritten",
	"/num/be_i4", "/num/scalar", "/str/chunked_vlen", "/str/vlen_utf8", "/str/fixed", "/types/compound"}

func TestReadSlab(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, file := range []string{"earliest.h5", "latest.h5"} {
		for _, cache := range []int64{1, 1 << 20} {
			f, err := OpenFile(filepath.Join("testdata", file), &Options{ChunkCacheBytes: cache})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range slabDatasets {
				o, err := f.OpenPath(p)
				if err != nil {
					t.Fatal(err)
				}
				ds := o.(*Dataset)
				all, err := ds.ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				dims := ds.Shape()
				if len(dims) == 0 {
					dims = []uint64{1}
				}
				r, err := ds.NewRowReader(3)
				if err != nil {
					t.Fatal(err)
				}
				var total uint64 = 1
				for _, d := range dims {
					total *= d
				}
				es := int(uint64(len(all)) / total)
				lo := make([]uint64, len(dims))
				hi := make([]uint64, len(dims))
				for trial := 0; trial < 300; trial++ {
					for i, d := range dims {
						a, b := uint64(rng.Intn(int(d)+1)), uint64(rng.Intn(int(d)+1))
						if trial == 0 {
							a, b = 0, d // the whole dataset
						}
						lo[i], hi[i] = min(a, b), max(a, b)
					}
					n, err := r.SlabBytes(lo, hi)
					if err != nil {
						t.Fatal(err)
					}
					dst := make([]byte, n)
					if err := r.ReadSlab(lo, hi, dst); err != nil {
						t.Fatalf("%s %s [%v, %v): %v", file, p, lo, hi, err)
					}
					if want := sliceBox(all, dims, lo, hi, es); !bytes.Equal(dst, want) {
						t.Fatalf("%s %s [%v, %v): got %x, want %x", file, p, lo, hi, trunc(dst), trunc(want))
					}
				}
				// Outside the shape, wrong rank, short buffer.
				hi[0] = dims[0] + 1
				if err := r.ReadSlab(make([]uint64, len(dims)), hi, make([]byte, 1<<12)); err == nil {
					t.Errorf("%s %s: a box past the end: no error", file, p)
				}
				if err := r.ReadSlab([]uint64{0, 0, 0, 0}, []uint64{1, 1, 1, 1}, make([]byte, 1<<12)); err == nil {
					t.Errorf("%s %s: a box of the wrong rank: no error", file, p)
				}
				if total > 1 {
					copy(hi, dims)
					if err := r.ReadSlab(make([]uint64, len(dims)), hi, make([]byte, len(all)-1)); err == nil {
						t.Errorf("%s %s: a short buffer: no error", file, p)
					}
				}
				// The element reader gives the whole dataset in order, in
				// batches of at most the size asked for.
				for _, batch := range []int{1, es, 2*es + 1, 5 * es, 17 * es, 1 << 20} {
					er, err := ds.NewElementReader(batch)
					if err != nil {
						t.Fatal(err)
					}
					var got []byte
					for {
						b, err := er.Read()
						if err == io.EOF {
							break
						}
						if err != nil {
							t.Fatalf("%s %s batch %d: %v", file, p, batch, err)
						}
						if len(b) > 4*max(batch, es) || len(b)%es != 0 || len(b) == 0 {
							t.Fatalf("%s %s batch %d: a batch of %d bytes", file, p, batch, len(b))
						}
						got = append(got, b...)
					}
					if !bytes.Equal(got, all) {
						t.Fatalf("%s %s batch %d: element reader differs from ReadAll", file, p, batch)
					}
				}
			}
			f.Close()
		}
	}
}

func TestReadSlabLimit(t *testing.T) {
	open := func(limit int64, p string) *Dataset {
		f, err := OpenFile(filepath.Join("testdata", "earliest.h5"), &Options{MaxReadBytes: limit})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		o, err := f.OpenPath(p)
		if err != nil {
			t.Fatal(err)
		}
		return o.(*Dataset)
	}
	ds := open(700, "/chunk/gzip_shuffle_fletcher") // chunks of 640 bytes
	if err := ds.ReadSlab([]uint64{0, 0}, []uint64{3, 37}, make([]byte, 888)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("an 888-byte box with a 700-byte limit: %v, want ErrTooLarge", err)
	}
	if err := ds.ReadSlab([]uint64{0, 0}, []uint64{2, 37}, make([]byte, 592)); err != nil {
		t.Error(err)
	}
	// Rows of 24 bytes over a 16-byte limit: the row reader refuses them,
	// the element reader streams them in parts.
	for _, p := range []string{"/num/m3d"} {
		ds = open(16, p)
		if _, err := ds.NewRowReader(1); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: row reader with rows over the limit: %v, want ErrTooLarge", p, err)
		}
		er, err := ds.NewElementReader(16)
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		for {
			b, err := er.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			got = append(got, b...)
		}
		all, err := open(0, p).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, all) || len(got) != int(er.Len())*er.ElemBytes() {
			t.Errorf("%s: element reader under a 16-byte limit: %d bytes, differ from ReadAll's %d", p, len(got), len(all))
		}
	}
}

// TestUnshuffle checks the word-at-a-time paths against the definition
// (byte j of element i is at j*n+i), with a remainder shorter than an
// element left in place, as HDF5 leaves it.
func TestUnshuffle(t *testing.T) {
	for _, es := range []int{2, 3, 4, 8, 16} {
		for _, n := range []int{0, 1, 7, 100} {
			for _, extra := range []int{0, 1} {
				if extra >= es {
					continue
				}
				src := make([]byte, n*es+extra)
				for i := range src {
					src[i] = byte(i*37 + 11)
				}
				want := make([]byte, len(src))
				for i := 0; i < n; i++ {
					for j := 0; j < es; j++ {
						want[i*es+j] = src[j*n+i]
					}
				}
				copy(want[n*es:], src[n*es:])
				got := unshuffle(src, es, make([]byte, len(src)))
				if len(src) < es {
					got = src
				}
				if !bytes.Equal(got, want) {
					t.Errorf("es %d n %d extra %d: %x, want %x", es, n, extra, got, want)
				}
			}
		}
	}
}

// BenchmarkUnshuffle8 undoes the shuffle of a 1 MiB chunk of 8-byte
// elements.
func BenchmarkUnshuffle8(b *testing.B) {
	src := make([]byte, 1<<20)
	for i := range src {
		src[i] = byte(i)
	}
	dst := make([]byte, len(src))
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		unshuffle(src, 8, dst)
	}
}

// TestElementReaderEmpty: datasets with a zero dimension give no batch,
// whichever dimension is zero (a zero after the first divided by zero:
// the fuzz input testdata/fuzz/FuzzReadDataset/1b2eb28b527ef3af).
func TestElementReaderEmpty(t *testing.T) {
	p := filepath.Join(t.TempDir(), "e.h5")
	fh, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(fh, nil)
	if err != nil {
		t.Fatal(err)
	}
	shapes := [][]uint64{{0, 3}, {3, 0}, {2, 0, 4}}
	for i, sh := range shapes {
		dw, err := w.Root().CreateDataset(fmt.Sprintf("d%d", i), npyio.Float64Type, sh, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := dw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	f, err := OpenFile(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i, sh := range shapes {
		o, err := f.OpenPath(fmt.Sprintf("/d%d", i))
		if err != nil {
			t.Fatal(err)
		}
		for _, batch := range []int{1, 12, 1 << 20} {
			er, err := o.(*Dataset).NewElementReader(batch)
			if err != nil {
				t.Fatal(err)
			}
			if b, err := er.Read(); err != io.EOF || er.Len() != 0 {
				t.Errorf("%v batch %d: %d bytes, %v, Len %d", sh, batch, len(b), err, er.Len())
			}
		}
	}
}
