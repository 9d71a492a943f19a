package expr_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/expr"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
)

// keep parses where, binds it to dt and evaluates it over data (records of
// dt) in two calls, to cross a batch boundary as the filter transform
// does. It returns the indices of the rows that match.
func keep(t *testing.T, where string, dt *npyio.DType, data []byte) ([]int32, error) {
	t.Helper()
	e, err := expr.Parse(where)
	if err != nil {
		return nil, err
	}
	if err := e.Bind(dt); err != nil {
		return nil, err
	}
	rs := dt.Size
	rows := len(data) / rs
	mask := make([]bool, rows)
	h := rows / 2
	e.Eval(data[:h*rs], rs, h, mask[:h])
	e.Eval(data[h*rs:], rs, rows-h, mask[h:])
	var kept []int32
	for i, m := range mask {
		if m {
			kept = append(kept, int32(i))
		}
	}
	return kept, nil
}

// bindError is a predicate that Bind refuses: the byte offset of the
// field or literal at fault and the message.
type bindError struct {
	where  string
	offset int
	msg    string
}

// checkBindErrors checks that each predicate of bad fails with its offset
// and message.
func checkBindErrors(t *testing.T, dt *npyio.DType, bad []bindError) {
	t.Helper()
	for _, tc := range bad {
		_, err := keep(t, tc.where, dt, nil)
		var pe *expr.Error
		if !errors.As(err, &pe) || pe.Offset != tc.offset || pe.Msg != tc.msg {
			t.Errorf("%s: err = %#v\nwant offset %d: %s", tc.where, err, tc.offset, tc.msg)
		}
	}
}

// records holds five rows of an int32, a float64 (with NaN) and a U3.
func records(t *testing.T) (*npyio.DType, []byte) {
	t.Helper()
	u3, _ := npyio.NewString(npyio.Unicode, 3)
	dt, err := npyio.NewStruct([]npyio.Field{{Name: "a", Type: npyio.Int32Type}, {Name: "b", Type: npyio.Float64Type}, {Name: "s", Type: u3}})
	if err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		a int32
		b float64
		s string
	}{{1, 0.5, "x"}, {2, math.NaN(), "yy"}, {3, -1, "zzz"}, {4, 2.5, ""}, {5, 1e10, "x"}}
	var data []byte
	for _, r := range rows {
		row := make([]byte, dt.Size)
		rowbytes.Store(row, 0, r.a)
		rowbytes.Store(row, 4, r.b)
		rowbytes.PutUCS4(row[12:], r.s)
		data = append(data, row...)
	}
	return dt, data
}

// TestEval: fields compared with literals, the literal on either side,
// lists, boolean operators and chains. Rows are numbered from 0.
func TestEval(t *testing.T) {
	dt, data := records(t)
	cases := []struct {
		where string
		want  []int32
	}{
		{"a > 2", []int32{2, 3, 4}},
		{"a >= 2.5", []int32{2, 3, 4}},
		{"b < 1", []int32{0, 2}}, // NaN compares false
		{"b != 0.5", []int32{1, 2, 3, 4}},
		{"not b < 1", []int32{1, 3, 4}},
		{"s == 'x'", []int32{0, 4}},
		{`s in ["yy", "zzz", "toolong"]`, []int32{1, 2}},
		{"s not in ['x']", []int32{1, 2, 3}},
		{"s < 'y'", []int32{0, 3, 4}},
		{"s == ''", []int32{3}},
		{"a == 1 or (b > 2 and not s == 'x')", []int32{0, 3}},
		{"a in [2, 4] and a != 4", []int32{1}},
		{"`a` > 1e9 or b > 1e9", []int32{4}},
		// The literal first: the operator is mirrored.
		{"3 <= a", []int32{2, 3, 4}},
		{"1 > b", []int32{0, 2}},
		{"0.5 != b", []int32{1, 2, 3, 4}},
		{"'x' == s", []int32{0, 4}},
		{"'y' > s", []int32{0, 3, 4}},
		{"nan != b", []int32{0, 1, 2, 3, 4}},
		{"1e9 < `a` or 1e9 < b", []int32{4}},
		// Chains compare neighbours: 2 < a < 5 is 2 < a and a < 5.
		{"2 < a < 5", []int32{2, 3}},
		{"2 < a and a < 5", []int32{2, 3}},
		{"-1 <= b <= 0.5", []int32{0, 2}},
		{"not 1 < a <= 4", []int32{0, 4}},
		{"a > 1 >= b", []int32{2}},
	}
	for _, tc := range cases {
		t.Run(tc.where, func(t *testing.T) {
			got, err := keep(t, tc.where, dt, data)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("kept rows %v, want %v", got, tc.want)
			}
		})
	}
	checkBindErrors(t, dt, []bindError{
		{"c > 1", 0, `no field "c" in the input (did you mean "a"?); fields: a, b, s`},
		{"a == 'x'", 5, `field "a" holds '<i4' numbers; compare it with a number`},
		{"s > 1", 4, `field "s" holds strings; compare it with a quoted string`},
		{"'x' == a", 0, `field "a" holds '<i4' numbers; compare it with a number`},
		{"1 < s", 0, `field "s" holds strings; compare it with a quoted string`},
		{"0 < a < 'z'", 8, `field "a" holds '<i4' numbers; compare it with a number`},
		{"0 < c", 4, `no field "c" in the input (did you mean "a"?); fields: a, b, s`},
	})
}

