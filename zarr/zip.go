package zarr

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"sort"
	"strings"
	"sync"
)

// ZipStore is a Store in a .zip archive, laid out as zarr-python's
// ZipStore writes it: each key one entry named by the key, stored
// uncompressed (the chunks are compressed already). Opened with OpenZip
// it is read-only; made with NewZipWriter it is write-only, takes each
// key once, and Close writes the central directory.
//
// Reading trusts nothing the central directory says: an entry's data must
// lie inside the archive, a stored entry's sizes must agree, a deflated
// entry may claim at most maxDeflateRatio times its compressed size (so
// a zip bomb is refused before anything is allocated for it), and a
// whole-value read checks the entry's CRC-32. Entries compressed other
// than stored or deflated are refused when read. When a key is in the
// archive twice, the last entry counts, as Python's zipfile has it.
//
// A ZipStore is safe for concurrent use.
type ZipStore struct {
	r       *zip.Reader
	size    int64
	entries map[string]*zip.File
	w       *zip.Writer
	written map[string]bool
	mu      sync.Mutex // serializes writes, guards checked
	// checked holds the entries whose sizes and offsets were checked
	// (DataOffset reads the local header: once per entry, not per read).
	checked map[*zip.File]bool
}

var _ Store = (*ZipStore)(nil)

// maxDeflateRatio bounds a deflated entry's claimed size: deflate never
// expands a stream more than about 1032 times.
const maxDeflateRatio = 1032

// ErrNotZarrZip is returned by OpenZip for a zip archive that holds no
// Zarr metadata (zarr.json, .zgroup or .zarray) at any level.
var ErrNotZarrZip = errors.New("zarr: a zip archive without Zarr metadata (zarr.json, .zgroup or .zarray)")

// OpenZip opens the zip archive r of size bytes as a read-only store. It
// returns ErrNotZarrZip (wrapped) for an archive that has no Zarr
// metadata entry, such as an .npz.
func OpenZip(r io.ReaderAt, size int64) (*ZipStore, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("not a readable zip archive: %w", err)
	}
	z := &ZipStore{r: zr, size: size, entries: make(map[string]*zip.File, len(zr.File))}
	meta := false
	for _, f := range zr.File {
		key := strings.TrimPrefix(f.Name, "/")
		z.entries[key] = f
		base := key[strings.LastIndexByte(key, '/')+1:]
		meta = meta || base == "zarr.json" || base == ".zgroup" || base == ".zarray"
	}
	if !meta {
		return nil, ErrNotZarrZip
	}
	return z, nil
}

// NewZipWriter returns a write-only store writing a zip archive to w.
// Close finishes the archive but does not close w.
func NewZipWriter(w io.Writer) *ZipStore {
	return &ZipStore{w: zip.NewWriter(w), written: map[string]bool{}}
}

// entry returns key's entry, its sizes checked against the archive.
func (z *ZipStore) entry(key string) (*zip.File, error) {
	f := z.entries[key]
	if f == nil {
		return nil, &fs.PathError{Op: "open", Path: key, Err: fs.ErrNotExist}
	}
	z.mu.Lock()
	ok := z.checked[f]
	z.mu.Unlock()
	if ok {
		return f, nil
	}
	off, err := f.DataOffset()
	if err != nil {
		return nil, fmt.Errorf("zip entry %s: %v", key, err)
	}
	if f.CompressedSize64 > uint64(z.size) || off < 0 || uint64(off) > uint64(z.size)-f.CompressedSize64 {
		return nil, fmt.Errorf("zip entry %s: %d bytes at %d, past the archive's end (%d bytes)", key, f.CompressedSize64, off, z.size)
	}
	switch f.Method {
	case zip.Store:
		if f.UncompressedSize64 != f.CompressedSize64 {
			return nil, fmt.Errorf("zip entry %s: stored, but %d bytes uncompressed and %d compressed", key, f.UncompressedSize64, f.CompressedSize64)
		}
	case zip.Deflate:
		if f.UncompressedSize64/maxDeflateRatio > f.CompressedSize64 {
			return nil, fmt.Errorf("zip entry %s: %d deflated bytes cannot hold the %d it claims", key, f.CompressedSize64, f.UncompressedSize64)
		}
	default:
		return nil, fmt.Errorf("zip entry %s: compression method %d is not supported (stored or deflated)", key, f.Method)
	}
	z.mu.Lock()
	if z.checked == nil {
		z.checked = map[*zip.File]bool{}
	}
	z.checked[f] = true
	z.mu.Unlock()
	return f, nil
}

