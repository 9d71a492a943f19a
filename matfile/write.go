package matfile

// Writing MAT-files: the public API (Writer, WriteOptions, VarWriter) and
// the mapping from numpy dtypes to MATLAB classes shared by the Level 5
// (write_level5.go) and v7.3 (write_v73.go) encoders. What each version
// writes, the mapping and the limits are documented in doc.go's Writing
// section.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/npyflow/npyflow/npyio"
)

// WriteOptions configures a Writer. The zero value writes v7.3 with
// compression.
type WriteOptions struct {
	// Version is the MAT-file version, as MATLAB's save flags name it:
	// "7.3" (HDF5, the default when empty), "7" (Level 5, each variable
	// zlib-compressed) or "6" (Level 5, uncompressed).
	Version string
	// NoCompression turns compression off (the command line's
	// --compression none): v7.3 datasets are chunked without filters, and
	// a v7 file is then the same as v6 (Level 5 does not record which).
	// The zero value compresses v7.3 and v7; v6 is never compressed.
	NoCompression bool
	// RenameInvalid renames variables and struct fields whose names are
	// not valid MATLAB identifiers instead of refusing them (see
	// ValidName and MakeValidName). Each rename is passed to OnRename and
	// listed by Writer.Renames.
	RenameInvalid bool
	// OnRename, if set, is called for each rename RenameInvalid makes.
	OnRename func(r Rename)
	// Strict refuses conversions that are not exact: datetime64 and
	// timedelta64 (written as double seconds otherwise).
	Strict bool
	// Created is the creation time written in the file header; zero means
	// now. Set it for reproducible output.
	Created time.Time
	// TempDir is where variables of unknown row count are spooled, and
	// where large v7 variables (and v6 char data) are assembled before
	// they are written (see CreateVariable); empty means os.TempDir().
	TempDir string
	// Threads is the number of goroutines compressing the chunks of v7.3
	// datasets; 0 means runtime.GOMAXPROCS(0). The file is the same
	// whatever the number.
	Threads int
}

// Rename records a name RenameInvalid changed. Old and New are full paths
// ("x", "s.field") for fields of structured arrays.
type Rename struct {
	Old, New string
}

// MaxNameLength is the longest MATLAB identifier (namelengthmax).
const MaxNameLength = 63

// wKeywords are MATLAB's keywords (iskeyword), which isvarname refuses
// as variable and field names.
var wKeywords = map[string]bool{
	"break": true, "case": true, "catch": true, "classdef": true, "continue": true,
	"else": true, "elseif": true, "end": true, "for": true, "function": true,
	"global": true, "if": true, "otherwise": true, "parfor": true, "persistent": true,
	"return": true, "spmd": true, "switch": true, "try": true, "while": true,
}

// ValidName reports whether name is a valid MATLAB identifier (what
// isvarname accepts): an ASCII letter first, then letters, digits and
// underscores, at most 63 in all, and not a keyword such as "end".
func ValidName(name string) bool {
	if name == "" || len(name) > MaxNameLength || wKeywords[name] {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '_'):
		default:
			return false
		}
	}
	return true
}

// MakeValidName returns a valid MATLAB identifier for name, the way
// MATLAB's matlab.lang.makeValidName does for ASCII names: every invalid
// character becomes '_', a name not starting with a letter gets the prefix
// 'x', a keyword becomes x followed by it capitalized ("end" -> "xEnd"),
// and the result is cut to 63 characters. An empty name becomes "x".
func MakeValidName(name string) string {
	if ValidName(name) {
		return name
	}
	if wKeywords[name] {
		return "x" + strings.ToUpper(name[:1]) + name[1:]
	}
	var sb strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			sb.WriteRune(r)
		default:
			sb.WriteByte('_')
		}
	}
	s := sb.String()
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		s = "x" + s
	}
	if len(s) > MaxNameLength {
		s = s[:MaxNameLength]
	}
	return s
}

// InvalidNamesError lists the names that are not valid MATLAB identifiers.
type InvalidNamesError struct {
	Names []string // full paths ("x", "s.field"), in the order met
}

