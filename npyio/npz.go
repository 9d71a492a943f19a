package npyio

import (
	"archive/zip"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/flate"
)

// NPZ archives are zip files of .npy members, as np.savez (Stored) and
// np.savez_compressed (Deflate) write them. Deflate goes through
// github.com/klauspost/compress/flate, which is faster than the standard
// library's at the same ratio.

// NPZReader reads the members of an .npz archive lazily: nothing of a
// member is read until it is opened, so a bad member fails only then.
type NPZReader struct {
	z       *zip.Reader
	ra      io.ReaderAt
	size    int64 // archive size
	opts    *Options
	Members []*Member // in archive order
	closer  io.Closer
	// byKey and byName index Members (the first of each key), so that
	// finding a member costs the same in an archive of any size.
	byKey, byName map[string]*Member
}

// Member is one entry of an .npz archive.
type Member struct {
	Key  string // the name np.load exposes: the zip name less one ".npy"
	Name string // the name in the zip archive
	f    *zip.File
	z    *NPZReader
}

// Compressed reports whether the member is Deflate-compressed.
func (m *Member) Compressed() bool { return m.f.Method != zip.Store }

// Size is the member's uncompressed size as the archive declares it.
func (m *Member) Size() int64 { return int64(m.f.UncompressedSize64) }

// CompressedSize is the member's size in the archive as it declares it.
func (m *Member) CompressedSize() int64 { return int64(m.f.CompressedSize64) }

// NewNPZReader reads the directory of the archive r of size size.
func NewNPZReader(r io.ReaderAt, size int64, opts *Options) (*NPZReader, error) {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("npyio: reading npz archive: %w", err)
	}
	z.RegisterDecompressor(zip.Deflate, func(r io.Reader) io.ReadCloser { return flate.NewReader(r) })
	nz := &NPZReader{z: z, ra: r, size: size, opts: opts}
	seen := make(map[string]bool, len(z.File))
	nz.byKey = make(map[string]*Member, len(z.File))
	nz.byName = make(map[string]*Member, len(z.File))
	for _, f := range z.File {
		if seen[f.Name] {
			// zip allows it, np.load silently keeps the last one: refuse
			// rather than guess which array the user meant.
			return nil, fmt.Errorf("%w: duplicate member name %q", zip.ErrFormat, f.Name)
		}
		seen[f.Name] = true
		key := strings.TrimSuffix(f.Name, ".npy")
		m := &Member{Key: key, Name: f.Name, f: f, z: nz}
		nz.Members = append(nz.Members, m)
		if nz.byKey[key] == nil {
			nz.byKey[key] = m
		}
		nz.byName[f.Name] = m
	}
	return nz, nil
}

// OpenNPZ opens the .npz file name. Close it when done.
func OpenNPZ(name string, opts *Options) (*NPZReader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	nz, err := NewNPZReader(f, st.Size(), opts)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	nz.closer = f
	return nz, nil
}

// Close closes the file opened by OpenNPZ (nothing for NewNPZReader).
func (z *NPZReader) Close() error {
	if z.closer == nil {
		return nil
	}
	return z.closer.Close()
}

// Member returns the member with the given key (or zip name), or nil.
func (z *NPZReader) Member(key string) *Member {
	if len(z.Members) == len(z.byName) && len(z.byName) > 0 {
		// Members as read (names are unique): the index.
		if m := z.byKey[key]; m != nil {
			return m
		}
		return z.byName[key]
	}
	// Members changed since the archive was read: look at each.
	for _, m := range z.Members {
		if m.Key == key {
			return m
		}
	}
	for _, m := range z.Members {
		if m.Name == key {
			return m
		}
	}
	return nil
}

// Keys lists the member keys in archive order.
func (z *NPZReader) Keys() []string {
	k := make([]string, len(z.Members))
	for i, m := range z.Members {
		k[i] = m.Key
	}
	return k
}

// ErrNotNPY reports an archive member that is not an .npy file (np.load
// returns such members as raw bytes).
var ErrNotNPY = errors.New("npyio: npz member is not an npy array")

// Open returns a Reader streaming the member's array. Stored members are
// read with ReadAt straight from the archive (the fast path, which also
// streams Fortran-order arrays); compressed ones are decompressed as a
// stream. A member that is not an npy file yields an error wrapping
// ErrNotNPY.
func (m *Member) Open() (*Reader, error) {
	rd, err := m.open()
	if err != nil {
		return nil, fmt.Errorf("member %q: %w", m.Name, err)
	}
	return rd, nil
}

