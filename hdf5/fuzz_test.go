package hdf5

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func addSeeds(f *testing.F, names ...string) {
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

var fuzzOpts = &Options{MaxReadBytes: 1 << 20, ChunkCacheBytes: 1 << 20, Name: "fuzz"}

// exercise reads everything in the file, checking only that errors are
// errors (no panic, no hang, no huge allocation).
func exercise(t *testing.T, f *File) {
	n := 0
	_ = f.Walk(func(p string, o Object) error {
		n++
		if n > 200 {
			return io.EOF
		}
		attrs, _ := o.Attrs()
		for _, a := range attrs {
			a.Strings()
			a.Int64s()
			a.Uint64s()
			a.Float64s()
			a.VarLen()
			if refs, err := a.References(); err == nil {
				for _, r := range refs {
					f.Deref(r)
				}
			}
		}
		switch o := o.(type) {
		case *Group:
			o.Members()
			o.Variables()
		case *Dataset:
			o.Dimensions()
			o.CFAttributes()
			o.IsNetCDFDimensionOnly()
			for _, fi := range o.FilterPipeline() {
				_ = fi.String()
			}
			o.CheckFilters()
			readDataset(t, o)
		}
		return nil
	})
	f.NetCDF()
	if tabs, err := f.DimensionTables(); err == nil {
		for _, tab := range tabs {
			r, err := tab.NewReader(2)
			if err != nil {
				continue
			}
			for i := 0; i < 100; i++ {
				if _, err := r.Read(); err != nil {
					break
				}
			}
		}
	}
}

func readDataset(t *testing.T, ds *Dataset) {
	ds.Describe()
	ds.ReadStrings()
	ds.ReadReferences()
	dt, err := ds.DType()
	if err != nil {
		return
	}
	all, errAll := ds.ReadAll()
	r, err := ds.NewRowReader(3)
	if err != nil {
		return
	}
	var got []byte
	for i := 0; ; i++ {
		if i > 1000 {
			// A huge sparse dataset streams for long; stop comparing.
			return
		}
		b, err := r.Read()
		if err != nil {
			if err != io.EOF {
				got = nil
			}
			break
		}
		got = append(got, b...)
	}
	if errAll == nil && got != nil && !bytes.Equal(got, all) {
		t.Errorf("%s (%s): row reader and ReadAll differ", ds.Path(), dt)
	}
	// The element reader (boxes, partial rows) gives the same bytes.
	er, err := ds.NewElementReader(40)
	if err != nil {
		return
	}
	got = got[:0]
	for i := 0; ; i++ {
		if i > 2000 {
			return
		}
		b, err := er.Read()
		if err != nil {
			if err != io.EOF {
				return
			}
			break
		}
		got = append(got, b...)
	}
	if errAll == nil && !bytes.Equal(got, all) {
		t.Errorf("%s (%s): element reader and ReadAll differ", ds.Path(), dt)
	}
}

func FuzzOpen(f *testing.F) {
	addSeeds(f, "small_earliest.h5", "small_latest.h5", "userblock.h5", "compound.h5", "dimscales.h5", "nc3_classic.nc")
	f.Fuzz(func(t *testing.T, data []byte) {
		defer watchdog(data).Stop()
		h, err := Open(bytes.NewReader(data), int64(len(data)), fuzzOpts)
		if err != nil {
			if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrNetCDF3) {
				t.Fatalf("Open: error neither ErrFormat, ErrUnsupported nor ErrNetCDF3: %v", err)
			}
			return
		}
		exercise(t, h)
	})
}

func FuzzReadDataset(f *testing.F) {
	addSeeds(f, "small_earliest.h5", "small_latest.h5")
	f.Fuzz(func(t *testing.T, data []byte) {
		defer watchdog(data).Stop()
		h, err := Open(bytes.NewReader(data), int64(len(data)), fuzzOpts)
		if err != nil {
			return
		}
		for _, p := range []string{"/d", "/e", "/s"} {
			o, err := h.OpenPath(p)
			if err != nil {
				continue
			}
			if ds, ok := o.(*Dataset); ok {
				readDataset(t, ds)
			}
		}
	})
}

