package matfile

// Level 5 MAT-files (MATLAB's save -v6 and -v7): a 128-byte header, then
// one miMATRIX element per variable; v7 wraps each in an miCOMPRESSED
// element (a zlib stream, compressed in parallel blocks). Numeric data is
// stored in its own class's type (no narrowing), logical as miUINT8 with
// the logical flag, complex as the real part then the imaginary part.
// Structured arrays are 1x1 structs.
//
// char data is stored as
//   - miUTF8 when all of it is ASCII (one byte per character, as Octave
//     and scipy write it; Octave 7 turns N-by-1 char arrays stored in
//     16-bit units into 1-by-N);
//   - miUTF16 otherwise (MATLAB and Octave refuse multi-byte miUTF8, and
//     scipy decodes miUINT16 beyond ASCII with the wrong codec unless
//     told; all three decode miUTF16. Octave's N-by-1 bug remains for such
//     arrays). A character outside the BMP is a surrogate pair, as MATLAB
//     and Octave write it: the size counts UTF-16 code units (the plan
//     widens the strings, see wLeaf.widen). scipy 1.10 cannot read such
//     arrays, MATLAB's own included.
//
// A variable's element starts with its byte count and its data is
// column-major. v6 variables without char data are written in place: the
// element's headers go out at once with the data regions reserved, and
// each batch of rows is written to its place in every column (memory: one
// batch). v7 variables (one zlib stream each) and char data (whose storage
// type depends on all of it) are assembled whole first, each leaf's
// column-major units (char data as UTF-16 code units held in uint32s) in
// memory up to wL5SpoolMin, else in a temporary file (unlinked at once
// where the system allows it), then encoded (and compressed) from there by the same code:
// the output is the same either way. The file is column-major, filled
// through a band of rows, for a tall variable; row by row, read back in
// tiles of columns, for a wide one (so runs stay long for any shape). At
// most 2 GiB per variable (MATLAB's own limit for -v6/-v7 variables;
// larger ones need v7.3).

import (
	"bufio"
	"fmt"
	"io"

	"github.com/klauspost/compress/flate"

	"github.com/npyflow/npyflow/internal/hugepage"
)

// Level 5 data types (mi*) and array classes (mx*).
const (
	wMiInt8       = 1
	wMiUint8      = 2
	wMiInt16      = 3
	wMiUint16     = 4
	wMiInt32      = 5
	wMiUint32     = 6
	wMiSingle     = 7
	wMiDouble     = 9
	wMiInt64      = 12
	wMiUint64     = 13
	wMiMatrix     = 14
	wMiCompressed = 15
	wMiUTF8       = 16
	wMiUTF16      = 17

	wMxStruct = 2
	wMxChar   = 4
	wMxDouble = 6
	wMxSingle = 7

	wFlagComplex = 0x0800
	wFlagLogical = 0x0200
)

// wLevel5MaxVar is the largest variable (data bytes) Level 5 takes.
const wLevel5MaxVar = 1<<31 - 1

// wClassMx and wClassMi give the Level 5 array class and storage type of
// each class (logical is uint8 with the logical flag; char is decided per
// variable).
var (
	wClassMx = [...]uint32{wDouble: wMxDouble, wSingle: wMxSingle, wInt8: 8, wUint8: 9, wInt16: 10, wUint16: 11, wInt32: 12, wUint32: 13, wInt64: 14, wUint64: 15, wLogical: 9, wChar: wMxChar, wStruct: wMxStruct}
	wClassMi = [...]uint32{wDouble: wMiDouble, wSingle: wMiSingle, wInt8: wMiInt8, wUint8: wMiUint8, wInt16: wMiInt16, wUint16: wMiUint16, wInt32: wMiInt32, wUint32: wMiUint32, wInt64: wMiInt64, wUint64: wMiUint64, wLogical: wMiUint8, wChar: wMiUint16}
)

// wOut is the file being written, buffered, with its position.
type wOut struct {
	ws   io.WriteSeeker
	bw   *bufio.Writer
	pos  int64
	away bool // the file position is not at pos (after writeAt)
}

