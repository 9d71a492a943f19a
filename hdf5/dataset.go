package hdf5

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/npyflow/npyflow/internal/hugepage"
	"github.com/npyflow/npyflow/npyio"
)

// Dataset is an HDF5 dataset. Its dataspace, datatype and layout are read
// when it is opened; data only when asked.
type Dataset struct {
	object
	once    sync.Once
	info    *dsInfo
	infoErr error

	strOnce  sync.Once
	strWidth int // vlen strings: widest value (bytes or characters)
	strErr   error

	filt filterCheck // CheckFilters
}

type dsInfo struct {
	space  *dataspace
	dtype  *Datatype
	layout *Layout
	fill   []byte
}

func (ds *Dataset) load() error {
	ds.once.Do(func() { ds.infoErr = ds.loadInfo() })
	return ds.infoErr
}

func (ds *Dataset) loadInfo() error {
	f := ds.f
	h, err := ds.header()
	if err != nil {
		return err
	}
	info := &dsInfo{}
	for _, m := range h.msgs {
		switch m.typ {
		case msgDataspace, msgFill, msgFillOld, msgFilters, msgLayout:
			if m.flags&2 != 0 {
				return f.unsupported(ds.path, "%s stored as a shared message", msgName(m.typ))
			}
		}
	}
	m := h.find(msgDataspace)
	if m == nil {
		return f.corrupt(int64(ds.addr), "%s: dataset without a dataspace message", ds.path)
	}
	if info.space, err = f.parseDataspace(m.data, m.addr); err != nil {
		return err
	}
	m = h.find(msgDatatype)
	if m == nil {
		return f.corrupt(int64(ds.addr), "%s: dataset without a datatype message", ds.path)
	}
	if m.flags&2 != 0 {
		info.dtype, err = f.sharedType(m.data, m.addr, 0)
	} else {
		info.dtype, err = f.parseDatatype(&dec{b: m.data}, 0, m.addr)
	}
	if err != nil {
		return withObject(err, ds.path)
	}
	m = h.find(msgLayout)
	if m == nil {
		return f.corrupt(int64(ds.addr), "%s: dataset without a layout message", ds.path)
	}
	if info.layout, err = f.parseLayout(m.data, m.addr, len(info.space.dims)); err != nil {
		return err
	}
	if m = h.find(msgFilters); m != nil {
		if info.layout.Filters, err = f.parseFilters(m.data, m.addr); err != nil {
			return err
		}
	}
	if m = h.find(msgFill); m != nil {
		if info.fill, err = f.parseFill(m.data, m.addr); err != nil {
			return err
		}
	} else if m = h.find(msgFillOld); m != nil {
		d := &dec{b: m.data}
		n := d.u32()
		info.fill = d.bytes(int(n))
	}
	if h.find(msgExternal) != nil {
		return f.unsupported(ds.path, "external data storage")
	}
	if info.dtype.Size == 0 {
		return f.corrupt(int64(ds.addr), "%s: datatype of size 0", ds.path)
	}
	ds.info = info
	return nil
}

func withObject(err error, path string) error {
	var u *UnsupportedError
	if errors.As(err, &u) && u.Object == "" {
		c := *u
		c.Object = path
		return &c
	}
	return err
}

// Err reports why the dataset's metadata could not be read (nil if it
// could). Shape, Type and Layout return nil when it is not nil.
func (ds *Dataset) Err() error { return ds.load() }

// Shape is the dataspace's dimensions (empty for a scalar or null
// dataspace).
func (ds *Dataset) Shape() []uint64 {
	if ds.load() != nil {
		return nil
	}
	return append([]uint64(nil), ds.info.space.dims...)
}

// MaxShape is the maximum dimensions (math.MaxUint64 for unlimited).
func (ds *Dataset) MaxShape() []uint64 {
	if ds.load() != nil {
		return nil
	}
	if ds.info.space.maxDims == nil {
		return ds.Shape()
	}
	return append([]uint64(nil), ds.info.space.maxDims...)
}

// IsNull reports a null dataspace (h5py.Empty): no data at all.
func (ds *Dataset) IsNull() bool { return ds.load() == nil && ds.info.space.null }

// IsScalar reports a scalar dataspace (one element, shape ()).
func (ds *Dataset) IsScalar() bool {
	return ds.load() == nil && !ds.info.space.null && len(ds.info.space.dims) == 0
}

