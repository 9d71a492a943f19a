package job

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ParseFlag turns the command-line text of f's flag into the option's
// value (string, int64, float64, bool, []string, or []KV for a mapping),
// checked as [Load] checks a job's: the type, the allowed values, the
// bounds and f's checks, once. The error is one line naming the flag:
//
//	--compression "bogus": want zstd, snappy, gzip, lz4 or none
//
// A list is comma-separated, a mapping's items key=value; a FlagValue
// replaces the type's own parsing (and the allowed values: it says which
// texts it takes).
func (f *Field) ParseFlag(text string) (any, error) {
	v, msg := f.parseFlag(text)
	if msg != "" {
		return nil, fmt.Errorf("--%s %q: %s", f.Flag, text, msg)
	}
	return v, nil
}

func (f *Field) parseFlag(text string) (any, string) {
	if f.FlagValue != nil {
		v, err := f.FlagValue(text)
		if err != nil {
			return nil, err.Error()
		}
		return v, ""
	}
	check := func(s string) string {
		if f.Check == nil {
			return ""
		}
		msg, _ := f.Check(s)
		return msg
	}
	switch f.Type {
	case Int, Float:
		v, err := parseText(f.Type, text)
		x, _ := v.(float64)
		if n, ok := v.(int64); ok {
			x = float64(n)
		}
		if err != nil || math.IsNaN(x) || (f.Min != nil && x < *f.Min) || (f.Max != nil && x > *f.Max) {
			return nil, "want " + f.want()
		}
		return v, ""
	case Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, "want true or false"
		}
		return b, ""
	case StringList:
		v, _ := parseText(StringList, text)
		for _, s := range v.([]string) {
			if msg := check(s); msg != "" {
				return nil, msg
			}
		}
		return v, ""
	case StringMap:
		var out []KV
		for _, kv := range strings.Split(text, ",") {
			if kv = strings.TrimSpace(kv); kv == "" {
				continue
			}
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, "want key=value,..."
			}
			if f.CheckValue != nil {
				if msg, _ := f.CheckValue(v); msg != "" {
					return nil, msg
				}
			}
			out = append(out, KV{Key: k, Value: v})
		}
		return out, ""
	}
	if f.Enum != nil && !slices.Contains(f.Enum, text) {
		return nil, "want " + f.want()
	}
	if msg := check(text); msg != "" {
		return nil, msg
	}
	return text, ""
}

// want says what values f takes, for messages: "zstd, snappy or none",
// "an integer from 0 to 22".
func (f *Field) want() string {
	if f.Enum != nil {
		var vals []string
		for _, v := range f.Enum {
			if v != "" {
				vals = append(vals, v)
			}
		}
		return orList(vals)
	}
	what := map[FieldType]string{Int: "an integer", Float: "a number", Bool: "true or false"}[f.Type]
	if what == "" {
		return f.Type.String()
	}
	num := func(p *float64) string { return strconv.FormatFloat(*p, 'g', -1, 64) }
	switch {
	case f.Min != nil && f.Max != nil:
		return fmt.Sprintf("%s from %s to %s", what, num(f.Min), num(f.Max))
	case f.Min != nil:
		return fmt.Sprintf("%s of at least %s", what, num(f.Min))
	case f.Max != nil:
		return fmt.Sprintf("%s of at most %s", what, num(f.Max))
	}
	return what
}

// orList is "a, b or c".
func orList(vals []string) string {
	if len(vals) < 2 {
		return strings.Join(vals, "")
	}
	return strings.Join(vals[:len(vals)-1], ", ") + " or " + vals[len(vals)-1]
}
