package zfp

import (
	"errors"
	"fmt"
	"math/bits"
)

// Type is the scalar type of a zfp field.
type Type uint8

// The scalar types, numbered as in the zfp header.
const (
	Int32 Type = 1 + iota
	Int64
	Float32
	Float64
)

// Size is the size of one value of the type in bytes.
func (t Type) Size() int {
	if t == Int32 || t == Float32 {
		return 4
	}
	return 8
}

func (t Type) String() string {
	switch t {
	case Int32:
		return "int32"
	case Int64:
		return "int64"
	case Float32:
		return "float32"
	case Float64:
		return "float64"
	}
	return fmt.Sprintf("zfp type %d", uint8(t))
}

// Mode is how a stream spends its bits, as the zfp library names it.
type Mode uint8

// The modes of a zfp stream. Expert is any other combination of the four
// parameters.
const (
	Expert Mode = iota
	FixedRate
	FixedPrecision
	FixedAccuracy
	Reversible
)

func (m Mode) String() string {
	return [...]string{"expert", "fixed rate", "fixed precision", "fixed accuracy", "reversible"}[m]
}

// The zfp library's bounds of the stream parameters.
const (
	minBits = 1
	maxBits = 16658
	maxPrec = 64
	minExp  = -1074

	codecVersion = 5
)

// ErrFormat is wrapped by the errors of malformed headers and streams.
var ErrFormat = errors.New("zfp: malformed")

// UnsupportedError reports a valid stream this package does not decode.
type UnsupportedError struct{ What string }

func (e *UnsupportedError) Error() string { return "zfp: " + e.What + " is not supported" }

func formatErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrFormat}, args...)...)
}

// Header is what a zfp header says of a stream: the field (scalar type and
// dimensions) and the four parameters that set every mode.
type Header struct {
	Type Type
	// Dims are the field's dimensions, the fastest varying (nx) first;
	// 1 to 4 of them.
	Dims []int
	// MinBits and MaxBits bound the bits of one block; MaxPrec is the
	// most bit planes coded; MinExp the smallest bit plane's exponent
	// (below -1074 in reversible mode).
	MinBits, MaxBits, MaxPrec uint32
	MinExp                    int32
}

// Mode is the header's mode, classified as the zfp library does.
func (h *Header) Mode() Mode {
	switch {
	case h.MinBits == minBits && h.MaxBits == maxBits && h.MaxPrec == maxPrec && h.MinExp == minExp:
		return Expert
	case h.MinBits == h.MaxBits && h.MaxBits >= 1 && h.MaxBits <= maxBits && h.MaxPrec >= maxPrec && h.MinExp == minExp:
		return FixedRate
	case h.MinBits <= minBits && h.MaxBits >= maxBits && h.MaxPrec >= 1 && h.MinExp == minExp:
		return FixedPrecision
	case h.MinBits <= minBits && h.MaxBits >= maxBits && h.MaxPrec >= maxPrec && h.MinExp >= minExp:
		return FixedAccuracy
	case h.MinBits <= minBits && h.MaxBits >= maxBits && h.MaxPrec >= maxPrec && h.MinExp < minExp:
		return Reversible
	}
	return Expert
}

// reversible reports whether blocks are coded losslessly.
func (h *Header) reversible() bool { return h.MinExp < minExp }

// Len is the number of values of the field.
func (h *Header) Len() int {
	n := 1
	for _, d := range h.Dims {
		n *= d
	}
	return n
}

// ParseH5Z reads the header H5Z-ZFP keeps in a dataset's filter client
// data (cd_values): a version word, then the zfp header as a bit stream.
func ParseH5Z(cd []uint32) (*Header, error) {
	if len(cd) < 2 {
		return nil, formatErr("%d filter parameters, too few for a zfp header", len(cd))
	}
	words := cd[1:]
	buf := make([]byte, 4*len(words))
	for i, w := range words {
		buf[4*i], buf[4*i+1], buf[4*i+2], buf[4*i+3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
	}
	if string(buf[:3]) != "zfp" {
		if w := bits.ReverseBytes32(words[0]); byte(w) == 'z' && byte(w>>8) == 'f' && byte(w>>16) == 'p' {
			return nil, &UnsupportedError{"a stream written on a big-endian machine"}
		}
		return nil, formatErr("filter parameters do not start with a zfp header (magic %q)", buf[:min(3, len(buf))])
	}
	if v := buf[3]; v != codecVersion {
		return nil, &UnsupportedError{fmt.Sprintf("zfp codec version %d (version %d is read)", v, codecVersion)}
	}
	r := newReader(buf)
	r.readBits(32)
	meta := r.readBits(52)
	mode := r.readBits(12)
	if mode == 0xfff {
		mode += r.readBits(52) << 12
	}
	if r.past() {
		return nil, formatErr("zfp header cut short: %d filter parameters", len(cd))
	}
	h := &Header{Type: Type(meta&3 + 1)}
	meta >>= 2
	dims := int(meta&3) + 1
	meta >>= 2
	width := uint(48 / dims)
	if dims == 1 {
		width = 32 // zfp limits one dimension to 2^32 values
	}
	for range dims {
		h.Dims = append(h.Dims, int(meta&(1<<width-1))+1)
		meta >>= 48 / uint(dims)
	}
	if err := h.setMode(mode); err != nil {
		return nil, err
	}
	return h, nil
}

// setMode sets the four parameters from the 12- or 64-bit mode field.
func (h *Header) setMode(mode uint64) error {
	switch {
	case mode < 2048:
		h.MinBits, h.MaxBits, h.MaxPrec, h.MinExp = uint32(mode)+1, uint32(mode)+1, maxPrec, minExp
	case mode < 2048+128:
		h.MinBits, h.MaxBits, h.MaxPrec, h.MinExp = minBits, maxBits, uint32(mode)+1-2048, minExp
	case mode == 2048+128:
		h.MinBits, h.MaxBits, h.MaxPrec, h.MinExp = minBits, maxBits, maxPrec, minExp-1
	case mode < 0xfff:
		h.MinBits, h.MaxBits, h.MaxPrec, h.MinExp = minBits, maxBits, maxPrec, int32(mode)+minExp-(2048+128+1)
	default:
		mode >>= 12
		h.MinBits = uint32(mode&0x7fff) + 1
		mode >>= 15
		h.MaxBits = uint32(mode&0x7fff) + 1
		mode >>= 15
		h.MaxPrec = uint32(mode&0x7f) + 1
		mode >>= 7
		h.MinExp = int32(mode&0x7fff) - 16495
	}
	if h.MinBits > h.MaxBits || h.MaxPrec == 0 || h.MaxPrec > maxPrec {
		return formatErr("zfp mode with minbits %d, maxbits %d, maxprec %d", h.MinBits, h.MaxBits, h.MaxPrec)
	}
	return nil
}