// Len is the number of elements (0 for a null dataspace).
func (ds *Dataset) Len() uint64 {
	if ds.load() != nil {
		return 0
	}
	n, _ := ds.info.space.count()
	return n
}

// Type is the stored datatype.
func (ds *Dataset) Type() *Datatype {
	if ds.load() != nil {
		return nil
	}
	return ds.info.dtype
}

// Layout is the storage layout, chunking and filters.
func (ds *Dataset) Layout() *Layout {
	if ds.load() != nil {
		return nil
	}
	return ds.info.layout
}

// FillValue is the dataset's fill value bytes (nil for the default, zero).
func (ds *Dataset) FillValue() []byte {
	if ds.load() != nil {
		return nil
	}
	return ds.info.fill
}

func (ds *Dataset) unsupportedType(err error) error {
	return &UnsupportedError{File: ds.f.name, Object: ds.path, Feature: unsupportedFeature(err)}
}

// DType is the numpy dtype of the data ReadAll and the row readers return,
// as h5py maps the datatype (see Datatype.NumpyDType). A variable-length
// string dataset gets a fixed width found by reading every value once:
// S<n> (n = longest value in bytes) for ASCII, U<n> (n = longest in
// characters) for UTF-8. Fixed-length UTF-8 strings inside a compound or
// an array type read as U<n>, n their byte width, which moves the fields
// after them (a fixed-length ASCII member stays S<n>). A top-level array
// datatype gives its base dtype; NumpyShape then includes the array
// dimensions.
func (ds *Dataset) DType() (*npyio.DType, error) {
	if err := ds.load(); err != nil {
		return nil, err
	}
	t := ds.info.dtype
	if t.textStrings() {
		w, err := ds.stringWidth()
		if err != nil {
			return nil, err
		}
		if t.Charset == CharsetUTF8 {
			return npyio.NewString(npyio.Unicode, w)
		}
		return npyio.NewString(npyio.Bytes, w)
	}
	dt, _, err := t.numpyDType(true)
	if err != nil {
		return nil, ds.unsupportedType(err)
	}
	return dt, nil
}

// NumpyShape is the shape of the numpy array h5py reads: Shape plus the
// dimensions of a top-level array datatype.
func (ds *Dataset) NumpyShape() ([]int, error) {
	if err := ds.load(); err != nil {
		return nil, err
	}
	out := make([]int, 0, len(ds.info.space.dims))
	for _, d := range ds.info.space.dims {
		if d > 1<<62 {
			return nil, ds.f.corrupt(int64(ds.addr), "%s: dimension %d too large", ds.path, d)
		}
		out = append(out, int(d))
	}
	if t := ds.info.dtype; t.Class == ClassArray {
		_, extra, err := t.NumpyDType()
		if err != nil {
			return nil, ds.unsupportedType(err)
		}
		out = append(out, extra...)
	}
	return out, nil
}

// rows returns the number of rows (dim 0; 1 for a scalar, 0 for null) and
// the stored bytes per row.
func (ds *Dataset) rows() (uint64, uint64, error) {
	s := ds.info.space
	es := uint64(ds.info.dtype.Size)
	if s.null {
		return 0, es, nil
	}
	if len(s.dims) == 0 {
		return 1, es, nil
	}
	rb := es
	for _, d := range s.dims[1:] {
		var ok bool
		if rb, ok = mulOK(rb, d, 1<<62); !ok {
			return 0, 0, ds.f.corrupt(int64(ds.addr), "%s: row of shape %v too large", ds.path, s.dims)
		}
	}
	if _, ok := mulOK(rb, s.dims[0], 1<<62); !ok {
		return 0, 0, ds.f.corrupt(int64(ds.addr), "%s: shape %v too large", ds.path, s.dims)
	}
	return s.dims[0], rb, nil
}

// RowReader reads a dataset in batches of rows (slices along the first
// dimension), chunk by chunk with a bounded cache of decoded chunks. It is
// not safe for concurrent use.
type RowReader struct {
	ds       *Dataset
	batch    uint64
	next     uint64
	nrows    uint64
	rawRow   uint64 // stored bytes per row
	outRow   uint64 // returned bytes per row (differs for vlen strings)
	cr       *chunkReader
	buf      []byte
	raw      []byte
	scratch  []byte // spans of contiguous storage read by ReadSlab
	strWidth int
	unicode  bool
	vlenStr  bool
	pad      int
	strFix   []strFix   // fixed-length strings whose padding a read converts
	narrow   []bitField // integers narrower than their bytes, converted after reading
	wide     *utf8Conv  // fixed-length UTF-8 strings inside elements, read as U
}

