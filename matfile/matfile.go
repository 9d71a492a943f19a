// This file holds the reader's entry points and vocabulary: Options and
// their default limits, Warning, the error types, VarInfo and Var, and
// File with Open, OpenFile and Variables. The package documentation is
// in doc.go; Level 5 parsing is in level5.go, v7.3 in v73*.go, writing in
// write*.go.

package matfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/npyflow/npyflow/npyio"
)

// Default limits (see Options).
const (
	DefaultMaxVariableBytes = 2 << 30
	DefaultMaxSparseBytes   = 1 << 30
	DefaultMaxDepth         = 64
	DefaultMaxElements      = 1 << 20
)

// Options configures reading. The zero value (or nil) means the defaults.
type Options struct {
	// Strict makes a variable of a class numpy cannot hold (function
	// handles, Java objects, complex integers), and a variable that cannot
	// be read (damaged, over a limit), an error instead of a warning.
	Strict bool

	// MaxVariableBytes bounds the bytes one variable may take in memory:
	// a Level 5 variable as stored (inflated) in the file, and any array
	// read whole (default DefaultMaxVariableBytes, 2 GiB, the Level 5
	// format's own limit). A zlib stream inflating to more is refused.
	MaxVariableBytes int64

	// MaxSparseBytes bounds the dense size of a sparse matrix (default
	// DefaultMaxSparseBytes, 1 GiB); raise it to densify larger ones.
	MaxSparseBytes int64

	// MaxDepth bounds the nesting of cells and structs (default 64).
	MaxDepth int

	// MaxElements bounds the number of cell and struct elements in one
	// variable, counted over all nesting levels (default 1<<20).
	MaxElements int

	// EmptyShape says how to read the shape v7.3 files store for an empty
	// array (default EmptyShapeAuto, see EmptyShapeOrder).
	EmptyShape EmptyShapeOrder

	// Threads is the number of goroutines that read and decompress the
	// chunks of one read of a v7.3 variable (hdf5.Options.Threads); 0 (or
	// less) means runtime.GOMAXPROCS(0), 1 reads on the calling goroutine.
	// Level 5 files are read on the calling goroutine.
	Threads int

	// Warn, when set, receives each warning as it happens (they are also
	// collected, see File.Warnings).
	Warn func(Warning)
}

func (o *Options) get() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.MaxVariableBytes <= 0 {
		r.MaxVariableBytes = DefaultMaxVariableBytes
	}
	if r.MaxSparseBytes <= 0 {
		r.MaxSparseBytes = DefaultMaxSparseBytes
	}
	if r.MaxDepth <= 0 {
		r.MaxDepth = DefaultMaxDepth
	}
	if r.MaxElements <= 0 {
		r.MaxElements = DefaultMaxElements
	}
	return r
}

// Warning reports a variable (or part of one) that was skipped, or (with
// Kept set) one that was read in a form worth knowing about.
type Warning struct {
	Path  string // MATLAB-style path of the skipped value ("s.f", "c{2}")
	Class string // its MATLAB class ("function_handle", "string", "table" ...), "" when unknown
	Msg   string
	// Err is set when the value could not be read (a damaged variable or
	// object subsystem, a limit of Options): the error Strict mode
	// returns. It is nil for a value of a class numpy cannot hold.
	Err error
	// Kept is set when the value was read all the same: a classdef
	// object read as the struct of its properties, times rounded to their
	// numpy unit. Strict mode does not make it an error.
	Kept bool
}

func (w Warning) String() string {
	if w.Kept {
		return fmt.Sprintf("%s: %s (%s)", w.Path, w.Class, w.Msg)
	}
	if w.Class == "" {
		return fmt.Sprintf("%s: skipped (%s)", w.Path, w.Msg)
	}
	return fmt.Sprintf("%s: skipped %s (%s)", w.Path, w.Class, w.Msg)
}

// UnsupportedError is returned in Strict mode for a value of a class numpy
// cannot hold.
type UnsupportedError struct {
	Warning
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("matfile: %s is of class %s: %s", e.Path, e.Class, e.Msg)
}

// FormatError reports a malformed file.
type FormatError struct {
	File string // file name, "" when unknown
	Path string // variable path, "" at file level
	Off  int64  // offset of the problem in the file (-1 unknown); inside a
	// compressed variable, the offset of its miCOMPRESSED element
	Msg string
}

func (e *FormatError) Error() string {
	var sb strings.Builder
	sb.WriteString("matfile: ")
	if e.File != "" {
		sb.WriteString(e.File)
		sb.WriteString(": ")
	}
	if e.Path != "" {
		sb.WriteString("variable ")
		sb.WriteString(e.Path)
		sb.WriteString(": ")
	}
	sb.WriteString(e.Msg)
	if e.Off >= 0 {
		fmt.Fprintf(&sb, " (at byte %d)", e.Off)
	}
	return sb.String()
}

