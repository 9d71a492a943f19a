package hdf5

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"unicode/utf8"

	"github.com/npyflow/npyflow/npyio"
)

// NetCDFProperties is the _NCProperties attribute NetCDFWriter gives the
// root group: the writer, as netCDF-C records its own versions there
// ("version=2,netcdf=4.9.0,hdf5=1.10.8").
const NetCDFProperties = "version=2,npyflow=1"

// NetCDFWriter writes a netCDF-4 file: an HDF5 file laid out as the
// netCDF-C library lays out the same variables, so that netCDF-C (ncdump,
// netCDF4-python, xarray) reads its dimensions and variables. Each
// dimension is an HDF5 dimension scale (CLASS = "DIMENSION_SCALE", NAME,
// REFERENCE_LIST, _Netcdf4Dimid): the coordinate variable when a
// one-dimensional variable has the dimension's name, else a dataset
// without data whose NAME says it is a dimension only, as netCDF-C
// writes it. Every variable lists its dimensions in DIMENSION_LIST and
// their ids in _Netcdf4Coordinates; the root has _NCProperties.
//
// Types: the numeric types netCDF has (int8 to uint64, float32,
// float64) and strings: numpy S<n> (UTF-8 text) and U<n> become NC_STRING
// (variable-length UTF-8 strings, each batch's strings in global heap
// collections written with it). Other types are refused by
// CreateVariable.
//
// Limits: one group (the root); fixed-length dimensions (no unlimited
// one); groups keep no creation order, so netCDF readers list the
// variables by name (netCDF-C lists its own files' in creation order).
type NetCDFWriter struct {
	w      *Writer
	dims   []*ncWDim
	byName map[string]*ncWDim
	vars   []*NetCDFVar
	names  map[string]bool // variable names
	closed bool
}

type ncWDim struct {
	name  string
	len   uint64
	id    int
	coord *NetCDFVar // the coordinate variable, nil for none
	refs  []ncWRef   // the variables along it
}

type ncWRef struct {
	ref  ObjRef
	axis int
}

// NetCDFVar is a variable being written: its DatasetWriter takes the
// rows (Write, Close) and attributes (SetAttr).
type NetCDFVar struct {
	*DatasetWriter
	name string
	dims []*ncWDim
	str  *npyio.DType // S<n> or U<n>: written as variable-length strings
	refs []byte       // the strings' global heap references, reused
}

// Write appends whole rows in C order (see DatasetWriter.Write). A
// string variable's rows are S<n> or U<n> elements: each string (its
// trailing NULs cut) goes to a global heap collection written at once,
// and the variable stores its reference, so memory stays bounded by the
// batch.
func (v *NetCDFVar) Write(rows []byte) error {
	if v.str == nil {
		return v.DatasetWriter.Write(rows)
	}
	n := len(rows) / v.str.Size
	if n*v.str.Size != len(rows) {
		return fmt.Errorf("hdf5: %s: %d bytes are not whole strings of %d", v.path, len(rows), v.str.Size)
	}
	seqs := make([][]byte, n)
	for i := range seqs {
		s, err := ncString(v.str, rows[i*v.str.Size:(i+1)*v.str.Size])
		if err != nil {
			return fmt.Errorf("hdf5: netCDF variable %s: string %d: %w", v.name, i, err)
		}
		seqs[i] = s
	}
	if cap(v.refs) < 16*n {
		v.refs = make([]byte, 16*n)
	}
	refs := v.refs[:16*n]
	clear(refs)
	// An empty string is an object of no bytes, as the HDF5 library
	// stores "" (a null reference would read as no string at all).
	if err := v.w.writeVlenHeap(seqs, true, func(i int, ref [16]byte) { copy(refs[16*i:], ref[:]) }); err != nil {
		return err
	}
	return v.DatasetWriter.Write(refs)
}

