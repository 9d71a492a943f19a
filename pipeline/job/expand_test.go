package job

import (
	"errors"
	"testing"
)

func TestExpand(t *testing.T) {
	lookup := testEnv(map[string]string{"A": "1", "E": ""})
	valid := []struct{ in, want string }{
		{"plain", "plain"},
		{"$A and $$ and ${A}", "$A and $ and 1"},
		{"${E:-d}|${E}|${X:-}|${A:-d}|${A:?no}", "d||||1|1"[:len("d||||1|1")-2] + "1|1"},
		{"${X:-a b}", "a b"},
		{"trailing $", "trailing $"},
	}
	valid[2].want = "d|||1|1"
	for _, tc := range valid {
		got, _, msg := expand(tc.in, lookup)
		if msg != "" || got != tc.want {
			t.Errorf("expand(%q) = %q, %q; want %q", tc.in, got, msg, tc.want)
		}
	}
	invalid := []struct {
		in  string
		off int
		msg string
	}{
		{"x${A", 1, "unterminated ${ (write $$ for a literal $)"},
		{"${1A}", 0, `invalid variable name "1A" in ${1A}`},
		{"ab${A:+x}", 2, "invalid reference ${A:+x}: use ${VAR}, ${VAR:-default} or ${VAR:?message}"},
		{"${E:?}", 0, "environment variable E: is required"},
	}
	for _, tc := range invalid {
		_, off, msg := expand(tc.in, lookup)
		if off != tc.off || msg != tc.msg {
			t.Errorf("expand(%q) error at %d %q; want at %d %q", tc.in, off, msg, tc.off, tc.msg)
		}
	}
}

func TestIsJobError(t *testing.T) {
	if IsJobError(errors.New("x")) {
		t.Error("a plain error is not a job error")
	}
	if !IsJobError(ErrorList{{Msg: "x"}}) || !IsJobError(&Error{Msg: "x"}) {
		t.Error("Error and ErrorList are job errors")
	}
}

func testEnv(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}