// NewRowReader returns a reader of batchRows rows at a time (at least 1).
// A scalar dataset has one row; a null one none.
func (ds *Dataset) NewRowReader(batchRows int) (*RowReader, error) {
	return ds.newRowReader(batchRows, true)
}

// newRowReader makes a row reader; rowLimit refuses rows over
// MaxReadBytes (not for box reads, which may read parts of a row).
func (ds *Dataset) newRowReader(batchRows int, rowLimit bool) (*RowReader, error) {
	if err := ds.load(); err != nil {
		return nil, err
	}
	if batchRows < 1 {
		batchRows = 1
	}
	t := ds.info.dtype
	r := &RowReader{ds: ds, batch: uint64(batchRows)}
	var err error
	if r.nrows, r.rawRow, err = ds.rows(); err != nil {
		return nil, err
	}
	r.outRow = r.rawRow
	switch {
	case t.textStrings():
		w, err := ds.stringWidth()
		if err != nil {
			return nil, err
		}
		r.vlenStr, r.strWidth, r.pad = true, w, t.Pad
		r.unicode = t.Charset == CharsetUTF8
		cw := uint64(w)
		if r.unicode {
			cw *= 4
		}
		var ok bool
		if r.outRow, ok = mulOK(r.rawRow/uint64(t.Size), cw, 1<<62); !ok {
			return nil, fmt.Errorf("hdf5: %s: %s: rows of %d strings of %d bytes are too large: %w", ds.f.name, ds.path, r.rawRow/uint64(t.Size), cw, ErrTooLarge)
		}
	default:
		if _, err := ds.DType(); err != nil {
			return nil, err
		}
		var ok bool
		if r.strFix, ok = stringFixes(t, 0, nil, 0); !ok {
			return nil, ds.f.unsupported(ds.path, "a datatype holding over %d padded strings per element", maxStrFixes)
		}
		if r.narrow, ok = narrowFields(t); !ok {
			return nil, ds.f.unsupported(ds.path, "more than %d integers narrower than their bytes in one element", maxBitFields)
		}
		if hasUTF8Fixed(t, 0) && t.Size > 0 {
			if r.wide, ok = newUTF8Conv(t); !ok {
				return nil, ds.f.unsupported(ds.path, "a datatype holding over %d UTF-8 strings per element", maxUTF8Ops)
			}
			if r.outRow, ok = mulOK(r.rawRow/uint64(t.Size), uint64(r.wide.outSize), 1<<62); !ok {
				return nil, fmt.Errorf("hdf5: %s: %s: rows of %d elements of %d bytes are too large: %w", ds.f.name, ds.path, r.rawRow/uint64(t.Size), r.wide.outSize, ErrTooLarge)
			}
		}
	}
	if rb := max(r.rawRow, r.outRow); rowLimit && rb > uint64(ds.f.opts.MaxReadBytes) {
		return nil, fmt.Errorf("hdf5: %s: %s: one row of %d bytes exceeds the read limit of %d bytes: %w", ds.f.name, ds.path, rb, ds.f.opts.MaxReadBytes, ErrTooLarge)
	}
	l := ds.info.layout
	switch l.Class {
	case LayoutCompact, LayoutContiguous:
	case LayoutChunked:
		if r.cr, err = newChunkReader(ds); err != nil {
			return nil, err
		}
	default:
		return nil, ds.f.unsupported(ds.path, "%s layout", l.ClassName())
	}
	if r.batch > 0 && r.rawRow > 0 {
		if lim := uint64(ds.f.opts.MaxReadBytes) / max(r.rawRow, r.outRow); r.batch > lim {
			r.batch = max(lim, 1)
		}
	}
	return r, nil
}

// Rows is the number of rows of the dataset.
func (r *RowReader) Rows() int64 { return int64(r.nrows) }

// RowBytes is the size of one returned row in bytes.
func (r *RowReader) RowBytes() int { return int(r.outRow) }

