//go:build !unix

package zarr

var umask uint32 = 0o022