// fieldRows builds six rows of many types for comparisons of two fields.
// Their values sit where a float64 cast loses exactness: 2**53+1,
// 2**63-1, 2**63, the uint64 maximum.
func fieldRows(t *testing.T) (*npyio.DType, []byte) {
	t.Helper()
	u3, _ := npyio.NewString(npyio.Unicode, 3)
	u5, _ := npyio.NewString(npyio.Unicode, 5)
	s2, _ := npyio.NewString(npyio.Bytes, 2)
	s4, _ := npyio.NewString(npyio.Bytes, 4)
	sec, _ := npyio.NewDatetime("s", 1, false)
	ms, _ := npyio.NewDatetime("ms", 1, false)
	dt, err := npyio.NewStruct([]npyio.Field{
		{Name: "i", Type: npyio.Int64Type}, {Name: "f", Type: npyio.Float64Type}, {Name: "u", Type: npyio.Uint64Type},
		{Name: "j", Type: npyio.Int32Type}, {Name: "g", Type: npyio.Float32Type}, {Name: "b", Type: npyio.BoolType},
		{Name: "a", Type: u3}, {Name: "c", Type: u5}, {Name: "s", Type: s2}, {Name: "t", Type: s4},
		{Name: "ts", Type: sec}, {Name: "ts2", Type: sec}, {Name: "tms", Type: ms}, {Name: "h", Type: npyio.Float16Type},
	})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		i    int64
		f    float64
		u    uint64
		j    int32
		g    float32
		b    bool
		a, c string
		s, t string
		ts   int64
	}
	rows := []row{
		{1<<53 + 1, 1 << 53, 1 << 63, -1, 0.1, true, "ab", "ab", "ab", "abc", 10},
		{-1, -0.5, math.MaxUint64, -1, -0.5, false, "b", "ab", "b", "b", 20},
		{3, 3, 3, 3, 3, true, "", "", "", "", 30},
		{math.MaxInt64, 1 << 63, math.MaxInt64, 0, float32(math.NaN()), false, "abc", "abd", "ab", "ab", 40},
		{0, math.NaN(), 0, 1, 1, true, "x", "xé", "a", "a", 50},
		{math.MinInt64, -9.3e18, 1, 1, 1.5, true, "é", "é", "z", "y", 60},
	}
	var data []byte
	off := func(n string) int { return dt.Fields[rowbytes.FieldIndex(dt, n)].Offset }
	for _, r := range rows {
		b := make([]byte, dt.Size)
		rowbytes.Store(b, off("i"), r.i)
		rowbytes.Store(b, off("f"), r.f)
		rowbytes.Store(b, off("u"), r.u)
		rowbytes.Store(b, off("j"), r.j)
		rowbytes.Store(b, off("g"), r.g)
		if r.b {
			b[off("b")] = 1
		}
		rowbytes.PutUCS4(b[off("a"):off("a")+12], r.a)
		rowbytes.PutUCS4(b[off("c"):off("c")+20], r.c)
		copy(b[off("s"):off("s")+2], r.s)
		copy(b[off("t"):off("t")+4], r.t)
		rowbytes.Store(b, off("ts"), r.ts)
		rowbytes.Store(b, off("ts2"), int64(20))
		rowbytes.Store(b, off("tms"), r.ts*1000)
		data = append(data, b...)
	}
	return dt, data
}

