package arrowconv

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/endian"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// MappedIPC is an Arrow IPC file mapped into memory read-only. The records
// of its reader ([MappedIPC.NewReader]) view the file's own bytes: the
// buffers of an uncompressed file are not copied at all, which saves the
// read of every byte into a buffer of the process.
//
// A mapping stays safe as long as the file is not truncated while it is
// mapped. If it is, touching a byte past the new end of the file raises
// SIGBUS, which crashes a Go program unless the goroutine touching it runs
// with debug.SetPanicOnFault(true). So every goroutine that reads the
// values of the records (or calls Next) must run inside [MappedIPC.Guard],
// which turns such a fault into an error naming the file; [ConvertIPC]
// does so. Where memory mapping is not available (not Unix), [MapIPC]
// returns an error wrapping errors.ErrUnsupported.
type MappedIPC struct {
	f      *os.File // metadata is read from it; Changed stats it
	name   string
	data   []byte
	size   int64
	blocks *fileBlocks
	info   *IPCInfo

	mu      sync.Mutex
	closed  bool // Close was called
	faulted bool // a fault was seen: keep the mapping (see Close)
	swapped bool // the file's byte order is not this machine's
}

// ErrFileChanged is the error a fault on a mapped input turns into (see
// [MappedIPC.Guard]): the file was truncated or otherwise changed while it was
// being read.
var ErrFileChanged = errors.New("the input file changed (truncated?) while it was being read")

// MapIPC maps the Arrow IPC file f (at least its first size bytes;
// size < 0: f's size now) read-only into memory, after checking its
// footer and every block it lists against the size ([ReadIPCInfo]). f must
// stay open until Close: the messages' metadata is read from it (pread),
// the bodies are views of the mapping. An IPC stream (not
// the file format) is an error wrapping errors.ErrUnsupported, as is an
// empty mapping or a system without mmap: read those with [NewIPCReader].
func MapIPC(f *os.File, size int64) (*MappedIPC, error) {
	return mapIPC(f, size, nil)
}

// mapIPC is MapIPC, but maps nothing (and returns nil, nil) when want
// does not accept the file's metadata.
func mapIPC(f *os.File, size int64, want func(*IPCInfo) bool) (*MappedIPC, error) {
	if size < 0 {
		st, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("arrowconv: %w", err)
		}
		size = st.Size()
	}
	info, blocks, err := readIPCInfo(f, size)
	if err != nil {
		return nil, err
	}
	if info.Format != IPCFile {
		return nil, fmt.Errorf("arrowconv: %s is an IPC stream, not a file: %w", f.Name(), errors.ErrUnsupported)
	}
	swapped := !nativeEndian(blocks.schema)
	if want != nil && (swapped || !want(info)) {
		return nil, nil
	}
	if int64(int(size)) != size || size == 0 {
		return nil, fmt.Errorf("arrowconv: %s: a file of %d bytes cannot be mapped: %w", f.Name(), size, errors.ErrUnsupported)
	}
	data, err := mmapFile(f, int(size))
	if err != nil {
		return nil, err
	}
	return &MappedIPC{f: f, name: f.Name(), data: data, size: size, blocks: blocks, info: info, swapped: swapped}, nil
}

// nativeEndian reports whether the Schema message meta (checked by
// ReadIPCInfo) declares this machine's byte order. arrow-go's readers
// report every schema as native (they swap the data), so the message
// itself is read.
func nativeEndian(meta []byte) bool {
	msg, err := fbRoot(meta)
	if err != nil {
		return true
	}
	sch, ok, err := msg.table(2)
	if err != nil || !ok {
		return true
	}
	e, err := sch.int16(0) // Schema.endianness: 0 little, 1 big
	return err != nil || endian.Endianness(e) == endian.NativeEndian
}

// Info returns the file's schema, row count and batches (see [ReadIPCInfo]).
func (m *MappedIPC) Info() *IPCInfo { return m.info }

