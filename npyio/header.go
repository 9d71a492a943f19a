package npyio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Magic is the prefix of every .npy file.
const Magic = "\x93NUMPY"

// DefaultMaxHeaderSize is the default limit on the header length. numpy's
// own reader stops at 10000 characters, below what numpy writes for records
// with a few hundred fields; the parser here is linear-time with bounded
// nesting, so a much larger limit is safe.
const DefaultMaxHeaderSize = 16 << 20

// growthAxisDigits is numpy's GROWTH_AXIS_MAX_DIGITS: room left in a header
// so the growth axis (shape[0], or shape[-1] in Fortran order) can be
// rewritten in place with up to this many digits.
const growthAxisDigits = 21

// headerAlign is numpy's ARRAY_ALIGN: the data offset is a multiple of it.
const headerAlign = 64

// Header is the parsed header of an .npy file.
type Header struct {
	Major, Minor byte   // format version: 1.0, 2.0 or 3.0
	DType        *DType // element type, in the file's byte order
	FortranOrder bool   // data is column-major
	Shape        []int  // array shape; empty for a 0-d array
	DataOffset   int64  // byte offset of the data from the start of the file
	Text         string // the header literal, trailing padding removed
}

// Count returns the number of elements (the product of Shape; 1 for 0-d).
func (h *Header) Count() int64 {
	n := int64(1)
	for _, d := range h.Shape {
		n *= int64(d)
	}
	return n
}

// DataSize returns the size of the data in bytes.
func (h *Header) DataSize() int64 { return h.Count() * int64(h.DType.Size) }

// Rows is the length of axis 0, the unit of streaming (1 for a 0-d array).
func (h *Header) Rows() int64 {
	if len(h.Shape) == 0 {
		return 1
	}
	return int64(h.Shape[0])
}

// RowSize is the byte size of one row: one element times the product of
// the shape after axis 0.
func (h *Header) RowSize() int64 {
	n := int64(h.DType.Size)
	for i := 1; i < len(h.Shape); i++ {
		n *= int64(h.Shape[i])
	}
	return n
}

// Options configures reading. The zero value (or nil) means the defaults.
type Options struct {
	// MaxHeaderSize limits the header length in bytes; 0 means
	// DefaultMaxHeaderSize.
	MaxHeaderSize int
	// MaxBufferSize limits how much a Reader on a plain io.Reader may buffer
	// to deliver a Fortran-order array with two or more dimensions in row
	// order (it must hold the whole array). 0 means DefaultMaxBufferSize.
	MaxBufferSize int64
	// MapWritable makes Map create a private copy-on-write mapping: the
	// data can be modified in memory (by gonum, say) and changes never
	// reach the file. Without it the mapping is read-only and writing to it
	// faults.
	MapWritable bool
}

// DefaultMaxBufferSize is the default Options.MaxBufferSize: 1 GiB.
const DefaultMaxBufferSize = 1 << 30

func (o *Options) maxHeader() int {
	if o == nil || o.MaxHeaderSize <= 0 {
		return DefaultMaxHeaderSize
	}
	return o.MaxHeaderSize
}

func (o *Options) maxBuffer() int64 {
	if o == nil || o.MaxBufferSize <= 0 {
		return DefaultMaxBufferSize
	}
	return o.MaxBufferSize
}

// ReadHeader reads the magic string, version and header from r, leaving r
// positioned at the start of the data. It allocates no more than the bytes
// actually present, up to the header size limit.
func ReadHeader(r io.Reader, opts *Options) (*Header, error) {
	return readHeader(r, opts, -1)
}

