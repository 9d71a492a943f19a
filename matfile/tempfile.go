package matfile

import "os"

// tempFile is a scratch file (spooled rows, inflated or column-major
// data). It is unlinked as soon as it is created where the system allows
// it, so its data goes with the process however that ends (an error, an
// interrupt, a crash); elsewhere Close removes it.
type tempFile struct {
	*os.File
	removed bool
}

// tempUnlinkEarly is false in tests of the removal on Close (the path
// taken where an open file cannot be unlinked).
var tempUnlinkEarly = true

// newTempFile creates a scratch file in dir (os.TempDir() when empty).
func newTempFile(dir, pattern string) (*tempFile, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &tempFile{File: f, removed: tempUnlinkEarly && os.Remove(f.Name()) == nil}, nil
}

// Close closes and (if not done yet) removes the file. It may be called
// more than once, and on a nil *tempFile.
func (t *tempFile) Close() error {
	if t == nil || t.File == nil {
		return nil
	}
	err := t.File.Close()
	if !t.removed {
		if rerr := os.Remove(t.File.Name()); err == nil {
			err = rerr
		}
	}
	t.File = nil
	return err
}