func (e *InvalidNamesError) Error() string {
	q := make([]string, len(e.Names))
	for i, n := range e.Names {
		q[i] = strconv.Quote(n)
	}
	return fmt.Sprintf("matfile: %d name(s) are not valid MATLAB identifiers (letter first, then letters, digits or '_', at most %d, no keyword): %s; rename them or use --rename-invalid",
		len(e.Names), MaxNameLength, strings.Join(q, ", "))
}

// CheckNames checks a whole set of variable names at once (the members of
// an npz, say) before anything is written. With rename false it returns an
// *InvalidNamesError listing every invalid name. With rename true it
// returns the names to use, in order, and the renames made; renamed names
// never collide with each other or with the valid names (a suffix _2, _3
// ... is added).
func CheckNames(names []string, rename bool) ([]string, []Rename, error) {
	var bad []string
	taken := make(map[string]bool, len(names))
	for _, n := range names {
		if ValidName(n) {
			taken[n] = true
		} else {
			bad = append(bad, n)
		}
	}
	if len(bad) == 0 {
		return append([]string(nil), names...), nil, nil
	}
	if !rename {
		return nil, nil, &InvalidNamesError{Names: bad}
	}
	out := make([]string, len(names))
	var renames []Rename
	for i, n := range names {
		if ValidName(n) {
			out[i] = n
			continue
		}
		nn := wUnique(MakeValidName(n), taken)
		taken[nn] = true
		out[i] = nn
		renames = append(renames, Rename{Old: n, New: nn})
	}
	return out, renames, nil
}

// wUnique returns base, or base with a suffix _2, _3 ... (cut to stay
// within 63 characters) when base is taken.
func wUnique(base string, taken map[string]bool) string {
	if !taken[base] {
		return base
	}
	for i := 2; ; i++ {
		suf := "_" + strconv.Itoa(i)
		b := base
		if len(b)+len(suf) > MaxNameLength {
			b = b[:MaxNameLength-len(suf)]
		}
		if !taken[b+suf] {
			return b + suf
		}
	}
}

// VarWriter takes the data of one variable created by
// Writer.CreateVariable: whole rows (along axis 0) in C order, in the
// native byte order of the header's dtype (as npyio.Reader.Next delivers
// them), in one or more Write calls. Close checks that every row arrived
// and finishes the variable.
type VarWriter interface {
	Write(rows []byte) error
	Close() error
}

// Writer writes variables to a MAT-file, one after the other. Create it
// with NewWriter, add variables with WriteArray or CreateVariable, and
// Close it. A Writer is not safe for concurrent use. After an error the
// file is unusable; remove it (npyflow writes through atomicfile, so a
// failed conversion leaves no output).
type Writer struct {
	w       io.WriteSeeker
	opts    WriteOptions
	version string
	names   map[string]bool
	renames []Rename
	cur     VarWriter // the open variable, nil if none
	err     error     // sticky
	closed  bool

	l5  *wLevel5
	v73 *wV73
}

// ErrClosed is returned when a closed Writer is used.
var ErrClosed = errors.New("matfile: writer is closed")

// NewWriter starts a MAT-file on w and writes its header. w must be
// positioned at its start (offset 0).
func NewWriter(w io.WriteSeeker, opts *WriteOptions) (*Writer, error) {
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	if o.Created.IsZero() {
		o.Created = time.Now()
	}
	wr := &Writer{w: w, opts: o, names: make(map[string]bool)}
	switch o.Version {
	case "", "7.3":
		wr.version = "7.3"
		v, err := wNewV73(w, &wr.opts)
		if err != nil {
			return nil, err
		}
		wr.v73 = v
	case "7", "6":
		wr.version = o.Version
		l, err := wNewLevel5(w, &wr.opts, o.Version == "7" && !o.NoCompression)
		if err != nil {
			return nil, err
		}
		wr.l5 = l
	default:
		return nil, fmt.Errorf("matfile: unknown MAT-file version %q (want 7.3, 7 or 6)", o.Version)
	}
	return wr, nil
}

// Version returns the MAT-file version being written: "7.3", "7" or "6".
func (wr *Writer) Version() string { return wr.version }

// Renames lists the renames RenameInvalid made so far.
func (wr *Writer) Renames() []Rename { return append([]Rename(nil), wr.renames...) }

// wVersionString is npyflow's version for the header text.
func wVersionString() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// wHeaderText returns the 116-byte descriptive text of a MAT-file header.
func wHeaderText(level string, created time.Time, hdf5 bool) []byte {
	s := fmt.Sprintf("MATLAB %s MAT-file, Platform: npyflow %s, Created on: %s",
		level, wVersionString(), created.UTC().Format("Mon Jan _2 15:04:05 2006"))
	if hdf5 {
		s += " HDF5 schema 1.00 ."
	}
	b := []byte(s)
	if len(b) > 116 {
		b = b[:116]
	}
	for len(b) < 116 {
		b = append(b, ' ')
	}
	return b
}

func (wr *Writer) usable() error {
	if wr.closed {
		return ErrClosed
	}
	if wr.err != nil {
		return wr.err
	}
	if wr.cur != nil {
		return errors.New("matfile: the previous variable is still open (Close its VarWriter first)")
	}
	return nil
}

// varName checks (or, with RenameInvalid, fixes) a variable name and
// reserves it.
func (wr *Writer) varName(name string) (string, error) {
	n := name
	if !ValidName(name) {
		if !wr.opts.RenameInvalid {
			return "", &InvalidNamesError{Names: []string{name}}
		}
		n = wUnique(MakeValidName(name), wr.names)
		wr.rename(Rename{Old: name, New: n})
	}
	if wr.names[n] {
		return "", fmt.Errorf("matfile: variable %q written twice", n)
	}
	return n, nil
}

func (wr *Writer) rename(r Rename) {
	wr.renames = append(wr.renames, r)
	if wr.opts.OnRename != nil {
		wr.opts.OnRename(r)
	}
}

// WriteArray writes a whole array as the variable name.
func (wr *Writer) WriteArray(name string, a *npyio.Array) error {
	if a == nil || a.Header == nil {
		return fmt.Errorf("matfile: variable %q: no array", name)
	}
	h := *a.Header
	h.DType = a.DType
	h.FortranOrder = false
	if a.Header.FortranOrder && len(h.Shape) >= 2 && wPlainNumeric(a.DType) {
		// Column-major already: MATLAB's layout, no transposition.
		vw, err := wr.createVariable(name, &h, nil)
		if err != nil {
			return err
		}
		hv := vw.(*wVarHandle)
		if err := hv.vw.(wColumnMajor).writeColumnMajor(a.Data); err != nil {
			wr.err = err
			return err
		}
		return vw.Close()
	}
	data := a.CData()
	vw, err := wr.createVariable(name, &h, data)
	if err != nil {
		return err
	}
	if err := vw.Write(data); err != nil {
		return err
	}
	return vw.Close()
}

// wColumnMajor is implemented by the formats' variables: take the whole
// data of a single-leaf variable already in column-major order.
type wColumnMajor interface {
	writeColumnMajor(data []byte) error
}

// wPlainNumeric reports whether dt is written byte for byte (no
// conversion): ints, float32/64, complex64/128.
func wPlainNumeric(dt *npyio.DType) bool {
	switch dt.Kind {
	case npyio.Int, npyio.Uint:
		return true
	case npyio.Float:
		return dt.Size == 4 || dt.Size == 8
	case npyio.Complex:
		return dt.Size == 8 || dt.Size == 16
	}
	return false
}

// CreateVariable starts the variable name of the shape and dtype in h
// (h.FortranOrder is ignored: the VarWriter takes C-order rows) and
// returns the VarWriter that takes its data.
//
// Memory: v7.3 keeps one band of chunks (the rows of one chunk along axis
// 0, all columns) at a time; v6 writes each batch in place (seeking); v7
// compresses each variable as one zlib stream of its column-major data
// (and v6 stores char data in a type that depends on all of it), so such
// a variable is assembled whole first: in memory up to 64 MiB, else in a
// temporary file in TempDir through a band of at most 16 MiB (or one row,
// when a row is larger), read back in 16 MiB tiles. Level 5
// variables are limited to 2 GiB (as in MATLAB).
//
// h.Shape[0] may be -1 when the number of rows is not known in advance
// (a job's output): MATLAB's column-major layout needs it before the
// first column, so the rows are spooled to a temporary file in TempDir
// and written when the VarWriter is closed. Memory stays bounded as
// above; the disk holds one more copy of the variable meanwhile. Types
// and names are checked at once.
//
// A variable holding U strings is spooled the same way, whatever its row
// count: MATLAB stores a character outside the BMP as a UTF-16 surrogate
// pair, so the char array's last dimension (UTF-16 code units) is only
// known once every string has been seen.
func (wr *Writer) CreateVariable(name string, h *npyio.Header) (VarWriter, error) {
	if h != nil && (len(h.Shape) > 0 && h.Shape[0] == -1 || h.DType != nil && wHasUnicode(h.DType)) {
		return wr.createSpooled(name, h)
	}
	return wr.createVariable(name, h, nil)
}

func (wr *Writer) createVariable(name string, h *npyio.Header, whole []byte) (VarWriter, error) {
	if err := wr.usable(); err != nil {
		return nil, err
	}
	if h == nil || h.DType == nil {
		return nil, fmt.Errorf("matfile: variable %q: no header", name)
	}
	n, err := wr.varName(name)
	if err != nil {
		return nil, err
	}
	p, err := wr.plan(n, h, whole)
	if err != nil {
		return nil, err
	}
	var vw VarWriter
	if wr.l5 != nil {
		vw, err = wr.l5.create(p)
	} else {
		vw, err = wr.v73.create(p)
	}
	if err != nil {
		wr.err = err
		return nil, err
	}
	wr.names[n] = true
	wr.cur = vw
	return &wVarHandle{wr: wr, vw: vw}, nil
}

// wVarHandle wraps a format's VarWriter so errors become sticky and the
// Writer knows when the variable is done.
type wVarHandle struct {
	wr   *Writer
	vw   VarWriter
	done bool
}

func (v *wVarHandle) Write(rows []byte) error {
	if v.done {
		return errors.New("matfile: write to a closed variable")
	}
	if v.wr.err != nil {
		return v.wr.err
	}
	if err := v.vw.Write(rows); err != nil {
		v.wr.err = err
		return err
	}
	return nil
}

func (v *wVarHandle) Close() error {
	if v.done {
		return nil
	}
	v.done = true
	v.wr.cur = nil
	if v.wr.err != nil {
		return v.wr.err
	}
	if err := v.vw.Close(); err != nil {
		v.wr.err = err
		return err
	}
	return nil
}

// Close finishes the file. It fails if a variable is still open.
func (wr *Writer) Close() error {
	if wr.closed {
		return nil
	}
	if wr.cur != nil {
		wr.err = errors.New("matfile: Close with a variable still open")
	}
	wr.closed = true
	if wr.err != nil {
		return wr.err
	}
	if wr.v73 != nil {
		return wr.v73.close()
	}
	return wr.l5.close()
}

// ----- the plan: how a numpy array maps to MATLAB variables -----

// wClass is a MATLAB class the writer produces.
type wClass uint8

const (
	wDouble wClass = iota
	wSingle
	wInt8
	wUint8
	wInt16
	wUint16
	wInt32
	wUint32
	wInt64
	wUint64
	wLogical
	wChar
	wStruct
)

var wClassNames = [...]string{"double", "single", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "logical", "char", "struct"}

func (c wClass) String() string { return wClassNames[c] }

// wConv is how one source element becomes destination units.
type wConv uint8

const (
	wCopy     wConv = iota // same bytes (size 1, 2, 4, 8 or 16)
	wBool                  // nonzero -> 1
	wHalf                  // float16 -> float32
	wTime                  // datetime64/timedelta64 count -> float64 seconds
	wUnicode               // U<n>: n uint32 code points -> UTF-16 units held as uint32 (trailing NULs -> spaces)
	wBytesStr              // S<n>: n ASCII bytes -> n uint32 units (trailing NULs -> spaces)
)

// wLeaf is one MATLAB numeric/char/logical array: a whole non-struct
// variable, or one field of a structured one.
type wLeaf struct {
	path    string // "x", "s.a.b": for messages
	name    string // the variable or field name written
	class   wClass
	complex bool
	conv    wConv
	src     *npyio.DType // the scalar source type (native order)
	off     int          // byte offset of the field in the record
	cnt     int          // source elements per record (subarray count)
	srcSize int          // bytes per source element
	units   int          // destination units per source element (chars; else 1)
	cps     int          // wUnicode: code points per string (units exceeds it by the surrogate pairs)
	pairs   bool         // wUnicode: some character is outside the BMP (UTF-16 pairs)
	usize   int          // bytes per destination unit
	tnum    int64        // wTime: seconds per count are tnum/tden (mult included);
	tden    int64        // tden 0 for calendar units (M, Y)
	inner   []int        // C shape after axis 0: S[1:] + sub (+ [units] for char)
	dims    []int        // MATLAB size (at least 2-D)
	count   int64        // destination units in all (product of dims)
}

// wNode is a variable or struct field: a leaf, or a struct of fields.
type wNode struct {
	name   string
	path   string
	leaf   *wLeaf
	fields []*wNode
}

// wPlan is a whole variable.
type wPlan struct {
	name    string
	root    *wNode
	leaves  []*wLeaf
	rows    int64  // rows along axis 0 (1 for a 0-d array)
	rowSize int64  // bytes per row of source data
	recSize int    // bytes per record (dtype size)
	recs    int    // records per row (product of S[1:])
	shape   []int  // numpy shape
	whole   []byte // the whole data in C order, when known up front
}

// UnsupportedTypeError is a variable (or field) whose type MATLAB cannot
// hold.
type UnsupportedTypeError struct {
	Path   string // variable or "var.field"
	DType  string
	Reason string
}

func (e *UnsupportedTypeError) Error() string {
	return fmt.Sprintf("matfile: variable %q: dtype %s cannot be written to a MAT-file: %s", e.Path, e.DType, e.Reason)
}

// plan maps a header to the variable's leaves. whole, when not nil, is
// the complete array's data in C order (v7.3 looks at its characters).
func (wr *Writer) plan(name string, h *npyio.Header, whole []byte) (*wPlan, error) {
	dt := h.DType.Native()
	// Sizes are checked so no product below can overflow: the whole
	// array (with strings widened to 4-byte units) within 2^62 bytes.
	total := int64(max(dt.Size, 1)) * 4
	for _, d := range h.Shape {
		if d < 0 {
			return nil, fmt.Errorf("matfile: variable %q: negative dimension in shape %v", name, h.Shape)
		}
		if d > 0 && total > (1<<62)/int64(d) {
			return nil, fmt.Errorf("matfile: variable %q: shape %v is too large", name, h.Shape)
		}
		if d > 0 {
			total *= int64(d)
		}
	}
	p := &wPlan{name: name, shape: append([]int(nil), h.Shape...), recSize: dt.Size, recs: 1, rows: 1}
	if whole != nil && int64(len(whole)) == h.DataSize() {
		p.whole = whole
	}
	var rest []int
	if len(h.Shape) > 0 {
		p.rows = int64(h.Shape[0])
		rest = h.Shape[1:]
	}
	for _, d := range rest {
		p.recs *= d
	}
	p.rowSize = int64(p.recs) * int64(dt.Size)
	var badNames []string
	root, err := wr.planNode(p, name, name, dt, 0, nil, rest, true, &badNames)
	if err != nil {
		return nil, err
	}
	if len(badNames) > 0 {
		return nil, &InvalidNamesError{Names: badNames}
	}
	p.root = root
	if p.whole != nil {
		for _, l := range p.leaves {
			l.widen(l.astral(p.whole, p.rows, p))
		}
	}
	return p, nil
}

