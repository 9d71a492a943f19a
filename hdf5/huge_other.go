//go:build !linux

package hdf5

// hugeAdvise is a no-op off Linux.
func hugeAdvise(b []byte) {}