// LimitError reports a value larger than a limit of Options.
type LimitError struct {
	Path  string
	What  string // "variable", "sparse matrix", "nesting depth" ...
	Size  int64
	Limit int64
	Hint  string // the Options field to raise
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("matfile: variable %s: %s of %d is over the limit of %d (raise Options.%s)", e.Path, e.What, e.Size, e.Limit, e.Hint)
}

// VarInfo describes a top-level variable without reading its data.
type VarInfo struct {
	Name  string
	Class string // MATLAB class: "double", "logical", "char", "cell", "struct", "sparse double", an object's class ...
	// Dims is MATLAB's size (at least two dimensions).
	Dims    []int
	Complex bool
	Sparse  bool
	Global  bool
	// Bytes is the size of the data as MATLAB holds it (elements times
	// element size; for a sparse matrix its nonzeros), -1 when it is not
	// known without reading (cells, structs, objects).
	Bytes int64
	// StoredBytes is the size the variable takes in the file (compressed
	// size for a compressed one), -1 when unknown.
	StoredBytes int64
	// Compression is "zlib" (Level 5 miCOMPRESSED), "deflate" (v7.3 chunk
	// filter) or "" for none.
	Compression string
	// Table describes a table, timetable, containers.Map or dictionary:
	// its row count and columns. Nil for other variables.
	Table *TableInfo
	// Err is set for a variable that cannot be read (damaged, or its
	// objects' subsystem is): it is listed with what is known (its name),
	// and the others still are. In Strict mode Variables returns the
	// error instead.
	Err error
}

// Var is one array of the flattened variables (see File.Walk).
type Var struct {
	// Path is the MATLAB-style name: "x", "s.a", "s(2).a", "c{3}", "s.c{2}.x".
	Path string
	// Class is the MATLAB class of the data ("double", "logical", "char";
	// "cell" or "struct" for the marker of an empty cell or struct).
	Class string
	// Header gives the numpy dtype (native byte order), shape and order
	// (FortranOrder: the data is in MATLAB's column-major order, so
	// a[i, j] is MATLAB's a(i+1, j+1)).
	Header *npyio.Header
	// Sparse is set when the array is a densified sparse matrix.
	Sparse bool
	// Marker is set for an empty cell or struct (or a struct without
	// fields): an empty float64 array of the container's shape (a 0-element
	// shape {0, 0} for a struct with no fields but elements) stands for it.
	Marker bool
	// Valid is nil when every element holds a value. Otherwise it has one
	// entry per element, in the data's order, false where MATLAB has no
	// value: a <missing> string or an <undefined> categorical (whose
	// data is ""), a calendarDuration with a NaN part (whose data is 0).
	Valid []bool
	// Meta is set on an array decoded from a MATLAB object: a datetime's
	// time zone, a categorical's categories, a table's columns.
	Meta *Meta

	data  []byte
	open  func() (io.ReadCloser, error)
	whole func() ([]byte, error)        // reads everything at once (Array), if set
	slab  func() (io.ReadCloser, error) // row-major bands (OpenRowMajor), if set
}

// Open returns a reader of the data: Header.DataSize() bytes in the
// Header's layout (native byte order, column-major), then io.EOF. Read it
// to io.EOF: a compressed stream verifies its checksum at the end. Close
// it when done.
func (v *Var) Open() (io.ReadCloser, error) {
	if v.open != nil {
		return v.open()
	}
	return io.NopCloser(bytes.NewReader(v.data)), nil
}

// ValidRowMajor returns Valid in C order (row after row), the order
// OpenRowMajor delivers the data in; nil when Valid is.
func (v *Var) ValidRowMajor() []bool {
	if v.Valid == nil || !v.Header.FortranOrder {
		return v.Valid
	}
	b := make([]byte, len(v.Valid))
	for i, ok := range v.Valid {
		if ok {
			b[i] = 1
		}
	}
	out := make([]bool, len(b))
	for i, x := range toRows(b, 1, v.Header.Shape) {
		out[i] = x != 0
	}
	return out
}