func (m *Member) open() (*Reader, error) {
	if m.f.Method == zip.Store {
		off, err := m.f.DataOffset()
		if err != nil {
			switch {
			case errors.Is(err, zip.ErrFormat):
				return nil, fmt.Errorf("%w: the member's local header is damaged", zip.ErrFormat)
			case strings.Contains(err.Error(), "negative offset"):
				// archive/zip computed a position before the archive start.
				return nil, fmt.Errorf("%w: the member's local header lies outside the archive", zip.ErrFormat)
			}
			return nil, fmt.Errorf("npyio: reading the member's local header: %w", err)
		}
		size := int64(m.f.UncompressedSize64)
		if int64(m.f.CompressedSize64) != size {
			return nil, fmt.Errorf("npyio: stored member sizes disagree (%d vs %d)", m.f.CompressedSize64, size)
		}
		// A corrupt directory can place a member outside the archive
		// (Go's zip reader then yields a negative offset) or declare
		// more bytes than the archive holds.
		if off < 0 || size < 0 || off > m.z.size || size > m.z.size-off {
			return nil, fmt.Errorf("%w: member data (offset %d, %d bytes) lies outside the %d-byte archive", zip.ErrFormat, off, size, m.z.size)
		}
		cr := &crcReaderAt{r: io.NewSectionReader(m.z.ra, off, size), size: size}
		sr := io.NewSectionReader(cr, 0, size)
		if err := checkMagic(sr); err != nil {
			return nil, err
		}
		rd, err := NewReaderAt(sr, size, m.z.opts)
		if err != nil {
			return nil, err
		}
		want := m.f.CRC32
		rd.atEnd = func() error {
			if want == 0 {
				return nil // unknown CRC, as archive/zip treats it
			}
			if got, err := cr.sum(); err != nil {
				return fmt.Errorf("npyio: member %q: %w", m.Name, err)
			} else if got != want {
				return fmt.Errorf("npyio: member %q: %w (CRC-32 %08x, directory says %08x)", m.Name, zip.ErrChecksum, got, want)
			}
			return nil
		}
		return rd, nil
	}
	rc, err := m.f.Open()
	if err != nil {
		return nil, err
	}
	pr := &peekReader{r: rc}
	if err := checkMagic(pr); err != nil {
		rc.Close()
		return nil, err
	}
	rd, err := NewReader(pr, m.z.opts)
	if err != nil {
		rc.Close()
		return nil, err
	}
	// The zip reader verifies the CRC only when it reaches the end of the
	// member: read what follows the data (normally nothing) to get there.
	rd.atEnd = func() error {
		defer rc.Close()
		n, err := io.Copy(io.Discard, io.LimitReader(rc, 1<<20))
		if err != nil {
			return fmt.Errorf("npyio: member %q: %w", m.Name, err)
		}
		_ = n // trailing bytes after the data are ignored, as numpy does
		return nil
	}
	return rd, nil
}

// checkMagic tells a non-npy member apart from a corrupt npy one.
func checkMagic(r io.Reader) error {
	var b [6]byte
	var n int
	var err error
	switch rr := r.(type) {
	case *io.SectionReader:
		n, err = rr.ReadAt(b[:], 0)
	case *peekReader:
		n, err = io.ReadFull(rr.r, b[:])
		rr.head = append(rr.head[:0], b[:n]...)
	}
	// A read or decompression error is a corrupt member, not a non-npy
	// one; only a member shorter than the magic is "not npy".
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return err
	}
	if n < 6 || string(b[:]) != Magic {
		return ErrNotNPY
	}
	return nil
}

// crcReaderAt computes the CRC-32 of a stored member while it is read in
// order (the usual case: header, then rows); reads that skip ahead (the
// column-wise gathers of a Fortran-order array) make sum read the member
// once more from the start.
type crcReaderAt struct {
	r    io.ReaderAt
	size int64
	pos  int64 // bytes hashed so far, from 0
	crc  uint32
	gap  bool
}

func (c *crcReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	if !c.gap {
		if off > c.pos {
			c.gap = true
		} else if end := off + int64(n); end > c.pos {
			c.crc = crc32.Update(c.crc, crc32.IEEETable, p[c.pos-off:n])
			c.pos = end
		}
	}
	return n, err
}

// sum hashes whatever was not read in order and returns the member's CRC.
func (c *crcReaderAt) sum() (uint32, error) {
	if c.gap {
		c.crc, c.pos, c.gap = 0, 0, false
	}
	buf := make([]byte, min(c.size-c.pos, 1<<20))
	for c.pos < c.size {
		n, err := c.r.ReadAt(buf[:min(int64(len(buf)), c.size-c.pos)], c.pos)
		c.crc = crc32.Update(c.crc, crc32.IEEETable, buf[:n])
		c.pos += int64(n)
		if n == 0 {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
	}
	return c.crc, nil
}

type peekReader struct {
	head []byte
	r    io.Reader
}

func (p *peekReader) Read(b []byte) (int, error) {
	if len(p.head) > 0 {
		n := copy(b, p.head)
		p.head = p.head[n:]
		return n, nil
	}
	return p.r.Read(b)
}

// ReadHeader reads only the member's header.
func (m *Member) ReadHeader() (*Header, error) {
	rd, err := m.Open()
	if err != nil {
		return nil, err
	}
	return rd.Header(), nil
}

// ReadAll reads the member's raw (uncompressed) bytes, for members that are
// not npy files. It refuses members over limit bytes.
func (m *Member) ReadAll(limit int64) ([]byte, error) {
	if int64(m.f.UncompressedSize64) > limit {
		return nil, fmt.Errorf("%w: member %q is %d bytes, over the limit of %d", ErrTooLarge, m.Name, m.f.UncompressedSize64, limit)
	}
	rc, err := m.f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, limit))
}

