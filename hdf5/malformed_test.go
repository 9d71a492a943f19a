package hdf5

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func openBytes(b []byte) (*File, error) {
	return Open(bytes.NewReader(b), int64(len(b)), &Options{Name: "mem.h5", MaxReadBytes: 1 << 24})
}

// readEverything walks the file and reads every dataset, returning the
// first error.
func readEverything(f *File) error {
	return f.Walk(func(p string, o Object) error {
		if _, err := o.Attrs(); err != nil {
			return err
		}
		if ds, ok := o.(*Dataset); ok {
			if _, err := ds.DType(); err != nil {
				if errors.Is(err, ErrUnsupported) {
					return nil
				}
				return err
			}
			if _, err := ds.ReadAll(); err != nil {
				return err
			}
		}
		return nil
	})
}

func TestNotHDF5(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("hello"), bytes.Repeat([]byte{0}, 4096)} {
		_, err := openBytes(b)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "not an HDF5 file") {
			t.Errorf("%d bytes: %v", len(b), err)
		}
	}
}

func TestTruncated(t *testing.T) {
	for _, name := range []string{"small_earliest.h5", "small_latest.h5", "userblock.h5"} {
		full := readFixture(t, name)
		for n := 0; n < len(full); n += 1 + n/16 {
			f, err := openBytes(full[:n])
			if err != nil {
				if !errors.Is(err, ErrFormat) {
					t.Errorf("%s[:%d]: Open: %v, want ErrFormat", name, n, err)
				}
				continue
			}
			if err := readEverything(f); err == nil && n < len(full)*9/10 {
				t.Errorf("%s[:%d]: read everything without an error", name, n)
			} else if err != nil && !errors.Is(err, ErrFormat) && !errors.Is(err, ErrUnsupported) {
				t.Errorf("%s[:%d]: %v, want ErrFormat", name, n, err)
			}
		}
	}
}

func TestChecksumMismatch(t *testing.T) {
	b := readFixture(t, "small_latest.h5")
	i := bytes.Index(b, []byte("OHDR"))
	b[i+10] ^= 0xff
	f, err := openBytes(b)
	if err == nil {
		err = readEverything(f)
	}
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("corrupt object header: %v", err)
	}
	b = readFixture(t, "small_latest.h5")
	b[46] ^= 1 // inside the superblock (v3, checksummed)
	if _, err := openBytes(b); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "superblock checksum") {
		t.Errorf("corrupt superblock: %v", err)
	}
}

func TestOffsetSizeRefused(t *testing.T) {
	b := readFixture(t, "userblock.h5")
	b[512+13] = 4 // size of offsets in the v0 superblock
	_, err := openBytes(b)
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "4-byte offsets") {
		t.Errorf("4-byte offsets: %v", err)
	}
}

func TestUnknownFilter(t *testing.T) {
	// lzf.h5 with its filter id (32000, in the pipeline message followed
	// by the name's length) changed to 32099, which no decoder knows.
	b := readFixture(t, "lzf.h5")
	i := bytes.Index(b, []byte{0x00, 0x7d, 0x08, 0x00})
	if i < 0 {
		t.Fatal("filter 32000 not found")
	}
	b[i] = 0x63
	f, err := openBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	o, err := f.OpenPath("/lzf")
	if err != nil {
		t.Fatal(err)
	}
	_, err = o.(*Dataset).ReadAll()
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), `filter 32099 ("lzf", an unregistered id)`) || !strings.Contains(err.Error(), "/lzf") {
		t.Errorf("unknown filter: %v", err)
	}
}

// snodEntry finds the symbol table entry naming the object at addr.
func patchAddr(t *testing.T, b []byte, within int, old, new uint64) {
	t.Helper()
	var o, n [8]byte
	binary.LittleEndian.PutUint64(o[:], old)
	binary.LittleEndian.PutUint64(n[:], new)
	i := bytes.Index(b[within:], o[:])
	if i < 0 {
		t.Fatalf("address %#x not found after %d", old, within)
	}
	copy(b[within+i:], n[:])
}