func (o *wOut) Write(b []byte) (int, error) {
	if err := o.toEnd(); err != nil {
		return 0, err
	}
	n, err := o.bw.Write(b)
	o.pos += int64(n)
	return n, err
}

// toEnd puts the file position back at the end after writeAt.
func (o *wOut) toEnd() error {
	if !o.away {
		return nil
	}
	if _, err := o.ws.Seek(o.pos, io.SeekStart); err != nil {
		return err
	}
	o.away = false
	return nil
}

// skip reserves n bytes at the end, to be filled by writeAt.
func (o *wOut) skip(n int64) error {
	if err := o.toEnd(); err != nil {
		return err
	}
	if err := o.bw.Flush(); err != nil {
		return err
	}
	if _, err := o.ws.Seek(n, io.SeekCurrent); err != nil {
		return err
	}
	o.pos += n
	return nil
}

// writeAt writes b at off, inside space reserved by skip.
func (o *wOut) writeAt(off int64, b []byte) error {
	if o.bw.Buffered() > 0 {
		if err := o.toEnd(); err != nil {
			return err
		}
		if err := o.bw.Flush(); err != nil {
			return err
		}
	}
	if _, err := o.ws.Seek(off, io.SeekStart); err != nil {
		return err
	}
	o.away = true
	_, err := o.ws.Write(b)
	return err
}

// patch overwrites 4 bytes at off (before the current position).
func (o *wOut) patch(off int64, b []byte) error {
	if err := o.toEnd(); err != nil {
		return err
	}
	if err := o.bw.Flush(); err != nil {
		return err
	}
	if _, err := o.ws.Seek(off, io.SeekStart); err != nil {
		return err
	}
	if _, err := o.ws.Write(b); err != nil {
		return err
	}
	_, err := o.ws.Seek(o.pos, io.SeekStart)
	return err
}

type wLevel5 struct {
	out      *wOut
	compress bool
	tempDir  string // for spooled variables (WriteOptions.TempDir)
}

func wNewLevel5(w io.WriteSeeker, opts *WriteOptions, compress bool) (*wLevel5, error) {
	l := &wLevel5{out: &wOut{ws: w, bw: bufio.NewWriterSize(w, 1<<20)}, compress: compress, tempDir: opts.TempDir}
	hdr := make([]byte, 128)
	copy(hdr, wHeaderText("5.0", opts.Created, false))
	// bytes 116..123: subsystem data offset, zero (none)
	wNE.PutUint16(hdr[124:], 0x0100)
	copy(hdr[126:], wEndianIM())
	if _, err := l.out.Write(hdr); err != nil {
		return nil, err
	}
	return l, nil
}

// wEndianIM is the endian indicator: the characters 'M','I' as a native
// uint16, which is "IM" in a little-endian file.
func wEndianIM() []byte {
	b := make([]byte, 2)
	wNE.PutUint16(b, uint16('M')<<8|uint16('I'))
	return b
}

func (l *wLevel5) close() error {
	if err := l.out.toEnd(); err != nil {
		return err
	}
	return l.out.bw.Flush()
}

// wL5Var is a Level 5 variable being assembled.
type wL5Var struct {
	l     *wLevel5
	p     *wPlan
	bufs  []([]byte) // per leaf, column-major destination units
	maxCP []uint32   // per leaf: largest UTF-16 unit (char)
	next  int64      // next row

	// In place (v6 without char data): the element is written at once
	// with its data regions reserved, and each batch goes straight to
	// its place in every column: offs are the regions' file offsets
	// (real and imaginary part).
	inPlace bool
	offs    [][2]int64
	band    []byte
	half    []byte

	// Spooled (a v7 variable, or v6 char data, over wL5SpoolMin bytes):
	// each leaf's units go to an unlinked temporary file at base[i], and
	// Close encodes the element from the file. The file is created by
	// the first Write (writeColumnMajor keeps the caller's data). A tall
	// variable (more rows than units per row) is stored column-major
	// (what bufs would hold), through a column-major band of bandRows
	// rows (bands[i]) so that each column is written in runs of bandRows
	// units; a wide one (rowMode) row by row, each row's units in column
	// order, and read back in tiles of columns, each a run per row.
	// Either way a run is at least wL5SpoolBand/sqrt(units) bytes.
	spool     bool
	rowMode   bool
	tmp       *tempFile
	base      []int64
	bands     [][]byte
	bandRows  int64
	bandStart int64 // the band's first row
	err       error // a failed Write (the temporary file is gone)
}