// Read returns the next batch of rows, in the layout of the dataset's
// DType (C order). The slice is reused by the next call. At the end it
// returns io.EOF.
func (r *RowReader) Read() ([]byte, error) {
	if r.next >= r.nrows {
		return nil, io.EOF
	}
	n := min(r.batch, r.nrows-r.next)
	size := n * r.outRow
	if uint64(cap(r.buf)) < size {
		r.buf = make([]byte, size)
	}
	b := r.buf[:size]
	if err := r.ReadRows(int64(r.next), int64(n), b); err != nil {
		return nil, err
	}
	r.next += n
	return b, nil
}

// ReadRows reads rows [start, start+n) into dst, which must hold
// n*RowBytes() bytes.
func (r *RowReader) ReadRows(start, n int64, dst []byte) error {
	ds := r.ds
	if start < 0 || n < 0 || uint64(start) > r.nrows || uint64(n) > r.nrows-uint64(start) {
		return fmt.Errorf("hdf5: %s: rows [%d, %d) outside the %d rows of %s", ds.f.name, start, start+n, r.nrows, ds.path)
	}
	if uint64(len(dst)) < uint64(n)*r.outRow {
		return fmt.Errorf("hdf5: %s: ReadRows buffer of %d bytes for %d rows of %d bytes", ds.f.name, len(dst), n, r.outRow)
	}
	if n == 0 || r.rawRow == 0 {
		return nil
	}
	if r.wide != nil {
		return r.readWide(uint64(start), uint64(n), dst)
	}
	var raw []byte
	if !r.vlenStr {
		raw = dst[:uint64(n)*r.rawRow]
	} else {
		if uint64(cap(r.raw)) < uint64(n)*r.rawRow {
			r.raw = make([]byte, uint64(n)*r.rawRow)
		}
		raw = r.raw[:uint64(n)*r.rawRow]
	}
	if err := r.readRaw(uint64(start), uint64(n), raw); err != nil {
		return err
	}
	if r.vlenStr {
		return r.convertStrings(raw, dst[:uint64(n)*r.outRow])
	}
	fixStrings(raw, ds.info.dtype.Size, r.strFix)
	if r.narrow != nil {
		fixBitFields(raw, ds.info.dtype.Size, r.narrow)
	}
	return nil
}

// readWide reads rows [start, start+n) of a type holding UTF-8 strings
// into dst, through a raw buffer of at most about 4 MiB at a time.
func (r *RowReader) readWide(start, n uint64, dst []byte) error {
	step := max(uint64(1), (4<<20)/r.rawRow)
	for done := uint64(0); done < n; done += step {
		k := min(step, n-done)
		if uint64(cap(r.raw)) < k*r.rawRow {
			r.raw = make([]byte, k*r.rawRow)
		}
		raw := r.raw[:k*r.rawRow]
		if err := r.readRaw(start+done, k, raw); err != nil {
			return err
		}
		r.fixRaw(raw, r.ds.info.dtype.Size)
		if err := r.convertUTF8(raw, dst[done*r.outRow:(done+k)*r.outRow]); err != nil {
			return err
		}
	}
	return nil
}

// fixRaw converts the padding of strings and narrow integers of stored
// elements of es bytes in place.
func (r *RowReader) fixRaw(raw []byte, es int) {
	fixStrings(raw, es, r.strFix)
	if r.narrow != nil {
		fixBitFields(raw, es, r.narrow)
	}
}

func (r *RowReader) readRaw(start, n uint64, dst []byte) error {
	ds := r.ds
	f := ds.f
	l := ds.info.layout
	off := start * r.rawRow
	size := n * r.rawRow
	switch l.Class {
	case LayoutCompact:
		total := r.nrows * r.rawRow
		if uint64(len(l.compact)) < total {
			return f.corrupt(int64(ds.addr), "%s: compact data of %d bytes for %d expected", ds.path, len(l.compact), total)
		}
		copy(dst, l.compact[off:off+size])
		return nil
	case LayoutContiguous:
		if l.addr == undefAddr {
			fillElems(dst, ds.info.fill, ds.info.dtype.Size)
			return nil
		}
		total := r.nrows * r.rawRow
		if l.size < total {
			return f.corrupt(int64(l.addr), "%s: contiguous storage of %d bytes for %d expected", ds.path, l.size, total)
		}
		return f.readInto(dst, l.addr+off, "contiguous data of "+ds.path)
	case LayoutChunked:
		if len(ds.info.space.dims) == 0 {
			return f.corrupt(int64(ds.addr), "%s: chunked scalar dataset", ds.path)
		}
		return r.cr.readRows(start, n, dst)
	}
	return f.unsupported(ds.path, "%s layout", l.ClassName())
}

