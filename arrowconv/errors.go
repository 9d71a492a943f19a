package arrowconv

import (
	"errors"
	"fmt"
)

// ErrRange reports a value that has no exact representation in the target
// type, such as a datetime64[h] too large for seconds in an int64, or a
// string longer than the numpy width it is written to.
var ErrRange = errors.New("arrowconv: value out of range")

// UnsupportedError reports a valid numpy or Arrow type that has no exact
// counterpart on the other side, such as datetime64[Y] or an Arrow map.
type UnsupportedError struct {
	Column string // the column path, when known
	DType  string // the numpy descr or Arrow type, as text
	Msg    string
}

func (e *UnsupportedError) Error() string {
	if e.Column != "" {
		return fmt.Sprintf("arrowconv: column %q: unsupported type %s: %s", e.Column, e.DType, e.Msg)
	}
	return fmt.Sprintf("arrowconv: unsupported type %s: %s", e.DType, e.Msg)
}

// ValueError reports a value that cannot be converted: Field is the column
// path ("a.b[2]"), Row the row index from the start of the array or stream.
// It wraps the cause, often [ErrRange].
type ValueError struct {
	Field string
	Row   int64
	Err   error
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("arrowconv: column %q, row %d: %v", e.Field, e.Row, e.Err)
}

func (e *ValueError) Unwrap() error { return e.Err }
