//go:build !linux

package atomicfile

// startWriteback does nothing where sync_file_range does not exist: the
// fsync in Commit writes everything.
func startWriteback(f *File) {}
