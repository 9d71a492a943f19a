package npyio

import (
	"errors"
	"fmt"
	"io"
)

// Sentinel errors. Errors returned by this package wrap them, so test with
// errors.Is.
var (
	// ErrMagic reports input that does not start with the NPY magic string.
	ErrMagic = errors.New("npyio: not an npy file (bad magic string)")
	// ErrVersion reports an NPY format version other than 1.0, 2.0 or 3.0.
	ErrVersion = errors.New("npyio: unsupported npy format version")
	// ErrHeaderTooLarge reports a header longer than the configured limit.
	ErrHeaderTooLarge = errors.New("npyio: header too large")
	// ErrObject reports an array of Python objects, whose data is a pickle
	// stream. Unpickling runs arbitrary code, so it is always refused.
	ErrObject = errors.New("npyio: object arrays hold pickled Python data and are refused (unpickling can execute code)")
	// ErrTooLarge reports an array whose byte size overflows int64 or exceeds
	// what the input can hold.
	ErrTooLarge = errors.New("npyio: array too large")
	// ErrShape reports data whose length does not match the declared shape.
	ErrShape = errors.New("npyio: data does not match shape")
	// ErrClosed reports use of a closed Writer.
	ErrClosed = errors.New("npyio: writer closed")
)

// HeaderError reports a malformed NPY header: a syntax error in the Python
// literal or a value of the wrong kind. Pos is the byte offset within the
// header text (0 is the first byte after the length field).
type HeaderError struct {
	Pos int
	Msg string
}

func (e *HeaderError) Error() string {
	return fmt.Sprintf("npyio: malformed header at offset %d: %s", e.Pos, e.Msg)
}

// UnsupportedError reports a valid NPY file using a feature this package
// does not support, such as the platform-dependent long double types.
type UnsupportedError struct {
	Feature string
	Err     error // optional sentinel, such as ErrObject
}

func (e *UnsupportedError) Error() string {
	if e.Err != nil {
		return e.Err.Error() + ": " + e.Feature
	}
	return "npyio: unsupported: " + e.Feature
}

func (e *UnsupportedError) Unwrap() error { return e.Err }

// TruncatedError reports input that ended early. It wraps
// io.ErrUnexpectedEOF.
type TruncatedError struct {
	Section string // "magic", "header" or "data"
	Want    int64  // bytes expected
	Got     int64  // bytes available
}

func (e *TruncatedError) Error() string {
	return fmt.Sprintf("npyio: truncated %s: want %d bytes, got %d", e.Section, e.Want, e.Got)
}

func (e *TruncatedError) Unwrap() error { return io.ErrUnexpectedEOF }

// DTypeError reports a descr that is not a valid numpy dtype description.
type DTypeError struct {
	Descr string // the offending part, as text
	Msg   string
}

func (e *DTypeError) Error() string {
	if e.Descr == "" {
		return "npyio: invalid dtype: " + e.Msg
	}
	return fmt.Sprintf("npyio: invalid dtype %s: %s", e.Descr, e.Msg)
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
