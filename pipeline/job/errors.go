package job

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Pos is a position in a job file: 1-based line and column. A value that
// came from a --set override has Line 0 and Set naming the override.
type Pos struct {
	File string
	Line int
	Col  int
	Set  string // "--set path=value" when the value came from an override
}

func (p Pos) String() string {
	if p.Set != "" {
		return p.Set
	}
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is one problem with a job: where it is, the path of the offending
// key (such as "sinks.table.compression"), and what is wrong.
type Error struct {
	Pos  Pos
	Path string
	Msg  string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.Pos, e.Path, e.Msg)
}

// ErrorList is every problem found in a job, in file order. Validation
// reports all of them at once rather than stopping at the first.
type ErrorList []*Error

func (l ErrorList) Error() string {
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Err returns l sorted by position, or nil if it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return l
}

func (l *ErrorList) add(pos Pos, path, format string, args ...any) {
	*l = append(*l, &Error{Pos: pos, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// IsJobError reports whether err is a problem with the job file itself (an
// *Error or ErrorList) rather than with the data or the system: the CLI
// exits with its "invalid job" code for these.
func IsJobError(err error) bool {
	var e *Error
	var l ErrorList
	return errors.As(err, &e) || errors.As(err, &l)
}

// quoteList formats allowed values for messages: "a", "b" or "c".
func quoteList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = fmt.Sprintf("%q", v)
	}
	switch len(q) {
	case 0:
		return ""
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
