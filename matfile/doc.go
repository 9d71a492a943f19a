// Package matfile reads (and, in write*.go, writes) MATLAB MAT-files:
// Level 5 (v6 uncompressed, v7 with zlib-compressed variables) and v7.3
// (HDF5, with MATLAB's and hdf5storage's conventions).
package matfile
