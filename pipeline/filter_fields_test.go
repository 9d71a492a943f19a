package pipeline

import (
	"math"
	"testing"

	"github.com/npyflow/npyflow/npyio"
	"github.com/npyflow/npyflow/pipeline/internal/rowbytes"
)

// fieldRows builds six rows of many types for comparisons of two fields.
// Their values sit where a float64 cast loses exactness: 2**53+1,
// 2**63-1, 2**63, the uint64 maximum.
func fieldRows(t *testing.T) (*Schema, []byte) {
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
	return &Schema{DType: dt}, data
}

// TestFilterFields compares fields with fields (and numbers of mixed kinds
// with literals) by exact value. Where numpy, casting int64/uint64 to
// float64, disagrees, the comment says what numpy 1.24 gives; the
// expectations were checked with Python's exact int/float comparisons and
// numpy's string comparisons.
func TestFilterFields(t *testing.T) {
	in, data := fieldRows(t)
	cases := []struct {
		where string
		want  []int
	}{
		{"i > f", []int{0, 5}},     // numpy: [5] (2**53+1 becomes 2**53)
		{"i == f", []int{2}},       // numpy: [0, 2, 3]
		{"f < i", []int{0, 5}},     // the same, turned round
		{"u > i", []int{0, 1, 5}},  // numpy agrees here
		{"u == i", []int{2, 3, 4}}, // 2**63-1 == 2**63-1 exactly
		{"i <= u", []int{0, 1, 2, 3, 4, 5}},
		{"u >= f", []int{0, 1, 2, 5}}, // 2**63-1 >= 2.0**63 is false; NaN is false
		{"f > u", []int{3}},           // 2.0**63 > 2**63-1
		{"j < g", []int{0, 1, 5}},     // int32 vs float32 (0.1f is 0.100000001...)
		{"g != j", []int{0, 1, 3, 5}},
		{"f != f", []int{4}}, // only NaN differs from itself
		{"f == f", []int{0, 1, 2, 3, 5}},
		{"b == j", []int{3, 4, 5}}, // bool is 0 or 1
		{"a == c", []int{0, 2, 5}}, // U3 vs U5: trailing NULs do not count
		{"a < c", []int{3, 4}},     // "b" > "ab"; "x" < "xé"
		{"c >= a", []int{0, 2, 3, 4, 5}},
		{"s >= t", []int{1, 2, 3, 4, 5}}, // S2 vs S4: "ab" < "abc"
		{"s != t", []int{0, 5}},
		{"ts < ts2", []int{0}},
		{"ts >= ts2 and not tms > 30000", []int{1, 2}},
		{"`i` == `u` or a == c", []int{0, 2, 3, 4, 5}},
		// Literals of another kind also compare exactly.
		{"i > 9007199254740992.0", []int{0, 3}}, // numpy: [3]
		{"i >= 9.3e18", nil},
		{"u > -1", []int{0, 1, 2, 3, 4, 5}},
		{"u < 1.5", []int{4, 5}},
		{"u == 9223372036854775807", []int{3}},
		{"f == 9007199254740993", nil}, // 2**53+1 is not a float64
		{"f == 9007199254740992", []int{0}},
		{"j in [-1, 0.5, 3]", []int{0, 1, 2}},
		// The literal first, with the same exact values.
		{"9007199254740992.0 < i", []int{0, 3}}, // numpy: [3]
		{"9.3e18 <= i", nil},
		{"-1 < u", []int{0, 1, 2, 3, 4, 5}},
		{"1.5 > u", []int{4, 5}},
		{"9223372036854775807 == u", []int{3}},
		{"9007199254740993 == f", nil},
		{"9007199254740992 == f", []int{0}},
		{"9007199254740993 > f", []int{0, 1, 2, 5}}, // numpy: [1, 2, 5]
		{"true == b", []int{0, 2, 4, 5}},
		{"'ab' == a", []int{0}},
		{"'ab' < c", []int{3, 4, 5}}, // "ab" < "abd", "xé", "é"
		// Chains of fields and literals.
		{"0 < i < f", []int{3}},                       // 2**63-1 < 2.0**63; numpy: []
		{"f < i <= 9223372036854775807", []int{0, 5}}, // numpy: [5]
		{"-1 <= j < g", []int{0, 1, 5}},
		{"a <= c < 'b'", []int{0, 2, 3}},
		{"'ab' <= s <= t", []int{0, 1, 3}}, // S2 and S4 fields with a string literal
	}
	for _, tc := range cases {
		t.Run(tc.where, func(t *testing.T) {
			out, err := apply(t, component(t, "filter", "    where: "+yamlQuote(tc.where)+"\n"), in, data)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for r := 0; r < out.rows; r++ {
				row := out.data[r*in.DType.Size:]
				for k := 0; k*in.DType.Size < len(data); k++ {
					if string(row[:in.DType.Size]) == string(data[k*in.DType.Size:(k+1)*in.DType.Size]) {
						got = append(got, k)
					}
				}
			}
			if len(got) != len(tc.want) || len(got) > 0 && !equalInts(toInt32(got), toInt32(tc.want)) {
				t.Errorf("kept rows %v, want %v", got, tc.want)
			}
		})
	}
	bad := []struct{ where, msg string }{
		{"i > a", `job.yaml:8:17: transforms.t.where: fields "i" ('<i8') and "a" ('<U3') cannot be compared: numbers compare with numbers, and strings with strings of the same kind (U with U, S with S)`},
		{"a == s", `job.yaml:8:18: transforms.t.where: fields "a" ('<U3') and "s" ('|S2') cannot be compared: numbers compare with numbers, and strings with strings of the same kind (U with U, S with S)`},
		{"ts == tms", `job.yaml:8:19: transforms.t.where: fields "ts" ('<M8[s]') and "tms" ('<M8[ms]') cannot be compared: datetime64 and timedelta64 fields compare only with fields of the same type and unit`},
		{"i < ts", `job.yaml:8:17: transforms.t.where: fields "i" ('<i8') and "ts" ('<M8[s]') cannot be compared: datetime64 and timedelta64 fields compare only with fields of the same type and unit`},
		{"i == nope", `job.yaml:8:18: transforms.t.where: no field "nope" in the input; fields: i, f, u, j, g, b, a, c, s, t, ts, ts2, tms, h`},
		{"i != h", `job.yaml:8:18: transforms.t.where: field "h" is float16, which filter does not support; cast it first`},
		{"f > 1 and h > i", `job.yaml:8:23: transforms.t.where: field "h" is float16, which filter does not support; cast it first`},
		{"'x' < i", `job.yaml:8:13: transforms.t.where: field "i" holds '<i8' numbers; compare it with a number`},
		{"0 < h", `job.yaml:8:17: transforms.t.where: field "h" is float16, which filter does not support; cast it first`},
		{"1 < i < a", `job.yaml:8:21: transforms.t.where: fields "i" ('<i8') and "a" ('<U3') cannot be compared: numbers compare with numbers, and strings with strings of the same kind (U with U, S with S)`},
	}
	for _, tc := range bad {
		_, err := apply(t, component(t, "filter", "    where: "+yamlQuote(tc.where)+"\n"), in, data)
		if err == nil || err.Error() != tc.msg {
			t.Errorf("%s: err = %v\nwant %s", tc.where, err, tc.msg)
		}
	}
}

func toInt32(v []int) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

// TestFilterNaT: NaT compares like NaN, as in numpy 1.24 (the expected
// rows are numpy's results for the same arrays): false except with !=,
// never in a list.
func TestFilterNaT(t *testing.T) {
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
	in := &Schema{DType: dt}
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
			out, err := apply(t, component(t, "filter", "    where: "+yamlQuote(tc.where)+"\n"), in, data)
			if err != nil {
				t.Fatal(err)
			}
			var got []int32
			for r := 0; r < out.rows; r++ {
				row := out.data[r*dt.Size : (r+1)*dt.Size]
				for k := range vals {
					if string(row) == string(data[k*dt.Size:(k+1)*dt.Size]) {
						got = append(got, int32(k))
					}
				}
			}
			if !equalInts(got, tc.want) {
				t.Errorf("kept rows %v, want %v", got, tc.want)
			}
		})
	}
}