// Array reads the whole data into memory.
func (v *Var) Array() (*npyio.Array, error) {
	if v.open == nil {
		return &npyio.Array{Header: v.Header, DType: v.Header.DType, Data: v.data}, nil
	}
	if v.whole != nil {
		data, err := v.whole()
		if err != nil {
			return nil, err
		}
		if int64(len(data)) != v.Header.DataSize() {
			return nil, readErr(v.Path, fmt.Errorf("%d bytes of data for %d", len(data), v.Header.DataSize()))
		}
		return &npyio.Array{Header: v.Header, DType: v.Header.DType, Data: data}, nil
	}
	rc, err := v.open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	n := v.Header.DataSize()
	buf := make([]byte, n)
	if _, err := io.ReadFull(rc, buf); err != nil {
		return nil, readErr(v.Path, err)
	}
	// Read to the end: a stream checks itself there (zlib's checksum).
	var one [1]byte
	if k, err := rc.Read(one[:]); k != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errors.New("more data than the shape holds")
		}
		return nil, readErr(v.Path, err)
	}
	return &npyio.Array{Header: v.Header, DType: v.Header.DType, Data: buf}, nil
}

func readErr(path string, err error) error {
	var fe *FormatError
	var le *LimitError
	if errors.As(err, &fe) || errors.As(err, &le) {
		return err
	}
	return fmt.Errorf("matfile: reading %s: %w", path, err)
}

// File is an open MAT-file.
type File struct {
	name    string
	r       io.ReaderAt
	size    int64
	closer  io.Closer
	opts    Options
	version string
	text    string

	l5  *level5
	v73 *v73File

	warnings []Warning

	// The object subsystem, read on first use.
	ssDone bool
	ss     *subsystem
	ssErr  error
	od     *objDecoder
	quiet  int // > 0: warnings are not recorded (describing variables)
}

const hdf5Magic = "\x89HDF\r\n\x1a\n"

// ErrNotMAT is returned (wrapped) for a file that is not a MAT-file.
var ErrNotMAT = errors.New("not a MAT-file")

// Open opens a MAT-file (Level 5 or v7.3) of size bytes read through r.
func Open(r io.ReaderAt, size int64, opts *Options) (*File, error) {
	return open(r, size, "", opts)
}

// OpenFile opens the named MAT-file. Close the File when done.
func OpenFile(name string, opts *Options) (*File, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	f, err := open(fh, st.Size(), name, opts)
	if err != nil {
		fh.Close()
		return nil, err
	}
	f.closer = fh
	return f, nil
}

func open(r io.ReaderAt, size int64, name string, opts *Options) (*File, error) {
	f := &File{name: name, r: r, size: size, opts: opts.get()}
	if size < HeaderSize {
		return nil, f.errf(0, "%v: %d bytes, shorter than the 128-byte header", ErrNotMAT, size)
	}
	hdr := make([]byte, HeaderSize)
	if _, err := r.ReadAt(hdr, 0); err != nil {
		return nil, f.errf(0, "reading the header: %v", err)
	}
	if string(hdr[:8]) == hdf5Magic {
		// An HDF5 file without MATLAB's user block (hdf5storage without
		// matlab_compatible, h5py): read with the v7.3 conventions.
		f.version = "7.3"
		v, err := openV73(f)
		if err != nil {
			return nil, err
		}
		f.v73 = v
		return f, nil
	}
	f.text = strings.TrimRight(string(hdr[:HeaderTextSize]), " \x00")
	var ver uint16
	switch string(hdr[126:128]) {
	case "IM":
		ver = uint16(hdr[124]) | uint16(hdr[125])<<8
	case "MI":
		ver = uint16(hdr[125]) | uint16(hdr[124])<<8
	default:
		if bytes.HasPrefix(hdr, []byte("MATLAB")) {
			return nil, f.errf(126, "bad endian indicator %q (want \"IM\" or \"MI\")", hdr[126:128])
		}
		return nil, f.errf(0, "%v: no MATLAB header", ErrNotMAT)
	}
	switch ver {
	case Level5Version:
		f.version = "5"
		l, err := openLevel5(f, hdr)
		if err != nil {
			return nil, err
		}
		f.l5 = l
	case V73Version:
		f.version = "7.3"
		v, err := openV73(f)
		if err != nil {
			return nil, err
		}
		f.v73 = v
	default:
		return nil, f.errf(124, "unknown MAT-file version 0x%04x", ver)
	}
	return f, nil
}

func (f *File) errf(off int64, format string, args ...any) error {
	return &FormatError{File: f.name, Off: off, Msg: fmt.Sprintf(format, args...)}
}

// Close closes the file opened by OpenFile (a no-op after Open).
func (f *File) Close() error {
	if f.closer != nil {
		err := f.closer.Close()
		f.closer = nil
		return err
	}
	return nil
}

// Version is "5" for a Level 5 file (MATLAB's -v6 and -v7, whether or
// not variables are compressed) or "7.3" for an HDF5-based file.
func (f *File) Version() string { return f.version }