// astral returns, for a leaf of U strings, how many UTF-16 code units
// the widest string of the n rows (C order) of rows needs beyond the
// dtype's width in characters: MATLAB stores a character outside the BMP
// as a surrogate pair, so a char array holding one is that much wider
// (trailing NULs, which numpy does not count, take no room), or -1 when
// all the strings are in the BMP (or the leaf holds none).
func (l *wLeaf) astral(rows []byte, n int64, p *wPlan) int {
	if l.conv != wUnicode {
		return -1
	}
	m := -1
	for r := int64(0); r < n; r++ {
		for e := 0; e < p.recs; e++ {
			for s := 0; s < l.cnt; s++ {
				pos := r*p.rowSize + int64(e*p.recSize+l.off+s*l.srcSize)
				units, end := 0, 0
				for u := 0; u < l.cps; u++ {
					c := wNE.Uint32(rows[pos+int64(4*u):])
					if c > 0xFFFF {
						units += 2
						m = max(m, 0)
					} else {
						units++
					}
					if c != 0 {
						end = units
					}
				}
				if m >= 0 {
					m = max(m, end-l.cps)
				}
			}
		}
	}
	return m
}

// widen makes the strings of a char leaf extra UTF-16 units wider than
// the dtype's characters (see astral; -1: no pairs at all): the last
// MATLAB dimension, which counts code units, grows by extra.
func (l *wLeaf) widen(extra int) {
	if extra < 0 || l.conv != wUnicode {
		return
	}
	l.pairs = true
	l.units = l.cps + extra
	l.inner[len(l.inner)-1] = l.units
	l.dims[len(l.dims)-1] = l.units
	l.count = 1
	for _, d := range l.dims {
		l.count *= int64(d)
	}
}

func (wr *Writer) planNode(p *wPlan, name, path string, dt *npyio.DType, off int, sub, rest []int, top bool, bad *[]string) (*wNode, error) {
	n := &wNode{name: name, path: path}
	if dt.Kind == npyio.Struct {
		if len(dt.Fields) == 0 {
			return nil, &UnsupportedTypeError{Path: path, DType: dt.String(), Reason: "a structured type without fields"}
		}
		if len(sub) > 0 {
			return nil, &UnsupportedTypeError{Path: path, DType: dt.String(), Reason: "a structured field with a subarray shape (it would be a struct array)"}
		}
		taken := make(map[string]bool)
		for _, f := range dt.Fields {
			if ValidName(f.Name) {
				taken[f.Name] = true
			}
		}
		for i := range dt.Fields {
			f := &dt.Fields[i]
			fname := f.Name
			if !ValidName(fname) {
				if !wr.opts.RenameInvalid {
					*bad = append(*bad, path+"."+fname)
					continue
				}
				fname = wUnique(MakeValidName(fname), taken)
				taken[fname] = true
				wr.rename(Rename{Old: path + "." + f.Name, New: path + "." + fname})
			}
			c, err := wr.planNode(p, fname, path+"."+fname, f.Type, off+f.Offset, f.Shape, rest, false, bad)
			if err != nil {
				return nil, err
			}
			if c != nil {
				n.fields = append(n.fields, c)
			}
		}
		return n, nil
	}
	l := &wLeaf{path: path, name: name, src: dt, off: off, cnt: 1, srcSize: dt.Size, units: 1}
	for _, d := range sub {
		l.cnt *= d
	}
	if err := wr.leafType(l, dt); err != nil {
		return nil, err
	}
	l.inner = append(append([]int(nil), rest...), sub...)
	var full []int
	if len(p.shape) > 0 {
		full = append([]int{p.shape[0]}, l.inner...)
	} else {
		full = append([]int(nil), l.inner...)
	}
	if l.class == wChar {
		l.inner = append(l.inner, l.units)
		full = append(full, l.units)
	}
	switch len(full) {
	case 0:
		l.dims = []int{1, 1}
	case 1:
		// A 1-D array is a row at the top and a column in a struct; a
		// single string (its only dimension being the characters) is a
		// row everywhere.
		if top || l.class == wChar {
			l.dims = []int{1, full[0]}
		} else {
			l.dims = []int{full[0], 1}
		}
	default:
		l.dims = full
	}
	l.count = 1
	for _, d := range l.dims {
		l.count *= int64(d)
	}
	n.leaf = l
	p.leaves = append(p.leaves, l)
	return n, nil
}