// ncString is one S<n> or U<n> element as UTF-8 without its trailing
// NULs.
func ncString(dt *npyio.DType, e []byte) ([]byte, error) {
	if dt.Kind == npyio.Bytes {
		e = bytes.TrimRight(e, "\x00")
		if !utf8.Valid(e) {
			return nil, fmt.Errorf("bytes that are not UTF-8 (netCDF strings are text)")
		}
		if bytes.IndexByte(e, 0) >= 0 {
			return nil, fmt.Errorf("a NUL inside (netCDF strings end at the first)")
		}
		return slices.Clone(e), nil
	}
	var out []byte
	for k := 0; k+4 <= len(e); k += 4 {
		var c uint32
		if dt.Order == npyio.BigEndian {
			c = binary.BigEndian.Uint32(e[k:])
		} else {
			c = binary.LittleEndian.Uint32(e[k:])
		}
		if c == 0 {
			if len(bytes.Trim(e[k:], "\x00")) > 0 {
				return nil, fmt.Errorf("a NUL inside (netCDF strings end at the first)")
			}
			break
		}
		if c > utf8.MaxRune || (c >= 0xd800 && c < 0xe000) {
			return nil, fmt.Errorf("code point %#x is not a character", c)
		}
		out = utf8.AppendRune(out, rune(c))
	}
	return out, nil
}

// NewNetCDFWriter starts a netCDF-4 file on f (empty, at its start).
func NewNetCDFWriter(f io.WriteSeeker, opts *WriterOptions) (*NetCDFWriter, error) {
	w, err := NewWriter(f, opts)
	if err != nil {
		return nil, err
	}
	w.root.TrackOrder() // netCDF lists variables in creation order
	return &NetCDFWriter{w: w, byName: map[string]*ncWDim{}, names: map[string]bool{}}, nil
}

// Dim declares the dimension name of length n, or checks the length of
// one declared before. Dimensions get netCDF ids in declaration order.
func (nw *NetCDFWriter) Dim(name string, n uint64) error {
	if d := nw.byName[name]; d != nil {
		if d.len != n {
			return fmt.Errorf("hdf5: netCDF dimension %q has length %d, not %d", name, d.len, n)
		}
		return nil
	}
	if err := ncCheckName(name); err != nil {
		return fmt.Errorf("hdf5: netCDF dimension %q: %w", name, err)
	}
	d := &ncWDim{name: name, len: n, id: len(nw.dims)}
	nw.dims = append(nw.dims, d)
	nw.byName[name] = d
	return nil
}

// HasDim reports whether the dimension name is declared, and its length.
func (nw *NetCDFWriter) HasDim(name string) (uint64, bool) {
	d := nw.byName[name]
	if d == nil {
		return 0, false
	}
	return d.len, true
}

func ncCheckName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Errorf("not a netCDF name")
	case len(name) > 256:
		return fmt.Errorf("longer than netCDF's 256 bytes")
	}
	for _, c := range []byte(name) {
		if c == '/' || c < 0x20 || c == 0x7f {
			return fmt.Errorf("netCDF names hold no '/' or control characters")
		}
	}
	return nil
}

// NetCDFType reports whether dt is a type netCDF-4 has (and
// CreateVariable writes): signed and unsigned integers of 1, 2, 4 and 8
// bytes, float32 and float64, little- or big-endian. The reason names
// what is missing otherwise.
func NetCDFType(dt *npyio.DType) error {
	switch dt.Kind {
	case npyio.Int, npyio.Uint:
		if dt.Size == 1 || dt.Size == 2 || dt.Size == 4 || dt.Size == 8 {
			return nil
		}
	case npyio.Float:
		if dt.Size == 4 || dt.Size == 8 {
			return nil
		}
		return fmt.Errorf("netCDF has no %d-byte floats", dt.Size)
	case npyio.Complex:
		return fmt.Errorf("netCDF has no complex type")
	case npyio.Bool:
		return fmt.Errorf("netCDF has no boolean type")
	case npyio.Bytes, npyio.Unicode:
		if dt.Size > 0 {
			return nil // NC_STRING
		}
		return fmt.Errorf("netCDF has no zero-length strings")
	}
	return fmt.Errorf("netCDF has no type for %s", dt)
}

