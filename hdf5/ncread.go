package hdf5

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/npyflow/npyflow/npyio"
)

// netCDF readers see a variable through its dimensions: an axis along an
// unlimited dimension is as long as the dimension now is, whatever the
// HDF5 dataset's extent (a variable written for fewer records than
// another, or never written, has fewer rows or none); the missing
// elements read as the variable's fill value. netCDF-C also renames a
// variable that has a dimension's name without being its coordinate
// variable: it stores it as _nc4_non_coord_<name> and keeps <name> for
// the dimension-only dataset.

// netCDFNonCoord starts the stored name of a variable named like a
// dimension it is not the coordinate variable of.
const netCDFNonCoord = "_nc4_non_coord_"

// NetCDFName is the dataset's name as netCDF readers name the variable:
// its HDF5 name without the _nc4_non_coord_ prefix netCDF-C stores a
// variable named like a dimension (but not its coordinate variable) with.
func (ds *Dataset) NetCDFName() string {
	if n, ok := strings.CutPrefix(ds.name, netCDFNonCoord); ok && n != "" {
		return n
	}
	return ds.name
}

// NetCDFPath is the dataset's path with its netCDF name (NetCDFName) as
// the last element.
func (ds *Dataset) NetCDFPath() string {
	return joinPath(parentPath(ds.path), ds.NetCDFName())
}

// OpenVariable opens the dataset of the netCDF variable at path ("/g/v"):
// the dataset of that path, or netCDF-C's _nc4_non_coord_ dataset of the
// variable when the path names a dimension-only dataset.
func (f *File) OpenVariable(path string) (*Dataset, error) {
	o, err := f.OpenPath(path)
	if err != nil {
		return nil, err
	}
	ds, ok := o.(*Dataset)
	if !ok {
		return nil, fmt.Errorf("hdf5: %s: %s is not a dataset: %w", f.name, path, ErrNotFound)
	}
	if ds.Err() == nil && ds.IsNetCDFDimensionOnly() {
		if o, err := f.OpenPath(joinPath(parentPath(ds.path), netCDFNonCoord+ds.name)); err == nil {
			if v, ok := o.(*Dataset); ok {
				return v, nil
			}
		}
	}
	return ds, nil
}

// NetCDFShape is the dataset's shape as netCDF readers give it: an axis
// along an unlimited netCDF dimension (a dimension scale that can grow,
// with netCDF-C's _Netcdf4Dimid) is as long as the dimension is now (it
// may have grown past the rows written to this variable); every other
// axis has the stored extent. Without such dimensions it is Shape (h5py's
// dimension scales change nothing).
func (ds *Dataset) NetCDFShape() ([]uint64, error) {
	if err := ds.load(); err != nil {
		return nil, err
	}
	shape := slices.Clone(ds.info.space.dims)
	if ds.info.space.null || len(shape) == 0 {
		return shape, nil
	}
	if _, err := ds.Attr("DIMENSION_LIST"); errors.Is(err, ErrNotFound) {
		return shape, nil
	}
	dims, err := ds.Dimensions()
	if err != nil {
		return nil, err
	}
	for i, d := range dims {
		if d.Unlimited && d.ID >= 0 && d.Len > shape[i] {
			shape[i] = d.Len
		}
	}
	return shape, nil
}

// NetCDFNumpyShape is NetCDFShape plus the dimensions of a top-level
// array datatype, as NumpyShape.
func (ds *Dataset) NetCDFNumpyShape() ([]int, error) {
	ns, err := ds.NumpyShape()
	if err != nil {
		return nil, err
	}
	s, err := ds.NetCDFShape()
	if err != nil {
		return nil, err
	}
	for i, d := range s {
		if d > 1<<62 {
			return nil, ds.f.corrupt(int64(ds.addr), "%s: dimension %d too large", ds.path, d)
		}
		ns[i] = int(d)
	}
	return ns, nil
}

// netCDF's default fill values (netcdf.h's NC_FILL_*), used where a
// variable has no _FillValue.
const (
	ncFillByte   int8  = -127
	ncFillShort  int16 = -32767
	ncFillInt    int32 = -2147483647
	ncFillInt64  int64 = -9223372036854775806
	ncFillUbyte        = 255
	ncFillUshort       = 65535
	ncFillUint         = 4294967295
	ncFillUint64       = 18446744073709551614
	ncFillDouble       = 9.9692099683868690e+36
)

