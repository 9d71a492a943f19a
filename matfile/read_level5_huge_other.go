//go:build !linux

package matfile

// adviseHuge does nothing outside Linux.
func adviseHuge(b []byte) {}
