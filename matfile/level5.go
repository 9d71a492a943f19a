package matfile

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/zlib"
	"github.com/npyflow/npyflow/internal/hugepage"
	"github.com/npyflow/npyflow/npyio"
)

// level5 is an open Level 5 file: the top-level elements, found by
// walking their tags at open time.
type level5 struct {
	f     *File
	bo    binary.ByteOrder
	elems []l5elem
}

// l5elem is one top-level data element.
type l5elem struct {
	off       int64 // offset of the tag
	typ       DataType
	n         int64 // byte count of the data
	subsystem bool  // the element the header's subsystem offset points to
}

// infoPrefix is how much of a variable is read (or inflated) to describe
// it without its data.
const infoPrefix = 64 << 10

func openLevel5(f *File, hdr []byte) (*level5, error) {
	l := &level5{f: f, bo: binary.LittleEndian}
	if string(hdr[126:128]) == "MI" {
		l.bo = binary.BigEndian
	}
	// The subsystem offset: 0 or all spaces when there is none.
	sub := hdr[116:124]
	var subOff int64 = -1
	if string(sub) != "        " {
		if v := l.bo.Uint64(sub); v != 0 {
			subOff = int64(v)
		}
	}
	var tag [8]byte
	for off := int64(HeaderSize); off < f.size; {
		if f.size-off < 8 {
			// Trailing padding shorter than a tag is tolerated only if zero.
			rest := make([]byte, f.size-off)
			if _, err := f.r.ReadAt(rest, off); err != nil {
				return nil, f.errf(off, "reading: %v", err)
			}
			for _, b := range rest {
				if b != 0 {
					return nil, f.errf(off, "truncated data element tag (%d bytes left)", len(rest))
				}
			}
			break
		}
		if _, err := f.r.ReadAt(tag[:], off); err != nil {
			return nil, f.errf(off, "reading a tag: %v", err)
		}
		typ := DataType(l.bo.Uint32(tag[:4]))
		n := int64(l.bo.Uint32(tag[4:]))
		if typ>>16 != 0 {
			return nil, f.errf(off, "a small data element (%s) at the top level", DataType(typ&0xffff))
		}
		if typ == 0 && n == 0 {
			// Zero padding at the end of some files.
			allZero := true
			rest := f.size - off
			if rest > 4096 {
				rest = 4096
			}
			buf := make([]byte, rest)
			if _, err := f.r.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
				return nil, f.errf(off, "reading: %v", err)
			}
			for _, b := range buf {
				if b != 0 {
					allZero = false
					break
				}
			}
			if allZero && off+rest == f.size {
				break
			}
		}
		if n > f.size-off-8 {
			return nil, f.errf(off, "truncated file: the %s element holds %d bytes, %d are left", typ, n, f.size-off-8)
		}
		l.elems = append(l.elems, l5elem{off: off, typ: typ, n: n, subsystem: off == subOff})
		next := off + 8 + n
		if typ != MiCOMPRESSED && next%8 != 0 {
			if p := next + 8 - next%8; p <= f.size {
				next = p
			}
		}
		off = next
	}
	return l, nil
}

// load returns the contents of a top-level miMATRIX element (after its
// tag), inflating a compressed one; limit bounds the bytes returned (for a
// prefix read), 0 meaning Options.MaxVariableBytes with an error above.
func (l *level5) load(e l5elem, prefix bool) ([]byte, error) {
	b, _, err := l.loadN(e, prefix)
	return b, err
}