// NetCDFFill is one element of the fill value netCDF readers give the
// elements of a variable beyond its stored extent, in the layout of
// DType (the file's byte order): the _FillValue attribute, else netCDF's
// default fill of the type (NC_FILL_INT -2147483647, NC_FILL_DOUBLE
// 9.969209968386869e+36, ...), zeros (empty strings) for strings without
// a _FillValue and types netCDF has no default for. The width DType finds
// for a padded variable-length string variable holds its _FillValue.
func (ds *Dataset) NetCDFFill() ([]byte, error) {
	dt, err := ds.DType()
	if err != nil {
		return nil, err
	}
	es := dt.Size
	if ns, err := ds.NumpyShape(); err == nil {
		for _, d := range ns[len(ds.info.space.dims):] {
			es *= d
		}
	}
	out := make([]byte, es)
	if dt.Kind == npyio.Bytes || dt.Kind == npyio.Unicode {
		if fill, ok := ds.netCDFStringFill(); ok && dt.Size == es {
			if dt.Kind == npyio.Bytes {
				copy(out, fill)
			} else {
				k := 0
				for _, c := range fill {
					if k+4 > len(out) {
						break
					}
					binary.LittleEndian.PutUint32(out[k:], uint32(c))
					k += 4
				}
			}
		}
		return out, nil
	}
	if dt.Size != es {
		return out, nil
	}
	var order binary.ByteOrder = binary.LittleEndian
	if dt.Order == npyio.BigEndian {
		order = binary.BigEndian
	}
	if a, err := ds.Attr("_FillValue"); err == nil && a.Len() == 1 {
		at, err := a.DType()
		if err != nil || at.String() != dt.String() || len(a.Bytes()) != es {
			return nil, fmt.Errorf("hdf5: %s: %s: a _FillValue of type %s for a variable of %s", ds.f.name, ds.path, a.Type, dt)
		}
		copy(out, a.Bytes())
		return out, nil
	} else if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	fb, fs, fi, fl := ncFillByte, ncFillShort, ncFillInt, ncFillInt64
	switch {
	case dt.Kind == npyio.Int && es == 1:
		out[0] = byte(fb)
	case dt.Kind == npyio.Int && es == 2:
		order.PutUint16(out, uint16(fs))
	case dt.Kind == npyio.Int && es == 4:
		order.PutUint32(out, uint32(fi))
	case dt.Kind == npyio.Int && es == 8:
		order.PutUint64(out, uint64(fl))
	case dt.Kind == npyio.Uint && es == 1:
		out[0] = ncFillUbyte
	case dt.Kind == npyio.Uint && es == 2:
		order.PutUint16(out, ncFillUshort)
	case dt.Kind == npyio.Uint && es == 4:
		order.PutUint32(out, ncFillUint)
	case dt.Kind == npyio.Uint && es == 8:
		order.PutUint64(out, ncFillUint64)
	case dt.Kind == npyio.Float && es == 4:
		order.PutUint32(out, math.Float32bits(float32(ncFillDouble)))
	case dt.Kind == npyio.Float && es == 8:
		order.PutUint64(out, math.Float64bits(ncFillDouble))
	}
	return out, nil
}

// fillPattern fills b with copies of the element e.
func fillPattern(b, e []byte) {
	if len(e) == 0 || len(b) == 0 {
		return
	}
	n := copy(b, e)
	for n < len(b) {
		n += copy(b[n:], b[:n])
	}
}

// NetCDFReader reads a variable's elements in C order over its
// NetCDFShape, the elements beyond the stored extent set to NetCDFFill.
// A variable stored whole is read by an ElementReader. It is not safe for
// concurrent use.
type NetCDFReader struct {
	er      *ElementReader // the whole variable is stored
	rr      *RowReader
	stored  []uint64 // the dataspace's dimensions
	shape   []uint64 // the netCDF shape
	es      uint64   // bytes per element
	fill    []byte
	row     uint64 // elements per row of shape
	batch   uint64 // rows per batch
	next    uint64
	buf     []byte
	tmp     []byte
	lo, hi  []uint64
	idx     []uint64
	padding bool
}

// NewNetCDFReader returns a reader of batches of about batchBytes bytes
// (at least one row of the netCDF shape where that shape is padded).
func (ds *Dataset) NewNetCDFReader(batchBytes int) (*NetCDFReader, error) {
	shape, err := ds.NetCDFShape()
	if err != nil {
		return nil, err
	}
	if slices.Equal(shape, ds.info.space.dims) {
		er, err := ds.NewElementReader(batchBytes)
		if err != nil {
			return nil, err
		}
		return &NetCDFReader{er: er}, nil
	}
	rr, err := ds.newRowReader(1, false)
	if err != nil {
		return nil, err
	}
	fill, err := ds.NetCDFFill()
	if err != nil {
		return nil, err
	}
	r := &NetCDFReader{rr: rr, stored: ds.info.space.dims, shape: shape, es: rr.elemOut(), fill: fill, padding: true}
	if uint64(len(fill)) != r.es {
		return nil, fmt.Errorf("hdf5: %s: %s: a fill value of %d bytes for elements of %d", ds.f.name, ds.path, len(fill), r.es)
	}
	r.row = 1
	for _, d := range shape[1:] {
		var ok bool
		if r.row, ok = mulOK(r.row, d, 1<<62); !ok {
			return nil, fmt.Errorf("hdf5: %s: %s: shape %v too large: %w", ds.f.name, ds.path, shape, ErrTooLarge)
		}
	}
	rowBytes, ok := mulOK(r.row, r.es, 1<<62)
	if !ok || rowBytes > uint64(ds.f.opts.MaxReadBytes) {
		return nil, fmt.Errorf("hdf5: %s: %s: one row of shape %v exceeds the read limit of %d bytes: %w", ds.f.name, ds.path, shape, ds.f.opts.MaxReadBytes, ErrTooLarge)
	}
	r.batch = max(1, uint64(max(batchBytes, 1))/max(rowBytes, 1))
	r.lo = make([]uint64, len(shape))
	r.hi = make([]uint64, len(shape))
	r.idx = make([]uint64, len(shape))
	return r, nil
}