// CreateVariable adds the variable name of type dt (see NetCDFType) over
// the declared dimensions dims (none for a scalar). A one-dimensional
// variable named like its dimension is the dimension's coordinate
// variable. Write its rows in C order through the returned variable.
func (nw *NetCDFWriter) CreateVariable(name string, dt *npyio.DType, dims []string, opts *DatasetOptions) (*NetCDFVar, error) {
	if err := ncCheckName(name); err != nil {
		return nil, fmt.Errorf("hdf5: netCDF variable %q: %w", name, err)
	}
	if err := NetCDFType(dt); err != nil {
		return nil, fmt.Errorf("hdf5: netCDF variable %q: %w", name, err)
	}
	if nw.names[name] {
		return nil, fmt.Errorf("hdf5: a netCDF variable %q already exists", name)
	}
	v := &NetCDFVar{name: name}
	shape := make([]uint64, len(dims))
	for i, dn := range dims {
		d := nw.byName[dn]
		if d == nil {
			return nil, fmt.Errorf("hdf5: netCDF variable %q: no dimension %q declared", name, dn)
		}
		if slices.Contains(v.dims, d) {
			return nil, fmt.Errorf("hdf5: netCDF variable %q: dimension %q twice", name, dn)
		}
		v.dims = append(v.dims, d)
		shape[i] = d.len
	}
	stored := name
	if d := nw.byName[name]; d != nil {
		if len(v.dims) == 1 && v.dims[0] == d {
			d.coord = v
		} else {
			stored = netCDFNonCoord + name // as netCDF-C stores it
		}
	}
	if opts != nil && opts.Unlimited {
		return nil, fmt.Errorf("hdf5: netCDF variable %q: unlimited dimensions are not written", name)
	}
	var ds *DatasetWriter
	var err error
	if dt.Kind == npyio.Bytes || dt.Kind == npyio.Unicode {
		// NC_STRING: variable-length UTF-8 strings, NULLTERM
		typ := append(wTypeHeader(wClassVlen, 1, 1|1<<8, 16), wStringType(1, 0, 1)...)
		ds, err = nw.w.root.createDataset(stored, typ, 16, shape, opts)
		v.str = dt
	} else {
		ds, err = nw.w.root.CreateDataset(stored, dt, shape, opts)
	}
	if err != nil {
		return nil, err
	}
	v.DatasetWriter = ds
	nw.names[name] = true
	for i, d := range v.dims {
		if d.coord != v {
			d.refs = append(d.refs, ncWRef{ref: ds.Ref(), axis: i})
		}
	}
	nw.vars = append(nw.vars, v)
	return v, nil
}

// SetAttr adds an attribute to the root group (a netCDF global
// attribute).
func (nw *NetCDFWriter) SetAttr(name string, v AttrValue) error {
	return nw.w.root.SetAttr(name, v)
}

// ncFixedString is a scalar NULLTERM ASCII string attribute holding s
// and its NUL, as netCDF-C and the dimension scale API store CLASS and
// NAME.
func ncFixedString(s string, size int) AttrValue {
	data := make([]byte, max(size, len(s)+1))
	copy(data, s)
	return AttrValue{typ: wStringType(len(data), 0, 0), data: data}
}

// ncRefList is a scale's REFERENCE_LIST: {dataset reference, axis}.
func ncRefList(refs []ncWRef) AttrValue {
	typ := wCompoundType(16, []wMember{
		{name: "dataset", offset: 0, typ: wRefType()},
		{name: "dimension", offset: 8, typ: wIntType(4, true, false)},
	})
	data := make([]byte, 16*len(refs))
	for i, r := range refs {
		binary.LittleEndian.PutUint64(data[16*i:], uint64(r.ref))
		binary.LittleEndian.PutUint32(data[16*i+8:], uint32(int32(r.axis)))
	}
	return AttrValue{typ: typ, shape: []uint64{uint64(len(refs))}, data: data}
}