// NewReader reads the mapped file's records as [NewIPCReader] reads a
// file, with the same checks; buffers of an uncompressed file are views of
// the mapping, compressed ones are decompressed into mem
// (memory.DefaultAllocator if nil). The caller must Release the reader
// before Close, and call Next and read values inside [MappedIPC.Guard]
// only.
func (m *MappedIPC) NewReader(mem memory.Allocator) (array.RecordReader, error) {
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return nil, errors.New("arrowconv: MappedIPC.NewReader after Close")
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	rr, err := newIPCRecordReader(&mapSource{blockWalk: newBlockWalk(m.blocks, int64(len(m.data))), m: m}, limitAllocator{mem})
	if err != nil {
		return nil, err
	}
	return rr, nil
}

// Close unmaps the file. Readers and records of the file must not be used
// after Close. After a fault (see [MappedIPC.Guard]) the mapping is left
// in place (another goroutine may still hold a view of it; the address
// space is given back at exit), so that no stray read can land in memory
// mapped later.
func (m *MappedIPC) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	if m.faulted {
		return nil
	}
	data := m.data
	m.data = nil
	return munmapFile(data)
}

// Guard runs fn on the calling goroutine with faults on memory (SIGBUS,
// SIGSEGV at a non-nil address) turned into panics
// (debug.SetPanicOnFault), and such a panic into an error wrapping
// [ErrFileChanged] that names the file. Other panics pass through. Each
// goroutine that calls Next on a reader of m or reads the values of its
// records must do so inside Guard.
func (m *MappedIPC) Guard(fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		if p := recover(); p != nil {
			if !isFault(p) {
				panic(p)
			}
			m.mu.Lock()
			m.faulted = true
			m.mu.Unlock()
			err = faultError(m.name, p)
		}
	}()
	return fn()
}

// Changed returns an error wrapping [ErrFileChanged] if the file is now
// shorter than the mapping (it was truncated while mapped), else nil. An
// error reading a mapping may come from such a truncation even where no
// fault was seen (a fault that a recover turned into another error), so
// callers check this first.
func (m *MappedIPC) Changed() error {
	st, err := m.f.Stat()
	if err != nil {
		return nil // cannot tell
	}
	if st.Size() < m.size {
		return fmt.Errorf("arrowconv: %s: %w: %d bytes now, %d when it was opened", m.name, ErrFileChanged, st.Size(), m.size)
	}
	return nil
}

// isFault reports whether a recovered panic is a memory fault turned into
// a panic by debug.SetPanicOnFault (a runtime.Error with an address).
func isFault(p any) bool {
	if _, ok := p.(runtime.Error); !ok {
		return false
	}
	_, ok := p.(interface{ Addr() uintptr })
	return ok
}

func faultError(name string, p any) error {
	return fmt.Errorf("arrowconv: %s: %w (%v)", name, ErrFileChanged, p)
}

// mapSource yields the messages of a mapped IPC file by its footer, as
// blockSource reads them, with bodies sliced from the mapping instead of
// read. Metadata is read, not viewed: touching a page of a mapping costs
// a page fault (dear in a virtual machine), and a body whose values are
// copied by the kernel (ConvertIPC) is then never touched at all.
type mapSource struct {
	blockWalk
	m *MappedIPC
}

func (s *mapSource) next() (meta, body []byte, where string, err error) {
	meta, b, schema, where, err := s.step(s.m.f)
	if err != nil || schema {
		return meta, nil, where, err
	}
	start := b.off + b.meta
	body = s.m.data[start : start+b.body : start+b.body]
	if s.m.swapped {
		// arrow-go swaps the buffers of a file of the other byte order
		// in place: they cannot be views of a read-only mapping.
		body = append([]byte(nil), body...)
	}
	return meta, body, where, nil
}

// mappedErr is err, or the file's truncation if that is what happened.
func mappedErr(mi *MappedIPC, err error) error {
	if cerr := mi.Changed(); cerr != nil {
		return cerr
	}
	return err
}
