// Package inspect reads what a file holds without reading its data, for
// `npyflow inspect` and [pipeline.Inspect]: an .npy header and the
// members of an .npz (npy.go), a Parquet or Arrow IPC schema with the
// numpy dtype each column maps to (table.go), the groups, datasets and
// attributes of an HDF5 file (hdf5.go), the variables of a MAT-file
// (mat.go). Each function returns a value that prints itself as the
// command does ([Info]) and encodes to the command's JSON.
//
// Which function reads a file is the file format's choice: package
// pipeline recognizes the format by the file's first bytes and calls the
// format's inspection, which is one of these.
package inspect

import "io"

// Info is what an inspection found: its WriteText prints it as
// `npyflow inspect` does; encoding/json encodes it as `npyflow inspect
// --json` does.
type Info interface {
	WriteText(w io.Writer)
}

var (
	_ Info = (*HeaderInfo)(nil)
	_ Info = (*NPZInfo)(nil)
	_ Info = (*TableInfo)(nil)
	_ Info = (*HDF5Info)(nil)
	_ Info = (*MATInfo)(nil)
)