// leafType sets class, complex, conversion and unit size for a scalar
// dtype.
func (wr *Writer) leafType(l *wLeaf, dt *npyio.DType) error {
	bad := func(why string) error {
		return &UnsupportedTypeError{Path: l.path, DType: dt.String(), Reason: why}
	}
	l.usize = dt.Size
	switch dt.Kind {
	case npyio.Bool:
		l.class, l.conv = wLogical, wBool
	case npyio.Int, npyio.Uint:
		i := map[int]int{1: 0, 2: 1, 4: 2, 8: 3}
		k, ok := i[dt.Size]
		if !ok {
			return bad("no MATLAB integer class of this size")
		}
		l.class = wClass(int(wInt8) + 2*k)
		if dt.Kind == npyio.Uint {
			l.class++
		}
	case npyio.Float:
		switch dt.Size {
		case 2:
			l.class, l.conv, l.usize = wSingle, wHalf, 4
		case 4:
			l.class = wSingle
		case 8:
			l.class = wDouble
		default:
			return bad("MATLAB has no floating-point class of this size")
		}
	case npyio.Complex:
		switch dt.Size {
		case 8:
			l.class = wSingle
		case 16:
			l.class = wDouble
		default:
			return bad("MATLAB has no complex class of this size")
		}
		l.complex = true
	case npyio.Unicode:
		l.class, l.conv, l.units, l.cps, l.usize = wChar, wUnicode, dt.Size/4, dt.Size/4, 4
	case npyio.Bytes:
		l.class, l.conv, l.units, l.usize = wChar, wBytesStr, dt.Size, 4
	case npyio.Datetime, npyio.Timedelta:
		if wr.opts.Strict {
			return bad("datetime64 and timedelta64 are written as double seconds, which is not exact (Strict)")
		}
		num, den, ok := wTimeRatio(dt)
		if !ok && !(dt.Kind == npyio.Datetime && (dt.Unit == "M" || dt.Unit == "Y")) {
			return bad("unit [" + dt.Unit + "] has no fixed length in seconds")
		}
		// Calendar units (M, Y) keep den 0: converted value by value.
		l.class, l.conv, l.usize, l.tnum, l.tden = wDouble, wTime, 8, num, den
	case npyio.Void:
		return bad("raw void data has no MATLAB class")
	case npyio.Object:
		return bad("Python objects have no MATLAB class")
	default:
		return bad("no MATLAB class for this kind")
	}
	return nil
}

// wUnitSeconds is the length in seconds of each fixed-length datetime
// unit: seconds per unit for s and coarser, or the negated power of ten
// of the unit's fraction of a second (-3 for ms).
var wUnitSeconds = map[string]int{
	"W": 604800, "D": 86400, "h": 3600, "m": 60, "s": 1,
	"ms": -3, "us": -6, "ns": -9, "ps": -12, "fs": -15, "as": -18,
}

// wTimeRatio is the length in seconds of one count of dt (a datetime64 or
// timedelta64 of a fixed-length unit, its multiplier included) as the
// reduced fraction num/den: den is 1 for seconds and coarser, a power of
// ten (or a divisor of one, for a multiplier such as 10ms: 1/100) below.
// ok is false for calendar and generic units.
func wTimeRatio(dt *npyio.DType) (num, den int64, ok bool) {
	u, ok := wUnitSeconds[dt.Unit]
	if !ok || dt.UnitMult < 1 {
		return 0, 0, false
	}
	if u > 0 {
		if dt.UnitMult > math.MaxInt64/int64(u) {
			return 0, 0, false
		}
		return dt.UnitMult * int64(u), 1, true
	}
	den = 1
	for range -u {
		den *= 10
	}
	g := gcd64(dt.UnitMult, den)
	return dt.UnitMult / g, den / g, true
}

func gcd64(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