// SaveFormat names the format as MATLAB's save option does: "-v6" (Level
// 5, no compressed variable), "-v7" (Level 5 with compressed variables) or
// "-v7.3".
func (f *File) SaveFormat() string {
	if f.v73 != nil {
		return "-v7.3"
	}
	for _, e := range f.l5.elems {
		if e.typ == MiCOMPRESSED {
			return "-v7"
		}
	}
	return "-v6"
}

// Description is the header text ("MATLAB 5.0 MAT-file, Platform: ...").
func (f *File) Description() string { return f.text }

// Warnings returns the warnings of the reads so far.
func (f *File) Warnings() []Warning { return f.warnings }

// warn records a skipped value, or returns the Strict error.
func (f *File) warn(path, class, msg string) error {
	if f.quiet > 0 {
		return nil
	}
	w := Warning{Path: path, Class: class, Msg: msg}
	if f.opts.Strict {
		return &UnsupportedError{w}
	}
	f.warnings = append(f.warnings, w)
	if f.opts.Warn != nil {
		f.opts.Warn(w)
	}
	return nil
}

// warnErr records a value that could not be read (damaged, or over a
// limit) as a warning carrying err, or returns err in Strict mode.
func (f *File) warnErr(path, class string, err error) error {
	if f.quiet > 0 {
		return nil
	}
	if f.opts.Strict {
		return err
	}
	msg := strings.TrimPrefix(err.Error(), "matfile: ")
	if f.name != "" {
		msg = strings.TrimPrefix(msg, f.name+": ")
	}
	msg = strings.TrimPrefix(msg, "variable "+path+": ")
	w := Warning{Path: path, Class: class, Msg: msg, Err: err}
	f.warnings = append(f.warnings, w)
	if f.opts.Warn != nil {
		f.opts.Warn(w)
	}
	return nil
}

// note records a value read in a form worth knowing about (a Warning
// with Kept set), in Strict mode too.
func (f *File) note(path, class, msg string) {
	if f.quiet > 0 {
		return
	}
	w := Warning{Path: path, Class: class, Msg: msg, Kept: true}
	f.warnings = append(f.warnings, w)
	if f.opts.Warn != nil {
		f.opts.Warn(w)
	}
}

// Variables lists the top-level variables without reading their data.
func (f *File) Variables() ([]VarInfo, error) {
	if f.v73 != nil {
		return f.v73.variables()
	}
	return f.l5.variables()
}

// Walk calls fn for every array of every variable, in file order, with
// structs and cells flattened into MATLAB-style paths (see Var.Path).
// MATLAB objects are decoded (see the package documentation): a string,
// datetime or categorical array is one Var (with Valid and Meta), a
// table, timetable, containers.Map or dictionary one Var of records of
// shape (rows,) in C order (Meta.Table describes its columns), a classdef
// object the Vars of its properties ("obj.prop"). Values numpy cannot
// hold are skipped with a warning, and so is a variable that cannot be
// read (each variable is read on its own); in Strict mode either is an
// error. An error from fn stops the walk and is returned.
//
// A Level 5 variable is read whole (bounded by Options.MaxVariableBytes);
// a v7.3 dataset is read when its Var is opened, in bounded batches.
func (f *File) Walk(fn func(path string, v *Var) error) error {
	return f.WalkVariables(nil, fn)
}

// WalkVariables is Walk restricted to the named top-level variables (all
// when names is empty). A name that is not in the file is an error.
func (f *File) WalkVariables(names []string, fn func(path string, v *Var) error) error {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = false
	}
	sel := func(name string) bool {
		if len(names) == 0 {
			return true
		}
		if _, ok := want[name]; ok {
			want[name] = true
			return true
		}
		return false
	}
	var err error
	if f.v73 != nil {
		err = f.v73.walk(sel, fn)
	} else {
		err = f.l5.walk(sel, fn)
	}
	if err != nil {
		return err
	}
	var missing []string
	for _, n := range names {
		if !want[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("matfile: %s: no variable %s", f.displayName(), strings.Join(missing, ", "))
	}
	return nil
}

func (f *File) displayName() string {
	if f.name == "" {
		return "MAT-file"
	}
	return f.name
}

// ReadArrays reads every array of the named MAT-file into memory, named by
// their MATLAB-style paths, with the warnings of skipped values.
func ReadArrays(name string, opts *Options) ([]npyio.NamedArray, []Warning, error) {
	f, err := OpenFile(name, opts)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var out []npyio.NamedArray
	err = f.Walk(func(path string, v *Var) error {
		a, err := v.Array()
		if err != nil {
			return err
		}
		out = append(out, npyio.NamedArray{Key: path, Array: a})
		return nil
	})
	if err != nil {
		return nil, f.Warnings(), err
	}
	return out, f.Warnings(), nil
}
