package pipeline

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/npyflow/npyflow/hdf5"
	"github.com/npyflow/npyflow/matfile"
	"github.com/npyflow/npyflow/npyio"
)

// HDF5 files and MAT-files read as archives of named arrays, like an
// .npz: every dataset of an HDF5 file is a member named by its path
// without the leading slash ("group/data"), every array of a MAT-file a
// member named by its MATLAB-style path ("x", "s.a", "c{3}"). Each member
// is read as an .npy stream (its header, then its data from the hdf5 or
// matfile package's reader), so the hdf5 and mat sources (format_hdf5.go,
// format_mat.go) treat them as the npz source treats its members.

// containerMember is one array of an HDF5 file or MAT-file.
type containerMember struct {
	name   string
	header *npyio.Header // dtype (in the byte order of the data), shape, order
	open   func() (io.ReadCloser, error)
	// openC streams a Fortran-order member's data in C order (a
	// MAT-file array read in bands of rows).
	openC func() (io.ReadCloser, error)
}

// hdf5Members lists the datasets picked (all when pick is empty) of the
// HDF5 file r: when all are read, those of a type or filter npyflow
// cannot read are skipped with a warning (an error if strict), netCDF's
// dimension-only datasets silently.
func hdf5Members(name string, r io.ReaderAt, size int64, pick []string, strict bool, warn func(string), threads int) ([]containerMember, error) {
	f, err := hdf5.Open(r, size, &hdf5.Options{Name: name, Threads: threads})
	if err != nil {
		return nil, err
	}
	var out []containerMember
	if len(pick) > 0 {
		for _, p := range pick {
			path := "/" + strings.TrimPrefix(p, "/")
			obj, err := f.OpenPath(path)
			if err != nil {
				if errors.Is(err, hdf5.ErrNotFound) {
					return nil, fmt.Errorf("no dataset %s%s", path, hdf5Hint(f))
				}
				return nil, err
			}
			if _, ok := obj.(*hdf5.Dataset); !ok {
				return nil, fmt.Errorf("%s is not a dataset%s", path, hdf5Hint(f))
			}
			ds, err := f.OpenVariable(path) // netCDF's name of a _nc4_non_coord_ variable
			if err != nil {
				return nil, err
			}
			m, err := hdf5Member(ds)
			if err != nil {
				return nil, err
			}
			m.name = strings.TrimPrefix(path, "/") // as asked
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		return out, nil
	}
	err = f.Walk(func(path string, obj hdf5.Object) error {
		ds, ok := obj.(*hdf5.Dataset)
		if !ok {
			return nil
		}
		if ds.Err() == nil && ds.IsNetCDFDimensionOnly() {
			return nil // a netCDF dimension without values, not a variable
		}
		m, err := hdf5Member(ds)
		if strict && errors.Is(err, hdf5.ErrUnsupported) {
			return fmt.Errorf("%w (skipped with a warning without strict)", err)
		}
		if errors.Is(err, hdf5.ErrUnsupported) || errors.Is(err, errNullDataset) {
			msg := err.Error()
			if i := strings.Index(msg, path+": "); i >= 0 {
				msg = msg[i+len(path)+2:] // the file and dataset are named in front
			}
			warn(fmt.Sprintf("%s: dataset %s skipped: %s", name, path, msg))
			return nil
		}
		if err != nil {
			return err
		}
		out = append(out, m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("the HDF5 file has no dataset npyflow can read")
	}
	return out, nil
}

// hdf5Hint lists the readable datasets of a small file for a message.
func hdf5Hint(f *hdf5.File) string {
	var names []string
	f.Walk(func(path string, obj hdf5.Object) error {
		if _, ok := obj.(*hdf5.Dataset); ok {
			names = append(names, path)
		}
		if len(names) > 20 {
			return io.EOF
		}
		return nil
	})
	if len(names) == 0 || len(names) > 20 {
		return ""
	}
	return " (datasets: " + strings.Join(names, ", ") + ")"
}

var errNullDataset = errors.New("it has a null dataspace (h5py.Empty): no data")

// hdf5Member maps one dataset as h5py does (see hdf5.Dataset.DType):
// references, opaque, time and variable-length sequences are refused, and
// so are chunks that need a filter without a decoder (CheckFilters).
func hdf5Member(ds *hdf5.Dataset) (containerMember, error) {
	if err := ds.Err(); err != nil {
		return containerMember{}, err
	}
	if ds.IsNull() {
		return containerMember{}, errNullDataset
	}
	dt, err := ds.DType()
	if err != nil {
		return containerMember{}, err
	}
	// A netCDF variable as netCDF readers give it: along an unlimited
	// dimension as long as the dimension, padded with its fill value.
	shape, err := ds.NetCDFNumpyShape()
	if err != nil {
		return containerMember{}, err
	}
	if err := ds.CheckFilters(); err != nil {
		return containerMember{}, err // *hdf5.UnsupportedFilterError: skipped like a type
	}
	if stored, _ := ds.NumpyShape(); !slices.Equal(stored, shape) {
		if _, err := ds.NetCDFFill(); err != nil {
			return containerMember{}, err
		}
	}
	h := &npyio.Header{DType: dt, Shape: shape}
	open := func() (io.ReadCloser, error) {
		er, err := ds.NewNetCDFReader(containerBatchBytes)
		if err != nil {
			return nil, err
		}
		return &batchStream{read: er.Read}, nil // a dataset's elements in batches of bounded size
	}
	return containerMember{name: strings.TrimPrefix(ds.NetCDFPath(), "/"), header: h, open: open}, nil
}

// containerBatchBytes is the size of the batches HDF5 datasets are read
// in, and of the parts stored arrays are copied in.
const containerBatchBytes = 4 << 20

// matTop is the top-level variable of a MATLAB-style path: "s" of
// "s(2).c{1}".
func matTop(path string) string {
	if i := strings.IndexAny(path, ".({"); i >= 0 {
		return path[:i]
	}
	return path
}

func matTops(pick []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range pick {
		if t := matTop(p); !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// matPicked reports whether path is one of pick or inside one of them
// (a picked struct gives all its fields).
func matPicked(path string, pick []string) bool {
	for _, p := range pick {
		if path == p || (strings.HasPrefix(path, p) && strings.ContainsRune(".({", rune(path[len(p)]))) {
			return true
		}
	}
	return false
}

// memberReader is a container member as an npyio.Reader (rows in native
// byte order and C order) with the stream to close.
func memberReader(m containerMember) (*npyio.Reader, io.Closer, error) {
	h := *m.header
	if h.FortranOrder && vectorShape(h.Shape) {
		// One axis longer than 1 (a MATLAB column or row vector, a
		// struct's column): column-major is row-major, so it streams.
		h.FortranOrder = false
	}
	open := m.open
	if h.FortranOrder {
		// Bands of rows in C order (a MAT-file array read by hyperslabs):
		// nothing is held whole.
		h.FortranOrder = false
		open = m.openC
	}
	rc, err := open()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", m.name, err)
	}
	r, err := streamReader(&h, rc, &npyio.Options{MaxBufferSize: matfile.DefaultMaxVariableBytes})
	if err != nil {
		rc.Close()
		return nil, nil, fmt.Errorf("%s: %w", m.name, err)
	}
	return r, rc, nil
}

// vectorShape reports a shape with at most one axis longer than 1.
func vectorShape(shape []int) bool {
	long := 0
	for _, d := range shape {
		if d > 1 {
			long++
		}
	}
	return long <= 1
}

// fortranMember reports whether m goes to .npy as stored, column-major
// (fortran_order): a MAT-file array with two or more axes longer than 1,
// in native byte order. Others (vectors, scalars) are the same bytes in C
// order and go as rows.
func fortranMember(m containerMember) bool {
	h := m.header
	return h.FortranOrder && len(h.Shape) >= 2 && !vectorShape(h.Shape) && h.DType.IsNative()
}