func fillElems(dst, fill []byte, es int) {
	if len(fill) != es || allZero(fill) {
		clear(dst)
		return
	}
	for i := 0; i+es <= len(dst); i += es {
		copy(dst[i:], fill)
	}
}

func (r *RowReader) convertStrings(raw, dst []byte) error {
	ds := r.ds
	cw := r.strWidth
	if r.unicode {
		cw *= 4
	}
	clear(dst)
	es := ds.info.dtype.Size
	for i := 0; i*es < len(raw); i++ {
		v, err := ds.stringItem(raw[i*es : (i+1)*es])
		if err != nil {
			return err
		}
		s := trimString(v, r.pad)
		out := dst[i*cw : (i+1)*cw]
		if !r.unicode {
			if len(s) > cw {
				return fmt.Errorf("hdf5: %s: %s: string of %d bytes wider than the %d found before (the file changed?)", ds.f.name, ds.path, len(s), cw)
			}
			copy(out, s)
			continue
		}
		k := 0
		for _, c := range s {
			if k+4 > len(out) {
				return fmt.Errorf("hdf5: %s: %s: string wider than the %d characters found before", ds.f.name, ds.path, r.strWidth)
			}
			binary.LittleEndian.PutUint32(out[k:], uint32(c))
			k += 4
		}
	}
	return nil
}

// ReadRows reads rows [start, start+n) into dst (see RowReader.ReadRows).
// Each call starts with an empty chunk cache; use a RowReader to read
// many batches.
func (ds *Dataset) ReadRows(start, n int64, dst []byte) error {
	r, err := ds.NewRowReader(int(min(max(n, 1), 1<<30)))
	if err != nil {
		return err
	}
	return r.ReadRows(start, n, dst)
}

// ReadAll reads the whole dataset in the layout of its DType. It refuses
// data over Options.MaxReadBytes (ErrTooLarge); use a RowReader instead.
func (ds *Dataset) ReadAll() ([]byte, error) {
	if err := ds.load(); err != nil {
		return nil, err
	}
	r, err := ds.NewRowReader(1)
	if err != nil {
		return nil, err
	}
	total, ok := mulOK(r.nrows, max(r.outRow, r.rawRow), 1<<62)
	if !ok || total > uint64(ds.f.opts.MaxReadBytes) {
		return nil, fmt.Errorf("hdf5: %s: %s: %d rows of %d bytes exceed the read limit of %d bytes: %w", ds.f.name, ds.path, r.nrows, r.outRow, ds.f.opts.MaxReadBytes, ErrTooLarge)
	}
	if err := ds.checkStored(r.nrows * r.rawRow); err != nil {
		return nil, err
	}
	out := make([]byte, r.nrows*r.outRow)
	hugepage.Advise(out)
	if err := r.ReadRows(0, int64(r.nrows), out); err != nil {
		return nil, err
	}
	return out, nil
}

// readRawAll reads all stored elements (vlen descriptors included).
func (ds *Dataset) readRawAll() ([]byte, error) {
	r := &RowReader{ds: ds}
	var err error
	if r.nrows, r.rawRow, err = ds.rows(); err != nil {
		return nil, err
	}
	total, ok := mulOK(r.nrows, r.rawRow, 1<<62)
	if !ok || total > uint64(ds.f.opts.MaxReadBytes) {
		return nil, fmt.Errorf("hdf5: %s: %s: %d bytes exceed the read limit of %d bytes: %w", ds.f.name, ds.path, total, ds.f.opts.MaxReadBytes, ErrTooLarge)
	}
	if ds.info.layout.Class == LayoutChunked {
		if r.cr, err = newChunkReader(ds); err != nil {
			return nil, err
		}
	}
	if err := ds.checkStored(total); err != nil {
		return nil, err
	}
	out := make([]byte, total)
	if total == 0 {
		return out, nil
	}
	hugepage.Advise(out)
	if err := r.readRaw(0, r.nrows, out); err != nil {
		return nil, err
	}
	return out, nil
}

// checkStored checks, before allocating, that compact and contiguous
// storage holds the total bytes wanted.
func (ds *Dataset) checkStored(total uint64) error {
	f := ds.f
	l := ds.info.layout
	switch l.Class {
	case LayoutCompact:
		if uint64(len(l.compact)) < total {
			return f.corrupt(int64(ds.addr), "%s: compact data of %d bytes for %d expected", ds.path, len(l.compact), total)
		}
	case LayoutContiguous:
		if l.addr != undefAddr && (l.size < total || !f.checkRange(l.addr, total)) {
			return f.corrupt(int64(l.addr), "%s: contiguous data of %d bytes (stored %d) outside the file", ds.path, total, l.size)
		}
	}
	return nil
}