// loadN is load also returning the full size of the contents (the inner
// tag's byte count for a compressed variable).
func (l *level5) loadN(e l5elem, prefix bool) ([]byte, int64, error) {
	f := l.f
	max := f.opts.MaxVariableBytes
	switch e.typ {
	case MiMATRIX:
		n := e.n
		if prefix && n > infoPrefix {
			n = infoPrefix
		} else if n > max {
			return nil, 0, &LimitError{Path: l.nameAt(e), What: "variable size", Size: n, Limit: max, Hint: "MaxVariableBytes"}
		}
		buf := make([]byte, n)
		hugepage.Advise(buf) // fewer page faults filling it
		if _, err := f.r.ReadAt(buf, e.off+8); err != nil {
			return nil, 0, f.errf(e.off, "reading: %v", err)
		}
		return buf, e.n, nil
	case MiCOMPRESSED:
		total := int64(0)
		src := io.Reader(io.NewSectionReader(f.r, e.off+8, e.n))
		if !prefix && e.n > 64<<10 {
			// Fewer, larger reads of the file (the inflater reads bytes
			// through a bufio.Reader).
			src = bufio.NewReaderSize(src, 1<<20)
		}
		zr, err := newZlib(src)
		if err != nil {
			return nil, 0, f.errf(e.off, "compressed variable: %v", err)
		}
		defer freeZlib(zr)
		var tag [8]byte
		if _, err := io.ReadFull(zr, tag[:]); err != nil {
			return nil, 0, f.errf(e.off, "compressed variable: inflating its tag: %v", zerr(err))
		}
		typ := DataType(l.bo.Uint32(tag[:4]))
		n := int64(l.bo.Uint32(tag[4:]))
		total = n
		if typ != MiMATRIX {
			return nil, 0, f.errf(e.off, "compressed element holds %s, not miMATRIX", typ)
		}
		if prefix && n > infoPrefix {
			n = infoPrefix
		} else if n > max {
			return nil, 0, &LimitError{Path: "(compressed at byte " + strconv.FormatInt(e.off, 10) + ")", What: "inflated variable size", Size: n, Limit: max, Hint: "MaxVariableBytes"}
		}
		// Deflate expands at most 1032:1, so a declared size beyond that
		// of the compressed bytes cannot be real: allocate no more up front.
		guess := n
		if b := e.n*1032 + 64<<10; guess > b {
			guess = b
		}
		buf, err := readGrow(zr, n, guess)
		if err != nil {
			return nil, 0, f.errf(e.off, "compressed variable: inflating %d bytes: %v", n, zerr(err))
		}
		if !prefix {
			// Reading on to the end of the stream verifies its checksum.
			var one [1]byte
			if _, err := zr.Read(one[:]); errors.Is(err, zlib.ErrChecksum) {
				return nil, 0, f.errf(e.off, "compressed variable: %v", err)
			}
		}
		return buf, total, nil
	}
	return nil, 0, f.errf(e.off, "element of type %s is not a variable", e.typ)
}

// zlibs are inflaters to reuse: each holds a 32 KiB window, which a file
// of thousands of small compressed variables would otherwise allocate
// and clear twice per variable (its name, then the whole of it).
var zlibs sync.Pool

// newZlib returns an inflater of src, from zlibs if one is free; give it
// back with freeZlib.
func newZlib(src io.Reader) (io.ReadCloser, error) {
	if z, ok := zlibs.Get().(io.ReadCloser); ok {
		if err := z.(zlib.Resetter).Reset(src, nil); err != nil {
			zlibs.Put(z)
			return nil, err
		}
		return z, nil
	}
	return zlib.NewReader(src)
}

// freeZlib closes z and keeps it for newZlib.
func freeZlib(z io.ReadCloser) {
	z.Close()
	zlibs.Put(z)
}