// TestEvalFields compares fields with fields (and numbers of mixed kinds
// with literals) by exact value. Where numpy, casting int64/uint64 to
// float64, disagrees, the comment says what numpy 1.24 gives; the
// expectations were checked with Python's exact int/float comparisons and
// numpy's string comparisons.
func TestEvalFields(t *testing.T) {
	dt, data := fieldRows(t)
	cases := []struct {
		where string
		want  []int32
	}{
		{"i > f", []int32{0, 5}},     // numpy: [5] (2**53+1 becomes 2**53)
		{"i == f", []int32{2}},       // numpy: [0, 2, 3]
		{"f < i", []int32{0, 5}},     // the same, turned round
		{"u > i", []int32{0, 1, 5}},  // numpy agrees here
		{"u == i", []int32{2, 3, 4}}, // 2**63-1 == 2**63-1 exactly
		{"i <= u", []int32{0, 1, 2, 3, 4, 5}},
		{"u >= f", []int32{0, 1, 2, 5}}, // 2**63-1 >= 2.0**63 is false; NaN is false
		{"f > u", []int32{3}},           // 2.0**63 > 2**63-1
		{"j < g", []int32{0, 1, 5}},     // int32 vs float32 (0.1f is 0.100000001...)
		{"g != j", []int32{0, 1, 3, 5}},
		{"f != f", []int32{4}}, // only NaN differs from itself
		{"f == f", []int32{0, 1, 2, 3, 5}},
		{"b == j", []int32{3, 4, 5}}, // bool is 0 or 1
		{"a == c", []int32{0, 2, 5}}, // U3 vs U5: trailing NULs do not count
		{"a < c", []int32{3, 4}},     // "b" > "ab"; "x" < "xé"
		{"c >= a", []int32{0, 2, 3, 4, 5}},
		{"s >= t", []int32{1, 2, 3, 4, 5}}, // S2 vs S4: "ab" < "abc"
		{"s != t", []int32{0, 5}},
		{"ts < ts2", []int32{0}},
		{"ts >= ts2 and not tms > 30000", []int32{1, 2}},
		{"`i` == `u` or a == c", []int32{0, 2, 3, 4, 5}},
		// Literals of another kind also compare exactly.
		{"i > 9007199254740992.0", []int32{0, 3}}, // numpy: [3]
		{"i >= 9.3e18", nil},
		{"u > -1", []int32{0, 1, 2, 3, 4, 5}},
		{"u < 1.5", []int32{4, 5}},
		{"u == 9223372036854775807", []int32{3}},
		{"f == 9007199254740993", nil}, // 2**53+1 is not a float64
		{"f == 9007199254740992", []int32{0}},
		{"j in [-1, 0.5, 3]", []int32{0, 1, 2}},
		// The literal first, with the same exact values.
		{"9007199254740992.0 < i", []int32{0, 3}}, // numpy: [3]
		{"9.3e18 <= i", nil},
		{"-1 < u", []int32{0, 1, 2, 3, 4, 5}},
		{"1.5 > u", []int32{4, 5}},
		{"9223372036854775807 == u", []int32{3}},
		{"9007199254740993 == f", nil},
		{"9007199254740992 == f", []int32{0}},
		{"9007199254740993 > f", []int32{0, 1, 2, 5}}, // numpy: [1, 2, 5]
		{"true == b", []int32{0, 2, 4, 5}},
		{"'ab' == a", []int32{0}},
		{"'ab' < c", []int32{3, 4, 5}}, // "ab" < "abd", "xé", "é"
		// Chains of fields and literals.
		{"0 < i < f", []int32{3}},                       // 2**63-1 < 2.0**63; numpy: []
		{"f < i <= 9223372036854775807", []int32{0, 5}}, // numpy: [5]
		{"-1 <= j < g", []int32{0, 1, 5}},
		{"a <= c < 'b'", []int32{0, 2, 3}},
		{"'ab' <= s <= t", []int32{0, 1, 3}}, // S2 and S4 fields with a string literal
	}
	for _, tc := range cases {
		t.Run(tc.where, func(t *testing.T) {
			got, err := keep(t, tc.where, dt, data)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("kept rows %v, want %v", got, tc.want)
			}
		})
	}
	const mixed = "numbers compare with numbers, and strings with strings of the same kind (U with U, S with S)"
	const times = "datetime64 and timedelta64 fields compare only with fields of the same type and unit"
	checkBindErrors(t, dt, []bindError{
		{"i > a", 4, `fields "i" ('<i8') and "a" ('<U3') cannot be compared: ` + mixed},
		{"a == s", 5, `fields "a" ('<U3') and "s" ('|S2') cannot be compared: ` + mixed},
		{"ts == tms", 6, `fields "ts" ('<M8[s]') and "tms" ('<M8[ms]') cannot be compared: ` + times},
		{"i < ts", 4, `fields "i" ('<i8') and "ts" ('<M8[s]') cannot be compared: ` + times},
		{"i == nope", 5, `no field "nope" in the input; fields: i, f, u, j, g, b, a, c, s, t, ts, ts2, tms, h`},
		{"i != h", 5, `field "h" is float16, which filter does not support; cast it first`},
		{"f > 1 and h > i", 10, `field "h" is float16, which filter does not support; cast it first`},
		{"'x' < i", 0, `field "i" holds '<i8' numbers; compare it with a number`},
		{"0 < h", 4, `field "h" is float16, which filter does not support; cast it first`},
		{"1 < i < a", 8, `fields "i" ('<i8') and "a" ('<U3') cannot be compared: ` + mixed},
	})
}