// Shape is the netCDF shape read.
func (r *NetCDFReader) Shape() []uint64 {
	if r.er != nil {
		return slices.Clone(r.er.dims)
	}
	return slices.Clone(r.shape)
}

// Read returns the next batch (a whole number of elements, C order). The
// slice is reused by the next call. At the end it returns io.EOF.
func (r *NetCDFReader) Read() ([]byte, error) {
	if r.er != nil {
		return r.er.Read()
	}
	if r.next >= r.shape[0] || r.row == 0 {
		return nil, io.EOF
	}
	n := min(r.batch, r.shape[0]-r.next)
	size := n * r.row * r.es
	if uint64(cap(r.buf)) < size {
		r.buf = make([]byte, size)
	}
	out := r.buf[:size]
	fillPattern(out, r.fill)
	if err := r.readStored(r.next, n, out); err != nil {
		return nil, err
	}
	r.next += n
	return out, nil
}

// readStored copies the stored elements of rows [first, first+n) of the
// netCDF shape into out (n rows of the netCDF shape, already filled).
func (r *NetCDFReader) readStored(first, n uint64, out []byte) error {
	if first >= r.stored[0] {
		return nil
	}
	end := min(first+n, r.stored[0])
	r.lo[0], r.hi[0] = first, end
	for i := 1; i < len(r.stored); i++ {
		r.lo[i], r.hi[i] = 0, r.stored[i]
		if r.stored[i] == 0 {
			return nil
		}
	}
	if slices.Equal(r.stored[1:], r.shape[1:]) {
		return r.rr.ReadSlab(r.lo, r.hi, out[:(end-first)*r.row*r.es])
	}
	size, err := r.rr.SlabBytes(r.lo, r.hi)
	if err != nil {
		return err
	}
	if uint64(cap(r.tmp)) < size {
		r.tmp = make([]byte, size)
	}
	tmp := r.tmp[:size]
	if err := r.rr.ReadSlab(r.lo, r.hi, tmp); err != nil {
		return err
	}
	// Runs of the stored last axis, each to its place in the padded rows.
	last := len(r.stored) - 1
	run := r.stored[last] * r.es
	idx := r.idx
	clear(idx)
	idx[0] = 0
	for src := uint64(0); src < size; src += run {
		off := idx[0]
		for i := 1; i <= last; i++ {
			off = off*r.shape[i] + idx[i]
		}
		copy(out[off*r.es:], tmp[src:src+run])
		for i := last - 1; i >= 0; i-- {
			idx[i]++
			lim := r.stored[i]
			if i == 0 {
				lim = end - first
			}
			if idx[i] < lim {
				break
			}
			idx[i] = 0
		}
	}
	return nil
}

// fillRows reads rows [first, first+n) of a one-dimensional variable
// whose stored length may be shorter, filling the rest with fill.
func fillRows(rr *RowReader, first, n uint64, fill, dst []byte) error {
	stored := uint64(rr.Rows())
	rb := uint64(rr.RowBytes())
	k := uint64(0)
	if first < stored {
		k = min(n, stored-first)
		if err := rr.ReadRows(int64(first), int64(k), dst[:k*rb]); err != nil {
			return err
		}
	}
	fillPattern(dst[k*rb:n*rb], fill)
	return nil
}

// netCDFStringFill is the string _FillValue of a variable-length string
// variable that NetCDFShape pads.
func (ds *Dataset) netCDFStringFill() (string, bool) {
	t := ds.info.dtype
	if t == nil || t.Class != ClassVarLen || !t.VarLenString {
		return "", false
	}
	a, err := ds.Attr("_FillValue")
	if err != nil || a.Len() != 1 {
		return "", false
	}
	fill, err := a.String()
	if err != nil || fill == "" {
		return "", false
	}
	shape, err := ds.NetCDFShape()
	if err != nil || slices.Equal(shape, ds.info.space.dims) {
		return "", false
	}
	return fill, true
}

// stringWidthOf is the width of s as a numpy string: bytes, or characters
// for unicode.
func stringWidthOf(s string, unicode bool) int {
	if unicode {
		return utf8.RuneCountInString(s)
	}
	return len(s)
}