// ReadArray reads the member's whole array.
func (m *Member) ReadArray() (*Array, error) {
	rd, err := m.Open()
	if err != nil {
		return nil, err
	}
	h := rd.Header()
	// Allocate once when the size is believable: a stored member was
	// checked against the archive, and Deflate expands at most 1032:1, so
	// a lying header cannot force a huge allocation. Otherwise memory grows
	// as data arrives.
	size := h.DataSize()
	var buf []byte
	if size <= growChunk || m.f.Method == zip.Store ||
		(size <= int64(m.f.UncompressedSize64) && size/1032 <= int64(m.f.CompressedSize64)) {
		buf = alignedBytes(size)
	}
	// Read the data in file layout: as rows would reorder Fortran data.
	data, err := rd.rawAll(buf)
	if err == nil {
		if err = rd.end(); err == io.EOF {
			err = nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("member %q: %w", m.Name, err)
	}
	return &Array{Header: h, DType: rd.native, Data: data}, nil
}

// rawAll reads the whole data in file layout (native order), for Arrays.
func (r *Reader) rawAll(buf []byte) ([]byte, error) {
	want := r.h.DataSize()
	var data []byte
	var err error
	if r.ra != nil {
		if int64(len(buf)) < want {
			buf = alignedBytes(want)
		}
		err = r.readAtFull(buf[:want], r.base)
		data = buf[:want]
	} else {
		data, err = r.readStream(buf, want)
	}
	if err != nil {
		return nil, err
	}
	r.fix.apply(data)
	r.next = r.rows
	return data, nil
}

// NPZWriter writes an .npz archive. Add members with Create (streaming) or
// WriteArray; Close writes the directory but does not close the
// underlying writer. Member timestamps are 1980-01-01 like numpy's, so
// archives are deterministic.
type NPZWriter struct {
	zw       *zip.Writer
	compress bool
	names    map[string]bool
	cur      *Writer
	err      error
}

// NewNPZWriter returns a writer of an archive whose members are Deflate
// compressed (like np.savez_compressed) or stored (like np.savez).
func NewNPZWriter(w io.Writer, compressed bool) *NPZWriter {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, DeflateLevel)
	})
	return &NPZWriter{zw: zw, compress: compressed, names: map[string]bool{}}
}

// DeflateLevel is the compression level of compressed npz members.
var DeflateLevel = 6

// Create starts a member named key+".npy" holding an array described by h
// (DType, Shape, FortranOrder) and returns a Writer for its data. Write all
// of it before the next Create or Close.
func (z *NPZWriter) Create(key string, h *Header) (*Writer, error) {
	if err := z.finishCurrent(); err != nil {
		return nil, err
	}
	if z.names[key] {
		return nil, fmt.Errorf("npyio: duplicate npz member %q", key)
	}
	z.names[key] = true
	fh := &zip.FileHeader{Name: key + ".npy", Method: zip.Store, Modified: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)}
	if z.compress {
		fh.Method = zip.Deflate
	}
	mw, err := z.zw.CreateHeader(fh)
	if err != nil {
		z.err = err
		return nil, err
	}
	w, err := NewWriter(mw, h)
	if err != nil {
		return nil, err
	}
	z.cur = w
	return w, nil
}

// WriteArray adds a whole array as member key.
func (z *NPZWriter) WriteArray(key string, a *Array) error {
	h := *a.Header
	w, err := z.Create(key, &h)
	if err != nil {
		return err
	}
	if _, err := w.Write(a.Data); err != nil {
		return err
	}
	return z.finishCurrent()
}

func (z *NPZWriter) finishCurrent() error {
	if z.err != nil {
		return z.err
	}
	if z.cur != nil {
		err := z.cur.Close()
		z.cur = nil
		if err != nil {
			z.err = err
			return err
		}
	}
	return nil
}

// Close finishes the last member and writes the archive directory.
func (z *NPZWriter) Close() error {
	if err := z.finishCurrent(); err != nil {
		return err
	}
	return z.zw.Close()
}

// NamedArray is an array with an npz key.
type NamedArray struct {
	Key   string
	Array *Array
}

// SaveNPZ writes an archive as np.savez(w, *positional, **named) does:
// named members first, in order, then positional ones as arr_0, arr_1,
// ...; a positional name clashing with a named one is an error.
func SaveNPZ(w io.Writer, compressed bool, positional []*Array, named ...NamedArray) error {
	all := append([]NamedArray(nil), named...)
	for i, a := range positional {
		key := "arr_" + strconv.Itoa(i)
		for _, n := range named {
			if n.Key == key {
				return fmt.Errorf("npyio: cannot use un-named variables and keyword %s", key)
			}
		}
		all = append(all, NamedArray{Key: key, Array: a})
	}
	z := NewNPZWriter(w, compressed)
	for _, n := range all {
		if err := z.WriteArray(n.Key, n.Array); err != nil {
			return err
		}
	}
	return z.Close()
}