// readHeader reads a header; size is the total input size when known (-1
// otherwise), used to reject a header length beyond the input.
func readHeader(r io.Reader, opts *Options, size int64) (*Header, error) {
	var pre [12]byte
	n, _ := io.ReadFull(r, pre[:8])
	if m := min(n, 6); string(pre[:m]) != Magic[:m] {
		return nil, fmt.Errorf("%w: starts with %q, want %q", ErrMagic, pre[:m], Magic)
	}
	if n < 8 {
		return nil, &TruncatedError{Section: "magic and version", Want: 8, Got: int64(n)}
	}
	major, minor := pre[6], pre[7]
	var hlen int64
	var prefix int64
	switch {
	case major == 1 && minor == 0:
		if n, err := io.ReadFull(r, pre[8:10]); err != nil {
			return nil, &TruncatedError{Section: "header length", Want: 2, Got: int64(n)}
		}
		hlen = int64(binary.LittleEndian.Uint16(pre[8:10]))
		prefix = 10
	case (major == 2 || major == 3) && minor == 0:
		if n, err := io.ReadFull(r, pre[8:12]); err != nil {
			return nil, &TruncatedError{Section: "header length", Want: 4, Got: int64(n)}
		}
		hlen = int64(binary.LittleEndian.Uint32(pre[8:12]))
		prefix = 12
	default:
		return nil, fmt.Errorf("%w %d.%d (want 1.0, 2.0 or 3.0)", ErrVersion, major, minor)
	}
	if hlen > int64(opts.maxHeader()) {
		return nil, fmt.Errorf("%w: header length %d exceeds the limit of %d bytes (raise Options.MaxHeaderSize to read it)", ErrHeaderTooLarge, hlen, opts.maxHeader())
	}
	if size >= 0 && prefix+hlen > size {
		return nil, &TruncatedError{Section: "header", Want: hlen, Got: max(size-prefix, 0)}
	}
	// Read in bounded chunks so a lying length on a short stream costs no
	// more memory than the bytes that really arrive.
	var buf bytes.Buffer
	got, err := io.CopyN(&buf, r, hlen)
	if err != nil {
		if err == io.EOF {
			return nil, &TruncatedError{Section: "header", Want: hlen, Got: got}
		}
		return nil, fmt.Errorf("npyio: reading header: %w", err)
	}
	raw := buf.Bytes()
	var text string
	if major == 3 {
		if !utf8.Valid(raw) {
			i := 0
			for i < len(raw) {
				r, sz := utf8.DecodeRune(raw[i:])
				if r == utf8.RuneError && sz <= 1 {
					break
				}
				i += sz
			}
			return nil, &HeaderError{Pos: i, Msg: "invalid UTF-8 in a version 3.0 header"}
		}
		text = string(raw)
	} else {
		text = latin1(raw)
	}
	h, err := parseHeaderText(text, major >= 3)
	if err != nil {
		return nil, err
	}
	h.Major, h.Minor = major, minor
	h.DataOffset = prefix + hlen
	return h, nil
}

// latin1 decodes ISO-8859-1 bytes.
func latin1(b []byte) string {
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/2)
	for _, c := range b {
		sb.WriteRune(rune(c))
	}
	return sb.String()
}

// ParseHeader parses header text (the Python dict literal) into a Header
// with no version or data offset set.
func ParseHeader(text string) (*Header, error) { return parseHeaderText(text, false) }

// parseHeaderText parses a header dict; v3 headers (UTF-8, written only by
// Python 3) may not use the Python 2 'L' suffix.
func parseHeaderText(text string, v3 bool) (*Header, error) {
	v, err := parsePy(text, v3)
	if err != nil {
		return nil, err
	}
	if v.kind != pyDict {
		return nil, &HeaderError{Pos: v.pos, Msg: fmt.Sprintf("header is a %s, not a dict", v.kind)}
	}
	h := &Header{Text: strings.TrimRight(text, " \t\r\n\x00")}
	var haveDescr, haveOrder, haveShape bool
	var descr pyValue
	var shape []int
	for i := 0; i < len(v.items); i += 2 {
		k, val := v.items[i], v.items[i+1]
		if k.kind != pyStr {
			return nil, &HeaderError{Pos: k.pos, Msg: fmt.Sprintf("header key is a %s, not a string", k.kind)}
		}
		dup := false
		switch k.str {
		case "descr":
			dup, haveDescr, descr = haveDescr, true, val
		case "fortran_order":
			dup, haveOrder = haveOrder, true
			if val.kind != pyBool {
				return nil, &HeaderError{Pos: val.pos, Msg: fmt.Sprintf("fortran_order must be True or False, not a %s", val.kind)}
			}
			h.FortranOrder = val.b
		case "shape":
			dup, haveShape = haveShape, true
			shape, err = shapeOf(val, false)
			if err != nil {
				return nil, err
			}
		default:
			return nil, &HeaderError{Pos: k.pos, Msg: fmt.Sprintf("unexpected header key %s (want only 'descr', 'fortran_order', 'shape')", pyRepr(k.str))}
		}
		if dup {
			return nil, &HeaderError{Pos: k.pos, Msg: fmt.Sprintf("duplicate header key %q", k.str)}
		}
	}
	var missing []string
	if !haveDescr {
		missing = append(missing, "'descr'")
	}
	if !haveOrder {
		missing = append(missing, "'fortran_order'")
	}
	if !haveShape {
		missing = append(missing, "'shape'")
	}
	if len(missing) > 0 {
		return nil, &HeaderError{Pos: v.pos, Msg: "header is missing key " + strings.Join(missing, ", ")}
	}
	dt, groups, err := descrToDType(descr, 0)
	if err != nil {
		return nil, err
	}
	if sub, _ := flatten(groups); sub != nil {
		// A subarray descr: numpy appends its shape to the array's.
		shape = append(shape, sub...)
	}
	h.DType = dt
	h.Shape = shape
	if _, ok := mulSize(max(dt.Size, 1), shape); !ok {
		return nil, fmt.Errorf("%w: shape %v of %d-byte elements overflows", ErrTooLarge, shape, dt.Size)
	}
	return h, nil
}