// wL5SpoolMin is the size (destination bytes of all leaves) above which a
// variable that cannot be written in place is spooled to a temporary
// file rather than assembled in memory.
var wL5SpoolMin int64 = 64 << 20

// wL5SpoolBand is the most a spooled variable's band holds.
var wL5SpoolBand int64 = 16 << 20

func (l *wLevel5) create(p *wPlan) (VarWriter, error) {
	var total int64
	for _, lf := range p.leaves {
		for _, d := range lf.dims {
			if int64(d) > 1<<31-1 {
				return nil, fmt.Errorf("matfile: variable %q: dimension %d is too large for a Level 5 MAT-file; use v7.3", lf.path, d)
			}
		}
		if lf.count > 0 && int64(lf.usize) > wLevel5MaxVar/lf.count {
			total = wLevel5MaxVar + 1
			break
		}
		total += lf.count * int64(lf.usize)
		if total > wLevel5MaxVar {
			break
		}
	}
	if total > wLevel5MaxVar {
		return nil, fmt.Errorf("matfile: variable %q is over 2 GiB, the limit of a v%s MAT-file; write it as v7.3", p.name, map[bool]string{true: "7", false: "6"}[l.compress])
	}
	// The buffers are allocated by the first Write (writeColumnMajor uses
	// the caller's data instead).
	v := &wL5Var{l: l, p: p, bufs: make([][]byte, len(p.leaves)), maxCP: make([]uint32, len(p.leaves))}
	inPlace := !l.compress
	for _, lf := range p.leaves {
		if lf.class == wChar {
			// the storage type of char data depends on all of it
			inPlace = false
		}
	}
	if !inPlace {
		// One zlib stream (v7), or char data: assembled whole, in a
		// temporary file when large.
		v.spool = total > wL5SpoolMin
		return v, nil
	}
	v.inPlace = true
	v.offs = make([][2]int64, len(p.leaves))
	e := &wL5Enc{v: v, w: l.out, reserve: true}
	size := e.nodeSize(p.root, true)
	if size > 1<<32-1-8 {
		return nil, fmt.Errorf("matfile: variable %q is too large for a Level 5 MAT-file; write it as v7.3", p.name)
	}
	e.tag(wMiMatrix, int(size))
	e.node(p.root, true)
	if e.err != nil {
		return nil, e.err
	}
	return v, nil
}

