package hdf5

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors returned by this package wrap them; test with
// errors.Is.
var (
	// ErrFormat reports a malformed (corrupt or truncated) HDF5 file.
	ErrFormat = errors.New("hdf5: malformed file")
	// ErrUnsupported reports a valid HDF5 feature this package does not read.
	ErrUnsupported = errors.New("hdf5: unsupported feature")
	// ErrNotFound reports a path or attribute name that does not exist.
	ErrNotFound = errors.New("hdf5: not found")
	// ErrTooLarge reports a read that exceeds a limit in Options.
	ErrTooLarge = errors.New("hdf5: too large")
)

// FormatError reports a malformed file: a structure that does not follow
// the HDF5 format, points outside the file or fails its checksum. Addr is
// the file address (relative to the superblock base) of the structure, or
// -1 when there is none.
type FormatError struct {
	File string
	Addr int64
	Msg  string
}

func (e *FormatError) Error() string {
	s := "hdf5: "
	if e.File != "" {
		s += e.File + ": "
	}
	s += "malformed file: " + e.Msg
	if e.Addr >= 0 {
		s += fmt.Sprintf(" (at address %#x)", e.Addr)
	}
	return s
}

func (e *FormatError) Unwrap() error { return ErrFormat }

// UnsupportedError reports a valid file (or object in it) using a feature
// this package does not read, such as region references or the SZIP filter.
type UnsupportedError struct {
	File    string
	Object  string // path of the dataset or attribute concerned, if any
	Feature string
}

func (e *UnsupportedError) Error() string {
	s := "hdf5: "
	if e.File != "" {
		s += e.File + ": "
	}
	if e.Object != "" {
		s += e.Object + ": "
	}
	return s + "unsupported: " + e.Feature
}

func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }
