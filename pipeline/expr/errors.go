package expr

// Error is a problem with a predicate: its byte offset in the text and
// what is wrong. Parse reports syntax errors, Bind type errors.
type Error struct {
	Offset int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// Check reports what is wrong with the syntax of the predicate src, as
// job validation shows it ("invalid predicate: ...") with the byte offset
// of the problem; msg is "" if src parses.
func Check(src string) (msg string, off int) {
	if _, err := Parse(src); err != nil {
		pe := err.(*Error)
		return "invalid predicate: " + pe.Msg, pe.Offset
	}
	return "", 0
}