// place writes n rows (first row g) into the reserved regions.
func (v *wL5Var) place(rows []byte, g, n int64) error {
	p := v.p
	out := v.l.out
	for i, lf := range p.leaves {
		if lf.count == 0 {
			continue
		}
		us := int64(lf.usize)
		cols := lf.count / p.rows
		need := n * cols * us
		if int64(cap(v.band)) < need {
			v.band = make([]byte, need)
		}
		band := v.band[:need]
		if _, err := lf.scatter(band, n, 0, rows, int(n), p); err != nil {
			return err
		}
		for c := int64(0); c < cols; c++ {
			run := band[c*n*us : (c+1)*n*us]
			if !lf.complex {
				if err := out.writeAt(v.offs[i][0]+(c*p.rows+g)*us, run); err != nil {
					return err
				}
				continue
			}
			ss := us / 2
			if int64(cap(v.half)) < n*ss {
				v.half = make([]byte, n*ss)
			}
			for part := 0; part < 2; part++ {
				h := v.half[:n*ss]
				wSplit(h, run, int(ss), part)
				if err := out.writeAt(v.offs[i][part]+(c*p.rows+g)*ss, h); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// wSplit copies the real (part 0) or imaginary (part 1) halves of
// interleaved complex values of 2*ps bytes into dst.
func wSplit(dst, src []byte, ps, part int) {
	for i := 0; i*ps < len(dst); i++ {
		copy(dst[i*ps:(i+1)*ps], src[2*i*ps+part*ps:])
	}
}

// writeColumnMajor takes a single plain leaf's whole data, already in
// MATLAB's order: it is written as it is, without a copy.
func (v *wL5Var) writeColumnMajor(data []byte) error {
	p := v.p
	if len(p.leaves) != 1 || p.leaves[0].conv != wCopy || int64(len(data)) != p.leaves[0].count*int64(p.leaves[0].usize) || v.next != 0 {
		return fmt.Errorf("matfile: variable %q: column-major data does not fit", p.name)
	}
	v.next = p.rows
	if v.inPlace {
		lf := p.leaves[0]
		if !lf.complex {
			return v.l.out.writeAt(v.offs[0][0], data)
		}
		ss := lf.usize / 2
		for off := 0; off < len(data); off += 2 * wChunk {
			b := data[off:min(len(data), off+2*wChunk)]
			if cap(v.half) < len(b)/2 {
				v.half = make([]byte, len(b)/2)
			}
			for part := 0; part < 2; part++ {
				h := v.half[:len(b)/2]
				wSplit(h, b, ss, part)
				if err := v.l.out.writeAt(v.offs[0][part]+int64(off/2), h); err != nil {
					return err
				}
			}
		}
		return nil
	}
	v.bufs[0] = data
	return nil
}

func (v *wL5Var) Write(rows []byte) error {
	err := v.write(rows)
	if err != nil && v.spool {
		// the Writer is unusable after an error: the file goes now
		v.err = err
		v.tmp.Close()
	}
	return err
}

func (v *wL5Var) write(rows []byte) error {
	p := v.p
	if v.err != nil {
		return v.err
	}
	if p.rowSize == 0 {
		if len(rows) != 0 {
			return fmt.Errorf("matfile: variable %q: rows are empty but %d bytes were written", p.name, len(rows))
		}
		return nil
	}
	if int64(len(rows))%p.rowSize != 0 {
		return fmt.Errorf("matfile: variable %q: %d bytes is not a whole number of %d-byte rows", p.name, len(rows), p.rowSize)
	}
	n := int64(len(rows)) / p.rowSize
	if v.next+n > p.rows {
		return fmt.Errorf("matfile: variable %q: more than its %d rows written", p.name, p.rows)
	}
	if v.inPlace {
		if err := v.place(rows, v.next, n); err != nil {
			return err
		}
		v.next += n
		return nil
	}
	if v.spool {
		return v.spoolRows(rows, n)
	}
	if v.next == 0 {
		for i, lf := range p.leaves {
			if v.bufs[i] == nil {
				v.bufs[i] = make([]byte, lf.count*int64(lf.usize))
				// Filled out of order (rows scattered into columns):
				// huge pages take a fraction of the page faults.
				hugepage.Advise(v.bufs[i])
			}
		}
	}
	for i, lf := range p.leaves {
		m, err := lf.scatter(v.bufs[i], p.rows, v.next, rows, int(n), p)
		if err != nil {
			return err
		}
		v.maxCP[i] = max(v.maxCP[i], m)
	}
	v.next += n
	return nil
}

// startSpool creates the temporary file and the band.
func (v *wL5Var) startSpool() error {
	p := v.p
	var rowBytes, units, off int64
	v.base = make([]int64, len(p.leaves))
	for i, lf := range p.leaves {
		v.base[i] = off
		off += lf.count * int64(lf.usize)
		units += lf.count / p.rows
		rowBytes += lf.count / p.rows * int64(lf.usize)
	}
	v.rowMode = units > p.rows && p.rows > 1
	v.bandRows = max(1, min(p.rows, wL5SpoolBand/max(rowBytes, 1)))
	if v.rowMode {
		v.bandRows = 1
	}
	v.bands = make([][]byte, len(p.leaves))
	for i, lf := range p.leaves {
		v.bands[i] = make([]byte, v.bandRows*(lf.count/p.rows)*int64(lf.usize))
	}
	tmp, err := newTempFile(v.l.tempDir, ".npyflow-mat-var-*")
	if err != nil {
		return fmt.Errorf("matfile: variable %q: a temporary file for its data: %w", p.name, err)
	}
	v.tmp = tmp
	return nil
}

// spoolRows scatters n rows into the band, writing the band out to the
// temporary file whenever it is full.
func (v *wL5Var) spoolRows(rows []byte, n int64) error {
	p := v.p
	if n == 0 {
		return nil
	}
	if v.tmp == nil {
		if err := v.startSpool(); err != nil {
			return err
		}
	}
	for ; v.rowMode && n > 0; n-- {
		for i, lf := range p.leaves {
			m, err := lf.scatter(v.bands[i], 1, 0, rows[:p.rowSize], 1, p)
			if err != nil {
				return err
			}
			v.maxCP[i] = max(v.maxCP[i], m)
			if err := v.spoolWrite(v.bands[i], v.base[i]+v.next*int64(len(v.bands[i]))); err != nil {
				return err
			}
		}
		v.next++
		rows = rows[p.rowSize:]
	}
	for n > 0 {
		k := min(n, v.bandStart+v.bandRows-v.next)
		for i, lf := range p.leaves {
			m, err := lf.scatter(v.bands[i], v.bandRows, v.next-v.bandStart, rows[:k*p.rowSize], int(k), p)
			if err != nil {
				return err
			}
			v.maxCP[i] = max(v.maxCP[i], m)
		}
		v.next += k
		rows = rows[k*p.rowSize:]
		n -= k
		if v.next == v.bandStart+v.bandRows || v.next == p.rows {
			if err := v.flushBand(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flushBand writes the band's rows to their place in every column of the
// temporary file.
func (v *wL5Var) flushBand() error {
	p := v.p
	k := v.next - v.bandStart
	for i, lf := range p.leaves {
		us := int64(lf.usize)
		if k == p.rows {
			// the whole variable: the band is the leaf's data
			if err := v.spoolWrite(v.bands[i][:lf.count*us], v.base[i]); err != nil {
				return err
			}
			continue
		}
		for c := int64(0); c < lf.count/p.rows; c++ {
			run := v.bands[i][c*v.bandRows*us : (c*v.bandRows+k)*us]
			if err := v.spoolWrite(run, v.base[i]+(c*p.rows+v.bandStart)*us); err != nil {
				return err
			}
		}
	}
	v.bandStart = v.next
	return nil
}

func (v *wL5Var) spoolWrite(b []byte, off int64) error {
	if _, err := v.tmp.WriteAt(b, off); err != nil {
		return fmt.Errorf("matfile: variable %q: writing its data to a temporary file: %w", v.p.name, err)
	}
	return nil
}

func (v *wL5Var) Close() error {
	defer v.tmp.Close()
	if v.err != nil {
		return v.err
	}
	p := v.p
	if p.rowSize != 0 && v.next != p.rows {
		return fmt.Errorf("matfile: variable %q: %d of %d rows written", p.name, v.next, p.rows)
	}
	if v.inPlace {
		return v.l.out.toEnd()
	}
	e := &wL5Enc{v: v}
	size := e.nodeSize(p.root, true)
	if size > 1<<32-1-8 {
		return fmt.Errorf("matfile: variable %q is too large for a Level 5 MAT-file; write it as v7.3", p.name)
	}
	out := v.l.out
	if !v.l.compress {
		e.w = out
		e.tag(wMiMatrix, int(size))
		e.node(p.root, true)
		return e.err
	}
	start := out.pos
	e.w = out
	e.tag(wMiCompressed, 0)
	if e.err != nil {
		return e.err
	}
	zw := wNewParZlib(out, flate.DefaultCompression)
	e.w = zw
	e.tag(wMiMatrix, int(size))
	e.node(p.root, true)
	if e.err != nil {
		return e.err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	clen := out.pos - start - 8
	if clen > 1<<32-1 {
		return fmt.Errorf("matfile: variable %q: compressed data over 4 GiB; write it as v7.3", p.name)
	}
	b := make([]byte, 4)
	wNE.PutUint32(b, uint32(clen))
	return out.patch(start+4, b)
}

// wL5Enc writes the elements of one variable.
type wL5Enc struct {
	v    *wL5Var
	w    io.Writer
	err  error
	pad  [8]byte
	buf  []byte
	rbuf []byte // spooled data read back
	tile []byte // rowMode: a tile of columns
	seg  []byte // rowMode: one row's run of the tile

	reserve bool // leave the data regions empty and record their offsets
}

func wPad8(n int64) int64 { return (n + 7) &^ 7 }

func (e *wL5Enc) write(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *wL5Enc) tag(typ uint32, n int) {
	var t [8]byte
	wNE.PutUint32(t[:], typ)
	wNE.PutUint32(t[4:], uint32(n))
	e.write(t[:])
}

func (e *wL5Enc) padTo(n int64) {
	if p := wPad8(n) - n; p > 0 {
		e.write(e.pad[:p])
	}
}

// leafIndex finds the buffer of a leaf.
func (e *wL5Enc) leafIndex(lf *wLeaf) int {
	for i, x := range e.v.p.leaves {
		if x == lf {
			return i
		}
	}
	return -1
}

// dataBytes is the byte count of a leaf's real (or imaginary) part.
func (e *wL5Enc) dataBytes(lf *wLeaf) int64 {
	switch lf.class {
	case wChar:
		if e.v.maxCP[e.leafIndex(lf)] < 0x80 {
			return lf.count
		}
		return 2 * lf.count
	case wLogical:
		return lf.count
	}
	if lf.complex {
		return lf.count * int64(lf.usize/2)
	}
	return lf.count * int64(lf.usize)
}

func nameSize(name string, top bool) int64 {
	if !top {
		return 8
	}
	return 8 + wPad8(int64(len(name)))
}

// nodeSize is the byte count of a node's miMATRIX element (without its
// own 8-byte tag).
func (e *wL5Enc) nodeSize(n *wNode, top bool) int64 {
	s := int64(16) + nameSize(n.name, top)
	if n.leaf == nil {
		s += 16                                               // dims 1x1
		s += 8                                                // field name length (small element)
		s += 8 + wPad8(int64(len(n.fields)*wFieldNameLen(n))) // field names
		for _, c := range n.fields {
			s += 8 + e.nodeSize(c, false)
		}
		return s
	}
	lf := n.leaf
	s += 8 + wPad8(int64(4*len(lf.dims)))
	d := e.dataBytes(lf)
	s += 8 + wPad8(d)
	if lf.complex {
		s += 8 + wPad8(d)
	}
	return s
}

// wFieldNameLen is the field-name slot length: the longest name plus its
// NUL, at least 32 as MATLAB writes it.
func wFieldNameLen(n *wNode) int {
	m := 32
	for _, c := range n.fields {
		m = max(m, len(c.name)+1)
	}
	return m
}

func (e *wL5Enc) node(n *wNode, top bool) {
	var hdr [16]byte
	wNE.PutUint32(hdr[0:], wMiUint32)
	wNE.PutUint32(hdr[4:], 8)
	if n.leaf == nil {
		wNE.PutUint32(hdr[8:], wMxStruct)
		e.write(hdr[:])
		e.dims([]int{1, 1})
		e.name(n.name, top)
		fl := wFieldNameLen(n)
		// The field name length as a small data element, as MATLAB
		// writes it (Octave accepts no other form).
		var t [8]byte
		wNE.PutUint32(t[0:], 4<<16|wMiInt32)
		wNE.PutUint32(t[4:], uint32(fl))
		e.write(t[:])
		names := make([]byte, fl*len(n.fields))
		for i, c := range n.fields {
			copy(names[i*fl:], c.name)
		}
		e.tag(wMiInt8, len(names))
		e.write(names)
		e.padTo(int64(len(names)))
		for _, c := range n.fields {
			e.tag(wMiMatrix, int(e.nodeSize(c, false)))
			e.node(c, false)
		}
		return
	}
	lf := n.leaf
	flags := wClassMx[lf.class]
	if lf.complex {
		flags |= wFlagComplex
	}
	if lf.class == wLogical {
		flags |= wFlagLogical
	}
	wNE.PutUint32(hdr[8:], flags)
	e.write(hdr[:])
	e.dims(lf.dims)
	e.name(n.name, top)
	li := e.leafIndex(lf)
	d := e.dataBytes(lf)
	mi := wClassMi[lf.class]
	if e.reserve {
		out := e.w.(*wOut)
		parts := 1
		if lf.complex {
			parts = 2
		}
		for part := 0; part < parts; part++ {
			if part > 0 {
				e.padTo(d)
			}
			e.tag(mi, int(d))
			if e.err == nil {
				e.v.offs[e.leafIndex(lf)][part] = out.pos
				e.err = out.skip(d)
			}
		}
		e.padTo(d)
		return
	}
	switch {
	case lf.class == wChar && e.v.maxCP[li] > 0xFFFF:
		// the plan saw no such character (spooled or whole: it cannot)
		if e.err == nil {
			e.err = fmt.Errorf("matfile: variable %q: U+%X outside the BMP where the plan has no room for its surrogate pair", lf.path, e.v.maxCP[li])
		}
	case lf.class == wChar:
		if e.v.maxCP[li] < 0x80 {
			e.tag(wMiUTF8, int(d))
			e.data(li, e.narrow8)
		} else {
			e.tag(wMiUTF16, int(d))
			e.data(li, e.narrow16)
		}
	case lf.complex:
		ss := lf.usize / 2
		e.tag(mi, int(d))
		e.data(li, func(b []byte) { e.half(b, ss, 0) })
		e.padTo(d)
		e.tag(mi, int(d))
		e.data(li, func(b []byte) { e.half(b, ss, 1) })
	default:
		e.tag(mi, int(d))
		e.data(li, e.write)
	}
	e.padTo(d)
}

// dataTiles is data for a leaf spooled row by row: tiles of columns, each
// read as one run per row and transposed.
func (e *wL5Enc) dataTiles(i int, f func([]byte)) {
	v := e.v
	lf := v.p.leaves[i]
	R, us := v.p.rows, int64(lf.usize)
	C := lf.count / R
	k := max(1, min(C, wL5SpoolBand/(R*us)))
	if int64(len(e.tile)) < k*R*us {
		e.tile = make([]byte, k*R*us)
	}
	if int64(len(e.seg)) < k*us {
		e.seg = make([]byte, k*us)
	}
	for c0 := int64(0); c0 < C && e.err == nil; c0 += k {
		kk := min(k, C-c0)
		t := e.tile[:kk*R*us]
		seg := e.seg[:kk*us]
		for r := int64(0); r < R; r++ {
			if _, err := v.tmp.ReadAt(seg, v.base[i]+(r*C+c0)*us); err != nil {
				e.err = fmt.Errorf("matfile: variable %q: reading its data back from a temporary file: %w", v.p.name, err)
				return
			}
			wTransposeRow(t, seg, int(R), int(r), int(us))
		}
		f(t)
	}
}

// wTransposeRow puts the units of seg (one row's run of columns) into
// row r of the column-major tile t of R rows.
func wTransposeRow(t, seg []byte, R, r, us int) {
	n := len(seg) / us
	switch us {
	case 8:
		for c := 0; c < n; c++ {
			wNE.PutUint64(t[(c*R+r)*8:], wNE.Uint64(seg[c*8:]))
		}
	case 4:
		for c := 0; c < n; c++ {
			wNE.PutUint32(t[(c*R+r)*4:], wNE.Uint32(seg[c*4:]))
		}
	case 1:
		for c := 0; c < n; c++ {
			t[c*R+r] = seg[c]
		}
	default:
		for c := 0; c < n; c++ {
			copy(t[(c*R+r)*us:(c*R+r+1)*us], seg[c*us:(c+1)*us])
		}
	}
}

// wL5ReadChunk is how much of a spooled leaf is read back at once (a
// multiple of every unit size).
const wL5ReadChunk = 1 << 20

// data calls f with leaf i's column-major units, in order, in pieces of
// whole units: its buffer, or its part of the temporary file read back.
func (e *wL5Enc) data(i int, f func([]byte)) {
	v := e.v
	if v.tmp == nil {
		f(v.bufs[i])
		return
	}
	lf := v.p.leaves[i]
	if v.rowMode {
		e.dataTiles(i, f)
		return
	}
	total := lf.count * int64(lf.usize)
	if len(e.rbuf) == 0 {
		e.rbuf = make([]byte, wL5ReadChunk)
	}
	for off := int64(0); off < total && e.err == nil; {
		b := e.rbuf[:min(int64(len(e.rbuf)), total-off)]
		if _, err := v.tmp.ReadAt(b, v.base[i]+off); err != nil {
			e.err = fmt.Errorf("matfile: variable %q: reading its data back from a temporary file: %w", v.p.name, err)
			return
		}
		f(b)
		off += int64(len(b))
	}
}

func (e *wL5Enc) dims(dims []int) {
	b := make([]byte, 8+wPad8(int64(4*len(dims))))
	wNE.PutUint32(b[0:], wMiInt32)
	wNE.PutUint32(b[4:], uint32(4*len(dims)))
	for i, d := range dims {
		wNE.PutUint32(b[8+4*i:], uint32(d))
	}
	e.write(b)
}

func (e *wL5Enc) name(name string, top bool) {
	if !top {
		name = ""
	}
	e.tag(wMiInt8, len(name))
	e.write([]byte(name))
	e.padTo(int64(len(name)))
}

const wChunk = 1 << 16

// narrow16 writes UTF-16 code units held in uint32s as uint16s.
func (e *wL5Enc) narrow16(src []byte) {
	if cap(e.buf) < wChunk {
		e.buf = make([]byte, wChunk)
	}
	for len(src) > 0 && e.err == nil {
		n := min(len(src)/4, wChunk/2)
		b := e.buf[:2*n]
		for i := 0; i < n; i++ {
			wNE.PutUint16(b[2*i:], uint16(wNE.Uint32(src[4*i:])))
		}
		e.write(b)
		src = src[4*n:]
	}
}

// narrow8 writes UTF-16 code units held in uint32s (all ASCII) as bytes.
func (e *wL5Enc) narrow8(src []byte) {
	if cap(e.buf) < wChunk {
		e.buf = make([]byte, wChunk)
	}
	for len(src) > 0 && e.err == nil {
		n := min(len(src)/4, wChunk)
		b := e.buf[:n]
		for i := 0; i < n; i++ {
			b[i] = byte(wNE.Uint32(src[4*i:]))
		}
		e.write(b)
		src = src[4*n:]
	}
}

// half writes the real (part 0) or imaginary (part 1) halves of
// interleaved complex values of 2*ps bytes.
func (e *wL5Enc) half(src []byte, ps, part int) {
	if cap(e.buf) < wChunk {
		e.buf = make([]byte, wChunk)
	}
	es := 2 * ps
	for len(src) > 0 && e.err == nil {
		n := min(len(src)/es, wChunk/ps)
		b := e.buf[:n*ps]
		if ps == 8 {
			for i := 0; i < n; i++ {
				wNE.PutUint64(b[8*i:], wNE.Uint64(src[es*i+8*part:]))
			}
		} else {
			for i := 0; i < n; i++ {
				wNE.PutUint32(b[4*i:], wNE.Uint32(src[es*i+4*part:]))
			}
		}
		e.write(b)
		src = src[n*es:]
	}
}