func TestGroupContainsItself(t *testing.T) {
	b := readFixture(t, "small_earliest.h5")
	f, err := openBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	g, err := f.OpenPath("/g")
	if err != nil {
		t.Fatal(err)
	}
	// Make the root's entry "g" point to the root itself.
	snod := bytes.Index(b, []byte("SNOD"))
	patchAddr(t, b, snod, g.Addr(), f.rootAddr)
	f, err = openBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := f.Walk(func(string, Object) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 4 { // /, /d, /e, /s: /g is the root again and not visited twice
		t.Errorf("walk visited %d objects", n)
	}
	o, err := f.OpenPath("/g/g/g/d")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := o.(*Dataset); !ok {
		t.Errorf("/g/g/g/d is %T", o)
	}
}

func TestBTreeCycle(t *testing.T) {
	b := readFixture(t, "small_earliest.h5")
	i := bytes.Index(b, []byte("TREE\x00\x00"))
	if i < 0 {
		t.Fatal("no group B-tree node")
	}
	b[i+5] = 1 // level 1: the children are B-tree nodes
	// first child pointer: after 24 header bytes and one 8-byte key
	binary.LittleEndian.PutUint64(b[i+24+8:], uint64(i))
	f, err := openBytes(b)
	if err == nil {
		_, err = f.Root().Members()
	}
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("B-tree cycle: %v", err)
	}
}

func TestContinuationLoop(t *testing.T) {
	b := readFixture(t, "earliest.h5")
	f, err := openBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	// Find a version 1 object header with a continuation message and
	// point the continuation back at the header's own first block.
	var done bool
	err = f.Walk(func(p string, o Object) error {
		if done {
			return nil
		}
		a := o.Addr()
		size := uint64(binary.LittleEndian.Uint32(b[a+8:]))
		d := &dec{b: b[a+16 : a+16+size]}
		for d.rest() >= 8 {
			pos := d.pos
			typ, n := d.u16(), int(d.u16())
			d.skip(4 + n)
			if typ == msgContinuation {
				binary.LittleEndian.PutUint64(b[a+16+uint64(pos)+8:], a+16)
				binary.LittleEndian.PutUint64(b[a+16+uint64(pos)+16:], size)
				done = true
				return nil
			}
		}
		return nil
	})
	if err != nil || !done {
		t.Fatalf("no continuation message found: %v", err)
	}
	f, err = openBytes(b)
	if err == nil {
		err = readEverything(f)
	}
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "loops back") {
		t.Errorf("continuation loop: %v", err)
	}
}

func TestHugeClaims(t *testing.T) {
	// A dataspace claiming 2^40 elements of a contiguous dataset: ReadAll
	// refuses before allocating; the row reader fails on the first batch.
	b := readFixture(t, "userblock.h5")
	f, err := openBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	o, err := f.OpenPath("/x")
	if err != nil {
		t.Fatal(err)
	}
	h, _ := f.header(o.Addr())
	m := h.find(msgDataspace)
	off := m.addr + f.base + 8 // dims[0] of a version 1 dataspace
	if binary.LittleEndian.Uint64(b[off:]) != 5 {
		t.Fatalf("dataspace layout not as expected")
	}
	binary.LittleEndian.PutUint64(b[off:], 1<<40)
	f, err = openBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	o, err = f.OpenPath("/x")
	if err != nil {
		t.Fatal(err)
	}
	ds := o.(*Dataset)
	if _, err := ds.ReadAll(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadAll: %v, want ErrTooLarge", err)
	}
	r, err := ds.NewRowReader(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(); !errors.Is(err, ErrFormat) {
		t.Errorf("Read: %v, want ErrFormat", err)
	}
}

// A chunked dataset whose rows claim 8 TiB each: the row reader refuses
// before allocating a row (fuzz: an allocation of 1.3 TB).
func TestHugeRow(t *testing.T) {
	b := readFixture(t, "small_earliest.h5")
	f, err := openBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	o, err := f.OpenPath("/d")
	if err != nil {
		t.Fatal(err)
	}
	h, _ := f.header(o.Addr())
	m := h.find(msgDataspace)
	off := m.addr + f.base + 16 // dims[1] of a version 1 dataspace
	if binary.LittleEndian.Uint64(b[off:]) != 3 {
		t.Fatalf("dataspace layout not as expected")
	}
	binary.LittleEndian.PutUint64(b[off:], 1<<40)
	f, err = openBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	o, err = f.OpenPath("/d")
	if err != nil {
		t.Fatal(err)
	}
	ds := o.(*Dataset)
	if _, err := ds.NewRowReader(1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("NewRowReader: %v, want ErrTooLarge", err)
	}
	if _, err := ds.ReadAll(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadAll: %v, want ErrTooLarge", err)
	}
}
