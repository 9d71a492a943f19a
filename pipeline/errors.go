package pipeline

import (
	"errors"
	"fmt"

	"github.com/npyflow/npyflow/internal/storage"
)

// FileError is a problem with a file: its path (or URL) and what is
// wrong, "path: problem". Sources and sinks name the file of an error this
// way; [Convert] names the input or the output of a conversion by it.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return storage.Redact(e.Path) + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// OutputError is a problem writing an output file (or a scratch file
// next to it), as opposed to reading an input.
type OutputError struct{ Err error }

func (e *OutputError) Error() string { return e.Err.Error() }
func (e *OutputError) Unwrap() error { return e.Err }

// ErrOptions is wrapped by errors of [Convert] and [Inspect] about their
// arguments (an unknown format, an option that does not apply) rather
// than the data.
var ErrOptions = errors.New("invalid conversion")

type optionError struct{ msg string }

func (e *optionError) Error() string        { return e.msg }
func (e *optionError) Is(target error) bool { return target == ErrOptions }

func optionErrorf(format string, args ...any) error {
	return &optionError{fmt.Sprintf(format, args...)}
}