// ncDimList is a variable's DIMENSION_LIST: one sequence of one object
// reference per axis.
func ncDimList(refs []ObjRef) AttrValue {
	seqs := make([][]byte, len(refs))
	for i, r := range refs {
		seqs[i] = binary.LittleEndian.AppendUint64(nil, uint64(r))
	}
	return AttrValue{typ: wVlenSeqType(wRefType()), shape: []uint64{uint64(len(refs))}, data: make([]byte, 16*len(refs)), vlen: seqs}
}

// Close writes the dimension scales, each variable's dimension
// attributes and _NCProperties, then closes the HDF5 file (Writer.Close).
func (nw *NetCDFWriter) Close() error {
	if nw.closed {
		return nw.w.Close()
	}
	nw.closed = true
	err := nw.finish()
	if cerr := nw.w.Close(); err == nil {
		err = cerr
	}
	return err
}

func (nw *NetCDFWriter) finish() error {
	if err := nw.w.check(); err != nil {
		return err
	}
	scales := make([]ObjRef, len(nw.dims))
	for _, d := range nw.dims {
		var ds *DatasetWriter
		name := d.name
		if d.coord != nil {
			ds = d.coord.DatasetWriter
		} else {
			if nw.w.root.names[d.name] {
				return fmt.Errorf("hdf5: netCDF dimension %q: a variable of that name is not along it (netCDF-C would store it as %s%s)", d.name, netCDFNonCoord, d.name)
			}
			// netCDF-C's dataset for a dimension without a coordinate
			// variable: big-endian float32, no data.
			var err error
			ds, err = nw.w.root.createDataset(d.name, wFloatType(4, true), 4, []uint64{d.len}, &DatasetOptions{Chunk: []uint64{max(1, min(d.len, 1024))}})
			if err != nil {
				return err
			}
			ds.byChunk = true // no chunk: every element reads as the fill value
			if err := ds.Close(); err != nil {
				return err
			}
			name = fmt.Sprintf("%s%10d", netCDFDimOnly+".", d.len)
		}
		scales[d.id] = ds.Ref()
		for _, a := range []struct {
			name string
			v    AttrValue
		}{
			{"CLASS", ncFixedString("DIMENSION_SCALE", 16)},
			{"NAME", ncFixedString(name, 0)},
			{"REFERENCE_LIST", ncRefList(d.refs)},
			{"_Netcdf4Dimid", NumAttr(int32(d.id))},
		} {
			if len(d.refs) == 0 && a.name == "REFERENCE_LIST" {
				continue
			}
			if err := ds.SetAttr(a.name, a.v); err != nil {
				return err
			}
		}
	}
	for _, v := range nw.vars {
		if len(v.dims) == 0 {
			continue
		}
		ids := make([]int32, len(v.dims))
		refs := make([]ObjRef, len(v.dims))
		for i, d := range v.dims {
			ids[i], refs[i] = int32(d.id), scales[d.id]
		}
		if len(v.dims) != 1 || v.dims[0].coord != v {
			if err := v.SetAttr("DIMENSION_LIST", ncDimList(refs)); err != nil {
				return err
			}
		}
		if err := v.SetAttr("_Netcdf4Coordinates", NumsAttr(ids)); err != nil {
			return err
		}
	}
	return nw.w.root.SetAttr("_NCProperties", StringAttr(NetCDFProperties))
}

// Header messages of new-style groups (GroupWriter.TrackOrder).
const (
	wMsgLinkInfo  = 0x0002
	wMsgGroupInfo = 0x000A
	wMsgLink      = 0x0006
)