// Size implements Store.
func (z *ZipStore) Size(_ context.Context, key string) (int64, error) {
	if z.r == nil {
		return 0, errors.New("zip store is write-only")
	}
	f, err := z.entry(key)
	if err != nil {
		return 0, err
	}
	return int64(f.UncompressedSize64), nil
}

// ReadAt implements Store.
func (z *ZipStore) ReadAt(_ context.Context, key string, p []byte, off int64) error {
	if z.r == nil {
		return errors.New("zip store is write-only")
	}
	f, err := z.entry(key)
	if err != nil {
		return err
	}
	if off < 0 || uint64(off) > f.UncompressedSize64 || uint64(len(p)) > f.UncompressedSize64-uint64(off) {
		return fmt.Errorf("zip entry %s: read of %d bytes at %d past its end (%d bytes)", key, len(p), off, f.UncompressedSize64)
	}
	whole := off == 0 && uint64(len(p)) == f.UncompressedSize64
	if f.Method == zip.Store {
		raw, err := f.OpenRaw()
		if err != nil {
			return fmt.Errorf("zip entry %s: %v", key, err)
		}
		ra, ok := raw.(io.ReaderAt)
		if !ok {
			return fmt.Errorf("zip entry %s: not readable at an offset", key)
		}
		if n, err := ra.ReadAt(p, off); n != len(p) {
			return fmt.Errorf("zip entry %s: %d of %d bytes read: %v", key, n, len(p), err)
		}
		if whole && f.CRC32 != 0 && crc32.ChecksumIEEE(p) != f.CRC32 {
			return fmt.Errorf("zip entry %s: CRC-32 mismatch (the entry is damaged)", key)
		}
		return nil
	}
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("zip entry %s: %v", key, err)
	}
	defer rc.Close()
	if _, err := io.CopyN(io.Discard, rc, off); err != nil {
		return fmt.Errorf("zip entry %s: %v", key, noEOF(err))
	}
	if _, err := io.ReadFull(rc, p); err != nil {
		return fmt.Errorf("zip entry %s: %v", key, noEOF(err))
	}
	if whole {
		// Reading to the end makes archive/zip check the CRC-32.
		var one [1]byte
		if n, err := rc.Read(one[:]); n > 0 || err != io.EOF {
			if err == nil || err == io.EOF {
				err = errors.New("more data than its size")
			}
			return fmt.Errorf("zip entry %s: %v", key, err)
		}
	}
	return nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Put implements Store.
func (z *ZipStore) Put(_ context.Context, key string, value []byte) error {
	if z.w == nil {
		return errors.New("zip store is read-only")
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.written[key] {
		return fmt.Errorf("zip store: %s written twice", key)
	}
	z.written[key] = true
	w, err := z.w.CreateHeader(&zip.FileHeader{Name: key, Method: zip.Store})
	if err != nil {
		return err
	}
	_, err = w.Write(value)
	return err
}

// List implements Store.
func (z *ZipStore) List(_ context.Context, prefix string) ([]string, error) {
	var keys []string
	for k := range z.entries {
		if strings.HasPrefix(k, prefix) && !strings.HasSuffix(k, "/") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// Close finishes a written archive (its central directory); it does not
// close the writer given to NewZipWriter.
func (z *ZipStore) Close() error {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.w != nil {
		return z.w.Close()
	}
	return nil
}
