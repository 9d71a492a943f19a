package hdf5

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/npyflow/npyflow/npyio"
)

// Round trips: every writer case read back by this package's reader into
// the JSON form check_written.py makes from h5py, compared with what the
// test wrote (which TestWriteFixtures ties to h5py's reading).

func wReadJSON(t *testing.T, data []byte) *wExpect {
	t.Helper()
	return wReadJSONAt(t, bytes.NewReader(data), int64(len(data)))
}

func wReadJSONAt(t *testing.T, r io.ReaderAt, size int64) *wExpect {
	t.Helper()
	f, err := Open(r, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.SuperblockVersion() != 0 {
		t.Errorf("superblock version %d", f.SuperblockVersion())
	}
	e := &wExpect{Objects: map[string]map[string]any{}}
	refPath := func(r Reference) any {
		o, err := f.Deref(r)
		if err != nil {
			t.Fatalf("deref %d: %v", r, err)
		}
		return o.Path()
	}
	err = f.Walk(func(path string, obj Object) error {
		attrs := map[string]any{}
		as, err := obj.Attrs()
		if err != nil {
			return err
		}
		for _, a := range as {
			v, err := wAttrJSON(a, refPath)
			if err != nil {
				return fmt.Errorf("%s: attribute %s: %w", path, a.Name, err)
			}
			attrs[a.Name] = v
		}
		ds, ok := obj.(*Dataset)
		if !ok {
			e.Objects[path] = map[string]any{"kind": "group", "attrs": attrs}
			return nil
		}
		lay := ds.Layout()
		o := map[string]any{"kind": "dataset", "shape": wShapeJSON(ds.Shape()), "attrs": attrs,
			"layout": lay.ClassName(), "chunks": nil, "compression": nil, "compression_opts": nil, "shuffle": false}
		ms := wShapeJSON(ds.MaxShape())
		for i, d := range ds.MaxShape() {
			if d == wUndef {
				ms[i] = nil
			}
		}
		o["maxshape"] = ms
		if lay.Class == LayoutChunked {
			o["chunks"] = wShapeJSON(lay.Chunk)
			if lay.Index != IndexBTree1 {
				t.Errorf("%s: chunk index %d, want the v1 B-tree", path, lay.Index)
			}
		}
		for _, fl := range lay.Filters {
			switch fl.ID {
			case 1:
				o["compression"] = "gzip"
				o["compression_opts"] = fl.Params[0]
			case 2:
				o["shuffle"] = true
			case wFilterLZ4, wFilterZstd:
				o["compression"] = map[int]string{wFilterLZ4: "lz4", wFilterZstd: "zstd"}[fl.ID]
				opts := make([]any, len(fl.Params))
				for i, v := range fl.Params {
					opts[i] = v
				}
				o["compression_opts"] = opts
			}
		}
		if ds.Type().Class == ClassReference {
			refs, err := ds.ReadReferences()
			if err != nil {
				return err
			}
			vals := make([]any, len(refs))
			for i, r := range refs {
				vals[i] = refPath(r)
			}
			o["dtype"], o["values"] = "ref", vals
		} else {
			dt, err := ds.DType()
			if err != nil {
				return err
			}
			data, err := ds.ReadAll()
			if err != nil {
				return err
			}
			o["dtype"], o["values"] = wDTypeJSON(dt), wValues(dt, data)
		}
		e.Objects[path] = o
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func wAttrJSON(a *Attribute, refPath func(Reference) any) (any, error) {
	shape := wShapeJSON(a.Shape)
	switch a.Type.Class {
	case ClassReference:
		refs, err := a.References()
		if err != nil {
			return nil, err
		}
		vals := make([]any, len(refs))
		for i, r := range refs {
			vals[i] = refPath(r)
		}
		return map[string]any{"dtype": "ref", "shape": shape, "values": vals}, nil
	case ClassVarLen:
		if a.Type.VarLenString {
			ss, err := a.Strings()
			if err != nil {
				return nil, err
			}
			vals := make([]any, len(ss))
			for i, s := range ss {
				vals[i] = s
			}
			return map[string]any{"dtype": "vlen-str:utf-8", "shape": shape, "values": vals}, nil
		}
		base, _, err := a.Type.Base.NumpyDType()
		if err != nil {
			return nil, err
		}
		seqs, err := a.VarLen()
		if err != nil {
			return nil, err
		}
		vals := make([]any, len(seqs))
		for i, s := range seqs {
			vals[i] = wValues(base, s)
		}
		return map[string]any{"dtype": []any{"vlen", wDTypeJSON(base)}, "shape": shape, "values": vals}, nil
	}
	dt, _, err := a.Type.NumpyDType()
	if err != nil {
		return nil, err
	}
	return map[string]any{"dtype": wDTypeJSON(dt), "shape": shape, "values": wValues(dt, a.Bytes())}, nil
}

func TestWriteReadRoundTrip(t *testing.T) {
	for _, c := range wCases {
		if c.slow {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			m := &wMem{}
			want := wRun(t, c, m)
			got := wReadJSON(t, m.b)
			if ok, why := wJSONEqual(want.marshal(), got.marshal()); !ok {
				t.Errorf("the reader read something else than the writer wrote: %s", why)
			}
		})
	}
}

// TestWriteReadStreaming writes an unlimited chunked dataset in uneven
// batches and reads it back in row batches.
func TestWriteReadStreaming(t *testing.T) {
	m := &wMem{}
	w := wOK(NewWriter(m, &WriterOptions{Threads: 3}))
	d := wOK(w.Root().CreateDataset("x", npyio.Float64Type, []uint64{0, 5}, &DatasetOptions{Unlimited: true, Chunk: []uint64{100, 2}, Deflate: 1, Shuffle: true}))
	const rows = 12345
	data := wTestData(npyio.Float64Type, rows*5)
	for off, step := 0, 1; off < rows; off, step = off+step, step*3%997+1 {
		n := min(step, rows-off)
		if err := d.Write(data[off*40 : (off+n)*40]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f := wOK(Open(bytes.NewReader(m.b), int64(len(m.b)), nil))
	o := wOK(f.OpenPath("/x"))
	ds := o.(*Dataset)
	if s := ds.Shape(); s[0] != rows || s[1] != 5 {
		t.Fatalf("shape %v", s)
	}
	got := wOK(ds.ReadAll())
	if !bytes.Equal(got, data) {
		t.Fatal("data differs")
	}
}

// TestWriteChunkedRandom writes random shapes, chunk shapes, filters and
// batch sizes by Write and by WriteChunk (chunks in random order) and reads
// each back with the reader.
func TestWriteChunkedRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 150 {
		rank := 1 + rng.IntN(4)
		shape := make([]uint64, rank)
		chunk := make([]uint64, rank)
		for i := range shape {
			shape[i] = uint64(rng.IntN(9))
			if i > 0 && shape[i] == 0 && rng.IntN(2) == 0 {
				shape[i] = 1
			}
			chunk[i] = 1 + uint64(rng.IntN(int(max(shape[i], 1))))
		}
		dt := []*npyio.DType{npyio.Uint8Type, npyio.Int16Type, npyio.Float64Type, npyio.Complex64}[rng.IntN(4)]
		n, _ := wCount(shape)
		data := wTestData(dt, int(n))
		opts := &DatasetOptions{Chunk: chunk, Compression: Compressions[rng.IntN(len(Compressions))], Shuffle: rng.IntN(2) == 0}
		if opts.Compression == CompressionDeflate {
			opts.Level = 1 + rng.IntN(2)
		}
		byChunk := rng.IntN(3) == 0
		if !byChunk && rng.IntN(2) == 0 {
			opts.Unlimited = true
		}
		name := fmt.Sprintf("iter %d: %s shape %v chunk %v %+v byChunk=%v", iter, dt, shape, chunk, *opts, byChunk)
		m := &wMem{}
		w := wOK(NewWriter(m, &WriterOptions{Threads: 1 + rng.IntN(3)}))
		d, err := w.Root().CreateDataset("x", dt, shape, opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if byChunk {
			wWriteChunks(t, rng, d, data, shape, chunk, uint64(dt.Size))
		} else {
			rowSize := uint64(len(data)) / max(shape[0], 1)
			for off := uint64(0); off < uint64(len(data)); {
				k := (1 + uint64(rng.IntN(2*int(chunk[0])+1))) * rowSize
				k = min(k, uint64(len(data))-off)
				if err := d.Write(data[off : off+k]); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				off += k
			}
		}
		if err := w.Close(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f, err := Open(bytes.NewReader(m.b), int64(len(m.b)), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		o, err := f.OpenPath("/x")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ds := o.(*Dataset)
		got, err := ds.ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s := ds.Shape(); !slices.Equal(s, shape) && !(opts.Unlimited && n == 0 && s[0] == 0) {
			t.Fatalf("%s: read shape %v", name, s)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("%s: data differs", name)
		}
	}
}

// wWriteChunks cuts a C-order array into chunks (edges padded with 0xAB)
// and writes them in random order.
func wWriteChunks(t *testing.T, rng *rand.Rand, d *DatasetWriter, data []byte, shape, chunk []uint64, esz uint64) {
	rank := len(shape)
	grid := make([]uint64, rank)
	total := uint64(1)
	for i := range shape {
		grid[i] = (shape[i] + chunk[i] - 1) / chunk[i]
		total *= grid[i]
	}
	csize := esz
	for _, c := range chunk {
		csize *= c
	}
	for _, lin := range rng.Perm(int(total)) {
		coords := make([]uint64, rank)
		rest := uint64(lin)
		for i := rank - 1; i >= 0; i-- {
			coords[i] = rest % grid[i]
			rest /= grid[i]
		}
		buf := bytes.Repeat([]byte{0xAB}, int(csize))
		// every element of the chunk
		idx := make([]uint64, rank)
		for e := uint64(0); e < csize/esz; e++ {
			r := e
			for i := rank - 1; i >= 0; i-- {
				idx[i] = r % chunk[i]
				r /= chunk[i]
			}
			src, inside := uint64(0), true
			for i := 0; i < rank; i++ {
				g := coords[i]*chunk[i] + idx[i]
				if g >= shape[i] {
					inside = false
					break
				}
				src = src*shape[i] + g
			}
			if inside {
				copy(buf[e*esz:(e+1)*esz], data[src*esz:])
			}
		}
		if err := d.WriteChunk(coords, buf); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWriteOver4GiB writes the over4gib case (objects after a 4.5 GiB hole,
// a sparse file) and reads it back: 8-byte addresses everywhere.
func TestWriteOver4GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("a 4.5 GiB sparse file")
	}
	var c wCase
	for _, x := range wCases {
		if x.name == "over4gib" {
			c = x
		}
	}
	path := filepath.Join(t.TempDir(), "big.h5")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := wRun(t, c, f)
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() < 4<<30 {
		t.Fatalf("file of %d bytes", st.Size())
	}
	got := wReadJSONAt(t, f, st.Size())
	if ok, why := wJSONEqual(want.marshal(), got.marshal()); !ok {
		t.Errorf("the reader read something else than the writer wrote: %s", why)
	}
	for _, o := range []string{"/after_chunked", "/g/x"} {
		r, err := Open(f, st.Size(), nil)
		if err != nil {
			t.Fatal(err)
		}
		obj, err := r.OpenPath(o)
		if err != nil {
			t.Fatal(err)
		}
		if obj.Addr() < 4<<30 {
			t.Errorf("%s at %d, not above 4 GiB", o, obj.Addr())
		}
	}
}