// TestEvalNaT: NaT compares like NaN, as in numpy 1.24 (the expected
// rows are numpy's results for the same arrays): false except with !=,
// never in a list.
func TestEvalNaT(t *testing.T) {
	sec, _ := npyio.NewDatetime("s", 1, false)
	dsec, _ := npyio.NewDatetime("s", 1, true)
	dt, err := npyio.NewStruct([]npyio.Field{{Name: "t", Type: sec}, {Name: "t2", Type: sec}, {Name: "d", Type: dsec}})
	if err != nil {
		t.Fatal(err)
	}
	const nat = math.MinInt64
	vals := [][3]int64{{nat, 5, nat}, {5, nat, 3}, {10, 10, 3}}
	var data []byte
	for _, v := range vals {
		data = append(data, npyio.AsBytes(v[:])...)
	}
	cases := []struct {
		where string
		want  []int32
	}{
		{"t < 7", []int32{1}},
		{"7 > t", []int32{1}},
		{"t != 5", []int32{0, 2}},
		{"t in [5]", []int32{1}},
		{"t not in [5]", []int32{0, 2}},
		{"t == t2", []int32{2}},
		{"t != t2", []int32{0, 1}},
		{"t <= t2", []int32{2}},
		{"t == t", []int32{1, 2}},
		{"t != t", []int32{0}},
		{"d > -5", []int32{1, 2}},
		{"d != d", []int32{0}},
		{"-9223372036854775808 == t", nil},
	}
	for _, tc := range cases {
		t.Run(tc.where, func(t *testing.T) {
			got, err := keep(t, tc.where, dt, data)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("kept rows %v, want %v", got, tc.want)
			}
		})
	}
}