func zerr(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readGrow reads exactly n bytes into a buffer of initial capacity
// guess, growing it as data arrives so that a size that lies cannot force
// a large allocation.
func readGrow(r io.Reader, n, guess int64) ([]byte, error) {
	const step = 1 << 20
	if n <= step || guess >= n {
		buf := make([]byte, n)
		hugepage.Advise(buf) // fewer page faults filling it
		_, err := io.ReadFull(r, buf)
		return buf, err
	}
	buf := make([]byte, 0, max(step, guess))
	for int64(len(buf)) < n {
		if len(buf) == cap(buf) {
			c := int64(cap(buf)) * 2
			if c > n {
				c = n
			}
			nb := make([]byte, len(buf), c)
			copy(nb, buf)
			buf = nb
		}
		k, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		if err != nil {
			if err == io.EOF && int64(len(buf)) == n {
				break
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return buf, err
		}
	}
	return buf, nil
}

func (l *level5) nameAt(e l5elem) string {
	b, err := l.load(e, true)
	if err == nil {
		p := l.parser(e, "")
		if h, err := p.header(b); err == nil && h.name != "" {
			return h.name
		}
	}
	return "(at byte " + strconv.FormatInt(e.off, 10) + ")"
}

func (l *level5) parser(e l5elem, name string) *l5parser {
	return &l5parser{f: l.f, bo: l.bo, off: e.off, elemsLeft: l.f.opts.MaxElements}
}

func (l *level5) variables() ([]VarInfo, error) {
	var out []VarInfo
	for _, e := range l.elems {
		if e.subsystem || (e.typ != MiMATRIX && e.typ != MiCOMPRESSED) {
			continue
		}
		vi, err := l.describe(e)
		if err != nil {
			vi, err = l.f.failedVar(vi, e.off, err)
			if err != nil {
				return nil, err
			}
		}
		out = append(out, vi)
	}
	return out, nil
}

// describe returns the VarInfo of the top-level element e (its name as
// far as it is known when it fails).
func (l *level5) describe(e l5elem) (VarInfo, error) {
	b, err := l.load(e, true)
	if err != nil {
		return VarInfo{}, err
	}
	p := l.parser(e, "")
	h, err := p.header(b)
	if err != nil {
		return VarInfo{}, err
	}
	vi := VarInfo{Name: h.name, Class: h.className(), Dims: h.dims, Complex: h.complex, Global: h.global,
		Sparse: h.class == ClassSparse, Bytes: -1, StoredBytes: e.n + 8}
	if e.typ == MiCOMPRESSED {
		vi.Compression = "zlib"
	}
	if es := classElemSize(h.class, h.logical); es > 0 {
		if h.class == ClassSparse {
			vi.Bytes = int64(h.nzmax) * int64(es)
		} else if n, ok := numel(h.dims); ok {
			vi.Bytes = n * int64(es)
		}
		if h.complex && vi.Bytes > 0 {
			vi.Bytes *= 2
		}
	}
	if h.class == ClassOpaque {
		// An object: its class and size are in the subsystem.
		if b, err = l.load(e, false); err != nil {
			return vi, err
		}
		n, err := p.opaque(b, h, h.name, 0)
		if err != nil {
			return vi, err
		}
		if n.skip == "" {
			l.f.describeObject(&vi, n)
		}
		if vi.Err != nil && l.f.opts.Strict {
			return vi, vi.Err
		}
	}
	return vi, nil
}

func (l *level5) walk(sel func(string) bool, fn func(string, *Var) error) error {
	for _, e := range l.elems {
		if e.typ != MiMATRIX && e.typ != MiCOMPRESSED {
			if err := l.f.warn("(at byte "+strconv.FormatInt(e.off, 10)+")", e.typ.String(), "a top-level element that is not a variable"); err != nil {
				return err
			}
			continue
		}
		if e.subsystem {
			continue // the objects' contents, read through the variables
		}
		vars, name, class, err := l.readVariable(e, sel)
		if err != nil {
			// Each variable is read on its own: a damaged one costs only
			// itself (an error in Strict mode).
			if name == "" {
				name = "(at byte " + strconv.FormatInt(e.off, 10) + ")"
			}
			if err := l.f.warnErr(name, class, err); err != nil {
				return err
			}
			continue
		}
		for _, v := range vars {
			if err := fn(v.Path, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// readVariable reads the top-level element e into its arrays (none when
// sel leaves it out), with its name and class as far as they are known
// when it fails.
func (l *level5) readVariable(e l5elem, sel func(string) bool) (vars []*Var, name, class string, err error) {
	collect := func(_ string, v *Var) error {
		vars = append(vars, v)
		return nil
	}
	var b []byte
	if e.typ == MiCOMPRESSED || e.n > infoPrefix {
		// Look at the name before inflating or reading everything.
		pb, total, err := l.loadN(e, true)
		if err != nil {
			return nil, "", "", err
		}
		h, err := l.parser(e, "").header(pb)
		if err != nil {
			return nil, "", "", err
		}
		if !sel(h.name) {
			return nil, "", "", nil
		}
		name, class = h.name, h.className()
		if int64(len(pb)) == e.n && e.typ == MiMATRIX {
			b = pb
		} else if e.typ == MiMATRIX || total > streamMin {
			if v := l.direct(e, pb, h, total); v != nil {
				return []*Var{v}, name, class, nil
			}
		}
	}
	if b == nil {
		if b, err = l.load(e, false); err != nil {
			return nil, name, class, err
		}
	}
	p := l.parser(e, "")
	p.emit = collect
	if l.f.od != nil {
		l.f.od.begin()
	}
	if name == "" {
		if h, err := p.header(b); err == nil {
			name, class = h.name, h.className()
		}
	}
	if err := p.matrix(b, "", 0, true, sel); err != nil {
		return nil, name, class, err
	}
	return vars, name, class, nil
}

// l5parser parses one variable's miMATRIX contents held in memory.
type l5parser struct {
	f         *File
	bo        binary.ByteOrder
	off       int64 // the top-level element, for errors
	elemsLeft int
	emit      func(string, *Var) error
}

func (p *l5parser) errf(path, format string, args ...any) error {
	return &FormatError{File: p.f.name, Path: path, Off: p.off, Msg: fmt.Sprintf(format, args...)}
}

// sub is one subelement: its type and data.
type sub struct {
	typ  DataType
	data []byte
}

// next reads the subelement at b[pos:], returning it and the position of
// the one after it.
func (p *l5parser) next(path string, b []byte, pos int, what string) (sub, int, error) {
	if len(b)-pos < 8 {
		if len(b)-pos >= 4 {
			w := p.bo.Uint32(b[pos:])
			if n := int(w >> 16); n != 0 && n <= len(b)-pos-4 && n <= 4 {
				return sub{DataType(w & 0xffff), b[pos+4 : pos+4+n]}, len(b), nil
			}
		}
		return sub{}, 0, p.errf(path, "truncated: the %s is missing", what)
	}
	w := p.bo.Uint32(b[pos:])
	if n := int(w >> 16); n != 0 {
		if n > 4 {
			return sub{}, 0, p.errf(path, "%s: a small data element of %d bytes (at most 4)", what, n)
		}
		return sub{DataType(w & 0xffff), b[pos+4 : pos+4+n]}, pos + 8, nil
	}
	n := int64(p.bo.Uint32(b[pos+4:]))
	if n > int64(len(b)-pos-8) {
		return sub{}, 0, p.errf(path, "%s: %s of %d bytes overruns its variable (%d bytes left)", what, DataType(w), n, len(b)-pos-8)
	}
	end := pos + 8 + int(n)
	next := end
	if next%8 != 0 {
		next += 8 - next%8
		if next > len(b) {
			next = len(b)
		}
	}
	return sub{DataType(w), b[pos+8 : end]}, next, nil
}

// mheader is the part of an miMATRIX before its data.
type mheader struct {
	class     Class
	complex   bool
	global    bool
	logical   bool
	nzmax     uint32
	dims      []int
	name      string
	objClass  string // object and opaque classes
	system    string // an opaque object's type system ("MCOS", "java" ...)
	pos       int    // where the data subelements start
	dimsFound bool
}

func (h *mheader) className() string {
	switch {
	case h.class == ClassObject || h.class == ClassOpaque:
		if h.objClass != "" {
			return h.objClass
		}
		return h.class.String()
	case h.class == ClassSparse && h.logical:
		return "sparse logical"
	case h.class == ClassSparse:
		return "sparse double"
	case h.logical:
		return NameLogical
	}
	return h.class.String()
}

func (p *l5parser) header(b []byte) (*mheader, error) {
	h := &mheader{}
	flags, pos, err := p.next("", b, 0, "array flags")
	if err != nil {
		return nil, err
	}
	if flags.typ != MiUINT32 || len(flags.data) != 8 {
		return nil, p.errf("", "array flags are %s of %d bytes, not miUINT32 of 8", flags.typ, len(flags.data))
	}
	w := p.bo.Uint32(flags.data)
	h.nzmax = p.bo.Uint32(flags.data[4:])
	h.class = Class(w & flagClass)
	h.complex = w&FlagComplex != 0
	h.global = w&FlagGlobal != 0
	h.logical = w&FlagLogical != 0
	if h.class == ClassOpaque {
		// Opaque: name, type system ("MCOS"), class name, then data.
		var names []string
		for i := 0; i < 3; i++ {
			s, np, err := p.next("", b, pos, "opaque object's names")
			if err != nil {
				return nil, err
			}
			if s.typ != MiINT8 && s.typ != MiUINT8 && s.typ != MiUTF8 {
				break
			}
			names = append(names, string(s.data))
			pos = np
		}
		if len(names) > 0 {
			h.name = names[0]
		}
		if len(names) == 3 {
			h.system, h.objClass = names[1], names[2]
		}
		h.dims = []int{1, 1}
		h.pos = pos
		return h, nil
	}
	dims, pos, err := p.next("", b, pos, "dimensions")
	if err != nil {
		return nil, err
	}
	if dims.typ != MiINT32 || len(dims.data)%4 != 0 || len(dims.data) == 0 {
		return nil, p.errf("", "dimensions are %s of %d bytes, not miINT32", dims.typ, len(dims.data))
	}
	for i := 0; i < len(dims.data); i += 4 {
		d := int32(p.bo.Uint32(dims.data[i:]))
		if d < 0 {
			return nil, p.errf("", "negative dimension %d", d)
		}
		h.dims = append(h.dims, int(d))
	}
	for len(h.dims) < 2 {
		h.dims = append(h.dims, 1)
	}
	name, pos, err := p.next("", b, pos, "name")
	if err != nil {
		return nil, err
	}
	if name.typ != MiINT8 && name.typ != MiUINT8 && name.typ != MiUTF8 {
		return nil, p.errf("", "the name is %s, not miINT8", name.typ)
	}
	h.name = string(name.data)
	if h.class == ClassObject {
		cn, np, err := p.next(h.name, b, pos, "object class name")
		if err != nil {
			return nil, err
		}
		h.objClass = string(cn.data)
		pos = np
	}
	h.pos = pos
	return h, nil
}

func numel(dims []int) (int64, bool) {
	n := int64(1)
	for _, d := range dims {
		if d == 0 {
			return 0, true
		}
		if n > (1<<62)/int64(d) {
			return 0, false
		}
		n *= int64(d)
	}
	return n, true
}

func child(path, name string) string { return path + name }

// matrix parses the contents b of an miMATRIX element at path and emits
// its arrays. top is set for a top-level variable (whose name is its
// path; sel filters it).
func (p *l5parser) matrix(b []byte, path string, depth int, top bool, sel func(string) bool) error {
	if depth > p.f.opts.MaxDepth {
		return &LimitError{Path: path, What: "nesting depth", Size: int64(depth), Limit: int64(p.f.opts.MaxDepth), Hint: "MaxDepth"}
	}
	if len(b) == 0 {
		// An empty miMATRIX: MATLAB's [] (0x0 double).
		return p.emitArray(path, NameDouble, npyio.Float64Type, []int{0, 0}, nil, false)
	}
	h, err := p.header(b)
	if err != nil {
		if fe, ok := err.(*FormatError); ok && fe.Path == "" {
			fe.Path = path
		}
		return err
	}
	if top {
		path = h.name
		if path == "" {
			return p.errf("", "a top-level variable without a name")
		}
		if sel != nil && !sel(path) {
			return nil
		}
	}
	n, ok := numel(h.dims)
	if !ok {
		return p.errf(path, "dimensions %v overflow", h.dims)
	}
	pos := h.pos
	switch {
	case h.class.IsNumeric():
		return p.numeric(b, pos, path, h, n)
	case h.class == ClassChar:
		return p.char(b, pos, path, h, n)
	case h.class == ClassSparse:
		return p.sparse(b, pos, path, h)
	case h.class == ClassCell:
		if n == 0 {
			return p.marker(path, NameCell, h.dims, 0)
		}
		if err := p.count(path, n, len(b)-pos); err != nil {
			return err
		}
		for k := int64(0); k < n; k++ {
			s, np, err := p.next(path, b, pos, "cell element "+strconv.FormatInt(k+1, 10))
			if err != nil {
				return err
			}
			if s.typ != MiMATRIX {
				return p.errf(path, "cell element %d is %s, not miMATRIX", k+1, s.typ)
			}
			if err := p.matrix(s.data, path+"{"+strconv.FormatInt(k+1, 10)+"}", depth+1, false, nil); err != nil {
				return err
			}
			pos = np
		}
		return nil
	case h.class == ClassStruct:
		return p.structure(b, pos, path, h, n, depth)
	case h.class == ClassObject:
		return p.f.warn(path, h.className(), "a MATLAB object has no numpy form")
	case h.class == ClassFunction:
		return p.f.warn(path, NameFunction, "a function handle has no numpy form")
	case h.class == ClassOpaque:
		n, err := p.opaque(b, h, path, depth)
		if err != nil {
			return err
		}
		return p.f.objects().emit(n, path, depth, p.emit)
	}
	return p.f.warn(path, h.class.String(), "unknown MATLAB class code "+strconv.Itoa(int(h.class)))
}

// count checks n more container elements against the remaining bytes
// (each takes at least 8) and Options.MaxElements.
func (p *l5parser) count(path string, n int64, left int) error {
	if n > int64(left)/8 {
		return p.errf(path, "%d elements cannot fit in the %d bytes left", n, left)
	}
	if n > int64(p.elemsLeft) {
		return &LimitError{Path: path, What: "number of cell and struct elements", Size: int64(p.f.opts.MaxElements-p.elemsLeft) + n, Limit: int64(p.f.opts.MaxElements), Hint: "MaxElements"}
	}
	p.elemsLeft -= int(n)
	return nil
}

func (p *l5parser) structure(b []byte, pos int, path string, h *mheader, n int64, depth int) error {
	fields, pos, err := p.fieldNames(b, pos, path)
	if err != nil {
		return err
	}
	if n == 0 || len(fields) == 0 {
		return p.marker(path, NameStruct, h.dims, n)
	}
	total := n * int64(len(fields))
	if err := p.count(path, total, len(b)-pos); err != nil {
		return err
	}
	for k := int64(0); k < n; k++ {
		prefix := path
		if n != 1 {
			prefix = path + "(" + strconv.FormatInt(k+1, 10) + ")"
		}
		for _, fn := range fields {
			s, np, err := p.next(path, b, pos, "field "+fn)
			if err != nil {
				return err
			}
			if s.typ != MiMATRIX {
				return p.errf(path, "field %s is %s, not miMATRIX", fn, s.typ)
			}
			if err := p.matrix(s.data, prefix+"."+fn, depth+1, false, nil); err != nil {
				return err
			}
			pos = np
		}
	}
	return nil
}

// fieldNames reads a struct's field name length and names at b[pos:],
// returning the names and the position of the first field value.
func (p *l5parser) fieldNames(b []byte, pos int, path string) ([]string, int, error) {
	fl, pos, err := p.next(path, b, pos, "field name length")
	if err != nil {
		return nil, 0, err
	}
	if fl.typ != MiINT32 || len(fl.data) != 4 {
		return nil, 0, p.errf(path, "field name length is %s of %d bytes, not one miINT32", fl.typ, len(fl.data))
	}
	flen := int(int32(p.bo.Uint32(fl.data)))
	names, pos, err := p.next(path, b, pos, "field names")
	if err != nil {
		return nil, 0, err
	}
	if names.typ != MiINT8 && names.typ != MiUINT8 {
		return nil, 0, p.errf(path, "field names are %s, not miINT8", names.typ)
	}
	var fields []string
	if len(names.data) > 0 {
		if flen <= 0 || len(names.data)%flen != 0 {
			return nil, 0, p.errf(path, "%d bytes of field names are not a multiple of the name length %d", len(names.data), flen)
		}
		for i := 0; i < len(names.data); i += flen {
			nm := names.data[i : i+flen]
			for j, c := range nm {
				if c == 0 {
					nm = nm[:j]
					break
				}
			}
			fields = append(fields, string(nm))
		}
	}
	return fields, pos, nil
}

// marker emits the stand-in of an empty cell or struct: an empty float64
// array of its shape (with a trailing 0 when it has elements, i.e. a
// struct without fields).
func (p *l5parser) marker(path, class string, dims []int, n int64) error {
	shape := append([]int(nil), dims...)
	if n > 0 {
		shape = append(shape, 0)
	}
	v := &Var{Path: path, Class: class, Marker: true,
		Header: &npyio.Header{DType: npyio.Float64Type, FortranOrder: true, Shape: shape}}
	return p.emit(path, v)
}

func (p *l5parser) emitArray(path, class string, dt *npyio.DType, shape []int, data []byte, sparse bool) error {
	v := &Var{Path: path, Class: class, Sparse: sparse, data: data,
		Header: &npyio.Header{DType: dt, FortranOrder: true, Shape: shape}}
	return p.emit(path, v)
}

// classDType is the numpy dtype of a numeric class (bool for logical).
func classDType(c Class, logical bool) *npyio.DType {
	if logical {
		return npyio.BoolType
	}
	switch c {
	case ClassDouble, ClassSparse:
		return npyio.Float64Type
	case ClassSingle:
		return npyio.Float32Type
	case ClassInt8:
		return npyio.Int8Type
	case ClassUint8:
		return npyio.Uint8Type
	case ClassInt16:
		return npyio.Int16Type
	case ClassUint16:
		return npyio.Uint16Type
	case ClassInt32:
		return npyio.Int32Type
	case ClassUint32:
		return npyio.Uint32Type
	case ClassInt64:
		return npyio.Int64Type
	case ClassUint64:
		return npyio.Uint64Type
	}
	return nil
}

func classElemSize(c Class, logical bool) int {
	if c == ClassChar {
		return 2
	}
	if dt := classDType(c, logical); dt != nil {
		return dt.Size
	}
	return 0
}

func complexDType(c Class) *npyio.DType {
	switch c {
	case ClassDouble, ClassSparse:
		return npyio.Complex128
	case ClassSingle:
		return npyio.Complex64
	}
	return nil
}

func (p *l5parser) numeric(b []byte, pos int, path string, h *mheader, n int64) error {
	class := h.class.String()
	dt := classDType(h.class, h.logical)
	if h.logical {
		class = NameLogical
	}
	re, pos, err := p.next(path, b, pos, "real part")
	if err != nil {
		return err
	}
	if h.complex {
		cdt := complexDType(h.class)
		if cdt == nil || h.logical {
			return p.f.warn(path, "complex "+class, "numpy has no complex integer type")
		}
		im, _, err := p.next(path, b, pos, "imaginary part")
		if err != nil {
			return err
		}
		if n > int64(len(re.data)) || n > int64(len(im.data)) {
			return p.errf(path, "%d elements in %d bytes of data", n, len(re.data))
		}
		out := allocFor(n, cdt.Size)
		if err := decodeInto(out, dt, 2, 0, re.typ, re.data, p.bo, n); err != nil {
			return p.errf(path, "real part: %v", err)
		}
		if err := decodeInto(out, dt, 2, 1, im.typ, im.data, p.bo, n); err != nil {
			return p.errf(path, "imaginary part: %v", err)
		}
		return p.emitArray(path, class, cdt, h.dims, out, false)
	}
	if h.logical && len(h.dims) == 2 && checkCount(re.typ, re.data, n) != nil {
		// Octave (7 at least) writes a logical sparse matrix as a uint8
		// logical array holding the sparse ir, jc and pr subelements.
		hs := *h
		hs.class = ClassSparse
		if err := p.sparse(b, h.pos, path, &hs); err == nil {
			return nil
		}
	}
	if n > int64(len(re.data)) {
		return p.errf(path, "%d elements in %d bytes of data", n, len(re.data))
	}
	if !h.logical && re.typ == naturalType(dt) && (p.bo == binary.LittleEndian) == nativeLE &&
		int64(len(re.data)) == n*int64(dt.Size) && aligned(re.data, dt.Size) {
		// Stored as the class in native order: use the bytes in place.
		return p.emitArray(path, class, dt, h.dims, re.data, false)
	}
	out := allocFor(n, dt.Size)
	if err := decodeInto(out, dt, 1, 0, re.typ, re.data, p.bo, n); err != nil {
		return p.errf(path, "%v", err)
	}
	return p.emitArray(path, class, dt, h.dims, out, false)
}

// streamMin is the inflated size from which a compressed numeric
// variable streams instead of being inflated into memory.
var streamMin int64 = 1 << 20

// direct returns a Var that streams a large numeric (or logical) real
// variable from the file: straight from the bytes of an uncompressed one,
// through zlib for a compressed one, converting the storage type to the
// class in bounded batches. It returns nil when the variable is not of
// that form (it is then read into memory).
func (l *level5) direct(e l5elem, pb []byte, h *mheader, total int64) *Var {
	if !h.class.IsNumeric() || h.complex || h.pos+8 > len(pb) || h.name == "" || total > l.f.opts.MaxVariableBytes {
		return nil // the in-memory path handles it (or refuses it)
	}
	dt := classDType(h.class, h.logical)
	class := h.class.String()
	if h.logical {
		class = NameLogical
	}
	w := l.bo.Uint32(pb[h.pos:])
	typ := DataType(w)
	nb := int64(l.bo.Uint32(pb[h.pos+4:]))
	n, ok := numel(h.dims)
	es := int64(typ.ElemSize())
	if !ok || w>>16 != 0 || es == 0 || typ >= MiUTF8 || n > nb || nb != n*es || int64(h.pos)+8+nb > total {
		return nil
	}
	if h.logical && len(h.dims) == 2 && typ != MiUINT8 {
		return nil // maybe Octave's logical sparse: the in-memory path knows it
	}
	f := l.f
	skip := int64(h.pos) + 8
	v := &Var{Path: h.name, Class: class, Header: &npyio.Header{DType: dt, FortranOrder: true, Shape: h.dims}}
	v.open = func() (io.ReadCloser, error) {
		cr := &convReader{f: f, off: e.off, path: h.name, typ: typ, bo: l.bo, dt: dt, left: n}
		if e.typ == MiMATRIX {
			cr.src = io.NewSectionReader(f.r, e.off+8+skip, nb)
			return cr, nil
		}
		zr, err := zlib.NewReader(bufio.NewReaderSize(io.NewSectionReader(f.r, e.off+8, e.n), 1<<20))
		if err != nil {
			return nil, f.errf(e.off, "compressed variable: %v", err)
		}
		if _, err := io.CopyN(io.Discard, zr, 8+skip); err != nil {
			return nil, f.errf(e.off, "compressed variable: %v", zerr(err))
		}
		// Inflate in a goroutine, a few buffers ahead of the consumer.
		pr := newPipeReader(zr)
		cr.src, cr.closer = pr, pr
		cr.finish = func() error {
			// Read on to the end of the stream: it verifies the checksum.
			if _, err := io.Copy(io.Discard, io.LimitReader(pr, total)); errors.Is(err, zlib.ErrChecksum) {
				return err
			}
			return nil
		}
		return cr, nil
	}
	if e.typ == MiCOMPRESSED {
		// Compressed: one zlib stream in column-major order, so the first
		// row needs the last column. Up to spoolMin bytes, a matrix is
		// inflated (in its own goroutine) a block of columns at a time,
		// each block scattered into the C-order result while the next is
		// inflated, and the result is held. A larger variable (or one of
		// more dimensions) is inflated to a temporary file, read back in
		// bands of rows as an uncompressed one is: memory stays bounded.
		v.slab = func() (io.ReadCloser, error) {
			if len(h.dims) == 2 && v.Header.DataSize() <= spoolMin {
				rc, err := v.open()
				if err != nil {
					return nil, err
				}
				defer rc.Close()
				data, err := readRowMajor2D(rc, h.dims[0], h.dims[1], dt.Size)
				if err != nil {
					return nil, readErr(h.name, err)
				}
				return io.NopCloser(bytes.NewReader(data)), nil
			}
			return spoolRowMajor(v, h.dims, dt)
		}
	}
	if e.typ == MiMATRIX {
		// Uncompressed: a band of rows is one run per column, read where
		// it lies and converted to the class (OpenRowMajor).
		base := e.off + 8 + skip
		asIs := !h.logical && naturalType(dt) == typ && (l.bo == binary.LittleEndian) == nativeLE
		v.slab = func() (io.ReadCloser, error) {
			var raw []byte
			return newBandStream(h.dims, dt.Size, func(r0, r1 int, box []byte) error {
				rows := int64(h.dims[0])
				k := int64(r1 - r0)
				run := int(k) * dt.Size
				if cap(raw) < int(k*es) && !asIs {
					raw = make([]byte, k*es)
				}
				src := raw[:min(int64(cap(raw)), k*es)]
				for c := 0; c*run < len(box); c++ {
					off := base + (int64(c)*rows+int64(r0))*es
					if asIs {
						// Stored as the class, in native order: read in place.
						if _, err := f.r.ReadAt(box[c*run:(c+1)*run], off); err != nil {
							return &FormatError{File: f.name, Path: h.name, Off: off, Msg: "reading the data: " + zerr(err).Error()}
						}
						continue
					}
					if _, err := f.r.ReadAt(src, off); err != nil {
						return &FormatError{File: f.name, Path: h.name, Off: off, Msg: "reading the data: " + zerr(err).Error()}
					}
					if err := decodeInto(box[c*run:(c+1)*run], dt, 1, 0, typ, src, l.bo, k); err != nil {
						return f.errfPath(h.name, "%v", err)
					}
				}
				return nil
			}), nil
		}
	}
	return v
}

// convReader converts a stream of left elements of storage type typ to
// dt, a batch at a time.
type convReader struct {
	f       *File
	off     int64
	path    string
	src     io.Reader
	typ     DataType
	bo      binary.ByteOrder
	dt      *npyio.DType
	left    int64
	done    int64
	in, out []byte
	pending []byte
	finish  func() error
	closer  io.Closer // src's, if it needs closing
}

const convBatch = 1 << 17 // elements per batch

func (c *convReader) Read(p []byte) (int, error) {
	if es := int64(c.typ.ElemSize()); len(c.pending) == 0 && c.left > 0 && c.dt.Kind != npyio.Bool &&
		naturalType(c.dt) == c.typ && int64(len(p)) >= es {
		// Stored as the class: read straight into p (and swap in place).
		k := min(c.left, int64(len(p))/es)
		if _, err := io.ReadFull(c.src, p[:k*es]); err != nil {
			return 0, &FormatError{File: c.f.name, Path: c.path, Off: c.off, Msg: "reading the data: " + zerr(err).Error()}
		}
		if (c.bo == binary.BigEndian) == nativeLE && es > 1 {
			swapBytes(p[:k*es], int(es))
		}
		c.left -= k
		c.done += k
		return int(k * es), nil
	}
	for len(c.pending) == 0 {
		if c.left == 0 {
			if c.finish != nil {
				fin := c.finish
				c.finish = nil
				if err := fin(); err != nil {
					return 0, &FormatError{File: c.f.name, Path: c.path, Off: c.off, Msg: "compressed variable: " + err.Error()}
				}
			}
			return 0, io.EOF
		}
		k := min(c.left, convBatch)
		es := int64(c.typ.ElemSize())
		if c.in == nil {
			c.in = make([]byte, min(c.left, convBatch)*es)
			c.out = allocFor(min(c.left, convBatch), c.dt.Size)
		}
		in := c.in[:k*es]
		if _, err := io.ReadFull(c.src, in); err != nil {
			return 0, &FormatError{File: c.f.name, Path: c.path, Off: c.off, Msg: "reading the data: " + zerr(err).Error()}
		}
		out := c.out[:k*int64(c.dt.Size)]
		if err := decodeInto(out, c.dt, 1, 0, c.typ, in, c.bo, k); err != nil {
			if ee, ok := err.(*exactError); ok {
				ee.i += int(c.done)
			}
			return 0, &FormatError{File: c.f.name, Path: c.path, Off: c.off, Msg: err.Error()}
		}
		c.left -= k
		c.done += k
		c.pending = out
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

func (c *convReader) Close() error {
	if c.closer != nil {
		return c.closer.Close()
	}
	return nil
}

// aligned reports whether b starts at a multiple of size (for typed views
// of the data).
func aligned(b []byte, size int) bool {
	return len(b) == 0 || uintptr(unsafe.Pointer(&b[0]))%uintptr(size) == 0
}