// EncodeHeader returns the bytes np.save writes before the data: magic,
// version, header length, the header dict, growth-axis padding and padding
// to a 64-byte boundary ending in '\n'. The version is chosen as numpy does
// (1.0 if it fits, else 2.0, else 3.0 for non-latin-1 text). It also sets
// h.Major, h.Minor, h.DataOffset and h.Text.
func EncodeHeader(h *Header) ([]byte, error) {
	if h.DType == nil {
		return nil, &DTypeError{Msg: "header has no dtype"}
	}
	if h.DType.Kind == Object {
		return nil, &UnsupportedError{Feature: "writing object arrays", Err: ErrObject}
	}
	for _, d := range h.Shape {
		if d < 0 {
			return nil, fmt.Errorf("%w: negative dimension in shape %v", ErrShape, h.Shape)
		}
	}
	if _, ok := mulSize(max(h.DType.Size, 1), h.Shape); !ok {
		return nil, fmt.Errorf("%w: shape %v overflows", ErrTooLarge, h.Shape)
	}
	var sb strings.Builder
	sb.WriteString("{'descr': ")
	h.DType.writeDescr(&sb)
	sb.WriteString(", 'fortran_order': ")
	if h.FortranOrder {
		sb.WriteString("True")
	} else {
		sb.WriteString("False")
	}
	sb.WriteString(", 'shape': ")
	writePyTuple(&sb, h.Shape)
	sb.WriteString(", }")
	text := sb.String()
	if len(h.Shape) > 0 {
		g := h.Shape[0]
		if h.FortranOrder {
			g = h.Shape[len(h.Shape)-1]
		}
		text += strings.Repeat(" ", growthAxisDigits-len(strconv.Itoa(g)))
	}
	isLatin1 := true
	for _, r := range text {
		if r > 0xff {
			isLatin1 = false
			break
		}
	}
	var enc []byte
	if isLatin1 {
		enc = make([]byte, 0, len(text))
		for _, r := range text {
			enc = append(enc, byte(r))
		}
	} else {
		enc = []byte(text)
	}
	var major byte
	var prefix int
	switch {
	case isLatin1 && padded(10, len(enc)) <= 65535:
		major, prefix = 1, 10
	case isLatin1:
		major, prefix = 2, 12
	default:
		major, prefix = 3, 12
	}
	hlen := padded(prefix, len(enc))
	if int64(hlen) > 1<<32-1 {
		return nil, fmt.Errorf("%w: header of %d bytes", ErrHeaderTooLarge, hlen)
	}
	out := make([]byte, prefix+hlen)
	copy(out, Magic)
	out[6], out[7] = major, 0
	if major == 1 {
		putUint16(out[8:], uint16(hlen))
	} else {
		putUint32(out[8:], uint32(hlen))
	}
	n := copy(out[prefix:], enc)
	for i := prefix + n; i < len(out)-1; i++ {
		out[i] = ' '
	}
	out[len(out)-1] = '\n'
	h.Major, h.Minor = major, 0
	h.DataOffset = int64(len(out))
	h.Text = strings.TrimRight(text, " ")
	return out, nil
}

// padded returns the header length (text, spaces and '\n') that puts the
// data on a 64-byte boundary after a prefix of the given size.
func padded(prefix, textLen int) int {
	hl := textLen + 1
	pad := headerAlign - (prefix+hl)%headerAlign
	return hl + pad
}