// ReadStrings reads a string dataset (fixed-length, padding removed, or
// variable-length) as Go strings, in C order.
func (ds *Dataset) ReadStrings() ([]string, error) {
	if err := ds.load(); err != nil {
		return nil, err
	}
	t := ds.info.dtype
	if t.Class != ClassString && !(t.Class == ClassVarLen && t.VarLenString) {
		return nil, fmt.Errorf("hdf5: %s: %s: type %s is not a string type", ds.f.name, ds.path, t)
	}
	raw, err := ds.readRawAll()
	if err != nil {
		return nil, err
	}
	n := len(raw) / t.Size
	out := make([]string, n)
	var total uint64
	for i := range out {
		e := raw[i*t.Size : (i+1)*t.Size]
		if t.Class == ClassString {
			out[i] = trimString(e, t.Pad)
			continue
		}
		v, err := ds.f.vlenItem(e, 1)
		if err != nil {
			return nil, withObject(err, ds.path)
		}
		total += uint64(len(v))
		if total > uint64(ds.f.opts.MaxReadBytes) {
			return nil, fmt.Errorf("hdf5: %s: %s: strings exceed the read limit: %w", ds.f.name, ds.path, ErrTooLarge)
		}
		out[i] = trimString(v, t.Pad)
	}
	return out, nil
}

// textStrings reports whether the type's values are read as text whose
// width is found by reading them: variable-length strings, and
// fixed-length UTF-8 strings (read as U<n>, n the longest value in
// characters, as numpy's U they were written from).
func (t *Datatype) textStrings() bool {
	return t.Class == ClassVarLen && t.VarLenString || t.Class == ClassString && t.Charset == CharsetUTF8
}

// stringItem is one stored string of a textStrings dataset: a fixed-length
// one as stored, a variable-length one from the global heap.
func (ds *Dataset) stringItem(b []byte) ([]byte, error) {
	if ds.info.dtype.Class == ClassString {
		return b, nil
	}
	v, err := ds.f.vlenItem(b, 1)
	if err != nil {
		return nil, withObject(err, ds.path)
	}
	return v, nil
}

// stringWidth finds the widest variable-length string (bytes for ASCII,
// characters for UTF-8) in one streaming pass over the dataset.
func (ds *Dataset) stringWidth() (int, error) {
	ds.strOnce.Do(func() {
		ds.strWidth, ds.strErr = ds.scanStrings()
		if fill, ok := ds.netCDFStringFill(); ok && ds.strErr == nil {
			// netCDF readers give the padded elements the fill string
			ds.strWidth = max(ds.strWidth, stringWidthOf(fill, ds.info.dtype.Charset == CharsetUTF8))
		}
	})
	return ds.strWidth, ds.strErr
}