// FuzzObjectHeader mutates one object header: the fuzz input is appended
// to small_earliest.h5 and the root group's entry "d" points at it. Seeds
// are the file's own object headers (v1) and the v2 headers of
// small_latest.h5.
func FuzzObjectHeader(f *testing.F) {
	base, err := os.ReadFile("testdata/small_earliest.h5")
	if err != nil {
		f.Fatal(err)
	}
	h, err := Open(bytes.NewReader(base), int64(len(base)), nil)
	if err != nil {
		f.Fatal(err)
	}
	d, err := h.OpenPath("/d")
	if err != nil {
		f.Fatal(err)
	}
	dAddr := d.Addr()
	for _, name := range []string{"small_earliest.h5", "small_latest.h5"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		src, err := Open(bytes.NewReader(b), int64(len(b)), nil)
		if err != nil {
			f.Fatal(err)
		}
		src.Walk(func(p string, o Object) error {
			a := o.Addr()
			f.Add(b[a:min(uint64(len(b)), a+512)])
			return nil
		})
	}
	snod := bytes.Index(base, []byte("SNOD"))
	f.Fuzz(func(t *testing.T, hdr []byte) {
		defer watchdog(hdr).Stop()
		file := append(append([]byte(nil), base...), hdr...)
		var o, n [8]byte
		binary.LittleEndian.PutUint64(o[:], dAddr)
		binary.LittleEndian.PutUint64(n[:], uint64(len(base)))
		i := bytes.Index(file[snod:], o[:])
		if i < 0 {
			t.Fatal("entry d not found")
		}
		copy(file[snod+i:], n[:])
		h, err := Open(bytes.NewReader(file), int64(len(file)), fuzzOpts)
		if err != nil {
			t.Fatal(err)
		}
		obj, err := h.OpenPath("/d")
		if err != nil {
			return
		}
		obj.Attrs()
		switch o := obj.(type) {
		case *Dataset:
			readDataset(t, o)
		case *Group:
			o.Members()
		}
	})
}

// FuzzStructures overwrites the start of one unchecksummed structure of
// small_earliest.h5 (B-tree nodes of groups and chunks, symbol table
// nodes, local and global heaps): the first input byte picks the
// structure, the rest replaces its bytes.
func FuzzStructures(f *testing.F) {
	base, err := os.ReadFile("testdata/small_earliest.h5")
	if err != nil {
		f.Fatal(err)
	}
	var offs []int
	for _, sig := range []string{"TREE", "SNOD", "HEAP", "GCOL"} {
		for i := 0; ; {
			j := bytes.Index(base[i:], []byte(sig))
			if j < 0 {
				break
			}
			offs = append(offs, i+j)
			i += j + 4
		}
	}
	for k, o := range offs {
		f.Add(append([]byte{byte(k)}, base[o:min(len(base), o+96)]...))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		defer watchdog(in).Stop()
		file := append([]byte(nil), base...)
		o := offs[int(in[0])%len(offs)]
		copy(file[o:], in[1:])
		h, err := Open(bytes.NewReader(file), int64(len(file)), fuzzOpts)
		if err != nil {
			t.Fatal(err)
		}
		exercise(t, h)
	})
}

// FuzzStructuresV2 overwrites the start of one version 2 structure of
// small_latest.h5 (superblock, object headers, v2 B-tree nodes, fractal
// heap blocks, fixed and extensible array blocks), with checksums not
// verified so that the mutations reach the parsers.
func FuzzStructuresV2(f *testing.F) {
	base, err := os.ReadFile("testdata/small_latest.h5")
	if err != nil {
		f.Fatal(err)
	}
	offs := []int{0}
	for _, sig := range []string{"OHDR", "OCHK", "BTHD", "BTIN", "BTLF", "FRHP", "FHDB", "FHIB", "FAHD", "FADB", "EAHD", "EAIB", "EASB", "EADB", "GCOL"} {
		for i := 0; ; {
			j := bytes.Index(base[i:], []byte(sig))
			if j < 0 {
				break
			}
			offs = append(offs, i+j)
			i += j + 4
		}
	}
	for k, o := range offs {
		f.Add(append([]byte{byte(k)}, base[o:min(len(base), o+128)]...))
	}
	opts := *fuzzOpts
	opts.noChecksums = true
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		defer watchdog(in).Stop()
		file := append([]byte(nil), base...)
		o := offs[int(in[0])%len(offs)]
		copy(file[o:], in[1:])
		h, err := Open(bytes.NewReader(file), int64(len(file)), &opts)
		if err != nil {
			return
		}
		exercise(t, h)
	})
}
