package storage

import (
	"os"

	"github.com/npyflow/npyflow/internal/atomicfile"
)

// OSFiler is implemented by a File or Writer of the local backend: the
// *os.File under it, for system calls that work on file descriptors only
// (copy_file_range). Writing to it bypasses nothing but the Writer's
// background writeback: Commit still syncs (CreateOptions.Sync) and
// renames as usual.
type OSFiler interface {
	OSFile() *os.File
}

// OSFile returns the *os.File under x (a File or Writer of the local
// backend, or an *os.File), ok false for anything else.
func OSFile(x any) (f *os.File, ok bool) {
	switch x := x.(type) {
	case *os.File:
		return x, x != nil
	case OSFiler:
		f = x.OSFile()
		return f, f != nil
	}
	return nil, false
}

// OSFile returns the open file.
func (f *localFile) OSFile() *os.File { return f.File }

// localWriter is an output of the local backend: an atomicfile.File that
// also gives its *os.File.
type localWriter struct{ *atomicfile.File }

// OSFile returns the temporary file being written.
func (w localWriter) OSFile() *os.File { return w.File.File }