func (ds *Dataset) scanStrings() (int, error) {
	t := ds.info.dtype
	utf := t.Charset == CharsetUTF8
	r := &RowReader{ds: ds}
	var err error
	if r.nrows, r.rawRow, err = ds.rows(); err != nil {
		return 0, err
	}
	if r.rawRow > uint64(ds.f.opts.MaxReadBytes) {
		return 0, fmt.Errorf("hdf5: %s: %s: one row of %d bytes exceeds the read limit of %d bytes: %w", ds.f.name, ds.path, r.rawRow, ds.f.opts.MaxReadBytes, ErrTooLarge)
	}
	if ds.info.layout.Class == LayoutChunked {
		if r.cr, err = newChunkReader(ds); err != nil {
			return 0, err
		}
	}
	if r.nrows > 0 && r.rawRow > 0 {
		if err := ds.checkStored(r.nrows * r.rawRow); err != nil {
			return 0, err
		}
	}
	batch := max(uint64(1), (4<<20)/max(r.rawRow, 1))
	w := 0
	var buf []byte
	for start := uint64(0); start < r.nrows && r.rawRow > 0; start += batch {
		n := min(batch, r.nrows-start)
		if uint64(cap(buf)) < n*r.rawRow {
			buf = make([]byte, n*r.rawRow)
		}
		raw := buf[:n*r.rawRow]
		if err := r.readRaw(start, n, raw); err != nil {
			return 0, err
		}
		for i := 0; i+t.Size <= len(raw); i += t.Size {
			v, err := ds.stringItem(raw[i : i+t.Size])
			if err != nil {
				return 0, err
			}
			s := trimString(v, t.Pad)
			k := len(s)
			if utf {
				if !utf8.ValidString(s) {
					return 0, fmt.Errorf("hdf5: %s: %s: a UTF-8 string holds invalid UTF-8 (%q)", ds.f.name, ds.path, truncate(s))
				}
				k = utf8.RuneCountInString(s)
			}
			w = max(w, k)
		}
	}
	return w, nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// ReadVarLen reads a variable-length sequence (or string) dataset: for
// each value in C order, the raw bytes of its base-type elements.
func (ds *Dataset) ReadVarLen() ([][]byte, error) {
	if err := ds.load(); err != nil {
		return nil, err
	}
	t := ds.info.dtype
	if t.Class != ClassVarLen {
		return nil, fmt.Errorf("hdf5: %s: %s: type %s is not variable-length", ds.f.name, ds.path, t)
	}
	esz := t.Base.Size
	if t.VarLenString {
		esz = 1
	}
	raw, err := ds.readRawAll()
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(raw)/16)
	var total uint64
	for i := range out {
		v, err := ds.f.vlenItem(raw[i*16:(i+1)*16], esz)
		if err != nil {
			return nil, withObject(err, ds.path)
		}
		if total += uint64(len(v)); total > uint64(ds.f.opts.MaxReadBytes) {
			return nil, fmt.Errorf("hdf5: %s: %s: values exceed the read limit: %w", ds.f.name, ds.path, ErrTooLarge)
		}
		out[i] = v
	}
	return out, nil
}

// ReadReferences reads an object reference dataset.
func (ds *Dataset) ReadReferences() ([]Reference, error) {
	if err := ds.load(); err != nil {
		return nil, err
	}
	t := ds.info.dtype
	if t.Class != ClassReference || t.RefKind != RefObject || t.Size != 8 {
		if t.Class == ClassReference {
			return nil, ds.f.unsupported(ds.path, "region references")
		}
		return nil, fmt.Errorf("hdf5: %s: %s: type %s is not an object reference", ds.f.name, ds.path, t)
	}
	raw, err := ds.readRawAll()
	if err != nil {
		return nil, err
	}
	out := make([]Reference, len(raw)/8)
	for i := range out {
		out[i] = Reference(binary.LittleEndian.Uint64(raw[i*8:]))
	}
	return out, nil
}

// Describe summarizes the dataset without reading data: type, shape,
// layout, chunking and filters, e.g.
// "f8 LE (100, 3) chunked [10 3] btree-v1 deflate(4),shuffle".
func (ds *Dataset) Describe() string {
	if err := ds.load(); err != nil {
		return "error: " + err.Error()
	}
	var sb strings.Builder
	sb.WriteString(ds.info.dtype.String())
	sb.WriteByte(' ')
	switch {
	case ds.info.space.null:
		sb.WriteString("null")
	default:
		dims := make([]int, len(ds.info.space.dims))
		for i, d := range ds.info.space.dims {
			dims[i] = int(d)
		}
		sb.WriteString(npyio.FormatShape(dims))
	}
	l := ds.info.layout
	sb.WriteByte(' ')
	sb.WriteString(l.ClassName())
	if l.Class == LayoutChunked {
		fmt.Fprintf(&sb, " %v %s", l.Chunk, l.IndexName())
	}
	for i, fl := range l.Filters {
		if i == 0 {
			sb.WriteByte(' ')
		} else {
			sb.WriteByte(',')
		}
		name := fl.Name
		if name == "" {
			name = fmt.Sprintf("filter%d", fl.ID)
		}
		sb.WriteString(name)
		if fl.ID == FilterDeflate && len(fl.Params) > 0 {
			fmt.Fprintf(&sb, "(%d)", fl.Params[0])
		}
	}
	return sb.String()
}

func msgName(t uint16) string {
	switch t {
	case msgDataspace:
		return "dataspace"
	case msgFill, msgFillOld:
		return "fill value"
	case msgFilters:
		return "filter pipeline"
	case msgLayout:
		return "layout"
	}
	return fmt.Sprintf("message %#x", t)
}
