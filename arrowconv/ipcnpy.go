package arrowconv

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ConvertIPC writes the Arrow IPC file or stream r (.arrow, .feather,
// .arrows, or a stream on standard input) to w as one .npy array, mapped
// by [MapSchema] with opts, and returns the number of rows and the
// mapping. Compressed bodies (LZ4_FRAME, ZSTD) are decompressed, on
// opts.Threads goroutines (GOMAXPROCS by default; see
// [NewIPCReaderThreads]).
//
// When string widths or list lengths must come from the data
// ([Mapping.NeedsScan]), the input is read twice: a seekable r (an
// *os.File at offset 0) directly; any other r (a pipe, standard input) is
// copied to a temporary file in tmpDir (os.TempDir() if "") as it is
// scanned, which is removed before ConvertIPC returns.
//
// An IPC file (an *os.File at offset 0) of one column whose values are
// stored as the .npy data (a fixed-width number, timestamp or duration
// column without nulls, uncompressed, little-endian) is not read into the
// process: it is mapped ([MapIPC]), the .npy header is written, and each
// batch's value bytes are copied from the file to w by the kernel when w
// is an *os.File on Linux (copy_file_range, as cp copies), else written
// from the mapping. A file truncated meanwhile is an error wrapping
// [ErrFileChanged].
func ConvertIPC(w io.WriteSeeker, r io.Reader, opts *MapOptions, tmpDir string, mem memory.Allocator) (int64, *Mapping, error) {
	threads := 0
	if opts != nil {
		threads = opts.Threads
	}
	if f, ok := r.(*os.File); ok {
		if pos, err := f.Seek(0, io.SeekCurrent); err == nil && pos == 0 {
			// A one-column IPC file whose values are the .npy data is
			// copied by the kernel from a mapping's offsets (see
			// convertIdentity). Anything else (more columns; a stream, a
			// pipe; no mmap; a corrupt file, whose error the reader below
			// gives again) is read through pread: transposing straight
			// from a mapping was measured slower than from buffers read
			// into cache (benchmarks/RESULTS.md).
			if n, m, ok, err := CopyIPCAsStored(w, f, opts, mem); ok || err != nil {
				return n, m, err
			}
		}
	}
	if ras, ok := r.(ipc.ReadAtSeeker); ok {
		if pos, err := ras.Seek(0, io.SeekCurrent); err == nil && pos == 0 {
			rr, err := NewIPCReaderThreads(r, mem, threads)
			if err != nil {
				return 0, nil, err
			}
			m, err := MapSchema(rr.Schema(), opts)
			if err == nil && m.NeedsScan() {
				err = ScanRecords(m, rr)
				rr.Release()
				if err != nil {
					return 0, m, err
				}
				if _, err := ras.Seek(0, io.SeekStart); err != nil {
					return 0, m, fmt.Errorf("arrowconv: rereading IPC input: %w", err)
				}
				if rr, err = NewIPCReaderThreads(r, mem, threads); err != nil {
					return 0, m, err
				}
			}
			defer rr.Release()
			if err != nil {
				return 0, nil, err
			}
			n, err := WriteMappedNPY(w, rr, m)
			return n, m, err
		}
	}
	// A stream that cannot be reread: keep its bytes until it is known
	// whether a scan is needed.
	sp := &spool{dir: tmpDir}
	defer sp.close()
	rr, err := NewIPCReaderThreads(io.TeeReader(r, sp), mem, threads)
	if err != nil {
		return 0, nil, err
	}
	m, err := MapSchema(rr.Schema(), opts)
	if err != nil {
		rr.Release()
		return 0, nil, err
	}
	if !m.NeedsScan() {
		sp.discard()
		defer rr.Release()
		n, err := WriteMappedNPY(w, rr, m)
		return n, m, err
	}
	if err := sp.toFile(); err != nil {
		rr.Release()
		return 0, m, err
	}
	err = ScanRecords(m, rr)
	rr.Release()
	if err == nil {
		// The reader may have stopped at the end-of-stream marker: the
		// rest of the input belongs to the spool too.
		_, err = io.Copy(sp, r)
	}
	if err != nil {
		return 0, m, err
	}
	if err := sp.err; err != nil {
		return 0, m, err
	}
	if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
		return 0, m, fmt.Errorf("arrowconv: rereading the spooled IPC stream: %w", err)
	}
	rr2, err := NewIPCReaderThreads(sp.f, mem, threads)
	if err != nil {
		return 0, m, err
	}
	defer rr2.Release()
	n, err := WriteMappedNPY(w, rr2, m)
	return n, m, err
}

// CopyIPCAsStored is the fast path of [ConvertIPC] on its own: if the IPC
// file f is one column whose values are stored as the .npy data (a
// fixed-width number, timestamp or duration column without nulls,
// uncompressed, little-endian, mapped by opts to that dtype), it
// writes the .npy header to w and copies each record batch's value bytes
// from f (copy_file_range when w is an *os.File on Linux, else written
// from a read-only mapping of f), and returns the rows, the mapping and
// ok true. Otherwise (another file, a stream, no mmap, a corrupt file) it
// writes nothing and returns ok false, and the caller converts f another
// way, which also reports any problem with it; an error with ok false (f
// truncated while its metadata was read, [ErrFileChanged]) means nothing
// was written either. f is read by offset; its file offset is not used.
func CopyIPCAsStored(w io.Writer, f *os.File, opts *MapOptions, mem memory.Allocator) (rows int64, m *Mapping, ok bool, err error) {
	mi, err := mapIPC(f, -1, oneColumnFile)
	if err != nil || mi == nil {
		return 0, nil, false, nil
	}
	defer mi.Close()
	return convertIdentity(w, mi, opts, mem)
}

// spool keeps the bytes written to it: in memory until toFile, then in a
// temporary file; after discard, nowhere.
type spool struct {
	dir     string
	buf     bytes.Buffer
	f       *os.File
	dropped bool
	err     error
}

func (s *spool) Write(p []byte) (int, error) {
	switch {
	case s.dropped:
	case s.f != nil:
		if s.err == nil {
			_, s.err = s.f.Write(p)
		}
	default:
		s.buf.Write(p)
	}
	return len(p), nil
}

func (s *spool) discard() { s.dropped, s.buf = true, bytes.Buffer{} }

func (s *spool) toFile() error {
	f, err := os.CreateTemp(s.dir, "npyflow-ipc-*.arrows")
	if err != nil {
		return fmt.Errorf("arrowconv: spooling an IPC stream to scan it twice: %w", err)
	}
	s.f = f
	_, err = f.Write(s.buf.Bytes())
	s.buf = bytes.Buffer{}
	if err != nil {
		return fmt.Errorf("arrowconv: spooling an IPC stream: %w", err)
	}
	return nil
}

func (s *spool) close() {
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
	}
}
