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
	// ErrNetCDF3 reports a netCDF-3 file (classic, 64-bit offset or
	// 64-bit data format: magic "CDF" and 1, 2 or 5), which is not HDF5
	// and is not read by this package. netCDF-4 files are HDF5 files and
	// are read.
	ErrNetCDF3 = errors.New("a netCDF-3 file, not HDF5")
)

// NetCDF3Version returns 1 (classic), 2 (64-bit offset) or 5 (64-bit
// data, CDF-5) when b starts with a netCDF-3 magic number ("CDF" and
// that byte), else 0.
func NetCDF3Version(b []byte) int {
	if len(b) >= 4 && b[0] == 'C' && b[1] == 'D' && b[2] == 'F' {
		switch b[3] {
		case 1, 2, 5:
			return int(b[3])
		}
	}
	return 0
}

// NetCDF3Magics are the first four bytes of netCDF-3 files, for a
// format registry that tells them from HDF5 (whose signature is
// "\x89HDF\r\n\x1a\n", at 0 or after a user block).
var NetCDF3Magics = [][]byte{[]byte("CDF\x01"), []byte("CDF\x02"), []byte("CDF\x05")}

var netCDF3Names = map[int]string{1: "classic format", 2: "64-bit offset format", 5: "64-bit data format (CDF-5)"}

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
