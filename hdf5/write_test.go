package hdf5

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/npyflow/npyflow/npyio"
)

// The writer's checks. Each wCase builds a file and records what it should
// hold (wExpect). hdf5/testdata/check_written.py reads such files with h5py
// and h5dump; the files it accepted are committed in testdata/written with
// the JSON h5py's reading gave, and TestWriteFixtures asserts that the
// writer still makes exactly those bytes and that what the test meant to
// write is what h5py read. To regenerate after a deliberate change:
//
//	HDF5_WRITTEN_DIR=/tmp/w go test -run TestWriteFixtures ./hdf5/
//	/usr/bin/python3 hdf5/testdata/check_written.py /tmp/w --update hdf5/testdata/written

// wMem is an in-memory io.WriteSeeker.
type wMem struct {
	b   []byte
	pos int64
}

func (m *wMem) Write(p []byte) (int, error) {
	end := m.pos + int64(len(p))
	if end > int64(len(m.b)) {
		m.b = append(m.b, make([]byte, end-int64(len(m.b)))...)
	}
	copy(m.b[m.pos:], p)
	m.pos = end
	return len(p), nil
}

func (m *wMem) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
		m.pos = off
	case io.SeekCurrent:
		m.pos += off
	case io.SeekEnd:
		m.pos = int64(len(m.b)) + off
	}
	if m.pos < 0 {
		return 0, errors.New("negative position")
	}
	return m.pos, nil
}

// wBuild creates objects and records their expected content.
type wBuild struct {
	t    testing.TB
	w    *Writer
	e    *wExpect
	refs map[ObjRef]string
}

func (b *wBuild) group(parent *GroupWriter, name string) *GroupWriter {
	b.t.Helper()
	g, err := parent.CreateGroup(name)
	if err != nil {
		b.t.Fatal(err)
	}
	b.e.group(g.Path())
	b.refs[g.Ref()] = g.Path()
	return g
}

var wLayoutNames = []string{"compact", "contiguous", "chunked"}

// ds writes a dataset of the test data of dt in batches of batch rows.
func (b *wBuild) ds(g *GroupWriter, name string, dt *npyio.DType, shape []uint64, opts *DatasetOptions, batch int) *DatasetWriter {
	b.t.Helper()
	n, _ := wCount(shape)
	data := wTestData(dt, int(n))
	cshape := slices.Clone(shape)
	if opts != nil && opts.Unlimited {
		cshape[0] = 0
	}
	d, err := g.CreateDataset(name, dt, cshape, opts)
	if err != nil {
		b.t.Fatal(err)
	}
	rowSize := d.rowSize
	step := max(1, uint64(batch)) * rowSize
	for off := uint64(0); off < uint64(len(data)); off += step {
		if err := d.Write(data[off:min(off+step, uint64(len(data)))]); err != nil {
			b.t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		b.t.Fatal(err)
	}
	b.e.dataset(d.Path(), wDTypeJSON(dt), shape, wValues(dt, data), wLayoutNames[d.layout], opts, d.chunk)
	b.refs[d.Ref()] = d.Path()
	return d
}

type wAttrOwner interface {
	SetAttr(string, AttrValue) error
	Path() string
}

func (b *wBuild) attr(o wAttrOwner, name string, v AttrValue, dtype any, shape []uint64, values []any) {
	b.t.Helper()
	if err := o.SetAttr(name, v); err != nil {
		b.t.Fatal(err)
	}
	b.e.attr(o.Path(), name, dtype, shape, values)
}

func (b *wBuild) refPaths(refs []ObjRef) []any {
	out := make([]any, len(refs))
	for i, r := range refs {
		out[i] = b.refs[r]
	}
	return out
}

type wCase struct {
	name   string
	commit bool // committed under testdata/written (small)
	slow   bool // only without -short
	build  func(b *wBuild)
	opts   *WriterOptions
}

// wOK returns v, panicking (failing the test) on an error.
func wOK[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func wStruct(t testing.TB, fields ...npyio.Field) *npyio.DType {
	return wOK(npyio.NewStruct(fields))
}

func wMATHeader() []byte {
	h := make([]byte, 128)
	copy(h, "MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Wed Nov 25 11:00:00 2026 HDF5 schema 1.00 .")
	for i := len("MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Wed Nov 25 11:00:00 2026 HDF5 schema 1.00 ."); i < 116; i++ {
		h[i] = ' '
	}
	h[124], h[125], h[126], h[127] = 0x00, 0x02, 'I', 'M'
	return h
}

type wNamedType struct {
	name string
	dt   *npyio.DType
}

// wTypes are the dtypes the writer supports, by dataset name.
func wTypes(t testing.TB) []wNamedType {
	s5 := wOK(npyio.NewString(npyio.Bytes, 5))
	st := wStruct(t,
		npyio.Field{Name: "x", Type: npyio.Float64Type},
		npyio.Field{Name: "y", Type: npyio.Int32Type},
		npyio.Field{Name: "z", Type: npyio.Uint8Type, Shape: []int{2, 3}},
		npyio.Field{Name: "s", Type: s5})
	mc := wStruct(t, npyio.Field{Name: "real", Type: npyio.Float32Type}, npyio.Field{Name: "imag", Type: npyio.Float32Type})
	nested := wStruct(t,
		npyio.Field{Name: "flag", Type: npyio.BoolType},
		npyio.Field{Name: "inner", Type: st},
		npyio.Field{Name: "c", Type: npyio.Complex64},
		npyio.Field{Name: "be", Type: npyio.Int64Type.WithOrder(npyio.BigEndian)},
		npyio.Field{Name: "h", Type: npyio.Float16Type, Shape: []int{3}})
	return []wNamedType{
		{"i1", npyio.Int8Type}, {"i2", npyio.Int16Type}, {"i4", npyio.Int32Type}, {"i8", npyio.Int64Type},
		{"u1", npyio.Uint8Type}, {"u2", npyio.Uint16Type}, {"u4", npyio.Uint32Type}, {"u8", npyio.Uint64Type},
		{"f2", npyio.Float16Type}, {"f4", npyio.Float32Type}, {"f8", npyio.Float64Type},
		{"b1", npyio.BoolType}, {"c8", npyio.Complex64}, {"c16", npyio.Complex128}, {"S5", s5},
		{"be_f8", npyio.Float64Type.WithOrder(npyio.BigEndian)}, {"be_i4", npyio.Int32Type.WithOrder(npyio.BigEndian)},
		{"be_c16", npyio.Complex128.WithOrder(npyio.BigEndian)},
		{"struct", st}, {"matlab_complex", mc}, {"nested_struct", nested},
	}
}

var wCases = []wCase{
	{name: "types", commit: true, opts: &WriterOptions{UserBlock: []byte("npyflow hdf5 writer test")}, build: func(b *wBuild) {
		t, root := b.t, b.w.Root()
		types := wTypes(t)
		st := types[len(types)-3].dt // "struct"
		for _, ty := range types {
			b.ds(root, ty.name, ty.dt, []uint64{3, 4}, nil, 2)
		}
		b.ds(root, "contiguous", npyio.Float64Type, []uint64{50, 30}, nil, 7)
		b.ds(root, "forced_contiguous", npyio.Int16Type, []uint64{5}, &DatasetOptions{Contiguous: true}, 5)
		b.ds(root, "forced_compact", npyio.Uint8Type, []uint64{60, 100}, &DatasetOptions{Compact: true}, 100)
		b.ds(root, "scalar", npyio.Float64Type, nil, nil, 1)
		b.ds(root, "scalar_struct", st, nil, &DatasetOptions{Contiguous: true}, 1)
		b.ds(root, "empty", npyio.Int32Type, []uint64{0}, nil, 1)
		b.ds(root, "empty2", npyio.Float32Type, []uint64{3, 0}, nil, 1)
		b.ds(root, "empty_contiguous", npyio.Float32Type, []uint64{0, 2}, &DatasetOptions{Contiguous: true}, 1)

		b.attr(root, "MATLAB_class", StringAttr("double"), "|S6", []uint64{}, []any{"double"})
		b.attr(root, "utf8", StringAttr("µs"), "|S3", []uint64{}, []any{wLatin1([]byte("µs"))})
		b.attr(root, "empty_string", StringAttr(""), "|S1", []uint64{}, []any{""})
		b.attr(root, "i32", NumAttr(int32(-7)), "<i4", []uint64{}, []any{-7})
		b.attr(root, "u8", NumAttr(uint8(1)), "|u1", []uint64{}, []any{1})
		b.attr(root, "f64s", NumsAttr([]float64{1.5, -2, 1e300}), "<f8", []uint64{3}, []any{1.5, -2.0, 1e300})
		b.attr(root, "u64s", NumsAttr([]uint64{0, 1 << 63, 1<<64 - 1}), "<u8", []uint64{3}, []any{0, uint64(1 << 63), uint64(1<<64 - 1)})
		b.attr(root, "i16s", NumsAttr([]int16{-32768, 5}), "<i2", []uint64{2}, []any{-32768, 5})
		b.attr(root, "f32s", NumsAttr([]float32{0.5}), "<f4", []uint64{1}, []any{0.5})
		b.attr(root, "no_u32", NumsAttr([]uint32{}), "<u4", []uint64{0}, []any{})
		b.attr(root, "MATLAB_fields", FieldNamesAttr([]string{"a", "bc", "long_field_name"}), []any{"vlen", "|S1"}, []uint64{3},
			[]any{[]any{"a"}, []any{"b", "c"}, wLatin1Chars("long_field_name")})
		vi := VlenAttr(npyio.Int32Type, [][]byte{npyio.AsBytes([]int32{1, 2, 3}), {}, npyio.AsBytes([]int32{-4})})
		b.attr(root, "vlen_i4", vi, []any{"vlen", "<i4"}, []uint64{3}, []any{[]any{1, 2, 3}, []any{}, []any{-4}})
		b.attr(root, "vlen_strings", VlenStringsAttr([]string{"", "plain", "naïve ✓"}), "vlen-str:utf-8", []uint64{3},
			[]any{"", "plain", "naïve ✓"})
		cdata := wTestData(npyio.Complex128, 4)
		b.attr(root, "complex", ArrayAttr(npyio.Complex128, []uint64{2, 2}, cdata), "<c16", []uint64{2, 2}, wValues(npyio.Complex128, cdata))
		sdata := wTestData(st, 2)
		b.attr(root, "struct", ArrayAttr(st, []uint64{2}, sdata), wDTypeJSON(st), []uint64{2}, wValues(st, sdata))
		bdata := wTestData(npyio.BoolType, 1)
		b.attr(root, "bool", ArrayAttr(npyio.BoolType, nil, bdata), "|b1", []uint64{}, wValues(npyio.BoolType, bdata))
		fdata := wTestData(npyio.Float64Type, 1)
		d := b.ds(root, "with_attrs", npyio.Float64Type, []uint64{2}, nil, 2)
		b.attr(d, "scalar_f8", ArrayAttr(npyio.Float64Type, nil, fdata), "<f8", []uint64{}, wValues(npyio.Float64Type, fdata))
		refs := []ObjRef{d.Ref(), root.Ref()}
		b.refs[root.Ref()] = "/"
		b.attr(d, "refs", RefsAttr(refs), "ref", []uint64{2}, b.refPaths(refs))
		if err := root.CreateRefDataset("refs", refs, []uint64{1, 2}); err != nil {
			t.Fatal(err)
		}
		b.e.dataset("/refs", "ref", []uint64{1, 2}, b.refPaths(refs), "compact", nil, nil)
	}},
	{name: "chunked", commit: true, build: func(b *wBuild) {
		t, root := b.t, b.w.Root()
		b.ds(root, "deflate2d", npyio.Float64Type, []uint64{37, 23}, &DatasetOptions{Chunk: []uint64{10, 7}, Deflate: 4, Shuffle: true}, 3)
		b.ds(root, "i2_3d", npyio.Int16Type, []uint64{5, 6, 7}, &DatasetOptions{Chunk: []uint64{2, 4, 3}}, 1)
		b.ds(root, "unlimited", npyio.Float32Type, []uint64{1000}, &DatasetOptions{Unlimited: true, Chunk: []uint64{64}, Deflate: 1}, 77)
		b.ds(root, "unlimited2d", npyio.Uint8Type, []uint64{250, 3}, &DatasetOptions{Unlimited: true, Shuffle: true}, 1000)
		b.ds(root, "unlimited_empty", npyio.Float64Type, []uint64{0, 4}, &DatasetOptions{Unlimited: true, Chunk: []uint64{8, 4}, Deflate: 6}, 1)
		b.ds(root, "many_chunks", npyio.Int64Type, []uint64{300}, &DatasetOptions{Chunk: []uint64{2}, Deflate: 9}, 1000)
		st := wStruct(t, npyio.Field{Name: "a", Type: npyio.Int64Type}, npyio.Field{Name: "b", Type: npyio.Float32Type, Shape: []int{2}})
		b.ds(root, "struct", st, []uint64{40}, &DatasetOptions{Chunk: []uint64{16}, Deflate: 2, Shuffle: true}, 5)
		b.ds(root, "bool", npyio.BoolType, []uint64{33}, &DatasetOptions{Deflate: 1}, 10)

		// WriteChunk, chunks in reverse order, edges padded with -1.
		shape, chunk := []uint64{10, 9}, []uint64{4, 4}
		all := wTestData(npyio.Float64Type, 90)
		d := wOK(root.CreateDataset("by_chunk", npyio.Float64Type, shape, &DatasetOptions{Chunk: chunk, Deflate: 3}))
		for ci := 2; ci >= 0; ci-- {
			for cj := 2; cj >= 0; cj-- {
				buf := make([]byte, 16*8)
				for r := 0; r < 4; r++ {
					for c := 0; c < 4; c++ {
						i, j := ci*4+r, cj*4+c
						v := npyio.AsBytes([]float64{-1})
						if i < 10 && j < 9 {
							v = all[(i*9+j)*8 : (i*9+j+1)*8]
						}
						copy(buf[(r*4+c)*8:], v)
					}
				}
				if err := d.WriteChunk([]uint64{uint64(ci), uint64(cj)}, buf); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		b.e.dataset("/by_chunk", "<f8", shape, wValues(npyio.Float64Type, all), "chunked", &DatasetOptions{Deflate: 3}, chunk)
		// WriteChunk with a missing chunk: it reads as zeros (the fill value).
		d = wOK(root.CreateDataset("sparse_chunks", npyio.Int32Type, []uint64{6}, &DatasetOptions{Chunk: []uint64{3}}))
		if err := d.WriteChunk([]uint64{1}, npyio.AsBytes([]int32{4, 5, 6})); err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		b.e.dataset("/sparse_chunks", "<i4", []uint64{6}, []any{0, 0, 0, 4, 5, 6}, "chunked", nil, []uint64{3})
	}},
	{name: "groups", commit: true, build: func(b *wBuild) {
		root := b.w.Root()
		a := b.group(root, "a")
		ab := b.group(a, "b")
		abc := b.group(ab, "c")
		b.ds(abc, "leaf", npyio.Int32Type, []uint64{2}, nil, 2)
		b.attr(ab, "note", StringAttr("nested"), "|S6", []uint64{}, []any{"nested"})
		b.group(root, "empty")
		many := b.group(root, "many")
		for i := 39; i >= 0; i-- {
			b.ds(many, fmt.Sprintf("m%02d", i), npyio.Uint16Type, nil, nil, 1)
		}
		// More attributes than the header has room for: a continuation block.
		d := b.ds(root, "lots_of_attrs", npyio.Float64Type, []uint64{3}, nil, 3)
		for i := range 30 {
			b.attr(d, fmt.Sprintf("attr_%02d", i), NumsAttr([]int64{int64(i), int64(-i)}), "<i8", []uint64{2}, []any{i, -i})
		}
		g := b.group(root, "g_lots_of_attrs")
		for i := range 30 {
			name := fmt.Sprintf("class_%02d", i)
			b.attr(g, name, StringAttr(name), "|S8", []uint64{}, []any{name})
		}
	}},
	{name: "matlab", commit: true, opts: &WriterOptions{UserBlock: wMATHeader()}, build: func(b *wBuild) {
		t, root := b.t, b.w.Root()
		cls := func(o wAttrOwner, c string) {
			b.attr(o, "MATLAB_class", StringAttr(c), fmt.Sprintf("|S%d", len(c)), []uint64{}, []any{c})
		}
		x := b.ds(root, "x", npyio.Float64Type, []uint64{2, 3}, nil, 1)
		cls(x, "double")
		refs := b.group(root, "#refs#")
		e := wOK(refs.CreateDataset("a", npyio.Uint64Type, []uint64{2}, nil))
		if err := e.Write(npyio.AsBytes([]uint64{0, 0})); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		b.e.dataset("/#refs#/a", "<u8", []uint64{2}, []any{0, 0}, "compact", nil, nil)
		b.refs[e.Ref()] = "/#refs#/a"
		cls(e, "canonical empty")
		b.attr(e, "MATLAB_empty", NumAttr(uint8(1)), "|u1", []uint64{}, []any{1})
		big := b.ds(refs, "b", npyio.Float64Type, []uint64{64, 64}, &DatasetOptions{Chunk: []uint64{64, 32}, Deflate: 3}, 50)
		cls(big, "double")
		cell := []ObjRef{e.Ref(), big.Ref()}
		if err := root.CreateRefDataset("c", cell, []uint64{2, 1}); err != nil {
			t.Fatal(err)
		}
		b.e.dataset("/c", "ref", []uint64{2, 1}, b.refPaths(cell), "compact", nil, nil)
		s := b.group(root, "s")
		cls(s, "struct")
		b.attr(s, "MATLAB_fields", FieldNamesAttr([]string{"f", "name"}), []any{"vlen", "|S1"}, []uint64{2},
			[]any{[]any{"f"}, wLatin1Chars("name")})
		f := b.ds(s, "f", npyio.Float64Type, []uint64{1, 1}, nil, 1)
		cls(f, "double")
		n := b.ds(s, "name", npyio.Uint16Type, []uint64{4, 1}, nil, 1)
		cls(n, "char")
		b.attr(n, "MATLAB_int_decode", NumAttr(int32(2)), "<i4", []uint64{}, []any{2})
		mc := wStruct(t, npyio.Field{Name: "real", Type: npyio.Float64Type}, npyio.Field{Name: "imag", Type: npyio.Float64Type})
		z := b.ds(root, "z", mc, []uint64{1, 3}, nil, 1)
		cls(z, "double")
		l := b.ds(root, "l", npyio.Uint8Type, []uint64{1, 5}, nil, 1)
		cls(l, "logical")
		b.attr(l, "MATLAB_int_decode", NumAttr(int32(1)), "<i4", []uint64{}, []any{1})
	}},
	{name: "lz4", commit: true, build: wCompressedCase(CompressionLZ4)},
	{name: "zstd", commit: true, build: wCompressedCase(CompressionZstd)},
	{name: "biggroup", build: func(b *wBuild) {
		g := b.group(b.w.Root(), "big")
		for i := range 3000 {
			b.ds(g, fmt.Sprintf("v%d", i*7919%3001), npyio.Int16Type, nil, nil, 1)
		}
		// 4500 chunks: a three-level chunk B-tree.
		b.ds(b.w.Root(), "deep_btree", npyio.Uint8Type, []uint64{90, 50}, &DatasetOptions{Chunk: []uint64{1, 1}}, 30)
	}},
	{name: "over4gib", slow: true, build: func(b *wBuild) {
		root := b.w.Root()
		b.ds(root, "before", npyio.Float64Type, []uint64{1000}, &DatasetOptions{Contiguous: true}, 100)
		// A hole of 4.5 GiB (sparse on disk): everything after it has
		// addresses over 4 GiB.
		b.w.alloc(4<<30 + 512<<20)
		b.ds(root, "after_contiguous", npyio.Float64Type, []uint64{1000}, &DatasetOptions{Contiguous: true}, 100)
		b.ds(root, "after_chunked", npyio.Int32Type, []uint64{5000, 3}, &DatasetOptions{Chunk: []uint64{100, 3}, Deflate: 1, Shuffle: true}, 333)
		g := b.group(root, "g")
		b.attr(g, "MATLAB_fields", FieldNamesAttr([]string{"x"}), []any{"vlen", "|S1"}, []uint64{1}, []any{[]any{"x"}})
		d := b.ds(g, "x", npyio.Float32Type, []uint64{2}, nil, 2)
		refs := []ObjRef{d.Ref(), g.Ref()}
		b.attr(g, "refs", RefsAttr(refs), "ref", []uint64{2}, b.refPaths(refs))
	}},
}

// wCompressedCase writes, compressed with c: every dtype the writer
// supports with partial edge chunks in both dimensions, several chunk
// shapes and batch sizes, shuffle, chunks under 256 bytes, incompressible
// chunks, an unlimited dataset, WriteChunk, and for zstd several levels.
func wCompressedCase(c Compression) func(b *wBuild) {
	return func(b *wBuild) {
		t, root := b.t, b.w.Root()
		opts := func(chunk []uint64, level int, shuffle bool) *DatasetOptions {
			return &DatasetOptions{Chunk: chunk, Compression: c, Level: level, Shuffle: shuffle}
		}
		types := b.group(root, "types")
		for _, ty := range wTypes(t) {
			b.ds(types, ty.name, ty.dt, []uint64{13, 5}, opts([]uint64{4, 3}, 0, false), 3)
		}
		b.ds(root, "shuffled_struct", wTypes(t)[18].dt, []uint64{50}, opts([]uint64{16}, 0, true), 7)
		b.ds(root, "f8_1d", npyio.Float64Type, []uint64{1000}, opts([]uint64{64}, 0, false), 100)
		b.ds(root, "f8_shuffle", npyio.Float64Type, []uint64{64, 40}, opts([]uint64{24, 40}, 0, true), 50)
		b.ds(root, "i4_3d", npyio.Int32Type, []uint64{5, 6, 7}, opts([]uint64{2, 4, 3}, 0, true), 1)
		b.ds(root, "tiny_chunks", npyio.Int64Type, []uint64{301}, opts([]uint64{2}, 0, false), 1000)
		b.ds(root, "one_byte_chunks", npyio.Uint8Type, []uint64{7, 3}, opts([]uint64{1, 1}, 0, false), 7)
		b.ds(root, "unlimited", npyio.Float32Type, []uint64{1000}, &DatasetOptions{Unlimited: true, Chunk: []uint64{64}, Compression: c}, 77)
		b.ds(root, "default_chunks", npyio.Int16Type, []uint64{20, 30}, &DatasetOptions{Compression: c}, 20)
		if c == CompressionZstd {
			for _, level := range []int{1, 3, 9, 19, 22} {
				b.ds(root, fmt.Sprintf("level%d", level), npyio.Float64Type, []uint64{300}, opts([]uint64{128}, level, true), 300)
			}
		}

		// Random bytes: no block shrinks (stored raw by lz4), and a
		// compressible chunk between them.
		noise := make([]byte, 3*2048)
		rng := rand.New(rand.NewPCG(3, 4))
		for i := range noise {
			noise[i] = byte(rng.Uint32())
		}
		clear(noise[2048:4096])
		d := wOK(root.CreateDataset("noise", npyio.Uint8Type, []uint64{3 * 2048}, opts([]uint64{2048}, 0, false)))
		if err := d.Write(noise); err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		b.e.dataset("/noise", "|u1", []uint64{3 * 2048}, wValues(npyio.Uint8Type, noise), "chunked", opts(nil, 0, false), []uint64{2048})

		// WriteChunk, chunks in reverse order, edges padded with 7.
		shape, chunk := []uint64{9}, []uint64{4}
		all := wTestData(npyio.Int32Type, 9)
		d = wOK(root.CreateDataset("by_chunk", npyio.Int32Type, shape, opts(chunk, 0, true)))
		for ci := 2; ci >= 0; ci-- {
			buf := npyio.AsBytes([]int32{7, 7, 7, 7})
			copy(buf, all[ci*16:min(len(all), ci*16+16)])
			if err := d.WriteChunk([]uint64{uint64(ci)}, buf); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		b.e.dataset("/by_chunk", "<i4", shape, wValues(npyio.Int32Type, all), "chunked", opts(nil, 0, true), chunk)
	}
}

func wLatin1Chars(s string) []any {
	out := make([]any, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = wLatin1([]byte{s[i]})
	}
	return out
}

// wRun builds a case into f.
func wRun(t testing.TB, c wCase, f io.WriteSeeker) *wExpect {
	w, err := NewWriter(f, c.opts)
	if err != nil {
		t.Fatal(err)
	}
	b := &wBuild{t: t, w: w, e: newWExpect(), refs: map[ObjRef]string{}}
	b.refs[w.Root().Ref()] = "/"
	c.build(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.e
}

// TestWriteFixtures checks every committed case byte for byte against the
// file h5py accepted, and that the test's intent equals h5py's reading. With
// HDF5_WRITTEN_DIR set it also writes every case (and its expectation) there
// for check_written.py.
func TestWriteFixtures(t *testing.T) {
	dir := os.Getenv("HDF5_WRITTEN_DIR")
	for _, c := range wCases {
		t.Run(c.name, func(t *testing.T) {
			if c.slow && (testing.Short() || dir == "") {
				t.Skip("a 4.5 GiB sparse file: only with HDF5_WRITTEN_DIR and without -short")
			}
			if dir != "" {
				f, err := os.Create(filepath.Join(dir, c.name+".h5"))
				if err != nil {
					t.Fatal(err)
				}
				e := wRun(t, c, f)
				if err := f.Close(); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, c.name+".expect.json"), e.marshal(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if !c.commit {
				return
			}
			m := &wMem{}
			e := wRun(t, c, m)
			want, err := os.ReadFile(filepath.Join("testdata", "written", c.name+".h5"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(m.b, want) {
				i := 0
				for i < len(want) && i < len(m.b) && want[i] == m.b[i] {
					i++
				}
				t.Errorf("the writer made %d bytes differing from the h5py-checked testdata/written/%s.h5 (%d bytes) at byte %d; if deliberate, regenerate and re-check (see write_test.go)", len(m.b), c.name, len(want), i)
			}
			h5py, err := os.ReadFile(filepath.Join("testdata", "written", c.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if ok, why := wJSONEqual(e.marshal(), h5py); !ok {
				t.Errorf("h5py read something else than the test wrote: %s", why)
			}
		})
	}
}

func TestWriteDeterministicAcrossWorkers(t *testing.T) {
	for _, c := range wCases {
		if c.name != "chunked" && c.name != "lz4" && c.name != "zstd" {
			continue
		}
		var outs [][]byte
		for _, n := range []int{1, 3, 8} {
			m := &wMem{}
			c.opts = &WriterOptions{Threads: n}
			wRun(t, c, m)
			outs = append(outs, m.b)
		}
		for i := 1; i < len(outs); i++ {
			if !bytes.Equal(outs[0], outs[i]) {
				t.Fatalf("%s: the output depends on the number of workers", c.name)
			}
		}
	}
}

func TestWriteUserBlockPadding(t *testing.T) {
	for _, tc := range []struct{ n, want int }{{1, 512}, {512, 512}, {513, 1024}, {3000, 4096}} {
		m := &wMem{}
		w := wOK(NewWriter(m, &WriterOptions{UserBlock: bytes.Repeat([]byte{'u'}, tc.n)}))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(m.b[tc.want:tc.want+8], []byte("\x89HDF\r\n\x1a\n")) {
			t.Errorf("user block of %d bytes: no superblock at %d", tc.n, tc.want)
		}
		if got := binary.LittleEndian.Uint64(m.b[tc.want+24:]); got != uint64(tc.want) {
			t.Errorf("base address %d, want %d", got, tc.want)
		}
		if got := binary.LittleEndian.Uint64(m.b[tc.want+40:]); got != uint64(len(m.b)) {
			t.Errorf("end of file %d, file is %d bytes", got, len(m.b))
		}
	}
}

func TestWriteErrors(t *testing.T) {
	m := &wMem{}
	w := wOK(NewWriter(m, nil))
	root := w.Root()
	u := npyio.Float64Type
	check := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", what)
		}
	}
	_, err := root.CreateDataset("u", &npyio.DType{Kind: npyio.Unicode, Order: npyio.LittleEndian}, []uint64{2}, nil)
	check("U0 dtype", err)
	_, err = root.CreateDataset("v", &npyio.DType{Kind: npyio.Void, Order: npyio.NotApplicable, Size: 3}, []uint64{2}, nil)
	check("void dtype", err)
	su := wOK(root.CreateDataset("surrogate", wOK(npyio.NewString(npyio.Unicode, 1)), []uint64{1}, nil))
	check("a surrogate code point", su.Write(npyio.AsBytes([]uint32{0xD800})))
	nu := wOK(root.CreateDataset("narrow", wOK(npyio.NewString(npyio.Unicode, 2)), []uint64{1}, &DatasetOptions{UnicodeBytes: []int{2}}))
	check("a value wider than its bytes", nu.Write(npyio.AsBytes([]uint32{0xe9, 0xe9})))
	_, err = root.CreateDataset("bad/name", u, []uint64{2}, nil)
	check("name with a slash", err)
	_, err = root.CreateDataset("", u, []uint64{2}, nil)
	check("empty name", err)
	_, err = root.CreateDataset("c", u, []uint64{100000}, &DatasetOptions{Compact: true})
	check("compact too large", err)
	_, err = root.CreateDataset("c", u, []uint64{10}, &DatasetOptions{Chunk: []uint64{20}})
	check("chunk over the shape", err)
	_, err = root.CreateDataset("c", u, []uint64{10}, &DatasetOptions{Chunk: []uint64{2, 2}})
	check("chunk rank", err)
	_, err = root.CreateDataset("c", u, nil, &DatasetOptions{Deflate: 1})
	check("chunked scalar", err)
	_, err = root.CreateDataset("c", u, []uint64{10}, &DatasetOptions{Deflate: 10})
	check("deflate level", err)
	d := wOK(root.CreateDataset("d", u, []uint64{2}, nil))
	check("partial row", d.Write(make([]byte, 12)))
	check("too many rows", d.Write(make([]byte, 24)))
	_, err = root.CreateGroup("d")
	check("duplicate name", err)
	check("WriteChunk on compact", d.WriteChunk([]uint64{0}, make([]byte, 16)))
	check("attr twice", func() error { d.SetAttr("a", NumAttr(1.0)); return d.SetAttr("a", NumAttr(2.0)) }())
	check("attr without value", d.SetAttr("b", AttrValue{}))
	check("attr too large", d.SetAttr("c", NumsAttr(make([]float64, 10000))))
	check("vlen ragged", d.SetAttr("v", VlenAttr(npyio.Int32Type, [][]byte{{1, 2}})))
	check("vlen string with NUL", d.SetAttr("v", VlenStringsAttr([]string{"a\x00b"})))
	check("array attr size", d.SetAttr("v", ArrayAttr(u, []uint64{3}, make([]byte, 8))))
	check("incomplete dataset", d.Close())
	check("refs for another shape", root.CreateRefDataset("r", []ObjRef{1, 2}, []uint64{3}))
	c := wOK(root.CreateDataset("ch", u, []uint64{8}, &DatasetOptions{Chunk: []uint64{4}}))
	check("chunk outside", c.WriteChunk([]uint64{2}, make([]byte, 32)))
	check("chunk size", c.WriteChunk([]uint64{0}, make([]byte, 8)))
	if err := c.WriteChunk([]uint64{0}, make([]byte, 32)); err != nil {
		t.Fatal(err)
	}
	check("Write after WriteChunk", c.Write(make([]byte, 8)))
	if err := c.WriteChunk([]uint64{0}, make([]byte, 32)); err != nil {
		t.Fatal(err)
	}
	check("a chunk twice", c.Close())
	check("Close after a chunk twice", w.Close())
}

// TestWriteIncompleteThenComplete: Close of a dataset missing rows fails
// and so does the Writer's; writing the rest makes both succeed.
func TestWriteIncompleteThenComplete(t *testing.T) {
	m := &wMem{}
	w := wOK(NewWriter(m, nil))
	d := wOK(w.Root().CreateDataset("d", npyio.Int32Type, []uint64{3}, &DatasetOptions{Contiguous: true}))
	if err := d.Write(npyio.AsBytes([]int32{1, 2})); err != nil {
		t.Fatal(err)
	}
	if d.Close() == nil {
		t.Fatal("Close of an incomplete dataset succeeded")
	}
	if err := d.Write(npyio.AsBytes([]int32{3})); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f := wOK(Open(bytes.NewReader(m.b), int64(len(m.b)), nil))
	got := wOK(wOK(f.OpenPath("/d")).(*Dataset).ReadAll())
	if !bytes.Equal(got, npyio.AsBytes([]int32{1, 2, 3})) {
		t.Fatalf("read %v", got)
	}

	m = &wMem{}
	w = wOK(NewWriter(m, nil))
	wOK(w.Root().CreateDataset("d", npyio.Int32Type, []uint64{3}, nil))
	if w.Close() == nil {
		t.Fatal("Writer.Close with an incomplete dataset succeeded")
	}
}

func TestWriteIOError(t *testing.T) {
	f := &wFailing{limit: 2000}
	w := wOK(NewWriter(f, nil))
	d := wOK(w.Root().CreateDataset("x", npyio.Float64Type, []uint64{10000}, &DatasetOptions{Deflate: 1, Chunk: []uint64{100}}))
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		err = d.Write(wTestData(npyio.Float64Type, 100))
	}
	if err == nil {
		err = w.Close()
	}
	if err == nil || !errors.Is(err, errWFull) {
		t.Fatalf("got %v, want the disk-full error", err)
	}
	if err := w.Close(); err == nil {
		t.Fatal("Close after a failure succeeded")
	}
}

var errWFull = errors.New("disk full")

type wFailing struct {
	wMem
	limit int64
}

func (f *wFailing) Write(p []byte) (int, error) {
	if f.pos+int64(len(p)) > f.limit {
		return 0, errWFull
	}
	return f.wMem.Write(p)
}

// TestWriteStopsWorkers: Close stops the compression goroutines, also
// after a failure.
func TestWriteStopsWorkers(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, fail := range []bool{false, true} {
		var f io.WriteSeeker = &wMem{}
		if fail {
			f = &wFailing{limit: 5000}
		}
		w := wOK(NewWriter(f, &WriterOptions{Threads: 4}))
		d := wOK(w.Root().CreateDataset("x", npyio.Float64Type, []uint64{4000}, &DatasetOptions{Chunk: []uint64{100}, Deflate: 1}))
		d.Write(wTestData(npyio.Float64Type, 4000))
		if err := w.Close(); (err != nil) != fail {
			t.Fatalf("fail=%v: Close: %v", fail, err)
		}
	}
	for i := 0; i < 100 && runtime.NumGoroutine() > before; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after Close, %d before", n, before)
	}
}

// TestWriteMemoryBounded streams 64 MiB through a chunked, deflated
// dataset in 1 MiB batches: the heap stays small (one block of chunk rows
// and a few chunks per worker), whatever the dataset size.
func TestWriteMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("64 MiB of compression")
	}
	batch := wBenchData(8192) // 1 MiB
	w := wOK(NewWriter(&wDiscard{}, &WriterOptions{Threads: 2}))
	d := wOK(w.Root().CreateDataset("x", npyio.Float64Type, []uint64{0, 16}, &DatasetOptions{Unlimited: true, Chunk: []uint64{4096, 16}, Deflate: 1}))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	peak := uint64(0)
	for i := range 64 {
		if err := d.Write(batch); err != nil {
			t.Fatal(err)
		}
		if i%8 == 7 {
			runtime.GC() // the live heap, not garbage that depends on load
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := d.Shape()[0]; got != 64*8192 {
		t.Fatalf("%d rows", got)
	}
	grow := int64(peak) - int64(base)
	t.Logf("heap growth %.1f MiB", float64(grow)/(1<<20))
	if grow > 24<<20 {
		t.Fatalf("the heap grew by %d MiB writing 64 MiB", grow>>20)
	}
}
